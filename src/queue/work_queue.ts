/**
 * The work queue behind every controller: deduplicating, first-in first-out, and never
 * handing one item to two workers at once.
 * @module
 */
import { onAbort } from "../util/abort.ts";
import { type Clock, systemClock } from "../util/clock.ts";
import { RingBuffer } from "../util/ring_buffer.ts";
import type { OnError } from "../util/error_context.ts";
import { ErrorReporter } from "../util/error_reporter.ts";
import { Lifecycle, type LifecycleState } from "../util/lifecycle.ts";
import { Waiters } from "../util/wait_for.ts";
import { checkClock, checkFunction, checkOptionsObject, checkString } from "../util/validate.ts";

/**
 * Callbacks a queue calls as items move through it, for feeding a metrics system without a
 * dependency. They run synchronously after the queue's state is updated; an error thrown by
 * one goes to the queue's `onError` (phase `callback`, `detail` the hook's name) and never
 * leaves the queue half-updated.
 *
 * @example
 * ```ts
 * import { WorkQueue } from "@kinformer/kinformer/queue";
 * import assert from "node:assert/strict";
 * const latencies: number[] = [];
 * const queue = new WorkQueue<string>({ metrics: { onGet: (ms) => latencies.push(ms) } });
 * queue.add("default/web");
 * const next = await queue.get();
 * if (!next.shutdown) queue.done(next.item);
 * assert.equal(latencies.length, 1); // one get, one wait time in ms
 * ```
 */
export interface WorkQueueMetricsHooks<T> {
  /** An item became pending (a duplicate of a pending item does not count). */
  onAdd?(item: T): void;
  /** A worker took `item`, `latencyMs` after it became pending. */
  onGet?(latencyMs: number, item: T): void;
  /** A worker finished `item`, `durationMs` after taking it. */
  onDone?(durationMs: number, item: T): void;
  /** An item was scheduled again through `addAfter` (delaying and rate-limiting queues). */
  onRetry?(item: T): void;
}

/** Options of {@linkcode WorkQueue}. */
export interface WorkQueueOptions<T> {
  /**
   * Name reported in {@linkcode WorkQueueMetrics.name}.
   * @default ""
   */
  name?: string;
  /**
   * Time source for queue latency and work duration.
   * @default the system clock (`Date.now` and the global timers)
   */
  clock?: Clock;
  /**
   * Callbacks for a metrics system.
   * @default undefined
   */
  metrics?: WorkQueueMetricsHooks<T>;
  /**
   * Told when a `metrics` hook throws (the queue goes on): the context's `phase` is
   * `callback`, its `detail` the hook's name (`onAdd`, `onGet`, `onDone`, `onRetry`). If
   * `onError` throws too, that error is rethrown on a microtask (reported as uncaught, like a
   * throwing event listener).
   * @default prints as every long-running object does: the first error at once (`work queue
   * pods (onAdd): callback threw: ...; going on`), then at most one line a minute
   */
  onError?: OnError | undefined;
}

/** Options of {@linkcode WorkQueue.get} and {@linkcode WorkQueue.items}. */
export interface WorkQueueGetOptions {
  /**
   * Stops waiting: the returned promise rejects with the signal's reason.
   * @default undefined
   */
  signal?: AbortSignal;
}

/** Options of {@linkcode WorkQueue.stop}. */
export interface WorkQueueStopOptions {
  /**
   * Also wait until every in-flight item has been marked `done` (items still queued are not
   * waited for).
   * @default false
   */
  drain?: boolean;
  /**
   * Stops waiting for in-flight items (the queue stays stopped); the promise rejects with the
   * signal's reason.
   * @default undefined
   */
  signal?: AbortSignal;
}

/**
 * What {@linkcode WorkQueue.get} resolves to: the next item, or `shutdown: true` once the
 * queue is shut down and has nothing left to hand out.
 */
export type WorkQueueGetResult<T> =
  | { readonly shutdown: false; readonly item: T }
  | { readonly shutdown: true };

/** Count, sum and maximum of a series of durations in milliseconds. */
export interface DurationSummary {
  /** Number of observations. */
  count: number;
  /** Sum of all observations, in milliseconds. */
  totalMs: number;
  /** Largest observation, in milliseconds (0 before the first). */
  maxMs: number;
}

/** A snapshot of a queue's counters, from {@linkcode WorkQueue.metrics}. */
export interface WorkQueueMetrics {
  /** The queue's `name` option. */
  name: string;
  /** Items ready to be taken (the queue's length). */
  depth: number;
  /** Items taken by a worker and not yet `done`. */
  inFlight: number;
  /** Items that became pending since the queue was created. */
  adds: number;
  /** Time from an item becoming pending to a worker taking it. */
  queueLatency: DurationSummary;
  /** Time from a worker taking an item to calling `done`. */
  workDuration: DurationSummary;
  /** Sum over in-flight items of the time since they were taken, in milliseconds. */
  unfinishedWorkMs: number;
  /** Time the longest-running in-flight item has been processed, in milliseconds (0 if none). */
  longestRunningProcessorMs: number;
}

/**
 * Calls the `onRetry` hook of `queue` as the queue calls its own hooks (a throw goes to its
 * `onError`); for {@linkcode DelayingQueue}. Internal: not exported from the module.
 */
export let emitRetry: <T>(queue: WorkQueue<T>, item: T) => void;

interface Waiter<T> {
  resolve(result: WorkQueueGetResult<T>): void;
  release(): void;
}

const SHUT_DOWN: WorkQueueGetResult<never> = Object.freeze({ shutdown: true });

function summary(): DurationSummary {
  return { count: 0, totalMs: 0, maxMs: 0 };
}

function observe(s: DurationSummary, ms: number): void {
  s.count++;
  s.totalMs += ms;
  if (ms > s.maxMs) s.maxMs = ms;
}

/**
 * A first-in first-out queue of work items with client-go semantics:
 *
 * - an item is pending at most once: adding it again before a worker takes it does nothing;
 * - an item taken by a worker is not handed to another worker until `done(item)`; if it is
 *   added meanwhile, it is queued again once, when `done` is called;
 * - items are compared by identity (`SameValueZero`), so use string keys such as
 *   `"namespace/name"`;
 * - `add` and `get` are O(1).
 *
 * After `stop()`, `add` is ignored, pending items can still be taken, and `get` resolves
 * `{ shutdown: true }` once nothing is left; `stop({ drain: true })` also waits for the items
 * workers hold. A queue has no background work, so it has no `start`: its
 * {@linkcode WorkQueue.state} is `running` from the start, `stopping` after `stop()` while
 * items are left or held, `stopped` once it is stopped, empty and nothing is in flight.
 *
 * @example
 * ```ts
 * import { WorkQueue } from "@kinformer/kinformer/queue";
 * import assert from "node:assert/strict";
 * const queue = new WorkQueue<string>();
 * queue.add("default/web");
 * queue.add("default/web"); // deduplicated
 * queue.add("default/db");
 * await queue.stop();
 * const reconciled: string[] = [];
 * for await (const key of queue) {
 *   reconciled.push(key); // your reconcile(key) here
 *   queue.done(key);
 * }
 * assert.deepEqual(reconciled, ["default/web", "default/db"]);
 * ```
 */
export class WorkQueue<T> implements AsyncIterable<T>, AsyncDisposable {
  static {
    emitRetry = (queue, item) => queue.#emit("onRetry", item);
  }
  readonly #name: string;
  readonly #clock: Clock;
  readonly #hooks: WorkQueueMetricsHooks<T> | undefined;
  /** The one reporting path: `onError`, or the default printing. */
  readonly #reporter: ErrorReporter;
  /** running from creation; stopping after `stop()`; stopped once empty with nothing held. */
  readonly #life: Lifecycle;
  /** Items ready to be taken, in order. Every one is also in #dirty and not in #processing. */
  readonly #queue = new RingBuffer<T>();
  /** Items that need processing, with the time each became pending. */
  readonly #dirty = new Map<T, number>();
  /** Items taken by a worker, with the time each was taken (insertion order = oldest first). */
  readonly #processing = new Map<T, number>();
  /** Pending `get` calls, oldest first. Non-empty only while #queue is empty. */
  readonly #waiters = new Set<Waiter<T>>();
  /** Pending `stop({ drain: true })` calls. */
  readonly #drainWaiters = new Waiters();
  #adds = 0;
  readonly #latency = summary();
  readonly #work = summary();

  /** Creates an empty queue. */
  constructor(options: WorkQueueOptions<T> = {}) {
    checkOptionsObject(options, "WorkQueue");
    checkString(options.name, "name");
    checkClock(options.clock, "clock");
    const hooks = options.metrics;
    checkOptionsObject(hooks, "metrics");
    if (hooks !== undefined) {
      checkFunction(hooks.onAdd, "metrics.onAdd");
      checkFunction(hooks.onGet, "metrics.onGet");
      checkFunction(hooks.onDone, "metrics.onDone");
      checkFunction(hooks.onRetry, "metrics.onRetry");
    }
    checkFunction(options.onError, "onError");
    this.#name = options.name ?? "";
    this.#clock = options.clock ?? systemClock;
    this.#hooks = hooks;
    this.#reporter = new ErrorReporter({
      source: this.#name === "" ? "work queue" : `work queue ${this.#name}`,
      onError: options.onError,
      clock: this.#clock,
    });
    this.#life = new Lifecycle("work queue", { restartable: false });
    this.#life.start();
    this.#life.started();
  }

  /** Number of items ready to be taken (not counting in-flight items). */
  get len(): number {
    return this.#queue.length;
  }

  /** `true` once `stop` has been called. */
  get shuttingDown(): boolean {
    return !this.#life.active;
  }

  /**
   * `running`, then `stopping` from `stop()` while items are queued or held, then `stopped`
   * once nothing is left (the one vocabulary of every `health().state`).
   */
  get state(): LifecycleState {
    return this.#life.state;
  }

  /**
   * Marks `item` as needing processing. Does nothing if it is already pending or the queue is
   * shutting down; if a worker holds it, it is queued again when that worker calls `done`.
   */
  add(item: T): void {
    if (!this.#life.active || this.#dirty.has(item)) return;
    this.#dirty.set(item, this.#clock.now());
    this.#adds++;
    this.#emit("onAdd", item);
    if (this.#processing.has(item)) return;
    this.#queue.push(item);
    this.#dispatch();
  }

  /**
   * Takes the next item, waiting until one is ready. Resolves `{ shutdown: false, item }`, or
   * `{ shutdown: true }` once the queue is shut down and empty. The caller owns the item until
   * it calls {@linkcode WorkQueue.done}. Rejects with the signal's reason when it aborts.
   */
  get(options: WorkQueueGetOptions = {}): Promise<WorkQueueGetResult<T>> {
    const { signal } = options;
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (this.#queue.length > 0) return Promise.resolve({ shutdown: false, item: this.#take() });
    if (!this.#life.active) return Promise.resolve(SHUT_DOWN);
    return new Promise<WorkQueueGetResult<T>>((resolve, reject) => {
      let stopListening = (): void => {};
      const waiter: Waiter<T> = { resolve, release: () => stopListening() };
      this.#waiters.add(waiter);
      stopListening = onAbort(signal, () => {
        this.#waiters.delete(waiter);
        reject(signal?.reason);
      });
    });
  }

  /**
   * Marks `item` as processed. If it was added while being processed it becomes ready again.
   * Calling `done` for an item no worker holds does nothing.
   */
  done(item: T): void {
    const takenAt = this.#processing.get(item);
    if (takenAt === undefined) return;
    this.#processing.delete(item);
    const durationMs = Math.max(0, this.#clock.now() - takenAt);
    observe(this.#work, durationMs);
    if (this.#dirty.has(item)) {
      this.#queue.push(item);
      this.#dispatch();
    }
    if (this.#processing.size === 0) this.#drainWaiters.wake();
    this.#settle();
    this.#emit("onDone", durationMs, item);
  }

  /**
   * Stops accepting items: `add` is ignored from now on, pending `get` calls resolve
   * `{ shutdown: true }`, items already queued can still be taken. Resolves at once, or with
   * `drain: true` once every in-flight item has been marked `done` (rejecting with the
   * signal's reason when it aborts first; the queue stays stopped). Idempotent.
   */
  stop(options: WorkQueueStopOptions = {}): Promise<void> {
    const { drain = false, signal } = options;
    if (this.#life.stop()) {
      // Waiters exist only while the queue is empty, so each one is told the queue is done.
      for (const waiter of this.#waiters) {
        waiter.release();
        waiter.resolve(SHUT_DOWN);
      }
      this.#waiters.clear();
      this.#settle();
    }
    if (!drain) return Promise.resolve();
    return this.#drainWaiters.wait(() => this.#processing.size === 0 ? "done" : "pending", {
      failure: () => undefined,
      signal,
    });
  }

  /**
   * Iterates over items as they become ready until the queue is shut down and empty. The
   * consumer still calls {@linkcode WorkQueue.done} for each item. Throws the signal's reason
   * when it aborts.
   */
  async *items(options: WorkQueueGetOptions = {}): AsyncGenerator<T, void, undefined> {
    for (;;) {
      const next = await this.get(options);
      if (next.shutdown) return;
      yield next.item;
    }
  }

  /** Same as {@linkcode WorkQueue.items} without a signal. */
  [Symbol.asyncIterator](): AsyncGenerator<T, void, undefined> {
    return this.items();
  }

  /** Counters and gauges at this moment; a fresh plain object on every call. */
  metrics(): WorkQueueMetrics {
    const now = this.#clock.now();
    let unfinishedWorkMs = 0;
    let longestRunningProcessorMs = 0;
    for (const takenAt of this.#processing.values()) {
      const ms = Math.max(0, now - takenAt);
      unfinishedWorkMs += ms;
      if (ms > longestRunningProcessorMs) longestRunningProcessorMs = ms;
    }
    return {
      name: this.#name,
      depth: this.#queue.length,
      inFlight: this.#processing.size,
      adds: this.#adds,
      queueLatency: { ...this.#latency },
      workDuration: { ...this.#work },
      unfinishedWorkMs,
      longestRunningProcessorMs,
    };
  }

  /** `stop({ drain: true })`, for `await using`. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.stop({ drain: true });
  }

  /** Calls a metrics hook; a throwing hook is reported without disturbing the queue. */
  #emit<K extends keyof WorkQueueMetricsHooks<T>>(
    hook: K,
    ...args: Parameters<NonNullable<WorkQueueMetricsHooks<T>[K]>>
  ): void {
    const fn = this.#hooks?.[hook] as ((...a: typeof args) => void) | undefined;
    if (fn === undefined) return;
    try {
      fn.apply(this.#hooks, args);
    } catch (error) {
      this.#reporter.report(error, { phase: "callback", detail: hook, action: "going on" });
    }
  }

  /** A stopping queue with nothing queued or held is stopped. */
  #settle(): void {
    if (
      this.#life.state === "stopping" && this.#queue.length === 0 && this.#processing.size === 0
    ) {
      this.#life.stopped();
    }
  }

  /** Hands ready items to waiting `get` calls, oldest first. */
  #dispatch(): void {
    for (const waiter of this.#waiters) {
      if (this.#queue.length === 0) return;
      this.#waiters.delete(waiter);
      waiter.release();
      waiter.resolve({ shutdown: false, item: this.#take() });
    }
  }

  /** Moves the front item from ready to in-flight; the queue must not be empty. */
  #take(): T {
    const item = this.#queue.shift() as T;
    const now = this.#clock.now();
    const latencyMs = Math.max(0, now - (this.#dirty.get(item) ?? now));
    this.#dirty.delete(item);
    this.#processing.set(item, now);
    observe(this.#latency, latencyMs);
    this.#emit("onGet", latencyMs, item);
    return item;
  }
}
