/**
 * Multi-cluster informers: one resource watched in a fleet of clusters, engaged and disengaged
 * while it runs, with one merged view (keys `cluster|namespace/name`), one event stream where
 * each event says its cluster, and a state per cluster.
 *
 * ## Guides
 * - [Fleets: one program, many clusters](https://github.com/kinformer/kinformer/blob/main/docs/fleet.md):
 *   engaged clusters and their states, the merged view and events, providers, fleet controllers.
 *
 * @example
 * ```ts
 * import { Fleet, staticClusters } from "@kinformer/kinformer/fleet";
 * import { KubeClient, pods } from "@kinformer/kinformer/client";
 * import { SimulatedCluster } from "@kinformer/kinformer/testing";
 * import assert from "node:assert/strict";
 * const servers = {
 *   eu: new SimulatedCluster({ autoCreateNamespaces: true }),
 *   us: new SimulatedCluster(),
 * };
 * servers.eu.create(pods, { metadata: { namespace: "web", name: "api" } });
 * await using fleet = new Fleet({ resource: pods });
 * const ac = new AbortController();
 * await staticClusters({
 *   eu: new KubeClient({ server: "http://eu", fetch: servers.eu.fetch }),
 *   us: new KubeClient({ server: "http://us", fetch: servers.us.fetch }),
 * }).run(fleet, { signal: ac.signal });
 * await fleet.waitForSync();
 * assert.deepEqual(fleet.store.listKeys(), ["eu|web/api"]);
 * ac.abort();
 * servers.eu.close();
 * servers.us.close();
 * ```
 * @module
 */
export { Fleet } from "./fleet.ts";
export { CLUSTER_INDEX, CLUSTER_NAMESPACE_INDEX, FleetStore } from "./fleet_store.ts";
export { FleetLister } from "./fleet_lister.ts";
export { fleetKey, splitFleetKey } from "./cluster_key.ts";
export type { FleetEvent } from "./fleet_event.ts";
export type {
  ClusterError,
  ClusterFailure,
  ClusterHealth,
  ClusterState,
  FleetHealth,
} from "./cluster_state.ts";
export type {
  ClusterClientInit,
  ClusterInformerOptions,
  ClusterTarget,
  EngageOptions,
  FleetOptions,
  FleetSyncOptions,
  UnreachablePolicy,
} from "./fleet_options.ts";
export { compositeProvider, staticClusters } from "./cluster_provider.ts";
export type { ClusterProvider, ClusterSink } from "./cluster_provider.ts";
export { kubeconfigConnector, kubeconfigContexts } from "./kubeconfig_contexts.ts";
export type { KubeconfigContextsOptions } from "./kubeconfig_contexts.ts";
export { kubeconfigSecrets } from "./kubeconfig_secrets.ts";
export type { KubeconfigSecretLayout, KubeconfigSecretsOptions } from "./kubeconfig_secrets.ts";
export { fleetMetrics } from "./fleet_metrics.ts";
export type { FleetMetrics } from "./fleet_metrics.ts";
export { shardedClusters } from "./sharded_clusters.ts";
export { FleetController, runFleetController } from "./fleet_controller.ts";
export type {
  FleetControllerHealth,
  FleetControllerOptions,
  FleetRequest,
} from "./fleet_controller.ts";
