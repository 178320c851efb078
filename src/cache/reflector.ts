/**
 * The reflector: keeps a sink in step with the API server by LIST + WATCH, forever.
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
import { IdleTimer } from "../util/idle_timer.ts";
import { type ErrorKind, errorKindOf } from "../util/error_kind.ts";
import { InitialEventsTimeoutError, WatchInactivityError } from "./reflector_errors.ts";
import { objectKey } from "./object_key.ts";
import { listAllPages } from "./list_pager.ts";
import {
  type InitialListMode,
  planAfterFailure,
  type PlannedRequest,
  planNextRequest,
  type ReflectorPlanState,
} from "./reflector_plan.ts";
import { RequestPacer } from "./request_pacer.ts";
import { messageOf } from "../util/values.ts";

/** The reflector's state, as shown by `health().state`. */
export type ReflectorState = "idle" | "listing" | "watching" | "backing-off" | "stopped";

/**
 * The longest delay a server can ask for with `Retry-After` (or `retryAfterSeconds` in a
 * Status) that the reflector honours, in ms: one minute, twice the backoff cap. A longer one is
 * clamped to it, so a proxy sending nonsense cannot park the informer for hours.
 *
 * @example
 * ```ts
 * import { MAX_RETRY_AFTER_MS } from "@kinformer/kinformer/cache";
 * import assert from "node:assert/strict";
 * assert.equal(MAX_RETRY_AFTER_MS, 60_000);
 * ```
 */
export const MAX_RETRY_AFTER_MS = 60_000;

/** Where the reflector delivers what it learns. */
export interface ReflectorSink<T extends KubeObjectLike> {
  /** A complete state (a list, or a streaming list's initial events) at `resourceVersion`. */
  replace(items: T[], resourceVersion: string): void;
  /**
   * One watch event. A returned promise holds the watch (no more bytes are read) until it
   * settles: back-pressure for a consumer that cannot keep up. The idle timer does not count
   * that time.
   */
  apply(type: "ADDED" | "MODIFIED" | "DELETED", object: T): void | Promise<void>;
  /** A bookmark moved the resource version with no change. */
  progress?(resourceVersion: string): void;
}

/** Counters and timestamps for `health()`. */
export interface ReflectorStats {
  /** Current state. */
  state: ReflectorState;
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
  /** Errors by kind. */
  errors: Partial<Record<ErrorKind, number>>;
  /** The last error. */
  lastError: { kind: ErrorKind; message: string; at: number } | undefined;
}

/** Context passed to the error callback. */
export interface ReflectorErrorContext {
  /** How the error is filed. */
  kind: ErrorKind;
  /** What the reflector was doing. */
  phase: "list" | "stream" | "watch";
  /** Delay before the next attempt, in ms. */
  retryInMs: number;
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
  sink: ReflectorSink<T>;
  onError: (error: unknown, context: ReflectorErrorContext) => void;
  /** Start watching from here without a LIST (a checkpoint). */
  resumeFrom?: string | undefined;
  /** A list round finished. */
  onListDone?: ((durationMs: number, items: number, pages: number) => void) | undefined;
  /** A watch event (bookmarks included) arrived. */
  onEvent?: ((type: "ADDED" | "MODIFIED" | "DELETED" | "BOOKMARK") => void) | undefined;
  /** A list replaced an earlier state. */
  onRelist?: (() => void) | undefined;
  /** A new watch is opened after the previous one ended for `kind`. */
  onReconnect?: ((kind: ErrorKind | "closed") => void) | undefined;
  /** The last synced resource version moved. */
  onResourceVersion?: ((resourceVersion: string) => void) | undefined;
}

/**
 * The ListAndWatch loop as an explicit state machine (listing, watching, backing off,
 * relisting). It never stops on an error: every error is reported through `onError` and the
 * loop recovers (relist on 410, back off with jitter on failures, honour `Retry-After` up to
 * {@linkcode MAX_RETRY_AFTER_MS}) until the signal passed to {@linkcode Reflector.run} aborts.
 * Every request start goes through a {@linkcode RequestPacer}, so no server behaviour can make
 * it hammer the API server. Internal: used by the informer.
 */
export class Reflector<T extends KubeObjectLike> {
  #o: ReflectorOptions<T>;
  /** The plan's state; the reflector's own copy, so the resource version is set in place. */
  #plan: { -readonly [K in keyof ReflectorPlanState]: ReflectorPlanState[K] };
  #pacer: RequestPacer;
  /** Objects keep only their metadata (a metadata-only descriptor). */
  readonly #metadataOnly: boolean;
  #watches = 0;
  /** True while the current watch started at a list's RV and has received nothing yet. */
  #freshFromList = false;
  /** RV of the last completed list. */
  #listedAt: string | undefined;
  /** The open watch's controller (aborting it ends that watch). */
  #watching: AbortController | undefined;
  /** A relist was asked for after the current list request started (it may predate the ask). */
  #relistAsked = false;
  readonly stats: ReflectorStats = {
    state: "idle",
    lists: 0,
    relists: 0,
    watchRestarts: 0,
    events: 0,
    lastEventAt: undefined,
    lastBookmarkAt: undefined,
    lastActivityAt: undefined,
    errors: {},
    lastError: undefined,
  };

  constructor(options: ReflectorOptions<T>) {
    this.#o = options;
    this.#plan = {
      lastSyncResourceVersion: options.resumeFrom,
      mustRelist: options.resumeFrom === undefined,
      needsConsistentList: false,
      initialList: options.initialList,
      streamUnavailable: false,
    };
    this.#metadataOnly = isMetadataOnly(options.resource);
    this.#pacer = new RequestPacer(
      exponentialBackoff(options.clock, { random: options.random }),
    );
  }

  /** The last resource version the sink is known to be at. */
  get resourceVersion(): string | undefined {
    return this.#plan.lastSyncResourceVersion;
  }

  /**
   * Asks for a relist: a consistent LIST (`resourceVersion=""`, paged) swapped in through the
   * sink's `replace`, so the sink learns exactly what differs, then a watch from its resource
   * version. An open watch is closed at once; a list already under way is followed by another
   * one (it may have been answered from the state being repaired). The relist passes the
   * request pacer like any other request.
   */
  requestRelist(): void {
    this.#relistAsked = true;
    this.#plan = { ...this.#plan, mustRelist: true, needsConsistentList: true };
    this.#watching?.abort(RELIST_ASKED);
  }

  /** Runs until `signal` aborts; never rejects. */
  async run(signal: AbortSignal): Promise<void> {
    // Nothing learnt yet counts from the start: a first request that hangs shows as stalled.
    this.stats.lastActivityAt ??= this.#o.clock.now();
    let endedBy: ErrorKind | "closed" | undefined;
    /** Delay owed by the last failure (backoff or Retry-After), in ms. */
    let owed = 0;
    while (!signal.aborted) {
      const wait = Math.max(owed, this.#pacer.nextDelay());
      owed = 0;
      if (wait > 0) {
        await this.#backOff(wait, signal);
        if (signal.aborted) break;
      }
      const next = planNextRequest(this.#plan);
      const phase = next.kind;
      if (endedBy !== undefined && next.kind === "watch") this.#o.onReconnect?.(endedBy);
      endedBy = undefined;
      if (next.kind !== "watch") this.#relistAsked = false;
      try {
        if (next.kind === "list") {
          this.stats.state = "listing";
          await this.#list(next.resourceVersion, next.paged, signal);
        } else {
          this.stats.state = next.kind === "stream" ? "listing" : "watching";
          this.#freshFromList = this.#listedAt === this.#plan.lastSyncResourceVersion;
          const healthy = await this.#watch(next, signal);
          endedBy = "closed";
          if (!healthy) owed = this.#o.backoff.next();
        }
      } catch (error) {
        if (signal.aborted) break;
        const kind = errorKindOf(error);
        endedBy = kind;
        const { state, retryNow } = planAfterFailure(this.#plan, {
          kind,
          request: next,
          freshFromList: this.#freshFromList,
        });
        this.#plan = state;
        owed = retryNow ? 0 : Math.max(backoffDelay(this.#o.backoff), retryAfterMs(error));
        this.#report(error, kind, phase, owed);
      }
    }
    this.stats.state = "stopped";
  }

  #report(error: unknown, kind: ErrorKind, phase: "list" | "stream" | "watch", retryInMs: number) {
    this.stats.errors[kind] = (this.stats.errors[kind] ?? 0) + 1;
    const message = messageOf(error);
    this.stats.lastError = { kind, message, at: this.#o.clock.now() };
    this.#o.onError(error, { kind, phase, retryInMs });
  }

  async #backOff(delay: number, signal: AbortSignal): Promise<void> {
    this.stats.state = "backing-off";
    try {
      await sleep(delay, { clock: this.#o.clock, signal });
    } catch {
      // aborted: the loop condition ends the run
    }
  }

  /** Runs the user's transform; a throw is reported (kind `transform`) and the object skipped. */
  #transform(object: KubeObjectLike, phase: "list" | "stream" | "watch"): T | undefined {
    try {
      // The server sends objects of the watched resource: the descriptor's object type.
      if (this.#metadataOnly) object = toPartialObjectMetadata(object);
      return this.#o.transform(object as T);
    } catch (error) {
      this.#report(error, "transform", phase, 0);
      return undefined;
    }
  }

  #setResourceVersion(rv: string): void {
    // Once per watch event: an assignment, not a copy of the plan.
    this.#plan.lastSyncResourceVersion = rv;
    this.#o.onResourceVersion?.(rv);
  }

  /** One whole LIST (paged when `paged`), swapped into the sink at once. */
  async #list(resourceVersion: string, paged: boolean, signal: AbortSignal): Promise<void> {
    const o = this.#o;
    const started = o.clock.now();
    const listed = await listAllPages({
      client: o.client,
      resource: o.resource,
      namespace: o.namespace,
      labelSelector: o.labelSelector,
      fieldSelector: o.fieldSelector,
      resourceVersion,
      pageSize: paged ? o.pageSize : undefined,
      clock: o.clock,
      idleTimeoutMs: o.inactivityTimeoutMs,
      signal,
      onProgress: (now) => void (this.stats.lastActivityAt = now),
      onExpiredContinue: (error) => this.#report(error, "expired", "list", 0),
    });
    const items: T[] = [];
    for (const item of listed.items) {
      const t = this.#transform(item, "list");
      if (t !== undefined) items.push(t);
    }
    // A first list at "0" that came back in pages shows a server that pages this resource.
    if (resourceVersion === "0" && listed.pages > 1 && this.stats.lists === 0) {
      this.#plan = { ...this.#plan, paginatedResult: true };
    }
    this.#listed(items, listed.resourceVersion);
    o.backoff.reset();
    o.onListDone?.(o.clock.now() - started, items.length, listed.pages);
  }

  #listed(items: T[], resourceVersion: string): void {
    if (this.stats.lists > 0 || this.#o.resumeFrom !== undefined) {
      this.stats.relists++;
      this.#o.onRelist?.();
    }
    this.stats.lists++;
    this.#listedAt = resourceVersion;
    this.stats.lastActivityAt = this.#o.clock.now();
    this.#o.sink.replace(items, resourceVersion);
    this.#setResourceVersion(resourceVersion);
    // Streaming is tried again at the next relist, whatever happened during this one.
    this.#plan = {
      ...this.#plan,
      mustRelist: this.#relistAsked,
      needsConsistentList: this.#relistAsked,
      streamUnavailable: false,
    };
  }

  /**
   * One watch (or streaming list followed by its live watch). Returns normally when the server
   * closes the stream; true when the watch was healthy (delivered something or lasted a while),
   * false for a suspiciously empty, short one (the caller backs off). Throws on errors.
   */
  async #watch(req: PlannedRequest, signal: AbortSignal): Promise<boolean> {
    const o = this.#o;
    const stream = req.kind === "stream";
    if (this.#watches++ > 0) this.stats.watchRestarts++;
    const { controller, release } = linkedController(signal);
    this.#watching = controller;
    const opened = o.clock.now();
    let received = 0;
    // A streaming list's initial phase is cut when it stops making progress (no byte for
    // initialEventsTimeoutMs), however long it runs while data flows; then, as for any watch,
    // nothing for inactivityTimeoutMs means a half-open connection.
    const watching = (): void => controller.abort(new WatchInactivityError(o.inactivityTimeoutMs));
    const idle = stream
      ? new IdleTimer(
        o.clock,
        o.initialEventsTimeoutMs,
        () => controller.abort(new InitialEventsTimeoutError(o.initialEventsTimeoutMs)),
      )
      : new IdleTimer(o.clock, o.inactivityTimeoutMs, watching);
    // Streaming list: collect the initial state, swap it in at the end bookmark.
    let initial: Map<string, T> | undefined = stream ? new Map() : undefined;
    try {
      const response = await o.client.watch(o.resource, {
        namespace: o.namespace,
        labelSelector: o.labelSelector,
        fieldSelector: o.fieldSelector,
        resourceVersion: req.resourceVersion,
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
        onProgress: () => idle.touch(o.clock.now()),
        ...(o.maxLineLength === undefined ? {} : { maxLineLength: o.maxLineLength }),
      });
      for await (const event of events) {
        const now = o.clock.now();
        this.stats.lastActivityAt = now;
        // The connection works: the next failure starts backing off from the beginning.
        if (received++ === 0) {
          o.backoff.reset();
          this.#freshFromList = false;
        }
        o.onEvent?.(event.type);
        if (event.type === "BOOKMARK") {
          this.stats.lastBookmarkAt = now;
          if (initial !== undefined) {
            if (!event.initialEventsEnd) continue;
            idle.restart(o.inactivityTimeoutMs, watching);
            const items = [...initial.values()];
            initial = undefined;
            this.#listed(items, event.resourceVersion);
            o.onListDone?.(o.clock.now() - opened, items.length, 1);
            this.stats.state = "watching";
            continue;
          }
          this.#setResourceVersion(event.resourceVersion);
          o.sink.progress?.(event.resourceVersion);
          continue;
        }
        const rv = event.object.metadata.resourceVersion;
        const object = this.#transform(event.object, stream ? "stream" : "watch");
        if (object === undefined) {
          if (rv !== undefined && initial === undefined) this.#setResourceVersion(rv);
          continue;
        }
        if (initial !== undefined) {
          if (event.type === "DELETED") initial.delete(objectKey(object));
          else initial.set(objectKey(object), object);
          continue;
        }
        this.stats.events++;
        this.stats.lastEventAt = now;
        const held = o.sink.apply(event.type, object);
        if (held !== undefined) {
          idle.hold();
          try {
            await held;
          } finally {
            idle.release(o.clock.now());
          }
        }
        if (rv !== undefined) this.#setResourceVersion(rv);
      }
      if (initial !== undefined) {
        // Ended before the initial-events-end bookmark: the server cannot finish a stream.
        throw new InitialEventsTimeoutError(o.initialEventsTimeoutMs, true);
      }
      // A clean close: the caller re-watches from the last RV without relisting.
      return received > 0 || o.clock.now() - opened >= 1000;
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
