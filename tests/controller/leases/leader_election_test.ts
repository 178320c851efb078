import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { KubeClient } from "../../../src/client/kube_client.ts";
import { leases } from "../../../src/client/resource.ts";
import type { KubeObject } from "../../../src/client/types.ts";
import {
  DeadlineError,
  LeaderElector,
  type LeaderElectorOptions,
  LeaseLostError,
} from "../../../src/controller/mod.ts";
import type { Clock } from "../../../src/util/clock.ts";
import { ManualClock } from "../../../src/testing/manual_clock.ts";
import { SimulatedCluster } from "@kinformer/simulator";
import { seededRandom } from "../../../src/testing/seeded_random.ts";
import { Link } from "../../_lease_faults.ts";

interface Candidate {
  id: string;
  elector: LeaderElector;
  link: Link;
  stop: AbortController;
  log: string[];
  errors: unknown[];
}

interface World {
  clock: ManualClock;
  cluster: SimulatedCluster;
  add(id: string, options?: Partial<LeaderElectorOptions>, clock?: Clock): Candidate;
  start(c: Candidate): void;
  /** Starts `leader`, then `standby` 100 ms later (when `leader` already holds the lease). */
  startInTurn(leader: Candidate, standby: Candidate): Promise<void>;
  stop(c: Candidate): Promise<void>;
  close(): Promise<void>;
  lease(): KubeObject | undefined;
}

function world(): World {
  const clock = new ManualClock();
  const cluster = new SimulatedCluster({ clock });
  const all: Candidate[] = [];
  return {
    clock,
    cluster,
    add(id, options = {}, candidateClock = clock): Candidate {
      const link = new Link(cluster.fetch, clock);
      const client = new KubeClient({ server: "http://sim.test", fetch: link.fetch });
      const log: string[] = [];
      const errors: unknown[] = [];
      const elector = new LeaderElector({
        client,
        namespace: "default",
        name: "ctl",
        identity: id,
        clock: candidateClock,
        random: seededRandom(id.length),
        onStartedLeading: () => void log.push(`start@${clock.now() - 1_700_000_000_000}`),
        onStoppedLeading: () => void log.push(`stop@${clock.now() - 1_700_000_000_000}`),
        onNewLeader: (leader) => void log.push(`leader=${leader}`),
        onError: (error) => errors.push(error),
        ...options,
      });
      const c: Candidate = {
        id,
        elector,
        link,
        stop: new AbortController(),
        log,
        errors,
      };
      all.push(c);
      return c;
    },
    start(c): void {
      c.elector.start({ signal: c.stop.signal });
    },
    async startInTurn(leader, standby): Promise<void> {
      this.start(leader);
      await clock.advance(100);
      this.start(standby);
    },
    async stop(c): Promise<void> {
      c.stop.abort();
      await c.elector.stop();
    },
    async close(): Promise<void> {
      for (const c of all) {
        c.link.mode = { kind: "ok" };
        c.stop.abort();
      }
      await Promise.all(all.map((c) => c.elector.stop()));
      cluster.close();
      assert.equal(clock.pendingTimers, 0, "timers left behind");
    },
    lease(): KubeObject | undefined {
      return cluster.get(leases, { namespace: "default", name: "ctl" });
    },
  };
}

const T0 = 1_700_000_000_000;
const spec = (w: World): Record<string, unknown> => w.lease()!.spec as Record<string, unknown>;

describe("LeaderElector", () => {
  test("options are validated like client-go's", () => {
    const cluster = new SimulatedCluster();
    const client = new KubeClient({ server: "http://sim", fetch: cluster.fetch });
    const base = { client, namespace: "default", name: "ctl", identity: "a" };
    assert.throws(() => new LeaderElector({ ...base, identity: "" }), TypeError);
    assert.throws(
      () => new LeaderElector({ ...base, leaseDurationMs: 10_000, renewDeadlineMs: 10_000 }),
      /renewDeadlineMs \(10000\) must be less than leaseDurationMs/,
    );
    assert.throws(
      () => new LeaderElector({ ...base, renewDeadlineMs: 2_400 }),
      /greater than retryPeriodMs \* jitterFactor/,
    );
    assert.throws(() => new LeaderElector({ ...base, leaseDurationMs: 15_500 }), /whole number/);
    assert.throws(() => new LeaderElector({ ...base, retryPeriodMs: 0 }), RangeError);
    assert.throws(
      () => new LeaderElector({ ...base, namespace: "" }),
      /namespace must be a non-empty string/,
    );
    const elector = new LeaderElector(base);
    assert.deepEqual(elector.timings, {
      leaseDurationMs: 15_000,
      renewDeadlineMs: 10_000,
      retryPeriodMs: 2_000,
      jitterFactor: 1.2,
    });
    assert.equal(elector.health().state, "idle");
    cluster.close();
  });

  test("the first candidate creates the Lease and leads; times are MicroTime", async () => {
    const w = world();
    const a = w.add("a");
    w.start(a);
    await w.clock.advance(0);
    assert.ok(a.elector.isLeader());
    assert.deepEqual(a.log, ["leader=a", "start@0"]);
    const s = spec(w);
    assert.equal(s.holderIdentity, "a");
    assert.equal(s.leaseDurationSeconds, 15);
    assert.equal(s.leaseTransitions, 0);
    assert.match(String(s.acquireTime), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    assert.equal(s.renewTime, new Date(T0).toISOString().replace("Z", "000Z"));
    // it renews every retry period, keeping acquireTime
    await w.clock.advance(2_000);
    assert.equal(spec(w).renewTime, new Date(T0 + 2_000).toISOString().replace("Z", "000Z"));
    assert.equal(spec(w).acquireTime, s.acquireTime);
    const h = a.elector.health();
    assert.deepEqual([h.state, h.activity], ["running", "leading"]);
    assert.equal(h.leadingUntil, T0 + 2_000 + 10_000);
    await w.close();
    assert.deepEqual(a.log, ["leader=a", "start@0", "stop@2000"]);
    assert.equal(spec(w).holderIdentity, "", "released on stop");
  });

  test("a standby waits while the leader renews, and learns who leads", async () => {
    const w = world();
    const a = w.add("a");
    const b = w.add("b");
    await w.startInTurn(a, b);
    await w.clock.advance(60_000);
    assert.ok(a.elector.isLeader());
    assert.equal(b.elector.isLeader(), false);
    assert.equal(b.elector.leader, "a");
    assert.deepEqual(b.log, ["leader=a"]);
    assert.deepEqual([b.elector.health().state, b.elector.health().activity], [
      "running",
      "candidate",
    ]);
    await w.close();
  });

  test("stop releases the lease: the standby leads on its next poll, transitions + 1", async () => {
    const w = world();
    const a = w.add("a");
    const b = w.add("b");
    await w.startInTurn(a, b);
    await w.clock.advance(5_000);
    await w.stop(a);
    assert.equal(spec(w).holderIdentity, "");
    const stoppedAt = w.clock.now();
    await w.clock.advance(2_000);
    assert.ok(b.elector.isLeader());
    const started = Number(b.log.find((l) => l.startsWith("start@"))!.slice(6)) + T0;
    assert.ok(started - stoppedAt <= 2_000, `took ${started - stoppedAt} ms`);
    assert.equal(spec(w).holderIdentity, "b");
    assert.equal(spec(w).leaseTransitions, 1);
    await w.close();
  });

  test("without release, the lease is taken exactly leaseDuration after its last change was seen", async () => {
    const w = world();
    const a = w.add("a", { releaseOnStop: false });
    const b = w.add("b");
    await w.startInTurn(a, b);
    await w.clock.advance(5_900); // a renewed at 2000, 4000, 6000 (b polls at 100, 2100, ...)
    await w.stop(a); // crash-like: no release
    assert.equal(spec(w).holderIdentity, "a");
    // b saw the 6000 renewal change at its 6100 poll: it may take over at 6100 + 15000.
    await w.clock.advance(21_100 - 6_000 - 1);
    assert.equal(b.elector.isLeader(), false);
    await w.clock.advance(1);
    assert.ok(b.elector.isLeader());
    assert.equal(spec(w).leaseTransitions, 1);
    await w.close();
  });

  test("a renewal nobody answers is given up at its deadline: a DeadlineError, kind network", async () => {
    const w = world();
    const a = w.add("a");
    w.start(a);
    await w.clock.advance(4_500);
    assert.ok(a.elector.isLeader());
    a.link.mode = { kind: "hang" };
    await w.clock.advance(15_000);
    assert.equal(a.elector.isLeader(), false);
    const deadline = a.errors.find((e) => e instanceof DeadlineError) as DeadlineError | undefined;
    assert.ok(deadline, "the hung renewal is reported");
    assert.equal(deadline.kind, "network");
    a.link.mode = { kind: "ok" };
    await w.close();
  });

  test("a leader that cannot renew stops at its last renewal's start + renewDeadline", async () => {
    const w = world();
    const a = w.add("a");
    let lost: AbortSignal | undefined;
    a.elector.observe({ onStartedLeading: (signal) => void (lost = signal) });
    w.start(a);
    await w.clock.advance(4_500); // renewals started at 2000 and 4000
    a.link.mode = { kind: "drop" };
    await w.clock.advance(14_000 - 4_500 - 1);
    assert.ok(a.elector.isLeader());
    assert.equal(lost?.aborted, false);
    await w.clock.advance(1);
    assert.equal(a.elector.isLeader(), false);
    assert.ok(lost?.aborted);
    assert.ok(lost?.reason instanceof LeaseLostError);
    assert.equal((lost?.reason as LeaseLostError).kind, "other"); // errors carry their kind
    assert.ok(a.log.includes("stop@14000"));
    assert.ok(a.errors.length >= 4, "failed renewals reported");
    // once the network is back it leads again (the lease still names it)
    a.link.mode = { kind: "ok" };
    await w.clock.advance(5_000);
    assert.ok(a.elector.isLeader());
    await w.close();
  });

  test("a renewal answered after the deadline does not extend leadership", async () => {
    const w = world();
    const a = w.add("a");
    w.start(a);
    await w.clock.advance(2_500); // renewed at 2000
    // The server handles each request at once, but answers arrive 12 s later.
    a.link.mode = { kind: "slow", requestDelayMs: 0, responseDelayMs: 12_000 };
    await w.clock.advance(12_000 - 2_500 - 1); // the renewal of 4000 is in flight
    assert.ok(a.elector.isLeader());
    // The server did write the 4000 renewal, but its writer never learns it in time: it
    // stops at 2000 (its last renewal known to succeed) + renewDeadline.
    assert.equal(spec(w).renewTime, new Date(T0 + 4_000).toISOString().replace("Z", "000Z"));
    await w.clock.advance(1);
    assert.equal(a.elector.isLeader(), false);
    assert.ok(a.log.includes("stop@12000"));
    await w.clock.advance(10_000);
    assert.equal(a.log.filter((l) => l.startsWith("start@")).length, 1, "no new term yet");
    await w.close();
  });

  test("a candidate never compares clocks: a holder whose clock is an hour behind keeps the lease", async () => {
    const w = world();
    const behind: Clock = {
      now: () => w.clock.now() - 3_600_000,
      setTimeout: (fn, ms) => w.clock.setTimeout(fn, ms),
      clearTimeout: (h) => w.clock.clearTimeout(h),
    };
    const a = w.add("a", {}, behind);
    const b = w.add("b");
    await w.startInTurn(a, b);
    await w.clock.advance(120_000);
    // renewTime says an hour ago, but it keeps changing: b does not take over
    assert.ok(Date.parse(String(spec(w).renewTime)) < w.clock.now() - 3_500_000);
    assert.ok(a.elector.isLeader());
    assert.equal(b.elector.isLeader(), false);
    await w.close();
  });

  test("expiry follows the holder's leaseDurationSeconds, not the candidate's", async () => {
    const w = world();
    const a = w.add("a", {
      leaseDurationMs: 30_000,
      renewDeadlineMs: 20_000,
      releaseOnStop: false,
    });
    const b = w.add("b");
    await w.startInTurn(a, b); // b sees the record at 100
    await w.stop(a);
    await w.clock.advance(30_000 - 1);
    assert.equal(b.elector.isLeader(), false);
    await w.clock.advance(1);
    assert.ok(b.elector.isLeader());
    assert.equal(spec(w).leaseDurationSeconds, 15);
    await w.close();
  });

  test("two candidates racing for a free lease: one wins, the other gets a 409 and waits", async () => {
    const w = world();
    const a = w.add("a");
    const b = w.add("b");
    w.start(a);
    w.start(b); // both read "no lease" and create it: one create answers 409 AlreadyExists
    await w.clock.advance(0);
    assert.equal(Number(a.elector.isLeader()) + Number(b.elector.isLeader()), 1);
    const posts = w.cluster.requests.filter((r) => r.verb === "create");
    assert.equal(posts.length, 2);
    assert.deepEqual(a.errors, []);
    assert.deepEqual(b.errors, [], "a lost race is not an error");
    await w.close();
  });

  test("stale writes are refused with 409 by resourceVersion", async () => {
    const w = world();
    const a = w.add("a");
    w.start(a);
    await w.clock.advance(0);
    const stale = w.lease()!;
    await w.clock.advance(2_000); // a renews: the resourceVersion moves on
    const client = new KubeClient({ server: "http://sim", fetch: w.cluster.fetch });
    await assert.rejects(
      client.replace(leases, { ...stale, spec: { holderIdentity: "intruder" } }),
      { code: 409, reason: "Conflict" },
    );
    assert.equal(spec(w).holderIdentity, "a");
    await w.close();
  });

  test("throwing callbacks go to onError; the elector keeps leading", async () => {
    const w = world();
    const a = w.add("a", {
      onStartedLeading: () => {
        throw new Error("callback broke");
      },
      onNewLeader: () => Promise.reject(new Error("ignored: not awaited")) as never,
    });
    const rejected = a.elector.observe({
      onStartedLeading: () => Promise.reject(new Error("async callback broke")),
    });
    w.start(a);
    await w.clock.advance(4_000);
    assert.ok(a.elector.isLeader());
    const messages = a.errors.map((e) => (e as Error).message);
    assert.ok(messages.includes("callback broke"));
    assert.ok(messages.includes("async callback broke"));
    rejected();
    await w.close();
  });

  test("a second start while running does nothing; stop leaves no timer", async () => {
    const w = world();
    const a = w.add("a");
    w.start(a);
    a.elector.start();
    assert.equal(a.elector.health().state, "running");
    await w.clock.advance(3_000);
    await w.stop(a);
    assert.equal(a.elector.health().state, "stopped");
    assert.equal(w.clock.pendingTimers, 0);
    await w.close();
  });
});
