/**
 * Scenario 15: the CPU a LIST page costs to decode (issue 33). Pages of 500 served pods (about
 * 1.6 MB of JSON each) in 64 KB chunks, as the transport hands them over, go through the
 * library's page decoder (`decodeListBody`: items cut from the bytes, parsed in runs); the
 * baseline, in the same process, interleaved, is `JSON.parse` of each page's whole text. CPU time
 * (`process.cpuUsage()`, all threads, so garbage collection counts) per page: the median of
 * the per-round ratios (the machine may be shared), and the best of each. No server: the bytes
 * are in memory.
 * @module
 */
import process from "node:process";
import { decodeListBody } from "../../src/client/list_body.ts";
import { pods } from "../../src/client/resource.ts";
import { BENCH_CHUNK_BYTES, podFixture } from "../fixtures.ts";
import { numberOption } from "../_runtime.ts";
import { best, fmtX, median } from "../_format.ts";
import type { Scenario } from "../_scenario.ts";

const PAGE_ITEMS = 500;
const PAGES = 4;

interface Page {
  whole: Uint8Array;
  chunks: Uint8Array[];
}

/** `PAGES` pages of served pods (uid, resourceVersion), each whole and in transport chunks. */
function pages(): Page[] {
  const out: Page[] = [];
  for (let p = 0; p < PAGES; p++) {
    const items = [];
    for (let i = 0; i < PAGE_ITEMS; i++) {
      const index = p * PAGE_ITEMS + i;
      const pod = podFixture(index);
      pod.metadata.uid = `00000000-0000-4000-8000-${String(index).padStart(12, "0")}`;
      pod.metadata.resourceVersion = String(1000 + index);
      items.push(pod);
    }
    const whole = new TextEncoder().encode(JSON.stringify({
      kind: "PodList",
      apiVersion: "v1",
      metadata: { resourceVersion: "9999", continue: "eyJ2IjoibWV0YS5rOHMuaW8vdjEifQ" },
      items,
    }));
    const chunks: Uint8Array[] = [];
    for (let at = 0; at < whole.length; at += BENCH_CHUNK_BYTES) {
      chunks.push(whole.slice(at, at + BENCH_CHUNK_BYTES));
    }
    out.push({ whole, chunks });
  }
  return out;
}

/** `--rounds R`: CPU ms per page of both, R interleaved rounds (3 more to warm up). */
function measure(): Promise<unknown> {
  const rounds = numberOption("rounds", 40);
  const all = pages();
  const context = {
    request: "GET /api/v1/pods",
    path: "/api/v1/pods",
    status: 200,
    resource: pods,
  };
  let kept: unknown[] = []; // what an informer keeps: the parsed pages, until the round ends
  const plain = () => {
    for (const page of all) kept.push(JSON.parse(new TextDecoder().decode(page.whole)));
  };
  const decoded = () => {
    for (const page of all) kept.push(decodeListBody(page.chunks, context));
  };
  const cpu = () => {
    const used = process.cpuUsage();
    return (used.user + used.system) / 1000;
  };
  const timed = (run: () => void) => {
    const start = cpu();
    run();
    const ms = (cpu() - start) / PAGES;
    kept = [];
    return ms;
  };
  const plainMs: number[] = [];
  const decodedMs: number[] = [];
  const ratios: number[] = [];
  for (let r = 0; r < rounds + 3; r++) {
    const first = r % 2 === 0;
    const a = first ? timed(plain) : 0;
    const b = timed(decoded);
    const c = first ? a : timed(plain);
    if (r < 3) continue;
    plainMs.push(c);
    decodedMs.push(b);
    ratios.push(b / c);
  }
  return Promise.resolve({
    pageBytes: all[0]!.whole.length,
    plainMs: best(plainMs),
    decodedMs: best(decodedMs),
    medianRatio: median(ratios),
  });
}

export default {
  name: "list_decode",
  order: 15,
  settings: { pageItems: PAGE_ITEMS, chunkBytes: BENCH_CHUNK_BYTES },
  async alone(ctx) {
    ctx.raw.list_decode = [];
    for (const runtime of ctx.runtimes) {
      const r = await ctx.client(runtime, "list_decode", [
        "--rounds",
        String(ctx.quick ? 15 : 40),
      ]);
      if (r === undefined) continue;
      ctx.raw.list_decode.push(r);
      const holds = r.medianRatio <= 1.05;
      ctx.row({
        scenario: "15 LIST page decode (500 pods, 64 KB chunks), CPU vs JSON.parse of the page",
        runtime,
        n: PAGE_ITEMS,
        result: `${r.decodedMs.toFixed(2)} ms/page`,
        baseline: `${r.plainMs.toFixed(2)} ms/page`,
        ratio: fmtX(r.medianRatio),
        target: runtime === "node" ? "<= 1.05x" : "info",
        holds: runtime === "node" ? holds : undefined,
      });
    }
  },
  steps: { list_decode: measure },
} satisfies Scenario;
