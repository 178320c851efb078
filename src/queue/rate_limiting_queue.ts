/**
 * The queue a controller uses: a delaying work queue that retries failed items after a delay
 * chosen by a {@linkcode RateLimiter}.
 * @module
 */
import { systemClock } from "../util/clock.ts";
import { DelayingQueue, type DelayingQueueOptions } from "./delaying_queue.ts";
import {
  checkRateLimiter,
  defaultControllerRateLimiter,
  type RateLimiter,
} from "./rate_limiter.ts";

/** Options of {@linkcode RateLimitingQueue}. */
export interface RateLimitingQueueOptions<T> extends DelayingQueueOptions<T> {
  /**
   * Chooses the delay of `addRateLimited`.
   * @default defaultControllerRateLimiter(clock)
   */
  rateLimiter?: RateLimiter<T>;
}

/**
 * A {@linkcode DelayingQueue} whose `addRateLimited(item)` waits as long as its rate limiter
 * says; `forget(item)` resets the item's backoff once it has been processed successfully.
 *
 * @example
 * ```ts
 * import { RateLimitingQueue } from "@kinformer/kinformer/queue";
 * const queue = new RateLimitingQueue<string>({ name: "pods" });
 * queue.add("default/web");
 * const next = await queue.get();
 * if (!next.shutdown) {
 *   try {
 *     // ... reconcile next.item ...
 *     queue.forget(next.item);
 *   } catch {
 *     queue.addRateLimited(next.item); // retried after 5 ms (returned), then 10 ms, 20 ms ...
 *   } finally {
 *     queue.done(next.item);
 *   }
 * }
 * await queue.stop();
 * ```
 */
export class RateLimitingQueue<T> extends DelayingQueue<T> {
  readonly #limiter: RateLimiter<T>;

  /** Creates an empty queue. */
  constructor(options: RateLimitingQueueOptions<T> = {}) {
    super(options);
    if (options.rateLimiter !== undefined) checkRateLimiter(options.rateLimiter, "rateLimiter");
    this.#limiter = options.rateLimiter ??
      defaultControllerRateLimiter<T>(options.clock ?? systemClock);
  }

  /**
   * Adds `item` after the delay the rate limiter chooses (which counts one more retry) and
   * returns that delay in ms, so that a report can say when the item is tried again;
   * `undefined` once the queue is shutting down (nothing is added).
   */
  addRateLimited(item: T): number | undefined {
    if (this.shuttingDown) return undefined;
    const delayMs = this.#limiter.when(item);
    this.addAfter(item, delayMs);
    return delayMs;
  }

  /** Resets the rate limiter's memory of `item`; call it when the item succeeded. */
  forget(item: T): void {
    this.#limiter.forget(item);
  }

  /** How many times `item` has been rate-limited since it was last forgotten. */
  numRequeues(item: T): number {
    return this.#limiter.numRequeues(item);
  }
}
