/**
 * The shared informer: one reflector, one cache, many listeners. The wiring and the lifecycle;
 * the parts live next to it (options, checkpoint, delta processing, events iterator, handlers,
 * the reflector observer, the error tally).
 * @module
 */
import type { KubeClient } from "../client/kube_client.ts";
import type { KubeObject, KubeObjectLike } from "../client/types.ts";
import type { ListItemIdentity } from "../client/list_body.ts";
import { onAbort } from "../util/abort.ts";
import { type Clock, systemClock } from "../util/clock.ts";
import { envFlag } from "../util/env.ts";
import { ErrorReporter, type ReportDetails } from "../util/error_reporter.ts";
import { Lifecycle, LifecycleError } from "../util/lifecycle.ts";
import { describeValue } from "../util/values.ts";
import { explainAbort } from "../util/wait_for.ts";
import { type InformerCheckpoint, makeCheckpoint } from "./checkpoint.ts";
import type { CheckpointError } from "./checkpoint_error.ts";
import { resumeFromCheckpoint } from "./_checkpoint_validation.ts";
import { ConsistencyChecker } from "./consistency_check.ts";
import {
  consistencyCheckDefaults,
  type ConsistencyCheckResult,
} from "./consistency_check_options.ts";
import { attachHandler, type EventHandler, type HandlerRegistration } from "./event_handler.ts";
import { currentResourceVersion, eventsIterator } from "./events_iterator.ts";
import { CacheMemory } from "./cache_memory.ts";
import { EventLag } from "./event_lag.ts";
import { ErrorTally } from "./error_tally.ts";
import { Indexer, type Store } from "./indexer.ts";
import type { InformerEvent } from "./informer_event.ts";
import { type InformerHealth, informerHealth } from "./informer_health.ts";
import { guardMetrics, type InformerMetrics } from "./informer_metrics.ts";
import {
  type EventsOptions,
  type InformerOptions,
  informerSource,
  type ListenerOptions,
  listWatchSettings,
  validateInformerOptions,
  validateListenerOptions,
} from "./informer_options.ts";
import { type Joined, ListenerSet } from "./listener_set.ts";
import { Lister } from "./lister.ts";
import { keyOf } from "./object_key.ts";
import { MutationDetector, trackedStore } from "./mutation_detector.ts";
import { Reflector } from "./reflector.ts";
import { observeReflector } from "./reflector_observer.ts";
import { ResourceVersionWaiters } from "./resource_version_reached.ts";
import { StoreWriter } from "./store_writer.ts";
import type { WatcherEvent } from "./watcher_event.ts";

export type { EventHandler, HandlerRegistration } from "./event_handler.ts";
export type { InformerCheckpoint } from "./checkpoint.ts";
export type {
  ConsistencyCheckOptions,
  ConsistencyCheckResult,
  ConsistencyHealth,
} from "./consistency_check_options.ts";
export type { InformerHealth, ListenerHealth } from "./informer_health.ts";
export type { InformerMetrics } from "./informer_metrics.ts";
export type {
  CheckpointLimits,
  EventsOptions,
  InformerOptions,
  ListenerOptions,
} from "./informer_options.ts";
export type { ErrorContext, ErrorPhase, OnError } from "../util/error_context.ts";
export type { LifecycleState } from "../util/lifecycle.ts";

/**
 * Keeps a local cache of one resource in step with the API server and tells listeners what
 * changed. One LIST+WATCH connection serves every listener; each listener has its own buffer,
 * so a slow one never holds up the others. Nothing happens until {@linkcode SharedInformer.start}.
 *
 * Inside, it is `watcher -> store writer -> listeners`: a reflector (the engine `watcher()`
 * runs) emits the list/watch protocol's steps, a {@linkcode StoreWriter} turns them into the
 * cache and the changes, and each listener buffers the changes for its consumer.
 *
 * @example
 * ```ts
 * import { createInformer } from "@kinformer/kinformer";
 * import { KubeClient, pods } from "@kinformer/kinformer/client";
 * import { SimulatedCluster } from "@kinformer/kinformer/testing";
 * import assert from "node:assert/strict";
 * const cluster = new SimulatedCluster();
 * cluster.create(pods, { metadata: { namespace: "default", name: "web-1" } });
 * const client = new KubeClient({ server: "http://sim.local", fetch: cluster.fetch });
 * await using informer = createInformer(client, { resource: pods });
 * informer.start();
 * const seen: string[] = [];
 * for await (const ev of informer.events()) {
 *   seen.push(ev.type === "add" ? `add ${ev.object.metadata.name}` : ev.type);
 *   if (ev.type === "synced") break;
 * }
 * assert.deepEqual(seen, ["add web-1", "synced"]);
 * cluster.close();
 * ```
 */
export class SharedInformer<T extends KubeObjectLike = KubeObject> implements AsyncDisposable {
  /** The cache (read-only; objects are shared with every consumer). */
  readonly store: Store<T>;
  /** Selector-aware queries over the cache. */
  readonly lister: Lister<T>;
  #client: KubeClient;
  #options: InformerOptions<T>;
  /** Idle limit of watches and LIST responses, with its default applied. */
  #inactivityTimeoutMs: number;
  #clock: Clock;
  #indexer: Indexer<T>;
  /** How the cache holds objects (the `memory` option), and its size estimate. */
  #memory: CacheMemory<T>;
  /** Server write to consumer, per live event (for `health().eventLag`). */
  #lag: EventLag;
  /** The middle of `reflector -> store writer -> listeners`: the cache and what changed in it. */
  #writer: StoreWriter<T>;
  #reflector: Reflector<T>;
  #listeners: ListenerSet<T>;
  /** Names the informer in errors and printed lines: `"pods informer"`. */
  readonly #source: string;
  /** The one reporting path: `onError`, or the default printing. */
  readonly #reporter: ErrorReporter;
  /** idle, starting (until the first sync), running, stopping, stopped; runs once. */
  readonly #life: Lifecycle;
  #controller: AbortController | undefined;
  #run: Promise<void> | undefined;
  /** What `start()` returns: settles at the first sync or the stop, never rejects. */
  #whenStarted: Promise<void> | undefined;
  /** The stop under way (or done). */
  #stopping: Promise<void> | undefined;
  /** When `start()` was called, for what `waitForSync` says on a timeout. */
  #startedAt: number | undefined;
  /** Started from a checkpoint that was accepted. */
  #resumed = false;
  /** A checkpoint refused at construction, reported to `onError` at `start()`. */
  #refused: CheckpointError | undefined;
  #metrics: InformerMetrics | undefined;
  /** Waits on the cache's resource version (the reflector's observer wakes them). */
  #rvWaiters = new ResourceVersionWaiters(() => ({
    synced: this.#writer.synced,
    resourceVersion: this.#reflector.resourceVersion,
    stopped: this.#life.state === "stopping" || this.#life.state === "stopped",
  }));
  #checker: ConsistencyChecker;
  /** The cache mutation detector, when `detectMutations` is on. */
  #mutations: MutationDetector<T> | undefined;
  /** Errors of listing and watching (and a refused checkpoint) by kind, for `health()`. */
  readonly #errors: ErrorTally;

  /** Use {@linkcode createInformer}. */
  constructor(client: KubeClient, options: InformerOptions<T>) {
    validateInformerOptions(options);
    this.#client = client;
    this.#options = options;
    const settings = listWatchSettings(options, client);
    this.#inactivityTimeoutMs = settings.inactivityTimeoutMs;
    this.#clock = options.clock ?? systemClock;
    const clock = this.#clock;
    this.#lag = new EventLag(() => clock.now());
    this.#errors = new ErrorTally(clock);
    this.#source = informerSource(options);
    this.#reporter = new ErrorReporter({
      source: this.#source,
      onError: options.onError,
      clock: this.#clock,
    });
    this.#life = new Lifecycle(this.#source, { restartable: false });
    // A listener's resync: the cache is queued again as Sync deltas and delivered to it.
    this.#listeners = new ListenerSet<T>({
      clock,
      requeue: () => {
        if (!this.#life.active || !this.#writer.synced) return;
        this.#writer.resync();
        this.#reportBacklog();
      },
      taken: (event) => this.#lag.taken(event),
    });
    const detect = options.detectMutations ?? envFlag("KINFORMER_DETECT_MUTATIONS");
    this.#memory = new CacheMemory<T>(
      options.memory ?? "shared",
      detect !== false,
      {
        current: (object) => this.#cached(object),
        size: () => this.#indexer.size,
        clock: this.#clock,
      },
    );
    this.#indexer = new Indexer<T>(options.indexers ?? {}, { codec: this.#memory.codec });
    this.store = this.#indexer;
    this.lister = new Lister(this.#indexer);
    if (detect !== false) {
      this.#mutations = new MutationDetector<T>(
        this.#clock,
        detect === true ? 1_000 : detect.intervalMs ?? 1_000,
        (error) =>
          this.#reporter.report(error, {
            phase: "handler",
            foreignKind: "mutation",
            action: "going on (the cached object stays as it was changed)",
          }),
      );
    }
    this.#writer = new StoreWriter<T>({
      store: this.#mutations === undefined
        ? this.#indexer
        : trackedStore(this.#indexer, this.#mutations),
      onEvent: (event) => this.#tell(event),
      // An index function threw: the key keeps its cached object; the other keys go on.
      onError: (error, context) => this.#reporter.report(error, context),
    });
    // A checkpoint is input: it seeds the cache only if every object in it belongs here.
    const resume = resumeFromCheckpoint(options);
    if (resume.refused !== undefined) {
      this.#refused = resume.refused;
      this.#errors.record(resume.refused, "checkpoint");
    } else if (resume.resourceVersion !== undefined) {
      this.#resumed = true;
      this.#writer.seed(resume.objects ?? []);
    }
    const metrics = guardMetrics(
      options.metrics,
      (error) =>
        this.#reporter.report(error, {
          phase: "callback",
          detail: "metrics",
          action: "going on",
        }),
    );
    this.#metrics = metrics;
    const memory = this.#memory;
    // Built once: the reflector observes every watch line.
    const observers = {
      metrics,
      reporter: this.#reporter,
      resourceVersionWaiters: this.#rvWaiters,
    };
    this.#reflector = new Reflector<T>({
      ...settings,
      transform: (object) => {
        const out = settings.transform(object);
        return memory.admit(out, memory.wantsPrevious ? this.#cached(out) : undefined);
      },
      transformListed: (object) => {
        const out = settings.transform(object);
        return memory.admitListed(out, memory.wantsPrevious ? this.#cached(out) : undefined);
      },
      // A relist keeps the cached object of an unchanged item (not where reading the cache
      // decodes: compact mode; a first list has nothing to find).
      known: () =>
        memory.codec === undefined && this.#indexer.size > 0 ? this.#unchanged : undefined,
      client,
      emit: (event) => this.#write(event),
      onError: (error, details) => this.#failed(error, details, metrics),
      resumeFrom: resume.resourceVersion,
      observe: (signal) => observeReflector(signal, observers),
    });
    const seeded = resume.objects !== undefined;
    this.#checker = new ConsistencyChecker({
      client,
      list: options,
      options: consistencyCheckDefaults(options.consistencyCheck, settings.pageSize),
      clock: this.#clock,
      random: settings.random,
      idleTimeoutMs: settings.inactivityTimeoutMs,
      cache: this.#indexer,
      reflector: this.#reflector,
      // A checkpoint without objects leaves the cache incomplete until the first list.
      readiness: () =>
        this.#run === undefined || !this.#life.active
          ? "not-running"
          : this.#writer.synced && (seeded || this.#reflector.stats.lists > 0)
          ? "ready"
          : "not-synced",
      waitForResourceVersion: (check, signal) =>
        this.#rvWaiters.wait(check, {
          failure: () => new Error("resource version unreachable"),
          signal,
        }),
      report: (error, action) => this.#reporter.report(error, { phase: "check", action }),
      onResult: metrics?.onConsistencyCheck,
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

  /**
   * Starts listing and watching. Resolves once the cache has synced, or the informer was
   * stopped first; it never rejects, so `informer.start()` without `await` is safe too (errors
   * go to `onError`, or are printed: see {@linkcode InformerOptions.onError}). A second call
   * while starting or running returns the same promise. Aborting `signal` is the same as
   * {@linkcode SharedInformer.stop}.
   *
   * An informer runs once: `start()` after `stop()` (or while stopping) throws a
   * {@linkcode LifecycleError} at once; create a new informer to start again.
   *
   * @example
   * ```ts
   * import { createInformer } from "@kinformer/kinformer";
   * import { KubeClient, pods } from "@kinformer/kinformer/client";
   * import { SimulatedCluster } from "@kinformer/kinformer/testing";
   * import assert from "node:assert/strict";
   * const cluster = new SimulatedCluster();
   * cluster.create(pods, { metadata: { namespace: "default", name: "web-1" } });
   * const informer = createInformer(new KubeClient({ server: "http://sim", fetch: cluster.fetch }), { resource: pods });
   * await informer.start(); // the cache is synced here
   * assert.equal(informer.store.size, 1);
   * await informer.stop();
   * assert.throws(() => informer.start(), /pods informer was stopped and runs once/);
   * cluster.close();
   * ```
   */
  start(options: { signal?: AbortSignal | undefined } = {}): Promise<void> {
    if (!this.#life.start()) return this.#whenStarted ?? Promise.resolve();
    const signal = options.signal;
    this.#startedAt = this.#clock.now();
    this.#whenStarted = this.#life.wait(
      () => this.#life.state === "starting" ? "pending" : "done",
      { failure: () => undefined },
    );
    if (signal?.aborted) {
      void this.stop();
      return this.#whenStarted;
    }
    const controller = new AbortController();
    this.#controller = controller;
    // The caller's signal stops the informer; once stopped, nothing listens to it any more.
    onAbort(controller.signal, onAbort(signal, () => void this.stop()));
    const refused = this.#refused;
    this.#refused = undefined;
    if (refused !== undefined) {
      this.#reporter.report(refused, { phase: "list", action: "listing instead" });
    }
    this.#mutations?.start();
    this.#run = this.#reflector.run(controller.signal);
    this.#checker.start(controller.signal);
    // A checkpoint with objects makes the cache complete from the start.
    if (this.#writer.synced) this.#life.started();
    return this.#whenStarted;
  }

  /**
   * Stops the reflector, closes every listener and releases every timer and connection;
   * idempotent. Resolves once all of it is released.
   */
  stop(): Promise<void> {
    if (this.#life.stop()) this.#stopping = this.#release();
    return this.#stopping ?? Promise.resolve();
  }

  async #release(): Promise<void> {
    this.#mutations?.stop();
    this.#controller?.abort(new DOMException("informer stopped", "AbortError"));
    await this.#run;
    await this.#checker.stop();
    this.#memory.close();
    this.#listeners.close();
    this.#life.stopped();
    this.#rvWaiters.wake();
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
    if (rv === undefined || !this.#writer.synced) {
      throw new Error("checkpoint() needs a synced informer (call after waitForSync())");
    }
    return makeCheckpoint(
      this.#options,
      rv,
      options.includeObjects ? this.#indexer.list() : undefined,
    );
  }

  /** Same as {@linkcode SharedInformer.stop}, for `await using`. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.stop();
  }

  /** True once the cache holds a complete initial list. */
  hasSynced(): boolean {
    return this.#writer.synced;
  }

  /**
   * Resolves once the cache is synced. Rejects with an Error when the informer is stopped
   * first. When `signal` aborts (`AbortSignal.timeout(30_000)`), rejects with an error that
   * says what it waited for and why it may not have come, with the signal reason's `name`
   * (`TimeoutError`) and the informer's last error as `cause`: `pods informer not synced after
   * 30 s: last error ... 403 Forbidden: pods is forbidden: ...`.
   *
   * @example
   * ```ts
   * import { createInformer } from "@kinformer/kinformer";
   * import { KubeClient, pods } from "@kinformer/kinformer/client";
   * import { SimulatedCluster } from "@kinformer/kinformer/testing";
   * import assert from "node:assert/strict";
   * const cluster = new SimulatedCluster();
   * const informer = createInformer(new KubeClient({ server: "http://sim", fetch: cluster.fetch }), { resource: pods });
   * const ac = new AbortController();
   * ac.abort(new DOMException("timed out", "TimeoutError")); // as AbortSignal.timeout() does
   * await assert.rejects(informer.waitForSync({ signal: ac.signal }), {
   *   name: "TimeoutError",
   *   // The time it waited (0 ms here, 1 ms if the clock ticked meanwhile), and why.
   *   message: /^pods informer not synced after [01] ms \(timed out\); start\(\) was never called$/,
   * });
   * cluster.close();
   * ```
   */
  waitForSync(options: { signal?: AbortSignal | undefined } = {}): Promise<void> {
    const waiting = this.#clock.now();
    return this.#life.wait(
      () =>
        this.#writer.synced
          ? "done"
          : this.#life.state === "stopping" || this.#life.state === "stopped"
          ? "failed"
          : "pending",
      {
        failure: () => new Error(`${this.#source} stopped before it synced`),
        signal: options.signal,
        aborted: (reason) =>
          explainAbort(reason, {
            what: `${this.#source} not synced`,
            hint: this.#life.state === "idle" ? "; start() was never called" : undefined,
            waitedMs: this.#clock.now() - Math.max(waiting, this.#startedAt ?? waiting),
            lastError: this.#errors.lastValue,
          }),
      },
    );
  }

  /**
   * Streams this informer's events: first the current cache as `add` (`isInInitialList: true`),
   * then `{ type: "synced" }`, then live changes. Ends when the signal aborts, the iterator is
   * returned (`break`) or disposed (`await using`), or the informer stops.
   *
   * The listener starts when `events()` is called, not at the first `next()`: events from then
   * on are buffered for it. An iterator that is dropped without `break`, `return()` or an abort
   * keeps buffering until it is garbage collected; then its listener is removed.
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
  events(options: EventsOptions = {}): AsyncIterableIterator<InformerEvent<T>> & AsyncDisposable {
    if (options.until !== undefined && options.until !== "current") {
      throw new TypeError(`until must be "current", got ${describeValue(options.until)}`);
    }
    const { listener, leave } = this.#join(options, "events()");
    const iterator = eventsIterator(
      listener,
      leave,
      options.signal,
      options.until === "current"
        ? {
          currentResourceVersion: (s) => currentResourceVersion(this.#client, this.#options, s),
          resourceVersion: () => this.#reflector.resourceVersion,
          synced: () => this.#writer.synced,
          resourceVersionMoved: () => this.#rvWaiters.moved(),
        }
        : undefined,
    );
    return this.#listeners.leaveWhenCollected(iterator, listener);
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
   * import assert from "node:assert/strict";
   * const cluster = new SimulatedCluster();
   * cluster.create(pods, { metadata: { namespace: "default", name: "web-1" } });
   * const informer = createInformer(new KubeClient({ server: "http://sim", fetch: cluster.fetch }), { resource: pods });
   * const added: string[] = [];
   * const reg = informer.addEventHandler({
   *   onAdd: (pod) => void added.push(`${pod.metadata.namespace}/${pod.metadata.name}`),
   * });
   * informer.start();
   * await reg.waitForSync(); // this handler has seen the whole initial list
   * assert.ok(reg.hasSynced());
   * assert.deepEqual(added, ["default/web-1"]);
   * reg.remove();
   * await informer.stop();
   * cluster.close();
   * ```
   */
  addEventHandler(handler: EventHandler<T>, options: ListenerOptions = {}): HandlerRegistration {
    const { listener, leave } = this.#join(options, "addEventHandler()");
    return attachHandler(
      listener,
      handler,
      (error) =>
        this.#reporter.report(error, { phase: "handler", action: "delivering the next event" }),
      leave,
    );
  }

  /**
   * Resolves once the cache has seen resource version `resourceVersion` (a write's, say): it is
   * synced and at that version or later, so a read of the store shows that write or a newer
   * state. Versions are ordered as KEP-5504 (Kubernetes 1.35) allows; one that cannot be
   * ordered (not a decimal integer without a leading zero) rejects with a
   * `ResourceVersionNotComparableError`, as does a server whose own versions cannot be. Rejects
   * with the signal's reason on abort, or an Error when the informer stops first. A write
   * outside the informer's namespace or selectors is passed once a later event or a bookmark
   * (about once a minute) moves the cache past it.
   *
   * @example
   * ```ts
   * import { createInformer } from "@kinformer/kinformer";
   * import { KubeClient, configmaps } from "@kinformer/kinformer/client";
   * import { SimulatedCluster } from "@kinformer/kinformer/testing";
   * import assert from "node:assert/strict";
   * const cluster = new SimulatedCluster();
   * const client = new KubeClient({ server: "http://sim", fetch: cluster.fetch });
   * await using informer = createInformer(client, { resource: configmaps });
   * informer.start();
   * const written = await client.create(configmaps, { metadata: { namespace: "default", name: "c" } });
   * await informer.waitForResourceVersion(written.metadata.resourceVersion!);
   * assert.ok(informer.store.get("default/c")); // read-your-writes
   * cluster.close();
   * ```
   */
  waitForResourceVersion(
    resourceVersion: string,
    options: { signal?: AbortSignal | undefined } = {},
  ): Promise<void> {
    return this.#rvWaiters.reached(resourceVersion, options.signal);
  }

  /**
   * Checks the cache against the server now (or joins the check under way): a consistent,
   * paged LIST within the `consistencyCheck` budget, compared per key with the cache once the
   * cache has reached the list's resource version. Resolves with the report; drift also goes
   * to `onError` (kind `drift`), `health().consistency` and the metrics hook, and is repaired
   * by a relist with `consistencyCheck.repair`. Aborting `signal` rejects with its reason.
   *
   * @example
   * ```ts
   * import { createInformer, KubeClient, pods } from "@kinformer/kinformer";
   * import { SimulatedCluster } from "@kinformer/kinformer/testing";
   * import assert from "node:assert/strict";
   * const cluster = new SimulatedCluster();
   * cluster.seed(pods, 3);
   * await using informer = createInformer(new KubeClient({ server: "http://sim", fetch: cluster.fetch }), { resource: pods });
   * informer.start();
   * await informer.waitForSync();
   * assert.equal((await informer.verify()).outcome, "consistent");
   * cluster.close();
   * ```
   */
  verify(options: { signal?: AbortSignal | undefined } = {}): Promise<ConsistencyCheckResult> {
    return this.#checker.verify(options.signal);
  }

  /** A snapshot of the informer's state, counters and listener backlogs. */
  health(): InformerHealth {
    return informerHealth({
      state: this.#life.state,
      reflector: this.#reflector,
      resumed: this.#resumed,
      writer: this.#writer,
      indexer: this.#indexer,
      memory: this.#memory,
      lag: this.#lag,
      errors: this.#errors,
      listeners: this.#listeners.health(),
      checker: this.#checker,
      now: this.#clock.now(),
      inactivityTimeoutMs: this.#inactivityTimeoutMs,
    });
  }

  /**
   * The cached object of a listed item when it is the same version (uid and resourceVersion):
   * the list keeps it, and its item is neither decoded nor transformed again (the transform's
   * output for that very version is what the cache holds).
   */
  readonly #unchanged = (identity: ListItemIdentity): T | undefined => {
    if (!identity.name) return undefined;
    const cached = this.#indexer.get(keyOf(identity.namespace, identity.name));
    const m = cached?.metadata;
    return m?.uid === identity.uid && m?.resourceVersion === identity.resourceVersion
      ? cached
      : undefined;
  };

  /** The cached version of `object`, if any (a nameless object has none). */
  #cached(object: T): T | undefined {
    const name = object?.metadata?.name;
    return name ? this.#indexer.get(keyOf(object.metadata?.namespace, name)) : undefined;
  }

  /**
   * An error of listing and watching: reported (the one way an error reaches the user), told
   * to the metrics hook when it is a decode error, and counted for `health()`.
   */
  #failed(error: unknown, details: ReportDetails, metrics: InformerMetrics | undefined): void {
    const { kind } = this.#reporter.report(error, details);
    if (kind === "decode") metrics?.onDecodeError?.(error);
    this.#errors.record(error, kind);
  }

  /** A new listener for `call` (`events()`, `addEventHandler()`): refused once stopped. */
  #join(options: ListenerOptions, call: string): Joined<T> {
    validateListenerOptions(options);
    const state = this.#life.state;
    if (state === "stopping" || state === "stopped") {
      throw new LifecycleError(
        this.#source,
        state,
        `was stopped: ${call} has nothing to deliver (an informer runs once: create a new one)`,
      );
    }
    return this.#listeners.join({
      overflow: options.overflow ?? "grow",
      resyncPeriodMs: options.resyncPeriodMs ?? this.#options.resyncPeriodMs ?? 0,
      // A late listener first gets the cache as its initial population.
      initial: options.replayCache ?? !this.#resumed ? this.#indexer.values() : [],
      synced: this.#writer.synced,
      signal: options.signal,
    });
  }

  /** One step from the reflector into the store writer (the consistency check notes changes). */
  #write(event: WatcherEvent<T>): void {
    const type = event.type;
    if (type === "apply" || type === "delete") this.#checker.observe(event.object);
    this.#writer.write(event);
    if (type === "apply" || type === "delete" || type === "init-done") this.#reportBacklog();
  }

  /** What the store writer changed, to every listener; the first sync wakes its waiters. */
  #tell(event: InformerEvent<T>): void {
    if (event.type !== "synced") {
      this.#listeners.deliver(event);
      return;
    }
    this.#listeners.synced();
    this.#reporter.healthy();
    if (this.#life.state === "starting") this.#life.started();
    else this.#life.waiters.wake();
  }

  #reportBacklog(): void {
    const hook = this.#metrics?.onListenerBacklog;
    if (hook === undefined) return;
    hook(this.#listeners.maxBacklog());
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
 * import assert from "node:assert/strict";
 * const cluster = new SimulatedCluster();
 * const managedFields = [{ manager: "kubectl", operation: "Apply" }];
 * cluster.create(pods, { metadata: { namespace: "default", name: "web-1", managedFields } });
 * cluster.create(pods, { metadata: { namespace: "kube-system", name: "db-1" } });
 * const informer = createInformer(new KubeClient({ server: "http://sim", fetch: cluster.fetch }), {
 *   resource: pods,
 *   namespace: "default",
 *   transform: (pod) => { delete pod.metadata.managedFields; return pod; },
 * });
 * informer.start();
 * await informer.waitForSync();
 * const cached = informer.store.list();
 * assert.deepEqual(cached.map((pod) => pod.metadata.name), ["web-1"]); // "default" only
 * assert.equal(cached[0]?.metadata.managedFields, undefined); // removed by `transform`
 * await informer.stop();
 * cluster.close();
 * ```
 */
export function createInformer<T extends KubeObjectLike = KubeObject>(
  client: KubeClient,
  options: InformerOptions<T>,
): SharedInformer<T> {
  return new SharedInformer<T>(client, options);
}
