/**
 * What a controller is made of: its options ({@linkcode ControllerOptions}, and
 * {@linkcode RunControllerOptions} for the one-call form), what a reconcile gets and returns,
 * how errors and metrics leave it, and the up-front validation of all of it.
 * @module
 */
import type { Clock } from "../../util/clock.ts";
import type { OnError } from "../../util/error_context.ts";
import type { RateLimitingQueue } from "../../queue/rate_limiting_queue.ts";
import type { WorkQueueMetricsHooks } from "../../queue/work_queue.ts";
import {
  checkBoolean,
  checkClock,
  checkFunction,
  checkNumber,
  checkOptionsObject,
  requireNonEmptyString,
} from "../../util/validate.ts";
import { describeValue } from "../../util/values.ts";
import type { InformerLike } from "./informer_like.ts";
import type { UpdatePredicate } from "./predicates.ts";
import type { ControllerSource, SourceKeys } from "./sources.ts";
import type { LeaderElector, LeaderElectorOptions } from "../leases/leader_election.ts";
import type { ShardCoordinator } from "../leases/shard_coordinator.ts";
import type { ShardCoordinatorOptions } from "../leases/shard_coordinator_options.ts";

import type { NewTraceContextOptions, TraceContext } from "../../client/trace_context.ts";
/**
 * What a reconcile function may return, as controller-runtime's `Result`: `requeueAfterMs`
 * schedules the key again after that many milliseconds (its error backoff is reset), for
 * periodic re-checks; `requeue: true` (or `requeueAfterMs: 0`) reconciles it again through the
 * rate limiter, with the same growing per-key backoff as an error, so a reconcile that keeps
 * asking never loops hot.
 *
 * @example
 * ```ts
 * import type { ReconcileResult } from "@kinformer/kinformer/controller";
 * import assert from "node:assert/strict";
 * const again: ReconcileResult = { requeueAfterMs: 60_000 };
 * assert.equal(again.requeueAfterMs, 60_000);
 * const soon: ReconcileResult = { requeue: true }; // not done yet: back off and come back
 * assert.equal(soon.requeue, true);
 * ```
 */
export interface ReconcileResult {
  /**
   * Reconcile the key again after this many milliseconds; 0 is the same as `requeue: true`.
   * Wins over `requeue` when above 0.
   */
  requeueAfterMs?: number;
  /** Reconcile the key again, after its rate limiter's per-key backoff. */
  requeue?: boolean;
}

/**
 * The second argument of a reconcile function.
 *
 * @example
 * ```ts
 * import type { ReconcileContext } from "@kinformer/kinformer/controller";
 * import assert from "node:assert/strict";
 * const ctx: ReconcileContext = { signal: new AbortController().signal, numRequeues: 0 };
 * assert.equal(ctx.signal.aborted, false);
 * ```
 */
export interface ReconcileContext {
  /**
   * Aborts when the controller gives up on this reconcile: it stopped (at once, or after its
   * `shutdownGracePeriodMs`), or this replica stopped owning the key. Long work should stop
   * early and throw.
   */
  signal: AbortSignal;
  /** How many times this key has been retried after errors since it last succeeded. */
  numRequeues: number;
  /**
   * This reconcile's W3C trace context, with the controller's `tracing` option: pass it as
   * `trace` to the client's requests (`client.get(pods, name, { trace: ctx.trace })`) to make
   * the reconcile their parent in the trace.
   */
  trace?: TraceContext | undefined;
}

/**
 * How one reconcile ended, in controller-runtime's words (the `result` label of
 * `controller_runtime_reconcile_total`): `success`, `error` (it threw; retried with backoff),
 * `requeue` (`requeue: true` or `requeueAfterMs: 0`), `requeue_after` (`requeueAfterMs > 0`).
 *
 * @example
 * ```ts
 * import type { ReconcileOutcome } from "@kinformer/kinformer/controller";
 * import assert from "node:assert/strict";
 * const outcomes: ReconcileOutcome[] = ["success", "error", "requeue", "requeue_after"];
 * assert.equal(outcomes.length, 4);
 * ```
 */
export type ReconcileOutcome = "success" | "error" | "requeue" | "requeue_after";

/**
 * Callbacks a controller calls for a metrics system (`controllerRuntimeMetrics().controller()`
 * in `@kinformer/kinformer/metrics` makes them). A hook that throws goes to `onError` (kind
 * `callback`); the controller goes on.
 *
 * @example
 * ```ts
 * import type { ControllerMetricsHooks } from "@kinformer/kinformer/controller";
 * import assert from "node:assert/strict";
 * const outcomes: string[] = [];
 * const hooks: ControllerMetricsHooks = { onReconcile: (outcome) => void outcomes.push(outcome) };
 * hooks.onReconcile?.("success", 12);
 * assert.deepEqual(outcomes, ["success"]);
 * ```
 */
export interface ControllerMetricsHooks {
  /** The controller's workers are about to start: `workers` at most reconcile at once. */
  onStart?(workers: number): void;
  /** A reconcile ended after `durationMs`. */
  onReconcile?(outcome: ReconcileOutcome, durationMs: number): void;
  /** The number of workers busy reconciling changed. */
  onActiveWorkers?(active: number): void;
  /** Hooks of the queue the controller makes when none is given (`queue` option). */
  readonly queue?: WorkQueueMetricsHooks<string> | undefined;
}

/** Options of a {@linkcode Controller} (and, with `signal`, of {@linkcode runController}). */
export interface ControllerOptions<O = unknown> {
  /**
   * Informers whose events enqueue keys. For informers of different kinds, name the union:
   * `runController<Pod | ReplicaSet>({ ... })`.
   */
  informers: readonly InformerLike<O>[];
  /**
   * Brings the world in line with the desired state of `key`. Throwing (or rejecting)
   * retries the key with the queue's rate limiter and reports the error to `onError`.
   */
  reconcile: (
    key: string,
    ctx: ReconcileContext,
  ) => Promise<ReconcileResult | void> | ReconcileResult | void;
  /**
   * The controller's name: the `controller` label of its metrics, the name of its default
   * queue, and in `onError` contexts. Unique within a manager.
   * @default "controller"
   */
  name?: string | undefined;
  /**
   * The queue keys go through; it is stopped when the controller stops. Give it the same
   * `name`, and `metrics.queue` as its `metrics`, for queue metrics.
   * @default new RateLimitingQueue<string>({ clock, name, metrics: metrics?.queue })
   */
  queue?: RateLimitingQueue<string> | undefined;
  /**
   * Number of keys reconciled at once (one key is never reconciled twice at once).
   * @default 1
   */
  workers?: number | undefined;
  /**
   * Maps an object from an event to the key(s) to reconcile, or `undefined` for none (for
   * example the owner's key of a child object). Updates enqueue the keys of both the old and
   * the new object.
   * @default `namespace/name`, or `name` for cluster-scoped objects
   */
  keyFor?: ((obj: O) => string | readonly string[] | undefined) | undefined;
  /**
   * An update of an object of `informers` enqueues its key only when at least one of these
   * returns true, e.g. `[generationChanged]` so that the controller's own status writes do not
   * wake it. Adds and deletes always enqueue. A predicate that throws is reported to `onError`
   * (kind `handler`) and the update enqueues.
   * @default [] (every update enqueues)
   */
  updatePredicates?: readonly UpdatePredicate<O>[] | undefined;
  /**
   * More informers whose events enqueue keys of this controller: objects it owns
   * ({@linkcode owns}: mapped to their controller through `metadata.ownerReferences`) and other
   * objects it watches ({@linkcode watches}: mapped by a function), each with its own update
   * predicates. Their informers are started and waited for like `informers`.
   * @default []
   */
  sources?: readonly ControllerSource[] | undefined;
  /**
   * Told about every error, with the one `ErrorContext` of kinformer: `kind` what
   * the error is, `phase` where (`reconcile`: reconcile threw, rejected or returned an invalid
   * result, and the key is retried with backoff; `handler`: `keyFor`, a source's mapping or an
   * update predicate threw or returned no key; `callback`: a metrics hook threw; `lease`: a
   * leader election or sharding built from options failed a request), `controller` the name,
   * `key` the key of a reconcile error. The controller goes on. It replaces the default
   * printing. If `onError` itself throws, the controller stops: `runController` rejects with
   * that error (and a {@linkcode Controller}'s `whenStopped()`).
   * @default prints as every long-running object of kinformer does: the first error of each
   * kind at once (`controller web (default/w1): reconcile error: ...; retrying the key with
   * backoff (next in 5 ms)`), then at most one line per kind per minute with a count
   */
  onError?: OnError | undefined;
  /**
   * Time source for the default queue, polling `hasSynced()` and the shutdown grace period.
   * @default the system clock (`Date.now` and the global timers)
   */
  clock?: Clock | undefined;
  /**
   * Call each informer's `start(signal)` (and `stop()` when stopping). Turn off for informers
   * started elsewhere (for example by a shared factory or a manager).
   * @default true
   */
  startInformers?: boolean | undefined;
  /**
   * How often `hasSynced()` is polled for registrations that offer no `waitForSync`.
   * @default 100
   */
  syncPollIntervalMs?: number | undefined;
  /**
   * Run as one of several replicas, only the elected leader reconciling: a
   * {@linkcode LeaderElector}, or its options (then `clock` and `onError` default to the
   * controller's). Every replica keeps its informers synced; a replica campaigns once its caches
   * are synced, and on becoming leader it enqueues every key from them. `ctx.signal` aborts when
   * leadership ends. On stop, in-flight reconciles finish before the lease is released.
   * @default undefined (this process alone reconciles)
   */
  leaderElection?: LeaderElector | LeaderElectorOptions | undefined;
  /**
   * Trace each reconcile: it gets a new W3C trace context (`ctx.trace`), the root of a new
   * trace, as kube-rs makes the reconcile the root span; its requests sent with
   * `{ trace: ctx.trace }` carry it as `traceparent`. `true` samples every reconcile; an
   * object passes `newTraceContext` options (`{ sampled: false }`, or a `parent` to make each
   * reconcile a child span of that trace). No tracing library is needed or used.
   * @default false
   */
  tracing?: boolean | NewTraceContextOptions | undefined;
  /**
   * Split the keys among replicas: a {@linkcode ShardCoordinator}, or its options (then `clock`
   * and `onError` default to the controller's). A key is reconciled only by the replica that
   * owns its shard; when a replica gains a shard it enqueues that shard's keys from its caches
   * (and the keys of deletions seen in the last two lease durations). `ctx.signal` aborts
   * when the shard is lost; a shard is released only after its reconciles finished. Cannot be
   * combined with `leaderElection`.
   * @default undefined
   */
  sharding?: ShardCoordinator | ShardCoordinatorOptions | undefined;
  /**
   * Start the `leaderElection` or `sharding` instance once the caches have synced, and stop it
   * (releasing its Leases) after the last reconcile. Turn off when the instance is shared by
   * several controllers and started elsewhere (a {@linkcode Manager} does that): the controller
   * then only follows it, and a replica that already leads when the controller is ready
   * enqueues every key at once.
   * @default true
   */
  startCoordination?: boolean | undefined;
  /**
   * How long in-flight reconciles may go on after the controller is told to stop before their
   * `ctx.signal` aborts: `0` aborts it at once. The controller stops taking keys at once either
   * way, and resolves only once every reconcile has returned.
   * @default 0
   */
  shutdownGracePeriodMs?: number | undefined;
  /**
   * Metrics hooks, e.g. `controllerRuntimeMetrics().controller(name)` from
   * `@kinformer/kinformer/metrics` (controller-runtime's metric names).
   * @default undefined
   */
  metrics?: ControllerMetricsHooks | undefined;
}

/** Options of {@linkcode runController}: a controller's options and the signal that stops it. */
export interface RunControllerOptions<O = unknown> extends ControllerOptions<O> {
  /** Stops the controller: no new keys are taken, in-flight reconciles finish. */
  signal: AbortSignal;
}

/** One informer the controller listens to, and how its objects become keys. Internal. */
export interface Feed {
  /** The informer. */
  informer: InformerLike<unknown>;
  /** The mapping of a source; `undefined` for `informers` (the controller's `keyFor`). */
  keysFor: ((object: never) => SourceKeys) | undefined;
  /** Update predicates of this feed. */
  predicates: readonly UpdatePredicate<never>[];
  /** What maps objects, for error messages. */
  what: string;
}

/** Checks a controller's options (TypeError/RangeError naming the option). Internal. */
export function checkControllerOptions<O>(options: ControllerOptions<O>, where: string): void {
  checkOptionsObject(options, where);
  if (options === undefined) throw new TypeError(`${where}: options are required`);
  if (!Array.isArray(options.informers)) {
    throw new TypeError(
      `informers must be an array of informers, got ${describeValue(options.informers)}`,
    );
  }
  options.informers.forEach((informer: unknown, i) => {
    if (
      typeof informer !== "object" || informer === null ||
      typeof (informer as InformerLike).addEventHandler !== "function"
    ) {
      throw new TypeError(`informers[${i}] must have an addEventHandler() method`);
    }
  });
  if (typeof options.reconcile !== "function") {
    throw new TypeError(`reconcile must be a function, got ${describeValue(options.reconcile)}`);
  }
  if (options.name !== undefined) requireNonEmptyString(options.name, "name");
  checkNumber(options.workers, "workers", { min: 1, integer: true });
  checkFunction(options.keyFor, "keyFor");
  checkFunction(options.onError, "onError");
  checkClock(options.clock, "clock");
  checkNumber(options.syncPollIntervalMs, "syncPollIntervalMs", {
    min: 0,
    minExclusive: true,
  });
  checkNumber(options.shutdownGracePeriodMs, "shutdownGracePeriodMs", { min: 0 });
  checkBoolean(options.startInformers, "startInformers");
  checkBoolean(options.startCoordination, "startCoordination");
  const metrics = options.metrics;
  checkOptionsObject(metrics, "metrics");
  if (metrics !== undefined) {
    checkFunction(metrics.onStart, "metrics.onStart");
    checkFunction(metrics.onReconcile, "metrics.onReconcile");
    checkFunction(metrics.onActiveWorkers, "metrics.onActiveWorkers");
    checkOptionsObject(metrics.queue, "metrics.queue");
  }
}

/** The informers and sources of `options` as feeds, checked. Internal. */
export function controllerFeeds<O>(options: ControllerOptions<O>): Feed[] {
  const predicates = options.updatePredicates ?? [];
  if (!Array.isArray(predicates)) throw new TypeError("updatePredicates must be an array");
  predicates.forEach((p, i) => checkFunction(p, `updatePredicates[${i}]`));
  const feeds: Feed[] = options.informers.map((informer) => ({
    informer: informer as InformerLike<unknown>,
    keysFor: undefined,
    predicates: predicates as readonly UpdatePredicate<never>[],
    what: "keyFor",
  }));
  const sources = options.sources ?? [];
  if (!Array.isArray(sources)) throw new TypeError("sources must be an array of owns()/watches()");
  sources.forEach((source: unknown, i) => {
    const s = source as Partial<ControllerSource> | null;
    if (
      typeof s !== "object" || s === null || typeof s.keysFor !== "function" ||
      typeof s.informer?.addEventHandler !== "function" || !Array.isArray(s.updatePredicates)
    ) {
      throw new TypeError(`sources[${i}] must be made by owns() or watches()`);
    }
    feeds.push({
      informer: s.informer as InformerLike<unknown>,
      keysFor: s.keysFor,
      predicates: s.updatePredicates,
      what: `sources[${i}]`,
    });
  });
  return feeds;
}
