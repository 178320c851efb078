/**
 * A LIST answer's body decoded item by item. Internal.
 *
 * A page of 500 pods is about 1.5 MB of JSON. Decoded whole it is one string over V8's
 * large-object threshold (about 128 KB), and such a string that is alive when the young
 * generation is collected (it is, while `JSON.parse` reads it) moves to the old generation at
 * once and stays there until the next full collection: on Node 24, 50k pods, the old
 * generation held about 40-60 MB of dead page strings at the sync's peak heap. Here the page's
 * bytes are cut into one slice per item by a scanner that follows strings and escapes (about 3
 * ms per 1.5 MB page on Node 24), and each item is decoded and parsed on its own: every
 * temporary is a small young object, and a page of parsed objects is never needed at once.
 *
 * An item whose `metadata` (uid and resourceVersion, read from the bytes) says the caller
 * holds it already is not decoded at all: a relist of an unchanged cluster parses nothing.
 *
 * Anything the scanner does not expect (not an object, `items` not an array of objects, a key
 * that needs escaping rules, a broken item) sends the whole body down the plain path: decoded
 * as one text and parsed whole, so bad bodies fail exactly as a plain `JSON.parse` makes them
 * fail (the items handed to the reader before the scanner gave up are handed again). An item
 * taken as known is checked for balanced brackets and closed strings only (it is not parsed).
 * @module
 */
import { isMetadataOnly, toPartialObjectMetadata } from "./metadata_only.ts";
import type { AnyResourceDescriptor } from "./resource.ts";
import { listOf, parseJsonObject } from "./response_body.ts";
import type { KubeList, KubeObjectLike } from "./types.ts";

/** A decoded list whose items are whatever its reader made of them. Internal. */
export type DecodedList<T> = Omit<KubeList<KubeObjectLike>, "items"> & { items: T[] };

/** What identifies a listed item: read from its `metadata` without decoding the item. */
export interface ListItemIdentity {
  namespace: string | undefined;
  name: string | undefined;
  uid: string | undefined;
  resourceVersion: string | undefined;
}

/** How the items of a list body become what the caller keeps. Internal. */
export interface ListItemReader<T> {
  /** One decoded item as the caller keeps it; undefined drops it. */
  item(object: KubeObjectLike): T | undefined;
  /**
   * The object the caller already holds for an item of this identity, kept in place of
   * decoding it; undefined decodes it. Asked only for items whose metadata has a uid and a
   * resourceVersion.
   */
  known?: ((identity: ListItemIdentity) => T | undefined) | undefined;
}

/** What a body is decoded as, for its errors. */
export interface ListBodyContext {
  /** The request (`GET /api/v1/pods?limit=500`), for messages. */
  request: string;
  /** The request's path, for the non-array-items message. */
  path: string;
  /** The HTTP status, for messages. */
  status: number;
  resource: AnyResourceDescriptor;
}

/** Passes items through unchanged. */
const AS_IS: ListItemReader<KubeObjectLike> = { item: (object) => object };

/**
 * The list in `bytes`, its items through `reader` (in order). Missing `items` or `metadata`
 * become `[]` and `{}`; a body that is not JSON, or not an object, is a `TypeError` (as
 * `parseJsonObject` makes it), items that are not an array too. A metadata-only resource's
 * items are cut to their metadata before `reader` sees them.
 */
export function decodeListBody<T = KubeObjectLike>(
  bytes: Uint8Array,
  context: ListBodyContext,
  reader: ListItemReader<T> = AS_IS as ListItemReader<T>,
): DecodedList<T> {
  const metadataOnly = isMetadataOnly(context.resource);
  const item = metadataOnly
    ? (object: KubeObjectLike) =>
      reader.item(
        typeof object === "object" && object !== null ? toPartialObjectMetadata(object) : object,
      )
    : reader.item;
  const scanned = scanList(bytes, { item, known: reader.known });
  let list: DecodedList<T>;
  if (scanned !== undefined) {
    list = listOf(scanned, context.path) as unknown as DecodedList<T>;
  } else {
    // The plain path: one text, one parse, the errors of a plain parse.
    const text = new TextDecoder().decode(bytes);
    const raw = listOf(parseJsonObject(text, context.request, context.status), context.path);
    const items: T[] = [];
    for (const object of raw.items) {
      const out = item(object);
      if (out !== undefined) items.push(out);
    }
    list = raw as unknown as DecodedList<T>;
    list.items = items;
  }
  if (metadataOnly && list.kind !== "PartialObjectMetadataList") {
    // A server that ignored the metadata-only Accept sent whole objects: keep what was asked.
    list.kind = "PartialObjectMetadataList";
    list.apiVersion = "meta.k8s.io/v1";
  }
  return list;
}

// ------------------------------------------------------------------------------ the scanner

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const COMMA = 0x2c;
const COLON = 0x3a;

/** Nesting the scanner follows (Kubernetes objects nest about 20 deep); deeper: plain path. */
const MAX_DEPTH = 512;

/** The scanner's reader, with `item` already wrapped. */
interface Scan<T> {
  item(object: KubeObjectLike): T | undefined;
  known?: ((identity: ListItemIdentity) => T | undefined) | undefined;
}

/**
 * The top-level object of a list body with its `items` read one by one, or undefined when the
 * body is anything but a well-formed object with at most one `items` array of objects.
 */
function scanList<T>(b: Uint8Array, reader: Scan<T>): Record<string, unknown> | undefined {
  const s = new ListScanner(b, reader);
  try {
    return s.list();
  } catch (error) {
    if (error === BAILED) return undefined;
    throw error; // the caller's `item` or `known` threw: theirs
  }
}

/** Thrown inside the scanner to leave for the plain path. */
const BAILED = new Error("not a plain list body");

class ListScanner<T> {
  readonly #b: Uint8Array;
  readonly #reader: Scan<T>;
  readonly #decoder = new TextDecoder();
  /** Closers expected at each depth of the composite being skipped. */
  readonly #stack = new Uint8Array(MAX_DEPTH);
  /** The identity fields of the item being scanned: start and end of each string, or -1. */
  #ns = [-1, -1];
  #name = [-1, -1];
  #uid = [-1, -1];
  #rv = [-1, -1];
  /** Whether the last string scanned held a backslash. */
  #escaped = false;
  /** A key on the way to the identity fields had an escape: the capture is not trusted. */
  #untrusted = false;

  constructor(b: Uint8Array, reader: Scan<T>) {
    this.#b = b;
    this.#reader = reader;
  }

  list(): Record<string, unknown> {
    const b = this.#b;
    let i = 0;
    // TextDecoder drops a UTF-8 byte order mark: so does the plain path.
    if (b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf) i = 3;
    i = this.#ws(i);
    if (b[i] !== OPEN_BRACE) throw BAILED;
    const out: Record<string, unknown> = {};
    i = this.#ws(i + 1);
    if (b[i] === CLOSE_BRACE) return this.#end(i + 1, out);
    for (;;) {
      if (b[i] !== QUOTE) throw BAILED;
      const keyEnd = this.#string(i);
      const key = this.#key(i, keyEnd);
      i = this.#ws(keyEnd);
      if (b[i] !== COLON) throw BAILED;
      i = this.#ws(i + 1);
      if (key === "__proto__" || key === "items" && Object.hasOwn(out, key)) {
        throw BAILED; // a key assignment would treat otherwise than JSON.parse; a second items
      }
      if (key === "items" && b[i] === OPEN_BRACKET) {
        const list: T[] = [];
        out.items = list;
        i = this.#items(i, list);
      } else {
        const end = this.#value(i);
        out[key] = this.#parse(i, end);
        i = end;
      }
      i = this.#ws(i);
      if (b[i] === COMMA) {
        i = this.#ws(i + 1);
        continue;
      }
      if (b[i] === CLOSE_BRACE) return this.#end(i + 1, out);
      throw BAILED;
    }
  }

  /** Only whitespace may follow the top-level object. */
  #end(i: number, out: Record<string, unknown>): Record<string, unknown> {
    if (this.#ws(i) !== this.#b.length) throw BAILED;
    return out;
  }

  /** Reads the array of items at `i` into `list`; returns the index after it. */
  #items(i: number, list: T[]): number {
    const b = this.#b;
    const reader = this.#reader;
    const known = reader.known;
    i = this.#ws(i + 1);
    if (b[i] === CLOSE_BRACKET) return i + 1;
    for (;;) {
      if (b[i] !== OPEN_BRACE) throw BAILED; // an item that is not an object: plain path
      const end = known === undefined ? this.#composite(i) : this.#item(i);
      const held = known === undefined ? undefined : this.#known(known);
      const out = held ?? reader.item(this.#parse(i, end) as KubeObjectLike);
      if (out !== undefined) list.push(out);
      i = this.#ws(end);
      if (b[i] === COMMA) {
        i = this.#ws(i + 1);
        continue;
      }
      if (b[i] === CLOSE_BRACKET) return i + 1;
      throw BAILED;
    }
  }

  /** What `known` says of the item just scanned by `#item` (asked only with uid and RV). */
  #known(known: (identity: ListItemIdentity) => T | undefined): T | undefined {
    if (this.#untrusted) return undefined;
    const uid = this.#field(this.#uid);
    const resourceVersion = this.#field(this.#rv);
    if (uid === undefined || resourceVersion === undefined) return undefined;
    return known({
      namespace: this.#field(this.#ns),
      name: this.#field(this.#name),
      uid,
      resourceVersion,
    });
  }

  /** A captured string field (`[start, end]` of the string with its quotes), decoded. */
  #field(at: number[]): string | undefined {
    const start = at[0]!;
    if (start < 0) return undefined;
    const end = at[1]!;
    for (let i = start; i < end; i++) {
      if (this.#b[i] === BACKSLASH) {
        return JSON.parse(this.#decoder.decode(this.#b.subarray(start, end))) as string;
      }
    }
    return this.#decoder.decode(this.#b.subarray(start + 1, end - 1));
  }

  /**
   * Scans the item object at `i`, capturing the string values of `metadata.namespace`, `name`,
   * `uid` and `resourceVersion` (the last of duplicates, as JSON.parse keeps); returns the
   * index after it. A key with an escape on the way makes the capture untrusted.
   */
  #item(i: number): number {
    this.#clear();
    this.#untrusted = false;
    return this.#members(i, this.#itemMember);
  }

  /** One member of an item: `metadata` is scanned member by member, the rest skipped. */
  readonly #itemMember = (keyStart: number, keyEnd: number, at: number): number => {
    if (this.#escaped) this.#untrusted = true; // the key might decode to "metadata"
    if (!this.#is(keyStart, keyEnd, METADATA)) return this.#value(at);
    this.#clear(); // a later "metadata" wins, as in JSON.parse
    if (this.#b[at] !== OPEN_BRACE) return this.#value(at);
    return this.#members(at, this.#metadataMember);
  };

  /** One member of an item's metadata: an identity field's string is captured. */
  readonly #metadataMember = (keyStart: number, keyEnd: number, at: number): number => {
    if (this.#escaped) this.#untrusted = true;
    const field = this.#fieldAt(keyStart, keyEnd);
    const after = this.#value(at);
    if (field !== undefined) {
      if (this.#b[at] === QUOTE) {
        field[0] = at;
        field[1] = after;
      } else field[0] = -1;
    }
    return after;
  };

  #clear(): void {
    this.#ns[0] =
      this.#name[0] =
      this.#uid[0] =
      this.#rv[0] =
        -1;
  }

  /** The capture slot for a metadata key, if it is one of the identity fields. */
  #fieldAt(start: number, end: number): number[] | undefined {
    switch (end - start - 2) {
      case 3:
        return this.#is(start, end, UID) ? this.#uid : undefined;
      case 4:
        return this.#is(start, end, NAME) ? this.#name : undefined;
      case 9:
        return this.#is(start, end, NAMESPACE) ? this.#ns : undefined;
      case 15:
        return this.#is(start, end, RESOURCE_VERSION) ? this.#rv : undefined;
    }
    return undefined;
  }

  /** Whether the key string `[start, end)` (quotes included) is `key` (plain ASCII). */
  #is(start: number, end: number, key: Uint8Array): boolean {
    if (end - start - 2 !== key.length) return false;
    const b = this.#b;
    for (let k = 0; k < key.length; k++) if (b[start + 1 + k] !== key[k]) return false;
    return true;
  }

  /**
   * The members of the object at `i`: `member(keyStart, keyEnd, valueAt)` returns the index
   * after the value. Returns the index after the object.
   */
  #members(i: number, member: (keyStart: number, keyEnd: number, at: number) => number): number {
    const b = this.#b;
    i = this.#ws(i + 1);
    if (b[i] === CLOSE_BRACE) return i + 1;
    for (;;) {
      if (b[i] !== QUOTE) throw BAILED;
      const keyEnd = this.#string(i);
      const colon = this.#ws(keyEnd);
      if (b[colon] !== COLON) throw BAILED;
      i = this.#ws(member(i, keyEnd, this.#ws(colon + 1)));
      if (b[i] === COMMA) {
        i = this.#ws(i + 1);
        continue;
      }
      if (b[i] === CLOSE_BRACE) return i + 1;
      throw BAILED;
    }
  }

  /** The end of the value at `i` (a string, an object or array, or a scalar). */
  #value(i: number): number {
    const c = this.#b[i];
    if (c === QUOTE) return this.#string(i);
    if (c === OPEN_BRACE || c === OPEN_BRACKET) return this.#composite(i);
    return this.#scalar(i);
  }

  /**
   * The end of the object or array at `i`: brackets matched, strings skipped. The hot loop
   * (about 2.1 ms per 1.6 MB page on Node 24, where parsing the page takes 8): compares
   * inline, strings skipped in place.
   */
  #composite(i: number): number {
    const b = this.#b;
    const n = b.length;
    const stack = this.#stack;
    let depth = 0;
    while (i < n) {
      const c = b[i++]!;
      if (c === QUOTE) {
        for (;;) {
          if (i >= n) throw BAILED; // cut short inside a string
          const d = b[i++];
          if (d === QUOTE) break;
          if (d === BACKSLASH) i++;
        }
        continue;
      }
      if (c === OPEN_BRACE || c === OPEN_BRACKET) {
        if (depth === MAX_DEPTH) throw BAILED;
        stack[depth++] = c + 2; // `{` + 2 is `}`, `[` + 2 is `]`
        continue;
      }
      if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
        if (depth === 0 || stack[--depth] !== c) throw BAILED;
        if (depth === 0) return i;
      }
    }
    throw BAILED; // cut short
  }

  /** The end of the string at `i` (after its closing quote); sets `#escaped`. */
  #string(i: number): number {
    const b = this.#b;
    const n = b.length;
    let escaped = false;
    for (i++; i < n; i++) {
      const c = b[i];
      if (c === QUOTE) {
        this.#escaped = escaped;
        return i + 1;
      }
      if (c === BACKSLASH) {
        escaped = true;
        i++;
      }
    }
    throw BAILED;
  }

  /** The end of the number, `true`, `false` or `null` at `i` (checked when parsed). */
  #scalar(i: number): number {
    const b = this.#b;
    const start = i;
    for (; i < b.length; i++) {
      const c = b[i];
      if (c === COMMA || c === CLOSE_BRACE || c === CLOSE_BRACKET || isSpace(c!)) break;
    }
    if (i === start) throw BAILED;
    return i;
  }

  /** The index of the first non-whitespace byte at or after `i`. */
  #ws(i: number): number {
    const b = this.#b;
    while (i < b.length && isSpace(b[i]!)) i++;
    return i;
  }

  /** A top-level key, decoded (escapes through JSON.parse). */
  #key(start: number, end: number): string {
    const slice = this.#b.subarray(start, end);
    if (this.#escaped) return JSON.parse(this.#decoder.decode(slice)) as string;
    return this.#decoder.decode(slice.subarray(1, slice.length - 1));
  }

  /** The JSON value `[start, end)`, parsed; a syntax error leaves for the plain path. */
  #parse(start: number, end: number): unknown {
    try {
      return JSON.parse(this.#decoder.decode(this.#b.subarray(start, end)));
    } catch {
      throw BAILED;
    }
  }
}

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

const ascii = (s: string): Uint8Array => new TextEncoder().encode(s);
const METADATA = ascii("metadata");
const NAMESPACE = ascii("namespace");
const NAME = ascii("name");
const UID = ascii("uid");
const RESOURCE_VERSION = ascii("resourceVersion");
