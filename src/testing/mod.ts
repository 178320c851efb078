/**
 * Test kit for code that talks to Kubernetes: a simulated API server
 * ({@linkcode SimulatedCluster}, a web-standard `fetch` handler with real list/watch/write
 * semantics, fault injection and a churn driver), a {@linkcode ManualClock}, and object
 * fixtures. Serve the cluster over HTTP with the adapter of your runtime
 * (`@kinformer/kinformer/testing/deno`, `.../testing/bun`, `.../testing/node`), or hand
 * `cluster.fetch` to a client and stay in-process.
 *
 * ## Guides
 * - [Getting started](https://github.com/kinformer/kinformer/blob/main/docs/getting-started.md):
 *   install and a first informer on each runtime.
 * - [Serverless and browsers](https://github.com/kinformer/kinformer/blob/main/docs/serverless-and-browsers.md):
 *   checkpoints, catch-up runs, Cloudflare Workers, browsers, WebSocket watches.
 * - [Controllers](https://github.com/kinformer/kinformer/blob/main/docs/controllers.md):
 *   work queue, runController, sources, predicates, server-side apply, events, finalizers,
 *   conditions, the Manager.
 * - [Migrating from client-node and client-go](https://github.com/kinformer/kinformer/blob/main/docs/migrating.md):
 *   from @kubernetes/client-node and client-go concepts.
 * - [Testing your controller with the simulated cluster](https://github.com/kinformer/kinformer/blob/main/docs/testing.md):
 *   the simulated cluster, faults, churn, ManualClock, kubectl against it.
 *
 * @example
 * ```ts
 * import { KubeClient, pods } from "@kinformer/kinformer/client";
 * import { ManualClock, SimulatedCluster } from "@kinformer/kinformer/testing";
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
export { ManualClock } from "./manual_clock.ts";
export { seededRandom } from "./seeded_random.ts";
export {
  LOOPBACK_ORIGINS,
  SimulatedCluster,
} from "../../packages/simulator/src/cluster/simulated_cluster.ts";
export type {
  ClusterDeleteOptions,
  ClusterListOptions,
  ObjectRef,
  RecordedRequest,
  SeedFactory,
  ServedResource,
  SimulatedClusterOptions,
} from "../../packages/simulator/src/cluster/simulated_cluster.ts";
export { ClusterFaults } from "../../packages/simulator/src/handlers/faults/cluster_faults.ts";
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
} from "../../packages/simulator/src/handlers/faults/cluster_faults.ts";
export type {
  ChurnHandle,
  ChurnMix,
  ChurnOptions,
  ChurnStats,
  StartChurnOptions,
} from "../../packages/simulator/src/cluster/faults/churn.ts";
export {
  configMapFixture,
  deploymentFixture,
  namespaceFixture,
  podFixture,
  widgetFixture,
} from "./fixtures.ts";
export type { FixtureOptions } from "./fixtures.ts";
export { widgets } from "../../packages/simulator/src/model/kinds/widgets.ts";
export type {
  AuthorizationAttributes,
  AuthorizationDecision,
  AuthorizationFunction,
  AuthorizationRule,
  ClusterAuthorization,
  UserInfo,
} from "../../packages/simulator/src/handlers/authorization/authorization_policy.ts";
export type { PrinterColumn } from "../../packages/simulator/src/model/tables/printer_columns.ts";
export type { CustomResourceDefinitionObject } from "../../packages/simulator/src/model/kinds/custom_resources.ts";
export type {
  Widget,
  WidgetSpec,
  WidgetStatus,
} from "../../packages/simulator/src/model/kinds/widgets.ts";
