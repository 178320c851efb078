/**
 * What `health()` reports about an informer and its listeners.
 * @module
 */
import type { ConsistencyHealth } from "./consistency_check_options.ts";
import type { OverflowPolicy } from "./informer_event.ts";
import type { ReflectorState } from "./reflector.ts";
import type { ErrorKind } from "../util/error_kind.ts";
import type { LifecycleState } from "../util/lifecycle.ts";

/** One listener in {@linkcode InformerHealth}. */
export interface ListenerHealth {
  /** Events waiting for the consumer. */
  backlog: number;
  /** Largest backlog seen. */
  highWater: number;
  /** Whether the listener has taken its `synced` marker. */
  synced: boolean;
  /** Overflow policy. */
  overflow: OverflowPolicy;
}

/** Snapshot returned by {@linkcode SharedInformer.health}. */
export interface InformerHealth {
  /**
   * Where the informer is in its life, as every long-running object of kinformer says it:
   * `idle` (not started), `starting` (started, not synced yet), `running` (synced),
   * `stopping`, `stopped`.
   */
  state: LifecycleState;
  /** What its list/watch loop is doing: `idle`, `listing`, `watching`, `backing-off`, `stopped`. */
  activity: ReflectorState;
  /**
   * Whether the server serves the resource: `unknown` before the first list, `served`, or
   * `not-found` while it answers 404 (a CRD deleted, an aggregated API gone). A gone resource
   * is reported once (kind `not-found`), retried on the backoff (at most one request per 30 s
   * by default) and listed afresh when it returns; the cache keeps its last state meanwhile.
   */
  resource: "unknown" | "served" | "not-found";
  /** Whether the informer's cache holds a complete list. */
  synced: boolean;
  /** The resource version the cache is at. */
  lastSyncResourceVersion: string | undefined;
  /** Objects cached. */
  objects: number;
  /** Clock time of the last watch event. */
  lastEventAt: number | undefined;
  /** Clock time of the last bookmark. */
  lastBookmarkAt: number | undefined;
  /** Completed lists (streaming lists included). */
  lists: number;
  /** Lists after the first. */
  relists: number;
  /** Watches opened after the first. */
  watchRestarts: number;
  /** Watch events received. */
  events: number;
  /** Errors by kind (`drift`: consistency checks that found drift). */
  errors: Partial<Record<ErrorKind, number>>;
  /** The last error. */
  lastError: { kind: ErrorKind; message: string; at: number } | undefined;
  /**
   * True when nothing (no event, bookmark or list) has arrived for longer than the inactivity
   * limit, even across reconnects: the informer is running but learning nothing.
   */
  stalled: boolean;
  /** Each listener's backlog. */
  listeners: ListenerHealth[];
  /** Consistency checks: the last one's time, outcome and list resource version; drift totals. */
  consistency: ConsistencyHealth;
}
