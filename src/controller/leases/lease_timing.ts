/**
 * Lease timings shared by the leader elector and the shard coordinator: client-go's defaults
 * and rules, their validation, and (internal) a request deadline helper.
 * @module
 */
import type { Clock } from "../../util/clock.ts";
import { linkedController } from "../../util/abort.ts";
import { checkNumber } from "../../util/validate.ts";
import { DeadlineError } from "./lease_errors.ts";

/**
 * Lease timings, in milliseconds: options of {@linkcode LeaderElector} and
 * {@linkcode ShardCoordinator}.
 *
 * @example
 * ```ts
 * import type { LeaseTimingOptions } from "@kinformer/kinformer/controller";
 * import assert from "node:assert/strict";
 * // client-go's defaults, spelled out
 * const timings: LeaseTimingOptions = { leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000, jitterFactor: 1.2 };
 * assert.ok(timings.renewDeadlineMs! < timings.leaseDurationMs!);
 * ```
 */
export interface LeaseTimingOptions {
  /**
   * How long others wait, after they last saw the lease change, before taking it over. Written
   * into the Lease as whole seconds, so it must be a multiple of 1000.
   * @default 15000
   */
  leaseDurationMs?: number | undefined;
  /**
   * How long a holder keeps acting after the start of its last successful renewal; it stops
   * then, even while a renewal is still in flight. Must be less than `leaseDurationMs`: the
   * difference is the safety margin for clock-rate differences between processes.
   * @default 10000
   */
  renewDeadlineMs?: number | undefined;
  /**
   * Time between attempts: renewals, and polls of a lease another holds.
   * @default 2000
   */
  retryPeriodMs?: number | undefined;
  /**
   * After a failed attempt (a conflict or an error), wait `retryPeriodMs * (1 + jitterFactor *
   * random())`, so candidates that collided spread out. `renewDeadlineMs` must exceed
   * `retryPeriodMs * jitterFactor`.
   * @default 1.2
   */
  jitterFactor?: number | undefined;
}

/**
 * Validated timings, defaults applied.
 *
 * @example
 * ```ts
 * import { LeaderElector } from "@kinformer/kinformer/controller";
 * import { KubeClient } from "@kinformer/kinformer/client";
 * const client = new KubeClient({ server: "http://127.0.0.1:8001" });
 * import assert from "node:assert/strict";
 * const elector = new LeaderElector({ client, namespace: "default", name: "ctl", identity: "a" });
 * assert.deepEqual(
 *   [elector.timings.leaseDurationMs, elector.timings.renewDeadlineMs, elector.timings.retryPeriodMs],
 *   [15_000, 10_000, 2_000],
 * );
 * ```
 */
export interface LeaseTimings {
  /** Lease duration. */
  readonly leaseDurationMs: number;
  /** Renew deadline. */
  readonly renewDeadlineMs: number;
  /** Retry period. */
  readonly retryPeriodMs: number;
  /** Jitter factor. */
  readonly jitterFactor: number;
}

/** Validates timings (RangeError naming the option) and applies client-go's defaults. */
export function resolveTimings(o: LeaseTimingOptions): LeaseTimings {
  checkNumber(o.leaseDurationMs, "leaseDurationMs", { min: 1000, integer: true });
  checkNumber(o.renewDeadlineMs, "renewDeadlineMs", { min: 1, integer: true });
  checkNumber(o.retryPeriodMs, "retryPeriodMs", { min: 1, integer: true });
  checkNumber(o.jitterFactor, "jitterFactor", { min: 0 });
  const t: LeaseTimings = {
    leaseDurationMs: o.leaseDurationMs ?? 15_000,
    renewDeadlineMs: o.renewDeadlineMs ?? 10_000,
    retryPeriodMs: o.retryPeriodMs ?? 2_000,
    jitterFactor: o.jitterFactor ?? 1.2,
  };
  if (t.leaseDurationMs % 1000 !== 0) {
    throw new RangeError(
      `leaseDurationMs must be a whole number of seconds (it is written as leaseDurationSeconds), got ${t.leaseDurationMs}`,
    );
  }
  if (t.renewDeadlineMs >= t.leaseDurationMs) {
    throw new RangeError(
      `renewDeadlineMs (${t.renewDeadlineMs}) must be less than leaseDurationMs (${t.leaseDurationMs})`,
    );
  }
  if (t.renewDeadlineMs <= t.retryPeriodMs * t.jitterFactor) {
    throw new RangeError(
      `renewDeadlineMs (${t.renewDeadlineMs}) must be greater than retryPeriodMs * jitterFactor (${
        t.retryPeriodMs * t.jitterFactor
      })`,
    );
  }
  return t;
}

/** A jittered retry delay: `retryPeriodMs * (1 + jitterFactor * random())`. */
export function jittered(t: LeaseTimings, random: () => number): number {
  return t.retryPeriodMs * (1 + t.jitterFactor * random());
}

/**
 * Runs `fn` with a signal that aborts when `parent` does or at `at` on `clock` (a timeout
 * error), and always releases the timer and the listener.
 */
export async function withDeadline<T>(
  parent: AbortSignal,
  clock: Clock,
  at: number,
  what: string,
  fn: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const link = linkedController(parent);
  const timer = clock.setTimeout(() => {
    link.controller.abort(new DeadlineError(`${what}: no answer before the deadline`));
  }, at - clock.now());
  try {
    return await fn(link.controller.signal);
  } finally {
    clock.clearTimeout(timer);
    link.release();
  }
}
