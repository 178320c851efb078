/**
 * The informer's local cache: objects by key, plus secondary indexes.
 * @module
 */
import type { KubeObject } from "../client/types.ts";
import { objectKey } from "./object_key.ts";

/** Maps an object to the index values it is filed under (e.g. its namespace). */
export type IndexFunc<T> = (object: T) => readonly string[];

/** Named index functions. */
export type Indexers<T> = Record<string, IndexFunc<T>>;

/** Name of the built-in index by `metadata.namespace` (`""` for cluster-scoped objects). */
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
 * const cluster = new SimulatedCluster();
 * cluster.create(pods, { metadata: { namespace: "default", name: "web-1" } });
 * const informer = createInformer(new KubeClient({ server: "http://sim", fetch: cluster.fetch }), { resource: pods });
 * informer.start();
 * await informer.waitForSync();
 * console.log(informer.store.get("default/web-1")?.metadata.name, informer.store.byIndex("namespace", "default").length);
 * await informer.stop();
 * cluster.close();
 * ```
 */
export interface Store<T extends KubeObject = KubeObject> {
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
 * A thread-of-control-free indexer: a `Map` of objects plus one `Map<value, Set<key>>` per index.
 * The informer owns the only writer; users see it through {@linkcode Store}.
 */
export class Indexer<T extends KubeObject = KubeObject> implements Store<T> {
  #items = new Map<string, T>();
  #indexers = new Map<string, IndexFunc<T>>();
  #indices = new Map<string, Map<string, Set<string>>>();

  /** Creates an empty cache with the built-in namespace index plus `indexers`. */
  constructor(indexers: Indexers<T> = {}) {
    this.addIndexers({ [NAMESPACE_INDEX]: (o: T) => [o.metadata.namespace ?? ""], ...indexers });
  }

  get size(): number {
    return this.#items.size;
  }

  get(key: string): T | undefined {
    return this.#items.get(key);
  }

  has(key: string): boolean {
    return this.#items.has(key);
  }

  list(): T[] {
    return [...this.#items.values()];
  }

  listKeys(): string[] {
    return [...this.#items.keys()];
  }

  /** Iterates entries without copying (internal). */
  entries(): IterableIterator<[string, T]> {
    return this.#items.entries();
  }

  byIndex(indexName: string, value: string): T[] {
    const out: T[] = [];
    for (const key of this.#index(indexName).get(value) ?? []) {
      const o = this.#items.get(key);
      if (o !== undefined) out.push(o);
    }
    return out;
  }

  indexKeys(indexName: string, value: string): string[] {
    return [...(this.#index(indexName).get(value) ?? [])];
  }

  listIndexFuncValues(indexName: string): string[] {
    return [...this.#index(indexName).keys()];
  }

  addIndexers(indexers: Indexers<T>): void {
    for (const [name, fn] of Object.entries(indexers)) {
      if (typeof fn !== "function") {
        throw new TypeError(`indexers.${name} must be a function, got ${typeof fn}`);
      }
      if (this.#indexers.has(name)) throw new RangeError(`index "${name}" already exists`);
      this.#indexers.set(name, fn);
      const index = new Map<string, Set<string>>();
      this.#indices.set(name, index);
      for (const [key, obj] of this.#items) addToIndex(index, fn(obj), key);
    }
  }

  /** Inserts or replaces the object under its key; returns the previous one. */
  set(object: T, key: string = objectKey(object)): T | undefined {
    const old = this.#items.get(key);
    this.#items.set(key, object);
    for (const [name, fn] of this.#indexers) {
      const index = this.#indices.get(name)!;
      const newValues = fn(object);
      if (old !== undefined) {
        const oldValues = fn(old);
        if (sameValues(oldValues, newValues)) continue;
        removeFromIndex(index, oldValues, key);
      }
      addToIndex(index, newValues, key);
    }
    return old;
  }

  /** Removes the object under `key`; returns it. */
  delete(key: string): T | undefined {
    const old = this.#items.get(key);
    if (old === undefined) return undefined;
    this.#items.delete(key);
    for (const [name, fn] of this.#indexers) removeFromIndex(this.#indices.get(name)!, fn(old), key);
    return old;
  }

  #index(name: string): Map<string, Set<string>> {
    const index = this.#indices.get(name);
    if (index === undefined) {
      throw new RangeError(`unknown index "${name}"; known: ${[...this.#indices.keys()].join(", ")}`);
    }
    return index;
  }
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
