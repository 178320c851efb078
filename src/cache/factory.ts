/**
 * SharedInformerFactory: one informer per resource + namespace + selectors, shared by everyone.
 * @module
 */
import type { KubeClient } from "../client/kube_client.ts";
import { type ResourceDescriptor, resourceKey } from "../client/resource.ts";
import type { KubeObject } from "../client/types.ts";
import { createInformer, type InformerOptions, type SharedInformer } from "./informer.ts";

/** Factory-wide defaults; any {@linkcode InformerOptions} field except `resource`. */
export type SharedInformerFactoryOptions = Omit<InformerOptions<KubeObject>, "resource">;

/** Per-informer options of {@linkcode SharedInformerFactory.informerFor}. */
export type InformerForOptions<T extends KubeObject> = Omit<InformerOptions<T>, "resource">;

/**
 * Hands out one shared informer per resource + namespace + selectors, so every part of a
 * program that asks for "pods in default" shares one connection and one cache. Informers
 * created after `start()` start at once.
 *
 * @example
 * ```ts
 * import { SharedInformerFactory } from "@kinformer/kinformer";
 * import { KubeClient, configmaps, pods } from "@kinformer/kinformer/client";
 * import { SimulatedCluster } from "@kinformer/kinformer/testing";
 * const cluster = new SimulatedCluster();
 * const factory = new SharedInformerFactory(new KubeClient({ server: "http://sim", fetch: cluster.fetch }), { namespace: "default" });
 * const podInformer = factory.informerFor(pods);
 * console.log(podInformer === factory.informerFor(pods)); // true
 * factory.informerFor(configmaps);
 * factory.start();
 * await factory.waitForCacheSync();
 * await factory.shutdown();
 * cluster.close();
 * ```
 */
export class SharedInformerFactory implements AsyncDisposable {
  #client: KubeClient;
  #defaults: SharedInformerFactoryOptions;
  #informers = new Map<string, SharedInformer<KubeObject>>();
  #signal: AbortSignal | undefined;
  #started = false;

  /** Creates a factory; `defaults` apply to every informer (namespace, resync, transform, ...). */
  constructor(client: KubeClient, defaults: SharedInformerFactoryOptions = {}) {
    this.#client = client;
    this.#defaults = defaults;
  }

  /** The informer for `resource` with these options (created on first request). */
  informerFor<T extends KubeObject = KubeObject>(
    resource: ResourceDescriptor,
    options: InformerForOptions<T> = {},
  ): SharedInformer<T> {
    const merged = { ...this.#defaults, ...options, resource } as InformerOptions<T>;
    if (!resource.namespaced) delete merged.namespace;
    const key = [
      resourceKey(resource),
      merged.namespace ?? "",
      merged.labelSelector ?? "",
      merged.fieldSelector ?? "",
    ].join("|");
    let informer = this.#informers.get(key) as SharedInformer<T> | undefined;
    if (informer === undefined) {
      informer = createInformer<T>(this.#client, merged);
      this.#informers.set(key, informer as unknown as SharedInformer<KubeObject>);
      if (this.#started) informer.start(this.#signal);
    }
    return informer;
  }

  /** Every informer created so far. */
  get informers(): SharedInformer<KubeObject>[] {
    return [...this.#informers.values()];
  }

  /** Starts every informer (and those created later). Aborting `signal` stops them. */
  start(signal?: AbortSignal): void {
    this.#started = true;
    this.#signal = signal;
    for (const informer of this.#informers.values()) informer.start(signal);
  }

  /** Resolves when every informer created so far has synced. */
  async waitForCacheSync(options: { signal?: AbortSignal | undefined } = {}): Promise<void> {
    await Promise.all([...this.#informers.values()].map((i) => i.waitForSync(options)));
  }

  /** Stops every informer. */
  async shutdown(): Promise<void> {
    await Promise.all([...this.#informers.values()].map((i) => i.stop()));
  }

  /** Same as {@linkcode SharedInformerFactory.shutdown}. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.shutdown();
  }
}
