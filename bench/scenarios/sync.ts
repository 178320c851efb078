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

/** The table rows of one size's sync results (targets are stated for 50k pods). */
export function syncRows(ctx: BenchContext, n: number, results: SyncResults): void {
  const target = n === 50_000;
  for (const [runtime, r] of Object.entries(results)) {
    const k = r.kinformer;
    const t = r["kinformer-transform"];
    const bare = r.bare;
    const cn = r["client-node"];
    if (k && cn) {
      const x = cn.ms / k.ms;
      ctx.row({
        scenario: "2 sync time vs client-node (x faster)",
        runtime,
        n,
        result: fmtMs(k.ms),
        baseline: fmtMs(cn.ms),
        ratio: fmtX(x),
        target: target ? ">= 3x" : "info",
        holds: target ? x >= 3 : undefined,
      });
    }
    if (k && bare) {
      const x = k.ms / bare.ms;
      ctx.row({
        scenario: "2 sync time vs bare paged fetch+parse",
        runtime,
        n,
        result: fmtMs(k.ms),
        baseline: fmtMs(bare.ms),
        ratio: fmtX(x),
        target: target ? "<= 1.3x" : "info",
        holds: target ? x <= 1.3 : undefined,
      });
    }
    const st = r["kinformer-stream"];
    if (st && cn) {
      ctx.row({
        scenario: "2 sync time (initialList: stream) vs client-node (x faster)",
        runtime,
        n,
        result: fmtMs(st.ms),
        baseline: fmtMs(cn.ms),
        ratio: fmtX(cn.ms / st.ms),
        target: "info",
      });
    }
    if (st && bare) {
      ctx.row({
        scenario: "2 sync time (initialList: stream) vs bare paged loop",
        runtime,
        n,
        result: fmtMs(st.ms),
        baseline: fmtMs(bare.ms),
        ratio: fmtX(st.ms / bare.ms),
        target: "info",
      });
    }
    if (t && bare) {
      ctx.row({
        scenario: "2 sync time (transform) vs bare loop",
        runtime,
        n,
        result: fmtMs(t.ms),
        baseline: fmtMs(bare.ms),
        ratio: fmtX(t.ms / bare.ms),
        target: "info",
      });
    }
    if (k && cn) {
      const x = k.heap / cn.heap;
      ctx.row({
        scenario: "2 heap after sync vs client-node",
        runtime,
        n,
        result: fmtMB(k.heap),
        baseline: fmtMB(cn.heap),
        ratio: fmtX(x),
        target: "<= 0.5x",
        holds: x <= 0.5,
      });
    }
    if (t && cn) {
      const x = t.heap / cn.heap;
      ctx.row({
        scenario: "2 heap after sync (transform) vs client-node",
        runtime,
        n,
        result: fmtMB(t.heap),
        baseline: fmtMB(cn.heap),
        ratio: fmtX(x),
        target: "<= 0.35x",
        holds: x <= 0.35,
      });
    }
    // Metadata-only informers (issue 16): the full informer, metadata only, and metadata only
    // with managedFields stripped, each next to client-node's heap in the same run.
    const m = r["kinformer-metadata"];
    const mt = r["kinformer-metadata-transform"];
    if (m && cn) {
      ctx.row({
        scenario: "2 heap after sync (metadata only) vs client-node",
        runtime,
        n,
        result: fmtMB(m.heap),
        baseline: fmtMB(cn.heap),
        ratio: fmtX(m.heap / cn.heap),
        target: "info",
      });
    }
    if (mt && cn) {
      const x = mt.heap / cn.heap;
      ctx.row({
        scenario: "2 heap after sync (metadata only, managedFields stripped) vs client-node",
        runtime,
        n,
        result: fmtMB(mt.heap),
        baseline: fmtMB(cn.heap),
        ratio: fmtX(x),
        target: target ? "<= 0.3x" : "info",
        holds: target ? x <= 0.3 : undefined,
      });
    }
    if (m && k) {
      ctx.row({
        scenario: "2 heap after sync (metadata only) vs full informer",
        runtime,
        n,
        result: fmtMB(m.heap),
        baseline: fmtMB(k.heap),
        ratio: fmtX(m.heap / k.heap),
        target: "info",
      });
    }
    if (m && k) {
      ctx.row({
        scenario: "2 sync time (metadata only) vs full informer",
        runtime,
        n,
        result: fmtMs(m.ms),
        baseline: fmtMs(k.ms),
        ratio: fmtX(m.ms / k.ms),
        target: "info",
      });
    }
    if (k && bare) {
      ctx.row({
        scenario: "2 heap after sync vs bare parsed items",
        runtime,
        n,
        result: fmtMB(k.heap),
        baseline: fmtMB(bare.heap),
        ratio: fmtX(k.heap / bare.heap),
        target: "info",
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
