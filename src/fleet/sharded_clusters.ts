/**
 * Clusters sharded over replicas: a sink that engages a cluster only while this replica owns
 * its shard (the `ShardCoordinator`'s Lease sharding, by the cluster's name).
 * @module
 */
import type { ShardCoordinator } from "../controller/leases/shard_coordinator.ts";
import { onAbort } from "../util/abort.ts";
import type { ClusterSink } from "./cluster_provider.ts";
import type { ClusterTarget } from "./fleet_options.ts";

/** An AbortSignal that aborts when either does. */
function either(a: AbortSignal, b: AbortSignal): { signal: AbortSignal; release: () => void } {
  const controller = new AbortController();
  const abort = (reason: unknown): void => controller.abort(reason);
  const releaseA = onAbort(a, () => abort(a.reason));
  const releaseB = onAbort(b, () => abort(b.reason));
  return {
    signal: controller.signal,
    release: () => {
      releaseA();
      releaseB();
    },
  };
}

/**
 * Wraps `sink` (a fleet) so each cluster a provider engages is engaged only on the replica that
 * owns its shard: `coordinator.shardOf(clusterName)`. When this replica gains a shard, its known
 * clusters are engaged; when it loses the shard (or its Lease lapses), they are disengaged, and
 * the replica that takes the shard over engages them. Every replica runs the same provider; each
 * holds the informers of its share of the fleet only. Start the coordinator yourself.
 *
 * @example
 * ```ts
 * import { Fleet, shardedClusters, staticClusters } from "@kinformer/kinformer/fleet";
 * import { ShardCoordinator } from "@kinformer/kinformer/controller";
 * import { KubeClient, pods } from "@kinformer/kinformer/client";
 * import { ManualClock, SimulatedCluster } from "@kinformer/kinformer/testing";
 * import assert from "node:assert/strict";
 * const clock = new ManualClock();
 * const hub = new SimulatedCluster({ clock, autoCreateNamespaces: true });
 * const hubClient = new KubeClient({ server: "http://hub", fetch: hub.fetch });
 * const coordinator = new ShardCoordinator({
 *   client: hubClient, namespace: "fleet", name: "clusters", identity: "replica-1", shards: 4, clock,
 * });
 * await using fleet = new Fleet({ resource: pods, clock });
 * const ac = new AbortController();
 * await staticClusters({ a: hubClient, b: hubClient, c: hubClient })
 *   .run(shardedClusters(fleet, coordinator), { signal: ac.signal });
 * assert.deepEqual(fleet.clusters(), []); // no shard owned yet
 * coordinator.start({ signal: ac.signal });
 * for (let i = 0; i < 20 && fleet.clusters().length < 3; i++) await clock.advance(1_000);
 * assert.deepEqual(fleet.clusters().sort(), ["a", "b", "c"]); // the only replica owns them all
 * ac.abort();
 * await coordinator.stop();
 * hub.close();
 * ```
 */
export function shardedClusters(sink: ClusterSink, coordinator: ShardCoordinator): ClusterSink {
  /** Clusters the provider engaged, with their provider signal. */
  const known = new Map<string, { target: ClusterTarget; signal: AbortSignal }>();
  /** Clusters engaged into the sink, with the release of their combined signal. */
  const engaged = new Map<string, () => void>();
  const engageUnder = (name: string, shardSignal: AbortSignal): void => {
    const entry = known.get(name);
    if (entry === undefined || entry.signal.aborted || shardSignal.aborted) return;
    engaged.get(name)?.();
    const { signal, release } = either(entry.signal, shardSignal);
    engaged.set(name, release);
    onAbort(signal, () => {
      if (engaged.get(name) === release) engaged.delete(name);
      release();
    });
    sink.engage(name, entry.target, { signal });
  };
  coordinator.observe({
    onShardStarted: (shard, signal) => {
      for (const name of known.keys()) {
        if (coordinator.shardOf(name) === shard) engageUnder(name, signal);
      }
    },
  });
  return {
    engage: (name, target, { signal }) => {
      if (signal.aborted) return false;
      known.set(name, { target, signal });
      onAbort(signal, () => {
        if (known.get(name)?.signal === signal) known.delete(name);
      });
      const permit = coordinator.enter(name);
      if (permit === undefined) return false;
      const term = permit.signal;
      permit.exit();
      engageUnder(name, term);
      return true;
    },
  };
}
