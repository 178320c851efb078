/**
 * Kubernetes Events from a controller, the way client-go's events library writes them:
 * `events.k8s.io/v1` (core `v1` on servers without it), repeated events folded into a series,
 * a per-object rate limit, a bounded queue, and every write off the caller's path.
 * @module
 */
import type { KubeClient } from "../../client/kube_client.ts";
import type { ResourceDescriptor } from "../../client/resource.ts";
import type { KubeObjectLike } from "../../client/types.ts";
import {
  checkWord,
  cutNote,
  type EventInput,
  type EventRecorderHealth,
  type EventRecorderOptions,
  QUALIFIED_NAME,
  referenceOf,
} from "./event_recorder_options.ts";
import { onAbort } from "../../util/abort.ts";
import { type Clock, sleep, systemClock, type TimerHandle } from "../../util/clock.ts";
import {
  checkClock,
  checkFunction,
  checkNumber,
  checkOneOf,
  checkOptionsObject,
  checkSignal,
} from "../../util/validate.ts";
import { describeValue, isRecord } from "../../util/values.ts";
import { ErrorReporter } from "../../util/error_reporter.ts";
import { Lifecycle } from "../../util/lifecycle.ts";
import {
  EventCache,
  type EventEntry,
  FINISH_TIME_MS,
  type ObjectReference,
  REFRESH_TIME_MS,
  seriesKey,
  SpamFilter,
  spamKey,
} from "./_event_series.ts";
import { type EventsApi, servesEventsV1, writeEvent } from "./_event_sink.ts";

export type { ObjectReference } from "./_event_series.ts";
export type {
  EventInput,
  EventRecorderHealth,
  EventRecorderOptions,
} from "./event_recorder_options.ts";

/**
 * Records Kubernetes Events for a controller, as client-go's `events` library does:
 *
 * - `record()` is synchronous and never waits for the API server: writes happen in the
 *   background (at most `concurrency` at once), from a bounded queue (`maxQueued`);
 * - events that are the same (same type, action, reason, reporting controller and instance,
 *   regarding and related object; not the note) within about 6 minutes are one Event: the
 *   second occurrence makes it a series (`series.count: 2`, patched), later ones only count,
 *   and the count is written when the series ends (6 minutes without an occurrence), every
 *   30 minutes while it goes on, and on `stop()`. The Event keeps its first note (the API
 *   server refuses to change it);
 * - per regarding object, at most `burst` writes at once, then one per `refillIntervalMs`;
 * - a write that cannot reach the server, or gets 5xx/429, is tried again every ~10 s, up to 12
 *   times; one the server refuses (4xx) is dropped and reported;
 * - servers without `events.k8s.io/v1` get core `v1` Events (`involvedObject`, `message`,
 *   `count`, `firstTimestamp`/`lastTimestamp`), as client-go's event broadcaster adapter does.
 *
 * Events are written only between `start()` and `stop()`; those recorded before `start()`
 * wait in the queue. `stop()` writes what is queued (and the latest series counts) within its
 * `flushTimeoutMs`, then drops the rest. A recorder runs once: `start()` after `stop()` throws
 * a `LifecycleError` at once.
 *
 * Failed writes and dropped events go to `onError`; by default they are printed as every
 * long-running object of kinformer prints: the first of each kind at once, then at most one
 * line per kind per minute with a count, and one line once writes succeed again, so an outage
 * of any length prints a few lines a minute, never one per event.
 *
 * @example
 * ```ts
 * import { eventsV1, KubeClient, pods } from "@kinformer/kinformer/client";
 * import { EventRecorder } from "@kinformer/kinformer/controller";
 * import { ManualClock, SimulatedCluster } from "@kinformer/kinformer/testing";
 * import assert from "node:assert/strict";
 *
 * const clock = new ManualClock(Date.UTC(2026, 0, 1));
 * const cluster = new SimulatedCluster({ clock });
 * const client = new KubeClient({ server: "http://sim", fetch: cluster.fetch });
 * const pod = cluster.create(pods, { metadata: { namespace: "default", name: "web" } });
 *
 * const recorder = new EventRecorder({
 *   client, clock, reportingController: "example.com/web-controller", reportingInstance: "web-controller-0",
 * });
 * recorder.start();
 * for (let i = 0; i < 3; i++) {
 *   recorder.record(pod, { type: "Warning", reason: "BackOff", action: "Restart", note: "restarting", resource: pods });
 * }
 * await recorder.stop(); // writes the queue and the last series count
 * const [event] = cluster.list(eventsV1, { namespace: "default" });
 * assert.equal(event?.reason, "BackOff");
 * assert.deepEqual((event?.series as { count: number }).count, 3);
 * cluster.close();
 * ```
 */
export class EventRecorder implements AsyncDisposable {
  /** `reportingController` of every Event. */
  readonly reportingController: string;
  /** `reportingInstance` of every Event. */
  readonly reportingInstance: string;
  readonly #client: KubeClient;
  readonly #apiOption: "auto" | EventsApi;
  #api: EventsApi | undefined;
  #apiLookup: Promise<EventsApi | undefined> | undefined;
  readonly #clock: Clock;
  readonly #random: () => number;
  /** The one reporting path: `onError`, or the default printing. */
  readonly #reporter: ErrorReporter;
  readonly #maxQueued: number;
  readonly #maxTries: number;
  readonly #retryDelayMs: number;
  readonly #concurrency: number;
  readonly #cache: EventCache;
  readonly #spam: SpamFilter;
  /** Writes waiting, by series key, oldest first; each writes its entry's state at the time. */
  readonly #pending = new Map<string, EventEntry>();
  readonly #inFlight = new Set<string>();
  readonly #writes = new Set<Promise<void>>();
  /** idle, running (from start), stopping (flushing), stopped; runs once. */
  readonly #life: Lifecycle;
  /** Aborts in-flight writes and retry waits (at the end of a stop's flush). */
  readonly #abort = new AbortController();
  #finishTimer: TimerHandle | undefined;
  #refreshTimer: TimerHandle | undefined;
  #unlinkStart: (() => void) | undefined;
  #stopping: Promise<void> | undefined;
  #serial = 0;
  #recorded = 0;
  #written = 0;
  #rateLimited = 0;
  #dropped = 0;
  #failed = 0;

  /** Validates the options; starts nothing. */
  constructor(options: EventRecorderOptions) {
    checkOptionsObject(options, "EventRecorder");
    if (options === undefined) throw new TypeError("EventRecorder: options are required");
    const controllerName = options.reportingController;
    if (
      typeof controllerName !== "string" || !QUALIFIED_NAME.test(controllerName) ||
      controllerName.slice(controllerName.indexOf("/") + 1).length > 63 ||
      controllerName.indexOf("/") > 253
    ) {
      throw new TypeError(
        `reportingController must be a qualified name such as "example.com/my-controller", got ${
          describeValue(options.reportingController)
        }`,
      );
    }
    if (options.reportingInstance !== undefined) {
      checkWord(options.reportingInstance, "reportingInstance");
    }
    checkOneOf(options.api, "api", ["auto", "events.k8s.io/v1", "v1"]);
    checkNumber(options.maxQueued, "maxQueued", { min: 1, integer: true });
    checkNumber(options.burst, "burst", { min: 1, integer: true });
    checkNumber(options.refillIntervalMs, "refillIntervalMs", { min: 0 });
    checkNumber(options.maxTries, "maxTries", { min: 1, integer: true });
    checkNumber(options.retryDelayMs, "retryDelayMs", { min: 0 });
    checkNumber(options.concurrency, "concurrency", { min: 1, integer: true });
    checkNumber(options.maxCached, "maxCached", { min: 1, integer: true });
    checkClock(options.clock, "clock");
    checkFunction(options.random, "random");
    checkFunction(options.onError, "onError");
    if (typeof options.client?.create !== "function") {
      throw new TypeError(`client must be a KubeClient, got ${describeValue(options.client)}`);
    }
    this.#client = options.client;
    this.#clock = options.clock ?? systemClock;
    this.#random = options.random ?? Math.random;
    this.reportingController = options.reportingController;
    this.reportingInstance = options.reportingInstance ??
      `${options.reportingController}-${
        Math.floor(this.#random() * 0x1_0000_0000).toString(16).padStart(8, "0")
      }`.slice(-128);
    this.#apiOption = options.api ?? "auto";
    this.#api = this.#apiOption === "auto" ? undefined : this.#apiOption;
    this.#life = new Lifecycle(`event recorder ${this.reportingController}`, {
      restartable: false,
    });
    this.#reporter = new ErrorReporter({
      source: `event recorder ${this.reportingController}`,
      onError: options.onError,
      clock: this.#clock,
    });
    this.#maxQueued = options.maxQueued ?? 1000;
    this.#maxTries = options.maxTries ?? 12;
    this.#retryDelayMs = options.retryDelayMs ?? 10_000;
    this.#concurrency = options.concurrency ?? 2;
    this.#cache = new EventCache(options.maxCached ?? 4096);
    this.#spam = new SpamFilter(options.burst ?? 25, options.refillIntervalMs ?? 300_000, 4096);
  }

  /**
   * Records one occurrence of an event about `regarding` (an object, or an
   * {@linkcode ObjectReference}); returns at once. The write happens in the background (see the
   * class); an occurrence beyond the object's rate limit, or recorded after `stop()`, is
   * counted in {@linkcode EventRecorder.health} and not written.
   *
   * @throws {TypeError} for an event the API server would refuse (type, reason, action) or an
   * object without `apiVersion`/`kind` and no `resource` given.
   */
  record<T extends KubeObjectLike>(
    regarding: T | ObjectReference,
    event: EventInput<NoInfer<T>>,
  ): void {
    if (!isRecord(event)) {
      throw new TypeError(`event must be an object, got ${describeValue(event)}`);
    }
    if (event.type !== "Normal" && event.type !== "Warning") {
      throw new TypeError(`type must be "Normal" or "Warning", got ${describeValue(event.type)}`);
    }
    checkWord(event.reason, "reason");
    checkWord(event.action, "action");
    if (event.note !== undefined && typeof event.note !== "string") {
      throw new TypeError(`note must be a string, got ${describeValue(event.note)}`);
    }
    const ref = referenceOf(
      regarding,
      event.resource as ResourceDescriptor<KubeObjectLike> | undefined,
      "regarding",
    );
    const related = event.related === undefined
      ? undefined
      : referenceOf(event.related, event.relatedResource, "related");
    const note = cutNote(event.note ?? "");
    this.#recorded++;
    if (this.#life.state === "stopping" || this.#life.state === "stopped") {
      this.#dropped++;
      return;
    }
    const identity = {
      type: event.type,
      action: event.action,
      reason: event.reason,
      reportingController: this.reportingController,
      reportingInstance: this.reportingInstance,
      regarding: ref,
      related,
    };
    const key = seriesKey(identity);
    const now = this.#clock.now();
    // Only occurrences that lead to a write spend a token: a series counting up writes nothing.
    const cached = this.#cache.get(key);
    if (cached === undefined || cached.series === undefined) {
      if (!this.#spam.tryAccept(spamKey(identity), now)) {
        this.#rateLimited++;
        return;
      }
    }
    const observed = this.#cache.observe(
      key,
      now,
      () => ({
        ...identity,
        key,
        name: this.#eventName(ref.name, now),
        namespace: ref.namespace ?? "default",
        eventTime: now,
        note,
        series: undefined,
        writtenCount: 0,
      }),
      (evicted) => {
        if (evicted.series !== undefined && evicted.series.count !== evicted.writtenCount) {
          this.#enqueue(evicted);
        }
      },
    );
    if (observed.write !== "none") this.#enqueue(observed.entry);
  }

  /**
   * Starts writing in the background and returns at once; idempotent while it runs. Aborting
   * `signal` is the same as {@linkcode EventRecorder.stop}.
   *
   * @throws {TypeError} when `options.signal` is not an AbortSignal.
   * @throws {LifecycleError} after `stop()`: a recorder runs once (create a new one).
   */
  start(options: { signal?: AbortSignal | undefined } = {}): void {
    checkOptionsObject(options, "EventRecorder.start");
    checkSignal(options.signal, "signal");
    if (!this.#life.start()) return;
    this.#life.started();
    const signal = options.signal;
    if (signal?.aborted) {
      void this.stop();
      return;
    }
    this.#unlinkStart = onAbort(signal, () => void this.stop());
    this.#armFinish();
    this.#armRefresh();
    this.#pump();
  }

  /**
   * Stops: records from now on are dropped; what is queued, and the latest count of every open
   * series, is written within `flushTimeoutMs` (on the recorder's clock); then in-flight writes
   * are aborted and the rest is dropped. Resolves once every request and timer is released.
   * Idempotent.
   */
  stop(options: { flushTimeoutMs?: number | undefined } = {}): Promise<void> {
    checkOptionsObject(options, "EventRecorder.stop");
    checkNumber(options.flushTimeoutMs, "flushTimeoutMs", { min: 0 });
    this.#stopping ??= this.#stop(options.flushTimeoutMs ?? 5_000);
    return this.#stopping;
  }

  /** Same as {@linkcode EventRecorder.stop}, for `await using`. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.stop();
  }

  /**
   * Resolves once nothing is queued or in flight (the queue is written, or given up); rejects
   * with the signal's reason when it aborts first.
   */
  flush(options: { signal?: AbortSignal | undefined } = {}): Promise<void> {
    checkOptionsObject(options, "EventRecorder.flush");
    checkSignal(options.signal, "signal");
    return this.#life.wait(() => this.#idle() ? "done" : "pending", {
      signal: options.signal,
      failure: () => undefined, // never: the check does not fail
    });
  }

  /** Counters at this moment. */
  health(): EventRecorderHealth {
    return {
      state: this.#life.state,
      api: this.#api,
      queued: this.#pending.size,
      inFlight: this.#inFlight.size,
      cached: this.#cache.size,
      recorded: this.#recorded,
      written: this.#written,
      rateLimited: this.#rateLimited,
      dropped: this.#dropped,
      failed: this.#failed,
    };
  }

  async #stop(flushTimeoutMs: number): Promise<void> {
    const wasRunning = this.#life.state === "running";
    this.#life.stop();
    this.#unlinkStart?.();
    this.#disarm();
    if (wasRunning) {
      for (const entry of this.#cache.clear()) this.#enqueue(entry);
      if (!this.#idle()) {
        const deadline = new AbortController();
        const timer = this.#clock.setTimeout(
          () => deadline.abort(new Error("flush timeout")),
          flushTimeoutMs,
        );
        await this.flush({ signal: deadline.signal }).catch(() => {});
        this.#clock.clearTimeout(timer);
      }
    } else this.#cache.clear();
    this.#abort.abort(new Error("event recorder stopped"));
    await Promise.all([...this.#writes]);
    this.#dropped += this.#pending.size;
    this.#pending.clear();
    this.#life.stopped();
  }

  /** `<regarding name>.<time in ns as hex>`, as client-go names Events (a counter breaks ties). */
  #eventName(regardingName: string, now: number): string {
    const nanos = BigInt(Math.floor(now)) * 1_000_000n + BigInt(this.#serial++ % 1_000_000);
    return `${regardingName}.${nanos.toString(16)}`;
  }

  #enqueue(entry: EventEntry): void {
    if (this.#pending.has(entry.key)) return;
    if (this.#pending.size >= this.#maxQueued) {
      this.#dropped++;
      this.#reporter.report(
        new Error(`event queue full (${this.#maxQueued} writes waiting): dropped a write`),
        { phase: "event", key: `${entry.namespace}/${entry.name}`, action: "dropping the write" },
      );
      return;
    }
    this.#pending.set(entry.key, entry);
    this.#pump();
  }

  /** Starts writes while there is room and something not already in flight. */
  #pump(): void {
    if (this.#life.state !== "running" && this.#life.state !== "stopping") return;
    if (this.#abort.signal.aborted) return;
    for (const [key, entry] of this.#pending) {
      if (this.#inFlight.size >= this.#concurrency) return;
      if (this.#inFlight.has(key)) continue;
      this.#pending.delete(key);
      this.#inFlight.add(key);
      const write = this.#write(entry).finally(() => {
        this.#inFlight.delete(key);
        this.#writes.delete(write);
        this.#pump();
        if (this.#idle()) this.#life.waiters.wake();
      });
      this.#writes.add(write);
    }
  }

  async #write(entry: EventEntry): Promise<void> {
    const signal = this.#abort.signal;
    const what = `${entry.namespace}/${entry.name}`;
    for (let attempt = 1;; attempt++) {
      const count = entry.series?.count ?? 1;
      const api = await this.#resolveApi(signal);
      if (signal.aborted) return;
      const result = api === undefined
        ? {
          outcome: "retry" as const,
          error: new Error("could not learn whether events.k8s.io/v1 is served"),
        }
        : await writeEvent(this.#client, api, entry, signal);
      if (signal.aborted) return;
      if (result.outcome === "ok") {
        this.#written++;
        this.#reporter.healthy();
        entry.writtenCount = Math.max(entry.writtenCount, count);
        return;
      }
      const willRetry = result.outcome === "retry" && attempt < this.#maxTries;
      if (!willRetry) this.#failed++;
      const delay = willRetry ? this.#retryDelayMs * (1 + 0.25 * this.#random()) : 0;
      this.#reporter.report(result.error, {
        phase: "event",
        key: what,
        action: willRetry
          ? `retrying the write (attempt ${attempt} of ${this.#maxTries})`
          : result.outcome === "retry"
          ? `giving up the write after ${attempt} attempts`
          : "dropping the write",
        retryInMs: willRetry ? delay : undefined,
      });
      if (!willRetry) return;
      try {
        await sleep(delay, { clock: this.#clock, signal });
      } catch {
        return;
      }
    }
  }

  /** The API to write to: the option, or learned once from discovery (undefined: unknown yet). */
  async #resolveApi(signal: AbortSignal): Promise<EventsApi | undefined> {
    if (this.#api !== undefined) return this.#api;
    this.#apiLookup ??= servesEventsV1(this.#client, signal).then((served) => {
      this.#apiLookup = undefined;
      if (served !== undefined) this.#api = served ? "events.k8s.io/v1" : "v1";
      return this.#api;
    });
    return await this.#apiLookup;
  }

  #idle(): boolean {
    return this.#pending.size === 0 && this.#inFlight.size === 0;
  }

  /** Every FINISH_TIME_MS: ends idle series (their final count is written). */
  #armFinish(): void {
    this.#finishTimer = this.#clock.setTimeout(() => {
      for (const entry of this.#cache.finish(this.#clock.now())) {
        if (entry.series !== undefined && entry.series.count !== entry.writtenCount) {
          this.#enqueue(entry);
        }
      }
      this.#armFinish();
    }, FINISH_TIME_MS);
  }

  /** Every REFRESH_TIME_MS: writes every open series again, so its Event does not expire. */
  #armRefresh(): void {
    this.#refreshTimer = this.#clock.setTimeout(() => {
      for (const entry of this.#cache.series()) this.#enqueue(entry);
      this.#armRefresh();
    }, REFRESH_TIME_MS);
  }

  #disarm(): void {
    if (this.#finishTimer !== undefined) this.#clock.clearTimeout(this.#finishTimer);
    if (this.#refreshTimer !== undefined) this.#clock.clearTimeout(this.#refreshTimer);
    this.#finishTimer = undefined;
    this.#refreshTimer = undefined;
  }
}
