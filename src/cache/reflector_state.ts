/**
 * The reflector's one state, and the pure functions that change it: which request comes next,
 * and what a started request, a completed list, a watch event, a failure, a relist asked for
 * and a stop each make of it. The reflector (`reflector.ts`) does the I/O around them and keeps
 * nothing else that decides anything. Each function returns a new state and changes nothing,
 * so each rule has its own table of tests (`tests/cache/reflector_state_test.ts`). Internal.
 * @module
 */
import type { ErrorKind } from "../util/error_kind.ts";

/** How the reflector fetches the initial state: paged LIST, streaming list, or try stream first. */
export type InitialListMode = "list" | "stream" | "auto";

/**
 * Why the cache is listed again: the kind of the failure that made the last resource version
 * unusable (`expired`: 410; `too-large-rv`; `invalid`: a watch refused as written; `decode`: a
 * watch that kept sending what cannot be read; `not-found`: the resource went away and
 * returned), or `requested` (a relist asked for, e.g. a consistency check's repair).
 */
export type RelistReason =
  | "expired"
  | "too-large-rv"
  | "invalid"
  | "decode"
  | "not-found"
  | "requested";

/** What the reflector is doing, as `health().state` shows it. */
export type ReflectorState = "idle" | "listing" | "watching" | "backing-off" | "stopped";

/** Everything the reflector's decisions depend on. */
export interface ListWatchState {
  /** What the reflector is doing. */
  readonly phase: ReflectorState;
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
   * a list succeeds, then try streaming again at the next relist (`"stream"`), or never again
   * for this informer (`"auto"`).
   */
  readonly streamUnavailable: boolean;
  /**
   * The first list (at resourceVersion "0") came back in pages: the server pages lists of this
   * resource (its watch cache is off), so relists at an exact resource version page too.
   */
  readonly paginatedResult?: boolean | undefined;
  /** The resource version at which the last watch failed to decode, if any. */
  readonly decodeFailedAt?: string | undefined;
  /** RV of the last completed list (or streaming list); undefined before the first. */
  readonly listedAt?: string | undefined;
  /** A relist was asked for after the current list request started (it may predate the ask). */
  readonly relistRequested?: boolean | undefined;
  /** The open watch started at the last list's RV and has received nothing yet. */
  readonly fromList?: boolean | undefined;
  /**
   * A watch from the last list's RV failed for another reason than expiry (an outage) since
   * that list: time has passed, so a 410 at that RV is expected, not a sign of a list served
   * from a stale cache.
   */
  readonly interrupted?: boolean | undefined;
  /**
   * The server answers 404 for the resource (a CRD deleted, an aggregated API gone) since the
   * last completed list: reported once, retried on the backoff until a list succeeds.
   */
  readonly notFound?: boolean | undefined;
  /** Why the next list replaces the cache (set with `mustRelist`). */
  readonly relistReason?: RelistReason | undefined;
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
 * The state a reflector starts in: nothing listed, unless it resumes from a checkpoint's
 * resource version (then it watches from there first).
 */
export function initialState(
  initialList: InitialListMode,
  resumeFrom: string | undefined,
): ListWatchState {
  return {
    phase: "idle",
    lastSyncResourceVersion: resumeFrom,
    mustRelist: resumeFrom === undefined,
    needsConsistentList: false,
    initialList,
    streamUnavailable: false,
  };
}

/**
 * Decides the next request from the reflector's state.
 * The first list asks for resourceVersion "0" (any state, cheap for the server), later lists
 * for the last synced RV, and for "" (consistent) after an Expired/too-large failure; otherwise
 * it watches from the last RV.
 *
 * Paging follows client-go: lists at "" and "0" send `limit`, but a list at an exact resource
 * version does not (without `limit` the server answers it from its watch cache, not from etcd
 * at an old revision) unless the first list came back paginated, which shows a server that
 * pages this resource anyway.
 */
export function planNextRequest(state: ListWatchState): PlannedRequest {
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

/**
 * `request` is being made: the phase follows it; a list (or streaming list) answers any relist
 * asked for so far; a watch notes whether it starts at the last list's resource version.
 */
export function requestStarted(state: ListWatchState, request: PlannedRequest): ListWatchState {
  const phase: ReflectorState = request.kind === "watch" ? "watching" : "listing";
  const fromList = request.kind !== "list" && state.listedAt === state.lastSyncResourceVersion;
  return request.kind === "watch"
    ? { ...state, phase, fromList }
    : { ...state, phase, fromList, relistRequested: false };
}

/** The reflector waits before its next request (a backoff, a server's delay, the pacer). */
export function backingOff(state: ListWatchState): ListWatchState {
  return { ...state, phase: "backing-off" };
}

/** What {@linkcode listed} needs to know of a completed list. */
export interface ListOutcome {
  /** The request that listed (a LIST, or a streaming list at its end bookmark). */
  request: PlannedRequest;
  /** The resource version of the complete state. */
  resourceVersion: string;
  /** Pages it came in (1 for a streaming list). */
  pages: number;
}

/**
 * A complete list arrived: the cache is at its resource version. Another relist follows only if
 * one was asked for after this list started. With `"stream"`, streaming is tried again at the
 * next relist, whatever happened during this one; `"auto"` remembers a server that could not
 * stream for the informer's life. A first list at "0" that came back in pages shows a
 * server that pages this resource. A streaming list goes on as the watch.
 */
export function listed(state: ListWatchState, outcome: ListOutcome): ListWatchState {
  const { request, resourceVersion } = outcome;
  const pagedFirst = request.kind === "list" && request.resourceVersion === "0" &&
    outcome.pages > 1 && state.listedAt === undefined;
  const again = state.relistRequested === true;
  return {
    ...state,
    phase: request.kind === "stream" ? "watching" : state.phase,
    lastSyncResourceVersion: resourceVersion,
    listedAt: resourceVersion,
    mustRelist: again,
    needsConsistentList: again,
    streamUnavailable: state.initialList === "auto" && state.streamUnavailable,
    paginatedResult: state.paginatedResult === true || pagedFirst,
    fromList: false,
    interrupted: false,
    notFound: false,
  };
}

/** The open watch received its first line: it no longer starts fresh from a list. */
export function received(state: ListWatchState): ListWatchState {
  return state.fromList === true ? { ...state, fromList: false } : state;
}

/** A watch event or a bookmark moved the resource version (once per event: a flat copy). */
export function moved(state: ListWatchState, resourceVersion: string): ListWatchState {
  return { ...state, lastSyncResourceVersion: resourceVersion };
}

/** A relist was asked for (a consistency check's repair): consistent, and after any list under way. */
export function relistAsked(state: ListWatchState): ListWatchState {
  return {
    ...state,
    mustRelist: true,
    needsConsistentList: true,
    relistRequested: true,
    relistReason: "requested",
  };
}

/** The reflector stopped for good. */
export function stopped(state: ListWatchState): ListWatchState {
  return { ...state, phase: "stopped" };
}

/** What went wrong, as {@linkcode planAfterFailure} needs to know it. */
export interface ReflectorFailure {
  /** How the error is filed. */
  kind: ErrorKind;
  /** The request that failed. */
  request: PlannedRequest;
}

/** The outcome of {@linkcode planAfterFailure}. */
export interface PlanAfterFailure {
  /** The state to continue with (a new object; the input is not changed). */
  state: ListWatchState;
  /**
   * How long to wait before the next request: `"none"` (retry at once), `"backoff"` (the
   * backoff's next delay, or the server's `Retry-After`), or `"longest"` (the backoff's cap:
   * a request that cannot succeed as configured is retried only that rarely).
   */
  wait: "none" | "backoff" | "longest";
}

/**
 * The state after a failure, and how long to wait. An expired watch relists (at once, unless it
 * had just started from a list's RV: then that RV is already gone, so back off and list
 * consistently; but when watches from that RV failed otherwise first, an outage, the RV had
 * time to expire: list consistently at once); an expired or too-large RV on a list retries at once with a consistent list
 * (`""`); a streaming list the server refuses or never finishes falls back to LIST at once, as
 * client-go's reflector does (the next request is that LIST, the request pacer bounds how often
 * requests start, and an unfinished stream already lasted `initialEventsTimeoutMs`). A watch the server refuses as invalid (400/422, e.g. a resource version from a
 * checkpoint that it cannot parse) relists consistently after a backoff, as client-go relists
 * after any watch error it cannot retry; a list refused as invalid is asked for again at `""`. A watch that cannot be decoded is watched again from
 * the same resource version once; a second decode failure at that resource version relists
 * (the server keeps sending what cannot be read). A 406 (`unsupported`) waits the longest
 * backoff. A 404 (`not-found`: the resource is gone) marks the state `notFound` and backs off
 * (the backoff's cap bounds the rate: one request per 30 s by default); the next request is a
 * consistent list, since only a list shows the resource back and what it holds. Everything
 * else backs off.
 */
export function planAfterFailure(
  state: ListWatchState,
  failure: ReflectorFailure,
): PlanAfterFailure {
  const { kind, request } = failure;
  const next = (
    changes: Partial<ListWatchState>,
    wait: PlanAfterFailure["wait"],
  ): PlanAfterFailure => {
    // A failure that makes the cache be listed again is the relist's reason (only the kinds
    // of RelistReason set mustRelist below).
    const why = changes.mustRelist === true ? { relistReason: kind as RelistReason } : {};
    return { state: { ...state, ...changes, ...why }, wait };
  };
  if (kind === "unsupported") return next({}, "longest");
  // The resource is gone: only a list can tell that it is back (and what it holds then).
  if (kind === "not-found") {
    return next({ notFound: true, mustRelist: true, needsConsistentList: true }, "backoff");
  }
  if (kind === "decode" && request.kind !== "list") {
    const at = state.lastSyncResourceVersion;
    if (request.kind === "stream") return next({ streamUnavailable: true }, "backoff");
    if (at !== undefined && state.decodeFailedAt === at) {
      return next({ mustRelist: true, decodeFailedAt: undefined }, "backoff");
    }
    return next({ decodeFailedAt: at }, "backoff");
  }
  if (request.kind === "watch") {
    if (kind === "too-large-rv" || kind === "invalid") {
      return next({ mustRelist: true, needsConsistentList: true }, "backoff");
    }
    if (kind !== "expired") {
      return next(state.fromList === true ? { interrupted: true } : {}, "backoff");
    }
    if (state.fromList !== true) return next({ mustRelist: true }, "none");
    // After an outage the list's RV has had time to expire: list consistently at once, as
    // client-go starts its next round with a LIST. Otherwise the RV was gone from the start.
    const wait = state.interrupted === true ? "none" : "backoff";
    return next({ mustRelist: true, needsConsistentList: true }, wait);
  }
  const changes: { -readonly [K in keyof ListWatchState]?: ListWatchState[K] } = {};
  if (request.kind === "stream" && (kind === "invalid" || kind === "initial-events-timeout")) {
    return next({ streamUnavailable: true }, "none");
  }
  if (kind === "expired" || kind === "too-large-rv") {
    const wasConsistent = state.needsConsistentList || request.resourceVersion === "";
    changes.needsConsistentList = true;
    return next(changes, wasConsistent ? "backoff" : "none");
  }
  // A resource version the server cannot parse is not asked for again.
  if (kind === "invalid" && request.kind === "list") changes.needsConsistentList = true;
  return next(changes, "backoff");
}
