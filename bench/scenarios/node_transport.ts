/**
 * Scenario 9: kinformer on Node with its own transport (`createNodeFetch`, the watch read from
 * the socket without Web streams) and with the global `fetch`, next to the fair minimal
 * `node:http` loop (lines cut on `\n` bytes, `JSON.parse`, a `Map` by namespace/name), the same
 * loop on `fetch`, the text loop this bench used before issue 33, client-node and `JSON.parse`
 * alone, all in the same run. Issue 33's target: the informer's watch at >= 0.95x the minimal
 * loop's throughput. The
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
      // The workspace's packages are read from their sources (`kinformer-source`), as the tests
      // read them, by this process and the server it starts: a checkout has no built dist/.
      const options = `${process.env.NODE_OPTIONS ?? ""} --conditions=kinformer-source`.trim();
      const child = spawn(join(ctx.root, "node_modules", ".bin", "node"), args, {
        cwd: ctx.root,
        env: { ...process.env, NODE_OPTIONS: options },
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
    const n = ctx.quick ? 10_000 : 50_000;
    const seconds = (name: string): string => `${(r.best[name]! / 1000).toFixed(2)} s`;
    /** A row of `impl` against `base` (same run): the ratio is base time / impl time. */
    const compare = (
      scenario: string,
      impl: string,
      base: string,
      target?: { text: string; atLeast: number },
    ): void => {
      const x = r.best[base]! / r.best[impl]!;
      ctx.row({
        scenario,
        runtime: "node",
        n,
        result: seconds(impl),
        baseline: seconds(base),
        ratio: `${x.toFixed(2)}x`,
        target: target?.text ?? "info",
        ...(target === undefined ? {} : { holds: x >= target.atLeast }),
      });
    };
    compare(
      "9 Node watch: Node transport vs node:http byte loop + Map (throughput)",
      "watch:kinformer-node",
      "watch:node-http-loop",
      { text: ">= 0.95x", atLeast: 0.95 },
    );
    /** The same comparison by CPU time (steadier than wall time on a shared machine). */
    const cpuX = r.bestCpu["watch:node-http-loop"]! / r.bestCpu["watch:kinformer-node"]!;
    ctx.row({
      scenario: "9 Node watch: Node transport vs node:http byte loop + Map (CPU time)",
      runtime: "node",
      n,
      result: `${(r.bestCpu["watch:kinformer-node"]! / 1000).toFixed(2)} s CPU`,
      baseline: `${(r.bestCpu["watch:node-http-loop"]! / 1000).toFixed(2)} s CPU`,
      ratio: `${cpuX.toFixed(2)}x`,
      target: "info",
    });
    compare(
      "9 Node watch: node:http text loop (the baseline before issue 33) vs byte loop",
      "watch:node-http-text-loop",
      "watch:node-http-loop",
    );
    compare(
      "9 Node watch: global fetch vs fetch byte loop + Map (throughput)",
      "watch:kinformer-fetch",
      "watch:fetch-loop",
    );
    compare(
      "9 Node watch: node:http loop vs client-node (throughput)",
      "watch:node-http-loop",
      "watch:client-node",
    );
    if (r.best["sync:kinformer-node"] !== undefined && r.best["sync:client-node"] !== undefined) {
      compare(
        "9 Node sync (Node transport) vs client-node (x faster)",
        "sync:kinformer-node",
        "sync:client-node",
        ctx.quick ? undefined : { text: ">= 1.6x", atLeast: 1.6 },
      );
    }
  },
} satisfies Scenario;
