/**
 * What `health()` reports about an informer and its listeners, and how the report is put
 * together from the informer's parts.
 * @module
 */
import type { KubeObjectLike } from "../client/types.ts";
import type { CacheMemory } from "./cache_memory.ts";
import type { ConsistencyChecker } from "./consistency_check.ts";
import type { ConsistencyHealth } from "./consistency_check_options.ts";
import type { ErrorTally } from "./error_tally.ts";
import type { Indexer } from "./indexer.ts";
import type { OverflowPolicy } from "./informer_event.ts";
import type { Reflector, ReflectorState } from "./reflector.ts";
import type { StoreWriter } from "./store_writer.ts";
import type { ErrorKind } from "../util/error_kind.ts";
import type { CacheMemoryMode } from "./informer_options.ts";
import type { EventLag, EventLagHealth } from "./event_lag.ts";
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
  /**
   * The cache's representation (the `memory` option in effect: `"plain"` when
   * `detectMutations` turned sharing off) and an estimate of the heap its objects hold, in
   * bytes (compact: the held JSON text, exact, plus the recently used decoded objects; shared
   * and plain: the cache's size times the mean estimated size of the objects it took in,
   * counting in shared mode only what each object could not share). An estimate to find the
   * informer that holds the heap, not an accounting.
   */
  memory: { mode: CacheMemoryMode; estimatedBytes: number };
  /**
   * Event lag (ms) from the server's write of an object (its newest `managedFields` time) to a
   * handler or `events()` taking the live add or update, over this informer's listeners; undefined
   * before the first one measured. To the second, and only as right as the two clocks agree.
   */
  eventLag: EventLagHealth | undefined;
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

/** The parts of an informer its {@linkcode InformerHealth} is read from. Internal. */
export interface InformerHealthParts<T extends KubeObjectLike> {
  /** Where the informer is in its life. */
  state: LifecycleState;
  reflector: Reflector<T>;
  /** Started from a checkpoint that was accepted: the resource counts as served. */
  resumed: boolean;
  writer: StoreWriter<T>;
  indexer: Indexer<T>;
  memory: CacheMemory<T>;
  lag: EventLag;
  errors: ErrorTally;
  listeners: ListenerHealth[];
  checker: ConsistencyChecker;
  /** The clock's time of the snapshot. */
  now: number;
  /** Idle limit of watches and LIST responses: quiet for longer is `stalled`. */
  inactivityTimeoutMs: number;
}

/** The snapshot `SharedInformer.health()` returns. Internal. */
export function informerHealth<T extends KubeObjectLike>(
  parts: InformerHealthParts<T>,
): InformerHealth {
  const { reflector, indexer, memory } = parts;
  const s = reflector.stats;
  const consistency = parts.checker.health();
  return {
    state: parts.state,
    activity: reflector.phase,
    resource: reflector.notFound
      ? "not-found"
      : s.lists > 0 || parts.resumed
      ? "served"
      : "unknown",
    synced: parts.writer.synced,
    lastSyncResourceVersion: reflector.resourceVersion,
    objects: indexer.size,
    memory: {
      mode: memory.mode,
      estimatedBytes: memory.estimatedBytes(
        indexer.size,
        indexer.estimatedBytes(),
      ),
    },
    eventLag: parts.lag.health(),
    lastEventAt: s.lastEventAt,
    lastBookmarkAt: s.lastBookmarkAt,
    lists: s.lists,
    relists: s.relists,
    watchRestarts: s.watchRestarts,
    events: s.events,
    errors: parts.errors.counts(consistency.driftChecks),
    lastError: parts.errors.last,
    stalled: reflector.phase !== "stopped" && reflector.phase !== "idle" &&
      s.lastActivityAt !== undefined && parts.now - s.lastActivityAt > parts.inactivityTimeoutMs,
    listeners: parts.listeners,
    consistency,
  };
}
