/**
 * Jittered exponential backoff, kept outside the reflector so it can be injected and tested.
 * @module
 */
import type { Clock } from "./clock.ts";
import { checkFunction, checkNumber } from "./validate.ts";
import { describeValue } from "./values.ts";

/** Options of {@linkcode exponentialBackoff}; defaults are client-go's reflector numbers. */
export interface BackoffOptions {
  /** First delay before jitter, in ms. @default 800 */
  initialMs?: number;
  /** Growth factor per failure. @default 2 */
  factor?: number;
  /** Largest delay before jitter, in ms. @default 30000 */
  maxMs?: number;
  /**
   * Jitter: `"full"` picks uniformly in [0, delay], `"none"` uses the delay as is, a number
   * `j >= 0` picks uniformly in [delay, delay * (1 + j)). client-go's reflector uses 1.
   * @default 1
   */
  jitter?: "full" | "none" | number;
  /**
   * After this long without a failure, the next delay starts again from `initialMs`
   * (`Infinity`: never). @default 120000
   */
  resetAfterMs?: number;
  /** Random source in [0, 1). @default Math.random */
  random?: () => number;
}

/**
 * A source of delays: `next()` after each failure, `reset()` after a success.
 */
export interface Backoff {
  /** The delay in ms before the next attempt; grows with each call. */
  next(): number;
  /** Starts again from the initial delay. */
  reset(): void;
}

/**
 * Exponential backoff with jitter and automatic reset after a quiet period. The delay grows
 * before jitter is applied, so jitter never compounds. Throws a `TypeError` or `RangeError`
 * for an invalid option.
 */
export function exponentialBackoff(clock: Clock, options: BackoffOptions = {}): Backoff {
  const initialMs = options.initialMs ?? 800;
  const factor = options.factor ?? 2;
  const maxMs = options.maxMs ?? 30_000;
  const jitter = options.jitter ?? 1;
  const resetAfterMs = options.resetAfterMs ?? 120_000;
  const random = options.random ?? Math.random;
  checkNumber(initialMs, "backoff.initialMs", { min: 0 });
  checkNumber(factor, "backoff.factor", { min: 1 });
  checkNumber(maxMs, "backoff.maxMs", { min: 0 });
  if (maxMs < initialMs) {
    throw new RangeError(`backoff.maxMs must be >= initialMs (${initialMs}), got ${maxMs}`);
  }
  checkNumber(resetAfterMs, "backoff.resetAfterMs", { min: 0, allowInfinity: true });
  if (jitter !== "full" && jitter !== "none") {
    if (typeof jitter !== "number") {
      throw new TypeError(
        `backoff.jitter must be "full", "none" or a number, got ${describeValue(jitter)}`,
      );
    }
    checkNumber(jitter, "backoff.jitter", { min: 0 });
  }
  checkFunction(random, "backoff.random");
  let current = initialMs;
  let lastFailure = -Infinity;
  return {
    next(): number {
      const now = clock.now();
      if (now - lastFailure >= resetAfterMs) current = initialMs;
      lastFailure = now;
      const base = current;
      current = Math.min(maxMs, current * factor);
      if (jitter === "none") return base;
      if (jitter === "full") return Math.floor(random() * base);
      return Math.floor(base * (1 + random() * jitter));
    },
    reset(): void {
      current = initialMs;
      lastFailure = -Infinity;
    },
  };
}
