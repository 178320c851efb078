/**
 * The informer's options, their defaults and their validation.
 * @module
 */
import type { ResourceDescriptor } from "../client/resource.ts";
import {
  resolveWatchTransport,
  streamsWholeLists,
  type WatchTransport,
} from "../client/watch_transport.ts";
import type { KubeClient } from "../client/kube_client.ts";
import type { KubeObject, KubeObjectLike } from "../client/types.ts";
import { type Backoff, type BackoffOptions, exponentialBackoff } from "../util/backoff.ts";
import { type Clock, systemClock } from "../util/clock.ts";
import { checkFunction, checkNumber, checkOneOf, checkOptionsObject } from "../util/validate.ts";
import { describeValue } from "../util/values.ts";
import type { InformerCheckpoint } from "./checkpoint.ts";
import {
  type ConsistencyCheckOptions,
  validateConsistencyCheckOptions,
} from "./consistency_check_options.ts";
import type { Indexers } from "./indexer.ts";
import type { InformerMetrics } from "./informer_metrics.ts";
import type { OverflowPolicy } from "./informer_event.ts";
import type { InitialListMode } from "./reflector_state.ts";
import type { OnError } from "../util/error_context.ts";
import type { ReflectorOptions } from "./reflector.ts";

/**
 * LIST page size (`limit`) when `pageSize` is not given.
 */
export const DEFAULT_PAGE_SIZE = 500;
/**
 * Idle limit of watches and LIST responses (ms) when `inactivityTimeoutMs` is not given.
 */
export const DEFAULT_INACTIVITY_TIMEOUT_MS = 150_000;
/**
 * Progress deadline of a streaming list (ms) when `initialEventsTimeoutMs` is not given.
 */
export const DEFAULT_INITIAL_EVENTS_TIMEOUT_MS = 10_000;

/** Options of {@linkcode createInformer}. */
export interface InformerOptions<T extends KubeObjectLike = KubeObject> {
  /**
   * The resource to watch, e.g. `pods` from `@kinformer/kinformer/client`. Its type gives the
   * informer's object type `T` (see {@linkcode ResourceDescriptor}).
   */
  resource: ResourceDescriptor<T>;
  /** Only this namespace. @default undefined (all namespaces) */
  namespace?: string | undefined;
  /** Label selector, applied to LIST and WATCH alike. @default undefined */
  labelSelector?: string | undefined;
  /** Field selector, applied to LIST and WATCH alike. @default undefined */
  fieldSelector?: string | undefined;
  /**
   * Default resync period for listeners, in ms: the cache is re-delivered as `update` events
   * with `object === oldObject`, without contacting the server. 0 disables. @default 0
   */
  resyncPeriodMs?: number | undefined;
  /** LIST page size (`limit`). @default 500 */
  pageSize?: number | undefined;
  /**
   * `"list"`: paged LIST then WATCH. `"stream"`: streaming list (`sendInitialEvents`), falling
   * back to LIST at once when the server refuses it or never sends the end bookmark, and trying
   * to stream again at the next relist. `"auto"`: the same, but a server that could not stream
   * is remembered for the informer's life (LISTs from then on).
   *
   * In a browser over HTTP (`transport: "http"`) `"stream"` and `"auto"` list with LIST:
   * kube-apiserver 1.37 gzips a streaming list when asked for gzip (one gzip member per flush),
   * a page cannot ask for `identity`, and Chromium's `fetch` reads only the first member, so
   * every streaming list would stop short and fall back to a LIST. Over a WebSocket (the
   * browser default, `transport: "auto"`) they stream.
   *
   * `"list"` stays the default because it is the faster one on a real link: kube-apiserver
   * gzips LIST answers but, before 1.37, never watch streams, so syncing 10,000 pods over 100 Mbit/s with
   * 10 ms delay took about 2x the time and 20x the bytes as a stream (bench scenario 12,
   * `bench/scenarios/link.ts`); only on loopback is the stream 10-20% faster. @default "list"
   */
  initialList?: InitialListMode | undefined;
  /**
   * Runs on every object before it is cached (e.g. strip `metadata.managedFields`). It receives
   * the decoded object and may change and return it. A relist keeps the cached object of an
   * item whose uid and resourceVersion did not change (not in `memory: "compact"`): the
   * transform is not run again for it, and its output for that version stays.
   * @default identity
   */
  transform?: ((object: T) => T) | undefined;
  /** Extra index functions (a `namespace` index is built in). @default {} */
  indexers?: Indexers<T> | undefined;
  /** Time source. @default systemClock */
  clock?: Clock | undefined;
  /** Backoff between failed attempts, or options for the default (800 ms x2 to 30 s, jittered). */
  backoff?: Backoff | BackoffOptions | undefined;
  /** Random source in [0, 1) for jitter and watch timeouts. @default Math.random */
  random?: (() => number) | undefined;
  /**
   * Reconnect a watch that sent nothing (not a byte) for this long, in ms; also the idle limit
   * of each LIST response (a list that keeps delivering bytes is never cut). Bookmarks come
   * about once a minute. @default 150000
   */
  inactivityTimeoutMs?: number | undefined;
  /**
   * A streaming list that makes no progress toward its initial list for this long, in ms,
   * before its initial-events-end bookmark falls back to a paged LIST. Progress is initial
   * objects (ADDED events, and the bytes of a stream that is delivering them): keep-alive
   * bookmarks, live MODIFIED/DELETED events or empty lines from a server that accepts
   * `sendInitialEvents` but never finishes do not count, so such a server is left for a LIST
   * within this limit, and the LIST follows at once. A stream of initial objects that keeps
   * flowing is never cut. With `"stream"`, streaming is tried again at the next relist.
   * @default 10000
   */
  initialEventsTimeoutMs?: number | undefined;
  /**
   * Longest accepted watch line (over a WebSocket: message), in bytes. @default 16 MiB
   */
  maxLineLength?: number | undefined;
  /**
   * How watches reach the server: `"http"` (a chunked response), `"websocket"` (one event per
   * message; the token goes as a subprotocol), or `"auto"` (WebSocket in browsers, where
   * HTTP/1.1 allows six connections per origin and each watch holds one). LISTs always use
   * HTTP. Recovery is the same on both: an abnormal close is a `network` error, an undecodable
   * message a `decode` error, silence past `inactivityTimeoutMs` an `inactivity` error.
   * @default the client's `watchTransport` ("http" unless set)
   */
  transport?: WatchTransport | undefined;
  /**
   * Called for every error, with its context: what it is (`kind`), where (`phase`), what the
   * informer does about it (`action`, `retryInMs`); the informer keeps recovering. It replaces
   * the default printing. An `onError` that throws is reported as an uncaught error (rethrown
   * on a fresh microtask, as an `EventTarget` does with a throwing listener) and the informer
   * goes on.
   * @default prints: the first error of each kind at once with what the informer does about it
   * (`pods informer: list forbidden (403): pods is forbidden: ...; retrying with backoff (next
   * in 1.6 s)`, with `console.error`), then at most one line per kind per minute with a count
   * of those not printed, and one line (`console.warn`) when it lists or watches again (`pods
   * informer: healthy again after 12 errors`). A watch that expired (410) is routine and not
   * printed.
   */
  onError?: OnError | undefined;
  /**
   * Resume from a {@linkcode InformerCheckpoint}: seed the cache with its objects and watch from
   * its resource version with no LIST. The seeded objects count as already seen: listeners are
   * not sent them again (unless they ask with `replayCache: true`). If the server no longer has
   * that version (410), or refuses it (400/422), the informer relists and listeners see only
   * the difference.
   *
   * A checkpoint is input, as trusted as the storage it came from: a value that is not a
   * checkpoint, one taken for another resource, namespace or selection, and one whose contents
   * do not belong to this informer (an object of another kind, or with a top-level field its
   * built-in kind does not have (not checked with a `transform`, which shapes objects as it
   * likes), or without `apiVersion` and `kind` and with fields besides `metadata`, `spec` and
   * `status`, in another namespace or selection, malformed metadata, a `__proto__`,
   * `constructor` or `prototype` key anywhere, what JSON cannot hold: a function, a cycle,
   * nesting deeper than 1,000 levels) or exceed
   * `checkpointLimits` is refused: the informer reports a `CheckpointError` (kind `checkpoint`)
   * when it starts and lists as if it had none.
   * @default undefined
   */
  resumeFrom?: InformerCheckpoint<T> | undefined;
  /**
   * Bounds on a `resumeFrom` checkpoint: at most `maxObjects` objects (default 500,000) and
   * `maxBytes` bytes as JSON (estimated while checking it, as `JSON.stringify` would write it:
   * an object reached twice counts twice; default 512 MiB). A larger one is refused. The check
   * is one pass over the checkpoint, so it takes time linear in that size.
   * @default { maxObjects: 500000, maxBytes: 536870912 }
   */
  checkpointLimits?: CheckpointLimits | undefined;
  /**
   * Check that nobody changes cached objects in place (they are shared with every listener and
   * not frozen): each object's JSON fingerprint is compared when the cache replaces or drops it
   * and every `intervalMs` (default 1000), and a change is reported to `onError` as a
   * `MutationError` (kind `mutation`) naming the key and the path. Costs a `JSON.stringify` per
   * object per check: for tests and debugging. `true` also when the environment variable
   * `KINFORMER_DETECT_MUTATIONS` is `1` or `true` (where the runtime has an environment).
   * @default false
   */
  detectMutations?: boolean | { intervalMs?: number | undefined } | undefined;
  /**
   * How the cache holds objects (`docs/production.md`, Memory, has measured figures):
   * - `"shared"`: repeated strings and identical subtrees (managedFields entries, container
   *   specs, conditions...) are shared between cached objects and frozen (a `ValueInterner`);
   *   objects read and compare exactly as decoded, about half the heap of plainly parsed pods,
   *   for a walk of each object as it arrives (a relist's changed item is compared with its
   *   cached version side by side, at once). A watch's update (a new version of a cached object) is cached
   *   and handed to handlers as decoded and shares its unchanged parts with the version it
   *   replaced later, as background work on the informer's `clock`: in slices
   *   (at most 256 objects or 4 ms) that, while updates keep coming, take at most about 4% of
   *   the time, and back to back once no update came since the last slice; an update replaced
   *   or deleted before its turn is never walked, and at most as many wait as the cache holds
   *   objects (at least 4,096). So sharing stays off a saturated watch's path, and the heap
   *   of a burst comes back down once it goes quiet. Writing to a shared part throws
   *   a `TypeError` (strict code); cached objects must not be changed anyway. With
   *   `detectMutations` on, nothing is shared or frozen, so the detector sees every change.
   * - `"compact"`: each object is held as its JSON text (one byte per character) and parsed
   *   again on read, behind a cache of the 1,024 most recently used objects (a
   *   `CompactCodec`); the store, lister, indexes (computed at insert) and events behave as in
   *   the other modes, while a read of an object not recently used costs a `JSON.parse`.
   * - `"plain"`: objects as decoded, nothing shared.
   * @default "shared"
   */
  memory?: CacheMemoryMode | undefined;
  /** Callbacks for metrics (list durations, events, relists, reconnects, ...). @default undefined */
  metrics?: InformerMetrics | undefined;
  /**
   * Periodic consistency checks: every `intervalMs` (10 minutes), a consistent paged LIST
   * within a request budget, compared with the cache at the list's resource version; drift
   * goes to `onError` (kind `drift`), `health().consistency` and `metrics.onConsistencyCheck`,
   * and is repaired by a relist with `repair: true`. `informer.verify()` works without it.
   * @default undefined (no periodic check)
   */
  consistencyCheck?: ConsistencyCheckOptions | undefined;
}

/** How the cache holds objects (see {@linkcode InformerOptions.memory}). */
export type CacheMemoryMode = "shared" | "compact" | "plain";

/** Bounds on a `resumeFrom` checkpoint (see {@linkcode InformerOptions.checkpointLimits}). */
export interface CheckpointLimits {
  /** Most objects a checkpoint may hold. @default 500000 */
  maxObjects?: number | undefined;
  /** Most bytes a checkpoint may take as JSON (estimated). @default 536870912 (512 MiB) */
  maxBytes?: number | undefined;
}

/** Options of {@linkcode SharedInformer.events} and {@linkcode SharedInformer.addEventHandler}. */
export interface ListenerOptions {
  /** Ends the iteration / removes the handler. @default undefined */
  signal?: AbortSignal | undefined;
  /** `"grow"` keeps every event; `"coalesce"` merges pending events per key. @default "grow" */
  overflow?: OverflowPolicy | undefined;
  /** Resync period of this listener in ms (0 = never). @default the informer's resyncPeriodMs */
  resyncPeriodMs?: number | undefined;
  /**
   * Deliver the current cache as `add` events first. @default true, except for an informer
   * created with `resumeFrom`, whose seeded objects count as already seen
   */
  replayCache?: boolean | undefined;
}

/** Options of {@linkcode SharedInformer.events}. */
export interface EventsOptions extends ListenerOptions {
  /**
   * `"current"`: a catch-up run. Learn the server's current resource version (a cheap
   * consistent `limit=1` list) and end the iteration once everything up to it has been
   * delivered. Resource versions are compared as decimal integers (by length, then lexically);
   * when they are not numeric, the first bookmark or event after the start counts as current.
   * @default undefined (run until stopped)
   */
  until?: "current" | undefined;
}

/** Whether `b` is a ready {@linkcode Backoff} rather than options for the default one. */
function isBackoff(b: Backoff | BackoffOptions | undefined): b is Backoff {
  return b !== undefined && typeof (b as Backoff).next === "function";
}

/** Validates informer options up front; errors name the option. Internal. */
export function validateInformerOptions<T extends KubeObjectLike>(o: InformerOptions<T>): void {
  if (typeof o !== "object" || o === null) throw new TypeError("informer options are required");
  const r = o.resource;
  if (typeof r !== "object" || r === null || typeof r.resource !== "string" || !r.version) {
    throw new TypeError(`resource must be a ResourceDescriptor, got ${describeValue(r)}`);
  }
  if (o.namespace !== undefined && o.namespace !== "" && !r.namespaced) {
    throw new TypeError(
      `namespace ${describeValue(o.namespace)} given for cluster-scoped ${r.resource}`,
    );
  }
  validateListWatchOptions(o);
  for (const name of ["resyncPeriodMs", "inactivityTimeoutMs", "initialEventsTimeoutMs"] as const) {
    checkNumber(o[name], name, { min: 0 });
  }
  const detect = o.detectMutations;
  if (detect !== undefined && typeof detect !== "boolean") {
    checkOptionsObject(detect, "detectMutations");
    checkNumber(detect.intervalMs, "detectMutations.intervalMs", { min: 0 });
  }
  checkFunction(o.onError, "onError");
  checkOneOf(o.memory, "memory", ["shared", "compact", "plain"]);
  checkOptionsObject(o.checkpointLimits, "checkpointLimits");
  checkNumber(o.checkpointLimits?.maxObjects, "checkpointLimits.maxObjects", {
    min: 0,
    integer: true,
  });
  checkNumber(o.checkpointLimits?.maxBytes, "checkpointLimits.maxBytes", { min: 0 });
  checkOptionsObject(o.metrics, "metrics");
  validateConsistencyCheckOptions(o.consistencyCheck);
}

/** Validates the options of one listener. Internal. */
export function validateListenerOptions(o: ListenerOptions): void {
  checkOneOf(o.overflow, "overflow", ["grow", "coalesce"]);
  checkNumber(o.resyncPeriodMs, "resyncPeriodMs", { min: 0 });
}

/** What the informer and `watcher()` share: what to list and watch, and how. */
type ListWatchKey =
  | "resource"
  | "namespace"
  | "labelSelector"
  | "fieldSelector"
  | "pageSize"
  | "initialList"
  | "clock"
  | "backoff"
  | "random"
  | "inactivityTimeoutMs"
  | "initialEventsTimeoutMs"
  | "maxLineLength"
  | "transport"
  | "transform";

/** The options the informer and `watcher()` share. */
export type ListWatchOptions<T extends KubeObjectLike> = Pick<InformerOptions<T>, ListWatchKey>;

/** The reflector settings {@linkcode listWatchSettings} resolves. Internal. */
export type ListWatchSettings<T extends KubeObjectLike> = Pick<ReflectorOptions<T>, ListWatchKey>;

/** Validates what the informer and `watcher()` both check of {@linkcode ListWatchOptions}. */
export function validateListWatchOptions<T extends KubeObjectLike>(o: ListWatchOptions<T>): void {
  checkNumber(o.pageSize, "pageSize", { min: 1, integer: true });
  checkOneOf(o.initialList, "initialList", ["list", "stream", "auto"]);
  checkOneOf(o.transport, "transport", ["http", "websocket", "auto"]);
  checkFunction(o.transform, "transform");
}

/**
 * How errors and printed lines name an informer or a watcher: its resource's plural, with the
 * group for other than the core group (`pods informer`, `deployments.apps informer`). Internal.
 */
export function informerSource(
  options: { resource: ResourceDescriptor<KubeObjectLike> },
  what = "informer",
): string {
  const { resource, group } = options.resource;
  return `${resource}${group ? `.${group}` : ""} ${what}`;
}

/** The reflector settings of `o` with the documented defaults applied. Internal. */
export function listWatchSettings<T extends KubeObjectLike>(
  o: ListWatchOptions<T>,
  client: KubeClient,
): ListWatchSettings<T> {
  const clock = o.clock ?? systemClock;
  const initialList = o.initialList ?? "list";
  const transport = o.transport === undefined
    ? client.watchTransport
    : resolveWatchTransport(o.transport);
  const random = o.random ?? Math.random;
  return {
    resource: o.resource,
    namespace: o.namespace,
    labelSelector: o.labelSelector,
    fieldSelector: o.fieldSelector,
    pageSize: o.pageSize ?? DEFAULT_PAGE_SIZE,
    // A streaming list that cannot read whole over this transport (HTTP in a browser, where
    // kube-apiserver 1.37 gzips it and the page cannot ask for identity) would cost a cut stream
    // plus a LIST at every relist: LIST at once instead.
    initialList: streamsWholeLists(transport) ? initialList : "list",
    clock,
    backoff: isBackoff(o.backoff) ? o.backoff : exponentialBackoff(clock, { random, ...o.backoff }),
    random,
    inactivityTimeoutMs: o.inactivityTimeoutMs ?? DEFAULT_INACTIVITY_TIMEOUT_MS,
    initialEventsTimeoutMs: o.initialEventsTimeoutMs ?? DEFAULT_INITIAL_EVENTS_TIMEOUT_MS,
    maxLineLength: o.maxLineLength,
    transport: o.transport,
    transform: o.transform ?? ((object: T) => object),
  };
}
