// runController({ leaderElection }) with three replicas on the simulated cluster.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { pods } from "../../../src/client/resource.ts";
import { LeaderElector, runController } from "../../../src/controller/mod.ts";
import { KubeClient } from "../../../src/client/kube_client.ts";
import { ManualClock } from "../../../src/testing/manual_clock.ts";
import { SimulatedCluster } from "@kinformer/simulator";
import { Fleet, type Replica } from "../../_replicas.ts";

function seed(fleet: Fleet, n: number): void {
  for (let i = 0; i < n; i++) {
    fleet.cluster.create(pods, { metadata: { namespace: `ns-${i % 3}`, name: `p-${i}` } });
  }
}

const reconcilers = (fleet: Fleet, after = 0): string[] =>
  fleet.replicas.filter((r) => r.done.some((d) => d.at > after)).map((r) => r.id);

describe("runController with leader election", () => {
  test("only the leader reconciles; standbys keep synced caches and take over with them", async () => {
    const fleet = new Fleet({ mode: "leader" });
    seed(fleet, 30);
    const [a, b, c] = ["a", "b", "c"].map((id) => fleet.spawn(id)) as [Replica, Replica, Replica];
    await fleet.run(10_000);
    assert.deepEqual(reconcilers(fleet), ["a"]);
    assert.equal(new Set(a.done.map((d) => d.key)).size, 30);
    for (const r of [b, c]) {
      assert.ok(r.informer.hasSynced(), `${r.id} synced while standing by`);
      assert.equal(r.informer.store.size, 30);
    }
    assert.deepEqual(fleet.unconverged(), []);

    // Changes while a leads are reconciled by a only.
    fleet.cluster.create(pods, { metadata: { namespace: "ns-0", name: "late" } });
    await fleet.run(2_000);
    assert.deepEqual(reconcilers(fleet), ["a"]);
    assert.deepEqual(fleet.unconverged(), []);

    // a crashes; a pod is deleted while nobody leads: the next leader reconciles everything,
    // the deletion included (from its cache and its record of recent deletions).
    const crashedAt = fleet.clock.now();
    fleet.crash(a);
    await fleet.run(1_000);
    fleet.cluster.delete(pods, { namespace: "ns-1", name: "p-1" });
    fleet.cluster.create(pods, { metadata: { namespace: "ns-2", name: "during" } });
    await fleet.run(17_000 + 3_000);
    const next = [b, c].find((r) => r.done.length > 0)!;
    assert.ok(next, "a standby took over");
    assert.deepEqual(reconcilers(fleet, crashedAt), [next.id]);
    const firstAt = Math.min(...next.done.map((d) => d.at));
    assert.ok(
      firstAt - crashedAt <= 15_000 + 2_000 + 500,
      `took over after ${firstAt - crashedAt} ms`,
    );
    const keys = new Set(next.done.map((d) => d.key));
    assert.ok(keys.has("ns-1/p-1"), "the deletion was reconciled");
    assert.ok(keys.has("ns-2/during"));
    assert.equal(keys.size, 32, "every key, from the synced cache");
    assert.deepEqual(fleet.unconverged(), []);
    assert.deepEqual(fleet.violations, []);
    await fleet.close();
  });

  test("stopping the leader hands over at once, after its in-flight reconciles finished", async () => {
    const fleet = new Fleet({ mode: "leader", costMs: 1_500 });
    seed(fleet, 6);
    const a = fleet.spawn("a");
    await fleet.run(1_000);
    const b = fleet.spawn("b");
    await fleet.run(1_000);
    assert.ok(fleet.active.size > 0, "a is reconciling");
    const stoppedAt = fleet.clock.now();
    a.stop.abort();
    await fleet.run(500); // a's reconciles see ctx.signal abort and end; then the lease is released
    await a.running;
    await fleet.run(2_500);
    assert.ok(b.done.length > 0, "b leads");
    assert.ok(Math.min(...b.done.map((d) => d.at)) - stoppedAt <= 2_500 + 1_500);
    await fleet.run(10_000);
    assert.deepEqual(fleet.unconverged(), []);
    assert.deepEqual(fleet.violations, []);
    await fleet.close();
  });

  test("a partitioned leader's reconciles are aborted before anyone else starts", async () => {
    // Reconciles take 7 s: longer than the 5 s between the leader's deadline and the earliest
    // takeover, so only aborting them at the deadline keeps the work exclusive (a batch runs
    // from 14 s to 21 s across the deadline at 16 s).
    const fleet = new Fleet({ mode: "leader", costMs: 7_000, workers: 3 });
    seed(fleet, 12);
    const a = fleet.spawn("a");
    await fleet.run(500);
    fleet.spawn("b");
    fleet.spawn("c");
    await fleet.run(6_000);
    a.link.mode = { kind: "drop" };
    await fleet.run(30_000);
    assert.ok(fleet.replicas.slice(1).some((r) => r.done.length > 0), "someone else leads");
    assert.deepEqual(fleet.violations, []);
    a.link.mode = { kind: "ok" };
    await fleet.run(40_000); // 12 keys x 7 s over 3 workers, from the new leader's start
    assert.deepEqual(fleet.unconverged(), []);
    assert.deepEqual(fleet.violations, []);
    await fleet.close();
  });

  test("accepts a LeaderElector instance; rejects leaderElection together with sharding", async () => {
    const clock = new ManualClock();
    const cluster = new SimulatedCluster({ clock, autoCreateNamespaces: true });
    const client = new KubeClient({ server: "http://sim", fetch: cluster.fetch });
    const common = { client, namespace: "default", name: "ctl", identity: "a" };
    await assert.rejects(
      runController({
        informers: [],
        reconcile: () => {},
        signal: new AbortController().signal,
        leaderElection: common,
        sharding: common,
      }),
      /cannot both be set/,
    );
    await assert.rejects(
      runController({
        informers: [],
        reconcile: () => {},
        signal: new AbortController().signal,
        leaderElection: 5 as never,
      }),
      TypeError,
    );
    const elector = new LeaderElector({ ...common, clock });
    const stop = new AbortController();
    const running = runController({
      informers: [],
      reconcile: () => {},
      signal: stop.signal,
      clock,
      leaderElection: elector,
    });
    await clock.advance(100);
    assert.ok(elector.isLeader());
    stop.abort();
    await running;
    assert.equal(elector.health().state, "stopped");
    cluster.close();
    assert.equal(clock.pendingTimers, 0);
  });
});
