/**
 * Scenario 2: start -> synced of one implementation in a fresh process, and the heap it holds
 * after a forced GC, against a bare paged fetch + JSON.parse loop and @kubernetes/client-node's
 * `makeInformer`. Its results per size are shared with the scale scenario (5).
 * @module
 */
import { createInformer } from "../../src/cache/mod.ts";
import {
  KubeClient,
  metadataOnly,
  type PartialObjectMetadata,
  pods,
} from "../../src/client/mod.ts";
import { stripManagedFields } from "../fixtures.ts";
import { heapAfterGc, numberOption, option } from "../_runtime.ts";
import { now } from "../_measure.ts";
import { best, fmtMB, fmtMs, fmtN, fmtX, median } from "../_format.ts";
import type { BenchContext, BenchServer, Scenario } from "../_scenario.ts";

/** One implementation's figures at one size on one runtime. */
export interface SyncFigures {
  /** Best start -> synced time. */
  ms: number;
  /** Median heap held after sync. */
  heap: number;
  /** Every run's result. */
  runs: { ms: number; heap: number }[];
}

/** `{ [runtime]: { [impl]: figures } }` for one size. */
export type SyncResults = Record<string, Record<string, SyncFigures>>;

/** Implementations measured at every size. */
const IMPLS = [
  "kinformer",
  "kinformer-transform",
  "kinformer-stream",
  "kinformer-metadata",
  "kinformer-metadata-transform",
  "bare",
  "client-node",
];

/** Sync results by size, shared within a run (`ctx.shared`). */
export function syncBySize(ctx: BenchContext): Map<number, SyncResults> {
  let map = ctx.shared.get("sync") as Map<number, SyncResults> | undefined;
  if (map === undefined) ctx.shared.set("sync", map = new Map());
  return map;
}

/** Sync measurements of one N, `reps` fresh processes per implementation and runtime. */
export async function measureSync(
  ctx: BenchContext,
  server: BenchServer,
  n: number,
  { reps, impls, runtimesHere }: { reps: number; impls: string[]; runtimesHere: readonly string[] },
): Promise<SyncResults> {
  const out: SyncResults = {};
  for (const runtime of runtimesHere) {
    // client-node is the baseline on Node; on Deno and Bun (where it runs without the shims
    // bench/client_node.ts needs on Node 20) it is measured too, except in quick runs.
    const names = impls.filter((impl) =>
      impl !== "client-node" || runtime === "node" || !ctx.quick
    );
    ctx.log(`sync ${runtime} N=${fmtN(n)}: ${names.join(", ")} (${reps} fresh process(es) each)`);
    const results = await ctx.repeat(
      reps,
      names.map((impl) => () =>
        ctx.client(runtime, "sync", ["--url", server.url, "--impl", impl, "--pods", String(n)])
      ),
    );
    const figures: Record<string, SyncFigures> = {};
    out[runtime] = figures;
    names.forEach((impl, i) => {
      const rs = results[i]!;
      if (rs.length === 0) return;
      figures[impl] = {
        ms: best(rs.map((x) => x.ms)),
        heap: median(rs.map((x) => x.heap)),
        runs: rs,
      };
      ctx.raw.sync!.push({ n, runtime, impl, runs: rs });
    });
  }
  return out;
}

/**
 * One row of scenario 2: `impl`'s figure next to `baseline`'s (same runtime, same run). `faster`
 * states the ratio as baseline/impl ("x faster"), else impl/baseline. `target` (a bound on that
 * ratio) applies at 50k pods only.
 */
interface SyncComparison {
  scenario: string;
  impl: string;
  baseline: string;
  figure: "ms" | "heap";
  faster?: boolean;
  target?: { text: string; holds: (x: number) => boolean; always?: boolean };
}

const SYNC_COMPARISONS: readonly SyncComparison[] = [
  {
    scenario: "2 sync time vs client-node (x faster)",
    impl: "kinformer",
    baseline: "client-node",
    figure: "ms",
    faster: true,
    target: { text: ">= 3x", holds: (x) => x >= 3 },
  },
  {
    scenario: "2 sync time vs bare paged fetch+parse",
    impl: "kinformer",
    baseline: "bare",
    figure: "ms",
    target: { text: "<= 1.3x", holds: (x) => x <= 1.3 },
  },
  {
    scenario: "2 sync time (initialList: stream) vs client-node (x faster)",
    impl: "kinformer-stream",
    baseline: "client-node",
    figure: "ms",
    faster: true,
  },
  {
    scenario: "2 sync time (initialList: stream) vs bare paged loop",
    impl: "kinformer-stream",
    baseline: "bare",
    figure: "ms",
  },
  {
    scenario: "2 sync time (transform) vs bare loop",
    impl: "kinformer-transform",
    baseline: "bare",
    figure: "ms",
  },
  {
    scenario: "2 heap after sync vs client-node",
    impl: "kinformer",
    baseline: "client-node",
    figure: "heap",
    target: { text: "<= 0.5x", holds: (x) => x <= 0.5, always: true },
  },
  {
    scenario: "2 heap after sync (transform) vs client-node",
    impl: "kinformer-transform",
    baseline: "client-node",
    figure: "heap",
    target: { text: "<= 0.35x", holds: (x) => x <= 0.35, always: true },
  },
  // Metadata-only informers (issue 16): metadata only, and metadata only with managedFields
  // stripped, next to client-node's heap and to the full informer's.
  {
    scenario: "2 heap after sync (metadata only) vs client-node",
    impl: "kinformer-metadata",
    baseline: "client-node",
    figure: "heap",
  },
  {
    scenario: "2 heap after sync (metadata only, managedFields stripped) vs client-node",
    impl: "kinformer-metadata-transform",
    baseline: "client-node",
    figure: "heap",
    target: { text: "<= 0.3x", holds: (x) => x <= 0.3 },
  },
  {
    scenario: "2 heap after sync (metadata only) vs full informer",
    impl: "kinformer-metadata",
    baseline: "kinformer",
    figure: "heap",
  },
  {
    scenario: "2 sync time (metadata only) vs full informer",
    impl: "kinformer-metadata",
    baseline: "kinformer",
    figure: "ms",
  },
  {
    scenario: "2 heap after sync vs bare parsed items",
    impl: "kinformer",
    baseline: "bare",
    figure: "heap",
  },
];

/** The table rows of one size's sync results (targets are stated for 50k pods). */
export function syncRows(ctx: BenchContext, n: number, results: SyncResults): void {
  for (const [runtime, r] of Object.entries(results)) {
    for (const c of SYNC_COMPARISONS) {
      const a = r[c.impl];
      const b = r[c.baseline];
      if (!a || !b) continue;
      const x = c.faster ? b[c.figure] / a[c.figure] : a[c.figure] / b[c.figure];
      const fmt = c.figure === "ms" ? fmtMs : fmtMB;
      const applies = c.target !== undefined && (n === 50_000 || c.target.always === true);
      ctx.row({
        scenario: c.scenario,
        runtime,
        n,
        result: fmt(a[c.figure]),
        baseline: fmt(b[c.figure]),
        ratio: fmtX(x),
        target: applies ? c.target!.text : "info",
        holds: applies ? c.target!.holds(x) : undefined,
      });
    }
  }
}

/**
 * `--url --impl I --pods N`: `kinformer`, `kinformer-transform` (managedFields stripped),
 * `kinformer-stream` (`initialList: "stream"`: one watch with initial events instead of a paged
 * LIST), `kinformer-metadata` (`metadataOnly(pods)`), `kinformer-metadata-transform` (metadata
 * only, managedFields stripped), `bare` (paged fetch + JSON.parse, items kept in an array), `client-node`
 * (@kubernetes/client-node makeInformer).
 */
async function sync(): Promise<unknown> {
  const url = option("url");
  const impl = option("impl");
  const expected = numberOption("pods");
  let keep: unknown;
  let count = 0;
  // client-node's module graph is large: load it before the clock and the heap baseline.
  const clientNode = impl === "client-node"
    ? await (await import("../client_node.ts")).loadClientNodeInformer()
    : undefined;
  const before = heapAfterGc();
  const t0 = now();
  switch (impl) {
    case "kinformer-metadata":
    case "kinformer-metadata-transform": {
      // Metadata only (PartialObjectMetadata), with or without managedFields.
      const informer = createInformer<PartialObjectMetadata>(new KubeClient({ server: url }), {
        resource: metadataOnly(pods),
        ...(impl === "kinformer-metadata-transform" ? { transform: stripManagedFields } : {}),
      });
      informer.start();
      await informer.waitForSync();
      count = informer.store.size;
      keep = informer;
      break;
    }
    case "kinformer":
    case "kinformer-transform":
    case "kinformer-stream": {
      const informer = createInformer(new KubeClient({ server: url }), {
        resource: pods,
        ...(impl === "kinformer-transform" ? { transform: stripManagedFields } : {}),
        ...(impl === "kinformer-stream" ? { initialList: "stream" as const } : {}),
      });
      informer.start();
      await informer.waitForSync();
      count = informer.store.size;
      keep = informer;
      break;
    }
    case "bare": {
      const items: unknown[] = [];
      let cont: string | undefined;
      do {
        const q = cont === undefined ? "resourceVersion=0" : `continue=${encodeURIComponent(cont)}`;
        const response = await fetch(`${url}/api/v1/pods?limit=500&${q}`);
        const page = await response.json() as { items: unknown[]; metadata: { continue?: string } };
        for (const item of page.items) items.push(item);
        cont = page.metadata.continue || undefined;
      } while (cont !== undefined);
      count = items.length;
      keep = items;
      break;
    }
    case "client-node": {
      const informer = await clientNode!(url);
      count = informer.list().length;
      keep = informer;
      break;
    }
    default:
      throw new TypeError(`unknown --impl ${impl}`);
  }
  const ms = now() - t0;
  if (count < expected) throw new Error(`${impl} synced ${count} of ${expected} pods`);
  const heap = heapAfterGc() - before;
  return { impl, ms, heap, objects: count, kept: keep !== undefined };
}

export default {
  name: "sync",
  order: 2,
  async withServer(ctx, server, n) {
    const reps = ctx.quick ? 1 : n >= 50_000 ? 2 : 3;
    const results = await measureSync(ctx, server, n, {
      reps,
      impls: IMPLS,
      runtimesHere: ctx.runtimes,
    });
    syncBySize(ctx).set(n, results);
    if (ctx.wants("sync")) syncRows(ctx, n, results);
  },
  steps: { sync },
} satisfies Scenario;
