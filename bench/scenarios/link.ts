/**
 * Scenario 12: an initial sync over a real-looking link, where bytes and round trips cost time
 * (loopback hides both). The bench server is reached through a shaped TCP proxy on loopback
 * (`bench/_link.ts`: 100 Mbit/s and 10 ms each way by default) and, for comparison, directly.
 * Measured on Node, each in a fresh process, in the same run:
 *
 * - kinformer on its Node transport (`createNodeFetch`, what the Node kubeconfig loader gives),
 *   and on Node's global `fetch`, each with `initialList: "list"` (paged LIST, 500 a page) and
 *   `"stream"` (one watch with `sendInitialEvents`);
 * - @kubernetes/client-node's `makeInformer` (one unpaged LIST), the baseline.
 *
 * Time is start -> synced; bytes are what crossed the link from the server (HTTP heads and
 * bodies, gzip where the server compressed: kube-apiserver, like the simulator, gzips LIST
 * answers over 128 KiB when asked, never watch streams). Targets (issue 23): on the link the
 * Node transport within 1.1x of client-node's time and bytes; on loopback at least as fast.
 * @module
 */
import { createInformer, type InitialListMode } from "../../src/cache/mod.ts";
import { KubeClient, pods } from "../../src/client/mod.ts";
import { numberOption, option } from "../_runtime.ts";
import { now } from "../_measure.ts";
import { best, fmtMB, fmtMs, fmtX } from "../_format.ts";
import type { BenchContext, Scenario } from "../_scenario.ts";

/** The link's shape (each direction). */
const LINK = { mbit: 100, delayMs: 10 };

/** What is measured: kinformer on a transport with an initial-list mode, or client-node. */
const IMPLS = [
  "kinformer-node-list",
  "kinformer-node-stream",
  "kinformer-fetch-list",
  "kinformer-fetch-stream",
  "client-node",
] as const;
type Impl = typeof IMPLS[number];

interface Figures {
  ms: number;
  bytes: number;
}

/** `--url --impl I --pods N`: start -> synced of one implementation. */
async function sync(): Promise<unknown> {
  const url = option("url");
  const impl = option("impl") as Impl;
  const expected = numberOption("pods");
  if (impl === "client-node") {
    const start = await (await import("../client_node.ts")).loadClientNodeInformer();
    const t0 = now();
    const informer = await start(url);
    const ms = now() - t0;
    const count = informer.list().length;
    await informer.stop();
    if (count < expected) throw new Error(`client-node synced ${count} of ${expected} pods`);
    return { impl, ms };
  }
  const [, transport, mode] = impl.split("-") as [string, "node" | "fetch", InitialListMode];
  const host = transport === "node"
    ? (await import("../../src/adapters/node/fetch.ts")).createNodeFetch()
    : undefined;
  const t0 = now();
  const informer = createInformer(
    new KubeClient(host === undefined ? { server: url } : { server: url, fetch: host.fetch }),
    { resource: pods, initialList: mode },
  );
  informer.start();
  await informer.waitForSync();
  const ms = now() - t0;
  const count = informer.store.size;
  await informer.stop();
  host?.close();
  if (count < expected) throw new Error(`${impl} synced ${count} of ${expected} pods`);
  return { impl, ms };
}

/** Runs every implementation `reps` times against `url`; best time, bytes of the best run. */
async function measure(
  ctx: BenchContext,
  url: string,
  n: number,
  reps: number,
  bytesOf: (() => { read(): number }) | undefined,
): Promise<Record<string, Figures>> {
  const results = await ctx.repeat(
    reps,
    IMPLS.map((impl) => async () => {
      const counter = bytesOf?.();
      const r = await ctx.client("node", "link/sync", [
        "--url",
        url,
        "--impl",
        impl,
        "--pods",
        String(n),
      ]);
      return r === undefined ? undefined : { ms: r.ms as number, bytes: counter?.read() ?? NaN };
    }),
  );
  const out: Record<string, Figures> = {};
  IMPLS.forEach((impl, i) => {
    const runs = results[i]!;
    if (runs.length === 0) return;
    const ms = best(runs.map((r) => r.ms));
    out[impl] = { ms, bytes: runs.find((r) => r.ms === ms)!.bytes };
  });
  return out;
}

export default {
  name: "link",
  order: 12,
  settings: { link: LINK },
  async withServer(ctx, server, n) {
    if (!ctx.runtimes.includes("node")) return;
    const { startLink } = await import("../_link.ts");
    const target = new URL(server.url);
    const link = await startLink({
      target: { host: target.hostname, port: Number(target.port) },
      ...LINK,
    });
    const reps = ctx.quick ? 1 : 2;
    try {
      ctx.log(
        `link N=${n}: ${IMPLS.join(", ")} over loopback, then ${LINK.mbit} Mbit/s + ` +
          `${LINK.delayMs} ms each way (${reps} fresh process(es) each)`,
      );
      // The bench server's /gzip prefix compresses as kube-apiserver does (see bench/server.ts).
      const loopback = await measure(ctx, `${server.url}/gzip`, n, reps, undefined);
      const shaped = await measure(ctx, `${link.url}/gzip`, n, reps, () => {
        link.reset();
        return { read: () => link.bytes().down };
      });
      ctx.raw.link!.push({ n, link: LINK, loopback, shaped });
      const row = (
        scenario: string,
        a: Figures | undefined,
        b: Figures | undefined,
        figure: "ms" | "bytes",
        target?: number,
      ): void => {
        if (a === undefined || b === undefined) return;
        const x = a[figure] / b[figure];
        const fmt = figure === "ms" ? fmtMs : fmtMB;
        ctx.row({
          scenario,
          runtime: "node",
          n,
          result: fmt(a[figure]),
          baseline: fmt(b[figure]),
          ratio: fmtX(x),
          target: target === undefined ? "info" : `<= ${target}x`,
          holds: target === undefined ? undefined : x <= target,
        });
      };
      const link100 = `${LINK.mbit} Mbit/s ${LINK.delayMs} ms`;
      const cn = shaped["client-node"];
      row(
        `12 link ${link100}: Node transport time vs client-node`,
        shaped["kinformer-node-list"],
        cn,
        "ms",
        1.1,
      );
      row(
        `12 link ${link100}: Node transport bytes vs client-node`,
        shaped["kinformer-node-list"],
        cn,
        "bytes",
        1.1,
      );
      row(
        `12 link ${link100}: global fetch time vs client-node`,
        shaped["kinformer-fetch-list"],
        cn,
        "ms",
      );
      row(
        `12 link ${link100}: global fetch bytes vs client-node`,
        shaped["kinformer-fetch-list"],
        cn,
        "bytes",
      );
      row(
        `12 link ${link100}: stream vs list time (Node transport)`,
        shaped["kinformer-node-stream"],
        shaped["kinformer-node-list"],
        "ms",
      );
      row(
        `12 link ${link100}: stream vs list bytes (Node transport)`,
        shaped["kinformer-node-stream"],
        shaped["kinformer-node-list"],
        "bytes",
      );
      row(
        `12 link ${link100}: stream vs list time (global fetch)`,
        shaped["kinformer-fetch-stream"],
        shaped["kinformer-fetch-list"],
        "ms",
      );
      row(
        `12 loopback: Node transport time vs client-node`,
        loopback["kinformer-node-list"],
        loopback["client-node"],
        "ms",
        1,
      );
      row(
        `12 loopback: global fetch time vs client-node`,
        loopback["kinformer-fetch-list"],
        loopback["client-node"],
        "ms",
      );
      row(
        `12 loopback: stream vs list time (Node transport)`,
        loopback["kinformer-node-stream"],
        loopback["kinformer-node-list"],
        "ms",
      );
      row(
        `12 loopback: stream vs list time (global fetch)`,
        loopback["kinformer-fetch-stream"],
        loopback["kinformer-fetch-list"],
        "ms",
      );
    } finally {
      await link.close();
    }
  },
  steps: { sync },
} satisfies Scenario;
