/**
 * What the reflector tells the outside about its work (metrics, liveness), and the stats of
 * `health()` counted from exactly those signals, in one place. Internal.
 * @module
 */
import type { ErrorKind } from "../util/error_kind.ts";
import type { RelistReason } from "./reflector_state.ts";

/** One thing the reflector went through, as its `observe` option hears it. */
export type ReflectorSignal =
  /** A request is about to start (the first one ever included). */
  | { readonly type: "started"; readonly request: "list" | "stream" | "watch" }
  /** A LIST page or other list progress arrived. */
  | { readonly type: "progress" }
  /** A list round (or streaming list) arrived whole: its state is emitted next. */
  | {
    readonly type: "replacing";
    /** Why it replaces an earlier state; undefined for a first list. */
    readonly relist: RelistReason | undefined;
  }
  /** A list round (or streaming list) was emitted: `items` objects in `pages` pages. */
  | {
    readonly type: "listed";
    readonly durationMs: number;
    readonly items: number;
    readonly pages: number;
  }
  /** The server accepted a watch (status 200): the cluster answers, before any line. */
  | { readonly type: "watch-opened" }
  /** A new watch starts after the previous one ended for `endedBy`. */
  | { readonly type: "reconnect"; readonly endedBy: ErrorKind | "closed" }
  /** A watch line arrived (a stream's initial phase included). */
  | { readonly type: "line"; readonly event: "ADDED" | "MODIFIED" | "DELETED" | "BOOKMARK" }
  /** A live watch event was emitted (after the transform). */
  | { readonly type: "delivered" }
  /** The last synced resource version moved. */
  | { readonly type: "moved"; readonly resourceVersion: string };

/** Counters and timestamps for `health()`. */
export interface ReflectorStats {
  /** LIST rounds completed (each may span many pages), streaming lists included. */
  lists: number;
  /** Lists after the first one (410 Expired, ...). */
  relists: number;
  /** Watches opened after the first one. */
  watchRestarts: number;
  /** Watch events received (bookmarks excluded). */
  events: number;
  /** Clock time of the last watch event, or undefined. */
  lastEventAt: number | undefined;
  /** Clock time of the last bookmark, or undefined. */
  lastBookmarkAt: number | undefined;
  /** Clock time of the last event, bookmark or completed list, or undefined. */
  lastActivityAt: number | undefined;
}

/** Stats before any signal. */
export function emptyStats(): ReflectorStats {
  return {
    lists: 0,
    relists: 0,
    watchRestarts: 0,
    events: 0,
    lastEventAt: undefined,
    lastBookmarkAt: undefined,
    lastActivityAt: undefined,
  };
}

/**
 * Counts `signal`, at clock time `now`, into `stats`: the one place the reflector's stats are
 * written (in place: the hot path allocates nothing). `watches` is how many watches started
 * before this signal (the first is no restart).
 */
export function countSignal(
  stats: ReflectorStats,
  signal: ReflectorSignal,
  now: number,
  watches: number,
): void {
  switch (signal.type) {
    case "started":
      // Nothing learnt yet counts from the start: a first request that hangs shows as stalled.
      stats.lastActivityAt ??= now;
      if (signal.request !== "list" && watches > 0) stats.watchRestarts++;
      return;
    case "progress":
      stats.lastActivityAt = now;
      return;
    case "replacing":
      stats.lists++;
      if (signal.relist !== undefined) stats.relists++;
      stats.lastActivityAt = now;
      return;
    case "line":
      stats.lastActivityAt = now;
      if (signal.event === "BOOKMARK") stats.lastBookmarkAt = now;
      return;
    case "delivered":
      stats.events++;
      stats.lastEventAt = now;
      return;
  }
}

/** The `line` signals, shared (the hot path allocates none). */
export const LINE_SIGNALS: Readonly<
  Record<"ADDED" | "MODIFIED" | "DELETED" | "BOOKMARK", ReflectorSignal>
> = Object.freeze({
  ADDED: Object.freeze({ type: "line", event: "ADDED" }),
  MODIFIED: Object.freeze({ type: "line", event: "MODIFIED" }),
  DELETED: Object.freeze({ type: "line", event: "DELETED" }),
  BOOKMARK: Object.freeze({ type: "line", event: "BOOKMARK" }),
});

/** The `delivered` signal, shared. */
export const DELIVERED: ReflectorSignal = Object.freeze({ type: "delivered" });
