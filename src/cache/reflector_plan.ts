/**
 * The reflector's decisions as pure functions: which request comes next, and how a failure
 * changes the plan. Kept apart from the I/O so each rule has its own table of tests.
 * @module
 */
import type { ErrorKind } from "../util/error_kind.ts";

/** How the reflector fetches the initial state: paged LIST, streaming list, or try stream first. */
export type InitialListMode = "list" | "stream" | "auto";

/** Everything the next-request decision depends on. */
export interface ReflectorPlanState {
  /** RV of the last completed list or last event/bookmark; undefined before the first list. */
  readonly lastSyncResourceVersion: string | undefined;
  /** The cache must be rebuilt by a list (first run, or after 410). */
  readonly mustRelist: boolean;
  /** The last list failed with Expired or ResourceVersionTooLarge: list at "" (consistent). */
  readonly needsConsistentList: boolean;
  /** Configured initial-list mode. */
  readonly initialList: InitialListMode;
  /**
   * The server refused (or never finished) a streaming list during this relist: use LIST until
   * a list succeeds, then try streaming again at the next relist.
   */
  readonly streamUnavailable: boolean;
  /**
   * The first list (at resourceVersion "0") came back in pages: the server pages lists of this
   * resource (its watch cache is off), so relists at an exact resource version page too.
   */
  readonly paginatedResult?: boolean | undefined;
  /** The resource version at which the last watch failed to decode, if any. */
  readonly decodeFailedAt?: string | undefined;
}

/** The request the reflector makes next. */
export type PlannedRequest =
  | {
    kind: "list";
    resourceVersion: string;
    /** Whether to send `limit` (page the list). */
    paged: boolean;
  }
  | { kind: "stream"; resourceVersion: string }
  | { kind: "watch"; resourceVersion: string };

/**
 * Decides the next request from the reflector's state; pure, so it is tested on its own
 * (`tests/cache/reflector_plan_test.ts`). Internal: not part of the public API, so its state
 * can change with the reflector.
 * The first list asks for resourceVersion "0" (any state, cheap for the server), later lists
 * for the last synced RV, and for "" (consistent) after an Expired/too-large failure; otherwise
 * it watches from the last RV.
 *
 * Paging follows client-go: lists at "" and "0" send `limit`, but a list at an exact resource
 * version does not (without `limit` the server answers it from its watch cache, not from etcd
 * at an old revision) unless the first list came back paginated, which shows a server that
 * pages this resource anyway.
 */
export function planNextRequest(state: ReflectorPlanState): PlannedRequest {
  const rv = state.lastSyncResourceVersion;
  if (!state.mustRelist && rv !== undefined) return { kind: "watch", resourceVersion: rv };
  const stream = state.initialList !== "list" && !state.streamUnavailable;
  if (stream) {
    return { kind: "stream", resourceVersion: state.needsConsistentList ? "" : rv ?? "" };
  }
  const resourceVersion = state.needsConsistentList ? "" : rv ?? "0";
  const paged = resourceVersion === "" || resourceVersion === "0" ||
    state.paginatedResult === true;
  return { kind: "list", resourceVersion, paged };
}

/** What went wrong, as {@linkcode planAfterFailure} needs to know it. */
export interface ReflectorFailure {
  /** How the error is filed. */
  kind: ErrorKind;
  /** The request that failed. */
  request: PlannedRequest;
  /** The failed watch had started at a list's RV and received nothing yet. */
  freshFromList: boolean;
}

/** The outcome of {@linkcode planAfterFailure}. */
export interface PlanAfterFailure {
  /** The plan to continue with (a new object; the input is not changed). */
  state: ReflectorPlanState;
  /** Retry at once, with no backoff. */
  retryNow: boolean;
}

/**
 * The plan after a failure, and whether to retry at once (no backoff); pure, so it is tested on
 * its own. An expired watch relists (at once, unless it had just started from a list's RV: then
 * that RV is already gone, so back off and list consistently); an expired or too-large RV on a
 * list retries at once with a consistent list (`""`); a streaming list the server refuses or
 * never finishes falls back to LIST until the next relist. A watch that cannot be decoded is
 * watched again from the same resource version once; a second decode failure at that resource
 * version relists (the server keeps sending what cannot be read). Everything else backs off.
 */
export function planAfterFailure(
  state: ReflectorPlanState,
  failure: ReflectorFailure,
): PlanAfterFailure {
  const { kind, request } = failure;
  const next = (changes: Partial<ReflectorPlanState>, retryNow: boolean): PlanAfterFailure => ({
    state: { ...state, ...changes },
    retryNow,
  });
  if (kind === "decode" && request.kind !== "list") {
    const at = state.lastSyncResourceVersion;
    if (request.kind === "stream") return next({ streamUnavailable: true }, false);
    if (at !== undefined && state.decodeFailedAt === at) {
      return next({ mustRelist: true, decodeFailedAt: undefined }, false);
    }
    return next({ decodeFailedAt: at }, false);
  }
  if (request.kind === "watch") {
    if (kind === "too-large-rv") {
      return next({ mustRelist: true, needsConsistentList: true }, false);
    }
    if (kind !== "expired") return next({}, false);
    if (!failure.freshFromList) return next({ mustRelist: true }, true);
    return next({ mustRelist: true, needsConsistentList: true }, false);
  }
  const changes: { -readonly [K in keyof ReflectorPlanState]?: ReflectorPlanState[K] } = {};
  if (request.kind === "stream" && (kind === "invalid" || kind === "initial-events-timeout")) {
    changes.streamUnavailable = true;
  }
  if (kind === "expired" || kind === "too-large-rv") {
    const wasConsistent = state.needsConsistentList || request.resourceVersion === "";
    changes.needsConsistentList = true;
    return next(changes, !wasConsistent);
  }
  return next(changes, false);
}
