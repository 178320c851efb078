/**
 * Reference counts of a factory's informers: who holds each one, and when the last holder lets
 * go. Used by `SharedInformerFactory.acquire`.
 * @module
 */
import type { KubeObject, KubeObjectLike } from "../client/types.ts";
import type { SharedInformer } from "./informer.ts";

/**
 * One holder's claim on a shared informer (from `SharedInformerFactory.acquire`). Release it
 * when done: the informer stops once every lease on it is released.
 *
 * @example
 * ```ts
 * import { SharedInformerFactory } from "@kinformer/kinformer";
 * import { KubeClient, configmaps } from "@kinformer/kinformer/client";
 * import { SimulatedCluster } from "@kinformer/kinformer/testing";
 * const cluster = new SimulatedCluster();
 * const factory = new SharedInformerFactory(new KubeClient({ server: "http://sim", fetch: cluster.fetch }));
 * factory.start();
 * {
 *   await using lease = factory.acquire(configmaps);
 *   await lease.informer.waitForSync();
 * } // released here: the informer stopped
 * await factory.stop();
 * cluster.close();
 * ```
 */
export interface InformerLease<T extends KubeObjectLike = KubeObject> extends AsyncDisposable {
  /** The shared informer. */
  readonly informer: SharedInformer<T>;
  /**
   * Gives the claim back (once; later calls do nothing). Resolves when done: after the informer
   * stopped, when this was its last holder.
   */
  release(): Promise<void>;
}

/** Holders per informer key: a count of leases, and whether `informerFor()` pinned it. */
export class InformerLeases {
  readonly #counts = new Map<string, number>();
  readonly #pinned = new Set<string>();

  /** An `informerFor()` caller holds `key` for good. */
  pin(key: string): void {
    this.#pinned.add(key);
  }

  /** A new lease on `key`; `forget` runs when its release leaves `key` with no holder. */
  lease<T extends KubeObjectLike>(
    key: string,
    informer: SharedInformer<T>,
    forget: () => Promise<void>,
  ): InformerLease<T> {
    this.#counts.set(key, (this.#counts.get(key) ?? 0) + 1);
    let released: Promise<void> | undefined;
    const release = (): Promise<void> => {
      released ??= this.#release(key, forget);
      return released;
    };
    return { informer, release, [Symbol.asyncDispose]: release };
  }

  async #release(key: string, forget: () => Promise<void>): Promise<void> {
    const left = (this.#counts.get(key) ?? 1) - 1;
    if (left > 0) {
      this.#counts.set(key, left);
      return;
    }
    this.#counts.delete(key);
    if (!this.#pinned.has(key)) await forget();
  }
}
