/**
 * A work queue that can also add an item after a delay, with one timer for the whole queue.
 * @module
 */
import { type Clock, systemClock, timerDelay, type TimerHandle } from "../util/clock.ts";
import { _ReadyHeap } from "./_min_heap.ts";
import { checkNumber } from "../util/validate.ts";
import {
  emitRetry,
  WorkQueue,
  type WorkQueueMetrics,
  type WorkQueueOptions,
  type WorkQueueStopOptions,
} from "./work_queue.ts";

/** Options of {@linkcode DelayingQueue}: the same as {@linkcode WorkQueueOptions}. */
export type DelayingQueueOptions<T> = WorkQueueOptions<T>;

/** A snapshot of a delaying queue's counters, from {@linkcode DelayingQueue.metrics}. */
export interface DelayingQueueMetrics extends WorkQueueMetrics {
  /** Calls of `addAfter` (including `addRateLimited`) accepted since creation. */
  retries: number;
  /** Items waiting for their delay to pass. */
  delayed: number;
}

/**
 * A {@linkcode WorkQueue} with {@linkcode DelayingQueue.addAfter}. Waiting items sit in a
 * binary min-heap ordered by ready time; an item added again while waiting keeps the earlier
 * of its two ready times. The queue holds at most one clock timer, set for the earliest
 * waiting item, and clears it on `stop()`.
 *
 * @example
 * ```ts
 * import { DelayingQueue } from "@kinformer/kinformer/queue";
 * const queue = new DelayingQueue<string>();
 * queue.addAfter("default/web", 20);
 * const next = await queue.get(); // resolves about 20 ms later
 * if (!next.shutdown) queue.done(next.item);
 * await queue.stop();
 * ```
 */
export class DelayingQueue<T> extends WorkQueue<T> {
  readonly #clock: Clock;
  readonly #waiting = new _ReadyHeap<T>();
  #timer: TimerHandle | undefined;
  /** Time the current timer is set for; meaningful only while #timer is set. */
  #timerAt = 0;
  #retries = 0;

  /** Creates an empty queue. */
  constructor(options: DelayingQueueOptions<T> = {}) {
    super(options);
    this.#clock = options.clock ?? systemClock;
  }

  /** Number of items waiting for their delay to pass (not counted in `len`). */
  get delayedLen(): number {
    return this.#waiting.size;
  }

  /**
   * Adds `item` once `delayMs` milliseconds have passed; a delay of 0 or less adds it now.
   * If the item is already waiting, the earlier ready time wins. Ignored after shutdown.
   * Throws `RangeError` for a delay that is NaN or infinite.
   */
  addAfter(item: T, delayMs: number): void {
    checkNumber(delayMs, "delayMs");
    if (this.shuttingDown) return;
    this.#retries++;
    emitRetry(this, item);
    if (delayMs <= 0) {
      this.add(item);
      return;
    }
    if (this.#waiting.upsert(item, this.#clock.now() + delayMs)) this.#arm();
  }

  /** Stops like {@linkcode WorkQueue.stop}, dropping waiting items and the timer at once. */
  override stop(options: WorkQueueStopOptions = {}): Promise<void> {
    const stopped = super.stop(options);
    this.#waiting.clear();
    this.#disarm();
    return stopped;
  }

  /** Counters and gauges at this moment, including retries and waiting items. */
  override metrics(): DelayingQueueMetrics {
    return { ...super.metrics(), retries: this.#retries, delayed: this.#waiting.size };
  }

  /** Makes sure exactly one timer is set, for the earliest waiting item. */
  #arm(): void {
    const readyAt = this.#waiting.peekReadyAt();
    if (readyAt === undefined) {
      this.#disarm();
      return;
    }
    if (this.#timer !== undefined) {
      if (this.#timerAt <= readyAt) return;
      this.#disarm();
    }
    const delay = timerDelay(readyAt - this.#clock.now());
    this.#timerAt = this.#clock.now() + delay;
    this.#timer = this.#clock.setTimeout(() => this.#fire(), delay);
  }

  #disarm(): void {
    if (this.#timer === undefined) return;
    this.#clock.clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  /** Moves every item that is due into the queue, then sets the timer for the next one. */
  #fire(): void {
    this.#timer = undefined;
    const now = this.#clock.now();
    for (let due = this.#waiting.popDue(now); due !== undefined; due = this.#waiting.popDue(now)) {
      this.add(due.item);
    }
    this.#arm();
  }
}
