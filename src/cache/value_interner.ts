/**
 * Sharing of repeated strings and identical subtrees between cached objects (hash-consing).
 * @module
 */

import { HASH_BITS, OCCUPIED, SetTable, TAG_FLAG, WAYS } from "./_set_table.ts";

/** Options of {@linkcode ValueInterner}. */
export interface ValueInternerOptions {
  /**
   * Entries each of its two tables (strings, subtrees) holds at most (rounded up to a power
   * of two). A table starts at 512 entries and doubles each time values new to it reach a
   * quarter of its size, up to this. A value's hash picks a set of four entries; a new value takes
   * the place of the least recently seen one in its set, which is forgotten (objects keep it;
   * only sharing with later objects is lost).
   * The tables never grow past it however the cluster churns, and, past their growth, never
   * allocate: no table is rebuilt or dropped as garbage.
   * @default 131072
   */
  capacity?: number | undefined;
}

/**
 * Makes freshly decoded JSON values share memory with values seen before: every string of 10
 * or more characters is replaced by the first equal one seen (V8's `JSON.parse` shares only
 * shorter strings, so names, namespaces, images, node names, timestamps and label values are
 * otherwise fresh copies in every object), and every object or array whose content equals one seen before is
 * replaced by that one (managedFields entries, container specs, ports, env, volumes,
 * conditions...). A subtree is frozen (`Object.freeze`, all the way down) when it is first
 * shared, with another object or another version of the same object: a change to it through
 * one object would show in every object holding it. The top-level object, and the parts of it
 * shared with nothing, are not frozen. Values are compared by content exactly (key
 * order included), so an interned value is indistinguishable from the original to
 * `JSON.stringify`, `deepEqual` or any reader; only writes differ (they throw in strict code).
 *
 * Every subtree is remembered, so sharing starts with the second copy (a Deployment's second
 * pod); the two tables are bounded ({@linkcode ValueInternerOptions.capacity}).
 * `intern` walks each value once; it runs where objects enter an informer's cache.
 *
 * @example
 * ```ts
 * import { ValueInterner } from "@kinformer/kinformer/cache";
 * import assert from "node:assert/strict";
 * const interner = new ValueInterner();
 * const spec = '{"containers":[{"name":"web","image":"registry.example.com/web:v1"}]}';
 * const a = interner.intern(JSON.parse(`{"metadata":{"uid":"1"},"spec":${spec}}`));
 * const b = interner.intern(JSON.parse(`{"metadata":{"uid":"2"},"spec":${spec}}`));
 * assert.equal(a.spec, b.spec); // one object, shared
 * assert.ok(Object.isFrozen(b.spec));
 * assert.deepEqual(b, JSON.parse(`{"metadata":{"uid":"2"},"spec":${spec}}`));
 * ```
 */
export class ValueInterner {
  /** The strings of 10 or more characters seen (`""`, never tabled, marks an empty slot). */
  readonly #strings: SetTable<string>;
  /** The subtrees seen. */
  readonly #nodes: SetTable<object | null>;
  /** Nesting depth of the node being walked. */
  #depth = 0;
  /** Set by `#value`: the hash of the value it returned, or FRESH. */
  #hash = 0;
  /** Estimated heap bytes the last `intern` kept (what it could not share). */
  #bytes = 0;
  /**
   * Set when the string just returned is an earlier copy: `===` compares strings by content,
   * so this is the only way a caller knows to write it in place of its own.
   */
  #swap = false;
  /**
   * The keys and the interned values of the nodes being walked, one run per node from its
   * first slot (`#top` when it started) to `#top`: what `#node` compares a table entry with
   * (no second walk of the node, no read of its properties by name).
   */
  readonly #keys: string[] = [];
  readonly #items: unknown[] = [];
  /**
   * 1 where the slot's item replaces the node's own (an earlier copy of a string, or a shared
   * node): written into the node only if the node is kept, not when an equal one replaces it.
   */
  readonly #changed: number[] = [];
  /** Set by `#array` and `#object`: how many of the node's slots are changed. */
  #dirty = 0;
  /** The first free slot of `#keys` and `#items`. */
  #top = 0;
  /** The highest `#top` since the slots were last cleared (they hold no value after a call). */
  #high = 0;

  /** An interner with empty tables. */
  constructor(options: ValueInternerOptions = {}) {
    const capacity = options.capacity ?? 131_072;
    if (!Number.isInteger(capacity) || capacity < 1) {
      throw new RangeError(`capacity must be a positive integer, got ${capacity}`);
    }
    let size = 8;
    while (size < capacity) size *= 2;
    this.#strings = new SetTable<string>(size, "");
    this.#nodes = new SetTable<object | null>(size, null);
  }

  /** Entries the tables hold now (strings and subtrees). */
  get size(): number {
    return this.#strings.count + this.#nodes.count;
  }

  /**
   * Estimated heap bytes of what the last {@linkcode ValueInterner.intern} could not share
   * (its own strings and nodes; a subtree seen first there counts there): an estimate, as
   * engines lay objects out as they like.
   */
  get lastBytes(): number {
    return this.#bytes;
  }

  /**
   * `value` with its strings and subtrees replaced by equal ones seen before (changed in
   * place; the top-level object itself is never replaced nor frozen).
   */
  intern<V>(value: V): V {
    this.#bytes = 0;
    this.#depth = 0;
    this.#top = 0;
    if (typeof value !== "object" || value === null) return this.#value(value) as V;
    const array = Array.isArray(value);
    try {
      if (array) this.#array(value);
      else this.#object(value as Record<string, unknown>);
    } catch (error) {
      this.#clear(this.#items.length); // a transform's getter threw: wherever the walk was
      throw error;
    }
    if (this.#dirty !== 0) this.#write(value, array, 0, this.#top);
    this.#top = 0;
    this.#bytes += NODE_BYTES;
    this.#clear(this.#high);
    return value;
  }

  /**
   * Drops the walk's references to values in its first `slots` slots (the interner holds
   * none after a call but its tables').
   */
  #clear(slots: number): void {
    const items = this.#items;
    for (let i = 0; i < slots; i++) items[i] = undefined;
    this.#high = 0;
  }

  /**
   * {@linkcode ValueInterner.intern} for a new version of `previous` (an object already
   * interned, e.g. the cached version of a watched object): each part of `value` equal to the
   * same part of `previous` becomes that part, found by walking both side by side (no hashing,
   * no table); only the parts that differ go through the tables. About half the cost of
   * `intern` for a typical update, where a few fields change.
   */
  internLike<V>(value: V, previous: unknown): V {
    this.#bytes = 0;
    this.#depth = 0;
    this.#top = 0;
    if (typeof value !== "object" || value === null || Array.isArray(value)) {
      return this.intern(value);
    }
    if (typeof previous !== "object" || previous === null || Array.isArray(previous)) {
      return this.intern(value);
    }
    const o = value as Record<string, unknown>;
    const p = previous as Record<string, unknown>;
    try {
      if (this.#objectLike(o, p)) freezeTaken(o, p); // equal, yet the top level stays its own
    } catch (error) {
      this.#clear(this.#items.length);
      throw error;
    }
    this.#bytes += NODE_BYTES;
    this.#clear(this.#high);
    return value;
  }

  /** `v` as the same part of the previous version `p` when equal, else interned. */
  #like(v: unknown, p: unknown): unknown {
    if (v === p) {
      // An equal string: `p`'s is the earlier copy (a short one is shared by the engine).
      if (typeof v === "string" && v.length >= SHORT) this.#swap = true;
      return p;
    }
    if (typeof v === "string") return this.#string(v); // not equal to `p` (checked above)
    if (typeof v !== "object" || v === null || typeof p !== "object" || p === null) {
      return this.#value(v);
    }
    if (!isPlain(v) || !isPlain(p)) return this.#value(v);
    if (this.#depth >= MAX_DEPTH) return v;
    this.#depth++;
    const same = Array.isArray(v) ? Array.isArray(p) && this.#arrayLike(v, p) : !Array.isArray(p) &&
      this.#objectLike(v as Record<string, unknown>, p as Record<string, unknown>);
    this.#depth--;
    this.#swap = false;
    if (!same) {
      this.#bytes += NODE_BYTES;
      return v;
    }
    // Equal: `p` is used whole; whoever holds it (a node that differs) freezes it.
    return p;
  }

  /** Interns `a`'s items like `p`'s; true when every item is `p`'s (so `a` equals `p`). */
  #arrayLike(a: unknown[], p: unknown[]): boolean {
    const bytes = this.#bytes;
    let same = a.length === p.length;
    const writable = !Object.isFrozen(a);
    this.#bytes += 8 * a.length;
    for (let i = 0; i < a.length; i++) {
      const item = a[i];
      const before = i < p.length ? p[i] : undefined;
      this.#swap = false;
      const canonical = before === undefined ? this.#value(item) : this.#like(item, before);
      if ((canonical !== item || this.#swap) && writable) put(a, i, canonical);
      if (canonical !== before) same = false;
    }
    if (same) this.#bytes = bytes;
    else freezeTaken(a, p);
    return same;
  }

  /** Interns `o`'s values like `p`'s; true when `o` has `p`'s keys, in order, and values. */
  #objectLike(o: Record<string, unknown>, p: Record<string, unknown>): boolean {
    const bytes = this.#bytes;
    let same = true;
    let count = 0;
    const writable = !Object.isFrozen(o);
    for (const key in o) {
      this.#bytes += 8;
      count++;
      const item = o[key];
      // `p[key]` may be inherited (`toString`: a function, never equal to a JSON value), but
      // `__proto__` would be `p`'s prototype, an object.
      const before = key === "__proto__" && !Object.hasOwn(p, key) ? undefined : p[key];
      this.#swap = false;
      const canonical = before === undefined ? this.#value(item) : this.#like(item, before);
      if ((canonical !== item || this.#swap) && writable) put(o, key, canonical);
      if (canonical !== before) same = false;
    }
    // Same values under `o`'s keys: equal if `p` has no other key, in the same order.
    if (same) same = sameKeys(o, p, count);
    if (same) this.#bytes = bytes;
    else freezeTaken(o, p);
    return same;
  }

  /** The canonical form of `v`; sets `#hash` (FRESH for what JSON cannot hold). */
  #value(v: unknown): unknown {
    switch (typeof v) {
      case "string":
        return this.#string(v);
      case "number":
        this.#hash = numberHash(v);
        return v;
      case "boolean":
        this.#hash = v ? 0x2f1 : 0x2f3;
        return v;
      case "object":
        if (v === null) {
          this.#hash = 0x2f5;
          return v;
        }
        return this.#child(v);
      default:
        this.#hash = FRESH;
        return v;
    }
  }

  #string(s: string): string {
    // V8's JSON.parse already shares short strings (it internalizes them): no table needed.
    if (s.length < SHORT) {
      this.#hash = stringHash(s);
      return s;
    }
    const hash = stringHash(s);
    this.#hash = hash;
    const table = this.#strings;
    const set = table.setOf(hash);
    const { values, hashes } = table;
    const tag = hash | OCCUPIED;
    const order = table.order[set >> 2]!;
    for (let rank = 0; rank < WAYS; rank++) {
      const j = set + ((order >> (rank << 1)) & 3);
      if (hashes[j] !== tag) continue;
      const seen = values[j]!;
      if (seen !== s) continue;
      if (rank !== 0) table.promote(set, rank);
      this.#swap = true;
      return seen;
    }
    table.insert(set, s, hash);
    this.#bytes += 16 + s.length;
    return s;
  }

  /**
   * The canonical form of the object or array `v` (`#value`'s case of a node); sets `#hash`.
   * Leaves `#swap` false: a node is replaced only by another node.
   */
  #child(v: object): object {
    let array = false;
    if (Array.isArray(v)) array = true;
    else {
      const proto = Object.getPrototypeOf(v);
      // Not JSON's (a transform's Date or Map: its state is not in its keys): kept as it is.
      if (proto !== OBJECT_PROTOTYPE && proto !== null) return this.#kept(v);
    }
    // Deeper than any Kubernetes object (no stack overflows): kept as it is.
    if (this.#depth >= MAX_DEPTH) return this.#kept(v);
    const bytes = this.#bytes;
    const first = this.#top;
    this.#depth++;
    const hash = array ? this.#array(v as unknown[]) : this.#object(v as Record<string, unknown>);
    this.#depth--;
    const count = this.#top - first;
    const dirty = this.#dirty;
    this.#top = first;
    this.#swap = false;
    this.#hash = hash;
    const canonical = hash === FRESH ? v : this.#node(v, hash, array, first, count);
    if (canonical !== v) {
      // A subtree shared with one seen before costs nothing here (nor is `v` written).
      this.#bytes = bytes;
      return canonical;
    }
    if (dirty !== 0) this.#write(v, array, first, count);
    this.#bytes += NODE_BYTES;
    return v;
  }

  /** Writes into the kept node `v` the changed items of its `count` slots from `first`. */
  #write(v: object, array: boolean, first: number, count: number): void {
    const changed = this.#changed;
    const items = this.#items;
    const keys = this.#keys;
    for (let i = first; i < first + count; i++) {
      if (changed[i] === 0) continue;
      put(v as Record<string, unknown>, array ? i - first : keys[i]!, items[i]);
    }
  }

  /** `v` left as it is (FRESH): what `#child` does not walk. */
  #kept(v: object): object {
    this.#swap = false;
    this.#hash = FRESH;
    return v;
  }

  /**
   * Interns the items of `a` in place, noting each in the walk's slots; returns its content
   * hash (FRESH if it holds something left alone).
   */
  #array(a: unknown[]): number {
    let hash = 0x3a5 + a.length;
    let fresh = false;
    const writable = !Object.isFrozen(a);
    const items = this.#items;
    const changed = this.#changed;
    let top = this.#top;
    let dirty = 0;
    this.#bytes += 8 * a.length;
    for (let i = 0; i < a.length; i++) {
      const item = a[i];
      let canonical = item;
      let h: number;
      let change = 0;
      // The common cases inline (a call per item costs more than the case). `#object` repeats
      // these steps on purpose: one method shared by both made interning 11% slower (the
      // walk recurses through it, so the engine does not inline it).
      if (typeof item === "string" && item.length < SHORT) h = stringHash(item);
      else if (typeof item === "object" && item !== null) {
        this.#top = top;
        canonical = this.#child(item);
        h = this.#hash;
        if (canonical !== item) {
          if (writable) change = 1;
          else canonical = item;
        }
      } else {
        this.#swap = false;
        canonical = this.#value(item);
        h = this.#hash;
        if (this.#swap && writable) change = 1;
      }
      dirty += change;
      changed[top] = change;
      items[top++] = canonical;
      if (h === FRESH) fresh = true;
      else hash = mix(hash, h);
    }
    this.#top = top;
    this.#dirty = dirty;
    if (top > this.#high) this.#high = top;
    return fresh ? FRESH : hash;
  }

  /**
   * Interns the values of `o` in place, noting each key and value in the walk's slots;
   * returns its content hash (FRESH if it holds something left alone).
   */
  #object(o: Record<string, unknown>): number {
    let hash = 0x1b7;
    let fresh = false;
    const writable = !Object.isFrozen(o);
    const keys = this.#keys;
    const items = this.#items;
    const changed = this.#changed;
    const first = this.#top;
    let top = first;
    let dirty = 0;
    for (const key in o) {
      const item = o[key];
      let canonical = item;
      let h: number;
      let change = 0;
      if (typeof item === "string" && item.length < SHORT) h = stringHash(item);
      else if (typeof item === "object" && item !== null) {
        this.#top = top;
        canonical = this.#child(item);
        h = this.#hash;
        if (canonical !== item) {
          if (writable) change = 1;
          else canonical = item;
        }
      } else {
        this.#swap = false;
        canonical = this.#value(item);
        h = this.#hash;
        if (this.#swap && writable) change = 1;
      }
      dirty += change;
      changed[top] = change;
      keys[top] = key;
      items[top++] = canonical;
      if (h === FRESH) fresh = true;
      else hash = mix(mix(hash, keyHash(key)), h);
    }
    this.#bytes += 8 * (top - first);
    this.#top = top;
    this.#dirty = dirty;
    if (top > this.#high) this.#high = top;
    return fresh ? FRESH : hash;
  }

  /**
   * The node equal to `v` seen before (frozen, with everything under it, once it is shared),
   * or `v` itself (remembered). Equality is checked on the items, which are interned: a node
   * changed in place before it was shared no longer matches (nor does any node above it).
   */
  #node(v: object, hash: number, array: boolean, first: number, count: number): object {
    const table = this.#nodes;
    const set = table.setOf(hash);
    const { values, hashes } = table;
    const tag = hash | OCCUPIED;
    const order = table.order[set >> 2]!;
    for (let rank = 0; rank < WAYS; rank++) {
      const j = set + ((order >> (rank << 1)) & 3);
      const tagged = hashes[j]!;
      if ((tagged & ~SHARED) !== tag) continue;
      const seen = values[j]!;
      if (!this.#equal(seen!, array, first, count)) continue;
      if (tagged === tag) {
        // Shared for the first time: frozen. Marked, as `Object.isFrozen` of a frozen object
        // checks each of its properties.
        if (!Object.isFrozen(seen!)) freezeDeep(seen!);
        hashes[j] = tag | SHARED;
      }
      if (rank !== 0) table.promote(set, rank);
      return seen;
    }
    table.insert(set, v, hash);
    return v;
  }

  /**
   * Whether the interned node `seen` holds exactly the `count` items (and, for an object, keys
   * in the same order) noted in the walk's slots from `first`: those of an array if `array`.
   */
  #equal(seen: object, array: boolean, first: number, count: number): boolean {
    const items = this.#items;
    if (Array.isArray(seen)) {
      if (!array || seen.length !== count) return false;
      for (let i = 0; i < count; i++) if (seen[i] !== items[first + i]) return false;
      return true;
    }
    if (array) return false;
    const keys = this.#keys;
    const node = seen as Record<string, unknown>;
    const end = first + count;
    let i = first;
    for (const key in node) {
      if (i === end || key !== keys[i] || node[key] !== items[i]) return false;
      i++;
    }
    return i === end;
  }
}

/** Estimated bytes of an object or array besides its slots (header, map, elements store). */
const NODE_BYTES = 32;

/** Strings shorter than this are not tabled (JSON.parse shares them on V8). */
const SHORT = 10;

/** Nodes deeper than this are left as they are (Kubernetes objects nest about 20 deep). */
const MAX_DEPTH = 100;

/** Freezes `node` and every node under it (stopping at frozen ones: frozen all the way down). */
function freezeDeep(node: object): void {
  // Its caller checked that it is not frozen yet. An array's items by index (what the walk
  // interns; a `for...in` over an array makes a string of each index).
  Object.freeze(node);
  if (Array.isArray(node)) {
    for (let i = 0; i < node.length; i++) {
      const item: unknown = node[i];
      if (typeof item === "object" && item !== null && !Object.isFrozen(item)) freezeDeep(item);
    }
    return;
  }
  const items = node as Record<string, unknown>;
  for (const key in items) {
    const item = items[key];
    if (typeof item === "object" && item !== null && !Object.isFrozen(item)) freezeDeep(item);
  }
}

/**
 * Freezes the parts `node` took whole from the previous version `p` (now held by two
 * versions); called once per node that differs, so each shared part is frozen from the top.
 */
function freezeTaken(node: object, p: object): void {
  const items = node as Record<string, unknown>;
  const before = p as Record<string, unknown>;
  for (const key in items) {
    const item = items[key];
    if (
      typeof item === "object" && item !== null && item === before[key] && !Object.isFrozen(item)
    ) {
      freezeDeep(item);
    }
  }
}

/** The flag bit of a node's tabled hash, set once the node is shared (frozen). */
const SHARED = TAG_FLAG;

/** Hash of a subtree holding what JSON cannot hold (`undefined`, a function): left alone. */
const FRESH = -1;

function mix(h: number, x: number): number {
  return (Math.imul(h ^ x, 0x01000193) + (h >>> 13)) & HASH_BITS;
}

function numberHash(n: number): number {
  return (n | 0) === n ? (Math.imul(n, 0x9e3779b1) >>> 2) & HASH_BITS : 0x2f7;
}

/**
 * A cheap hash of a string: its length, first character and last 16 characters (where
 * timestamps, tags, hashes and ordinals differ; collisions are checked, never trusted).
 */
function stringHash(s: string): number {
  const n = s.length;
  if (n === 0) return 0x2f9;
  let h = mix(n, s.charCodeAt(0));
  for (let i = n > 16 ? n - 16 : 1; i < n; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h & HASH_BITS;
}

/** A cheaper hash for property names (few, and in the same order per shape). */
function keyHash(key: string): number {
  const n = key.length;
  return n === 0 ? 0x2fb : (n * 0x3b9 + key.charCodeAt(0) * 31 + key.charCodeAt(n - 1)) | 0;
}

/**
 * Writes `value` (equal to what `node[key]` reads) in place of it. A property that cannot be
 * written (a transform's object may have a getter or a read-only field) keeps its own value:
 * equal content, just not shared. No error is lost: nothing differs.
 */
function put(
  node: Record<string, unknown> | unknown[],
  key: string | number,
  value: unknown,
): boolean {
  try {
    (node as Record<string | number, unknown>)[key] = value;
    return true;
  } catch {
    return false; // Not writable: see above.
  }
}

/** `Object.prototype`, read once. */
const OBJECT_PROTOTYPE: unknown = Object.prototype;

/** Whether `v` is an array or a plain object (what JSON.parse makes), not a class instance. */
function isPlain(v: object): boolean {
  if (Array.isArray(v)) return true;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

/** `b`'s keys, reused by every {@linkcode sameKeys} (no array per compared object). */
const scratchKeys: string[] = [];

/** Whether `b` has exactly `a`'s `count` keys, in the same order. */
function sameKeys(a: object, b: object, count: number): boolean {
  let n = 0;
  for (const key in b) {
    if (n === count) return false;
    scratchKeys[n++] = key;
  }
  if (n !== count) return false;
  let i = 0;
  for (const key in a) if (key !== scratchKeys[i++]) return false;
  return true;
}
