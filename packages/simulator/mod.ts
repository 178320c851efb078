/**
 * A simulated Kubernetes API server for tests: {@linkcode SimulatedCluster}, a web-standard
 * `fetch` handler with real list/watch/write semantics (server-side apply, strategic merge
 * patch, tables, discovery, OpenAPI, custom resources, garbage collection), fault injection
 * and a churn driver. Hand `cluster.fetch` to a client and stay in-process, or serve it over
 * HTTP(S) and WebSocket with the adapter of your runtime (`@kinformer/simulator/deno`,
 * `.../bun`, `.../node`) and point kubectl at it.
 *
 * Drive its time with `ManualClock` and build objects with the fixtures of
 * `@kinformer/kinformer/testing` (the library keeps what unit tests need without a server).
 *
 * See [ARCHITECTURE.md](https://github.com/kinformer/kinformer/blob/main/packages/simulator/ARCHITECTURE.md)
 * for its layers, and the
 * [testing guide](https://github.com/kinformer/kinformer/blob/main/docs/testing.md).
 *
 * @example
 * ```ts
 * import { KubeClient, pods } from "@kinformer/kinformer/client";
 * import { ManualClock } from "@kinformer/kinformer/testing";
 * import { SimulatedCluster } from "@kinformer/simulator";
 * import assert from "node:assert/strict";
 *
 * const clock = new ManualClock();
 * const cluster = new SimulatedCluster({ clock, bookmarkIntervalMs: 1_000 });
 * cluster.seed(pods, 3);
 * const client = new KubeClient({ server: "http://sim", fetch: cluster.fetch });
 *
 * const list = await client.list(pods, { limit: 2 });
 * assert.equal(list.items.length, 2);
 * assert.equal(list.metadata.remainingItemCount, 1);
 *
 * const watch = await client.watch(pods, {
 *   resourceVersion: list.metadata.resourceVersion,
 *   allowWatchBookmarks: true,
 * });
 * cluster.faults.chunkBodies({ maxChunkBytes: 5 }); // now split anywhere, mid-UTF-8 too
 * cluster.churn(10, { resource: pods, namespaces: ["default"] });
 * await clock.advance(1_000); // a BOOKMARK is due
 * await watch.body?.cancel();
 * cluster.close();
 * assert.equal(clock.pendingTimers, 0); // nothing left behind
 * ```
 * @module
 */
export { LOOPBACK_ORIGINS, SimulatedCluster } from "./src/cluster/simulated_cluster.ts";
export type {
  ClusterDeleteOptions,
  ClusterListOptions,
  ObjectRef,
  RecordedRequest,
  SeedFactory,
  ServedResource,
  SimulatedClusterOptions,
} from "./src/cluster/simulated_cluster.ts";
export { ClusterFaults } from "./src/handlers/faults/cluster_faults.ts";
export type {
  ChunkBodiesOptions,
  CorruptWatchesOptions,
  CorruptWatchEventOptions,
  DropWatchAfterOptions,
  FailNextOptions,
  FaultTarget,
  PendingFailure,
  RequestVerb,
  WatchCorruption,
  WatchEventCorruption,
  WatchEventFault,
  WatchEventFaultOptions,
  WatchFaults,
} from "./src/handlers/faults/cluster_faults.ts";
export type {
  ChurnHandle,
  ChurnMix,
  ChurnOptions,
  ChurnStats,
  StartChurnOptions,
} from "./src/cluster/faults/churn.ts";
export { widgets } from "./src/model/kinds/widgets.ts";
export type { Widget, WidgetSpec, WidgetStatus } from "./src/model/kinds/widgets.ts";
export type {
  AuthorizationAttributes,
  AuthorizationDecision,
  AuthorizationFunction,
  AuthorizationRule,
  ClusterAuthorization,
  UserInfo,
} from "./src/handlers/authorization/authorization_policy.ts";
export type { PrinterColumn } from "./src/model/tables/printer_columns.ts";
export type { CustomResourceDefinitionObject } from "./src/model/kinds/custom_resources.ts";
