/**
 * The informer's local cache: objects by key, plus secondary indexes.
 * @module
 */
import type { KubeObject, KubeObjectLike } from "../client/types.ts";
import { objectKey } from "./object_key.ts";
import { describeValue } from "../util/values.ts";
import type { ObjectCodec } from "./compact_store.ts";

/** Maps an object to the index values it is filed under (e.g. its namespace). */
export type IndexFunc<T> = (object: T) => readonly string[];

/** Named index functions. */
export type Indexers<T> = Record<string, IndexFunc<T>>;

/**
 * Name of the built-in index by `metadata.namespace` (`""` for cluster-scoped objects).
 *
 * @example
 * ```ts
 * import { Indexer, NAMESPACE_INDEX } from "@kinformer/kinformer/cache";
 * import assert from "node:assert/strict";
 * const cache = new Indexer();
 * cache.set({ metadata: { namespace: "shop", name: "cart" } });
 * assert.deepEqual(cache.indexKeys(NAMESPACE_INDEX, "shop"), ["shop/cart"]);
 * ```
 */
export const NAMESPACE_INDEX = "namespace";

/**
 * Read-only view of an informer's cache. Objects handed out are shared with the cache and with
 * every other consumer: treat them as read-only (copy with `structuredClone` before changing).
 *
 * @example
 * ```ts
 * import { createInformer } from "@kinformer/kinformer";
 * import { pods } from "@kinformer/kinformer/client";
 * import { SimulatedCluster } from "@kinformer/kinformer/testing";
 * import { KubeClient } from "@kinformer/kinformer/client";
 * import assert from "node:assert/strict";
 * const cluster = new SimulatedCluster();
 * cluster.create(pods, { metadata: { namespace: "default", name: "web-1" } });
 * const informer = createInformer(new KubeClient({ server: "http://sim", fetch: cluster.fetch }), { resource: pods });
 * informer.start();
 * await informer.waitForSync();
 * assert.equal(informer.store.get("default/web-1")?.metadata.name, "web-1");
 * assert.equal(informer.store.byIndex("namespace", "default").length, 1);
 * await informer.stop();
 * cluster.close();
 * ```
 */
export interface Store<T extends KubeObjectLike = KubeObject> {
  /** Number of objects. */
  readonly size: number;
  /** The object under `key` (`namespace/name` or `name`). */
  get(key: string): T | undefined;
  /** Whether `key` is cached. */
  has(key: string): boolean;
  /** Every object (a new array; the objects are shared). */
  list(): T[];
  /** Every key. */
  listKeys(): string[];
  /** Objects whose index `indexName` contains `value`. Throws RangeError for an unknown index. */
  byIndex(indexName: string, value: string): T[];
  /** Keys whose index `indexName` contains `value`. */
  indexKeys(indexName: string, value: string): string[];
  /** Every value the index `indexName` currently holds. */
  listIndexFuncValues(indexName: string): string[];
  /** Adds index functions at any time; existing objects are indexed at once. */
  addIndexers(indexers: Indexers<T>): void;
}

/**
 * The cache: a `Map` of objects plus, per index, a `Map<value, Set<key>>` and the values each
 * key is filed under. Index values are remembered rather than recomputed from the old object,
 * so an old object changed in place (which it should not be) cannot leave stale index entries.
 * Index functions must return an array of strings; one that throws or returns anything else
 * leaves the cache unchanged. The informer owns the only writer; users see it through
 * {@linkcode Store}.
 *
 * @example
 * ```ts
 * import { Indexer } from "@kinformer/kinformer/cache";
 * import assert from "node:assert/strict";
 * const cache = new Indexer({ byApp: (o) => o.metadata.labels?.app ? [o.metadata.labels.app] : [] });
 * cache.set({ metadata: { namespace: "default", name: "web-1", labels: { app: "web" } } });
 * assert.deepEqual(cache.indexKeys("byApp", "web"), ["default/web-1"]);
 * assert.deepEqual(cache.listIndexFuncValues("namespace"), ["default"]);
 * ```
 */
export class Indexer<T extends KubeObjectLike = KubeObject> implements Store<T> {
  /** Objects by key, as they are, or in the codec's form. */
  #items = new Map<string, unknown>();
  #indexes = new Map<string, Index<T>>();
  /** The same indexes in an array: writes walk it by position (no iterator per write). */
  #indexList: Index<T>[] = [];
  readonly #codec: ObjectCodec<T> | undefined;

  /**
   * Creates an empty cache with the built-in namespace index plus `indexers`. Throws a
   * `RangeError` if `indexers` names the built-in `"namespace"` index. With `options.codec`
   * (a `CompactCodec`), objects are held encoded and decoded on read; index values
   * are computed from the object at insert, so queries behave the same.
   */
  constructor(indexers: Indexers<T> = {}, options: IndexerOptions<T> = {}) {
    this.#codec = options.codec;
    this.addIndexers({ [NAMESPACE_INDEX]: (o: T) => [o.metadata?.namespace ?? ""] });
    this.addIndexers(indexers);
  }

  get size(): number {
    return this.#items.size;
  }

  get(key: string): T | undefined {
    const stored = this.#items.get(key);
    return stored === undefined ? undefined : this.#decode(stored, key);
  }

  has(key: string): boolean {
    return this.#items.has(key);
  }

  list(): T[] {
    const out: T[] = [];
    for (const [key, stored] of this.#items) out.push(this.#decode(stored, key));
    return out;
  }

  listKeys(): string[] {
    return [...this.#items.keys()];
  }

  /** Iterates entries without copying (internal). */
  entries(): IterableIterator<[string, T]> {
    if (this.#codec === undefined) return this.#items.entries() as IterableIterator<[string, T]>;
    return this.#decoded();
  }

  /** Iterates objects without copying (internal; do not change the cache while iterating). */
  values(): IterableIterator<T> {
    if (this.#codec === undefined) return this.#items.values() as IterableIterator<T>;
    return (function* (entries: IterableIterator<[string, T]>) {
      for (const [, object] of entries) yield object;
    })(this.#decoded());
  }

  *#decoded(): IterableIterator<[string, T]> {
    for (const [key, stored] of this.#items) yield [key, this.#decode(stored, key)];
  }

  /** Estimated heap bytes of the held forms, when a codec holds them; else undefined. */
  estimatedBytes(): number | undefined {
    return this.#codec?.bytes();
  }

  byIndex(indexName: string, value: string): T[] {
    const out: T[] = [];
    for (const key of this.#index(indexName).byValue.get(value) ?? []) {
      const o = this.get(key);
      if (o !== undefined) out.push(o);
    }
    return out;
  }

  indexKeys(indexName: string, value: string): string[] {
    return [...(this.#index(indexName).byValue.get(value) ?? [])];
  }

  listIndexFuncValues(indexName: string): string[] {
    return [...this.#index(indexName).byValue.keys()];
  }

  /**
   * Adds index functions; existing objects are indexed at once. All or nothing: a non-function,
   * a name already in use (`RangeError`) or an index function failing on an existing object
   * adds none of `indexers`.
   */
  addIndexers(indexers: Indexers<T>): void {
    const entries = Object.entries(indexers);
    for (const [name, fn] of entries) {
      if (typeof fn !== "function") {
        throw new TypeError(`indexers.${name} must be a function, got ${typeof fn}`);
      }
      if (this.#indexes.has(name)) throw new RangeError(`index "${name}" already exists`);
    }
    const built: [string, Index<T>][] = [];
    for (const [name, fn] of entries) {
      const index: Index<T> = { name, fn, byValue: new Map(), byKey: new Map() };
      for (const [key, obj] of this.entries()) {
        const values = indexValues(name, fn, obj);
        index.byKey.set(key, values);
        addToIndex(index.byValue, values, key);
      }
      built.push([name, index]);
    }
    for (const [name, index] of built) {
      this.#indexes.set(name, index);
      this.#indexList.push(index);
    }
  }

  /**
   * Inserts or replaces the object under its key; returns the previous one. If an index
   * function throws, the cache is left unchanged and the error propagates.
   */
  set(object: T, key: string = objectKey(object)): T | undefined {
    // Compute every index value first, so a throwing index function changes nothing. Walked
    // by position, the values of the first index in a local (most caches have only the
    // namespace index): the entry arrays, iterators and value arrays this once allocated per
    // write were about 15 MB of garbage at the end of a 50k-pod sync, when the heap peaks.
    const indexes = this.#indexList;
    const first = indexValues(indexes[0]!.name, indexes[0]!.fn, object);
    let more: (readonly string[])[] | undefined;
    for (let i = 1; i < indexes.length; i++) {
      (more ??= []).push(indexValues(indexes[i]!.name, indexes[i]!.fn, object));
    }
    const oldStored = this.#items.get(key);
    const old = oldStored === undefined ? undefined : this.#decode(oldStored, key);
    if (this.#codec === undefined) this.#items.set(key, object);
    else {
      if (oldStored !== undefined) this.#codec.forget(key, oldStored);
      this.#items.set(key, this.#codec.encode(object, key));
    }
    for (let i = 0; i < indexes.length; i++) {
      const index = indexes[i]!;
      const newValues = i === 0 ? first : more![i - 1]!;
      const oldValues = index.byKey.get(key);
      // Unchanged values (the common update) keep their entry: no Map write, and the cache
      // keeps the arrays it holds instead of trading them for equal new ones per event.
      if (oldValues !== undefined && sameValues(oldValues, newValues)) continue;
      index.byKey.set(key, newValues);
      if (oldValues !== undefined) removeFromIndex(index.byValue, oldValues, key);
      addToIndex(index.byValue, newValues, key);
    }
    return old;
  }

  /** Removes the object under `key`; returns it. */
  delete(key: string): T | undefined {
    const stored = this.#items.get(key);
    if (stored === undefined) return undefined;
    const old = this.#decode(stored, key);
    this.#items.delete(key);
    this.#codec?.forget(key, stored);
    for (const index of this.#indexList) {
      const values = index.byKey.get(key);
      if (values === undefined) continue;
      index.byKey.delete(key);
      removeFromIndex(index.byValue, values, key);
    }
    return old;
  }

  #decode(stored: unknown, key: string): T {
    return this.#codec === undefined ? stored as T : this.#codec.decode(stored, key);
  }

  #index(name: string): Index<T> {
    const index = this.#indexes.get(name);
    if (index === undefined) {
      throw new RangeError(
        `unknown index "${name}"; known: ${[...this.#indexes.keys()].join(", ")}`,
      );
    }
    return index;
  }
}

/** Options of {@linkcode Indexer}. */
export interface IndexerOptions<T> {
  /**
   * How objects are held (e.g. a `CompactCodec`: as JSON text, decoded on read).
   * @default undefined (as they are)
   */
  codec?: ObjectCodec<T> | undefined;
}

/** One index: its function, keys by value, and the values each key is filed under. */
interface Index<T> {
  name: string;
  fn: IndexFunc<T>;
  byValue: Map<string, Set<string>>;
  byKey: Map<string, readonly string[]>;
}

/** Runs an index function and checks that it returned an array of strings. */
function indexValues<T>(name: string, fn: IndexFunc<T>, object: T): readonly string[] {
  const values: unknown = fn(object);
  if (!Array.isArray(values) || !allStrings(values)) {
    const got = Array.isArray(values)
      ? `an array holding ${describeValue(values.find((v) => typeof v !== "string"))}`
      : describeValue(values);
    throw new TypeError(`index function "${name}" must return an array of strings, got ${got}`);
  }
  return values as string[];
}

function allStrings(values: unknown[]): boolean {
  for (let i = 0; i < values.length; i++) if (typeof values[i] !== "string") return false;
  return true;
}

function addToIndex(index: Map<string, Set<string>>, values: readonly string[], key: string): void {
  for (const v of values) {
    let set = index.get(v);
    if (set === undefined) index.set(v, set = new Set());
    set.add(key);
  }
}

function removeFromIndex(
  index: Map<string, Set<string>>,
  values: readonly string[],
  key: string,
): void {
  for (const v of values) {
    const set = index.get(v);
    if (set === undefined) continue;
    set.delete(key);
    if (set.size === 0) index.delete(v);
  }
}

function sameValues(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
