// Several candidates on one ManualClock, each behind its own faulty link (partitions, black
// holes, slow requests and answers), crashing and restarting. Safety: at no instant do two
// candidates believe they lead. Liveness: after the leader crashes or is cut off, another
// leads within leaseDuration + retryPeriod of the leader's last successful write.
//
// Where safety is checked: a belief can only begin when a term starts (onStartedLeading); a
// leader's renewal can only extend a term it already has. So checking, at every term start,
// that no other candidate's isLeader() is true is an exact check at every instant; it is
// repeated every 500 ms of simulated time as a second net.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { KubeClient } from "../../../src/client/kube_client.ts";
import { leases } from "../../../src/client/resource.ts";
import { LeaderElector } from "../../../src/controller/mod.ts";
import { parseMicroTime } from "../../../src/util/micro_time.ts";
import { ManualClock } from "../../../src/testing/manual_clock.ts";
import { SimulatedCluster } from "@kinformer/simulator";
import { seededRandom } from "../../../src/testing/seeded_random.ts";
import { Link, type LinkMode } from "../../_lease_faults.ts";

const LEASE = 15_000;
const RETRY = 2_000;
const STEP = 500;

interface Candidate {
  id: string;
  elector: LeaderElector;
  link: Link;
  stop: AbortController;
  starts: number[];
  /** Running (not stopped, not crashed): may be picked for faults. */
  alive: boolean;
  /** Crashed: a dead process believes nothing, so it is left out of the safety check. */
  crashed: boolean;
}

class Arena {
  readonly clock = new ManualClock();
  readonly cluster = new SimulatedCluster({ clock: this.clock });
  readonly candidates: Candidate[] = [];
  readonly violations: string[] = [];
  /** Per holder: the renewTime of its latest write seen in the Lease. */
  readonly lastWrite = new Map<string, number>();
  #serial = 0;

  readonly seed: number;
  constructor(seed: number) {
    this.seed = seed;
  }

  /** Starts a candidate (a new process) with `id`. */
  spawn(id: string): Candidate {
    const link = new Link(this.cluster.fetch, this.clock);
    const stop = new AbortController();
    const c = { id, link, stop, starts: [], alive: true, crashed: false } as unknown as Candidate;
    c.elector = new LeaderElector({
      client: new KubeClient({ server: "http://sim.test", fetch: link.fetch }),
      namespace: "default",
      name: "ctl",
      identity: id,
      clock: this.clock,
      random: seededRandom(this.seed * 1000 + ++this.#serial),
      onError: () => {},
      onStartedLeading: () => {
        c.starts.push(this.clock.now());
        this.check(`${id} started leading`);
      },
    });
    c.elector.start({ signal: stop.signal });
    this.candidates.push(c);
    return c;
  }

  /**
   * A crash: the process stops at once and never says goodbye (its release cannot reach).
   * Not awaited: a stopping elector may wait for the clock, which the test drives.
   */
  crash(c: Candidate): void {
    c.link.mode = { kind: "drop" };
    c.alive = false;
    c.crashed = true;
    c.stop.abort();
  }

  /** A clean shutdown: stop leading, release (over whatever link it has). */
  shutdown(c: Candidate): void {
    c.alive = false;
    c.stop.abort();
  }

  leaders(): Candidate[] {
    return this.candidates.filter((c) => !c.crashed && c.elector.isLeader());
  }

  check(when: string): void {
    const leaders = this.leaders();
    if (leaders.length > 1) {
      this.violations.push(
        `${when} at ${this.clock.now()}: ${leaders.map((c) => c.id).join(" and ")} both lead`,
      );
    }
  }

  sample(): void {
    this.check("sample");
    const spec = this.cluster.get(leases, { namespace: "default", name: "ctl" })?.spec as
      | { holderIdentity?: string; renewTime?: string }
      | undefined;
    if (spec?.holderIdentity && spec.renewTime) {
      this.lastWrite.set(spec.holderIdentity, parseMicroTime(spec.renewTime)!);
    }
  }

  async run(ms: number, each?: () => Promise<void> | void): Promise<void> {
    for (let t = 0; t < ms; t += STEP) {
      await this.clock.advance(STEP);
      this.sample();
      await each?.();
    }
  }

  async close(): Promise<void> {
    for (const c of this.candidates) {
      c.link.mode = { kind: "ok" };
      c.stop.abort();
    }
    await Promise.all(this.candidates.map((c) => c.elector.stop()));
    this.cluster.close();
    assert.equal(this.clock.pendingTimers, 0, "timers left behind");
  }
}

type Fault = "crash" | "drop" | "hang" | "slow";

function faultMode(fault: Fault): LinkMode {
  switch (fault) {
    case "drop":
      return { kind: "drop" };
    case "hang":
      return { kind: "hang" };
    default:
      // writes land at once, answers come after the renew deadline
      return { kind: "slow", requestDelayMs: 0, responseDelayMs: 12_000 };
  }
}

describe("leader election under faults (ManualClock, several candidates)", () => {
  for (const fault of ["crash", "drop", "hang", "slow"] as const) {
    for (const seed of [1, 2]) {
      test(`leader ${fault}: a new leader within leaseDuration + retryPeriod (seed ${seed})`, async () => {
        const a = new Arena(seed);
        const rng = seededRandom(seed);
        for (const id of ["a", "b", "c"]) {
          a.spawn(id);
          await a.run(Math.floor(rng() * 3_000));
        }
        await a.run(10_000 + Math.floor(rng() * 20_000));
        const [leader] = a.leaders();
        assert.ok(leader, "someone leads");
        const faultAt = a.clock.now();
        if (fault === "crash") a.crash(leader);
        else leader.link.mode = faultMode(fault);
        let next: Candidate | undefined;
        await a.run(LEASE + RETRY + 5_000, () => {
          next ??= a.candidates.find((c) => c !== leader && c.starts.some((t) => t > faultAt));
        });
        assert.ok(next, "a new leader");
        const startedAt = next.starts.find((t) => t > faultAt)!;
        const lastWrite = a.lastWrite.get(leader.id)!;
        assert.ok(
          startedAt - lastWrite <= LEASE + RETRY,
          `new leader ${startedAt - lastWrite} ms after the old leader's last write`,
        );
        if (fault !== "slow") {
          assert.ok(
            startedAt - faultAt <= LEASE + RETRY,
            `${startedAt - faultAt} ms after ${fault}`,
          );
        }
        // the old leader had stopped before: it was the safety check at the new start
        assert.deepEqual(a.violations, []);
        await a.close();
      });
    }
  }

  for (const seed of [11, 12, 13]) {
    test(`chaos: partitions, slow links, crashes and restarts never make two leaders (seed ${seed})`, async () => {
      const a = new Arena(seed);
      const rng = seededRandom(seed);
      const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rng() * xs.length)]!;
      for (const id of ["a", "b", "c", "d"]) a.spawn(id);
      const pending: { at: number; run: () => Promise<void> | void }[] = [];
      let nextFault = a.clock.now() + 2_000;
      let fresh = 0;
      await a.run(150_000, async () => {
        const now = a.clock.now();
        for (const p of pending.filter((p) => p.at <= now)) {
          pending.splice(pending.indexOf(p), 1);
          await p.run();
        }
        if (now < nextFault) return;
        nextFault = now + 2_000 + Math.floor(rng() * 8_000);
        const alive = a.candidates.filter((c) => c.alive);
        if (alive.length === 0) return;
        // Faults hit the leader more often: that is where safety is at stake.
        const leader = a.leaders().find((c) => c.alive);
        const victim = leader !== undefined && rng() < 0.6 ? leader : pick(alive);
        const roll = rng();
        if (roll < 0.3) {
          victim.link.mode = rng() < 0.5 ? { kind: "drop" } : { kind: "hang" };
          pending.push({
            at: now + 1_000 + rng() * 40_000,
            run: () => void (victim.link.mode = { kind: "ok" }),
          });
        } else if (roll < 0.55) {
          victim.link.mode = {
            kind: "slow",
            requestDelayMs: Math.floor(rng() * 3_000),
            responseDelayMs: Math.floor(rng() * 15_000),
          };
          pending.push({
            at: now + 5_000 + rng() * 30_000,
            run: () => void (victim.link.mode = { kind: "ok" }),
          });
        } else if (roll < 0.85) {
          const clean = rng() < 0.3;
          if (clean) a.shutdown(victim);
          else a.crash(victim);
          const id = rng() < 0.5 ? victim.id : `n${++fresh}`;
          pending.push({ at: now + rng() * 20_000, run: () => void a.spawn(id) });
        }
      });
      assert.deepEqual(a.violations, []);
      // Heal everything: one leader again within a lease duration and a few retries.
      for (const c of a.candidates) c.link.mode = { kind: "ok" };
      for (const p of pending) await p.run();
      await a.run(LEASE + 4 * RETRY);
      assert.equal(a.leaders().length, 1, "exactly one leader once the network is healthy");
      assert.deepEqual(a.violations, []);
      const terms = a.candidates.reduce((n, c) => n + c.starts.length, 0);
      assert.ok(terms >= 3, `leadership changed hands (${terms} terms)`);
      await a.close();
    });
  }
});
