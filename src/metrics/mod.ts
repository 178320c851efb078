/**
 * Metrics exposition, with no dependency, in the Prometheus text format, each served by a
 * web-standard handler `(request: Request) => Response` you mount wherever you like:
 * {@linkcode prometheusMetrics} turns an informer's `metrics` hooks and `health()` into
 * `kinformer_*` metrics; {@linkcode controllerRuntimeMetrics} gives controllers, work queues and
 * leader election controller-runtime's metrics (`controller_runtime_*`, `workqueue_*`,
 * `leader_election_master_status`), names, labels and buckets included.
 *
 * ```ts
 * import { createInformer, KubeClient, pods } from "@kinformer/kinformer";
 * import { prometheusMetrics } from "@kinformer/kinformer/metrics";
 * import { SimulatedCluster } from "@kinformer/kinformer/testing";
 * import assert from "node:assert/strict";
 *
 * const cluster = new SimulatedCluster();
 * const client = new KubeClient({ server: "http://sim", fetch: cluster.fetch });
 * const prom = prometheusMetrics({ labels: { resource: "pods" }, health: () => informer.health() });
 * const informer = createInformer(client, { resource: pods, metrics: prom.metrics });
 * informer.start();
 * await informer.waitForSync();
 * assert.match(prom.render(), /^kinformer_synced\{resource="pods"\} 1$/m);
 * await informer.stop();
 * cluster.close();
 * ```
 *
 * ## Guides
 * - [Controllers](https://github.com/kinformer/kinformer/blob/main/docs/controllers.md):
 *   work queue, runController, sources, predicates, server-side apply, events, finalizers,
 *   conditions, the Manager.
 * - [Running in production](https://github.com/kinformer/kinformer/blob/main/docs/production.md):
 *   memory, health and metrics, the consistency check, failure handling, benchmarks.
 *
 * @module
 */
export { PROMETHEUS_CONTENT_TYPE, prometheusMetrics } from "./prometheus.ts";
export type { PrometheusMetrics, PrometheusMetricsOptions } from "./prometheus.ts";
export {
  type ControllerRuntimeHooks,
  type ControllerRuntimeMetrics,
  controllerRuntimeMetrics,
  type ControllerRuntimeMetricsOptions,
  type LeaderElectionMetricsHooks,
} from "./controller_runtime.ts";
