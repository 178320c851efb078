/**
 * Listers: selector-aware, namespace-scoped reads of an informer's cache.
 * @module
 */
import type { KubeObject, KubeObjectLike } from "../client/types.ts";
import { LabelSelector, parseLabelSelector } from "../client/label_selector.ts";
import { NAMESPACE_INDEX, type Store } from "./indexer.ts";
import { describeValue } from "../util/values.ts";

/** Options of {@linkcode Lister.list}. */
export interface ListerListOptions {
  /** A label selector string (`app=web,tier in (a,b)`) or a parsed one. @default everything */
  labelSelector?: string | LabelSelector | undefined;
}

function toSelector(s: string | LabelSelector | undefined): LabelSelector | undefined {
  if (s === undefined || s === "") return undefined;
  if (typeof s === "string") return parseLabelSelector(s);
  if (s instanceof LabelSelector) return s;
  throw new TypeError(
    `labelSelector must be a string or a LabelSelector, got ${describeValue(s)}`,
  );
}

/** The objects of `items` matching `options.labelSelector` (all without one). Internal. */
export function filter<T extends KubeObjectLike>(items: T[], options: ListerListOptions): T[] {
  const selector = toSelector(options.labelSelector);
  if (selector === undefined || selector.isEverything()) return items;
  return items.filter((o) => selector.matches(o.metadata?.labels));
}

/**
 * Reads objects of one namespace; from {@linkcode Lister.namespace}. The namespace `""` holds
 * the cluster-scoped objects. Throws `SelectorParseError` for a bad selector string.
 *
 * @example
 * ```ts
 * import { Indexer, Lister } from "@kinformer/kinformer/cache";
 * import assert from "node:assert/strict";
 * const cache = new Indexer();
 * cache.set({ metadata: { namespace: "default", name: "web-1", labels: { app: "web" } } });
 * const lister = new Lister(cache);
 * const web = lister.namespace("default").list({ labelSelector: "app=web" });
 * assert.equal(web.length, 1);
 * assert.equal(lister.namespace("default").get("web-1")?.metadata.name, "web-1");
 * assert.equal(lister.namespace("other").get("web-1"), undefined);
 * ```
 */
export class NamespaceLister<T extends KubeObjectLike = KubeObject> {
  #store: Store<T>;
  #namespace: string;

  /** Use {@linkcode Lister.namespace}. */
  constructor(store: Store<T>, namespace: string) {
    this.#store = store;
    this.#namespace = namespace;
  }

  /** The object named `name` in this namespace (for `""`: the cluster-scoped object `name`). */
  get(name: string): T | undefined {
    return this.#store.get(this.#namespace === "" ? name : `${this.#namespace}/${name}`);
  }

  /** Objects in this namespace matching the selector (uses the namespace index). */
  list(options: ListerListOptions = {}): T[] {
    return filter(this.#store.byIndex(NAMESPACE_INDEX, this.#namespace), options);
  }
}

/**
 * Selector-aware reads of a cache. Throws `SelectorParseError` for a bad selector string.
 *
 * @example
 * ```ts
 * import { createInformer } from "@kinformer/kinformer";
 * import { KubeClient, pods } from "@kinformer/kinformer/client";
 * import { SimulatedCluster } from "@kinformer/kinformer/testing";
 * import assert from "node:assert/strict";
 * const cluster = new SimulatedCluster();
 * cluster.create(pods, { metadata: { namespace: "default", name: "web-1", labels: { app: "web" } } });
 * const informer = createInformer(new KubeClient({ server: "http://sim", fetch: cluster.fetch }), { resource: pods });
 * informer.start();
 * await informer.waitForSync();
 * assert.equal(informer.lister.list({ labelSelector: "app in (web,api)" }).length, 1);
 * await informer.stop();
 * cluster.close();
 * ```
 */
export class Lister<T extends KubeObjectLike = KubeObject> {
  #store: Store<T>;

  /** Wraps a store. */
  constructor(store: Store<T>) {
    this.#store = store;
  }

  /** The object under `key` (`namespace/name` or `name`). */
  get(key: string): T | undefined {
    return this.#store.get(key);
  }

  /** Every object matching the selector. */
  list(options: ListerListOptions = {}): T[] {
    return filter(this.#store.list(), options);
  }

  /** Reads scoped to one namespace (`""`: cluster-scoped objects). */
  namespace(namespace: string): NamespaceLister<T> {
    return new NamespaceLister(this.#store, namespace);
  }
}
