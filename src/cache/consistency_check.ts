/**
 * The consistency check: list the resource consistently, wait until the cache has reached the
 * list's resource version, compare, report (and optionally repair by relisting). It answers,
 * in the user's own cluster, whether list+watch lost events.
 * @module
 */
import type { KubeClient } from "../client/kube_client.ts";
import type { KubeObjectLike } from "../client/types.ts";
import { linkedController, onAbort } from "../util/abort.ts";
import { type Clock, sleep, timerDelay, type TimerHandle } from "../util/clock.ts";
import { compareResourceVersions } from "../util/resource_version.ts";
import type { WaitState } from "../util/wait_for.ts";
import {
  type CacheComparisonInput,
  compareCacheWithList,
  type ObjectVersion,
} from "./consistency_compare.ts";
import type {
  ConsistencyCheckResult,
  ConsistencyHealth,
  ConsistencyReason,
  ResolvedConsistencyCheckOptions,
} from "./consistency_check_options.ts";
import type { InformerSelection } from "./checkpoint.ts";
import { DriftError } from "./drift_error.ts";
import { listPages, listResourceVersion } from "./list_pager.ts";
import { objectKey } from "./object_key.ts";

/** Keys named in a {@linkcode DriftError}'s message. */
const SAMPLE_KEYS = 5;
/** The abort reason of an on-demand check that every `verify()` caller gave up on. */
const GAVE_UP = new DOMException("every verify() caller gave up", "AbortError");

/** What the checker needs from its informer. Internal. */
export interface ConsistencyTarget {
  client: KubeClient;
  /** What the informer lists: the check lists the same. */
  list: InformerSelection;
  options: ResolvedConsistencyCheckOptions;
  clock: Clock;
  random: () => number;
  /** Idle limit of each LIST page request. */
  idleTimeoutMs: number;
  cache: CacheComparisonInput["cache"];
  /**
   * The informer's reflector: the resource version the cache is at, the lists it completed (a
   * change means the cache was rebuilt), and the relist that repairs.
   */
  reflector: {
    readonly resourceVersion: string | undefined;
    readonly stats: { readonly lists: number };
    requestRelist(): void;
  };
  /** Whether the informer runs, and whether its cache holds a complete list. */
  readiness(): "ready" | "not-running" | "not-synced";
  /** Resolves once `check` says done whenever the resource version moves; rejects on abort. */
  waitForResourceVersion(check: () => WaitState, signal: AbortSignal): Promise<void>;
  /** Reports an error of a check (drift, or a failed check), with what the check does. */
  report(error: unknown, action: string): void;
  onResult?: ((result: ConsistencyCheckResult) => void) | undefined;
}

/** One check under way, and who waits for it. */
interface Running {
  promise: Promise<ConsistencyCheckResult>;
  controller: AbortController;
  /** `verify()` callers waiting; the periodic check counts as one that never gives up. */
  waiting: number;
  periodic: boolean;
}

/**
 * Runs an informer's consistency checks: on demand ({@linkcode ConsistencyChecker.verify}) and
 * every `intervalMs` once started. Never two at once: a check asked for while one runs joins
 * it. A check is skipped while the informer is not synced, and ends inconclusive (never
 * reporting drift) when the informer relists or stops during it. Internal: used by the
 * informer.
 */
export class ConsistencyChecker {
  readonly #t: ConsistencyTarget;
  #running: Running | undefined;
  /** Keys the cache changed since the running check began, with the change's RV. */
  #changes: Map<string, string | undefined> | undefined;
  #timer: TimerHandle | undefined;
  #signal: AbortSignal | undefined;
  #health: ConsistencyHealth = {
    running: false,
    checks: 0,
    lastCheckAt: undefined,
    lastOutcome: undefined,
    lastReason: undefined,
    lastResourceVersion: undefined,
    driftChecks: 0,
    missing: 0,
    extra: 0,
    stale: 0,
    repairs: 0,
  };

  constructor(target: ConsistencyTarget) {
    this.#t = target;
  }

  /** A copy of the counters for `health()`. */
  health(): ConsistencyHealth {
    return { ...this.#health, running: this.#running !== undefined };
  }

  /** The cache applied a change (called by the informer for every watch event). */
  observe(object: KubeObjectLike): void {
    const changes = this.#changes;
    if (changes === undefined) return;
    try {
      changes.set(objectKey(object), object.metadata?.resourceVersion);
    } catch {
      // no key: the cache could not hold it either
    }
  }

  /** Starts periodic checks (when `intervalMs > 0`) until `signal` aborts. */
  start(signal: AbortSignal): void {
    this.#signal = signal;
    if (this.#t.options.intervalMs > 0) this.#schedule();
  }

  /** Ends periodic checks and the running check; resolves once it has ended. */
  async stop(): Promise<void> {
    if (this.#timer !== undefined) this.#t.clock.clearTimeout(this.#timer);
    this.#timer = undefined;
    const running = this.#running;
    if (running === undefined) return;
    running.controller.abort(new DOMException("informer stopped", "AbortError"));
    await running.promise;
  }

  /**
   * Checks now, or joins the check under way. Aborting `signal` rejects this call with its
   * reason; the check itself stops once nobody waits for it (a periodic one goes on).
   */
  verify(signal?: AbortSignal): Promise<ConsistencyCheckResult> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    const running = this.#running ?? this.#begin(false);
    running.waiting++;
    return new Promise((resolve, reject) => {
      const unlisten = onAbort(signal, () => {
        reject(signal?.reason);
        if (--running.waiting === 0 && !running.periodic) {
          running.controller.abort(GAVE_UP);
        }
      });
      void running.promise.then((result) => {
        unlisten();
        resolve(result);
      });
    });
  }

  #schedule(): void {
    const { intervalMs } = this.#t.options;
    const delay = intervalMs * (1 + 0.25 * this.#t.random());
    this.#timer = this.#t.clock.setTimeout(() => {
      this.#timer = undefined;
      if (this.#signal?.aborted) return;
      const running = this.#running ?? this.#begin(true);
      running.periodic = true;
      void running.promise.then(() => {
        if (!this.#signal?.aborted) this.#schedule();
      });
    }, timerDelay(delay));
  }

  #begin(periodic: boolean): Running {
    const { controller, release } = linkedController(this.#signal);
    const t = this.#t;
    const result: ConsistencyCheckResult = {
      outcome: "skipped",
      reason: undefined,
      resourceVersion: undefined,
      startedAt: t.clock.now(),
      finishedAt: 0,
      pages: 0,
      listed: 0,
      compared: 0,
      changedAfterList: 0,
      missing: [],
      extra: [],
      stale: [],
      repairing: false,
      serverBehind: false,
    };
    const failed = (error: unknown): ConsistencyCheckResult => {
      // Whatever goes wrong, callers get a result and nothing rejects unhandled.
      Object.assign(result, { outcome: "inconclusive", reason: "error", error });
      result.finishedAt = t.clock.now();
      t.report(error, "the check is inconclusive; the next one runs on schedule");
      return result;
    };
    const running: Running = {
      controller,
      periodic,
      waiting: 0,
      promise: this.#check(controller.signal, result).catch(failed).then((result) => {
        release();
        this.#running = undefined;
        this.#changes = undefined;
        this.#record(result);
        return result;
      }),
    };
    this.#running = running;
    return running;
  }

  /** One check, filling in `result`. */
  async #check(
    signal: AbortSignal,
    result: ConsistencyCheckResult,
  ): Promise<ConsistencyCheckResult> {
    const t = this.#t;
    const end = (
      outcome: ConsistencyCheckResult["outcome"],
      reason?: ConsistencyReason,
    ): ConsistencyCheckResult => {
      result.outcome = outcome;
      result.reason = reason;
      result.finishedAt = t.clock.now();
      return result;
    };
    const readiness = t.readiness();
    if (readiness !== "ready") return end("skipped", readiness);
    const lists = t.reflector.stats.lists;
    const before = t.reflector.resourceVersion;
    // From here on, every change the cache applies is noted: the list will be at or after it.
    this.#changes = new Map();
    const interrupted = (): ConsistencyReason => signal.reason === GAVE_UP ? "aborted" : "stopped";
    let listed: Map<string, ObjectVersion>;
    try {
      listed = await this.#list(result, signal);
    } catch (error) {
      if (signal.aborted) return end("inconclusive", interrupted());
      throw error;
    }
    const rv = result.resourceVersion!;
    const reached = await this.#waitForCache(rv, lists, signal);
    if (reached !== undefined) {
      return end("inconclusive", reached === "aborted" ? interrupted() : reached);
    }
    // A consistent list is never older than what the cache had seen before it was asked for,
    // unless the server went back in time (etcd restored from a backup).
    result.serverBehind = before !== undefined && (compareResourceVersions(before, rv) ?? 0) > 0;
    const comparison = compareCacheWithList({
      listed,
      resourceVersion: rv,
      cache: t.cache,
      changes: this.#changes,
      serverBehind: result.serverBehind,
    });
    Object.assign(result, comparison);
    const drifted = comparison.missing.length + comparison.extra.length + comparison.stale.length;
    if (drifted === 0) return end("consistent");
    result.repairing = t.options.repair;
    if (result.repairing) t.reflector.requestRelist();
    const sampleKeys = [...comparison.missing, ...comparison.extra, ...comparison.stale]
      .slice(0, SAMPLE_KEYS)
      .map((e) => e.key);
    t.report(
      new DriftError({
        resourceVersion: rv,
        missing: comparison.missing.length,
        extra: comparison.extra.length,
        stale: comparison.stale.length,
        sampleKeys,
        repairing: result.repairing,
      }),
      result.repairing ? "relisting to repair the cache" : "reporting only (repair is off)",
    );
    return end("drift");
  }

  /**
   * The consistent list (`resourceVersion=""`), one page at a time within the budget; returns
   * each key's uid and resourceVersion (the objects themselves are not kept).
   */
  async #list(
    result: ConsistencyCheckResult,
    signal: AbortSignal,
  ): Promise<Map<string, ObjectVersion>> {
    const t = this.#t;
    const spacing = 60_000 / t.options.requestsPerMinute;
    const listed = new Map<string, ObjectVersion>();
    let lastStart = -Infinity;
    await listPages({
      client: t.client,
      resource: t.list.resource,
      namespace: t.list.namespace,
      labelSelector: t.list.labelSelector,
      fieldSelector: t.list.fieldSelector,
      resourceVersion: undefined, // consistent: the server's current state
      pageSize: t.options.pageSize,
      clock: t.clock,
      idleTimeoutMs: t.idleTimeoutMs,
      signal,
      prefetch: false, // one page at a time, within the budget
      beforeRequest: async (s) => {
        const wait = lastStart + spacing - t.clock.now();
        if (wait > 0) await sleep(wait, { clock: t.clock, signal: s });
        lastStart = t.clock.now();
      },
    }, (page) => {
      result.pages++;
      const rv = listResourceVersion(page.metadata.resourceVersion);
      result.resourceVersion ??= rv;
      for (const item of page.items) {
        let key: string;
        try {
          key = objectKey(item);
        } catch {
          continue; // no name: the cache cannot hold it either
        }
        listed.set(key, {
          uid: item.metadata?.uid,
          resourceVersion: item.metadata?.resourceVersion,
        });
      }
    });
    result.listed = listed.size;
    return listed;
  }

  /**
   * Waits (at most `maxWaitMs`) until the cache's resource version is the list's or later.
   * Returns undefined once it is, or why it will not be.
   */
  async #waitForCache(
    rv: string,
    lists: number,
    signal: AbortSignal,
  ): Promise<"relisted" | "timeout" | "not-comparable" | "aborted" | undefined> {
    const t = this.#t;
    let why: "relisted" | "not-comparable" | undefined;
    const check = (): WaitState => {
      if (t.reflector.stats.lists !== lists) return (why = "relisted", "failed");
      const at = t.reflector.resourceVersion;
      if (at === rv) return "done";
      const order = at === undefined ? undefined : compareResourceVersions(at, rv);
      if (order === undefined) return (why = "not-comparable", "failed");
      return order >= 0 ? "done" : "pending";
    };
    const { controller, release } = linkedController(signal);
    const deadline = t.clock.setTimeout(
      () => controller.abort(new DOMException("timeout", "TimeoutError")),
      timerDelay(t.options.maxWaitMs),
    );
    try {
      await t.waitForResourceVersion(check, controller.signal);
      return undefined;
    } catch {
      return why ?? (signal.aborted ? "aborted" : "timeout");
    } finally {
      t.clock.clearTimeout(deadline);
      release();
    }
  }

  #record(result: ConsistencyCheckResult): void {
    const h = this.#health;
    h.checks++;
    h.lastCheckAt = result.finishedAt;
    h.lastOutcome = result.outcome;
    h.lastReason = result.reason;
    h.lastResourceVersion = result.resourceVersion;
    if (result.outcome === "drift") {
      h.driftChecks++;
      h.missing += result.missing.length;
      h.extra += result.extra.length;
      h.stale += result.stale.length;
      if (result.repairing) h.repairs++;
    }
    this.#t.onResult?.(result);
  }
}
