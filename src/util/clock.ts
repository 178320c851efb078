/**
 * Time source injected everywhere time matters, so tests can drive time by hand
 * (see `ManualClock` in `@kinformer/kinformer/testing`).
 * @module
 */
import { onAbort } from "./abort.ts";

/** Opaque handle returned by {@linkcode Clock.setTimeout}. */
export type TimerHandle = unknown;

/**
 * A source of time and timers.
 *
 * @example
 * ```ts
 * import { systemClock } from "@kinformer/kinformer/cache";
 * import assert from "node:assert/strict";
 * let fired = false;
 * const h = systemClock.setTimeout(() => (fired = true), 10);
 * systemClock.clearTimeout(h);
 * assert.equal(fired, false);
 * assert.ok(systemClock.now() > 0);
 * ```
 */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Calls `fn` once after `ms` milliseconds. */
  setTimeout(fn: () => void, ms: number): TimerHandle;
  /** Cancels a timer; unknown or fired handles are ignored. */
  clearTimeout(handle: TimerHandle): void;
}

/**
 * The real clock: `Date.now` and the global timers.
 *
 * @example
 * ```ts
 * import { systemClock } from "@kinformer/kinformer/cache";
 * import assert from "node:assert/strict";
 * const before = Date.now();
 * assert.ok(systemClock.now() >= before);
 * ```
 */
export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => globalThis.setTimeout(fn, timerDelay(ms)),
  clearTimeout: (h) => globalThis.clearTimeout(h as ReturnType<typeof globalThis.setTimeout>),
};

/** Options of {@linkcode sleep}. */
export interface SleepOptions {
  /** Time source. */
  clock: Clock;
  /** Rejects the sleep with its reason when it aborts. @default undefined */
  signal?: AbortSignal | undefined;
}

/**
 * Resolves after `ms` on `clock`, or rejects with the signal's reason when it aborts first.
 * The timer and the abort listener are always released. The one delay of the project.
 */
export function sleep(ms: number, { clock, signal }: SleepOptions): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const handle = clock.setTimeout(() => {
      release();
      resolve();
    }, ms);
    const release = onAbort(signal, () => {
      clock.clearTimeout(handle);
      reject(signal?.reason);
    });
  });
}

/** The longest delay `setTimeout` can hold (2^31-1 ms, about 24.8 days). */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * A delay `setTimeout` keeps as asked: a longer one overflows to about 1 ms in every runtime (a
 * hot loop when a server asks for a huge delay), NaN and negatives mean 0.
 */
export function timerDelay(ms: number): number {
  return ms > 0 ? Math.min(ms, MAX_TIMER_MS) : 0;
}
