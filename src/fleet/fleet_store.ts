/**
 * The merged, read-only view over the caches of every cluster of a fleet.
 * @module
 */
import type { KubeObject, KubeObjectLike } from "../client/types.ts";
import { Indexer, type Indexers, NAMESPACE_INDEX, type Store } from "../cache/indexer.ts";
import { joinFleetKey } from "./cluster_key.ts";

/**
 * Index of the merged view by cluster: `byIndex(CLUSTER_INDEX, "eu-1")`.
 *
 * @example
 * ```ts
 * import { CLUSTER_INDEX, FleetStore } from "@kinformer/kinformer/fleet";
 * import assert from "node:assert/strict";
 * const store = new FleetStore({});
 * store.open("eu-1").set({ metadata: { namespace: "web", name: "api" } });
 * assert.deepEqual(store.indexKeys(CLUSTER_INDEX, "eu-1"), ["eu-1|web/api"]);
 * ```
 */
export const CLUSTER_INDEX = "cluster";
/**
 * Index of the merged view by cluster and namespace, the value written `cluster|namespace`:
 * `byIndex(CLUSTER_NAMESPACE_INDEX, "eu-1|web")`.
 *
 * @example
 * ```ts
 * import { CLUSTER_NAMESPACE_INDEX, FleetStore } from "@kinformer/kinformer/fleet";
 * import assert from "node:assert/strict";
 * const store = new FleetStore({});
 * store.open("eu-1").set({ metadata: { namespace: "web", name: "api" } });
 * store.open("us-1").set({ metadata: { namespace: "web", name: "api" } });
 * assert.deepEqual(store.indexKeys(CLUSTER_NAMESPACE_INDEX, "us-1|web"), ["us-1|web/api"]);
 * ```
 */
export const CLUSTER_NAMESPACE_INDEX = "cluster-namespace";

/** One cluster's part of the view. Internal. */
interface Part<T extends KubeObjectLike> {
  indexer: Indexer<T>;
  hidden: boolean;
}

/**
 * A {@linkcode Store} over every cluster: keys are fleet keys (`cluster|namespace/name`), the
 * `namespace` index and user indexes span the clusters, and two more indexes are built in:
 * {@linkcode CLUSTER_INDEX} and {@linkcode CLUSTER_NAMESPACE_INDEX}. Each cluster keeps its own
 * indexer (so disengaging one frees its part in one step); indexes added with `addIndexers`
 * apply to every current and future cluster. A cluster hidden by the unreachable policy is
 * left out of every read.
 *
 * @example
 * ```ts
 * import { CLUSTER_INDEX, Fleet } from "@kinformer/kinformer/fleet";
 * import { KubeClient, pods } from "@kinformer/kinformer/client";
 * import { SimulatedCluster } from "@kinformer/kinformer/testing";
 * import assert from "node:assert/strict";
 * const a = new SimulatedCluster({ autoCreateNamespaces: true });
 * a.create(pods, { metadata: { namespace: "web", name: "api", labels: { app: "api" } } });
 * await using fleet = new Fleet({ resource: pods, indexers: { app: (p) => [p.metadata.labels?.["app"] ?? ""] } });
 * fleet.engage("a", new KubeClient({ server: "http://a", fetch: a.fetch }));
 * await fleet.waitForSync();
 * assert.deepEqual(fleet.store.listKeys(), ["a|web/api"]);
 * assert.equal(fleet.store.byIndex(CLUSTER_INDEX, "a").length, 1);
 * assert.equal(fleet.store.byIndex("app", "api").length, 1);
 * a.close();
 * ```
 */
export class FleetStore<T extends KubeObjectLike = KubeObject> implements Store<T> {
  #parts = new Map<string, Part<T>>();
  #indexers: Indexers<T> = {};

  /** Use `Fleet.store`. */
  constructor(indexers: Indexers<T> = {}) {
    this.addIndexers(indexers);
  }

  /** Objects in view. */
  get size(): number {
    let n = 0;
    for (const part of this.#visible()) n += part.indexer.size;
    return n;
  }

  /** The object under a fleet key (`cluster|namespace/name`). */
  get(key: string): T | undefined {
    const bar = key.indexOf("|");
    if (bar < 0) return undefined;
    const part = this.#parts.get(key.slice(0, bar));
    return part === undefined || part.hidden ? undefined : part.indexer.get(key.slice(bar + 1));
  }

  /** Whether a fleet key is in view. */
  has(key: string): boolean {
    return this.get(key) !== undefined;
  }

  /** Every object in view. */
  list(): T[] {
    const out: T[] = [];
    for (const part of this.#visible()) for (const o of part.indexer.values()) out.push(o);
    return out;
  }

  /** Every fleet key in view. */
  listKeys(): string[] {
    const out: string[] = [];
    for (const [cluster, part] of this.#parts) {
      if (part.hidden) continue;
      for (const key of part.indexer.listKeys()) out.push(joinFleetKey(cluster, key));
    }
    return out;
  }

  /** Objects whose index `indexName` has `value` (see the class doc for the built-in ones). */
  byIndex(indexName: string, value: string): T[] {
    const scoped = this.#scoped(indexName, value);
    if (scoped !== undefined) {
      const indexer = scoped.part?.indexer;
      if (indexer === undefined) return [];
      return scoped.index === undefined
        ? indexer.list()
        : indexer.byIndex(scoped.index, scoped.value);
    }
    this.#checkIndex(indexName);
    const out: T[] = [];
    for (const part of this.#visible()) {
      for (const o of part.indexer.byIndex(indexName, value)) out.push(o);
    }
    return out;
  }

  /** Fleet keys whose index `indexName` has `value`. */
  indexKeys(indexName: string, value: string): string[] {
    const scoped = this.#scoped(indexName, value);
    const out: string[] = [];
    if (scoped !== undefined) {
      if (scoped.part === undefined) return out;
      const indexer = scoped.part.indexer;
      const keys = scoped.index === undefined
        ? indexer.listKeys()
        : indexer.indexKeys(scoped.index, scoped.value);
      for (const key of keys) {
        out.push(joinFleetKey(scoped.cluster, key));
      }
      return out;
    }
    this.#checkIndex(indexName);
    for (const [cluster, part] of this.#parts) {
      if (part.hidden) continue;
      for (const key of part.indexer.indexKeys(indexName, value)) {
        out.push(joinFleetKey(cluster, key));
      }
    }
    return out;
  }

  /** The values index `indexName` has over the view. */
  listIndexFuncValues(indexName: string): string[] {
    const values = new Set<string>();
    for (const [cluster, part] of this.#parts) {
      if (part.hidden || part.indexer.size === 0) continue;
      if (indexName === CLUSTER_INDEX) values.add(cluster);
      else if (indexName === CLUSTER_NAMESPACE_INDEX) {
        for (const ns of part.indexer.listIndexFuncValues(NAMESPACE_INDEX)) {
          values.add(`${cluster}|${ns}`);
        }
      } else for (const v of part.indexer.listIndexFuncValues(indexName)) values.add(v);
    }
    if (indexName !== CLUSTER_INDEX && indexName !== CLUSTER_NAMESPACE_INDEX) {
      this.#checkIndex(indexName);
    }
    return [...values];
  }

  /**
   * Adds index functions to every current and future cluster. Throws a `RangeError` for a name
   * taken (the built-in ones included), a `TypeError` for a value that is not a function.
   */
  addIndexers(indexers: Indexers<T>): void {
    for (const name of Object.keys(indexers)) {
      if (name === CLUSTER_INDEX || name === CLUSTER_NAMESPACE_INDEX || name === NAMESPACE_INDEX) {
        throw new RangeError(`index "${name}" is built in`);
      }
    }
    // Each cluster's indexer checks the functions and refuses a taken name before changing.
    new Indexer<T>(indexers);
    for (const name of Object.keys(indexers)) {
      if (Object.hasOwn(this.#indexers, name)) {
        throw new RangeError(`index "${name}" already exists`);
      }
    }
    for (const part of this.#parts.values()) part.indexer.addIndexers(indexers);
    this.#indexers = { ...this.#indexers, ...indexers };
  }

  /** A new, empty part for `cluster` with every index. Internal (the fleet's writer). */
  open(cluster: string): Indexer<T> {
    const indexer = new Indexer<T>(this.#indexers);
    this.#parts.set(cluster, { indexer, hidden: false });
    return indexer;
  }

  /** Drops `cluster`'s part. Internal. */
  close(cluster: string): void {
    this.#parts.delete(cluster);
  }

  /** Hides or shows `cluster`'s part. Internal. */
  setHidden(cluster: string, hidden: boolean): void {
    const part = this.#parts.get(cluster);
    if (part !== undefined) part.hidden = hidden;
  }

  /** `cluster`'s part, hidden or not. Internal. */
  part(cluster: string): Indexer<T> | undefined {
    return this.#parts.get(cluster)?.indexer;
  }

  /** `cluster`'s part if it is in view. Internal. */
  visiblePart(cluster: string): Indexer<T> | undefined {
    const part = this.#parts.get(cluster);
    return part === undefined || part.hidden ? undefined : part.indexer;
  }

  *#visible(): IterableIterator<Part<T>> {
    for (const part of this.#parts.values()) if (!part.hidden) yield part;
  }

  /** The one-cluster lookup behind a built-in index, or `undefined` for another index. */
  #scoped(
    indexName: string,
    value: string,
  ): {
    cluster: string;
    part: Part<T> | undefined;
    /** The cluster's index to read, or `undefined` for all of its objects. */
    index: string | undefined;
    value: string;
  } | undefined {
    if (indexName === CLUSTER_INDEX) {
      const part = this.#parts.get(value);
      return { cluster: value, part: part?.hidden ? undefined : part, index: undefined, value };
    }
    if (indexName !== CLUSTER_NAMESPACE_INDEX) return undefined;
    const bar = value.indexOf("|");
    const cluster = bar < 0 ? value : value.slice(0, bar);
    const part = this.#parts.get(cluster);
    return {
      cluster,
      part: bar < 0 || part?.hidden ? undefined : part,
      index: NAMESPACE_INDEX,
      value: value.slice(bar + 1),
    };
  }

  #checkIndex(name: string): void {
    if (name === NAMESPACE_INDEX || Object.hasOwn(this.#indexers, name)) return;
    throw new RangeError(
      `unknown index "${name}"; known: ${
        [CLUSTER_INDEX, CLUSTER_NAMESPACE_INDEX, NAMESPACE_INDEX, ...Object.keys(this.#indexers)]
          .join(", ")
      }`,
    );
  }
}
