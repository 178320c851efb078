/**
 * The reflector's one state, and the pure functions that change it: which request comes next,
 * and what a started request, a completed list, a watch event, a line of a streaming list's
 * initial phase, a failure, a relist asked for and a stop each make of it. What the reflector is
 * doing is one union ({@linkcode Activity}) whose variants carry only their own data (a watch's
 * start, a list's pending relist, a streaming list's progress, a backoff's delay); what it has
 * learnt across requests sits beside it. The reflector (`reflector.ts`) does the I/O around
 * these functions and keeps nothing else that decides anything. Each function returns a new
 * state and changes nothing, so each rule has its own table of tests
 * (`tests/cache/reflector_state_test.ts`). Internal.
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
 * A streaming list's initial phase (before its `k8s.io/initial-events-end` bookmark): what
 * its progress deadline depends on (see {@linkcode initialLine}).
 */
export interface InitialPhase {
  /** An initial object (ADDED) arrived. */
  readonly added: boolean;
  /** What the phase showed that a streaming list never does, if anything. */
  readonly unexpected: "bookmark" | "MODIFIED" | "DELETED" | undefined;
  /** Clock time of the phase's last progress (an initial object; the start). */
  readonly progressAt: number;
}

/** What the reflector is doing; each variant carries only its own data. */
export type Activity =
  | { readonly phase: "idle" }
  | {
    readonly phase: "listing";
    readonly request: PlannedRequest & { kind: "list" };
    /** A relist was asked for after this list started (it may predate the ask). */
    readonly relistAsked: boolean;
  }
  | {
    readonly phase: "streaming";
    readonly request: PlannedRequest & { kind: "stream" };
    /** A relist was asked for after this stream started. */
    readonly relistAsked: boolean;
    /** The initial phase's progress (what it collected is the reflector's buffer). */
    readonly initial: InitialPhase;
  }
  | {
    readonly phase: "watching";
    /** The resource version the watch started at. */
    readonly from: string;
    /** It started at the last list's resource version and has received nothing yet. */
    readonly fromList: boolean;
  }
  | {
    readonly phase: "backing-off";
    /** How long the reflector waits, in ms. */
    readonly ms: number;
  }
  | { readonly phase: "stopped" };

/** A list the cache needs (set until a list completes). */
export interface Relist {
  /** List at `""` (a consistent read from etcd), not at the last resource version. */
  readonly consistent: boolean;
  /** Why the cache is listed again; undefined for the first list. */
  readonly reason: RelistReason | undefined;
}

/** Everything the reflector's decisions depend on. */
export interface ListWatchState {
  /** What the reflector is doing. */
  readonly activity: Activity;
  /** RV of the last completed list or last event/bookmark; undefined before the first list. */
  readonly lastSyncResourceVersion: string | undefined;
  /** The cache must be rebuilt by a list (first run, after 410, ...); undefined: watch. */
  readonly relist: Relist | undefined;
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
  readonly paginatedResult: boolean;
  /** The resource version at which the last watch failed to decode, if any. */
  readonly decodeFailedAt: string | undefined;
  /** RV of the last completed list (or streaming list); undefined before the first. */
  readonly listedAt: string | undefined;
  /**
   * A watch from the last list's RV failed for another reason than expiry (an outage) since
   * that list: time has passed, so a 410 at that RV is expected, not a sign of a list served
   * from a stale cache.
   */
  readonly interrupted: boolean;
  /**
   * The server answers 404 for the resource (a CRD deleted, an aggregated API gone) since the
   * last completed list: retried on the backoff until a list succeeds.
   */
  readonly notFound: boolean;
  /** The kind of the last failure since the last completed list (a repeated 404 is not told). */
  readonly lastFailure: ErrorKind | undefined;
}

/** The phase `health()` shows for an activity (a streaming list is listing). */
export function phaseOf(activity: Activity): ReflectorState {
  return activity.phase === "streaming" ? "listing" : activity.phase;
}

/**
 * The state a reflector starts in: nothing listed, unless it resumes from a checkpoint's
 * resource version (then it watches from there first).
 */
export function initialState(
  initialList: InitialListMode,
  resumeFrom: string | undefined,
): ListWatchState {
  return {
    activity: IDLE,
    lastSyncResourceVersion: resumeFrom,
    relist: resumeFrom === undefined ? FIRST_LIST : undefined,
    initialList,
    streamUnavailable: false,
    paginatedResult: false,
    decodeFailedAt: undefined,
    listedAt: undefined,
    interrupted: false,
    notFound: false,
    lastFailure: undefined,
  };
}

const IDLE: Activity = Object.freeze({ phase: "idle" });
const STOPPED: Activity = Object.freeze({ phase: "stopped" });
const FIRST_LIST: Relist = Object.freeze({ consistent: false, reason: undefined });
const REQUESTED: Relist = Object.freeze({ consistent: true, reason: "requested" });

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
  if (state.relist === undefined && rv !== undefined) return { kind: "watch", resourceVersion: rv };
  const consistent = state.relist?.consistent === true;
  const stream = state.initialList !== "list" && !state.streamUnavailable;
  if (stream) return { kind: "stream", resourceVersion: consistent ? "" : rv ?? "" };
  const resourceVersion = consistent ? "" : rv ?? "0";
  const paged = resourceVersion === "" || resourceVersion === "0" || state.paginatedResult;
  return { kind: "list", resourceVersion, paged };
}

/**
 * `request` is being made at clock time `now`: the activity follows it. A list (or streaming
 * list) answers any relist asked for so far; a watch notes whether it starts at the last list's
 * resource version; a streaming list's initial phase starts with no progress.
 */
export function requestStarted(
  state: ListWatchState,
  request: PlannedRequest,
  now: number,
): ListWatchState {
  let activity: Activity;
  switch (request.kind) {
    case "list":
      activity = { phase: "listing", request, relistAsked: false };
      break;
    case "stream":
      activity = {
        phase: "streaming",
        request,
        relistAsked: false,
        initial: { added: false, unexpected: undefined, progressAt: now },
      };
      break;
    case "watch":
      activity = {
        phase: "watching",
        from: request.resourceVersion,
        fromList: state.listedAt === state.lastSyncResourceVersion,
      };
  }
  return { ...state, activity };
}

/** The reflector waits `ms` before its next request (a backoff, a server's delay, the pacer). */
export function backingOff(state: ListWatchState, ms: number): ListWatchState {
  return { ...state, activity: { phase: "backing-off", ms } };
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
 * A complete list arrived: the cache is at its resource version. Another relist (consistent)
 * follows only if one was asked for after this list started. With `"stream"`, streaming is
 * tried again at the next relist, whatever happened during this one; `"auto"` remembers a
 * server that could not stream for the informer's life. A first list at "0" that came back in
 * pages shows a server that pages this resource. A streaming list goes on as the watch.
 */
export function listed(state: ListWatchState, outcome: ListOutcome): ListWatchState {
  const { request, resourceVersion } = outcome;
  const pagedFirst = request.kind === "list" && request.resourceVersion === "0" &&
    outcome.pages > 1 && state.listedAt === undefined;
  const a = state.activity;
  const again = (a.phase === "listing" || a.phase === "streaming") && a.relistAsked;
  return {
    ...state,
    activity: request.kind === "stream"
      ? { phase: "watching", from: resourceVersion, fromList: false }
      : state.activity,
    lastSyncResourceVersion: resourceVersion,
    listedAt: resourceVersion,
    relist: again ? REQUESTED : undefined,
    streamUnavailable: state.initialList === "auto" && state.streamUnavailable,
    paginatedResult: state.paginatedResult || pagedFirst,
    interrupted: false,
    notFound: false,
    lastFailure: undefined,
  };
}

/** The open watch received its first line: it no longer starts fresh from a list. */
export function received(state: ListWatchState): ListWatchState {
  const a = state.activity;
  return a.phase === "watching" && a.fromList
    ? { ...state, activity: { ...a, fromList: false } }
    : state;
}

/** A watch event or a bookmark moved the resource version (once per event: a flat copy). */
export function moved(state: ListWatchState, resourceVersion: string): ListWatchState {
  return { ...state, lastSyncResourceVersion: resourceVersion };
}

/** A relist was asked for (a consistency check's repair): consistent, and after any list under way. */
export function relistAsked(state: ListWatchState): ListWatchState {
  const a = state.activity;
  const activity = a.phase === "listing" || a.phase === "streaming"
    ? { ...a, relistAsked: true }
    : a;
  return { ...state, activity, relist: REQUESTED };
}

/** The reflector stopped for good. */
export function stopped(state: ListWatchState): ListWatchState {
  return { ...state, activity: STOPPED };
}

/** What a line of a streaming list's initial phase is, as {@linkcode initialLine} reads it. */
export type InitialLine = "ADDED" | "MODIFIED" | "DELETED" | "bookmark" | "end";

/** The outcome of {@linkcode initialLine}. */
export interface InitialStep {
  /** The phase afterwards (the same object when nothing changed). */
  phase: InitialPhase;
  /**
   * Where the progress deadline now counts from (clock time), or undefined to leave it. A
   * line that is no progress puts it back to the last progress (its own bytes counted).
   */
  deadlineFrom: number | undefined;
  /** Whether the stream's bytes count as progress from now on (keep-alives never do). */
  bytesCount: boolean;
}

/**
 * A line of a streaming list's initial phase, at clock time `now`: whether it is progress
 * toward the initial list. kube-apiserver sends the initial objects as ADDED, then the end
 * bookmark, and no plain bookmark before it (see `reflector.ts`); so an initial object is
 * progress while the phase has shown nothing else, and a plain bookmark, a MODIFIED or a
 * DELETED ends the deadline's extensions for good (a server that accepts `sendInitialEvents`
 * but never finishes is abandoned within the deadline). Every object line is still collected
 * (live events of older servers apply to the collected state, as in client-go). The end
 * bookmark (`"end"`) makes bytes count again (the watch's own inactivity limit takes over).
 */
export function initialLine(phase: InitialPhase, line: InitialLine, now: number): InitialStep {
  switch (line) {
    case "end":
      return { phase, deadlineFrom: undefined, bytesCount: true };
    case "ADDED":
      if (phase.unexpected === undefined) {
        return {
          phase: { ...phase, added: true, progressAt: now },
          deadlineFrom: now,
          bytesCount: true,
        };
      }
      return { phase, deadlineFrom: phase.progressAt, bytesCount: false };
    default: {
      const next = phase.unexpected === undefined ? { ...phase, unexpected: line } : phase;
      return { phase: next, deadlineFrom: phase.progressAt, bytesCount: false };
    }
  }
}

/**
 * Whether a watch that the server closed cleanly was healthy: it delivered something, or
 * stayed open at least a second. A suspiciously empty, short one makes the reflector back off
 * before the next (a server or proxy closing every watch at once is not hammered).
 */
export function watchWasHealthy(lines: number, openMs: number): boolean {
  return lines > 0 || openMs >= 1_000;
}

/**
 * Whether a completed list replaces an earlier state (counted as a relist, with its reason):
 * every list after the first, and a resumed reflector's first (its watch expired).
 */
export function relistOf(
  state: ListWatchState,
  lists: number,
  resumed: boolean,
): RelistReason | undefined {
  if (lists === 0 && !resumed) return undefined;
  return state.relist?.reason ?? "expired";
}

/** What went wrong, as {@linkcode planAfterFailure} needs to know it. */
export interface ReflectorFailure {
  /** How the error is filed. */
  kind: ErrorKind;
  /** The request that failed. */
  request: PlannedRequest;
}

/** How long the reflector waits after a failure (see {@linkcode PlanAfterFailure}). */
export type FailureWait = "none" | "backoff" | "longest";

/** The outcome of {@linkcode planAfterFailure}. */
export interface PlanAfterFailure {
  /** The state to continue with (a new object; the input is not changed). */
  state: ListWatchState;
  /**
   * How long to wait before the next request: `"none"` (retry at once), `"backoff"` (the
   * backoff's next delay, or the server's `Retry-After`), or `"longest"` (the backoff's cap:
   * a request that cannot succeed as configured is retried only that rarely).
   */
  wait: FailureWait;
  /**
   * Whether the failure is reported: always, but a 404 right after a 404 (a resource that
   * stays gone is told once, and again after another error came in between).
   */
  report: boolean;
}

/**
 * The state after a failure, and how long to wait. An expired watch relists (at once, unless it
 * had just started from a list's RV: then that RV is already gone, so back off and list
 * consistently; but when watches from that RV failed otherwise first, an outage, the RV had
 * time to expire: list consistently at once); an expired or too-large RV on a list retries at
 * once with a consistent list (`""`); a streaming list the server refuses or never finishes
 * falls back to LIST at once, as client-go's reflector does (the next request is that LIST, the
 * request pacer bounds how often requests start, and an unfinished stream already lasted
 * `initialEventsTimeoutMs`). A watch the server refuses as invalid (400/422, e.g. a resource
 * version from a checkpoint that it cannot parse) relists consistently after a backoff, as
 * client-go relists after any watch error it cannot retry; a list refused as invalid is asked
 * for again at `""`. A watch that cannot be decoded is watched again from the same resource
 * version once; a second decode failure at that resource version relists (the server keeps
 * sending what cannot be read). A 406 (`unsupported`) waits the longest backoff. A 404
 * (`not-found`: the resource is gone) marks the state `notFound` and backs off (the backoff's
 * cap bounds the rate: one request per 30 s by default); the next request is a consistent
 * list, since only a list shows the resource back and what it holds. Everything else backs off.
 */
export function planAfterFailure(
  state: ListWatchState,
  failure: ReflectorFailure,
): PlanAfterFailure {
  const { kind, request } = failure;
  const report = kind !== "not-found" || state.lastFailure !== "not-found";
  const base: ListWatchState = { ...state, lastFailure: kind };
  const next = (changes: Partial<ListWatchState>, wait: FailureWait): PlanAfterFailure => ({
    state: { ...base, ...changes },
    wait,
    report,
  });
  /** The cache is listed again because of this failure (it is the relist's reason). */
  const relist = (consistent: boolean): Relist => ({ consistent, reason: kind as RelistReason });
  /** The list under way is asked for again, consistently (its reason stays). */
  const consistently = (): Relist => ({ consistent: true, reason: state.relist?.reason });
  if (kind === "unsupported") return next({}, "longest");
  // The resource is gone: only a list can tell that it is back (and what it holds then).
  if (kind === "not-found") return next({ notFound: true, relist: relist(true) }, "backoff");
  if (kind === "decode" && request.kind !== "list") {
    const at = state.lastSyncResourceVersion;
    if (request.kind === "stream") return next({ streamUnavailable: true }, "backoff");
    if (at !== undefined && state.decodeFailedAt === at) {
      return next({ relist: relist(false), decodeFailedAt: undefined }, "backoff");
    }
    return next({ decodeFailedAt: at }, "backoff");
  }
  if (request.kind === "watch") {
    if (kind === "too-large-rv" || kind === "invalid") {
      return next({ relist: relist(true) }, "backoff");
    }
    const a = state.activity;
    const fromList = a.phase === "watching" && a.fromList;
    if (kind !== "expired") return next(fromList ? { interrupted: true } : {}, "backoff");
    if (!fromList) return next({ relist: relist(false) }, "none");
    // After an outage the list's RV has had time to expire: list consistently at once, as
    // client-go starts its next round with a LIST. Otherwise the RV was gone from the start.
    return next({ relist: relist(true) }, state.interrupted ? "none" : "backoff");
  }
  if (request.kind === "stream" && (kind === "invalid" || kind === "initial-events-timeout")) {
    return next({ streamUnavailable: true }, "none");
  }
  if (kind === "expired" || kind === "too-large-rv") {
    const wasConsistent = state.relist?.consistent === true || request.resourceVersion === "";
    return next({ relist: consistently() }, wasConsistent ? "backoff" : "none");
  }
  // A resource version the server cannot parse is not asked for again.
  if (kind === "invalid" && request.kind === "list") {
    return next({ relist: consistently() }, "backoff");
  }
  return next({}, "backoff");
}
