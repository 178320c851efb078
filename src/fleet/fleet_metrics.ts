/**
 * Prometheus gauges of a fleet's clusters, read from `fleet.health()` at each scrape.
 * @module
 */
import { Exposition, type MetricType } from "../metrics/_exposition.ts";
import { PROMETHEUS_CONTENT_TYPE } from "../metrics/prometheus.ts";
import { checkFunction } from "../util/validate.ts";
import { describeValue } from "../util/values.ts";
import type { ClusterState, FleetHealth } from "./cluster_state.ts";

/** Every state, so each has a sample (0 when no cluster is in it). */
const STATES: readonly ClusterState[] = [
  "connecting",
  "syncing",
  "synced",
  "unreachable",
  "forbidden",
  "missing",
];

/** What {@linkcode fleetMetrics} returns. */
export interface FleetMetrics {
  /** Answers `GET`/`HEAD` with the text format (any path: mount it where you like). */
  readonly handler: (request: Request) => Response;
  /** The current text format, as the handler serves it. */
  render(): string;
}

/**
 * Prometheus gauges of a fleet, read from `health` (usually `() => fleet.health()`) at each
 * scrape: clusters per state, each engaged cluster's state (one series, the current state, at
 * 1), objects in view, whether its objects are stale, and the time of its last error by kind.
 * Removed clusters have no series. Render it next to an informer's `prometheusMetrics` in one
 * scrape by joining the texts.
 *
 * @example
 * ```ts
 * import { Fleet, fleetMetrics } from "@kinformer/kinformer/fleet";
 * import { KubeClient, pods } from "@kinformer/kinformer/client";
 * import { SimulatedCluster } from "@kinformer/kinformer/testing";
 * import assert from "node:assert/strict";
 * const sim = new SimulatedCluster({ autoCreateNamespaces: true });
 * sim.seed(pods, 2);
 * await using fleet = new Fleet({ resource: pods });
 * fleet.engage("eu-1", new KubeClient({ server: "http://sim", fetch: sim.fetch }));
 * await fleet.waitForSync();
 * const text = fleetMetrics(() => fleet.health()).render();
 * assert.match(text, /^kinformer_fleet_cluster_state\{cluster="eu-1",state="synced"\} 1$/m);
 * assert.match(text, /^kinformer_fleet_cluster_objects\{cluster="eu-1"\} 2$/m);
 * assert.match(text, /^kinformer_fleet_clusters\{state="synced"\} 1$/m);
 * sim.close();
 * ```
 */
export function fleetMetrics(
  health: () => FleetHealth,
  options: { prefix?: string | undefined } = {},
): FleetMetrics {
  checkFunction(health, "health");
  const prefix = options.prefix ?? "kinformer_";
  if (typeof prefix !== "string" || !/^[a-zA-Z_:][a-zA-Z0-9_:]*$/.test(prefix + "x")) {
    throw new TypeError(
      `prefix must start a valid Prometheus metric name, got ${describeValue(prefix)}`,
    );
  }
  const render = (): string => {
    const h = health();
    const out = new Exposition();
    const gauge = (name: string, help: string, labels: Record<string, string>, v: number) =>
      out.sample(`${prefix}fleet_${name}`, "gauge" satisfies MetricType, help, labels, v);
    for (const state of STATES) {
      gauge("clusters", "Engaged clusters per state.", { state }, h.states[state] ?? 0);
    }
    gauge("objects", "Objects in the merged view.", {}, h.objects);
    for (const c of h.clusters) {
      if (c.state === "removed") continue;
      const cluster = c.name;
      gauge("cluster_state", "The cluster's current state (1).", { cluster, state: c.state }, 1);
      gauge("cluster_objects", "The cluster's objects in the merged view.", { cluster }, c.objects);
      gauge("cluster_stale", "Whether the cluster's objects may be stale.", { cluster }, +c.stale);
      if (c.lastError !== undefined) {
        gauge(
          "cluster_last_error_timestamp_seconds",
          "Time of the cluster's last error, by kind.",
          { cluster, kind: c.lastError.kind },
          c.lastError.at / 1000,
        );
      }
    }
    return out.text();
  };
  const handler = (request: Request): Response => {
    if (request.method !== "GET" && request.method !== "HEAD") {
      return new Response("method not allowed\n", { status: 405, headers: { Allow: "GET, HEAD" } });
    }
    const body = render();
    return new Response(request.method === "HEAD" ? null : body, {
      headers: { "Content-Type": PROMETHEUS_CONTENT_TYPE },
    });
  };
  return { handler, render };
}
