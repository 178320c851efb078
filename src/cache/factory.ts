/**
 * SharedInformerFactory: one informer per resource + namespace + selectors, shared by everyone.
 * @module
 */
import type { KubeClient } from "../client/kube_client.ts";
import type { ResourceDescriptor } from "../client/resource.ts";
import type { KubeObject, KubeObjectLike } from "../client/types.ts";
import { informerIdentity } from "./checkpoint.ts";
import type { ConsistencyCheckResult } from "./consistency_check_options.ts";
import { Indexer, type IndexFunc } from "./indexer.ts";
import { type InformerLease, InformerLeases } from "./informer_lease.ts";
import { createInformer, type InformerOptions, type SharedInformer } from "./informer.ts";
import { Lifecycle } from "../util/lifecycle.ts";

export type { InformerLease } from "./informer_lease.ts";

/** Factory-wide defaults; any {@linkcode InformerOptions} field except `resource`. */
export type SharedInformerFactoryOptions = Omit<InformerOptions<KubeObject>, "resource">;

/** Per-informer options of {@linkcode SharedInformerFactory.informerFor}. */
export type InformerForOptions<T extends KubeObjectLike> = Omit<InformerOptions<T>, "resource">;

/** Options that pick the informer (its identity) rather than configure it. */
const IDENTITY = new Set(["resource", "namespace", "labelSelector", "fieldSelector", "indexers"]);

/**
 * Hands out one shared informer per resource + namespace + selectors, so every part of a
 * program that asks for "pods in default" shares one connection and one cache. Informers
 * created after `start()` start at once (until `stop()`).
 *
 * A later `informerFor()` for the same resource + namespace + selectors may bring more
 * `indexers`: they are added to the shared cache (as client-go's `AddIndexers`). Any other
 * option that differs from the first call's (a `transform`, `resyncPeriodMs`, `pageSize`,
 * `onError`, ...; compared by identity) cannot be honoured by a shared informer and throws a
 * `TypeError` naming it: pass it to the first call, or use another factory.
 *
 * @example
 * ```ts
 * import { SharedInformerFactory } from "@kinformer/kinformer";
 * import { KubeClient, configmaps, pods } from "@kinformer/kinformer/client";
 * import { SimulatedCluster } from "@kinformer/kinformer/testing";
 * import assert from "node:assert/strict";
 * const cluster = new SimulatedCluster();
 * const factory = new SharedInformerFactory(new KubeClient({ server: "http://sim", fetch: cluster.fetch }), { namespace: "default" });
 * const podInformer = factory.informerFor(pods);
 * assert.equal(factory.informerFor(pods), podInformer); // one shared informer per resource
 * factory.informerFor(configmaps);
 * factory.start();
 * await factory.waitForSync();
 * await factory.stop();
 * cluster.close();
 * ```
 */
export class SharedInformerFactory implements AsyncDisposable {
  #client: KubeClient;
  #defaults: SharedInformerFactoryOptions;
  #informers = new Map<string, SharedInformer<KubeObject>>();
  /** Index functions of each informer, by name (the first call's and those added later). */
  #indexers = new Map<string, Map<string, unknown>>();
  #signal: AbortSignal | undefined;
  /** Runs once: informers asked for after `stop()` are not started, nor is the factory. */
  readonly #life = new Lifecycle("informer factory", { restartable: false });
  /** Who holds each informer: leases (released) and `informerFor()` callers (never). */
  #leases = new InformerLeases();

  /** Creates a factory; `defaults` apply to every informer (namespace, resync, transform, ...). */
  constructor(client: KubeClient, defaults: SharedInformerFactoryOptions = {}) {
    this.#client = client;
    this.#defaults = defaults;
  }

  /**
   * The informer for `resource` with these options (created on first request). Its object type
   * is the descriptor's (see `ResourceDescriptor`).
   */
  informerFor<T extends KubeObjectLike = KubeObject>(
    resource: ResourceDescriptor<T>,
    options: InformerForOptions<T> = {},
  ): SharedInformer<T> {
    const { key, informer } = this.#shared(resource, options);
    this.#leases.pin(key);
    return informer;
  }

  /**
   * The shared informer for `resource` with these options, as {@linkcode informerFor} gives
   * it, with a lease on it: reference-counted, so when the last lease is released (and no
   * `informerFor()` caller holds the informer, as those cannot release it) the informer stops,
   * its cache is emptied and the factory forgets it; a later call creates a new one. A lease
   * is released once, by `release()` or `await using`.
   *
   * @example
   * ```ts
   * import { SharedInformerFactory } from "@kinformer/kinformer";
   * import { KubeClient, pods } from "@kinformer/kinformer/client";
   * import { SimulatedCluster } from "@kinformer/kinformer/testing";
   * import assert from "node:assert/strict";
   * const cluster = new SimulatedCluster();
   * const factory = new SharedInformerFactory(new KubeClient({ server: "http://sim", fetch: cluster.fetch }));
   * factory.start();
   * const first = factory.acquire(pods);
   * const second = factory.acquire(pods);
   * assert.equal(first.informer, second.informer); // shared
   * await first.release();
   * assert.equal(factory.informers.length, 1); // still used by the second
   * await second.release(); // the last user: stopped and forgotten
   * assert.equal(factory.informers.length, 0);
   * await factory.stop();
   * cluster.close();
   * ```
   */
  acquire<T extends KubeObjectLike = KubeObject>(
    resource: ResourceDescriptor<T>,
    options: InformerForOptions<T> = {},
  ): InformerLease<T> {
    const { key, informer } = this.#shared(resource, options);
    return this.#leases.lease(key, informer, () => this.#forget(key));
  }

  /** Stops and forgets the informer under `key` (its last lease was released). */
  async #forget(key: string): Promise<void> {
    const informer = this.#informers.get(key);
    this.#informers.delete(key);
    this.#indexers.delete(key);
    await informer?.stop();
    if (informer?.store instanceof Indexer) {
      for (const k of informer.store.listKeys()) informer.store.delete(k);
    }
  }

  #shared<T extends KubeObjectLike>(
    resource: ResourceDescriptor<T>,
    options: InformerForOptions<T>,
  ): { key: string; informer: SharedInformer<T> } {
    // Factory-wide defaults apply to every object type (their transform sees any object).
    const defaults = this.#defaults as Omit<InformerOptions<T>, "resource">;
    const merged: InformerOptions<T> = { ...defaults, ...options, resource };
    if (!resource.namespaced) delete merged.namespace;
    const key = informerIdentity(merged);
    let informer = this.#informers.get(key) as SharedInformer<T> | undefined;
    if (informer === undefined) {
      informer = createInformer<T>(this.#client, merged);
      this.#informers.set(key, informer as unknown as SharedInformer<KubeObject>);
      this.#indexers.set(key, new Map(Object.entries(merged.indexers ?? {})));
      if (this.#life.active) void informer.start({ signal: this.#signal });
      return { key, informer };
    }
    const first = informer.options as Record<string, unknown>;
    const asked = merged as unknown as Record<string, unknown>;
    const differing = [...new Set([...Object.keys(first), ...Object.keys(asked)])].filter((name) =>
      !IDENTITY.has(name) && !Object.is(first[name], asked[name])
    );
    if (differing.length > 0) {
      throw new TypeError(
        `informerFor(${key}): ${differing.join(", ")} ${
          differing.length === 1 ? "differs" : "differ"
        } from what the shared informer was created with; it cannot honour both (pass ` +
          `${differing.length === 1 ? "it" : "them"} to the first informerFor() call, or use ` +
          `another factory)`,
      );
    }
    const known = this.#indexers.get(key)!;
    const added: Record<string, IndexFunc<T>> = {};
    for (const [name, fn] of Object.entries(merged.indexers ?? {})) {
      const had = known.get(name);
      if (had === undefined) added[name] = fn;
      else if (had !== fn) {
        throw new TypeError(
          `informerFor(${key}): indexers.${name} is already defined with another function`,
        );
      }
    }
    if (Object.keys(added).length > 0) {
      informer.store.addIndexers(added);
      for (const [name, fn] of Object.entries(added)) known.set(name, fn);
    }
    return { key, informer };
  }

  /** Every informer created so far. */
  get informers(): SharedInformer<KubeObject>[] {
    return [...this.#informers.values()];
  }

  /**
   * Starts every informer, and those created later. Resolves once every informer created so
   * far has synced (or stopped); never rejects, so an un-awaited `start()` is safe. A second
   * call while running returns at once. Aborting `signal` stops them all (the same as
   * {@linkcode SharedInformerFactory.stop}). A factory runs once: `start()` after `stop()`
   * throws a {@linkcode LifecycleError} at once.
   *
   * @example
   * ```ts
   * import { SharedInformerFactory } from "@kinformer/kinformer";
   * import { configmaps, KubeClient, pods } from "@kinformer/kinformer/client";
   * import { SimulatedCluster } from "@kinformer/kinformer/testing";
   * import assert from "node:assert/strict";
   * const cluster = new SimulatedCluster();
   * cluster.create(pods, { metadata: { namespace: "default", name: "web-1" } });
   * const factory = new SharedInformerFactory(new KubeClient({ server: "http://sim", fetch: cluster.fetch }));
   * const podInformer = factory.informerFor(pods);
   * factory.informerFor(configmaps);
   * await factory.start(); // every cache is synced here
   * assert.equal(podInformer.store.size, 1);
   * await factory.stop();
   * assert.throws(() => factory.start(), /was stopped and runs once/);
   * cluster.close();
   * ```
   */
  start(options: { signal?: AbortSignal | undefined } = {}): Promise<void> {
    // Not async: a start after stop() throws at once rather than rejecting unobserved.
    if (!this.#life.start()) return Promise.resolve();
    this.#signal = options.signal;
    const started = [...this.#informers.values()].map((i) => i.start({ signal: this.#signal }));
    this.#life.started();
    return Promise.all(started).then(() => undefined);
  }

  /**
   * Resolves when every informer created so far has synced. When `signal` aborts, rejects with
   * the first informer's explanation (`pods informer not synced after 30 s: last error ...`).
   */
  async waitForSync(options: { signal?: AbortSignal | undefined } = {}): Promise<void> {
    await Promise.all([...this.#informers.values()].map((i) => i.waitForSync(options)));
  }

  /**
   * Checks every informer's cache against the server now, each as
   * {@linkcode SharedInformer.verify} does (within its own request budget); resolves with each
   * informer's report. A factory-wide `consistencyCheck` default turns on periodic checks for
   * all of them.
   */
  async verify(
    options: { signal?: AbortSignal | undefined } = {},
  ): Promise<Map<SharedInformer<KubeObject>, ConsistencyCheckResult>> {
    const informers = this.informers;
    const results = await Promise.all(informers.map((i) => i.verify(options)));
    return new Map(informers.map((informer, i) => [informer, results[i]!]));
  }

  /**
   * Stops every informer; idempotent. Resolves once each has released its timers and
   * connections. A stopped factory stays stopped: informers it hands out afterwards are not
   * started (as client-go's factory after `Shutdown`), and `start()` throws.
   */
  async stop(): Promise<void> {
    this.#life.stop();
    await Promise.all([...this.#informers.values()].map((i) => i.stop()));
    this.#life.stopped();
  }

  /** Same as {@linkcode SharedInformerFactory.stop}, for `await using`. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.stop();
  }
}
