/**
 * Scenario 9: kinformer on Node with its own transport (`createNodeFetch`, the watch read from
 * the socket without Web streams) and with the global `fetch`, next to a minimal `node:http`
 * loop, a `fetch` loop, client-node and `JSON.parse` alone, all in the same run. The
 * measurement itself is `bench/node_transport.ts` (self-contained, its own server and child
 * processes; `node bench/node_transport.ts` runs it alone); this file puts its rows in the
 * table. Node only.
 * @module
 */
import { spawn } from "node:child_process";
import { readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import type { Scenario } from "../_scenario.ts";

interface TransportResult {
  best: Record<string, number>;
  bestCpu: Record<string, number>;
  bytes: number;
}

export default {
  name: "node_transport",
  order: 9,
  async after(ctx) {
    if (!ctx.runtimes.includes("node")) return;
    const out = join(ctx.root, "bench", "results", "node_transport.tmp.json");
    const args = [
      join(ctx.root, "bench", "node_transport.ts"),
      "--json",
      out,
      ...(ctx.quick ? ["--events", "20000", "--pods", "10000", "--runs", "1"] : []),
    ];
    ctx.log(`node ${args.slice(0, 1).join(" ")} (about ${ctx.quick ? 1 : 3} min)`);
    const code = await new Promise<number>((resolve) => {
      const child = spawn(join(ctx.root, "node_modules", ".bin", "node"), args, {
        cwd: ctx.root,
        stdio: ["ignore", "ignore", "inherit"],
      });
      child.on("close", (c) => resolve(c ?? 1));
    });
    if (code !== 0) {
      ctx.raw.errors?.push({ scenario: "node_transport", code });
      return;
    }
    const r = JSON.parse(await readFile(out, "utf8")) as TransportResult;
    await rm(out, { force: true });
    ctx.raw.node_transport!.push(r);
    const ratio = (a: string, b: string): number => r.best[b]! / r.best[a]!;
    const n = ctx.quick ? 10_000 : 50_000;
    const watch = ratio("watch:kinformer-node", "watch:node-http-loop");
    ctx.row({
      scenario: "9 Node watch: Node transport vs node:http loop (throughput)",
      runtime: "node",
      n,
      result: `${(r.best["watch:kinformer-node"]! / 1000).toFixed(2)} s`,
      baseline: `${(r.best["watch:node-http-loop"]! / 1000).toFixed(2)} s`,
      ratio: `${watch.toFixed(2)}x`,
      target: ">= 0.9x",
      holds: watch >= 0.9,
    });
    const viaFetch = ratio("watch:kinformer-fetch", "watch:fetch-loop");
    ctx.row({
      scenario: "9 Node watch: global fetch vs fetch loop (throughput)",
      runtime: "node",
      n,
      result: `${(r.best["watch:kinformer-fetch"]! / 1000).toFixed(2)} s`,
      baseline: `${(r.best["watch:fetch-loop"]! / 1000).toFixed(2)} s`,
      ratio: `${viaFetch.toFixed(2)}x`,
      target: "info",
    });
    const loopVsClientNode = ratio("watch:node-http-loop", "watch:client-node");
    ctx.row({
      scenario: "9 Node watch: node:http loop vs client-node (throughput)",
      runtime: "node",
      n,
      result: `${(r.best["watch:node-http-loop"]! / 1000).toFixed(2)} s`,
      baseline: `${(r.best["watch:client-node"]! / 1000).toFixed(2)} s`,
      ratio: `${loopVsClientNode.toFixed(2)}x`,
      target: "info",
    });
    const sync = "sync:kinformer-node";
    if (r.best[sync] !== undefined && r.best["sync:client-node"] !== undefined) {
      const x = r.best["sync:client-node"]! / r.best[sync]!;
      ctx.row({
        scenario: "9 Node sync (Node transport) vs client-node (x faster)",
        runtime: "node",
        n,
        result: `${(r.best[sync]! / 1000).toFixed(2)} s`,
        baseline: `${(r.best["sync:client-node"]! / 1000).toFixed(2)} s`,
        ratio: `${x.toFixed(2)}x`,
        target: ctx.quick ? "info" : ">= 1.6x",
        holds: ctx.quick ? undefined : x >= 1.6,
      });
    }
  },
} satisfies Scenario;
