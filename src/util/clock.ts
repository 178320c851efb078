/**
 * Time source injected everywhere time matters, so tests can drive time by hand
 * (see `ManualClock` in `@kinformer/kinformer/testing`).
 * @module
 */
import { onAbort } from "./abort.ts";

/** Opaque handle returned by {@linkcode Clock.setTimeout}. */
export type TimerHandle = unknown;

/**
 * A source of time and timers: what the `clock` options take (the system clock, `Date.now`
 * and the global timers, when not given). `ManualClock` (`@kinformer/kinformer/testing`) is
 * one that tests move by hand.
 *
 * @example
 * ```ts
 * import type { Clock } from "@kinformer/kinformer/cache";
 * import { ManualClock } from "@kinformer/kinformer/testing";
 * import assert from "node:assert/strict";
 * const manual = new ManualClock(1_000);
 * const clock: Clock = manual;
 * let fired = false;
 * clock.setTimeout(() => (fired = true), 10);
 * await manual.advance(10);
 * assert.equal(fired, true);
 * assert.equal(clock.now(), 1_010);
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
