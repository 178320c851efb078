/**
 * controller-runtime's metrics, under its names, labels, help texts and histogram buckets, so
 * the dashboards and alerts written for Go operators work unchanged: reconciles
 * (`controller_runtime_*`), work queues (`workqueue_*`, client-go's) and leader election
 * (`leader_election_master_status`).
 * @module
 */
import type { WorkQueueMetricsHooks } from "../queue/work_queue.ts";
import { type Clock, systemClock } from "../util/clock.ts";
import { checkClock, checkOptionsObject, requireNonEmptyString } from "../util/validate.ts";
import { Exposition, HistogramData } from "./_exposition.ts";
import { PROMETHEUS_CONTENT_TYPE } from "./prometheus.ts";

/** controller-runtime's buckets of `controller_runtime_reconcile_time_seconds`. */
const RECONCILE_BUCKETS: readonly number[] = [
  0.005,
  0.01,
  0.025,
  0.05,
  0.1,
  0.15,
  0.2,
  0.25,
  0.3,
  0.35,
  0.4,
  0.45,
  0.5,
  0.6,
  0.7,
  0.8,
  0.9,
  1.0,
  1.25,
  1.5,
  1.75,
  2.0,
  2.5,
  3.0,
  3.5,
  4.0,
  4.5,
  5,
  6,
  7,
  8,
  9,
  10,
  15,
  20,
  25,
  30,
  40,
  50,
  60,
];

/**
 * `prometheus.ExponentialBuckets(10e-9, 10, 12)`, the work queue's buckets, computed the same
 * way (repeated multiplication), so the `le` labels match to the digit (`9.999999999999999e-06`).
 */
const QUEUE_BUCKETS: readonly number[] = (() => {
  const buckets: number[] = [];
  for (let le = 10e-9, i = 0; i < 12; i++, le *= 10) buckets.push(le);
  return buckets;
})();

const RESULTS = ["error", "requeue", "requeue_after", "success"] as const;

/** The help texts, word for word as controller-runtime registers them. */
const HELP = {
  reconcileTotal: "Total number of reconciliations per controller",
  reconcileErrors: "Total number of reconciliation errors per controller",
  terminalErrors: "Total number of terminal reconciliation errors per controller",
  panics: "Total number of reconciliation panics per controller",
  timeouts: "Total number of reconciliation timeouts per controller",
  reconcileTime: "Length of time per reconciliation per controller",
  maxConcurrent: "Maximum number of concurrent reconciles per controller",
  activeWorkers: "Number of currently used workers per controller",
  depth: "Current depth of workqueue by workqueue and priority",
  adds: "Total number of adds handled by workqueue",
  latency: "How long in seconds an item stays in workqueue before being requested",
  workDuration: "How long in seconds processing an item from workqueue takes.",
  unfinished: "How many seconds of work has been done that is in progress and hasn't been " +
    "observed by work_duration. Large values indicate stuck threads. One can deduce the number " +
    "of stuck threads by observing the rate at which this increases.",
  longest: "How many seconds has the longest running processor for workqueue been running.",
  retries: "Total number of items added to the workqueue with a non-zero delay (rate-limited " +
    "requeues, explicit RequeueAfter or AddAfter calls)",
  leader: "Gauge of if the reporting system is master of the relevant lease, 0 indicates " +
    "backup, 1 indicates master. 'name' is the string used to identify the lease. Please make " +
    "sure to group by name.",
} as const;

/** Options of {@linkcode controllerRuntimeMetrics}. */
export interface ControllerRuntimeMetricsOptions {
  /**
   * Time source of `workqueue_unfinished_work_seconds` and
   * `workqueue_longest_running_processor_seconds`.
   * @default the system clock (`Date.now` and the global timers)
   */
  clock?: Clock | undefined;
}

/**
 * Metrics hooks of one controller: pass as a controller's `metrics` option (its default queue
 * takes `queue`).
 */
export interface ControllerRuntimeHooks {
  /** Sets `controller_runtime_max_concurrent_reconciles`. */
  onStart(workers: number): void;
  /** Counts a reconcile (`controller_runtime_reconcile_total{result}`, errors, time). */
  onReconcile(outcome: "success" | "error" | "requeue" | "requeue_after", durationMs: number): void;
  /** Sets `controller_runtime_active_workers`. */
  onActiveWorkers(active: number): void;
  /** The hooks of the controller's queue (`workqueue_*{name, controller}`). */
  readonly queue: WorkQueueMetricsHooks<unknown>;
}

/** Callbacks that set `leader_election_master_status` (fit a `LeaderElector`'s `observe`). */
export interface LeaderElectionMetricsHooks {
  /** Sets the gauge to 1. */
  onStartedLeading(): void;
  /** Sets the gauge to 0. */
  onStoppedLeading(): void;
}

/** What {@linkcode controllerRuntimeMetrics} returns. */
export interface ControllerRuntimeMetrics {
  /**
   * The hooks of the controller `name` (the same object for the same name): its
   * `controller_runtime_*` series appear at once, initialised as controller-runtime does.
   */
  controller(name: string): ControllerRuntimeHooks;
  /**
   * The hooks of a work queue (`name` is both its `name` and `controller` label, as
   * controller-runtime labels its queues); its series appear at once.
   */
  workqueue(name: string): WorkQueueMetricsHooks<unknown>;
  /** The hooks of the lease `name` (its gauge appears at once, at 0). */
  leaderElection(name: string): LeaderElectionMetricsHooks;
  /** The text format now. */
  render(): string;
  /** Answers `GET`/`HEAD` with the text format (any path), 405 for other methods. */
  readonly handler: (request: Request) => Response;
}

interface ControllerSeries {
  readonly results: Map<string, number>;
  errors: number;
  maxConcurrent: number;
  active: number;
  time: HistogramData | undefined;
}

interface QueueSeries {
  depth: number;
  adds: number;
  retries: number;
  readonly latency: HistogramData;
  readonly work: HistogramData;
  /** Items taken by a worker, with when (a count per item: the same key is never held twice). */
  readonly processing: Map<unknown, number>;
}

/**
 * A registry of controller-runtime's metrics, rendered in the Prometheus text format as
 * client_golang renders it. Per controller (label `controller`):
 * `controller_runtime_reconcile_total{result}` (`success`, `error`, `requeue`, `requeue_after`),
 * `controller_runtime_reconcile_errors_total`, `controller_runtime_terminal_reconcile_errors_total`,
 * `controller_runtime_reconcile_panics_total` and `controller_runtime_reconcile_timeouts_total`
 * (always 0: a kinformer reconcile that throws is retried, never terminal, and has no timeout),
 * `controller_runtime_reconcile_time_seconds` (histogram), `controller_runtime_max_concurrent_reconciles`,
 * `controller_runtime_active_workers`. Per queue (labels `name`, `controller`):
 * `workqueue_depth` (also `priority=""`), `workqueue_adds_total`,
 * `workqueue_queue_duration_seconds` and `workqueue_work_duration_seconds` (histograms),
 * `workqueue_unfinished_work_seconds`, `workqueue_longest_running_processor_seconds`,
 * `workqueue_retries_total`. Per lease (label `name`): `leader_election_master_status`.
 *
 * @example
 * ```ts
 * import { controllerRuntimeMetrics } from "@kinformer/kinformer/metrics";
 * import { runController, type InformerLike } from "@kinformer/kinformer/controller";
 * import assert from "node:assert/strict";
 *
 * type Obj = { metadata: { namespace?: string; name?: string } };
 * const informer: InformerLike<Obj> = {
 *   addEventHandler(handler) {
 *     handler.onAdd?.({ metadata: { namespace: "default", name: "web" } }, true);
 *     return { hasSynced: () => true, remove: () => {} };
 *   },
 * };
 * const registry = controllerRuntimeMetrics();
 * const stop = new AbortController();
 * await runController({
 *   name: "web",
 *   informers: [informer],
 *   signal: stop.signal,
 *   metrics: registry.controller("web"),
 *   reconcile: () => stop.abort(),
 * });
 * const text = registry.render();
 * assert.match(text, /^controller_runtime_reconcile_total\{controller="web",result="success"\} 1$/m);
 * assert.match(text, /^workqueue_adds_total\{controller="web",name="web"\} 1$/m);
 * ```
 */
export function controllerRuntimeMetrics(
  options: ControllerRuntimeMetricsOptions = {},
): ControllerRuntimeMetrics {
  checkOptionsObject(options, "controllerRuntimeMetrics");
  checkClock(options.clock, "clock");
  const clock = options.clock ?? systemClock;
  const controllers = new Map<
    string,
    { series: ControllerSeries; hooks: ControllerRuntimeHooks }
  >();
  const queues = new Map<string, { series: QueueSeries; hooks: WorkQueueMetricsHooks<unknown> }>();
  const leases = new Map<string, { leading: number; hooks: LeaderElectionMetricsHooks }>();

  const workqueue = (name: string): WorkQueueMetricsHooks<unknown> => {
    requireNonEmptyString(name, "name");
    const known = queues.get(name);
    if (known !== undefined) return known.hooks;
    const series: QueueSeries = {
      depth: 0,
      adds: 0,
      retries: 0,
      latency: new HistogramData(QUEUE_BUCKETS),
      work: new HistogramData(QUEUE_BUCKETS),
      processing: new Map(),
    };
    const hooks: WorkQueueMetricsHooks<unknown> = {
      onAdd() {
        series.depth++;
        series.adds++;
      },
      onGet(latencyMs, item) {
        series.depth--;
        series.latency.observe(latencyMs / 1000);
        series.processing.set(item, clock.now());
      },
      onDone(durationMs, item) {
        series.work.observe(durationMs / 1000);
        series.processing.delete(item);
      },
      onRetry() {
        series.retries++;
      },
    };
    queues.set(name, { series, hooks });
    return hooks;
  };

  const controller = (name: string): ControllerRuntimeHooks => {
    requireNonEmptyString(name, "name");
    const known = controllers.get(name);
    if (known !== undefined) return known.hooks;
    const series: ControllerSeries = {
      results: new Map(RESULTS.map((r) => [r, 0])),
      errors: 0,
      maxConcurrent: 0,
      active: 0,
      time: undefined,
    };
    const hooks: ControllerRuntimeHooks = {
      onStart(workers) {
        series.maxConcurrent = workers;
      },
      onReconcile(outcome, durationMs) {
        series.results.set(outcome, (series.results.get(outcome) ?? 0) + 1);
        if (outcome === "error") series.errors++;
        series.time ??= new HistogramData(RECONCILE_BUCKETS);
        series.time.observe(durationMs / 1000);
      },
      onActiveWorkers(active) {
        series.active = active;
      },
      queue: workqueue(name),
    };
    controllers.set(name, { series, hooks });
    return hooks;
  };

  const leaderElection = (name: string): LeaderElectionMetricsHooks => {
    requireNonEmptyString(name, "name");
    const known = leases.get(name);
    if (known !== undefined) return known.hooks;
    const entry = {
      leading: 0,
      hooks: {
        onStartedLeading: () => void (entry.leading = 1),
        onStoppedLeading: () => void (entry.leading = 0),
      },
    };
    leases.set(name, entry);
    return entry.hooks;
  };

  const render = (): string => {
    const out = new Exposition();
    for (const [name, { series: s }] of controllers) {
      const c = { controller: name };
      for (const [result, n] of s.results) {
        out.sample("controller_runtime_reconcile_total", "counter", HELP.reconcileTotal, {
          ...c,
          result,
        }, n);
      }
      out.sample(
        "controller_runtime_reconcile_errors_total",
        "counter",
        HELP.reconcileErrors,
        c,
        s.errors,
      );
      out.sample(
        "controller_runtime_terminal_reconcile_errors_total",
        "counter",
        HELP.terminalErrors,
        c,
        0,
      );
      out.sample("controller_runtime_reconcile_panics_total", "counter", HELP.panics, c, 0);
      out.sample("controller_runtime_reconcile_timeouts_total", "counter", HELP.timeouts, c, 0);
      out.sample(
        "controller_runtime_max_concurrent_reconciles",
        "gauge",
        HELP.maxConcurrent,
        c,
        s.maxConcurrent,
      );
      out.sample("controller_runtime_active_workers", "gauge", HELP.activeWorkers, c, s.active);
      if (s.time !== undefined) {
        out.histogram(
          "controller_runtime_reconcile_time_seconds",
          HELP.reconcileTime,
          c,
          s.time.buckets,
          s.time.counts,
          s.time.sum,
          s.time.count,
        );
      }
    }
    const now = clock.now();
    for (const [name, { series: q }] of queues) {
      const labels = { name, controller: name };
      out.sample("workqueue_depth", "gauge", HELP.depth, { ...labels, priority: "" }, q.depth);
      out.sample("workqueue_adds_total", "counter", HELP.adds, labels, q.adds);
      out.sample("workqueue_retries_total", "counter", HELP.retries, labels, q.retries);
      for (
        const [family, help, h] of [
          ["workqueue_queue_duration_seconds", HELP.latency, q.latency],
          ["workqueue_work_duration_seconds", HELP.workDuration, q.work],
        ] as const
      ) {
        out.histogram(family, help, labels, h.buckets, h.counts, h.sum, h.count);
      }
      let unfinished = 0;
      let longest = 0;
      for (const since of q.processing.values()) {
        const seconds = Math.max(0, now - since) / 1000;
        unfinished += seconds;
        longest = Math.max(longest, seconds);
      }
      out.sample("workqueue_unfinished_work_seconds", "gauge", HELP.unfinished, labels, unfinished);
      out.sample(
        "workqueue_longest_running_processor_seconds",
        "gauge",
        HELP.longest,
        labels,
        longest,
      );
    }
    for (const [name, { leading }] of leases) {
      out.sample("leader_election_master_status", "gauge", HELP.leader, { name }, leading);
    }
    return out.text();
  };

  const handler = (request: Request): Response => {
    if (request.method !== "GET" && request.method !== "HEAD") {
      return new Response("method not allowed\n", { status: 405, headers: { Allow: "GET, HEAD" } });
    }
    return new Response(request.method === "HEAD" ? null : render(), {
      headers: { "Content-Type": PROMETHEUS_CONTENT_TYPE },
    });
  };

  return { controller, workqueue, leaderElection, render, handler };
}
