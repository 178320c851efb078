/**
 * A controller over a fleet: work-queue items are fleet keys (they carry the cluster), items of
 * a disengaged cluster are dropped, and each cluster has its own rate limiter.
 * @module
 */
import type { KubeObject, KubeObjectLike } from "../client/types.ts";
import type { ReconcileContext, ReconcileResult } from "../controller/controller_options.ts";
import { defaultControllerRateLimiter, type RateLimiter } from "../queue/rate_limiter.ts";
import { RateLimitingQueue } from "../queue/rate_limiting_queue.ts";
import { type Clock, systemClock } from "../util/clock.ts";
import { callOnError } from "../util/report_error.ts";
import { checkFunction, checkNumber, requireSignal } from "../util/validate.ts";
import { fleetKey, splitFleetKey } from "./cluster_key.ts";
import type { Fleet } from "./fleet.ts";

/** What a fleet controller reconciles: one object of one cluster. */
export interface FleetRequest {
  /** The cluster. */
  cluster: string;
  /** The object's namespace (`""` when cluster-scoped). */
  namespace: string;
  /** The object's name. */
  name: string;
  /** The fleet key, `cluster|namespace/name` (the work queue's item). */
  fleetKey: string;
}

/** Options of {@linkcode runFleetController}. */
export interface FleetControllerOptions<T extends KubeObjectLike = KubeObject> {
  /** The fleet whose events enqueue requests. */
  fleet: Fleet<T>;
  /**
   * Brings one object of one cluster in line. Throwing retries it on its cluster's rate
   * limiter (unless the cluster has been disengaged meanwhile: then it is dropped).
   */
  reconcile: (
    request: FleetRequest,
    ctx: ReconcileContext,
  ) => Promise<ReconcileResult | void> | ReconcileResult | void;
  /** Stops the controller (required). */
  signal: AbortSignal;
  /** Reconciles running at once. @default 1 */
  workers?: number | undefined;
  /**
   * The rate limiter of one cluster's retries, made when the cluster's first item fails and
   * dropped with the cluster, so a cluster failing everything never slows another.
   * @default `defaultControllerRateLimiter(clock)` per cluster
   */
  rateLimiter?: ((cluster: string) => RateLimiter<string>) | undefined;
  /** Time source of the queue and the default limiters. @default systemClock */
  clock?: Clock | undefined;
  /**
   * Called once a cluster has been disengaged: its queued requests are dropped, so state the
   * controller keeps per cluster is cleaned up here. A throwing one goes to `onError`.
   * @default undefined
   */
  onClusterRemoved?: ((cluster: string) => void) | undefined;
  /** Told of each failed reconcile. @default undefined (a `console.error`) */
  onError?: ((error: unknown, context: { cluster: string; fleetKey: string }) => void) | undefined;
}

/** A rate limiter per cluster, by the cluster of each fleet key. Internal. */
class PerClusterRateLimiter implements RateLimiter<string> {
  #make: (cluster: string) => RateLimiter<string>;
  #limiters = new Map<string, RateLimiter<string>>();

  constructor(make: (cluster: string) => RateLimiter<string>) {
    this.#make = make;
  }

  #of(item: string): RateLimiter<string> {
    const { cluster } = splitFleetKey(item);
    let limiter = this.#limiters.get(cluster);
    if (limiter === undefined) {
      limiter = this.#make(cluster);
      this.#limiters.set(cluster, limiter);
    }
    return limiter;
  }

  when(item: string): number {
    return this.#of(item).when(item);
  }

  forget(item: string): void {
    this.#limiters.get(splitFleetKey(item).cluster)?.forget(item);
  }

  numRequeues(item: string): number {
    return this.#limiters.get(splitFleetKey(item).cluster)?.numRequeues(item) ?? 0;
  }

  /** Frees a disengaged cluster's limiter. */
  drop(cluster: string): void {
    this.#limiters.delete(cluster);
  }
}

/**
 * Runs a controller over every cluster of a fleet until `signal` aborts: each object event of
 * any cluster enqueues its fleet key (`cluster|namespace/name`); workers reconcile them one
 * key at a time. A key whose cluster has been disengaged is dropped (not retried forever), and
 * its cluster's rate limiter freed; retries are limited per cluster.
 *
 * @example
 * ```ts
 * import { Fleet, runFleetController } from "@kinformer/kinformer/fleet";
 * import { KubeClient, pods } from "@kinformer/kinformer/client";
 * import { SimulatedCluster } from "@kinformer/kinformer/testing";
 * import assert from "node:assert/strict";
 * const a = new SimulatedCluster({ autoCreateNamespaces: true });
 * const b = new SimulatedCluster({ autoCreateNamespaces: true });
 * a.create(pods, { metadata: { namespace: "web", name: "api" } });
 * b.create(pods, { metadata: { namespace: "web", name: "api" } });
 * await using fleet = new Fleet({ resource: pods });
 * fleet.engage("a", new KubeClient({ server: "http://a", fetch: a.fetch }));
 * fleet.engage("b", new KubeClient({ server: "http://b", fetch: b.fetch }));
 * const ac = new AbortController();
 * const seen: string[] = [];
 * const done = runFleetController({
 *   fleet,
 *   signal: ac.signal,
 *   reconcile: ({ cluster, namespace, name }) => {
 *     seen.push(`${cluster}: ${namespace}/${name}`);
 *     if (seen.length === 2) ac.abort();
 *   },
 * });
 * await done;
 * assert.deepEqual(seen.sort(), ["a: web/api", "b: web/api"]);
 * a.close();
 * b.close();
 * ```
 */
export async function runFleetController<T extends KubeObjectLike = KubeObject>(
  options: FleetControllerOptions<T>,
): Promise<void> {
  if (typeof options !== "object" || options === null) {
    throw new TypeError("runFleetController needs options");
  }
  checkFunction(options.reconcile, "reconcile");
  checkFunction(options.rateLimiter, "rateLimiter");
  checkFunction(options.onError, "onError");
  checkFunction(options.onClusterRemoved, "onClusterRemoved");
  checkNumber(options.workers, "workers", { min: 1, integer: true });
  requireSignal(options.signal, "signal");
  const { fleet, signal } = options;
  const clock = options.clock ?? systemClock;
  const limiter = new PerClusterRateLimiter(
    options.rateLimiter ?? (() => defaultControllerRateLimiter<string>(clock)),
  );
  const queue = new RateLimitingQueue<string>({ clock, rateLimiter: limiter, name: "fleet" });
  const onError = options.onError ??
    ((error: unknown, context: { fleetKey: string }) =>
      console.error(`fleet controller: reconcile of ${context.fleetKey} failed:`, error));
  const engaged = (cluster: string): boolean => {
    const state = fleet.state(cluster);
    return state !== undefined && state !== "removed";
  };

  const feed = (async () => {
    try {
      for await (const ev of fleet.events({ signal })) {
        switch (ev.type) {
          case "add":
          case "update":
          case "delete":
            queue.add(fleetKey(ev.cluster, ev.object));
            break;
          case "state":
            if (ev.state !== "removed") break;
            limiter.drop(ev.cluster);
            try {
              options.onClusterRemoved?.(ev.cluster);
            } catch (error) {
              callOnError(onError, error, { cluster: ev.cluster, fleetKey: "" });
            }
            break;
          case "synced":
            break;
        }
      }
    } finally {
      void queue.stop();
    }
  })();

  const work = async (): Promise<void> => {
    for (;;) {
      const next = await queue.get();
      if (next.shutdown) return;
      const item = next.item;
      const { cluster, namespace, name } = splitFleetKey(item);
      try {
        if (!engaged(cluster) || signal.aborted) {
          limiter.forget(item); // its cluster left: dropped, not retried
          continue;
        }
        const ctx: ReconcileContext = { signal, numRequeues: queue.numRequeues(item) };
        let result: ReconcileResult | void;
        try {
          result = await options.reconcile({ cluster, namespace, name, fleetKey: item }, ctx);
        } catch (error) {
          if (engaged(cluster) && !signal.aborted) {
            callOnError(onError, error, { cluster, fleetKey: item });
            queue.addRateLimited(item);
          } else limiter.forget(item);
          continue;
        }
        if (result?.requeueAfterMs !== undefined && result.requeueAfterMs > 0) {
          queue.forget(item);
          queue.addAfter(item, result.requeueAfterMs);
        } else if (result?.requeue || result?.requeueAfterMs === 0) queue.addRateLimited(item);
        else queue.forget(item);
      } finally {
        queue.done(item);
      }
    }
  };
  const workers = Array.from({ length: options.workers ?? 1 }, work);
  await feed;
  await Promise.all(workers);
  await queue.stop();
}
