/**
 * What unit tests of code that talks to Kubernetes need without a server: a
 * {@linkcode ManualClock} (timers that fire when the test says so), {@linkcode seededRandom}
 * and object fixtures ({@linkcode podFixture} and friends).
 *
 * The simulated API server moved to its own package, `@kinformer/simulator` (JSR and npm:
 * `SimulatedCluster`, its faults and churn, and its serve adapters `@kinformer/simulator/deno`,
 * `.../bun`, `.../node`). This module still re-exports every name it exported before, from
 * `@kinformer/simulator`, so existing imports keep working when that package is installed
 * beside this one; this re-export will be removed in 0.3: import the simulator from
 * `@kinformer/simulator` instead.
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
 * import { ManualClock, podFixture, seededRandom } from "@kinformer/kinformer/testing";
 * import assert from "node:assert/strict";
 *
 * const clock = new ManualClock();
 * let fired = 0;
 * clock.setTimeout(() => fired++, 1_000);
 * await clock.advance(999);
 * assert.equal(fired, 0);
 * await clock.advance(1);
 * assert.equal(fired, 1);
 *
 * const pod = podFixture(1, { namespace: "default" });
 * assert.equal(pod.metadata.name, "pod-000001");
 * assert.equal(seededRandom(7)(), seededRandom(7)()); // the same seed, the same numbers
 * ```
 * @module
 */
export { ManualClock } from "./manual_clock.ts";
export { seededRandom } from "./seeded_random.ts";
export {
  configMapFixture,
  deploymentFixture,
  namespaceFixture,
  podFixture,
  widgetFixture,
} from "./fixtures.ts";
export type { FixtureOptions } from "./fixtures.ts";
// Moved to @kinformer/simulator; these re-exports will be removed in 0.3.
export { ClusterFaults, LOOPBACK_ORIGINS, SimulatedCluster, widgets } from "@kinformer/simulator";
export type {
  AuthorizationAttributes,
  AuthorizationDecision,
  AuthorizationFunction,
  AuthorizationRule,
  ChunkBodiesOptions,
  ChurnHandle,
  ChurnMix,
  ChurnOptions,
  ChurnStats,
  ClusterAuthorization,
  ClusterDeleteOptions,
  ClusterListOptions,
  CorruptWatchesOptions,
  CorruptWatchEventOptions,
  CustomResourceDefinitionObject,
  DropWatchAfterOptions,
  FailNextOptions,
  FaultTarget,
  ObjectRef,
  PendingFailure,
  PrinterColumn,
  RecordedRequest,
  RequestVerb,
  SeedFactory,
  ServedResource,
  SimulatedClusterOptions,
  StartChurnOptions,
  UserInfo,
  WatchCorruption,
  WatchEventCorruption,
  WatchEventFault,
  WatchEventFaultOptions,
  WatchFaults,
  Widget,
  WidgetSpec,
  WidgetStatus,
} from "@kinformer/simulator";
