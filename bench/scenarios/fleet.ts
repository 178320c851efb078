/**
 * Scenario 13: a fleet of 50 clusters x 1,000 pods in one process (`--clusters C`, the bench
 * server seeded with 1,000 pods standing in for every cluster, each reached by its own
 * `KubeClient` over loopback HTTP): start -> every cluster synced, the heap held after a forced
 * GC, and the watches left open (one HTTP/1.1 connection each), against C bare informers on
 * the same server in the same kind of process (the fleet's own cost: the merged view, the
 * per-cluster state and the event feed).
 * @module
 */
import { createInformer } from "../../src/cache/informer.ts";
import { KubeClient } from "../../src/client/kube_client.ts";
import { pods } from "../../src/client/resource.ts";
import type { KubeObject } from "../../src/client/types.ts";
import { Fleet } from "../../src/fleet/fleet.ts";
import { heapAfterGc, numberOption, option } from "../_runtime.ts";
import { now } from "../_measure.ts";
import { fmtMB, fmtMs, fmtX } from "../_format.ts";
import type { Scenario } from "../_scenario.ts";

const CLUSTERS = 50;
const PODS = 1_000;

/** Figures of one process. */
interface FleetFigures {
  mode: string;
  clusters: number;
  syncMs: number;
  /** When the first cluster had synced. */
  firstMs: number;
  heap: number;
  objects: number;
  watches: number;
}

/**
 * The global `fetch`, counting the watches whose response arrived and that are still open (their
 * request not aborted): the connections they hold. Counted here rather than from the informers'
 * health, whose state names are not a contract.
 */
function countingFetch(): { fetch: (request: Request) => Promise<Response>; open(): number } {
  let open = 0;
  return {
    fetch: async (request) => {
      const response = await fetch(request);
      if (new URL(request.url).searchParams.get("watch") === "1" && !request.signal.aborted) {
        open++;
        request.signal.addEventListener("abort", () => open--, { once: true });
      }
      return response;
    },
    open: () => open,
  };
}

/** `--mode fleet|informers --clusters C --url U`: C clusters synced, then measured. */
async function measure(): Promise<FleetFigures> {
  const url = option("url");
  const clusters = numberOption("clusters", CLUSTERS);
  const mode = option("mode", "fleet");
  const before = heapAfterGc();
  const t0 = now();
  let firstMs = Infinity;
  const first = (): void => void (firstMs = Math.min(firstMs, now() - t0));
  let objects = 0;
  const counter = countingFetch();
  const client = (): KubeClient => new KubeClient({ server: url, fetch: counter.fetch });
  let stop: () => Promise<void>;
  if (mode === "fleet") {
    const fleet = new Fleet<KubeObject>({ resource: pods });
    for (let i = 0; i < clusters; i++) fleet.engage(`c${i}`, client());
    await fleet.waitForSync({ min: 1 }).then(first);
    await fleet.waitForSync();
    objects = fleet.store.size;
    stop = () => fleet.stop();
  } else {
    const informers = Array.from(
      { length: clusters },
      () => createInformer<KubeObject>(client(), { resource: pods }),
    );
    for (const i of informers) i.start();
    await Promise.all(informers.map((i) => i.waitForSync().then(first)));
    for (const i of informers) objects += i.store.size;
    stop = async () => void await Promise.all(informers.map((i) => i.stop()));
  }
  const syncMs = now() - t0;
  const heap = heapAfterGc() - before;
  // The watches open once every cluster has synced (each opens right after its list).
  for (let i = 0; i < 100 && counter.open() < clusters; i++) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  const watches = counter.open();
  await stop();
  return { mode, clusters, syncMs, firstMs, heap, objects, watches };
}

export default {
  name: "fleet",
  order: 13,
  settings: { fleetClusters: CLUSTERS, fleetPodsPerCluster: PODS },
  async after(ctx) {
    ctx.log(`starting the bench server with ${PODS} pods (fleet: ${CLUSTERS} clusters of it)`);
    const server = await ctx.startServer(PODS, []);
    try {
      for (const runtime of ctx.runtimes) {
        const args = (
          mode: string,
        ) => ["--url", server.url, "--clusters", `${CLUSTERS}`, "--mode", mode];
        const reps = ctx.quick ? 1 : 2;
        const [fleets, bares] = await ctx.repeat<FleetFigures>(reps, [
          () => ctx.client(runtime, "fleet", args("fleet")),
          () => ctx.client(runtime, "fleet", args("informers")),
        ]);
        if (!fleets?.length || !bares?.length) continue;
        const f = fleets.reduce((a, b) => (a.syncMs <= b.syncMs ? a : b));
        const b = bares.reduce((a, b) => (a.syncMs <= b.syncMs ? a : b));
        ctx.raw.fleet!.push({ runtime, fleet: fleets, informers: bares });
        const n = `${CLUSTERS}x${PODS / 1000}k`;
        ctx.row({
          scenario: `13 fleet: ${CLUSTERS} clusters synced vs ${CLUSTERS} bare informers`,
          runtime,
          n,
          result: `${fmtMs(f.syncMs)} (first ${fmtMs(f.firstMs)}), ${f.objects} objects`,
          baseline: `${fmtMs(b.syncMs)} (first ${fmtMs(b.firstMs)})`,
          ratio: fmtX(f.syncMs / b.syncMs),
          target: "info",
        });
        ctx.row({
          scenario: `13 fleet: heap after sync vs ${CLUSTERS} bare informers`,
          runtime,
          n,
          result: fmtMB(f.heap),
          baseline: fmtMB(b.heap),
          ratio: fmtX(f.heap / b.heap),
          target: "<= 1.5x",
          holds: f.heap <= 1.5 * b.heap,
        });
        ctx.row({
          scenario: "13 fleet: watches (HTTP connections) open after sync",
          runtime,
          n,
          result: `${f.watches}`,
          baseline: `${b.watches}`,
          ratio: fmtX(f.watches / Math.max(1, b.watches)),
          target: "one per cluster",
          holds: f.watches === CLUSTERS,
        });
      }
    } finally {
      await server.stop();
    }
  },
  steps: { fleet: measure },
} satisfies Scenario;
