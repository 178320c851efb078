/**
 * Scenario 11: replicas coordinating through Leases, on the simulated cluster and a ManualClock
 * (simulated time, so the figures do not depend on the machine or the runtime; run on Node):
 * how long after the leader crashes (or stops cleanly) another candidate leads, and how the
 * reconcile throughput grows with 1, 2 and 3 sharded replicas when each reconcile costs a fixed
 * simulated time.
 * @module
 */
import { createInformer } from "../../src/cache/informer.ts";
import { KubeClient } from "../../src/client/kube_client.ts";
import { pods } from "../../src/client/resource.ts";
import type { KubeObject } from "../../src/client/types.ts";
import { LeaderElector } from "../../src/controller/leases/leader_election.ts";
import { runController } from "../../src/controller/reconcile/run_controller.ts";
import { ManualClock } from "../../src/testing/manual_clock.ts";
import { seededRandom } from "../../src/testing/seeded_random.ts";
import { SimulatedCluster } from "../../packages/simulator/src/cluster/simulated_cluster.ts";
import { sleep } from "../../src/util/clock.ts";
import { numberOption } from "../_runtime.ts";
import { fmtMs, fmtX, median } from "../_format.ts";
import type { Scenario } from "../_scenario.ts";

const LEASE_MS = 15_000;
const RETRY_MS = 2_000;
const WORKERS = 2;
const COST_MS = 50;
const SHARDS = 16;

/** A fetch that can be cut, as a crashed process's would be. */
function switchable(target: (r: Request) => Promise<Response>): {
  fetch: (r: Request) => Promise<Response>;
  cut(): void;
} {
  let up = true;
  return {
    fetch: (r) => (up ? target(r) : Promise.reject(new TypeError("process gone"))),
    cut: () => void (up = false),
  };
}

/**
 * `--trials T`: per trial, 3 electors with client-go's defaults; after a random warm-up the
 * leader crashes (no release) or stops cleanly (release); the simulated time until another
 * candidate starts leading.
 */
async function takeover(): Promise<unknown> {
  const trials = numberOption("trials", 10);
  const crash: number[] = [];
  const clean: number[] = [];
  const t0 = performance.now();
  for (let trial = 0; trial < 2 * trials; trial++) {
    const clock = new ManualClock();
    const cluster = new SimulatedCluster({ clock });
    const rng = seededRandom(trial + 1);
    const started: { id: string; at: number }[] = [];
    const candidates = ["a", "b", "c"].map((id, i) => {
      const link = switchable(cluster.fetch);
      const stop = new AbortController();
      const elector = new LeaderElector({
        client: new KubeClient({ server: "http://sim", fetch: link.fetch }),
        namespace: "default",
        name: "bench",
        identity: id,
        clock,
        random: seededRandom(100 * trial + i),
        onError: () => {},
        onStartedLeading: () => void started.push({ id, at: clock.now() }),
      });
      elector.start({ signal: stop.signal });
      return { id, elector, link, stop };
    });
    const advance = async (ms: number): Promise<void> => {
      for (let t = 0; t < ms; t += 100) await clock.advance(100);
    };
    await advance(8_000 + Math.floor(rng() * 12_000));
    await clock.advance(Math.floor(rng() * RETRY_MS));
    const leader = candidates.find((c) => c.elector.isLeader())!;
    const at = clock.now();
    const isCrash = trial < trials;
    if (isCrash) leader.link.cut();
    leader.stop.abort();
    while (!started.some((s) => s.at >= at && s.id !== leader.id) && clock.now() - at < 60_000) {
      await clock.advance(100);
    }
    const next = started.find((s) => s.at >= at && s.id !== leader.id);
    (isCrash ? crash : clean).push(next === undefined ? NaN : next.at - at);
    for (const c of candidates) c.stop.abort();
    await advance(200);
    await Promise.all(candidates.map((c) => c.elector.stop()));
    cluster.close();
  }
  return { crash, clean, wallMs: performance.now() - t0 };
}

/**
 * `--replicas N --keys K`: N replicas of runController with sharding (16 shards, 2 workers
 * each, 50 ms simulated per reconcile). Once the shards have settled among the replicas, K pods
 * appear at once; the simulated time until every key has been reconciled.
 */
async function throughput(): Promise<unknown> {
  const replicas = numberOption("replicas", 1);
  const keys = numberOption("keys", 600);
  const clock = new ManualClock();
  const cluster = new SimulatedCluster({ clock });
  const done = new Set<string>();
  const perReplica = new Array<number>(replicas).fill(0);
  const stop = new AbortController();
  const running: Promise<void>[] = [];
  for (let i = 0; i < replicas; i++) {
    const client = new KubeClient({ server: "http://sim", fetch: cluster.fetch });
    const informer = createInformer<KubeObject>(client, {
      resource: pods,
      clock,
      random: seededRandom(i + 1),
    });
    running.push(
      runController<KubeObject>({
        informers: [informer],
        signal: stop.signal,
        clock,
        workers: WORKERS,
        sharding: {
          client,
          namespace: "default",
          name: "bench",
          identity: `replica-${i}`,
          shards: SHARDS,
          random: seededRandom(100 + i),
        },
        reconcile: async (key, ctx) => {
          await sleep(COST_MS, { clock, signal: ctx.signal });
          if (!done.has(key)) perReplica[i]!++;
          done.add(key);
        },
      }).then(() => informer.stop()),
    );
  }
  for (let t = 0; t < 12_000; t += 250) await clock.advance(250); // the shards settle
  const t0 = performance.now();
  const start = clock.now();
  cluster.seed(pods, keys, (n) => ({ metadata: { namespace: `ns-${n % 20}`, name: `p-${n}` } }));
  while (done.size < keys && clock.now() - start < 600_000) await clock.advance(COST_MS);
  const simulatedMs = clock.now() - start;
  const wallMs = performance.now() - t0;
  stop.abort();
  await clock.advance(0);
  await Promise.all(running);
  cluster.close();
  return {
    replicas,
    keys,
    reconciled: done.size,
    simulatedMs,
    keysPerSecond: (done.size / simulatedMs) * 1000,
    perReplica,
    wallMs,
  };
}

export default {
  name: "coordination",
  order: 11,
  settings: { workers: WORKERS, costMs: COST_MS, shards: SHARDS, leaseMs: LEASE_MS },
  async alone(ctx) {
    const trials = ctx.quick ? 4 : 10;
    ctx.log(`leader takeover: ${trials} crashes and ${trials} clean stops (simulated time)`);
    const t = await ctx.client("node", "coordination/takeover", ["--trials", String(trials)]);
    if (t !== undefined) {
      ctx.raw.coordination!.push({ step: "takeover", ...t });
      const crash = t.crash as number[];
      const clean = t.clean as number[];
      const bound = LEASE_MS + RETRY_MS;
      ctx.row({
        scenario: "11 leader takeover after a crash (3 candidates, lease 15 s, retry 2 s)",
        runtime: "node",
        n: "-",
        result: `median ${fmtMs(median(crash))}, max ${fmtMs(Math.max(...crash))}`,
        baseline: `bound: lease + retry = ${fmtMs(bound)}`,
        ratio: fmtX(Math.max(...crash) / bound),
        target: "max <= 17 s",
        holds: crash.every((ms) => ms <= bound),
      });
      ctx.row({
        scenario: "11 leader hand-over after a clean stop (lease released)",
        runtime: "node",
        n: "-",
        result: `median ${fmtMs(median(clean))}, max ${fmtMs(Math.max(...clean))}`,
        baseline: `crash: median ${fmtMs(median(crash))}`,
        ratio: fmtX(median(clean) / median(crash)),
        target: "max <= retry 2 s",
        holds: clean.every((ms) => ms <= RETRY_MS),
      });
    }
    const keys = ctx.quick ? 300 : 600;
    const results: { replicas: number; keysPerSecond: number; perReplica: number[] }[] = [];
    for (const replicas of [1, 2, 3]) {
      ctx.log(`sharded throughput: ${replicas} replica(s), ${keys} keys`);
      const r = await ctx.client("node", "coordination/throughput", [
        "--replicas",
        String(replicas),
        "--keys",
        String(keys),
      ]);
      if (r === undefined) continue;
      ctx.raw.coordination!.push({ step: "throughput", ...r });
      results.push(r);
      const one = results.find((x) => x.replicas === 1)?.keysPerSecond ?? NaN;
      const speedup = r.keysPerSecond / one;
      ctx.row({
        scenario:
          `11 reconcile throughput, ${replicas} sharded replica(s) (${WORKERS} workers, ${COST_MS} ms each)`,
        runtime: "node",
        n: keys,
        result: `${Math.round(r.keysPerSecond)} keys/s (split ${
          (r.perReplica as number[]).join("/")
        })`,
        baseline: `1 replica: ${Math.round(one)} keys/s`,
        ratio: fmtX(speedup),
        target: replicas === 1 ? "info" : `>= ${(0.8 * replicas).toFixed(1)}x`,
        holds: replicas === 1 ? undefined : speedup >= 0.8 * replicas,
      });
    }
  },
  steps: { takeover, throughput },
} satisfies Scenario;
