/**
 * The shared informer: one reflector, one cache, many listeners.
 * @module
 */
import type { KubeClient } from "../client/kube_client.ts";
import type { ResourceDescriptor } from "../client/resource.ts";
import type { KubeObject } from "../client/types.ts";
import { type Backoff, type BackoffOptions, exponentialBackoff } from "../util/backoff.ts";
import { type Clock, systemClock } from "../util/clock.ts";
import { compareResourceVersions } from "../util/resource_version.ts";
import { waitFor } from "../util/wait_for.ts";
import { resourceKey } from "../client/resource.ts";
import { type Delta, DeltaFIFO } from "./delta_fifo.ts";
import { Indexer, type Indexers, type Store } from "./indexer.ts";
import type { InformerEvent, OverflowPolicy } from "./informer_event.ts";
import { Listener } from "./listener.ts";
import { Lister } from "./lister.ts";
import {
  type InitialListMode,
  Reflector,
  type ReflectorErrorContext,
  type ReflectorState,
} from "./reflector.ts";
import type { ErrorKind } from "./reflector_errors.ts";

/** Options of {@linkcode createInformer}. */
export interface InformerOptions<T extends KubeObject = KubeObject> {
  /** The resource to watch, e.g. `pods` from `@kinformer/kinformer/client`. */
  resource: ResourceDescriptor;
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
   * back to LIST when the server refuses or never sends the end bookmark. `"auto"`: the same
   * as `"stream"`. @default "list"
   */
  initialList?: InitialListMode | undefined;
  /**
   * Runs on every object before it is cached (e.g. strip `metadata.managedFields`). It receives
   * the decoded object and may change and return it.
   * @default identity
   */
  transform?: ((object: KubeObject) => T) | undefined;
  /** Extra index functions (a `namespace` index is built in). @default {} */
  indexers?: Indexers<T> | undefined;
  /** Time source. @default systemClock */
  clock?: Clock | undefined;
  /** Backoff between failed attempts, or options for the default (800 ms x2 to 30 s, jittered). */
  backoff?: Backoff | BackoffOptions | undefined;
  /** Random source in [0, 1) for jitter and watch timeouts. @default Math.random */
  random?: (() => number) | undefined;
  /**
   * Reconnect a watch that sent nothing (no event, no bookmark) for this long, in ms.
   * Bookmarks come about once a minute. @default 150000
   */
  inactivityTimeoutMs?: number | undefined;
  /** Give up on a streaming list without its end bookmark after this long, in ms. @default 60000 */
  initialEventsTimeoutMs?: number | undefined;
  /** Longest accepted watch line, in bytes. @default 16 MiB */
  maxLineLength?: number | undefined;
  /** Called for every error (the informer keeps recovering). @default undefined */
  onError?: ((error: unknown, context: InformerErrorContext) => void) | undefined;
  /**
   * Resume from a {@linkcode InformerCheckpoint}: seed the cache with its objects and watch from
   * its resource version with no LIST. The seeded objects count as already seen: listeners are
   * not sent them again (unless they ask with `replayCache: true`). If the server no longer has
   * that version (410), the informer relists and listeners see only the difference.
   * @default undefined
   */
  resumeFrom?: InformerCheckpoint<T> | undefined;
  /** Callbacks for metrics (list durations, events, relists, reconnects, ...). @default undefined */
  metrics?: InformerMetrics | undefined;
}

/**
 * Metric callbacks; every field is optional. Wire them to any metrics library, or use
 * `prometheusMetrics` from `@kinformer/kinformer/metrics` for the Prometheus text format with
 * no dependency.
 */
export interface InformerMetrics {
  /** A LIST round (all pages) or streaming list finished. */
  onList?(durationMs: number, items: number, pages: number): void;
  /** A watch event arrived (`ADDED`, `MODIFIED`, `DELETED`, `BOOKMARK`). */
  onWatchEvent?(type: "ADDED" | "MODIFIED" | "DELETED" | "BOOKMARK"): void;
  /** A list replaced an earlier state (a relist after 410, or the first list of a resumed informer). */
  onRelist?(): void;
  /** The watch is reconnecting after `kind` of failure (or `"closed"` for a clean end). */
  onReconnect?(kind: ErrorKind | "closed"): void;
  /** A watch line could not be decoded. */
  onDecodeError?(error: unknown): void;
  /** Called after each batch of events with the largest listener backlog. */
  onListenerBacklog?(maxBacklog: number): void;
}

/**
 * A small JSON-serializable snapshot of an informer: where it was (resource version), what it
 * watched, and optionally the cached objects (after `transform`). Pass it back as `resumeFrom`.
 */
export interface InformerCheckpoint<T extends KubeObject = KubeObject> {
  /** Format version. */
  version: 1;
  /** Identity of the resource (`group/version/resource`). */
  resource: string;
  /** Namespace watched, `""` for all. */
  namespace: string;
  /** Label selector watched. */
  labelSelector: string;
  /** Field selector watched. */
  fieldSelector: string;
  /** The resource version the cache was at. */
  resourceVersion: string;
  /** The cached objects, when asked for. */
  objects?: T[];
}

/** What an error callback learns besides the error. */
export interface InformerErrorContext {
  /** How the error is filed. */
  kind: ErrorKind;
  /** Where it happened. */
  phase: "list" | "stream" | "watch" | "handler";
  /** Delay before the next attempt, in ms (0 for handler errors). */
  retryInMs: number;
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

/**
 * Callbacks of {@linkcode SharedInformer.addEventHandler}. A callback may return a promise: the
 * next event for this handler waits for it (other listeners are not held up).
 */
export interface EventHandler<T extends KubeObject = KubeObject> {
  /** A new object; `isInInitialList` for the handler's initial population. */
  onAdd?(object: T, isInInitialList: boolean): void | Promise<void>;
  /** `newObject` replaced `oldObject` (the same object on a resync). */
  onUpdate?(oldObject: T, newObject: T): void | Promise<void>;
  /** `object` is the last known state; `finalStateUnknown` when inferred from a relist. */
  onDelete?(object: T, finalStateUnknown: boolean): void | Promise<void>;
  /** The handler has received its whole initial population. */
  onSynced?(): void | Promise<void>;
}

/** Handle returned by {@linkcode SharedInformer.addEventHandler}. */
export interface HandlerRegistration {
  /** True once this handler has been called for every object of its initial population. */
  hasSynced(): boolean;
  /**
   * Resolves once {@linkcode HandlerRegistration.hasSynced} is true. Rejects with the signal's
   * reason on abort, or with an Error if the handler is removed (or the informer stops) first.
   */
  waitForSync(options?: { signal?: AbortSignal | undefined }): Promise<void>;
  /** Stops delivering to this handler. */
  remove(): void;
}

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
  /** `idle` (not started), `listing`, `watching`, `backing-off`, `stopped`. */
  state: ReflectorState;
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
  /** Errors by kind. */
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
}

/**
 * Keeps a local cache of one resource in step with the API server and tells listeners what
 * changed. One LIST+WATCH connection serves every listener; each listener has its own buffer,
 * so a slow one never holds up the others. Nothing happens until {@linkcode SharedInformer.start}.
 *
 * @example
 * ```ts
 * import { createInformer } from "@kinformer/kinformer";
 * import { KubeClient, pods } from "@kinformer/kinformer/client";
 * import { SimulatedCluster } from "@kinformer/kinformer/testing";
 * const cluster = new SimulatedCluster();
 * cluster.create(pods, { metadata: { namespace: "default", name: "web-1" } });
 * const client = new KubeClient({ server: "http://sim.local", fetch: cluster.fetch });
 * await using informer = createInformer(client, { resource: pods });
 * informer.start();
 * for await (const ev of informer.events()) {
 *   console.log(ev.type);
 *   if (ev.type === "synced") break;
 * }
 * cluster.close();
 * ```
 */
export class SharedInformer<T extends KubeObject = KubeObject> implements AsyncDisposable {
  /** The cache (read-only; objects are shared with every consumer). */
  readonly store: Store<T>;
  /** Selector-aware queries over the cache. */
  readonly lister: Lister<T>;
  #client: KubeClient;
  #options: InformerOptions<T>;
  #clock: Clock;
  #indexer: Indexer<T>;
  #fifo: DeltaFIFO<T>;
  #reflector: Reflector<T>;
  #listeners = new Set<Listener<T>>();
  #synced = false;
  #syncWaiters = new Set<() => void>();
  #controller: AbortController | undefined;
  #run: Promise<void> | undefined;
  #stopped = false;
  #resyncTimer: unknown;
  #resyncAt = Infinity;
  #syncing: Set<Listener<T>> | undefined;
  #resumed: boolean;
  #metrics: InformerMetrics | undefined;
  #rvWaiters = new Set<() => void>();

  /** Use {@linkcode createInformer}. */
  constructor(client: KubeClient, options: InformerOptions<T>) {
    validateOptions(options);
    this.#client = client;
    this.#options = options;
    this.#clock = options.clock ?? systemClock;
    this.#indexer = new Indexer<T>(options.indexers ?? {});
    this.store = this.#indexer;
    this.lister = new Lister(this.#indexer);
    this.#fifo = new DeltaFIFO<T>({ knownObjects: this.#indexer });
    const resume = options.resumeFrom;
    this.#resumed = resume !== undefined;
    if (resume !== undefined) {
      checkCheckpoint(resume, options);
      for (const object of resume.objects ?? []) this.#indexer.set(object);
      this.#synced = true;
    }
    const metrics = guardMetrics(
      options.metrics,
      (error) => this.#reportError(error, { kind: "handler", phase: "handler", retryInMs: 0 }),
    );
    this.#metrics = metrics;
    const backoff = options.backoff;
    const random = options.random ?? Math.random;
    this.#reflector = new Reflector<T>({
      client,
      resource: options.resource,
      namespace: options.namespace,
      labelSelector: options.labelSelector,
      fieldSelector: options.fieldSelector,
      pageSize: options.pageSize ?? 500,
      initialList: options.initialList ?? "list",
      clock: this.#clock,
      backoff: isBackoff(backoff)
        ? backoff
        : exponentialBackoff(this.#clock, { random, ...backoff }),
      random,
      inactivityTimeoutMs: options.inactivityTimeoutMs ?? 150_000,
      initialEventsTimeoutMs: options.initialEventsTimeoutMs ?? 60_000,
      maxLineLength: options.maxLineLength,
      transform: options.transform ?? ((o: KubeObject) => o as T),
      sink: {
        replace: (items) => {
          this.#fifo.replace(items);
          this.#drain();
        },
        apply: (type, object) => {
          if (type === "ADDED") this.#fifo.add(object);
          else if (type === "MODIFIED") this.#fifo.update(object);
          else this.#fifo.delete(object);
          this.#drain();
        },
      },
      onError: (error, context) => {
        if (context.kind === "decode") metrics?.onDecodeError?.(error);
        this.#reportError(error, context);
      },
      resumeFrom: resume?.resourceVersion,
      onListDone: metrics?.onList,
      onEvent: metrics?.onWatchEvent,
      onRelist: metrics?.onRelist,
      onReconnect: metrics?.onReconnect,
      onResourceVersion: () => {
        for (const wake of this.#rvWaiters) wake();
        this.#rvWaiters.clear();
      },
    });
  }

  /** The client this informer uses. */
  get client(): KubeClient {
    return this.#client;
  }

  /** The options it was created with. */
  get options(): Readonly<InformerOptions<T>> {
    return this.#options;
  }

  /** The resource version the cache is at (advanced by events and bookmarks). */
  get resourceVersion(): string | undefined {
    return this.#reflector.resourceVersion;
  }

  /** Starts listing and watching; idempotent. Aborting `signal` stops the informer. */
  start(signal?: AbortSignal): void {
    if (this.#run !== undefined || this.#stopped) return;
    const controller = new AbortController();
    this.#controller = controller;
    if (signal !== undefined) {
      if (signal.aborted) {
        void this.stop();
        return;
      }
      const onAbort = (): void => void this.stop();
      signal.addEventListener("abort", onAbort, { once: true });
      controller.signal.addEventListener(
        "abort",
        () => signal.removeEventListener("abort", onAbort),
        { once: true },
      );
    }
    this.#run = this.#reflector.run(controller.signal);
  }

  /** Stops the reflector, closes every listener and releases every timer and connection. */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#controller?.abort(new DOMException("informer stopped", "AbortError"));
    await this.#run;
    if (this.#resyncTimer !== undefined) this.#clock.clearTimeout(this.#resyncTimer);
    this.#resyncTimer = undefined;
    for (const l of this.#listeners) l.close();
    this.#listeners.clear();
    for (const wake of this.#syncWaiters) wake();
    this.#syncWaiters.clear();
    for (const wake of this.#rvWaiters) wake();
    this.#rvWaiters.clear();
  }

  /**
   * A JSON-serializable snapshot to resume from later (`resumeFrom`), e.g. in the next run of a
   * serverless job. With `includeObjects`, the cached objects (after `transform`) come along, so
   * a resumed informer starts with a full cache and no LIST. Throws before the first sync.
   *
   * @example
   * ```ts
   * import { createInformer } from "@kinformer/kinformer";
   * import { KubeClient, pods } from "@kinformer/kinformer/client";
   * import { SimulatedCluster } from "@kinformer/kinformer/testing";
   * const cluster = new SimulatedCluster();
   * const client = new KubeClient({ server: "http://sim", fetch: cluster.fetch });
   * const first = createInformer(client, { resource: pods });
   * first.start();
   * await first.waitForSync();
   * const saved = JSON.stringify(first.checkpoint({ includeObjects: true }));
   * await first.stop();
   * const second = createInformer(client, { resource: pods, resumeFrom: JSON.parse(saved) });
   * second.start(); // watches from the saved resource version: no LIST
   * await second.stop();
   * cluster.close();
   * ```
   */
  checkpoint(options: { includeObjects?: boolean | undefined } = {}): InformerCheckpoint<T> {
    const rv = this.#reflector.resourceVersion;
    if (rv === undefined || !this.#synced) {
      throw new Error("checkpoint() needs a synced informer (call after waitForSync())");
    }
    const o = this.#options;
    const cp: InformerCheckpoint<T> = {
      version: 1,
      resource: resourceKey(o.resource),
      namespace: o.namespace ?? "",
      labelSelector: o.labelSelector ?? "",
      fieldSelector: o.fieldSelector ?? "",
      resourceVersion: rv,
    };
    if (options.includeObjects) cp.objects = this.#indexer.list();
    return cp;
  }

  /** Same as {@linkcode SharedInformer.stop}, for `await using`. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.stop();
  }

  /** True once the cache holds a complete initial list. */
  hasSynced(): boolean {
    return this.#synced;
  }

  /**
   * Resolves once the cache is synced. Rejects with the signal's reason on abort, or with an
   * Error when the informer is stopped first.
   */
  waitForSync(options: { signal?: AbortSignal | undefined } = {}): Promise<void> {
    return waitFor(
      this.#syncWaiters,
      () => this.#synced ? "done" : this.#stopped ? "failed" : "pending",
      "informer stopped before it synced",
      options.signal,
    );
  }

  /**
   * Streams this informer's events: first the current cache as `add` (`isInInitialList: true`),
   * then `{ type: "synced" }`, then live changes. Ends when the signal aborts, the iterator is
   * returned (`break`), or the informer stops.
   *
   * @example
   * ```ts
   * import { createInformer } from "@kinformer/kinformer";
   * import { KubeClient, configmaps } from "@kinformer/kinformer/client";
   * import { SimulatedCluster } from "@kinformer/kinformer/testing";
   * const cluster = new SimulatedCluster();
   * const informer = createInformer(new KubeClient({ server: "http://sim", fetch: cluster.fetch }), { resource: configmaps });
   * informer.start();
   * const ac = new AbortController();
   * for await (const ev of informer.events({ signal: ac.signal })) {
   *   if (ev.type === "synced") cluster.create(configmaps, { metadata: { namespace: "default", name: "c" } });
   *   if (ev.type === "add") ac.abort();
   * }
   * await informer.stop();
   * cluster.close();
   * ```
   */
  events(options: EventsOptions = {}): AsyncIterableIterator<InformerEvent<T>> {
    if (options.until !== undefined && options.until !== "current") {
      throw new TypeError(`until must be "current", got ${JSON.stringify(options.until)}`);
    }
    const listener = this.#addListener(options);
    const signal = options.signal;
    const finish = (): void => {
      signal?.removeEventListener("abort", finish);
      this.#removeListener(listener);
    };
    signal?.addEventListener("abort", finish, { once: true });
    if (signal?.aborted) finish();
    // Catch-up run: the resource version to reach, learned once at the start.
    const catchUp = options.until === "current";
    let goal: string | undefined;
    let goalError: { error: unknown } | undefined;
    let goalSettled: Promise<void> | undefined;
    if (catchUp && !listener.closed) {
      goalSettled = this.#currentResourceVersion(signal).then(
        (rv) => void (goal = rv),
        (error) => void (goalError = { error }),
      );
    }
    const startRV = this.#reflector.resourceVersion;
    let eventWait: Promise<void> | undefined;
    let rvWait: Promise<void> | undefined;
    const reached = (): boolean => {
      if (goal === undefined) return false;
      const rv = this.#reflector.resourceVersion;
      if (!this.#synced || rv === undefined) return false;
      const cmp = compareResourceVersions(rv, goal);
      return cmp === undefined ? rv !== startRV : cmp >= 0;
    };
    const done: IteratorReturnResult<undefined> = { done: true, value: undefined };
    const iterator: AsyncIterableIterator<InformerEvent<T>> = {
      next: async (): Promise<IteratorResult<InformerEvent<T>>> => {
        for (;;) {
          const value = listener.shift();
          if (value !== undefined) return { done: false, value };
          if (listener.closed || (catchUp && reached())) {
            finish();
            return done;
          }
          if (goalError !== undefined) {
            finish();
            throw goalError.error;
          }
          if (!catchUp) await listener.wait();
          else {
            // Reuse pending waits across turns, so nothing piles up between events.
            eventWait ??= listener.wait().then(() => void (eventWait = undefined));
            rvWait ??= this.#resourceVersionMoved().then(() => void (rvWait = undefined));
            const waits = [eventWait, rvWait];
            if (goal === undefined && goalSettled !== undefined) waits.push(goalSettled);
            await Promise.race(waits);
          }
        }
      },
      return: (): Promise<IteratorResult<InformerEvent<T>>> => {
        finish();
        return Promise.resolve(done);
      },
      [Symbol.asyncIterator]: () => iterator,
    };
    return iterator;
  }

  /**
   * Calls `handler` for every event, in order, from its own buffer. A late handler first gets
   * the current cache as adds. Handler errors go to `onError` (kind `handler`) and do not stop
   * delivery.
   *
   * @example
   * ```ts
   * import { createInformer } from "@kinformer/kinformer";
   * import { KubeClient, pods } from "@kinformer/kinformer/client";
   * import { SimulatedCluster } from "@kinformer/kinformer/testing";
   * const cluster = new SimulatedCluster();
   * const informer = createInformer(new KubeClient({ server: "http://sim", fetch: cluster.fetch }), { resource: pods });
   * const reg = informer.addEventHandler({ onAdd: (pod) => console.log("added", pod.metadata.name) });
   * informer.start();
   * await informer.waitForSync();
   * console.log(reg.hasSynced() || "handler still catching up");
   * reg.remove();
   * await informer.stop();
   * cluster.close();
   * ```
   */
  addEventHandler(handler: EventHandler<T>, options: ListenerOptions = {}): HandlerRegistration {
    const listener = this.#addListener(options);
    const signal = options.signal;
    const remove = (): void => {
      signal?.removeEventListener("abort", remove);
      this.#removeListener(listener);
    };
    signal?.addEventListener("abort", remove, { once: true });
    let running = false;
    const syncWaiters = new Set<() => void>();
    const pump = async (): Promise<void> => {
      if (running) return;
      running = true;
      try {
        for (;;) {
          const ev = listener.shift();
          if (ev === undefined) break;
          try {
            const r = dispatch(handler, ev);
            if (r !== undefined) await r;
          } catch (error) {
            this.#reportError(error, { kind: "handler", phase: "handler", retryInMs: 0 });
          }
          if (ev.type === "synced") { for (const wake of syncWaiters) wake(); }
        }
      } finally {
        running = false;
      }
      if (!listener.closed) listener.onWake(() => void pump());
      else for (const wake of syncWaiters) wake();
    };
    void pump();
    const waitForSync = (options: { signal?: AbortSignal | undefined } = {}): Promise<void> =>
      waitFor(
        syncWaiters,
        () => listener.synced ? "done" : listener.closed ? "failed" : "pending",
        "event handler removed before it synced",
        options.signal,
      );
    return { hasSynced: () => listener.synced, waitForSync, remove };
  }

  /** Resolves when the resource version next moves (or the informer stops). */
  #resourceVersionMoved(): Promise<void> {
    if (this.#stopped) return Promise.resolve();
    return new Promise((resolve) => this.#rvWaiters.add(resolve));
  }

  /** The server's current resource version, from a consistent `limit=1` list. */
  async #currentResourceVersion(signal: AbortSignal | undefined): Promise<string> {
    const o = this.#options;
    const page = await this.#client.list(o.resource, {
      namespace: o.namespace,
      labelSelector: o.labelSelector,
      fieldSelector: o.fieldSelector,
      limit: 1,
      signal,
    });
    const rv = page.metadata.resourceVersion;
    if (rv === undefined) throw new Error("list response had no metadata.resourceVersion");
    return rv;
  }

  /** A snapshot of the informer's state, counters and listener backlogs. */
  health(): InformerHealth {
    const s = this.#reflector.stats;
    const now = this.#clock.now();
    const limit = this.#options.inactivityTimeoutMs ?? 150_000;
    return {
      state: s.state,
      synced: this.#synced,
      lastSyncResourceVersion: this.#reflector.resourceVersion,
      objects: this.#indexer.size,
      lastEventAt: s.lastEventAt,
      lastBookmarkAt: s.lastBookmarkAt,
      lists: s.lists,
      relists: s.relists,
      watchRestarts: s.watchRestarts,
      events: s.events,
      errors: { ...s.errors },
      lastError: s.lastError,
      stalled: s.state !== "stopped" && s.state !== "idle" && s.lastActivityAt !== undefined &&
        now - s.lastActivityAt > limit,
      listeners: [...this.#listeners].map((l) => ({
        backlog: l.backlog,
        highWater: l.highWater,
        synced: l.synced,
        overflow: l.policy,
      })),
    };
  }

  #reportError(error: unknown, context: ReflectorErrorContext | InformerErrorContext): void {
    const onError = this.#options.onError;
    if (onError === undefined) return;
    try {
      onError(error, context);
    } catch {
      // An error callback that throws must not break the informer.
    }
  }

  #addListener(options: ListenerOptions): Listener<T> {
    const overflow = options.overflow ?? "grow";
    if (overflow !== "grow" && overflow !== "coalesce") {
      throw new TypeError(`overflow must be "grow" or "coalesce", got ${JSON.stringify(overflow)}`);
    }
    const resync = options.resyncPeriodMs ?? this.#options.resyncPeriodMs ?? 0;
    checkNonNegative("resyncPeriodMs", resync);
    const listener = new Listener<T>(overflow, resync);
    if (this.#stopped) {
      listener.close();
      return listener;
    }
    // A late listener first gets the cache as its initial population.
    if (options.replayCache ?? !this.#resumed) {
      for (const object of this.#indexer.values()) {
        listener.push({ type: "add", object, isInInitialList: true });
      }
    }
    if (this.#synced) listener.push({ type: "synced" });
    this.#listeners.add(listener);
    if (resync > 0) {
      listener.nextResyncAt = this.#clock.now() + resync;
      this.#scheduleResync();
    }
    return listener;
  }

  #removeListener(listener: Listener<T>): void {
    listener.close();
    this.#listeners.delete(listener);
  }

  /** Pops every queued key and applies it to the cache and the listeners. */
  #drain(): void {
    for (;;) {
      const popped = this.#fifo.pop();
      if (popped === undefined) break;
      try {
        this.#handleDeltas(popped[0], popped[1]);
      } catch (error) {
        // An index function threw: report it; the other keys go on.
        this.#reportError(error, { kind: "handler", phase: "watch", retryInMs: 0 });
      }
    }
    if (!this.#synced && this.#fifo.hasSynced()) {
      this.#synced = true;
      const synced: InformerEvent<T> = { type: "synced" };
      for (const l of this.#listeners) if (!l.syncQueued) l.push(synced);
      for (const wake of this.#syncWaiters) wake();
      this.#syncWaiters.clear();
    }
    this.#reportBacklog();
  }

  #reportBacklog(): void {
    const hook = this.#metrics?.onListenerBacklog;
    if (hook === undefined) return;
    let max = 0;
    for (const l of this.#listeners) if (l.backlog > max) max = l.backlog;
    hook(max);
  }

  #handleDeltas(key: string, deltas: Delta<T>[]): void {
    const initial = !this.#synced;
    for (const delta of deltas) {
      const old = this.#indexer.get(key);
      const object = delta.object;
      if (delta.type === "Deleted") {
        // A delete for a key the cache never held still reaches listeners: a consumer resumed
        // from a checkpoint without objects may know it (tombstones always have `old`).
        if (old === undefined) {
          if (!delta.finalStateUnknown) {
            this.#notify({ type: "delete", object, finalStateUnknown: false });
          }
          continue;
        }
        this.#indexer.delete(key);
        const last = delta.finalStateUnknown ? old : object;
        this.#notify({
          type: "delete",
          object: last,
          finalStateUnknown: delta.finalStateUnknown === true,
        });
        continue;
      }
      if (delta.type === "Sync") {
        if (old === undefined) continue;
        const targets = this.#syncing;
        const ev: InformerEvent<T> = { type: "update", object: old, oldObject: old };
        if (targets !== undefined) { for (const l of targets) l.push(ev); }
        continue;
      }
      if (
        delta.type === "Replaced" && old !== undefined &&
        old.metadata.uid === object.metadata.uid &&
        old.metadata.resourceVersion !== undefined &&
        old.metadata.resourceVersion === object.metadata.resourceVersion
      ) {
        continue; // a relist found it unchanged: nothing to tell, keep the shared object
      }
      this.#indexer.set(object, key);
      if (old === undefined) {
        this.#notify({ type: "add", object, isInInitialList: initial });
      } else if (
        old.metadata.uid !== object.metadata.uid && old.metadata.uid && object.metadata.uid
      ) {
        // Deleted and re-created under the same name while we were not looking.
        this.#notify({ type: "delete", object: old, finalStateUnknown: true });
        this.#notify({ type: "add", object, isInInitialList: initial });
      } else {
        this.#notify({ type: "update", object, oldObject: old });
      }
    }
  }

  #notify(event: InformerEvent<T>): void {
    for (const l of this.#listeners) l.push(event);
  }

  #scheduleResync(): void {
    let next = Infinity;
    for (const l of this.#listeners) if (l.nextResyncAt < next) next = l.nextResyncAt;
    if (next === Infinity || next >= this.#resyncAt) return;
    if (this.#resyncTimer !== undefined) this.#clock.clearTimeout(this.#resyncTimer);
    this.#resyncAt = next;
    this.#resyncTimer = this.#clock.setTimeout(
      () => this.#resync(),
      Math.max(0, next - this.#clock.now()),
    );
  }

  #resync(): void {
    this.#resyncTimer = undefined;
    this.#resyncAt = Infinity;
    if (this.#stopped) return;
    const now = this.#clock.now();
    const due = new Set<Listener<T>>();
    for (const l of this.#listeners) {
      if (l.nextResyncAt <= now) {
        due.add(l);
        l.nextResyncAt = now + l.resyncPeriodMs;
      }
    }
    if (due.size > 0 && this.#synced) {
      this.#fifo.resync();
      this.#syncing = due;
      try {
        this.#drain();
      } finally {
        this.#syncing = undefined;
      }
    }
    this.#scheduleResync();
  }
}

function dispatch<T extends KubeObject>(
  handler: EventHandler<T>,
  ev: InformerEvent<T>,
): void | Promise<void> {
  switch (ev.type) {
    case "add":
      return handler.onAdd?.(ev.object, ev.isInInitialList);
    case "update":
      return handler.onUpdate?.(ev.oldObject, ev.object);
    case "delete":
      return handler.onDelete?.(ev.object, ev.finalStateUnknown);
    case "synced":
      return handler.onSynced?.();
  }
}

/** Wraps every hook so a throwing one is reported instead of breaking the informer. */
function guardMetrics(
  metrics: InformerMetrics | undefined,
  report: (error: unknown) => void,
): InformerMetrics | undefined {
  if (metrics === undefined) return undefined;
  const guarded: InformerMetrics = {};
  const names: (keyof InformerMetrics)[] = [
    "onList",
    "onWatchEvent",
    "onRelist",
    "onReconnect",
    "onDecodeError",
    "onListenerBacklog",
  ];
  for (const name of names) {
    const hook = metrics[name] as ((...args: unknown[]) => void) | undefined;
    if (typeof hook !== "function") continue;
    (guarded as Record<string, (...args: unknown[]) => void>)[name] = (...args) => {
      try {
        hook.apply(metrics, args);
      } catch (error) {
        report(error);
      }
    };
  }
  return guarded;
}

function checkCheckpoint<T extends KubeObject>(
  cp: InformerCheckpoint<T>,
  o: InformerOptions<T>,
): void {
  if (
    typeof cp !== "object" || cp === null || cp.version !== 1 ||
    typeof cp.resourceVersion !== "string"
  ) {
    throw new TypeError(
      `resumeFrom is not a kinformer checkpoint: ${JSON.stringify(cp)?.slice(0, 100)}`,
    );
  }
  const mine = [
    resourceKey(o.resource),
    o.namespace ?? "",
    o.labelSelector ?? "",
    o.fieldSelector ?? "",
  ];
  const theirs = [cp.resource, cp.namespace, cp.labelSelector, cp.fieldSelector];
  if (mine.join("|") !== theirs.join("|")) {
    throw new TypeError(`resumeFrom was taken for ${theirs.join("|")}, not ${mine.join("|")}`);
  }
}

function isBackoff(b: Backoff | BackoffOptions | undefined): b is Backoff {
  return b !== undefined && typeof (b as Backoff).next === "function";
}

function checkNonNegative(name: string, value: unknown): void {
  if (typeof value !== "number" || !(value >= 0) || !Number.isFinite(value)) {
    throw new RangeError(`${name} must be a non-negative number, got ${String(value)}`);
  }
}

function validateOptions<T extends KubeObject>(o: InformerOptions<T>): void {
  if (typeof o !== "object" || o === null) throw new TypeError("informer options are required");
  const r = o.resource;
  if (typeof r !== "object" || r === null || typeof r.resource !== "string" || !r.version) {
    throw new TypeError(`resource must be a ResourceDescriptor, got ${JSON.stringify(r)}`);
  }
  if (o.namespace !== undefined && o.namespace !== "" && !r.namespaced) {
    throw new TypeError(
      `namespace ${JSON.stringify(o.namespace)} given for cluster-scoped ${r.resource}`,
    );
  }
  if (o.pageSize !== undefined && !(Number.isInteger(o.pageSize) && o.pageSize > 0)) {
    throw new RangeError(`pageSize must be a positive integer, got ${o.pageSize}`);
  }
  const modes = ["list", "stream", "auto"];
  if (o.initialList !== undefined && !modes.includes(o.initialList)) {
    throw new TypeError(
      `initialList must be one of ${modes.join(", ")}, got ${JSON.stringify(o.initialList)}`,
    );
  }
  for (const name of ["resyncPeriodMs", "inactivityTimeoutMs", "initialEventsTimeoutMs"] as const) {
    if (o[name] !== undefined) checkNonNegative(name, o[name]);
  }
  if (o.transform !== undefined && typeof o.transform !== "function") {
    throw new TypeError("transform must be a function");
  }
}

/**
 * Creates a {@linkcode SharedInformer} for one resource (optionally one namespace and
 * selectors). Nothing happens until `start()`.
 *
 * @example
 * ```ts
 * import { createInformer } from "@kinformer/kinformer";
 * import { KubeClient, pods } from "@kinformer/kinformer/client";
 * import { SimulatedCluster } from "@kinformer/kinformer/testing";
 * const cluster = new SimulatedCluster();
 * const informer = createInformer(new KubeClient({ server: "http://sim", fetch: cluster.fetch }), {
 *   resource: pods,
 *   namespace: "default",
 *   transform: (pod) => { delete pod.metadata.managedFields; return pod; },
 * });
 * informer.start();
 * await informer.waitForSync();
 * console.log(informer.store.list().length);
 * await informer.stop();
 * cluster.close();
 * ```
 */
export function createInformer<T extends KubeObject = KubeObject>(
  client: KubeClient,
  options: InformerOptions<T>,
): SharedInformer<T> {
  return new SharedInformer<T>(client, options);
}
