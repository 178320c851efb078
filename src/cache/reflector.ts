/**
 * The reflector: lists and watches one resource forever and emits the protocol's steps
 * ({@linkcode WatcherEvent}s). Its decisions are the pure functions of `reflector_state.ts`;
 * this file does the I/O around them.
 * @module
 */
import type { KubeClient } from "../client/kube_client.ts";
import type { WatchTransport } from "../client/watch_transport.ts";
import type { AnyResourceDescriptor } from "../client/resource.ts";
import type { KubeObject, KubeObjectLike } from "../client/types.ts";
import type { ListItemIdentity } from "../client/list_body.ts";
import { isMetadataOnly, toPartialObjectMetadata } from "../client/metadata_only.ts";
import { decodeWatchStream } from "../watch/watch_decoder.ts";
import { responseBytes } from "../watch/response_bytes.ts";
import { linkedController } from "../util/abort.ts";
import { type Backoff, exponentialBackoff } from "../util/backoff.ts";
import { type Clock, sleep } from "../util/clock.ts";
import { type ErrorKind, errorKindOf } from "../util/error_kind.ts";
import { IdleTimer } from "../util/idle_timer.ts";
import type { ErrorPhase } from "../util/error_context.ts";
import type { ReportDetails } from "../util/error_reporter.ts";
import { InitialEventsTimeoutError, WatchInactivityError } from "./reflector_errors.ts";
import { objectKey } from "./object_key.ts";
import { listAllPages } from "./list_pager.ts";
import { typeMetaOf } from "./checkpoint.ts";
import {
  backingOff,
  type FailureWait,
  type InitialLine,
  initialLine,
  type InitialListMode,
  type InitialPhase,
  initialState,
  listed,
  type ListWatchState,
  moved,
  phaseOf,
  planAfterFailure,
  type PlannedRequest,
  planNextRequest,
  received,
  type ReflectorState,
  relistAsked,
  relistOf,
  requestStarted,
  stopped,
  watchWasHealthy,
} from "./reflector_state.ts";
import { Recovery } from "./request_pacer.ts";
import {
  countSignal,
  DELIVERED,
  emptyStats,
  LINE_SIGNALS,
  type ReflectorSignal,
  type ReflectorStats,
} from "./reflector_signal.ts";
import type { WatcherEvent } from "./watcher_event.ts";

export type { ReflectorState, RelistReason } from "./reflector_state.ts";
export type { ReflectorSignal, ReflectorStats } from "./reflector_signal.ts";
export { MAX_RETRY_AFTER_MS } from "./request_pacer.ts";

/** Options of {@linkcode Reflector}. */
export interface ReflectorOptions<T extends KubeObjectLike> {
  client: KubeClient;
  resource: AnyResourceDescriptor;
  namespace?: string | undefined;
  labelSelector?: string | undefined;
  fieldSelector?: string | undefined;
  pageSize: number;
  initialList: InitialListMode;
  clock: Clock;
  backoff: Backoff;
  random: () => number;
  inactivityTimeoutMs: number;
  initialEventsTimeoutMs: number;
  maxLineLength?: number | undefined;
  /** How watches reach the server (LISTs always use HTTP). */
  transport?: WatchTransport | undefined;
  /** Runs on every decoded object (identity when the user gave none). */
  transform: (object: T) => T;
  /**
   * Runs instead of `transform` on the objects of a list (paged, or a streaming list's
   * initial events). @default transform
   */
  transformListed?: ((object: T) => T) | undefined;
  /**
   * Asked as each list starts: how to find the object the consumer already holds for a listed
   * item that is unchanged (the same uid and resourceVersion), or undefined when it holds none
   * (a first list). The list keeps that object, and the item is neither decoded (a paged list
   * reads the identity from the bytes) nor transformed again. The lookup answers undefined for
   * an item that is new or changed. @default none (every item is decoded)
   */
  known?: (() => KnownLookup<T> | undefined) | undefined;
  /**
   * Where the protocol's steps go. A promise returned for an `apply` or `delete` holds the
   * watch (no more bytes are read) until it settles: back-pressure for a consumer that cannot
   * keep up. The idle timer does not count that time. A list's steps are never held.
   */
  emit: (event: WatcherEvent<T>) => void | Promise<void>;
  /**
   * Every error, with where it happened and what the reflector does about it (the
   * reporter of the informer or `watcher()` makes the context of it); the reflector goes on.
   */
  onError: (error: unknown, details: ReportDetails) => void;
  /** Start watching from here without a LIST (a checkpoint). */
  resumeFrom?: string | undefined;
  /**
   * Told what the reflector went through (a list done, a watch opened or restarted, a line
   * received, the resource version moved, ...): metrics and liveness read these, and the
   * reflector's own `stats` are counted from them.
   */
  observe?: ((signal: ReflectorSignal) => void) | undefined;
}

/** The object the consumer holds for a listed item of this identity, if unchanged. */
export type KnownLookup<T> = (identity: ListItemIdentity) => T | undefined;

/** The first step of every list: shared, as it carries nothing. */
const INIT: WatcherEvent<never> = Object.freeze({ type: "init" });

/**
 * The ListAndWatch loop (listing, watching, backing off, relisting) around the pure state
 * functions of `reflector_state.ts`. It never stops on an error: every error is reported
 * through `onError` and the loop recovers (relist on 410, back off with jitter on failures,
 * honour `Retry-After` up to {@linkcode MAX_RETRY_AFTER_MS}) until the signal passed to
 * {@linkcode Reflector.run} aborts. Every request start goes through a
 * {@linkcode RequestPacer}, so no server behaviour can make it hammer the API server. What it
 * learns leaves as {@linkcode WatcherEvent}s through `emit`. Internal: `watcher()` and the
 * informer run one each.
 */
export class Reflector<T extends KubeObjectLike> {
  readonly #o: ReflectorOptions<T>;
  /** The `apiVersion` and `kind` of the resource's objects. */
  readonly #typeMeta: { apiVersion: string; kind: string };
  /** The one state; replaced (never changed) by the functions of `reflector_state.ts`. */
  #state: ListWatchState;
  /** When the next request may start: backoff, Retry-After and pacing, around the loop. */
  readonly #recovery: Recovery;
  /** Objects keep only their metadata (a metadata-only descriptor). */
  readonly #metadataOnly: boolean;
  /** Watches started, for `stats.watchRestarts`. */
  #watches = 0;
  /** The open watch's controller (aborting it ends that watch): an I/O handle. */
  #watching: AbortController | undefined;
  /** Counters and timestamps for `health()`, counted from the signals (`countSignal`). */
  readonly stats: ReflectorStats = emptyStats();

  constructor(options: ReflectorOptions<T>) {
    this.#o = options;
    this.#state = initialState(options.initialList, options.resumeFrom);
    this.#metadataOnly = isMetadataOnly(options.resource);
    this.#typeMeta = typeMetaOf(options.resource);
    this.#recovery = new Recovery(
      options.backoff,
      exponentialBackoff(options.clock, { random: options.random }),
    );
  }

  /** The last resource version the consumer is known to be at. */
  get resourceVersion(): string | undefined {
    return this.#state.lastSyncResourceVersion;
  }

  /** Whether the server answers 404 for the resource (since the last completed list). */
  get notFound(): boolean {
    return this.#state.notFound;
  }

  /** What the reflector is doing. */
  get phase(): ReflectorState {
    return phaseOf(this.#state.activity);
  }

  /** The whole state (for tests and `health()`). */
  get state(): ListWatchState {
    return this.#state;
  }

  /**
   * Asks for a relist: a consistent LIST (`resourceVersion=""`, paged) emitted as a new
   * `init`...`init-done`, so the consumer learns exactly what differs, then a watch from its
   * resource version. An open watch is closed at once; a list already under way is followed by
   * another one (it may have been answered from the state being repaired). The relist passes
   * the request pacer like any other request.
   */
  requestRelist(): void {
    this.#state = relistAsked(this.#state);
    this.#watching?.abort(RELIST_ASKED);
  }

  /** Runs until `signal` aborts; never rejects. */
  async run(signal: AbortSignal): Promise<void> {
    const o = this.#o;
    let endedBy: ErrorKind | "closed" | undefined;
    while (!signal.aborted) {
      const wait = this.#recovery.nextDelay();
      if (wait > 0) {
        this.#state = backingOff(this.#state, wait);
        try {
          await sleep(wait, { clock: o.clock, signal });
        } catch {
          break; // aborted
        }
      }
      const request = planNextRequest(this.#state);
      if (endedBy !== undefined && request.kind === "watch") {
        this.#signal({ type: "reconnect", endedBy });
      }
      endedBy = undefined;
      this.#signal({ type: "started", request: request.kind });
      this.#state = requestStarted(this.#state, request, o.clock.now());
      try {
        if (request.kind === "list") await this.#list(request, signal);
        else {
          const lists = this.stats.lists;
          const healthy = await this.#watch(request, signal);
          endedBy = "closed";
          // A streaming list closed right after its end bookmark (large clusters close them):
          // the list is complete and its watch goes on from the bookmark at once.
          this.#recovery.closed(healthy, request.kind === "stream" && this.stats.lists > lists);
        }
      } catch (error) {
        if (signal.aborted) break;
        const kind = errorKindOf(error);
        endedBy = kind;
        const after = planAfterFailure(this.#state, { kind, request });
        this.#state = after.state;
        const owed = this.#recovery.failed(after.wait, error);
        if (after.report) {
          this.#o.onError(error, {
            phase: request.kind,
            action: kind === "not-found"
              ? "the resource is not served (reported once while it stays gone); retrying with backoff"
              : recovery(after.wait, request.kind === "watch" && this.#state.relist !== undefined),
            retryInMs: owed > 0 ? owed : undefined,
          });
        }
      }
    }
    this.#state = stopped(this.#state);
  }

  /** Counts `signal` into the stats and tells the `observe` option. */
  #signal(signal: ReflectorSignal): void {
    const type = signal.type;
    // Only what the stats count reads the clock (a moved resource version does not).
    if (type !== "moved" && type !== "listed" && type !== "watch-opened" && type !== "reconnect") {
      countSignal(this.stats, signal, this.#o.clock.now(), this.#watches);
    }
    if (signal.type === "started" && signal.request !== "list") this.#watches++;
    this.#o.observe?.(signal);
  }

  /**
   * Runs the user's transform (`listed`: on an object of a list); a throw is reported (kind
   * `transform`) and the object skipped.
   */
  #transform(object: KubeObjectLike, phase: ErrorPhase, listed: boolean): T | undefined {
    try {
      // The server sends objects of the watched resource: the descriptor's object type. A
      // LIST's items carry no apiVersion and kind (watch events do): they get the resource's,
      // so every cached object says what it is, however it arrived.
      if (this.#metadataOnly) object = toPartialObjectMetadata(object);
      else if (object.kind === undefined && object.apiVersion === undefined) {
        (object as { apiVersion?: string }).apiVersion = this.#typeMeta.apiVersion;
        (object as { kind?: string }).kind = this.#typeMeta.kind;
      }
      return listed && this.#o.transformListed !== undefined
        ? this.#o.transformListed(object as T)
        : this.#o.transform(object as T);
    } catch (error) {
      this.#o.onError(error, {
        phase,
        foreignKind: "transform",
        detail: "transform",
        action: "skipping the object",
      });
      return undefined;
    }
  }

  /** The resource version moved (an event or a bookmark): an assignment of a flat copy. */
  #moved(resourceVersion: string): void {
    this.#state = moved(this.#state, resourceVersion);
    this.#signal({ type: "moved", resourceVersion });
  }

  /** One whole LIST (paged when `request.paged`), emitted at once. */
  async #list(request: PlannedRequest & { kind: "list" }, signal: AbortSignal): Promise<void> {
    const o = this.#o;
    const started = o.clock.now();
    const result = await listAllPages({
      client: o.client,
      resource: o.resource,
      namespace: o.namespace,
      labelSelector: o.labelSelector,
      fieldSelector: o.fieldSelector,
      resourceVersion: request.resourceVersion,
      pageSize: request.paged ? o.pageSize : undefined,
      clock: o.clock,
      idleTimeoutMs: o.inactivityTimeoutMs,
      signal,
      onProgress: () => this.#signal(PROGRESS),
      onExpiredContinue: (error) =>
        this.#o.onError(error, { phase: "list", action: "listing again from the first page" }),
    }, { item: (item) => this.#transform(item, "list", true), known: o.known?.() });
    this.#recovery.connected();
    this.#emitList(result.items, {
      request,
      resourceVersion: result.resourceVersion,
      pages: result.pages,
    }, started);
  }

  /**
   * Emits a complete state (`init`, each object, `init-done`) and moves to its version.
   * `objects` went through the transform as they arrived (a paged list page by page, a stream
   * event by event); `started` is when the list began.
   */
  #emitList(
    objects: Iterable<T>,
    outcome: { request: PlannedRequest; resourceVersion: string; pages: number },
    started: number,
  ): void {
    const o = this.#o;
    const relist = relistOf(this.#state, this.stats.lists, o.resumeFrom !== undefined);
    this.#signal({ type: "replacing", relist });
    o.emit(INIT);
    let items = 0;
    for (const object of objects) {
      o.emit({ type: "init-apply", object });
      items++;
    }
    o.emit({ type: "init-done", resourceVersion: outcome.resourceVersion });
    this.#state = listed(this.#state, outcome);
    this.#signal({ type: "moved", resourceVersion: outcome.resourceVersion });
    const durationMs = o.clock.now() - started;
    this.#signal({ type: "listed", durationMs, items, pages: outcome.pages });
  }

  /**
   * One watch (or streaming list followed by its live watch). Returns normally when the server
   * closes the stream; true when the watch was healthy (delivered something or lasted a while),
   * false for a suspiciously empty, short one (the caller backs off). Throws on errors.
   *
   * A streaming list (`sendInitialEvents=true`) collects its initial objects and emits them as
   * one list at the `k8s.io/initial-events-end` bookmark. Its progress deadline
   * (`initialEventsTimeoutMs`) counts only progress toward that list: the bytes of a stream
   * that has delivered initial objects (ADDED) and shown nothing else. kube-apiserver's watch
   * cache sends the initial objects as ADDED events, then the end bookmark: in
   * `cacheWatcher.processInterval` (staging/src/k8s.io/apiserver/pkg/storage/cacher/
   * cache_watcher.go) the initial events of the interval go first, and the first bookmark a
   * watcher ever admits is the end bookmark (`nonblockingAdd` drops bookmarks older than
   * `bookmarkAfterResourceVersion`; `convertToWatchEvent` annotates the first one sent), so no
   * plain bookmark ever precedes it. Before the end bookmark was sent right after the interval
   * (older servers), live events newer than the list could come between the last initial
   * object and the end bookmark, which followed within about a second (the bookmark timer):
   * they are applied to the collected state, as client-go's reflector does. So a plain
   * bookmark, or a MODIFIED or DELETED event, before the end bookmark ends the deadline's
   * extensions: a real server finishes within it, while a server that accepts
   * `sendInitialEvents` but never finishes (keeping the connection alive with bookmarks and
   * live events) is abandoned within `initialEventsTimeoutMs` for a LIST. A stream that carries
   * no initial object is likewise given that long, from its start. A large stream of initial
   * objects that keeps flowing is never cut. The rule is `initialLine` (`reflector_state.ts`);
   * the state's `streaming` activity carries its progress, and `#collected` what it gathered.
   */
  async #watch(request: PlannedRequest, signal: AbortSignal): Promise<boolean> {
    const o = this.#o;
    const phase = request.kind;
    const stream = phase === "stream";
    const { controller, release } = linkedController(signal);
    this.#watching = controller;
    const opened = o.clock.now();
    let lines = 0;
    const watching = (): void => controller.abort(new WatchInactivityError(o.inactivityTimeoutMs));
    /** A streaming list's initial objects, emitted as a list at the end bookmark. */
    let collected: Map<string, T> | undefined = stream ? new Map() : undefined;
    /** How to find what the consumer holds of an unchanged initial object. */
    const known = stream ? o.known?.() : undefined;
    /** Whether bytes count as progress (always, but in a stream's initial phase see above). */
    let bytesCount = !stream;
    const idle = stream
      ? new IdleTimer(
        o.clock,
        o.initialEventsTimeoutMs,
        () =>
          controller.abort(
            new InitialEventsTimeoutError(o.initialEventsTimeoutMs, {
              unexpected: this.#initial()?.unexpected,
            }),
          ),
      )
      : new IdleTimer(o.clock, o.inactivityTimeoutMs, watching);
    /** A line of the initial phase: the pure rule decides what it is worth. */
    const initial = (line: InitialLine, now: number): void => {
      const a = this.#state.activity;
      if (a.phase !== "streaming") return;
      const step = initialLine(a.initial, line, now);
      if (step.phase !== a.initial) {
        this.#state = { ...this.#state, activity: { ...a, initial: step.phase } };
      }
      bytesCount = step.bytesCount;
      if (step.deadlineFrom !== undefined) idle.touch(step.deadlineFrom);
    };
    try {
      const response = await o.client.watch(o.resource, {
        namespace: o.namespace,
        labelSelector: o.labelSelector,
        fieldSelector: o.fieldSelector,
        resourceVersion: request.resourceVersion,
        allowWatchBookmarks: true,
        timeoutSeconds: 300 + Math.floor(o.random() * 300),
        sendInitialEvents: stream ? true : undefined,
        resourceVersionMatch: stream ? "NotOlderThan" : undefined,
        transport: o.transport,
        signal: controller.signal,
      });
      this.#signal(WATCH_OPENED);
      // The transport's own view of the bytes when it has one (Node: socket chunks, no Web
      // stream in between), else the standard body.
      const body = responseBytes(response);
      if (body === null) throw new TypeError("watch response has no body");
      const events = decodeWatchStream<KubeObject>(body, {
        signal: controller.signal,
        onProgress: (chunk) => {
          // In a stream's initial phase, a chunk of only line breaks and spaces (a keep-alive)
          // is no progress toward the initial list.
          if (bytesCount && (collected === undefined || !blank(chunk))) idle.touch(o.clock.now());
        },
        ...(o.maxLineLength === undefined ? {} : { maxLineLength: o.maxLineLength }),
      });
      for await (const event of events) {
        // The connection works: the next failure starts backing off from the beginning.
        if (lines++ === 0) {
          this.#recovery.connected();
          this.#state = received(this.#state);
        }
        this.#signal(LINE_SIGNALS[event.type]);
        if (event.type === "BOOKMARK") {
          if (collected !== undefined) {
            if (!event.initialEventsEnd) {
              initial("bookmark", o.clock.now());
              continue;
            }
            initial("end", o.clock.now());
            idle.restart(o.inactivityTimeoutMs, watching);
            const objects = collected;
            collected = undefined;
            this.#emitList(objects.values(), {
              request,
              resourceVersion: event.resourceVersion,
              pages: 1,
            }, opened);
            continue;
          }
          this.#moved(event.resourceVersion);
          o.emit({ type: "bookmark", resourceVersion: event.resourceVersion });
          continue;
        }
        const rv = event.object.metadata.resourceVersion;
        if (collected !== undefined) {
          initial(event.type, o.clock.now());
          const held = event.type === "DELETED" ? undefined : identified(known, event.object);
          const object = held ?? this.#transform(event.object, phase, true);
          if (object === undefined) continue;
          if (event.type === "DELETED") collected.delete(objectKey(object));
          else collected.set(objectKey(object), object);
          continue;
        }
        const object = this.#transform(event.object, phase, false);
        if (object === undefined) {
          if (rv !== undefined) this.#moved(rv);
          continue;
        }
        this.#signal(DELIVERED);
        const held = o.emit(
          event.type === "DELETED"
            ? { type: "delete", object, resourceVersion: rv }
            : { type: "apply", object, resourceVersion: rv },
        );
        if (held !== undefined) {
          idle.hold();
          try {
            await held;
          } finally {
            idle.release(o.clock.now());
          }
        }
        if (rv !== undefined) this.#moved(rv);
      }
      if (collected !== undefined) {
        // Ended before the initial-events-end bookmark: the server cannot finish a stream.
        throw new InitialEventsTimeoutError(o.initialEventsTimeoutMs, {
          closed: true,
          unexpected: this.#initial()?.unexpected,
        });
      }
      // A clean close: the caller re-watches from the last RV without relisting.
      return watchWasHealthy(lines, o.clock.now() - opened);
    } catch (error) {
      // An abort of ours (inactivity, initial events, a relist asked for) surfaces as its reason.
      if (!signal.aborted && controller.signal.aborted) {
        if (controller.signal.reason === RELIST_ASKED) return true;
        throw controller.signal.reason;
      }
      throw error;
    } finally {
      this.#watching = undefined;
      this.#recovery.watchEnded(o.clock.now() - opened);
      idle.stop();
      if (!controller.signal.aborted) controller.abort();
      release();
    }
  }

  /** The streaming list's initial phase, while the state is in one. */
  #initial(): InitialPhase | undefined {
    const a = this.#state.activity;
    return a.phase === "streaming" ? a.initial : undefined;
  }
}

/** Shared signals (they carry nothing). */
const PROGRESS: ReflectorSignal = Object.freeze({ type: "progress" });
const WATCH_OPENED: ReflectorSignal = Object.freeze({ type: "watch-opened" });

/** The abort reason of a watch closed by {@linkcode Reflector.requestRelist}. */
const RELIST_ASKED = new DOMException("relist requested", "AbortError");

/** What `known` finds for a decoded object (one with a string uid and resourceVersion). */
function identified<T>(known: KnownLookup<T> | undefined, object: KubeObjectLike): T | undefined {
  const m = object.metadata;
  if (known === undefined || typeof m?.uid !== "string") return undefined;
  if (typeof m.resourceVersion !== "string") return undefined;
  return known({
    namespace: m.namespace,
    name: m.name,
    uid: m.uid,
    resourceVersion: m.resourceVersion,
  });
}

/** Whether `chunk` holds only line breaks, tabs and spaces (keep-alive bytes, no event). */
function blank(chunk: Uint8Array): boolean {
  for (let i = 0; i < chunk.length; i++) {
    const byte = chunk[i]!;
    if (byte !== 0x0a && byte !== 0x0d && byte !== 0x20 && byte !== 0x09) return false;
  }
  return true;
}

/** What the reflector does after a failure, in words (the `action` of its error context). */
function recovery(wait: FailureWait, relist: boolean): string {
  if (wait === "longest") {
    return "retrying at the longest backoff (this request cannot succeed as configured)";
  }
  const what = relist ? "relisting" : "retrying";
  return wait === "none" ? `${what} at once` : `${what} with backoff`;
}
