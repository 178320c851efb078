/**
 * Prometheus metrics for an informer, with no dependency: {@linkcode prometheusMetrics} gives
 * the `metrics` hooks to pass to `createInformer` and a `fetch`-style handler that renders them,
 * plus gauges read from `informer.health()` at each scrape, in the Prometheus text format.
 * @module
 */
import type { InformerHealth, InformerMetrics } from "../cache/informer.ts";
import type { ReflectorState } from "../cache/reflector.ts";
import { checkFunction, checkString } from "../util/validate.ts";
import { Exposition as Writer, type Labels, type MetricType } from "./_exposition.ts";
import { describeValue } from "../util/values.ts";

/** Options of {@linkcode prometheusMetrics}. */
export interface PrometheusMetricsOptions {
  /** Prefix of every metric name. @default "kinformer_" */
  prefix?: string | undefined;
  /**
   * Constant labels on every sample, e.g. `{ resource: "pods" }` to tell informers apart when
   * several render into one scrape. @default {}
   */
  labels?: Record<string, string> | undefined;
  /**
   * Read at each scrape for the health gauges (state, synced, stalled, objects, timestamps,
   * errors by kind, listener backlogs); usually `() => informer.health()`. A function, so the
   * informer can be created after the hooks it is given. @default undefined (no health gauges)
   */
  health?: (() => InformerHealth) | undefined;
}

/** What {@linkcode prometheusMetrics} returns. */
export interface PrometheusMetrics {
  /** Pass as `createInformer(client, { metrics })`. */
  readonly metrics: InformerMetrics;
  /** Answers `GET`/`HEAD` with the text format (any path: mount it where you like). */
  readonly handler: (request: Request) => Response;
  /** The current text format, as the handler serves it. */
  render(): string;
}

/**
 * `Content-Type` of the Prometheus text format (version 0.0.4), as the handler sends it.
 *
 * @example
 * ```ts
 * import { PROMETHEUS_CONTENT_TYPE } from "@kinformer/kinformer/metrics";
 * import assert from "node:assert/strict";
 * const response = new Response("kinformer_synced 1\n", {
 *   headers: { "Content-Type": PROMETHEUS_CONTENT_TYPE },
 * });
 * assert.equal(response.headers.get("content-type"), "text/plain; version=0.0.4; charset=utf-8");
 * ```
 */
export const PROMETHEUS_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const WATCH_EVENT_TYPES = ["ADDED", "MODIFIED", "DELETED", "BOOKMARK"] as const;
const CHECK_OUTCOMES = ["consistent", "drift", "skipped", "inconclusive"] as const;
const DRIFT_KINDS = ["missing", "extra", "stale"] as const;
const STATES: readonly ReflectorState[] = ["idle", "listing", "watching", "backing-off", "stopped"];

/**
 * Collects an informer's metrics hooks into counters and gauges and renders them, with the
 * informer's `health()` if given, in the Prometheus text exposition format (version 0.0.4).
 * Throws a `TypeError` for a prefix or label name Prometheus would not accept.
 *
 * Metrics (with the default prefix): `kinformer_list_total`, `kinformer_list_duration_seconds`
 * (summary: `_sum`, `_count`), `kinformer_list_items`, `kinformer_list_pages_total`,
 * `kinformer_watch_events_total{type}`, `kinformer_relists_total{reason}`,
 * `kinformer_reconnects_total{kind}`, `kinformer_decode_errors_total`,
 * `kinformer_listener_backlog_max`, `kinformer_consistency_checks_total{outcome}`,
 * `kinformer_drift_objects_total{kind}` (`missing`, `extra`, `stale`); from `health()`: `kinformer_state{state}`,
 * `kinformer_synced`, `kinformer_stalled`, `kinformer_objects`,
 * `kinformer_cache_estimated_bytes{mode}`, `kinformer_event_lag_seconds` (summary: `_sum`,
 * `_count`), `kinformer_event_lag_max_seconds`,
 * `kinformer_last_event_timestamp_seconds`, `kinformer_last_bookmark_timestamp_seconds`,
 * `kinformer_watch_restarts_total`, `kinformer_errors_total{kind}`,
 * `kinformer_last_error_timestamp_seconds`, `kinformer_listeners`,
 * `kinformer_listener_backlog_high_water`, `kinformer_consistency_last_check_timestamp_seconds`.
 *
 * @example
 * ```ts
 * import { createInformer, KubeClient, pods } from "@kinformer/kinformer";
 * import { prometheusMetrics } from "@kinformer/kinformer/metrics";
 * import { SimulatedCluster } from "@kinformer/kinformer/testing";
 * import assert from "node:assert/strict";
 *
 * const cluster = new SimulatedCluster();
 * cluster.seed(pods, 3);
 * const client = new KubeClient({ server: "http://sim", fetch: cluster.fetch });
 *
 * const prom = prometheusMetrics({ labels: { resource: "pods" }, health: () => informer.health() });
 * const informer = createInformer(client, { resource: pods, metrics: prom.metrics });
 * informer.start();
 * await informer.waitForSync();
 *
 * // Mount prom.handler at /metrics in any fetch-style server (Deno.serve, Bun.serve, a Worker).
 * const scrape = await prom.handler(new Request("http://localhost/metrics")).text();
 * assert.match(scrape, /^kinformer_objects\{resource="pods"\} 3$/m);
 * await informer.stop();
 * cluster.close();
 * ```
 */
export function prometheusMetrics(options: PrometheusMetricsOptions = {}): PrometheusMetrics {
  const prefix = options.prefix ?? "kinformer_";
  if (typeof prefix !== "string" || !METRIC_NAME.test(prefix + "x")) {
    throw new TypeError(
      `prefix must start a valid Prometheus metric name, got ${describeValue(prefix)}`,
    );
  }
  const constant = { ...options.labels };
  for (const [name, value] of Object.entries(constant)) {
    if (!LABEL_NAME.test(name) || name.startsWith("__")) {
      throw new TypeError(`labels: ${describeValue(name)} is not a valid Prometheus label name`);
    }
    checkString(value, `labels.${name}`);
  }
  const health = options.health;
  checkFunction(health, "health");

  let lists = 0;
  let listSeconds = 0;
  let listItems = 0;
  let listPages = 0;
  const watchEvents = new Map<string, number>(WATCH_EVENT_TYPES.map((t) => [t, 0]));
  const relists = new Map<string, number>();
  const reconnects = new Map<string, number>();
  let decodeErrors = 0;
  let backlogMax = 0;
  const checks = new Map<string, number>(CHECK_OUTCOMES.map((o) => [o, 0]));
  const drift = new Map<string, number>(DRIFT_KINDS.map((k) => [k, 0]));

  const metrics: InformerMetrics = {
    onList(durationMs, items, pages) {
      lists++;
      listSeconds += durationMs / 1000;
      listItems = items;
      listPages += pages;
    },
    onWatchEvent(type) {
      watchEvents.set(type, (watchEvents.get(type) ?? 0) + 1);
    },
    onRelist(reason) {
      relists.set(reason, (relists.get(reason) ?? 0) + 1);
    },
    onReconnect(kind) {
      reconnects.set(kind, (reconnects.get(kind) ?? 0) + 1);
    },
    onDecodeError() {
      decodeErrors++;
    },
    onListenerBacklog(maxBacklog) {
      backlogMax = maxBacklog;
    },
    onConsistencyCheck(result) {
      checks.set(result.outcome, (checks.get(result.outcome) ?? 0) + 1);
      for (const kind of DRIFT_KINDS) drift.set(kind, drift.get(kind)! + result[kind].length);
    },
  };

  const render = (): string => {
    const out = new Exposition(prefix, constant);
    out.family("list_total", "counter", "Completed list rounds (paged LISTs and streaming lists).");
    out.sample("list_total", lists);
    out.family("list_duration_seconds", "summary", "Time a list round took, all pages together.");
    out.sample("list_duration_seconds_sum", listSeconds);
    out.sample("list_duration_seconds_count", lists);
    out.family("list_items", "gauge", "Objects in the last completed list.");
    out.sample("list_items", listItems);
    out.family("list_pages_total", "counter", "LIST pages fetched by completed list rounds.");
    out.sample("list_pages_total", listPages);
    out.family(
      "watch_events_total",
      "counter",
      "Watch events received, by type (bookmarks included).",
    );
    for (const [type, n] of watchEvents) out.sample("watch_events_total", n, { type });
    out.family(
      "relists_total",
      "counter",
      "Lists that replaced an earlier state, by reason (expired: 410 Gone; requested; ...).",
    );
    for (const [reason, n] of [...relists].sort()) out.sample("relists_total", n, { reason });
    out.family("reconnects_total", "counter", "Watches reopened, by why the previous one ended.");
    for (const [kind, n] of [...reconnects].sort()) out.sample("reconnects_total", n, { kind });
    out.family("decode_errors_total", "counter", "Watch lines that could not be decoded.");
    out.sample("decode_errors_total", decodeErrors);
    out.family(
      "listener_backlog_max",
      "gauge",
      "Largest listener backlog after the last batch of events.",
    );
    out.sample("listener_backlog_max", backlogMax);
    out.family(
      "consistency_checks_total",
      "counter",
      "Consistency checks of the cache against the server, by outcome.",
    );
    for (const [outcome, n] of checks) out.sample("consistency_checks_total", n, { outcome });
    out.family(
      "drift_objects_total",
      "counter",
      "Keys found differing from the server by consistency checks, by kind.",
    );
    for (const [kind, n] of drift) out.sample("drift_objects_total", n, { kind });
    if (health !== undefined) renderHealth(out, health());
    return out.text();
  };

  const handler = (request: Request): Response => {
    if (request.method !== "GET" && request.method !== "HEAD") {
      return new Response("method not allowed\n", { status: 405, headers: { Allow: "GET, HEAD" } });
    }
    const body = request.method === "HEAD" ? null : render();
    return new Response(body, {
      status: 200,
      headers: { "Content-Type": PROMETHEUS_CONTENT_TYPE },
    });
  };

  return { metrics, handler, render };
}

function renderHealth(out: Exposition, h: InformerHealth): void {
  // The list/watch loop's activity (health().activity), as before the one lifecycle vocabulary.
  out.family("state", "gauge", "The informer's list/watch activity: 1 for the current one.");
  for (const state of STATES) out.sample("state", h.activity === state ? 1 : 0, { state });
  out.family("synced", "gauge", "1 once the cache holds a complete list.");
  out.sample("synced", h.synced ? 1 : 0);
  out.family("stalled", "gauge", "1 when nothing arrived for longer than the inactivity limit.");
  out.sample("stalled", h.stalled ? 1 : 0);
  out.family("objects", "gauge", "Objects in the cache.");
  out.sample("objects", h.objects);
  out.family(
    "cache_estimated_bytes",
    "gauge",
    "Estimated heap bytes the cached objects hold (see health().memory).",
  );
  out.sample("cache_estimated_bytes", h.memory.estimatedBytes, { mode: h.memory.mode });
  out.family(
    "event_lag_seconds",
    "summary",
    "Server write (newest managedFields time) to a consumer taking the live add or update.",
  );
  if (h.eventLag !== undefined) {
    out.sample("event_lag_seconds_sum", h.eventLag.sumMs / 1000);
    out.sample("event_lag_seconds_count", h.eventLag.events);
  }
  out.family("event_lag_max_seconds", "gauge", "Largest event lag measured.");
  if (h.eventLag !== undefined) out.sample("event_lag_max_seconds", h.eventLag.maxMs / 1000);
  out.family(
    "last_event_timestamp_seconds",
    "gauge",
    "When the last watch event arrived (Unix time).",
  );
  if (h.lastEventAt !== undefined) out.sample("last_event_timestamp_seconds", h.lastEventAt / 1000);
  out.family(
    "last_bookmark_timestamp_seconds",
    "gauge",
    "When the last bookmark arrived (Unix time).",
  );
  if (h.lastBookmarkAt !== undefined) {
    out.sample("last_bookmark_timestamp_seconds", h.lastBookmarkAt / 1000);
  }
  out.family("watch_restarts_total", "counter", "Watches opened after the first one.");
  out.sample("watch_restarts_total", h.watchRestarts);
  out.family("errors_total", "counter", "Errors, by kind.");
  for (const [kind, n] of Object.entries(h.errors).sort()) {
    out.sample("errors_total", n ?? 0, { kind });
  }
  out.family("last_error_timestamp_seconds", "gauge", "When the last error happened (Unix time).");
  if (h.lastError !== undefined) out.sample("last_error_timestamp_seconds", h.lastError.at / 1000);
  out.family("listeners", "gauge", "Listeners (event handlers and events() iterators).");
  out.sample("listeners", h.listeners.length);
  out.family(
    "listener_backlog_high_water",
    "gauge",
    "Largest backlog any current listener ever had.",
  );
  out.sample("listener_backlog_high_water", Math.max(0, ...h.listeners.map((l) => l.highWater)));
  out.family(
    "consistency_last_check_timestamp_seconds",
    "gauge",
    "When the last consistency check ended (Unix time).",
  );
  const lastCheck = h.consistency.lastCheckAt;
  if (lastCheck !== undefined) {
    out.sample("consistency_last_check_timestamp_seconds", lastCheck / 1000);
  }
}

/** The informer's families: a prefix on every name, constant labels on every sample. */
class Exposition {
  readonly #prefix: string;
  readonly #constant: Labels;
  readonly #writer = new Writer({ clientGolang: false });
  #current: { name: string; type: MetricType; help: string } | undefined;

  constructor(prefix: string, constant: Labels) {
    this.#prefix = prefix;
    this.#constant = constant;
  }

  family(name: string, type: MetricType, help: string): void {
    this.#current = { name: this.#prefix + name, type, help };
    this.#writer.declare(this.#current.name, type, help);
  }

  sample(name: string, value: number, labels: Labels = {}): void {
    const family = this.#current!;
    this.#writer.sample(this.#prefix + name, family.type, family.help, {
      ...this.#constant,
      ...labels,
    }, value);
  }

  text(): string {
    return this.#writer.text();
  }
}
