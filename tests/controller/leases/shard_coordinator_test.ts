// ShardCoordinator replicas on one ManualClock against the simulated cluster, each behind its
// own faulty link. Safety: at every shard start (the only moment a belief begins), no other
// replica owns that shard; checked again every 500 ms.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { KubeClient } from "../../../src/client/kube_client.ts";
import { leases } from "../../../src/client/resource.ts";
import {
  assignShards,
  ShardCoordinator,
  type ShardCoordinatorOptions,
} from "../../../src/controller/mod.ts";
import { SHARD_GROUP_LABEL } from "../../../src/controller/leases/shard_coordinator_options.ts";
import { parseMicroTime } from "../../../src/util/micro_time.ts";
import { ManualClock } from "../../../src/testing/manual_clock.ts";
import { SimulatedCluster } from "@kinformer/simulator";
import { seededRandom } from "../../../src/testing/seeded_random.ts";
import { Link } from "../../_lease_faults.ts";

const LEASE = 15_000;
const RETRY = 2_000;
const SHARDS = 16;

interface Replica {
  id: string;
  coordinator: ShardCoordinator;
  link: Link;
  stop: AbortController;
  /** shard -> start times */
  starts: Map<number, number[]>;
  crashed: boolean;
  errors: unknown[];
}

class Group {
  readonly clock = new ManualClock();
  readonly cluster = new SimulatedCluster({ clock: this.clock });
  readonly replicas: Replica[] = [];
  readonly violations: string[] = [];
  #serial = 0;

  spawn(id: string, options: Partial<ShardCoordinatorOptions> = {}): Replica {
    const link = new Link(this.cluster.fetch, this.clock);
    const stop = new AbortController();
    const r = {
      id,
      link,
      stop,
      starts: new Map(),
      crashed: false,
      errors: [],
    } as unknown as Replica;
    r.coordinator = new ShardCoordinator({
      client: new KubeClient({ server: "http://sim.test", fetch: link.fetch }),
      namespace: "default",
      name: "ctl",
      identity: id,
      shards: SHARDS,
      clock: this.clock,
      random: seededRandom(++this.#serial),
      onError: (error) => r.errors.push(error),
      onShardStarted: (shard) => {
        const list = r.starts.get(shard) ?? [];
        list.push(this.clock.now());
        r.starts.set(shard, list);
        this.check(`${id} started shard ${shard}`);
      },
      ...options,
    });
    r.coordinator.start({ signal: stop.signal });
    this.replicas.push(r);
    return r;
  }

  crash(r: Replica): void {
    r.link.mode = { kind: "drop" };
    r.crashed = true;
    r.stop.abort();
  }

  live(): Replica[] {
    return this.replicas.filter((r) => !r.crashed);
  }

  check(when: string): void {
    for (let s = 0; s < SHARDS; s++) {
      const owners = this.live().filter((r) => r.coordinator.ownsShard(s));
      if (owners.length > 1) {
        this.violations.push(
          `${when} at ${this.clock.now()}: shard ${s} owned by ${owners.map((r) => r.id)}`,
        );
      }
    }
  }

  owners(): Map<number, string> {
    const out = new Map<number, string>();
    for (const r of this.live()) for (const s of r.coordinator.ownedShards()) out.set(s, r.id);
    return out;
  }

  async run(ms: number, each?: () => void): Promise<void> {
    for (let t = 0; t < ms; t += 500) {
      await this.clock.advance(500);
      this.check("sample");
      each?.();
    }
  }

  /** renewTime of the latest write of `holder` on each shard lease. */
  lastWrites(holder: string): Map<number, number> {
    const out = new Map<number, number>();
    for (const l of this.cluster.list(leases, { labelSelector: "kinformer.io/shard-role=shard" })) {
      const spec = l.spec as { holderIdentity: string; renewTime: string };
      if (spec.holderIdentity === holder) {
        out.set(Number(l.metadata.name!.split("-").at(-1)), parseMicroTime(spec.renewTime)!);
      }
    }
    return out;
  }

  async close(): Promise<void> {
    for (const r of this.replicas) {
      r.link.mode = { kind: "ok" };
      r.stop.abort();
    }
    await Promise.all(this.replicas.map((r) => r.coordinator.stop()));
    this.cluster.close();
    assert.equal(this.clock.pendingTimers, 0, "timers left behind");
  }
}

function fair(counts: number[], shards = SHARDS): void {
  assert.equal(counts.reduce((a, b) => a + b, 0), shards, `all shards owned: ${counts}`);
  assert.ok(Math.max(...counts) - Math.min(...counts) <= 1, `fair split: ${counts}`);
}

describe("ShardCoordinator", () => {
  test("options are checked", () => {
    const cluster = new SimulatedCluster();
    const client = new KubeClient({ server: "http://sim", fetch: cluster.fetch });
    const base = { client, namespace: "default", name: "ctl", identity: "a" };
    assert.throws(() => new ShardCoordinator({ ...base, name: "Bad_Name" }), /DNS label/);
    assert.throws(() => new ShardCoordinator({ ...base, name: "x".repeat(51) }), /DNS label/);
    assert.throws(() => new ShardCoordinator({ ...base, shards: 0 }), RangeError);
    assert.throws(() => new ShardCoordinator({ ...base, shards: 5000 }), RangeError);
    assert.throws(() => new ShardCoordinator({ ...base, identity: "" }), TypeError);
    assert.throws(() => new ShardCoordinator({ ...base, renewDeadlineMs: 20_000 }), RangeError);
    const c = new ShardCoordinator(base);
    assert.equal(c.shardCount, 16);
    assert.equal(c.health().state, "idle");
    assert.equal(c.enter("default/x"), undefined);
    cluster.close();
  });

  test("three replicas split the shards fairly and disjointly; leases are labelled", async () => {
    const g = new Group();
    const rs = ["a", "b", "c"].map((id) => g.spawn(id));
    await g.run(10_000);
    fair(rs.map((r) => r.coordinator.ownedShards().length));
    for (const r of rs) assert.deepEqual(r.coordinator.members(), ["a", "b", "c"]);
    const names = g.cluster.list(leases, { labelSelector: `${SHARD_GROUP_LABEL}=ctl` })
      .map((l) => l.metadata.name!);
    assert.equal(names.length, SHARDS + 3);
    assert.ok(names.includes("ctl-member-a") && names.includes("ctl-shard-15"));
    // every key has exactly one owner
    for (let i = 0; i < 200; i++) {
      const key = `ns-${i % 7}/obj-${i}`;
      assert.equal(rs.filter((r) => r.coordinator.owns(key)).length, 1, key);
    }
    assert.deepEqual(g.violations, []);
    assert.equal(rs[0]!.coordinator.health().owned.length, rs[0]!.coordinator.ownedShards().length);
    await g.close();
  });

  for (const seed of [1, 2, 3]) {
    test(`a crashed replica's shards move within leaseDuration + retryPeriod (seed ${seed})`, async () => {
      const g = new Group();
      const rng = seededRandom(seed);
      const rs = ["a", "b", "c"].map((id) => g.spawn(id));
      await g.run(10_000 + Math.floor(rng() * 10_000));
      await g.clock.advance(Math.floor(rng() * 2_000));
      const victim = rs[Math.floor(rng() * 3)]!;
      const lost = victim.coordinator.ownedShards();
      assert.ok(lost.length >= 5);
      const writes = g.lastWrites(victim.id);
      const crashedAt = g.clock.now();
      g.crash(victim);
      const movedAt = new Map<number, number>();
      await g.run(LEASE + 3 * RETRY, () => {
        const owners = g.owners();
        for (const s of lost) if (owners.has(s) && !movedAt.has(s)) movedAt.set(s, g.clock.now());
      });
      for (const s of lost) {
        const at = [...g.live()].flatMap((r) => r.starts.get(s) ?? []).find((t) => t > crashedAt);
        assert.ok(at !== undefined, `shard ${s} moved`);
        assert.ok(at - writes.get(s)! <= LEASE + RETRY, `shard ${s}: ${at - writes.get(s)!} ms`);
        assert.ok(
          at - crashedAt <= LEASE + RETRY,
          `shard ${s}: ${at - crashedAt} ms after the crash`,
        );
      }
      fair(g.live().map((r) => r.coordinator.ownedShards().length));
      assert.deepEqual(g.violations, []);
      await g.close();
    });
  }

  test("a new replica takes a fair share; owners hand over after their permits exit", async () => {
    const g = new Group();
    const a = g.spawn("a");
    const b = g.spawn("b");
    await g.run(8_000);
    fair([a, b].map((r) => r.coordinator.ownedShards().length));
    // a holds a permit on a shard that c will own: it must not move while the permit is out
    const toC = assignShards(["a", "b", "c"], SHARDS);
    const key = Array.from({ length: 2_000 }, (_, i) => `k-${i}`).find((k) =>
      a.coordinator.owns(k) && toC[a.coordinator.shardOf(k)] === "c"
    )!;
    assert.ok(key, "a key that moves from a to c");
    const permit = a.coordinator.enter(key)!;
    const c = g.spawn("c");
    await g.run(8_000);
    assert.ok(c.coordinator.ownedShards().length >= 4, `c owns ${c.coordinator.ownedShards()}`);
    // a gave the shard up (the permit's signal aborted) but holds its lease until exit()
    assert.equal(a.coordinator.ownsShard(permit.shard), false);
    assert.ok(permit.signal.aborted);
    assert.equal(c.coordinator.ownsShard(permit.shard), false);
    assert.equal(b.coordinator.ownsShard(permit.shard), false);
    const held = g.cluster.get(leases, { namespace: "default", name: `ctl-shard-${permit.shard}` });
    assert.equal((held?.spec as { holderIdentity: string }).holderIdentity, "a");
    assert.deepEqual(g.violations, []);
    permit.exit();
    await g.run(6_000);
    assert.ok(c.coordinator.ownsShard(permit.shard), "handed over once the permit exited");
    fair([a, b, c].map((r) => r.coordinator.ownedShards().length));
    assert.deepEqual(g.violations, []);
    await g.close();
  });

  test("a clean stop releases the shards and deletes the member lease: quick hand-over", async () => {
    const g = new Group();
    const a = g.spawn("a");
    const b = g.spawn("b");
    await g.run(8_000);
    const stoppedAt = g.clock.now();
    a.stop.abort();
    await a.coordinator.stop();
    a.crashed = true; // out of the safety check: it has stopped
    assert.equal(g.cluster.get(leases, { namespace: "default", name: "ctl-member-a" }), undefined);
    await g.run(2 * RETRY + 500);
    assert.equal(b.coordinator.ownedShards().length, SHARDS);
    const last = Math.max(...[...b.starts.values()].flat());
    assert.ok(last - stoppedAt <= 2 * RETRY + 500, `hand-over took ${last - stoppedAt} ms`);
    assert.deepEqual(g.violations, []);
    await g.close();
  });

  for (const fault of ["drop", "hang", "slow"] as const) {
    test(`a cut-off replica (${fault}) stops its shards before anyone else takes them`, async () => {
      const g = new Group();
      const rs = ["a", "b", "c"].map((id) => g.spawn(id));
      await g.run(10_000);
      const victim = rs[1]!;
      const owned = victim.coordinator.ownedShards();
      victim.link.mode = fault === "slow"
        ? { kind: "slow", requestDelayMs: 0, responseDelayMs: 12_000 }
        : { kind: fault };
      const stopped: number[] = [];
      victim.coordinator.observe({ onShardStopped: (s) => void stopped.push(s) });
      await g.run(LEASE + 3 * RETRY);
      assert.deepEqual([...stopped].sort((x, y) => x - y), owned);
      for (const s of owned) assert.ok(g.owners().has(s), `shard ${s} taken over`);
      assert.deepEqual(g.violations, []);
      // back online: it rejoins and gets a fair share again
      victim.link.mode = { kind: "ok" };
      await g.run(LEASE + 4 * RETRY);
      fair(rs.map((r) => r.coordinator.ownedShards().length));
      assert.deepEqual(g.violations, []);
      await g.close();
    });
  }

  test("a crashed replica's member lease is deleted by the others later", async () => {
    const g = new Group();
    const a = g.spawn("a");
    g.spawn("b");
    await g.run(6_000);
    g.crash(a);
    await g.run(2 * LEASE + 3 * RETRY);
    assert.equal(g.cluster.get(leases, { namespace: "default", name: "ctl-member-a" }), undefined);
    assert.ok(g.cluster.get(leases, { namespace: "default", name: "ctl-member-b" }));
    await g.close();
  });

  test("chaos: three replicas with partitions, slow links and restarts never share a shard", async () => {
    const g = new Group();
    const rng = seededRandom(7);
    for (const id of ["a", "b", "c"]) g.spawn(id);
    let next = 5_000;
    let fresh = 0;
    const heal: { at: number; fn: () => void }[] = [];
    await g.run(3 * 60_000, () => {
      const now = g.clock.now() - 1_700_000_000_000;
      for (const h of heal.filter((h) => h.at <= now)) {
        heal.splice(heal.indexOf(h), 1);
        h.fn();
      }
      if (now < next) return;
      next = now + 3_000 + rng() * 10_000;
      const live = g.live().filter((r) => !r.stop.signal.aborted);
      const victim = live[Math.floor(rng() * live.length)];
      if (victim === undefined) return;
      const roll = rng();
      if (roll < 0.35) {
        victim.link.mode = rng() < 0.5 ? { kind: "drop" } : { kind: "hang" };
        heal.push({ at: now + rng() * 30_000, fn: () => void (victim.link.mode = { kind: "ok" }) });
      } else if (roll < 0.65) {
        victim.link.mode = {
          kind: "slow",
          requestDelayMs: Math.floor(rng() * 2_000),
          responseDelayMs: Math.floor(rng() * 14_000),
        };
        heal.push({ at: now + rng() * 30_000, fn: () => void (victim.link.mode = { kind: "ok" }) });
      } else if (live.length > 1) {
        g.crash(victim);
        const id = `r${++fresh}`;
        heal.push({ at: now + rng() * 15_000, fn: () => void g.spawn(id) });
      }
    });
    assert.deepEqual(g.violations, []);
    for (const r of g.replicas) if (!r.crashed) r.link.mode = { kind: "ok" };
    for (const h of heal) h.fn();
    await g.run(2 * LEASE + 4 * RETRY);
    const live = g.live();
    fair(live.map((r) => r.coordinator.ownedShards().length));
    assert.deepEqual(g.violations, []);
    await g.close();
  });
});
