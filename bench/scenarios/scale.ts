/**
 * Scenario 5: sync time and heap per object at every size (the sync scenario's kinformer
 * figures) and, in full runs, at 200k pods, against the first size: linear when the per-object
 * cost holds. On one runtime (Node when measured).
 * @module
 */
import { fmtKB, fmtMB, fmtMs, fmtN, fmtX } from "../_format.ts";
import type { BenchContext, Scenario } from "../_scenario.ts";
import { measureSync, syncBySize, syncRows } from "./sync.ts";

const SCALE_TOP = 200_000;

interface Point {
  n: number;
  runtime: string;
  ms: number;
  heap: number;
}

function scaleRows(ctx: BenchContext, points: Point[]): void {
  const byRuntime = new Map<string, Point[]>();
  for (const p of points) {
    if (!byRuntime.has(p.runtime)) byRuntime.set(p.runtime, []);
    byRuntime.get(p.runtime)!.push(p);
  }
  for (const [runtime, ps] of byRuntime) {
    ps.sort((a, b) => a.n - b.n);
    const base = ps[0]!;
    for (const p of ps.slice(1)) {
      const perMs = (q: Point): number => (q.ms / q.n) * 1000;
      const perHeap = (q: Point): number => q.heap / q.n;
      const tx = perMs(p) / perMs(base);
      const hx = perHeap(p) / perHeap(base);
      ctx.raw.scale!.push({ runtime, n: p.n, ms: p.ms, heap: p.heap, baseN: base.n, tx, hx });
      ctx.row({
        scenario: "5 scale: sync time per object vs 10k",
        runtime,
        n: p.n,
        result: `${fmtMs(p.ms)} (${perMs(p).toFixed(1)} ms/1k)`,
        baseline: `${fmtMs(base.ms)} (${perMs(base).toFixed(1)} ms/1k)`,
        ratio: fmtX(tx),
        target: "<= 1.5x (linear)",
        holds: tx <= 1.5,
      });
      ctx.row({
        scenario: "5 scale: heap per object vs 10k",
        runtime,
        n: p.n,
        result: `${fmtMB(p.heap)} (${fmtKB(perHeap(p))}/obj)`,
        baseline: `${fmtMB(base.heap)} (${fmtKB(perHeap(base))}/obj)`,
        ratio: fmtX(hx),
        target: "<= 1.2x (linear)",
        holds: hx <= 1.2,
      });
    }
  }
}

export default {
  name: "scale",
  order: 5,
  needs: ["sync"],
  settings: { scaleTop: SCALE_TOP },
  async after(ctx) {
    const runtime = ctx.runtimes.includes("node") ? "node" : ctx.runtimes[0]!;
    const points: Point[] = [];
    for (const n of ctx.sizes) {
      const k = syncBySize(ctx).get(n)?.[runtime]?.kinformer;
      if (k) points.push({ n, runtime, ms: k.ms, heap: k.heap });
    }
    if (!ctx.quick) {
      ctx.log(`starting the bench server with ${fmtN(SCALE_TOP)} pods (scale point)`);
      const server = await ctx.startServer(SCALE_TOP, []);
      ctx.log(`server ready (${(server.readyMs / 1000).toFixed(1)} s to seed)`);
      try {
        const r = await measureSync(ctx, server, SCALE_TOP, {
          reps: 1,
          impls: ["kinformer", "bare"],
          runtimesHere: [runtime],
        });
        const k = r[runtime]?.kinformer;
        if (k) points.push({ n: SCALE_TOP, runtime, ms: k.ms, heap: k.heap });
        syncRows(ctx, SCALE_TOP, r);
      } finally {
        await server.stop();
      }
    }
    scaleRows(ctx, points);
  },
} satisfies Scenario;
