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
import { KubeApiError } from "../client/errors.ts";
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
  type InitialListMode,
  initialState,
  listed,
  type ListWatchState,
  moved,
  planAfterFailure,
  type PlannedRequest,
  planNextRequest,
  received,
  type ReflectorState,
  relistAsked,
  type RelistReason,
  requestStarted,
  stopped,
} from "./reflector_state.ts";
import { RequestPacer } from "./request_pacer.ts";
import type { WatcherEvent } from "./watcher_event.ts";

export type { ReflectorState, RelistReason } from "./reflector_state.ts";

/**
 * The longest delay a server can ask for with `Retry-After` (or `retryAfterSeconds` in a
 * Status) that the reflector honours, in ms: one minute, twice the backoff cap. A longer one is
 * clamped to it, so a proxy sending nonsense cannot park the informer for hours. It is also
 * the delay between attempts of a request the server says it can never answer as configured
 * (406 Not Acceptable, kind `unsupported`).
 */
export const MAX_RETRY_AFTER_MS = 60_000;

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
  /** A list round finished. */
  onListDone?: ((durationMs: number, items: number, pages: number) => void) | undefined;
  /** A watch event (bookmarks included) arrived. */
  onEvent?: ((type: "ADDED" | "MODIFIED" | "DELETED" | "BOOKMARK") => void) | undefined;
  /** A list replaced an earlier state, for `reason`. */
  onRelist?: ((reason: RelistReason) => void) | undefined;
  /** A new watch is opened after the previous one ended for `kind`. */
  onReconnect?: ((kind: ErrorKind | "closed") => void) | undefined;
  /** The last synced resource version moved. */
  onResourceVersion?: ((resourceVersion: string) => void) | undefined;
}

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
  readonly #pacer: RequestPacer;
  /** Objects keep only their metadata (a metadata-only descriptor). */
  readonly #metadataOnly: boolean;
  /** Watches opened, for `stats.watchRestarts`. */
  #watches = 0;
  /** The open watch's controller (aborting it ends that watch): an I/O handle. */
  #watching: AbortController | undefined;
  /** Counters and timestamps for `health()`. */
  readonly stats: ReflectorStats = {
    lists: 0,
    relists: 0,
    watchRestarts: 0,
    events: 0,
    lastEventAt: undefined,
    lastBookmarkAt: undefined,
    lastActivityAt: undefined,
  };

  constructor(options: ReflectorOptions<T>) {
    this.#o = options;
    this.#state = initialState(options.initialList, options.resumeFrom);
    this.#metadataOnly = isMetadataOnly(options.resource);
    this.#typeMeta = typeMetaOf(options.resource);
    this.#pacer = new RequestPacer(
      exponentialBackoff(options.clock, { random: options.random }),
    );
  }

  /** The last resource version the consumer is known to be at. */
  get resourceVersion(): string | undefined {
    return this.#state.lastSyncResourceVersion;
  }

  /** Whether the server answers 404 for the resource (since the last completed list). */
  get notFound(): boolean {
    return this.#state.notFound === true;
  }

  /** What the reflector is doing. */
  get phase(): ReflectorState {
    return this.#state.phase;
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
    // Nothing learnt yet counts from the start: a first request that hangs shows as stalled.
    this.stats.lastActivityAt ??= o.clock.now();
    let endedBy: ErrorKind | "closed" | undefined;
    /** Delay owed by the last failure (backoff, Retry-After, or the longest wait), in ms. */
    let owed = 0;
    /** A streaming list completed and then closed: its watch goes on (see below). */
    let continuing = false;
    while (!signal.aborted) {
      // A start that waits a backoff is spaced already: the pacer counts the others.
      const wait = continuing || owed > 0 ? owed : this.#pacer.nextDelay();
      owed = 0;
      continuing = false;
      if (wait > 0) {
        this.#state = backingOff(this.#state);
        try {
          await sleep(wait, { clock: o.clock, signal });
        } catch {
          break; // aborted
        }
      }
      const request = planNextRequest(this.#state);
      if (endedBy !== undefined && request.kind === "watch") o.onReconnect?.(endedBy);
      endedBy = undefined;
      this.#state = requestStarted(this.#state, request);
      try {
        if (request.kind === "list") await this.#list(request, signal);
        else {
          const lists = this.stats.lists;
          const healthy = await this.#watch(request, signal);
          endedBy = "closed";
          // A streaming list closed right after its end bookmark (large clusters close them):
          // the list is complete and its watch goes on from the bookmark at once, outside the
          // pacer (which counted the stream), so every stream brings at most one such watch.
          continuing = request.kind === "stream" && this.stats.lists > lists;
          if (!healthy) owed = o.backoff.next();
        }
      } catch (error) {
        if (signal.aborted) break;
        const kind = errorKindOf(error);
        endedBy = kind;
        // A resource that stays gone is reported once, not at every retry.
        const known = kind === "not-found" && this.#state.notFound === true;
        const after = planAfterFailure(this.#state, { kind, request });
        this.#state = after.state;
        owed = after.wait === "none"
          ? 0
          : after.wait === "longest"
          ? MAX_RETRY_AFTER_MS
          : Math.max(backoffDelay(o.backoff), retryAfterMs(error));
        if (!known) {
          this.#o.onError(error, {
            phase: request.kind,
            action: kind === "not-found"
              ? "the resource is not served (reported once until it is back); retrying with backoff"
              : recovery(after.wait, request.kind === "watch" && this.#state.mustRelist),
            retryInMs: owed > 0 ? owed : undefined,
          });
        }
      }
    }
    this.#state = stopped(this.#state);
  }

  /** Runs the user's transform; a throw is reported (kind `transform`) and the object skipped. */
  #transform(object: KubeObjectLike, phase: ErrorPhase): T | undefined {
    try {
      // The server sends objects of the watched resource: the descriptor's object type. A
      // LIST's items carry no apiVersion and kind (watch events do): they get the resource's,
      // so every cached object says what it is, however it arrived.
      if (this.#metadataOnly) object = toPartialObjectMetadata(object);
      else if (object.kind === undefined && object.apiVersion === undefined) {
        (object as { apiVersion?: string }).apiVersion = this.#typeMeta.apiVersion;
        (object as { kind?: string }).kind = this.#typeMeta.kind;
      }
      return this.#o.transform(object as T);
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
    this.#o.onResourceVersion?.(resourceVersion);
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
      onProgress: (now) => void (this.stats.lastActivityAt = now),
      onExpiredContinue: (error) =>
        this.#o.onError(error, { phase: "list", action: "listing again from the first page" }),
    }, (item) => this.#transform(item, "list"));
    const count = this.#emitList(result.items, {
      request,
      resourceVersion: result.resourceVersion,
      pages: result.pages,
    });
    o.backoff.reset();
    o.onListDone?.(o.clock.now() - started, count, result.pages);
  }

  /**
   * Emits a complete state (`init`, each object, `init-done`) and moves to its version.
   * `objects` went through the transform as they arrived (a paged list page by page, a stream
   * event by event). Returns how many were emitted.
   */
  #emitList(
    objects: Iterable<T>,
    outcome: { request: PlannedRequest; resourceVersion: string; pages: number },
  ): number {
    const o = this.#o;
    if (this.stats.lists > 0 || o.resumeFrom !== undefined) {
      this.stats.relists++;
      // A resumed informer's first list has no earlier failure of its own: its watch expired.
      o.onRelist?.(this.#state.relistReason ?? "expired");
    }
    this.stats.lists++;
    this.stats.lastActivityAt = o.clock.now();
    o.emit(INIT);
    let count = 0;
    for (const object of objects) {
      o.emit({ type: "init-apply", object });
      count++;
    }
    o.emit({ type: "init-done", resourceVersion: outcome.resourceVersion });
    this.#state = listed(this.#state, outcome);
    o.onResourceVersion?.(outcome.resourceVersion);
    return count;
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
   * objects that keeps flowing is never cut.
   */
  async #watch(request: PlannedRequest, signal: AbortSignal): Promise<boolean> {
    const o = this.#o;
    const phase = request.kind;
    const stream = phase === "stream";
    if (this.#watches++ > 0) this.stats.watchRestarts++;
    const { controller, release } = linkedController(signal);
    this.#watching = controller;
    const opened = o.clock.now();
    let count = 0;
    const watching = (): void => controller.abort(new WatchInactivityError(o.inactivityTimeoutMs));
    // Streaming list: the initial state, emitted as a list at the end bookmark.
    let initial: Map<string, T> | undefined = stream ? new Map() : undefined;
    /** What the initial phase showed that a streaming list never does, if anything. */
    let unexpected: "bookmark" | "MODIFIED" | "DELETED" | undefined;
    /** Whether bytes count as progress (always, but in a stream's initial phase see above). */
    let bytesCount = !stream;
    /** When the initial phase last made progress (an initial object; the start). */
    let progressAt = opened;
    /** The initial phase showed what a streaming list does not: its progress ends here. */
    const suspect = (what: "bookmark" | "MODIFIED" | "DELETED"): void => {
      unexpected ??= what;
      bytesCount = false;
      idle.touch(progressAt); // the bytes of this very line were no progress either
    };
    const idle = stream
      ? new IdleTimer(
        o.clock,
        o.initialEventsTimeoutMs,
        () =>
          controller.abort(new InitialEventsTimeoutError(o.initialEventsTimeoutMs, { unexpected })),
      )
      : new IdleTimer(o.clock, o.inactivityTimeoutMs, watching);
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
      // The transport's own view of the bytes when it has one (Node: socket chunks, no Web
      // stream in between), else the standard body.
      const body = responseBytes(response);
      if (body === null) throw new TypeError("watch response has no body");
      const events = decodeWatchStream<KubeObject>(body, {
        signal: controller.signal,
        onProgress: (chunk) => {
          // In a stream's initial phase, a chunk of only line breaks and spaces (a keep-alive)
          // is no progress toward the initial list.
          if (bytesCount && (initial === undefined || !blank(chunk))) idle.touch(o.clock.now());
        },
        ...(o.maxLineLength === undefined ? {} : { maxLineLength: o.maxLineLength }),
      });
      for await (const event of events) {
        const now = o.clock.now();
        this.stats.lastActivityAt = now;
        // The connection works: the next failure starts backing off from the beginning.
        if (count++ === 0) {
          o.backoff.reset();
          this.#state = received(this.#state);
        }
        o.onEvent?.(event.type);
        if (event.type === "BOOKMARK") {
          this.stats.lastBookmarkAt = now;
          if (initial !== undefined) {
            if (!event.initialEventsEnd) {
              suspect("bookmark");
              continue;
            }
            idle.restart(o.inactivityTimeoutMs, watching);
            bytesCount = true;
            const objects = initial;
            initial = undefined;
            this.#emitList(objects.values(), {
              request,
              resourceVersion: event.resourceVersion,
              pages: 1,
            });
            o.onListDone?.(o.clock.now() - opened, objects.size, 1);
            continue;
          }
          this.#moved(event.resourceVersion);
          o.emit({ type: "bookmark", resourceVersion: event.resourceVersion });
          continue;
        }
        const rv = event.object.metadata.resourceVersion;
        if (initial !== undefined) {
          if (event.type !== "ADDED") suspect(event.type);
          else if (unexpected === undefined) {
            bytesCount = true;
            progressAt = now;
            idle.touch(now);
          }
          const object = this.#transform(event.object, phase);
          if (object === undefined) continue;
          if (event.type === "DELETED") initial.delete(objectKey(object));
          else initial.set(objectKey(object), object);
          continue;
        }
        const object = this.#transform(event.object, phase);
        if (object === undefined) {
          if (rv !== undefined) this.#moved(rv);
          continue;
        }
        this.stats.events++;
        this.stats.lastEventAt = now;
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
      if (initial !== undefined) {
        // Ended before the initial-events-end bookmark: the server cannot finish a stream.
        throw new InitialEventsTimeoutError(o.initialEventsTimeoutMs, { closed: true, unexpected });
      }
      // A clean close: the caller re-watches from the last RV without relisting.
      return count > 0 || o.clock.now() - opened >= 1000;
    } catch (error) {
      // An abort of ours (inactivity, initial events, a relist asked for) surfaces as its reason.
      if (!signal.aborted && controller.signal.aborted) {
        if (controller.signal.reason === RELIST_ASKED) return true;
        throw controller.signal.reason;
      }
      throw error;
    } finally {
      this.#watching = undefined;
      this.#pacer.watchEnded(o.clock.now() - opened);
      idle.stop();
      if (!controller.signal.aborted) controller.abort();
      release();
    }
  }
}

/** The abort reason of a watch closed by {@linkcode Reflector.requestRelist}. */
const RELIST_ASKED = new DOMException("relist requested", "AbortError");

/** The backoff's next delay, or 0 when a custom backoff answers nonsense (NaN, negative). */
function backoffDelay(backoff: Backoff): number {
  const ms = backoff.next();
  return typeof ms === "number" && ms > 0 ? Math.min(ms, MAX_RETRY_AFTER_MS) : 0;
}

/** The delay a server asked for (already validated by the client), clamped, in ms. */
function retryAfterMs(error: unknown): number {
  if (!(error instanceof KubeApiError) || error.retryAfterSeconds === undefined) return 0;
  return Math.min(error.retryAfterSeconds * 1000, MAX_RETRY_AFTER_MS);
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
function recovery(wait: "none" | "backoff" | "longest", relist: boolean): string {
  if (wait === "longest") {
    return "retrying at the longest backoff (this request cannot succeed as configured)";
  }
  const what = relist ? "relisting" : "retrying";
  return wait === "none" ? `${what} at once` : `${what} with backoff`;
}
