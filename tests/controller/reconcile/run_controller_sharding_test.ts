// runController({ sharding }) with three replicas on the simulated cluster, with churn.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { pods } from "../../../src/client/resource.ts";
import { seededRandom } from "../../../src/testing/seeded_random.ts";
import { Fleet } from "../../_replicas.ts";

describe("runController with sharding", () => {
  test("3 replicas and churn: every key converges, none is reconciled by two at once", async () => {
    const fleet = new Fleet({ mode: "shards", costMs: 300 });
    for (let i = 0; i < 60; i++) {
      fleet.cluster.create(pods, { metadata: { namespace: `ns-${i % 4}`, name: `p-${i}` } });
    }
    const rs = ["a", "b", "c"].map((id) => fleet.spawn(id));
    await fleet.run(10_000);
    const churn = fleet.cluster.startChurn({
      resource: pods,
      ratePerSecond: 8,
      namespaces: ["ns-0", "ns-1", "ns-2", "ns-3"],
    });
    await fleet.run(60_000);
    churn.stop();
    await fleet.run(10_000);
    assert.deepEqual(fleet.violations, []);
    assert.deepEqual(fleet.unconverged(), []);
    // the work was split: every replica reconciled a fair part of the keys
    const byReplica = rs.map((r) => new Set(r.done.map((d) => d.key)).size);
    const total = new Set(rs.flatMap((r) => r.done.map((d) => d.key))).size;
    for (const n of byReplica) assert.ok(n > total / 6, `split ${byReplica} of ${total}`);
    // a key is only ever reconciled by the owner of its shard: nobody else touched it
    const owners = new Map<string, Set<string>>();
    for (const r of rs) {
      for (const d of r.done) owners.set(d.key, (owners.get(d.key) ?? new Set()).add(r.id));
    }
    assert.ok([...owners.values()].every((s) => s.size === 1), "no rebalancing, one owner each");
    await fleet.close();
  });

  test("churn with crashes, restarts and partitions: still converges, still exclusive", async () => {
    const fleet = new Fleet({ mode: "shards", costMs: 500, shards: 12 });
    const rng = seededRandom(5);
    for (let i = 0; i < 40; i++) {
      fleet.cluster.create(pods, { metadata: { namespace: `ns-${i % 4}`, name: `p-${i}` } });
    }
    for (const id of ["a", "b", "c"]) fleet.spawn(id);
    await fleet.run(8_000);
    const churn = fleet.cluster.startChurn({
      resource: pods,
      ratePerSecond: 5,
      namespaces: ["ns-0", "ns-1", "ns-2", "ns-3"],
    });
    let next = fleet.clock.now() + 5_000;
    let fresh = 0;
    const later: { at: number; fn: () => void }[] = [];
    await fleet.run(90_000, 500, () => {
      const now = fleet.clock.now();
      for (const l of later.filter((l) => l.at <= now)) {
        later.splice(later.indexOf(l), 1);
        l.fn();
      }
      if (now < next) return;
      next = now + 8_000 + rng() * 12_000;
      const live = fleet.replicas.filter((r) => !r.crashed);
      const victim = live[Math.floor(rng() * live.length)]!;
      if (rng() < 0.5 && live.length > 1) {
        fleet.crash(victim);
        const id = `r${++fresh}`;
        later.push({ at: now + rng() * 10_000, fn: () => void fleet.spawn(id) });
      } else {
        victim.link.mode = rng() < 0.5
          ? { kind: "drop" }
          : { kind: "slow", requestDelayMs: 0, responseDelayMs: Math.floor(rng() * 12_000) };
        later.push({
          at: now + rng() * 25_000,
          fn: () => void (victim.link.mode = { kind: "ok" }),
        });
      }
    });
    churn.stop();
    for (const l of later) l.fn();
    for (const r of fleet.replicas) if (!r.crashed) r.link.mode = { kind: "ok" };
    await fleet.run(45_000);
    assert.deepEqual(fleet.violations, []);
    // Live keys all converge. A deletion converges when a replica that saw it went on to own
    // its shard; one seen only by replicas that crashed before is lost, as for any controller
    // restart (use finalizers for cleanup that must happen).
    assert.deepEqual(fleet.unconverged(true), []);
    await fleet.close();
  });
});
