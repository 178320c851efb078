/**
 * Rate limiters decide how long an item waits before it is retried: per-item exponential
 * backoff, an overall token bucket, and the maximum of several.
 * @module
 */
import { type Clock, systemClock } from "../util/clock.ts";
import { checkClock, checkNumber, checkOptionsObject } from "../util/validate.ts";
import { describeValue } from "../util/values.ts";

/**
 * Decides the delay before an item is retried.
 *
 * @example
 * ```ts
 * import type { RateLimiter } from "@kinformer/kinformer/queue";
 * import assert from "node:assert/strict";
 * // A limiter that always waits one second.
 * const fixed: RateLimiter<string> = {
 *   when: () => 1_000,
 *   forget: () => {},
 *   numRequeues: () => 0,
 * };
 * assert.equal(fixed.when("default/web"), 1_000);
 * ```
 */
export interface RateLimiter<T> {
  /** Records one more retry of `item` and returns how long to wait first, in milliseconds. */
  when(item: T): number;
  /** Stops tracking `item` (it succeeded); its next failure starts from scratch. */
  forget(item: T): void;
  /** How many times `item` has been retried since it was last forgotten. */
  numRequeues(item: T): number;
}

/** Options of {@linkcode ItemExponentialFailureRateLimiter}. */
export interface ItemExponentialFailureRateLimiterOptions {
  /**
   * Delay after the first failure, in milliseconds; each further failure doubles it.
   * @default 5
   */
  baseDelayMs?: number;
  /**
   * Largest delay returned, in milliseconds.
   * @default 1_000_000
   */
  maxDelayMs?: number;
}

/**
 * Per-item exponential backoff: the n-th consecutive failure of an item (counting from 0)
 * waits `baseDelayMs * 2^n`, capped at `maxDelayMs`: 5, 10, 20, 40 ms ... up to 1000 s.
 *
 * @example
 * ```ts
 * import { ItemExponentialFailureRateLimiter } from "@kinformer/kinformer/queue";
 * import assert from "node:assert/strict";
 * const limiter = new ItemExponentialFailureRateLimiter<string>();
 * assert.deepEqual([limiter.when("a"), limiter.when("a"), limiter.when("a")], [5, 10, 20]);
 * assert.equal(limiter.numRequeues("a"), 3);
 * limiter.forget("a");
 * assert.equal(limiter.when("a"), 5);
 * ```
 */
export class ItemExponentialFailureRateLimiter<T> implements RateLimiter<T> {
  readonly #baseDelayMs: number;
  readonly #maxDelayMs: number;
  readonly #failures = new Map<T, number>();

  /** Creates a limiter that tracks no item yet. */
  constructor(options: ItemExponentialFailureRateLimiterOptions = {}) {
    checkOptionsObject(options, "ItemExponentialFailureRateLimiter");
    checkNumber(options.baseDelayMs, "baseDelayMs", { min: 0 });
    checkNumber(options.maxDelayMs, "maxDelayMs", { min: 0 });
    this.#baseDelayMs = options.baseDelayMs ?? 5;
    this.#maxDelayMs = options.maxDelayMs ?? 1_000_000;
  }

  /** Returns the delay for this failure of `item` and counts it. */
  when(item: T): number {
    const failures = this.#failures.get(item) ?? 0;
    this.#failures.set(item, failures + 1);
    // 2 ** n reaches Infinity for large n; the cap keeps the result finite.
    return Math.min(this.#maxDelayMs, this.#baseDelayMs * 2 ** failures);
  }

  /** Forgets the failures of `item`. */
  forget(item: T): void {
    this.#failures.delete(item);
  }

  /** Failures of `item` since it was last forgotten. */
  numRequeues(item: T): number {
    return this.#failures.get(item) ?? 0;
  }
}

/** Options of {@linkcode BucketRateLimiter}. */
export interface BucketRateLimiterOptions {
  /**
   * Tokens added per second (the sustained retry rate over all items). `Infinity` disables
   * the limit.
   * @default 10
   */
  qps?: number;
  /**
   * Size of the bucket, which starts full: this many retries go through at once.
   * @default 100
   */
  burst?: number;
  /**
   * Time source.
   * @default the system clock (`Date.now` and the global timers)
   */
  clock?: Clock;
}

/**
 * An overall token bucket shared by all items: each call of `when` reserves one token and
 * returns how long until that token exists. The bucket holds `burst` tokens and refills at
 * `qps` tokens per second, so with the defaults the first 100 retries go at once and later
 * ones are spaced 100 ms apart. Items are not tracked: `numRequeues` is always 0.
 *
 * @example
 * ```ts
 * import { BucketRateLimiter } from "@kinformer/kinformer/queue";
 * import { ManualClock } from "@kinformer/kinformer/testing";
 * import assert from "node:assert/strict";
 * const clock = new ManualClock();
 * const limiter = new BucketRateLimiter<string>({ qps: 1, burst: 1, clock });
 * assert.equal(limiter.when("a"), 0); // the bucket starts full
 * assert.equal(limiter.when("b"), 1_000); // the next token is one second away
 * ```
 */
export class BucketRateLimiter<T> implements RateLimiter<T> {
  readonly #qps: number;
  readonly #burst: number;
  readonly #clock: Clock;
  /** Tokens at #updatedAt; negative when tokens are reserved ahead of time. */
  #tokens: number;
  #updatedAt: number;

  /** Creates a limiter with a full bucket. */
  constructor(options: BucketRateLimiterOptions = {}) {
    checkOptionsObject(options, "BucketRateLimiter");
    checkNumber(options.qps, "qps", { min: 0, minExclusive: true, allowInfinity: true });
    checkNumber(options.burst, "burst", { min: 1, integer: true });
    checkClock(options.clock, "clock");
    this.#qps = options.qps ?? 10;
    this.#burst = options.burst ?? 100;
    this.#clock = options.clock ?? systemClock;
    this.#tokens = this.#burst;
    this.#updatedAt = this.#clock.now();
  }

  /** Reserves one token and returns the milliseconds until it is available (0 if now). */
  when(_item: T): number {
    if (this.#qps === Infinity) return 0;
    const now = this.#clock.now();
    const elapsedMs = Math.max(0, now - this.#updatedAt);
    this.#tokens = Math.min(this.#burst, this.#tokens + (elapsedMs * this.#qps) / 1000);
    this.#updatedAt = Math.max(now, this.#updatedAt);
    this.#tokens -= 1;
    return this.#tokens >= 0 ? 0 : (-this.#tokens * 1000) / this.#qps;
  }

  /** Does nothing: the bucket does not track items. */
  forget(_item: T): void {}

  /** Always 0: the bucket does not track items. */
  numRequeues(_item: T): number {
    return 0;
  }
}

/**
 * Combines limiters: `when` asks every one (each records the retry) and returns the longest
 * delay; `numRequeues` is the largest count; `forget` forgets in all of them.
 *
 * @example
 * ```ts
 * import {
 *   BucketRateLimiter,
 *   ItemExponentialFailureRateLimiter,
 *   MaxOfRateLimiter,
 * } from "@kinformer/kinformer/queue";
 * import assert from "node:assert/strict";
 * const limiter = new MaxOfRateLimiter<string>(
 *   new ItemExponentialFailureRateLimiter({ baseDelayMs: 50 }),
 *   new BucketRateLimiter({ qps: 100, burst: 10 }),
 * );
 * assert.equal(limiter.when("a"), 50); // the per-item backoff is the longer delay here
 * ```
 */
export class MaxOfRateLimiter<T> implements RateLimiter<T> {
  readonly #limiters: readonly RateLimiter<T>[];

  /** Combines one or more limiters. Throws `RangeError` when given none. */
  constructor(...limiters: RateLimiter<T>[]) {
    if (limiters.length === 0) {
      throw new RangeError("MaxOfRateLimiter needs at least one limiter, got 0");
    }
    limiters.forEach((limiter, i) => checkRateLimiter(limiter, `limiters[${i}]`));
    this.#limiters = [...limiters];
  }

  /** The longest delay any limiter asks for. */
  when(item: T): number {
    let delay = 0;
    for (const limiter of this.#limiters) delay = Math.max(delay, limiter.when(item));
    return delay;
  }

  /** Forgets `item` in every limiter. */
  forget(item: T): void {
    for (const limiter of this.#limiters) limiter.forget(item);
  }

  /** The largest retry count any limiter reports. */
  numRequeues(item: T): number {
    let n = 0;
    for (const limiter of this.#limiters) n = Math.max(n, limiter.numRequeues(item));
    return n;
  }
}

/**
 * The limiter controllers use by default, as in client-go: the maximum of per-item
 * exponential backoff (5 ms doubling to 1000 s) and an overall token bucket (10 qps, burst
 * 100) on `clock`.
 *
 * @example
 * ```ts
 * import { defaultControllerRateLimiter } from "@kinformer/kinformer/queue";
 * import assert from "node:assert/strict";
 * const limiter = defaultControllerRateLimiter<string>();
 * assert.equal(limiter.when("default/web"), 5);
 * assert.equal(limiter.when("default/web"), 10);
 * ```
 */
export function defaultControllerRateLimiter<T>(clock: Clock = systemClock): RateLimiter<T> {
  checkClock(clock, "clock");
  return new MaxOfRateLimiter<T>(
    new ItemExponentialFailureRateLimiter<T>({ baseDelayMs: 5, maxDelayMs: 1_000_000 }),
    new BucketRateLimiter<T>({ qps: 10, burst: 100, clock }),
  );
}

/** Throws unless `value` has the methods of a `RateLimiter`. */
export function checkRateLimiter(value: unknown, option: string): void {
  const l = value as { when?: unknown; forget?: unknown; numRequeues?: unknown } | null;
  if (
    typeof l !== "object" || l === null || typeof l.when !== "function" ||
    typeof l.forget !== "function" || typeof l.numRequeues !== "function"
  ) {
    throw new TypeError(
      `${option} must be a RateLimiter with when(), forget() and numRequeues(), got ${
        describeValue(value)
      }`,
    );
  }
}
