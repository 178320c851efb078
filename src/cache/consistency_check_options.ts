/**
 * The consistency check's options, their defaults and validation, and what a check reports.
 * @module
 */
import { checkBoolean, checkNumber, checkOptionsObject } from "../util/validate.ts";
import type { DriftEntry } from "./consistency_compare.ts";

/**
 * Time between periodic consistency checks (ms) when `intervalMs` is not given: 10 minutes.
 */
export const DEFAULT_CONSISTENCY_CHECK_INTERVAL_MS = 600_000;

/**
 * LIST page requests one consistency check may make per minute when `requestsPerMinute` is not
 * given: at 500 objects a page, 30,000 objects a minute.
 */
export const DEFAULT_CONSISTENCY_CHECK_REQUESTS_PER_MINUTE = 60;

/**
 * How long (ms) a consistency check waits for the cache to reach the list's resource version
 * when `maxWaitMs` is not given: two bookmark periods of a real API server.
 */
export const DEFAULT_CONSISTENCY_CHECK_MAX_WAIT_MS = 120_000;

/** Options of the informer's `consistencyCheck` (and of `verify()`, which uses them too). */
export interface ConsistencyCheckOptions {
  /**
   * Time between periodic checks, in ms, counted from the end of the previous check; each
   * delay is lengthened by up to a quarter at random, so informers started together do not
   * check together. `0`: no periodic check, only `informer.verify()`.
   * @default 600000 (10 minutes)
   */
  intervalMs?: number | undefined;
  /**
   * The budget: LIST page requests one check may start per minute. The pages of a large list
   * are spread over time (at least `60000 / requestsPerMinute` ms apart), so a check costs the
   * server what a relist costs, but never at once. Keep `pages / requestsPerMinute` well under
   * the server's compaction interval (5 minutes by default), or the continue token expires
   * and the check ends inconclusive. `Infinity`: no spacing.
   * @default 60
   */
  requestsPerMinute?: number | undefined;
  /** LIST page size (`limit`) of the check. @default the informer's `pageSize` */
  pageSize?: number | undefined;
  /**
   * How long to wait, in ms, for the cache to reach the list's resource version (events and
   * bookmarks move it; a bookmark comes about once a minute). A check that waits longer ends
   * inconclusive (`timeout`).
   * @default 120000
   */
  maxWaitMs?: number | undefined;
  /**
   * Repair drift: ask the reflector for a consistent relist, swapped in through the normal
   * Replace path, so listeners receive exactly the difference (`add` for missing objects,
   * `update` for stale ones, `delete` with `finalStateUnknown` for extra ones).
   * @default false (report only)
   */
  repair?: boolean | undefined;
}

/** The consistency check options with their defaults applied. Internal. */
export interface ResolvedConsistencyCheckOptions {
  intervalMs: number;
  requestsPerMinute: number;
  pageSize: number;
  maxWaitMs: number;
  repair: boolean;
}

/** Applies the documented defaults; `pageSize` is the informer's. Internal. */
export function consistencyCheckDefaults(
  o: ConsistencyCheckOptions | undefined,
  pageSize: number,
): ResolvedConsistencyCheckOptions {
  return {
    intervalMs: o === undefined ? 0 : o.intervalMs ?? DEFAULT_CONSISTENCY_CHECK_INTERVAL_MS,
    requestsPerMinute: o?.requestsPerMinute ?? DEFAULT_CONSISTENCY_CHECK_REQUESTS_PER_MINUTE,
    pageSize: o?.pageSize ?? pageSize,
    maxWaitMs: o?.maxWaitMs ?? DEFAULT_CONSISTENCY_CHECK_MAX_WAIT_MS,
    repair: o?.repair ?? false,
  };
}

/** Validates the `consistencyCheck` option; errors name the field. Internal. */
export function validateConsistencyCheckOptions(o: ConsistencyCheckOptions | undefined): void {
  checkOptionsObject(o, "consistencyCheck");
  if (o === undefined) return;
  checkNumber(o.intervalMs, "consistencyCheck.intervalMs", { min: 0 });
  checkNumber(o.requestsPerMinute, "consistencyCheck.requestsPerMinute", {
    min: 0,
    minExclusive: true,
    allowInfinity: true,
  });
  checkNumber(o.pageSize, "consistencyCheck.pageSize", { min: 1, integer: true });
  checkNumber(o.maxWaitMs, "consistencyCheck.maxWaitMs", { min: 0 });
  checkBoolean(o.repair, "consistencyCheck.repair");
}

/**
 * What a check concluded: `consistent` (every comparable key as listed), `drift` (some key
 * missing, extra or stale), `skipped` (not started: see `reason`), `inconclusive` (started but
 * could not compare: see `reason`).
 */
export type ConsistencyOutcome = "consistent" | "drift" | "skipped" | "inconclusive";

/**
 * Why a check was skipped or inconclusive: `not-synced` (the cache holds no complete list
 * yet), `not-running` (the informer is not started, or stopped), `stopped` (the informer
 * stopped during the check), `aborted` (every caller of `verify()` gave up), `relisted` (the
 * informer relisted during the check: its cache was rebuilt anyway), `timeout` (the cache did
 * not reach the list's resource version within `maxWaitMs`), `not-comparable` (resource versions
 * are not decimal integers, so "reached" cannot be told), `error` (a LIST request failed; see
 * `error`, also reported to `onError`).
 */
export type ConsistencyReason =
  | "not-synced"
  | "not-running"
  | "stopped"
  | "aborted"
  | "relisted"
  | "timeout"
  | "not-comparable"
  | "error";

/** The report of one consistency check (`informer.verify()`, the metrics hook). */
export interface ConsistencyCheckResult {
  /** What the check concluded. */
  outcome: ConsistencyOutcome;
  /** Why it was skipped or inconclusive; undefined otherwise. */
  reason: ConsistencyReason | undefined;
  /** The resource version of the consistent list the cache was compared with. */
  resourceVersion: string | undefined;
  /** Clock time the check began. */
  startedAt: number;
  /** Clock time it ended. */
  finishedAt: number;
  /** LIST pages read. */
  pages: number;
  /** Objects listed. */
  listed: number;
  /** Keys compared. */
  compared: number;
  /** Keys not compared because the cache already holds a state newer than the list. */
  changedAfterList: number;
  /** Keys the server has and the cache lacks (sorted by key). */
  missing: DriftEntry[];
  /** Keys the cache has and the server does not. */
  extra: DriftEntry[];
  /** Keys held by both with another uid or resourceVersion in the cache. */
  stale: DriftEntry[];
  /** Whether a relist was asked for to repair the drift (the `repair` option). */
  repairing: boolean;
  /**
   * The list's resource version was older than the cache's when the check began: the server
   * went back in time (etcd restored from a backup), so every key the cache did not change
   * during the check was compared exactly, whatever its resource version.
   */
  serverBehind: boolean;
  /** The error that ended the check (`reason: "error"`). */
  error?: unknown;
}

/** The consistency checks in `health()`. */
export interface ConsistencyHealth {
  /** Whether a check is under way. */
  running: boolean;
  /** Checks finished (any outcome). */
  checks: number;
  /** Clock time the last check ended. */
  lastCheckAt: number | undefined;
  /** Outcome of the last check. */
  lastOutcome: ConsistencyOutcome | undefined;
  /** Why the last check was skipped or inconclusive. */
  lastReason: ConsistencyReason | undefined;
  /** Resource version of the last check's list. */
  lastResourceVersion: string | undefined;
  /** Checks that found drift. */
  driftChecks: number;
  /** Missing keys found, over all checks. */
  missing: number;
  /** Extra keys found, over all checks. */
  extra: number;
  /** Stale keys found, over all checks. */
  stale: number;
  /** Relists asked for to repair drift. */
  repairs: number;
}
