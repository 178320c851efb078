/**
 * The reflector: keeps a sink in step with the API server by LIST + WATCH, forever.
 * @module
 */
import type { KubeClient } from "../client/kube_client.ts";
import type { ResourceDescriptor } from "../client/resource.ts";
import type { KubeList, KubeObject } from "../client/types.ts";
import { KubeApiError } from "../client/errors.ts";
import { decodeWatchStream } from "../watch/watch_decoder.ts";
import { responseBytes } from "../watch/response_bytes.ts";
import type { Backoff } from "../util/backoff.ts";
import type { Clock } from "../util/clock.ts";
import { sleep } from "../util/clock.ts";
import {
  classifyError,
  type ErrorKind,
  InitialEventsTimeoutError,
  WatchInactivityError,
} from "./reflector_errors.ts";
import { objectKey } from "./object_key.ts";

/** How the reflector fetches the initial state: paged LIST, streaming list, or try stream first. */
export type InitialListMode = "list" | "stream" | "auto";

/** The reflector's state, as shown by `health().state`. */
export type ReflectorState = "idle" | "listing" | "watching" | "backing-off" | "stopped";

/** Everything the next-request decision depends on. */
export interface ReflectorPlanState {
  /** RV of the last completed list or last event/bookmark; undefined before the first list. */
  lastSyncResourceVersion: string | undefined;
  /** The cache must be rebuilt by a list (first run, or after 410). */
  mustRelist: boolean;
  /** The last list failed with Expired or ResourceVersionTooLarge: list at "" (consistent). */
  needsConsistentList: boolean;
  /** Configured initial-list mode. */
  initialList: InitialListMode;
  /** The server refused (or never finished) a streaming list: use LIST from now on. */
  streamUnavailable: boolean;
}

/** The request the reflector makes next. */
export type PlannedRequest =
  | { kind: "list"; resourceVersion: string }
  | { kind: "stream"; resourceVersion: string }
  | { kind: "watch"; resourceVersion: string };

/**
 * Decides the next request from the reflector's state; pure, so it is tested on its own.
 * First list at RV "0" (any state, cheap for the server), later lists at the last synced RV,
 * "" after an Expired/too-large failure; otherwise watch from the last RV.
 *
 * @example
 * ```ts
 * import { planNextRequest } from "@kinformer/kinformer/cache";
 * console.log(planNextRequest({ lastSyncResourceVersion: undefined, mustRelist: true, needsConsistentList: false, initialList: "list", streamUnavailable: false }));
 * // { kind: "list", resourceVersion: "0" }
 * ```
 */
export function planNextRequest(state: ReflectorPlanState): PlannedRequest {
  const rv = state.lastSyncResourceVersion;
  if (!state.mustRelist && rv !== undefined) return { kind: "watch", resourceVersion: rv };
  const stream = state.initialList !== "list" && !state.streamUnavailable;
  if (stream) {
    return { kind: "stream", resourceVersion: state.needsConsistentList ? "" : rv ?? "" };
  }
  return { kind: "list", resourceVersion: state.needsConsistentList ? "" : rv ?? "0" };
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

/**
 * Updates the plan after a failure and says whether to retry at once (no backoff); pure, so it
 * is tested on its own. An expired watch relists (at once, unless it had just started from a
 * list's RV: then that RV is already gone, so back off and list consistently); an expired or
 * too-large RV on a list retries at once with a consistent list (`""`); a streaming list the
 * server refuses or never finishes falls back to LIST for good. Everything else backs off.
 *
 * @example
 * ```ts
 * import { planAfterFailure } from "@kinformer/kinformer/cache";
 * const state = { lastSyncResourceVersion: "42", mustRelist: false, needsConsistentList: false, initialList: "list" as const, streamUnavailable: false };
 * const { retryNow } = planAfterFailure(state, { kind: "expired", request: { kind: "watch", resourceVersion: "42" }, freshFromList: false });
 * console.log(retryNow, state.mustRelist); // true true
 * ```
 */
export function planAfterFailure(
  state: ReflectorPlanState,
  failure: ReflectorFailure,
): { retryNow: boolean } {
  const { kind, request } = failure;
  if (request.kind === "watch") {
    if (kind === "too-large-rv") {
      state.mustRelist = true;
      state.needsConsistentList = true;
    }
    if (kind !== "expired") return { retryNow: false };
    state.mustRelist = true;
    if (!failure.freshFromList) return { retryNow: true };
    state.needsConsistentList = true;
    return { retryNow: false };
  }
  if (request.kind === "stream" && (kind === "invalid" || kind === "initial-events-timeout")) {
    state.streamUnavailable = true;
  }
  if (kind === "expired" || kind === "too-large-rv") {
    const wasConsistent = state.needsConsistentList || request.resourceVersion === "";
    state.needsConsistentList = true;
    return { retryNow: !wasConsistent };
  }
  return { retryNow: false };
}

/** Where the reflector delivers what it learns. */
export interface ReflectorSink<T extends KubeObject> {
  /** A complete state (a list, or a streaming list's initial events) at `resourceVersion`. */
  replace(items: T[], resourceVersion: string): void;
  /** One watch event. */
  apply(type: "ADDED" | "MODIFIED" | "DELETED", object: T): void;
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
export interface ReflectorOptions<T extends KubeObject> {
  client: KubeClient;
  resource: ResourceDescriptor;
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
  transform: (object: KubeObject) => T;
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

/** Linked abort: aborts when `parent` aborts or when `abort()` is called. */
function childController(parent: AbortSignal): { controller: AbortController; release(): void } {
  const controller = new AbortController();
  const onAbort = (): void => controller.abort(parent.reason);
  if (parent.aborted) controller.abort(parent.reason);
  else parent.addEventListener("abort", onAbort, { once: true });
  return { controller, release: () => parent.removeEventListener("abort", onAbort) };
}

/**
 * The ListAndWatch loop as an explicit state machine (listing, watching, backing off,
 * relisting). It never stops on an error: every error is reported through `onError` and the
 * loop recovers (relist on 410, back off with jitter on failures, honour `Retry-After`) until
 * the signal passed to {@linkcode Reflector.run} aborts. Internal: used by the informer.
 */
export class Reflector<T extends KubeObject> {
  #o: ReflectorOptions<T>;
  #plan: ReflectorPlanState;
  #watches = 0;
  /** True while the current watch started at a list's RV and has received nothing yet. */
  #freshFromList = false;
  /** RV of the last completed list. */
  #listedAt: string | undefined;
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
  }

  /** The last resource version the sink is known to be at. */
  get resourceVersion(): string | undefined {
    return this.#plan.lastSyncResourceVersion;
  }

  /** Runs until `signal` aborts; never rejects. */
  async run(signal: AbortSignal): Promise<void> {
    // Nothing learnt yet counts from the start: a first request that hangs shows as stalled.
    this.stats.lastActivityAt ??= this.#o.clock.now();
    let endedBy: ErrorKind | "closed" | undefined;
    while (!signal.aborted) {
      const next = planNextRequest(this.#plan);
      const phase = next.kind;
      if (endedBy !== undefined && next.kind === "watch") this.#o.onReconnect?.(endedBy);
      endedBy = undefined;
      try {
        if (next.kind === "list") {
          this.stats.state = "listing";
          await this.#list(next.resourceVersion, signal);
        } else {
          this.stats.state = next.kind === "stream" ? "listing" : "watching";
          this.#freshFromList = this.#listedAt === this.#plan.lastSyncResourceVersion;
          const healthy = await this.#watch(next, signal);
          endedBy = "closed";
          if (!healthy && !signal.aborted) await this.#backOff(undefined, signal);
        }
      } catch (error) {
        if (signal.aborted) break;
        const kind = classifyError(error);
        endedBy = kind;
        const { retryNow } = planAfterFailure(this.#plan, {
          kind,
          request: next,
          freshFromList: this.#freshFromList,
        });
        const retryAfterMs = error instanceof KubeApiError && error.retryAfterSeconds !== undefined
          ? error.retryAfterSeconds * 1000
          : 0;
        const delay = retryNow ? 0 : Math.max(this.#o.backoff.next(), retryAfterMs);
        this.#report(error, kind, phase, delay);
        if (delay > 0) await this.#backOff(delay, signal);
      }
    }
    this.stats.state = "stopped";
  }

  #report(error: unknown, kind: ErrorKind, phase: "list" | "stream" | "watch", retryInMs: number) {
    this.stats.errors[kind] = (this.stats.errors[kind] ?? 0) + 1;
    const message = error instanceof Error ? error.message : String(error);
    this.stats.lastError = { kind, message, at: this.#o.clock.now() };
    this.#o.onError(error, { kind, phase, retryInMs });
  }

  async #backOff(delay: number | undefined, signal: AbortSignal): Promise<void> {
    this.stats.state = "backing-off";
    try {
      await sleep(delay ?? this.#o.backoff.next(), this.#o.clock, signal);
    } catch {
      // aborted: the loop condition ends the run
    }
  }

  /** Runs the user's transform; a throw is reported (kind `transform`) and the object skipped. */
  #transform(object: KubeObject, phase: "list" | "stream" | "watch"): T | undefined {
    try {
      return this.#o.transform(object);
    } catch (error) {
      this.#report(error, "transform", phase, 0);
      return undefined;
    }
  }

  #setResourceVersion(rv: string): void {
    this.#plan.lastSyncResourceVersion = rv;
    this.#o.onResourceVersion?.(rv);
  }

  /** Runs one request that must answer within the inactivity limit (a half-open connection). */
  async #withTimeout<R>(
    signal: AbortSignal,
    request: (signal: AbortSignal) => Promise<R>,
  ): Promise<R> {
    const o = this.#o;
    const { controller, release } = childController(signal);
    const timer = o.clock.setTimeout(
      () => controller.abort(new WatchInactivityError(o.inactivityTimeoutMs)),
      o.inactivityTimeoutMs,
    );
    try {
      return await request(controller.signal);
    } catch (error) {
      if (!signal.aborted && controller.signal.aborted) throw controller.signal.reason;
      throw error;
    } finally {
      o.clock.clearTimeout(timer);
      release();
    }
  }

  /**
   * Paged LIST; on an expired continue token, one unpaged list at the same RV. Pages are
   * pipelined: the next page is requested as soon as this one's continue token shows at the
   * head of its body, while the rest of it is still arriving.
   */
  async #list(resourceVersion: string, signal: AbortSignal): Promise<void> {
    const o = this.#o;
    const started = o.clock.now();
    const base = {
      namespace: o.namespace,
      labelSelector: o.labelSelector,
      fieldSelector: o.fieldSelector,
    };
    // Every page request of this list, so leaving early cancels the ones still in flight.
    const { controller: listing, release } = childController(signal);
    // At most one page ahead: the page being read may start the next one as soon as its
    // continue token shows; a page that is not used is cancelled at once.
    interface Pending {
      page: Promise<KubeList<KubeObject>>;
      cancel(): void;
      /** Continue token seen at the head of this page's body. */
      peeked?: string;
      /** The next page, requested early with `peeked`. */
      next?: Pending;
    }
    let current: Pending | undefined;
    const request = (cont: string | undefined): Pending => {
      const { controller, release: unlink } = childController(listing.signal);
      const pending: Pending = {
        page: this.#withTimeout(controller.signal, (s) =>
          o.client.list(o.resource, {
            ...base,
            limit: o.pageSize,
            continue: cont,
            resourceVersion: cont === undefined ? resourceVersion : undefined,
            signal: s,
            onContinue: (token) => {
              if (token === "") return;
              pending.peeked = token;
              if (pending === current && !controller.signal.aborted) pending.next = request(token);
            },
          })),
        cancel: () => controller.abort(),
      };
      pending.page.catch(() => {}).finally(unlink); // awaited below, or cancelled
      return pending;
    };
    const items: T[] = [];
    let pages = 0;
    let listRV: string | undefined;
    let cont: string | undefined;
    current = request(undefined);
    try {
      for (;;) {
        let page: KubeList<KubeObject>;
        let next: Pending | undefined;
        try {
          page = await current.page;
          next = current.next;
        } catch (error) {
          if (cont === undefined || !(error instanceof KubeApiError) || !error.isExpired) {
            throw error;
          }
          // The snapshot behind the continue token was compacted: one full list instead.
          this.#report(error, "expired", "list", 0);
          items.length = 0;
          page = await this.#withTimeout(
            listing.signal,
            (s) => o.client.list(o.resource, { ...base, resourceVersion, signal: s }),
          );
        }
        pages++;
        listRV = page.metadata.resourceVersion;
        for (const item of page.items) {
          const t = this.#transform(item, "list");
          if (t !== undefined) items.push(t);
        }
        cont = page.metadata.continue || undefined;
        if (next !== undefined && current.peeked !== cont) {
          next.cancel(); // the head said otherwise than the page: never use it
          next = undefined;
        }
        if (cont === undefined) break;
        current = next ?? request(cont);
        // This page's token may have shown while it was not yet current: go one ahead now.
        if (current.peeked !== undefined && current.next === undefined) {
          current.next = request(current.peeked);
        }
      }
    } finally {
      listing.abort();
      release();
    }
    if (listRV === undefined) {
      throw new KubeApiError({
        code: 500,
        bodySnippet: "list response had no metadata.resourceVersion",
      });
    }
    this.#listed(items, listRV);
    o.backoff.reset();
    o.onListDone?.(o.clock.now() - started, items.length, pages);
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
    this.#plan.mustRelist = false;
    this.#plan.needsConsistentList = false;
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
    const { controller, release } = childController(signal);
    const opened = o.clock.now();
    let received = 0;
    let timer: unknown;
    let initialTimer: unknown;
    // One timer per watch, moved only when it fires early: clearing and setting a timer for
    // every event cost about 10% of the decode+deliver time on Deno (bench/, scenario 1).
    let lastSeen = 0;
    const onInactivityTimer = (): void => {
      const idle = o.clock.now() - lastSeen;
      if (idle >= o.inactivityTimeoutMs) {
        timer = undefined;
        controller.abort(new WatchInactivityError(o.inactivityTimeoutMs));
      } else {
        timer = o.clock.setTimeout(onInactivityTimer, o.inactivityTimeoutMs - idle);
      }
    };
    const armInactivity = (now: number): void => {
      lastSeen = now;
      timer ??= o.clock.setTimeout(onInactivityTimer, o.inactivityTimeoutMs);
    };
    // Streaming list: collect the initial state, swap it in at the end bookmark.
    let initial: Map<string, T> | undefined = stream ? new Map() : undefined;
    if (stream) {
      initialTimer = o.clock.setTimeout(
        () => controller.abort(new InitialEventsTimeoutError(o.initialEventsTimeoutMs)),
        o.initialEventsTimeoutMs,
      );
    }
    try {
      armInactivity(opened);
      const response = await o.client.watch(o.resource, {
        namespace: o.namespace,
        labelSelector: o.labelSelector,
        fieldSelector: o.fieldSelector,
        resourceVersion: req.resourceVersion,
        allowWatchBookmarks: true,
        timeoutSeconds: 300 + Math.floor(o.random() * 300),
        sendInitialEvents: stream ? true : undefined,
        resourceVersionMatch: stream ? "NotOlderThan" : undefined,
        signal: controller.signal,
      });
      // The transport's own view of the bytes when it has one (Node: socket chunks, no Web
      // stream in between), else the standard body.
      const body = responseBytes(response);
      if (body === null) throw new TypeError("watch response has no body");
      const events = decodeWatchStream<KubeObject>(
        body,
        o.maxLineLength === undefined
          ? { signal: controller.signal }
          : { signal: controller.signal, maxLineLength: o.maxLineLength },
      );
      for await (const event of events) {
        const now = o.clock.now();
        armInactivity(now);
        this.stats.lastActivityAt = now;
        // The connection works: the next failure starts backing off from the beginning.
        if (received++ === 0) {
          o.backoff.reset();
          this.#freshFromList = false;
        }
        o.onEvent?.(event.type);
        if (event.type === "BOOKMARK") {
          this.stats.lastBookmarkAt = o.clock.now();
          if (initial !== undefined) {
            if (!event.initialEventsEnd) continue;
            o.clock.clearTimeout(initialTimer);
            const items = [...initial.values()];
            initial = undefined;
            this.#listed(items, event.resourceVersion);
            o.onListDone?.(o.clock.now() - opened, items.length, 1);
            this.stats.state = "watching";
            continue;
          }
          this.#setResourceVersion(event.resourceVersion);
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
        o.sink.apply(event.type, object);
        if (rv !== undefined) this.#setResourceVersion(rv);
      }
      if (initial !== undefined) {
        // Ended before the initial-events-end bookmark: the server cannot finish a stream.
        throw new InitialEventsTimeoutError(o.initialEventsTimeoutMs, true);
      }
      // A clean close: the caller re-watches from the last RV without relisting.
      return received > 0 || o.clock.now() - opened >= 1000;
    } catch (error) {
      // An abort of ours (inactivity, initial events) surfaces as its reason.
      if (!signal.aborted && controller.signal.aborted) throw controller.signal.reason;
      throw error;
    } finally {
      if (timer !== undefined) o.clock.clearTimeout(timer);
      if (initialTimer !== undefined) o.clock.clearTimeout(initialTimer);
      if (!controller.signal.aborted) controller.abort();
      release();
    }
  }
}
