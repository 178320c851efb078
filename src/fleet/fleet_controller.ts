/**
 * A controller over a fleet: work-queue items are fleet keys (they carry the cluster), items of
 * a disengaged cluster are dropped, and each cluster has its own rate limiter.
 * @module
 */
import type { KubeObject, KubeObjectLike } from "../client/types.ts";
import type {
  ReconcileContext,
  ReconcileResult,
} from "../controller/reconcile/controller_options.ts";
import { defaultControllerRateLimiter, type RateLimiter } from "../queue/rate_limiter.ts";
import { RateLimitingQueue } from "../queue/rate_limiting_queue.ts";
import { onAbort } from "../util/abort.ts";
import { type Clock, systemClock } from "../util/clock.ts";
import type { OnError } from "../util/error_context.ts";
import { ErrorReporter } from "../util/error_reporter.ts";
import { Lifecycle, type LifecycleState } from "../util/lifecycle.ts";
import {
  checkFunction,
  checkNumber,
  checkSignal,
  checkString,
  requireSignal,
} from "../util/validate.ts";
import { fleetKey, splitFleetKey } from "./cluster_key.ts";
import type { Fleet } from "./fleet.ts";
import type { FleetEvent } from "./fleet_event.ts";

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

/** Options of {@linkcode FleetController} and {@linkcode runFleetController}. */
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
  /** Stops the controller when it aborts (required by {@linkcode runFleetController}). */
  signal?: AbortSignal | undefined;
  /**
   * Names the controller in errors, printed lines (`fleet controller inventory`) and as the
   * work queue's name. @default "fleet"
   */
  name?: string | undefined;
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
  /**
   * Told of each failed reconcile (phase `reconcile`, with the controller's name as
   * `controller`, the object's `namespace/name` as `key`, its `cluster`, and the retry delay)
   * and of a throwing `onClusterRemoved` (phase `callback`). The context is the one of every
   * `onError` of kinformer.
   * @default the default printing: the first error of each kind at once (`fleet controller
   * fleet (cluster eu, web/api): reconcile error: ...; retrying with backoff (next in 5 ms)`),
   * then at most one line per cluster and kind per minute with a count of those not printed,
   * and at most 5 lines a minute in all (beyond them, one line a minute names what was not
   * printed)
   */
  onError?: OnError | undefined;
}

/**
 * A snapshot of a {@linkcode FleetController}.
 *
 * @example
 * ```ts
 * import type { FleetControllerHealth } from "@kinformer/kinformer/fleet";
 * import assert from "node:assert/strict";
 * const h: FleetControllerHealth = { name: "fleet", state: "running", workers: 2, activeWorkers: 1, queued: 0 };
 * assert.ok(h.activeWorkers <= h.workers);
 * ```
 */
export interface FleetControllerHealth {
  /** The controller's name (`name` option). */
  name: string;
  /**
   * Where it is in its life, as every long-running object of kinformer says it: `idle`
   * before `start()`, `running` (a fleet controller has nothing to wait for before its
   * workers run: each cluster's requests come as the cluster syncs), `stopping` while the
   * reconciles under way finish, `stopped`.
   */
  state: LifecycleState;
  /** Reconciles running at once at most. */
  workers: number;
  /** Workers reconciling now. */
  activeWorkers: number;
  /** Requests waiting to be reconciled. */
  queued: number;
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
 * A controller over every cluster of a fleet, from {@linkcode FleetController.start} until
 * {@linkcode FleetController.stop} (or its `signal`, or the fleet's stop): each object event of
 * any cluster enqueues its fleet key (`cluster|namespace/name`); workers reconcile them one key
 * at a time. A key whose cluster has been disengaged is dropped (not retried forever), and its
 * cluster's rate limiter freed; retries are limited per cluster. A failed reconcile goes to
 * `onError` (by default printed, at most one line per cluster and kind per minute and 5 lines
 * a minute in all). A fleet controller
 * runs once: `start()` after `stop()` throws a `LifecycleError`, and so does `start()` on a
 * stopped fleet. {@linkcode runFleetController} is the one-call form.
 *
 * @example
 * ```ts
 * import { Fleet, FleetController } from "@kinformer/kinformer/fleet";
 * import { KubeClient, pods } from "@kinformer/kinformer/client";
 * import { SimulatedCluster } from "@kinformer/kinformer/testing";
 * import assert from "node:assert/strict";
 * const a = new SimulatedCluster({ autoCreateNamespaces: true });
 * a.create(pods, { metadata: { namespace: "web", name: "api" } });
 * await using fleet = new Fleet({ resource: pods });
 * fleet.engage("a", new KubeClient({ server: "http://a", fetch: a.fetch }));
 * const seen: string[] = [];
 * await using controller = new FleetController({
 *   fleet,
 *   reconcile: ({ cluster, namespace, name }) => void seen.push(`${cluster}: ${namespace}/${name}`),
 * });
 * assert.equal(controller.health().state, "idle");
 * controller.start();
 * assert.equal(controller.health().state, "running");
 * await fleet.waitForSync();
 * while (seen.length === 0) await new Promise((resolve) => setTimeout(resolve, 1));
 * assert.deepEqual(seen, ["a: web/api"]);
 * await controller.stop();
 * assert.equal(controller.health().state, "stopped");
 * a.close();
 * ```
 */
export class FleetController<T extends KubeObjectLike = KubeObject> implements AsyncDisposable {
  /** The controller's name (`name` option). */
  readonly name: string;
  readonly #options: FleetControllerOptions<T>;
  readonly #workers: number;
  readonly #life: Lifecycle;
  readonly #reporter: ErrorReporter;
  readonly #limiter: PerClusterRateLimiter;
  readonly #queue: RateLimitingQueue<string>;
  /** Aborted by `stop()`: ends the event feed and every reconcile's `ctx.signal`. */
  readonly #stop = new AbortController();
  #run: Promise<void> | undefined;
  #stopping: Promise<void> | undefined;
  #active = 0;

  /** Validates `options`; nothing runs until {@linkcode FleetController.start}. */
  constructor(options: FleetControllerOptions<T>) {
    if (typeof options !== "object" || options === null) {
      throw new TypeError("FleetController needs options");
    }
    checkFunction(options.reconcile, "reconcile");
    checkFunction(options.rateLimiter, "rateLimiter");
    checkFunction(options.onError, "onError");
    checkFunction(options.onClusterRemoved, "onClusterRemoved");
    checkNumber(options.workers, "workers", { min: 1, integer: true });
    checkString(options.name, "name");
    checkSignal(options.signal, "signal");
    this.#options = options;
    this.name = options.name ?? "fleet";
    this.#workers = options.workers ?? 1;
    const clock = options.clock ?? systemClock;
    const source = `fleet controller ${this.name}`;
    this.#life = new Lifecycle(source, { restartable: false });
    // Per cluster: a failing reconcile in one cluster never hides another's.
    this.#reporter = new ErrorReporter({
      source,
      onError: options.onError,
      clock,
      groupBy: "cluster",
    });
    this.#limiter = new PerClusterRateLimiter(
      options.rateLimiter ?? (() => defaultControllerRateLimiter<string>(clock)),
    );
    this.#queue = new RateLimitingQueue<string>({
      clock,
      rateLimiter: this.#limiter,
      name: this.name,
    });
  }

  /**
   * Starts the workers and follows the fleet's events; a second call does nothing. Throws a
   * `LifecycleError` after `stop()`, or when the fleet has stopped.
   */
  start(): void {
    if (!this.#life.start()) return;
    let events: AsyncIterableIterator<FleetEvent<T>>;
    try {
      events = this.#options.fleet.events({ signal: this.#stop.signal });
    } catch (error) {
      this.#life.stop();
      this.#life.stopped();
      throw error;
    }
    const release = onAbort(this.#options.signal, () => void this.stop());
    const workers = Array.from({ length: this.#workers }, () => this.#work());
    this.#run = Promise.all([this.#feed(events), ...workers]).then(() => {
      release();
      // The fleet stopped (its stream ended): the controller stops with it.
      void this.stop();
    });
    this.#life.started();
  }

  /**
   * Stops taking requests, aborts the `ctx.signal` of the reconciles under way and resolves
   * once they returned and the queue is released. Idempotent.
   */
  stop(): Promise<void> {
    if (this.#life.stop()) this.#stopping = this.#release();
    return this.#stopping ?? Promise.resolve();
  }

  /** Resolves once the controller has stopped (by `stop()`, its signal, or the fleet's stop). */
  get whenStopped(): Promise<void> {
    return this.#life.wait(() => this.#life.state === "stopped" ? "done" : "pending", {
      failure: () => undefined,
    });
  }

  /** Same as {@linkcode FleetController.stop}, for `await using`. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.stop();
  }

  /** A snapshot of its state, workers and queue. */
  health(): FleetControllerHealth {
    return {
      name: this.name,
      state: this.#life.state,
      workers: this.#workers,
      activeWorkers: this.#active,
      queued: this.#queue.len,
    };
  }

  async #release(): Promise<void> {
    this.#stop.abort(new DOMException("fleet controller stopped", "AbortError"));
    await this.#queue.stop();
    await this.#run;
    this.#reporter.close();
    this.#life.stopped();
  }

  /** Enqueues each object event's fleet key; frees a removed cluster's limiter. */
  async #feed(events: AsyncIterableIterator<FleetEvent<T>>): Promise<void> {
    try {
      for await (const ev of events) {
        switch (ev.type) {
          case "add":
          case "update":
          case "delete":
            this.#queue.add(fleetKey(ev.cluster, ev.object));
            break;
          case "state":
            if (ev.state !== "removed") break;
            this.#limiter.drop(ev.cluster);
            this.#reporter.forget(ev.cluster);
            try {
              this.#options.onClusterRemoved?.(ev.cluster);
            } catch (error) {
              this.#reporter.report(error, {
                phase: "callback",
                detail: "onClusterRemoved",
                controller: this.name,
                cluster: ev.cluster,
                action: "going on",
              });
            }
            break;
          case "synced":
            break;
        }
      }
    } finally {
      void this.#queue.stop();
    }
  }

  #engaged(cluster: string): boolean {
    const state = this.#options.fleet.state(cluster);
    return state !== undefined && state !== "removed";
  }

  async #work(): Promise<void> {
    const queue = this.#queue;
    const signal = this.#stop.signal;
    for (;;) {
      const next = await queue.get();
      if (next.shutdown) return;
      const item = next.item;
      const { cluster, namespace, name } = splitFleetKey(item);
      this.#active++;
      try {
        if (!this.#engaged(cluster) || signal.aborted) {
          this.#limiter.forget(item); // its cluster left: dropped, not retried
          continue;
        }
        const ctx: ReconcileContext = { signal, numRequeues: queue.numRequeues(item) };
        let result: ReconcileResult | void;
        try {
          result = await this.#options.reconcile(
            { cluster, namespace, name, fleetKey: item },
            ctx,
          );
        } catch (error) {
          if (this.#engaged(cluster) && !signal.aborted) {
            const delay = this.#limiter.when(item);
            this.#reporter.report(error, {
              phase: "reconcile",
              controller: this.name,
              key: namespace === "" ? name : `${namespace}/${name}`,
              cluster,
              action: "retrying with backoff",
              retryInMs: delay,
            });
            queue.addAfter(item, delay);
          } else this.#limiter.forget(item);
          continue;
        }
        if (result?.requeueAfterMs !== undefined && result.requeueAfterMs > 0) {
          queue.forget(item);
          queue.addAfter(item, result.requeueAfterMs);
        } else if (result?.requeue || result?.requeueAfterMs === 0) queue.addRateLimited(item);
        else queue.forget(item);
      } finally {
        this.#active--;
        queue.done(item);
      }
    }
  }
}

/**
 * Runs a {@linkcode FleetController} until `signal` aborts or the fleet stops: the one-call
 * form.
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
  requireSignal(options.signal, "signal");
  const controller = new FleetController(options);
  controller.start();
  await controller.whenStopped;
}
