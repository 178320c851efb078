// Several controller replicas (runController with leader election or sharding) against one
// simulated cluster on one ManualClock, each with its own faulty link and its own informer.
// Reconciles take simulated time; every reconcile is recorded, and two replicas working on one
// key at once is recorded as a violation.
import assert from "node:assert/strict";
import { createInformer, type SharedInformer } from "../src/cache/informer.ts";
import { KubeClient } from "../src/client/kube_client.ts";
import { pods } from "../src/client/resource.ts";
import type { KubeObject } from "../src/client/types.ts";
import { runController } from "../src/controller/reconcile/run_controller.ts";
import { LeaderElector } from "../src/controller/leases/leader_election.ts";
import { ShardCoordinator } from "../src/controller/leases/shard_coordinator.ts";
import { sleep } from "../src/util/clock.ts";
import { ManualClock } from "../src/testing/manual_clock.ts";
import { SimulatedCluster } from "@kinformer/simulator";
import { seededRandom } from "../src/testing/seeded_random.ts";
import { Link } from "./_lease_faults.ts";

export interface Replica {
  id: string;
  link: Link;
  informer: SharedInformer<KubeObject>;
  stop: AbortController;
  running: Promise<void>;
  crashed: boolean;
  /** Keys this replica finished reconciling, with when. */
  done: { key: string; at: number }[];
  /** When this replica owned a shard (leader election: shard 0 = leadership); open: no end. */
  terms: { shard: number; start: number; end?: number }[];
  /** When it crashed. */
  crashedAt?: number;
  /** Deletions its informer delivered, with when. */
  deletesSeen: Map<string, number>;
  /** The shard of a key (always 0 with leader election). */
  shardOf(key: string): number;
  /** Whether it owns a key now. */
  owns(key: string): boolean;
  errors: unknown[];
}

export interface FleetOptions {
  mode: "leader" | "shards";
  /** Simulated cost of one reconcile. */
  costMs?: number;
  shards?: number;
  workers?: number;
}

export class Fleet {
  readonly clock = new ManualClock();
  readonly cluster = new SimulatedCluster({ clock: this.clock, autoCreateNamespaces: true });
  readonly replicas: Replica[] = [];
  readonly violations: string[] = [];
  /** key -> what its last finished reconcile saw in its replica's cache (rv or "deleted"). */
  readonly seen = new Map<string, string>();
  /** key -> replica working on it now. */
  readonly active = new Map<string, string>();
  #serial = 0;

  readonly options: FleetOptions;
  constructor(options: FleetOptions) {
    this.options = options;
  }

  spawn(id: string): Replica {
    const link = new Link(this.cluster.fetch, this.clock);
    const client = new KubeClient({ server: "http://sim.test", fetch: link.fetch });
    const serial = ++this.#serial;
    const informer = createInformer<KubeObject>(client, {
      resource: pods,
      clock: this.clock,
      random: seededRandom(serial),
      onError: () => {},
    });
    const stop = new AbortController();
    const r: Replica = {
      id,
      link,
      informer,
      stop,
      running: Promise.resolve(),
      crashed: false,
      done: [],
      terms: [],
      deletesSeen: new Map(),
      shardOf: () => 0,
      owns: () => false,
      errors: [],
    };
    informer.addEventHandler({
      onDelete: (o) =>
        void r.deletesSeen.set(`${o.metadata.namespace}/${o.metadata.name}`, this.clock.now()),
    });
    const common = {
      client,
      namespace: "default",
      name: "ctl",
      identity: id,
      random: seededRandom(1000 + serial),
    };
    const cost = this.options.costMs ?? 200;
    const started = (shard: number): void => void r.terms.push({ shard, start: this.clock.now() });
    const stopped = (shard: number): void => {
      const term = r.terms.findLast((t) => t.shard === shard && t.end === undefined);
      if (term !== undefined) term.end = this.clock.now();
    };
    let ownership: { leaderElection: LeaderElector } | { sharding: ShardCoordinator };
    if (this.options.mode === "leader") {
      const elector = new LeaderElector({ ...common, clock: this.clock, onError: () => {} });
      elector.observe({ onStartedLeading: () => started(0), onStoppedLeading: () => stopped(0) });
      r.owns = () => elector.isLeader();
      ownership = { leaderElection: elector };
    } else {
      const coordinator = new ShardCoordinator({
        ...common,
        shards: this.options.shards ?? 16,
        clock: this.clock,
        onError: () => {},
      });
      coordinator.observe({ onShardStarted: started, onShardStopped: stopped });
      r.shardOf = (key) => coordinator.shardOf(key);
      r.owns = (key) => coordinator.owns(key);
      ownership = { sharding: coordinator };
    }
    r.running = runController<KubeObject>({
      informers: [informer],
      signal: stop.signal,
      clock: this.clock,
      workers: this.options.workers ?? 2,
      onError: (error) => r.errors.push(error),
      ...ownership,
      reconcile: async (key, ctx) => {
        const other = this.active.get(key);
        if (other !== undefined) {
          this.violations.push(`${id} and ${other} reconcile ${key} at ${this.clock.now()}`);
        }
        this.active.set(key, id);
        try {
          await sleep(cost, { clock: this.clock, signal: ctx.signal });
          this.seen.set(key, informer.store.get(key)?.metadata.resourceVersion ?? "deleted");
          r.done.push({ key, at: this.clock.now() });
        } finally {
          if (this.active.get(key) === id) this.active.delete(key);
        }
      },
    }).then(() => informer.stop());
    this.replicas.push(r);
    return r;
  }

  /** The process dies: nothing more leaves it (not awaited: stopping waits for the clock). */
  crash(r: Replica): void {
    r.link.mode = { kind: "drop" };
    r.crashed = true;
    r.crashedAt = this.clock.now();
    r.stop.abort();
  }

  /** Advances the clock; after each step, no replica may be working on a key it does not own. */
  async run(ms: number, step = 500, each?: () => void): Promise<void> {
    for (let t = 0; t < ms; t += step) {
      await this.clock.advance(step);
      for (const [key, id] of this.active) {
        const r = this.replicas.find((r) => r.id === id && !r.stop.signal.aborted);
        if (r !== undefined && !r.owns(key)) {
          this.violations.push(
            `${id} still reconciles ${key} at ${this.clock.now()}, not owning it`,
          );
        }
      }
      each?.();
    }
  }

  /**
   * Keys whose last reconcile did not see the cluster's current state. A deletion only some
   * replicas saw is known to those replicas alone: with `explained`, an unreconciled deletion
   * is left out when no replica that saw it owned its shard for a while, from the deletion
   * or from a start within two lease durations after it (then no replica could have known to
   * reconcile it: the documented limit).
   */
  unconverged(explained = false): string[] {
    const keys = new Set(this.seen.keys());
    for (const p of this.cluster.list(pods)) keys.add(`${p.metadata.namespace}/${p.metadata.name}`);
    const out: string[] = [];
    for (const key of keys) {
      const [namespace, name] = key.split("/") as [string, string];
      const current = this.cluster.get(pods, { namespace, name })?.metadata.resourceVersion ??
        "deleted";
      if (this.seen.get(key) === current) continue;
      if (explained && current === "deleted" && !this.#couldKnow(key)) continue;
      out.push(`${key}: saw ${this.seen.get(key)}, is ${current}`);
    }
    return out;
  }

  /**
   * Whether some replica saw `key` deleted and then owned its shard for 10 s without crashing,
   * either already at the deletion or from a start within 30 s (two lease durations) after it.
   */
  #couldKnow(key: string): boolean {
    return this.replicas.some((r) => {
      const deletedAt = r.deletesSeen.get(key);
      if (deletedAt === undefined) return false;
      const shard = r.shardOf(key);
      return r.terms.some((t) => {
        if (t.shard !== shard) return false;
        const from = Math.max(t.start, deletedAt);
        const until = Math.min(t.end ?? Infinity, r.crashedAt ?? Infinity);
        return t.start <= deletedAt + 30_000 && until - from >= 10_000;
      });
    });
  }

  async close(): Promise<void> {
    for (const r of this.replicas) {
      r.link.mode = { kind: "ok" };
      r.stop.abort();
    }
    await this.clock.flush();
    await Promise.all(this.replicas.map((r) => r.running));
    await this.clock.flush();
    this.cluster.close();
    await this.clock.flush();
    assert.equal(this.clock.pendingTimers, 0, "timers left behind");
  }
}
