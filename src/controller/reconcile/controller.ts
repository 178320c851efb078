/**
 * A controller as an object: informer events become keys on a rate-limited work queue, and a
 * fixed number of workers reconcile those keys, from `start()` until `stop()`.
 * {@linkcode runController} is the one-call form.
 * @module
 */
import type { KubeObject } from "../../client/types.ts";
import { objectKey } from "../../cache/object_key.ts";
import { type Clock, systemClock, type TimerHandle } from "../../util/clock.ts";
import { linkedController, onAbort } from "../../util/abort.ts";
import { RateLimitingQueue } from "../../queue/rate_limiting_queue.ts";
import type { ErrorContext, ErrorPhase, OnError } from "../../util/error_context.ts";
import { ErrorReporter } from "../../util/error_reporter.ts";
import { Lifecycle, type LifecycleState } from "../../util/lifecycle.ts";
import { reportError } from "../../util/report_error.ts";
import { checkOptionsObject, checkSignal } from "../../util/validate.ts";
import { describeValue } from "../../util/values.ts";
import type {
  InformerEventHandlerLike,
  InformerLike,
  InformerRegistrationLike,
} from "./informer_like.ts";
import {
  checkControllerOptions,
  controllerFeeds,
  type ControllerMetricsHooks,
  type ControllerOptions,
  type Feed,
  type ReconcileContext,
  type ReconcileOutcome,
  type ReconcileResult,
} from "./controller_options.ts";
import type { SourceKeys } from "./sources.ts";
import { type KeyPermit, ownershipFrom, OwnershipGate } from "./_ownership.ts";
import { waitUntilSynced } from "./_synced.ts";

import type { TraceContext } from "../../client/trace_context.ts";
import { reconcileTracer } from "./_reconcile_trace.ts";
/**
 * A snapshot of a {@linkcode Controller}.
 *
 * @example
 * ```ts
 * import type { ControllerHealth } from "@kinformer/kinformer/controller";
 * import assert from "node:assert/strict";
 * const h: ControllerHealth = { name: "widgets", state: "running", synced: true, workers: 2, activeWorkers: 1 };
 * assert.ok(h.activeWorkers <= h.workers);
 * ```
 */
export interface ControllerHealth {
  /** The controller's name. */
  name: string;
  /**
   * `idle` before `start`; `starting` until the caches synced; `running`; `stopping` while
   * in-flight reconciles finish; `stopped` (the one vocabulary of every `health().state`).
   */
  state: LifecycleState;
  /** Whether every informer registration has received its informer's initial list. */
  synced: boolean;
  /** Keys reconciled at once at most. */
  workers: number;
  /** Workers reconciling now. */
  activeWorkers: number;
  /** The error that stopped the controller, if one did. */
  failure?: { message: string };
}

/** True for the error an aborted `signal` makes async work throw. */
function isAbortError(error: unknown, signal: AbortSignal): boolean {
  return signal.aborted &&
    (error === signal.reason ||
      (typeof error === "object" && error !== null &&
        (error as { name?: unknown }).name === "AbortError"));
}

/**
 * A controller: from {@linkcode Controller.start} on,
 *
 * 1. registers a handler on every informer that enqueues the key(s) of each added, updated
 *    and deleted object, then starts the informers (unless `startInformers: false`);
 * 2. waits until every registration's `hasSynced()` is true (its `waitForSync` if it has one,
 *    else polling on the clock every `syncPollIntervalMs`);
 * 3. runs `workers` loops that take a key, call `reconcile(key, ctx)` and then: on success
 *    `forget` the key (or `addAfter` it when `requeueAfterMs` is returned, or
 *    `addRateLimited` it for `requeue: true`), on error `addRateLimited` it and call `onError`;
 *    the key is always marked `done`.
 *
 * {@linkcode Controller.stop} (or aborting the start signal) stops taking keys at once; in-flight
 * reconciles get `shutdownGracePeriodMs` (default 0) before their `ctx.signal` aborts; once
 * they returned, the handlers are removed, the queue is stopped, leader election or sharding
 * releases its Leases, started informers are stopped, and `stop()` resolves. A controller runs
 * once: `start()` after `stop()` throws a `LifecycleError` at once ("controller web was stopped
 * and runs once: create a new one to start again"). It stops by itself only when something
 * fatal happened (`onError` threw, an informer's `start` rejected): then
 * {@linkcode Controller.whenStopped} rejects with that error.
 *
 * @example
 * ```ts
 * import { Controller, type InformerLike } from "@kinformer/kinformer/controller";
 * import assert from "node:assert/strict";
 *
 * type Obj = { metadata: { namespace?: string; name?: string } };
 * const informer: InformerLike<Obj> = {
 *   addEventHandler(handler) {
 *     handler.onAdd?.({ metadata: { namespace: "default", name: "web" } }, true);
 *     return { hasSynced: () => true, remove: () => {} };
 *   },
 * };
 * const reconciled: string[] = [];
 * await using controller = new Controller({
 *   name: "web",
 *   informers: [informer],
 *   reconcile: (key) => void reconciled.push(key),
 * });
 * controller.start();
 * await controller.waitForSync();
 * await new Promise((resolve) => setTimeout(resolve, 10));
 * assert.deepEqual(reconciled, ["default/web"]);
 * await controller.stop();
 * assert.equal(controller.health().state, "stopped");
 * ```
 */
export class Controller<O = unknown> implements AsyncDisposable {
  /** The controller's name (`name` option). */
  readonly name: string;
  readonly #feeds: Feed[];
  readonly #clock: Clock;
  readonly #queue: RateLimitingQueue<string>;
  readonly #workers: number;
  readonly #keyFor: (obj: O) => SourceKeys;
  /** The one reporting path: `onError`, or the default printing. */
  readonly #reporter: ErrorReporter;
  /** The user's `onError`, handed on to a leader election or sharding built from options. */
  readonly #onError: OnError | undefined;
  readonly #pollMs: number;
  readonly #graceMs: number;
  readonly #startInformers: boolean;
  readonly #startCoordination: boolean;
  readonly #reconcile: ControllerOptions<O>["reconcile"];
  /** Makes each reconcile's trace context (the `tracing` option), if on. */
  readonly #tracer: (() => TraceContext) | undefined;
  readonly #metrics: ControllerMetricsHooks | undefined;
  readonly #gate: OwnershipGate<O> | undefined;
  /** Aborted on stop: workers take no more keys. */
  readonly #stopTaking = new AbortController();
  /** Aborted on stop after the grace period (at once on failure): reconcile signals. */
  readonly #abortWork = new AbortController();
  readonly #registrations: InformerRegistrationLike[] = [];
  /** idle, starting (caches syncing), running, stopping, stopped; runs once. */
  readonly #life: Lifecycle;
  #synced = false;
  #active = 0;
  #failure: { error: unknown } | undefined;
  #graceTimer: TimerHandle | undefined;
  #run: Promise<void> | undefined;
  #unlinkStart: (() => void) | undefined;
  /** Resolves once stopped (never rejects). */
  readonly #stopped: Promise<void>;
  #markStopped!: () => void;

  /** Validates the options; starts nothing. */
  constructor(options: ControllerOptions<O>) {
    checkControllerOptions(options, "Controller");
    this.#stopped = new Promise<void>((resolve) => (this.#markStopped = resolve));
    if (options.queue !== undefined && !(options.queue instanceof RateLimitingQueue)) {
      throw new TypeError(`queue must be a RateLimitingQueue, got ${describeValue(options.queue)}`);
    }
    this.#feeds = controllerFeeds(options);
    this.name = options.name ?? "controller";
    this.#clock = options.clock ?? systemClock;
    this.#metrics = options.metrics;
    this.#onError = options.onError;
    this.#reporter = new ErrorReporter({
      source: `controller ${this.name}`,
      onError: options.onError,
      clock: this.#clock,
      // An onError that throws stops the controller (whenStopped rejects with its error).
      onCallbackError: (thrown) => this.#fail(thrown),
    });
    this.#life = new Lifecycle(`controller ${this.name}`, { restartable: false });
    this.#queue = options.queue ?? new RateLimitingQueue<string>({
      clock: this.#clock,
      name: this.name,
      ...(this.#metrics?.queue === undefined ? {} : { metrics: this.#metrics.queue }),
      onError: (error, context) =>
        this.#report(error, { phase: "callback", detail: context.detail, action: "going on" }),
    });
    this.#workers = options.workers ?? 1;
    this.#keyFor = options.keyFor ?? ((obj: O): string => objectKey(obj as KubeObject));
    this.#pollMs = options.syncPollIntervalMs ?? 100;
    this.#graceMs = options.shutdownGracePeriodMs ?? 0;
    this.#startInformers = options.startInformers ?? true;
    this.#startCoordination = options.startCoordination ?? true;
    this.#reconcile = options.reconcile;
    this.#tracer = reconcileTracer(options.tracing);
    // Leader election or sharding: only keys this replica owns are queued and reconciled.
    // Built (and its options validated) before anything is started or listened to.
    const ownership = ownershipFrom(options, this.#clock, this.#forwardOnError());
    const primary = this.#feeds.find((f) => f.keysFor === undefined);
    this.#gate = ownership === undefined ? undefined : new OwnershipGate<O>(ownership, {
      informers: options.informers,
      clock: this.#clock,
      pollMs: this.#pollMs,
      keysOf: (obj) => primary === undefined ? [] : this.#keysOf(primary, obj),
      enqueue: (key) => this.#queue.add(key),
      report: (error) =>
        this.#report(error, {
          phase: "lease",
          detail: "replaying the keys it now owns",
          action: "going on",
        }),
    });
  }

  /**
   * Starts the controller in the background and returns at once (see the class). Idempotent
   * while it runs; aborting `signal` is the same as {@linkcode Controller.stop}.
   *
   * @throws {TypeError} when `options.signal` is not an AbortSignal.
   * @throws {LifecycleError} after `stop()`: a controller runs once.
   */
  start(options: { signal?: AbortSignal | undefined } = {}): void {
    checkOptionsObject(options, "Controller.start");
    checkSignal(options.signal, "signal");
    if (!this.#life.start()) return;
    const signal = options.signal;
    if (signal?.aborted) this.#beginStop(signal.reason);
    else this.#unlinkStart = onAbort(signal, () => void this.stop());
    this.#run = this.#main().then(undefined, (error: unknown) => this.#fail(error));
  }

  /**
   * Stops taking keys, lets in-flight reconciles finish (their signal aborts after
   * `gracePeriodMs`), releases everything and resolves once stopped. Idempotent; never rejects
   * (a fatal error is in {@linkcode Controller.whenStopped}).
   */
  async stop(options: { gracePeriodMs?: number | undefined } = {}): Promise<void> {
    checkOptionsObject(options, "Controller.stop");
    const grace = options.gracePeriodMs ?? this.#graceMs;
    if (typeof grace !== "number" || !(grace >= 0)) {
      throw new RangeError(`gracePeriodMs must be a number >= 0, got ${describeValue(grace)}`);
    }
    if (this.#life.state === "idle") {
      this.#life.stop();
      this.#life.stopped();
      this.#markStopped();
      return;
    }
    this.#beginStop(new Error("controller stopped"), grace);
    await this.#run;
  }

  /** Same as {@linkcode Controller.stop}, for `await using`. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.stop();
  }

  /**
   * Resolves once every informer registration has its informer's initial list; rejects with
   * the signal's reason when it aborts, or with an Error when the controller stops first.
   */
  waitForSync(options: { signal?: AbortSignal | undefined } = {}): Promise<void> {
    checkOptionsObject(options, "Controller.waitForSync");
    checkSignal(options.signal, "signal");
    return this.#life.wait(
      () =>
        this.#synced
          ? "done"
          : this.#life.state === "stopping" || this.#life.state === "stopped"
          ? "failed"
          : "pending",
      {
        signal: options.signal,
        failure: () => new Error(`controller ${this.name} stopped before it synced`),
      },
    );
  }

  /** Whether every informer registration has received its informer's initial list. */
  hasSynced(): boolean {
    return this.#synced;
  }

  /**
   * Resolves once the controller has stopped; rejects with the error that stopped it when
   * something fatal happened (see the class). Before `start`, resolves once `stop` is called.
   */
  async whenStopped(): Promise<void> {
    await this.#stopped;
    if (this.#failure !== undefined) throw this.#failure.error;
  }

  /** A snapshot for health checks and dashboards. */
  health(): ControllerHealth {
    const h: ControllerHealth = {
      name: this.name,
      state: this.#life.state,
      synced: this.#synced,
      workers: this.#workers,
      activeWorkers: this.#active,
    };
    if (this.#failure !== undefined) {
      const e = this.#failure.error;
      h.failure = { message: e instanceof Error ? e.message : describeValue(e) };
    }
    return h;
  }

  /** Stop taking keys now; abort reconciles after `graceMs` (at once with 0). */
  #beginStop(reason: unknown, graceMs = this.#graceMs): void {
    if (!this.#stopTaking.signal.aborted) this.#stopTaking.abort(reason);
    if (this.#abortWork.signal.aborted || this.#graceTimer !== undefined) {
      if (graceMs === 0) this.#abortNow(reason);
      return;
    }
    if (graceMs === 0) this.#abortNow(reason);
    else this.#graceTimer = this.#clock.setTimeout(() => this.#abortNow(reason), graceMs);
  }

  #abortNow(reason: unknown): void {
    if (this.#graceTimer !== undefined) this.#clock.clearTimeout(this.#graceTimer);
    this.#graceTimer = undefined;
    if (!this.#abortWork.signal.aborted) this.#abortWork.abort(reason);
  }

  /** Something fatal: stop everything at once; `whenStopped()` rejects with it. */
  #fail(error: unknown): void {
    if (this.#life.state === "stopped") {
      reportError(error);
      return;
    }
    this.#failure ??= { error };
    this.#beginStop(error, 0);
  }

  /**
   * Hands an error to `onError` (or the default printing), with the controller's name; if
   * `onError` throws, the controller stops with its error.
   */
  #report(
    error: unknown,
    details: {
      phase: ErrorPhase;
      action: string;
      key?: string;
      detail?: string | undefined;
      retryInMs?: number | undefined;
    },
  ): void {
    this.#reporter.report(error, { ...details, controller: this.name });
  }

  /**
   * The `onError` of a leader election or sharding built from options: the user's `onError`
   * with the controller's name added (a throw stops the controller), or none, so that it
   * prints by the same default as every other object.
   */
  #forwardOnError(): OnError | undefined {
    const onError = this.#onError;
    if (onError === undefined) return undefined;
    return (error: unknown, context: ErrorContext): void => {
      try {
        onError(error, { ...context, controller: this.name });
      } catch (thrown) {
        this.#fail(thrown);
      }
    };
  }

  /** Calls a metrics hook; a throw goes to `onError` (phase `callback`). */
  #hook<K extends "onStart" | "onReconcile" | "onActiveWorkers">(
    name: K,
    ...args: Parameters<NonNullable<ControllerMetricsHooks[K]>>
  ): void {
    const fn = this.#metrics?.[name] as ((...a: typeof args) => void) | undefined;
    if (fn === undefined) return;
    try {
      fn.apply(this.#metrics, args);
    } catch (error) {
      this.#report(error, { phase: "callback", detail: name, action: "going on" });
    }
  }

  /** The keys of one object of a feed (the primary informers' through `keyFor`). */
  #keysOf(feed: Feed, obj: unknown): readonly string[] {
    let mapped: SourceKeys;
    try {
      mapped = feed.keysFor === undefined ? this.#keyFor(obj as O) : feed.keysFor(obj as never);
    } catch (error) {
      this.#report(error, { phase: "handler", detail: feed.what, action: "skipping the event" });
      return [];
    }
    if (mapped === undefined) return [];
    if (typeof mapped === "string") return [mapped];
    if (Array.isArray(mapped) && mapped.every((k) => typeof k === "string")) return mapped;
    this.#report(
      new TypeError(`${feed.what} must return a string, an array of strings or undefined`),
      { phase: "handler", detail: feed.what, action: "skipping the event" },
    );
    return [];
  }

  /** Adds the keys of `objects` (each key once, so an update's old and new do not double). */
  #enqueue(feed: Feed, deleted: boolean, ...objects: unknown[]): void {
    const keys = new Set<string>();
    for (const obj of objects) for (const key of this.#keysOf(feed, obj)) keys.add(key);
    const gate = this.#gate;
    for (const key of keys) {
      if (gate === undefined || gate.admit(key, deleted)) this.#queue.add(key);
    }
  }

  #passes(feed: Feed, oldObj: unknown, newObj: unknown): boolean {
    if (feed.predicates.length === 0) return true;
    for (const predicate of feed.predicates) {
      try {
        if (predicate(oldObj as never, newObj as never)) return true;
      } catch (error) {
        this.#report(error, {
          phase: "handler",
          detail: "update predicate",
          action: "enqueuing the update",
        });
        return true;
      }
    }
    return false;
  }

  #handlerFor(feed: Feed): InformerEventHandlerLike<unknown> {
    return {
      onAdd: (obj) => this.#enqueue(feed, false, obj),
      onUpdate: (oldObj, newObj) => {
        if (!this.#passes(feed, oldObj, newObj)) return;
        if (oldObj === newObj) this.#enqueue(feed, false, newObj);
        else this.#enqueue(feed, false, newObj, oldObj);
      },
      onDelete: (obj) => this.#enqueue(feed, true, obj),
    };
  }

  async #main(): Promise<void> {
    const stopTaking = this.#stopTaking.signal;
    // Informers this controller started, with the promises their start returned.
    const started: { informer: InformerLike<unknown>; running: Promise<void> }[] = [];
    // The informers run as long as reconciles may (through the grace period), so in-flight
    // reconciles read live caches.
    const informersStop = this.#abortWork;
    try {
      for (const feed of this.#feeds) {
        this.#registrations.push(feed.informer.addEventHandler(this.#handlerFor(feed)));
      }
      if (this.#startInformers && !stopTaking.aborted) {
        for (const informer of new Set(this.#feeds.map((f) => f.informer))) {
          const result = informer.start?.({ signal: informersStop.signal });
          const running = result === undefined
            ? Promise.resolve()
            : Promise.resolve(result).then(undefined, (error: unknown) => {
              if (!isAbortError(error, informersStop.signal)) this.#fail(error);
            });
          started.push({ informer, running });
        }
      }
      try {
        const wait = { clock: this.#clock, pollMs: this.#pollMs, signal: stopTaking };
        await Promise.all(
          this.#registrations.map((r, i) => waitUntilSynced(r, this.#feeds[i]!.informer, wait)),
        );
        this.#synced = true;
        this.#life.waiters.wake();
      } catch (error) {
        if (!isAbortError(error, stopTaking)) throw error;
      }
      if (!stopTaking.aborted) await this.#work();
    } catch (error) {
      this.#fail(error);
    } finally {
      this.#life.stop();
      this.#beginStop(new Error("controller stopped"), 0);
      for (const registration of this.#registrations) {
        try {
          await registration.remove();
        } catch (error) {
          this.#failure ??= { error };
        }
      }
      await this.#queue.stop();
      informersStop.abort(new Error("controller stopped"));
      for (const { informer, running } of started) {
        await running;
        try {
          await informer.stop?.();
        } catch (error) {
          this.#failure ??= { error };
        }
      }
      this.#unlinkStart?.();
      this.#life.stopped();
      this.#markStopped();
    }
  }

  /** Runs the workers (and the election or the group) until the controller stops. */
  async #work(): Promise<void> {
    this.#life.started();
    // The election (or the group) runs until every reconcile has finished, so the lease is
    // released only after the work it guards.
    const gateStop = new AbortController();
    const gateRun = this.#gate?.run(gateStop.signal, { start: this.#startCoordination })
      .then(undefined, (error: unknown) => this.#fail(error));
    try {
      this.#hook("onStart", this.#workers);
      this.#hook("onActiveWorkers", 0);
      await Promise.all(
        Array.from(
          { length: this.#workers },
          () => this.#worker().then(undefined, (error: unknown) => this.#fail(error)),
        ),
      );
    } finally {
      gateStop.abort(new Error("controller stopped"));
      await gateRun;
    }
  }

  async #worker(): Promise<void> {
    const stopTaking = this.#stopTaking.signal;
    const queue = this.#queue;
    while (!stopTaking.aborted) {
      let key: string;
      try {
        const next = await queue.get({ signal: stopTaking });
        if (next.shutdown) return;
        key = next.item;
      } catch (error) {
        if (isAbortError(error, stopTaking)) return;
        throw error;
      }
      const permit = this.#gate?.enter(key);
      if (this.#gate !== undefined && permit === undefined) {
        // Not ours (any more): whoever owns it now reconciles it.
        queue.forget(key);
        queue.done(key);
        continue;
      }
      this.#active++;
      this.#hook("onActiveWorkers", this.#active);
      try {
        await this.#reconcileOnce(key, permit);
      } finally {
        permit?.exit();
        queue.done(key);
        this.#active--;
        this.#hook("onActiveWorkers", this.#active);
      }
    }
  }

  async #reconcileOnce(key: string, permit: KeyPermit | undefined): Promise<void> {
    const queue = this.#queue;
    const started = this.#clock.now();
    const outcome = (o: ReconcileOutcome): void =>
      this.#hook("onReconcile", o, Math.max(0, this.#clock.now() - started));
    // ctx.signal aborts when the work is abandoned, or when ownership of the key ends.
    const link = linkedController(this.#abortWork.signal);
    const stopListening = onAbort(
      permit?.signal,
      () => link.controller.abort(permit!.signal.reason),
    );
    const signal = link.controller.signal;
    let result: ReconcileResult | void;
    try {
      const ctx: ReconcileContext = { signal, numRequeues: queue.numRequeues(key) };
      if (this.#tracer !== undefined) ctx.trace = this.#tracer();
      result = await this.#reconcile(key, ctx);
    } catch (error) {
      outcome("error");
      if (isAbortError(error, signal)) return;
      const retryInMs = queue.addRateLimited(key);
      this.#report(error, {
        phase: "reconcile",
        key,
        action: "retrying the key with backoff",
        retryInMs,
      });
      return;
    } finally {
      stopListening();
      link.release();
    }
    const r = typeof result === "object" && result !== null ? result : undefined;
    const after = r?.requeueAfterMs;
    if (after === undefined || after === 0) {
      if (after === 0 || r?.requeue === true) {
        // As controller-runtime's Requeue: true: through the rate limiter, never hot.
        outcome("requeue");
        queue.addRateLimited(key);
        return;
      }
      outcome("success");
      queue.forget(key);
      return;
    }
    if (typeof after !== "number" || !(after >= 0) || !Number.isFinite(after)) {
      outcome("error");
      const retryInMs = queue.addRateLimited(key);
      this.#report(
        new RangeError(
          `reconcile returned requeueAfterMs ${
            describeValue(after)
          }; expected a finite number >= 0`,
        ),
        { phase: "reconcile", key, action: "retrying the key with backoff", retryInMs },
      );
      return;
    }
    outcome("requeue_after");
    queue.forget(key);
    queue.addAfter(key, after);
  }
}
