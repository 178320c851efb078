// Controllers over a fleet: requests carry the cluster, a disengaged cluster's requests are
// dropped, retries are limited per cluster, and clusters are sharded over replicas.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { KubeClient } from "../../src/client/kube_client.ts";
import { pods } from "../../src/client/resource.ts";
import type { KubeObject } from "../../src/client/types.ts";
import { ShardCoordinator } from "../../src/controller/leases/shard_coordinator.ts";
import { ItemExponentialFailureRateLimiter } from "../../src/queue/rate_limiter.ts";
import { staticClusters } from "../../src/fleet/cluster_provider.ts";
import { Fleet } from "../../src/fleet/fleet.ts";
import { runFleetController } from "../../src/fleet/fleet_controller.ts";
import type { ErrorContext } from "../../src/util/error_context.ts";
import { shardedClusters } from "../../src/fleet/sharded_clusters.ts";
import { seededRandom } from "../../src/testing/seeded_random.ts";
import { clientOf, ManualClock, server } from "./_fleet_env.ts";

describe("runFleetController", () => {
  test("requests carry the cluster; a disengaged cluster's requests are dropped, not retried", async () => {
    const clock = new ManualClock();
    const a = server(clock, 2, { seed: 1 });
    const b = server(clock, 2, { seed: 2 });
    await using fleet = new Fleet<KubeObject>({ resource: pods, clock });
    fleet.engage("a", clientOf("a", a.fetch));
    fleet.engage("b", clientOf("b", b.fetch));
    const ac = new AbortController();
    const seen: string[] = [];
    const limiters: string[] = [];
    const errors: ErrorContext[] = [];
    const done = runFleetController({
      fleet,
      clock,
      signal: ac.signal,
      workers: 2,
      rateLimiter: (cluster) => {
        limiters.push(cluster);
        return new ItemExponentialFailureRateLimiter({ baseDelayMs: 1_000, maxDelayMs: 60_000 });
      },
      onError: (_error, context) => void errors.push(context),
      reconcile: ({ cluster, fleetKey }) => {
        seen.push(fleetKey);
        if (cluster === "b") throw new Error("b always fails");
      },
    });
    await fleet.waitForSync();
    await clock.flush();
    assert.deepEqual(seen.filter((k) => k.startsWith("a|")).sort(), [
      "a|ns-0/pod-000000",
      "a|ns-1/pod-000001",
    ]);
    assert.deepEqual(limiters, ["b"], "only the failing cluster needed a limiter");
    await clock.advance(1_000);
    const bTries = seen.filter((k) => k.startsWith("b|")).length;
    assert.ok(bTries >= 4, `b retried on its limiter (${bTries})`);
    await fleet.disengage("b");
    await clock.advance(120_000);
    assert.equal(seen.filter((k) => k.startsWith("b|")).length, bTries, "b's retries dropped");
    // a stays live.
    a.create(pods, { metadata: { namespace: "x", name: "new" } });
    await clock.flush();
    assert.ok(seen.includes("a|x/new"));
    ac.abort();
    await done;
    assert.ok(errors.length > 0);
    for (const context of errors) {
      assert.deepEqual(
        { ...context, key: "", retryInMs: 0 },
        {
          kind: "other",
          phase: "reconcile",
          source: "fleet controller fleet",
          controller: "fleet",
          cluster: "b",
          key: "",
          action: "retrying with backoff",
          retryInMs: 0,
        },
      );
      assert.match(context.key ?? "", /^ns-\d\/pod-\d+$/);
      assert.ok((context.retryInMs ?? 0) >= 1_000, "the delay of b's own limiter");
    }
    a.close();
    b.close();
  });
});

describe("clusters sharded over replicas", () => {
  test("each replica engages only the clusters of its shards; the union covers the fleet", async () => {
    const clock = new ManualClock();
    const hub = server(clock, 0);
    const workload = server(clock, 1);
    const names = ["c0", "c1", "c2", "c3", "c4", "c5", "c6", "c7"];
    const targets = Object.fromEntries(names.map((n) => [n, clientOf(n, workload.fetch)]));
    const replicas = ["r1", "r2"].map((identity, i) => {
      const coordinator = new ShardCoordinator({
        client: new KubeClient({ server: "http://hub.sim", fetch: hub.fetch }),
        namespace: "fleet",
        name: "clusters",
        identity,
        shards: 4,
        clock,
        random: seededRandom(i + 1),
      });
      const fleet = new Fleet<KubeObject>({ resource: pods, clock });
      const stop = new AbortController();
      return { coordinator, fleet, stop };
    });
    for (const r of replicas) {
      await staticClusters(targets).run(shardedClusters(r.fleet, r.coordinator), {
        signal: r.stop.signal,
      });
      r.coordinator.start({ signal: r.stop.signal });
    }
    const engaged = () => replicas.map((r) => r.fleet.clusters().sort());
    for (let t = 0; t < 120; t++) {
      await clock.advance(1_000);
      const [one, two] = engaged();
      if (one!.length + two!.length === names.length && one!.length > 0 && two!.length > 0) break;
    }
    const [one, two] = engaged();
    assert.ok(one!.length > 0 && two!.length > 0, `both replicas hold clusters: ${one} / ${two}`);
    assert.deepEqual([...one!, ...two!].sort(), names, "each cluster on exactly one replica");
    for (const r of replicas) {
      for (const name of r.fleet.clusters()) {
        assert.ok(r.coordinator.owns(name), `${name} is engaged where its shard is owned`);
      }
    }
    // The first replica leaves: the second takes its shards and engages every cluster.
    replicas[0]!.stop.abort();
    await replicas[0]!.coordinator.stop();
    for (let t = 0; t < 120 && replicas[1]!.fleet.clusters().length < names.length; t++) {
      await clock.advance(1_000);
    }
    assert.deepEqual(replicas[1]!.fleet.clusters().sort(), names);
    assert.deepEqual(replicas[0]!.fleet.clusters(), []);
    await replicas[1]!.fleet.waitForSync();
    assert.equal(replicas[1]!.fleet.store.size, names.length);
    replicas[1]!.stop.abort();
    await replicas[1]!.coordinator.stop();
    for (const r of replicas) await r.fleet.stop();
    hub.close();
    workload.close();
  });
});
