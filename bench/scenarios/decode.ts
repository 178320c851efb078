/**
 * Scenario 1: decode + deliver M MODIFIED watch events (after a list of the server's N pods) to
 * one `events()` listener, against baselines over the same bytes: the bare parse of the body in
 * memory, and the fair minimal watch loop
 * of issue 33 (`byteLineCache`: fetch, lines cut on `\n` bytes, `JSON.parse`, every object kept
 * in a `Map` by namespace/name, as any cache must; what keeping them costs is the runtime's
 * garbage collector), whose throughput the informer must reach within 5% (on Deno and Bun;
 * Node's own transport is measured against `node:http` in `node_transport`). At the first size,
 * also the decoder alone over HTTP (`decodeWatchStream`, objects dropped).
 * @module
 */
import { createInformer } from "../../src/cache/mod.ts";
import { KubeClient, pods } from "../../src/client/mod.ts";
import { decodeWatchStream } from "../../src/watch/mod.ts";
import { bareParseLines, byteLineCache } from "../fixtures.ts";
import { gc, numberOption, option } from "../_runtime.ts";
import { consume, now } from "../_measure.ts";
import { fmtN, fmtX } from "../_format.ts";
import type { Scenario } from "../_scenario.ts";

const DECODE_EVENTS = 100_000;

/** Time (ms) for one informer to sync, then deliver `m` MODIFIED events to one `events()` listener. */
async function informerBurst(url: string, m: number): Promise<number> {
  const client = new KubeClient({ server: `${url}/burst/${m}` });
  const informer = createInformer(client, { resource: pods });
  informer.start();
  let t0 = 0;
  let n = 0;
  const t1 = await consume(informer.events(), (ev) => {
    if (ev.type === "synced") t0 = now();
    else if (ev.type === "update") return ++n === m;
    return false;
  });
  await informer.stop();
  if (n !== m) throw new Error(`informer delivered ${n} of ${m} events`);
  return t1 - t0;
}

/** `--url --events M --reps R --layers 0|1`: best of R of each measurement. */
async function decode(): Promise<unknown> {
  const url = option("url");
  const m = numberOption("events");
  const reps = numberOption("reps", 3);
  const layers = numberOption("layers", 0) === 1;
  const raw = await fetch(`${url}/raw/burst/${m}`);
  const bytes = new Uint8Array(await raw.arrayBuffer());
  const best: Record<string, number> = {
    informer: Infinity,
    memory: Infinity,
    httpRetain: Infinity,
  };
  const measure = async (name: string, run: () => Promise<number>): Promise<void> => {
    gc();
    const t0 = now();
    const count = await run();
    best[name] = Math.min(best[name] ?? Infinity, now() - t0);
    if (count !== m) throw new Error(`${name}: ${count} of ${m} events`);
  };
  for (let r = 0; r < reps; r++) {
    gc();
    best.informer = Math.min(best.informer!, await informerBurst(url, m));
    await measure("memory", () => Promise.resolve(bareParseLines(bytes)));
    await measure("httpRetain", async () => {
      const response = await fetch(`${url}/raw/burst/${m}`);
      return await byteLineCache(response.body!, m);
    });
    if (!layers) continue;
    await measure("decoder", async () => {
      let n = 0;
      const response = await fetch(`${url}/raw/burst/${m}`);
      for await (const ev of decodeWatchStream(response.body!)) if (ev.type === "MODIFIED") n++;
      return n;
    });
  }
  return { events: m, bytes: bytes.length, ms: best };
}

export default {
  name: "decode",
  order: 1,
  settings: { decodeEvents: DECODE_EVENTS },
  bursts: () => [DECODE_EVENTS],
  async withServer(ctx, server, n) {
    const reps = ctx.quick ? 1 : n >= 50_000 ? 2 : 3;
    for (const runtime of ctx.runtimes) {
      ctx.log(`decode ${runtime} N=${fmtN(n)} M=${fmtN(DECODE_EVENTS)} (best of ${reps})`);
      const layers = n === ctx.sizes[0] ? "1" : "0";
      const r = await ctx.client(runtime, "decode", [
        "--url",
        server.url,
        "--events",
        String(DECODE_EVENTS),
        "--reps",
        String(reps),
        "--layers",
        layers,
      ]);
      if (r === undefined) continue;
      ctx.raw.decode!.push({ n, ...r });
      const mbps = (ms: number): number => r.bytes / 1048576 / (ms / 1000);
      const eps = (ms: number): number => r.events / (ms / 1000);
      const informer = mbps(r.ms.informer);
      const memory = mbps(r.ms.memory);
      const result = `${informer.toFixed(0)} MB/s, ${(eps(r.ms.informer) / 1000).toFixed(1)}k ev/s`;
      ctx.row({
        scenario: "1 decode+deliver vs bare JSON.parse (in memory)",
        runtime,
        n,
        result,
        baseline: `${memory.toFixed(0)} MB/s, ${(eps(r.ms.memory) / 1000).toFixed(1)}k ev/s`,
        ratio: fmtX(informer / memory),
        target: ">= 0.8x",
        holds: informer / memory >= 0.8,
      });
      const retain = mbps(r.ms.httpRetain);
      ctx.row({
        scenario: "1 watch throughput: decode+deliver vs fetch byte loop + Map",
        runtime,
        n,
        result,
        baseline: `${retain.toFixed(0)} MB/s, ${(eps(r.ms.httpRetain) / 1000).toFixed(1)}k ev/s`,
        ratio: fmtX(informer / retain),
        // Node's target is on its own transport (node_transport); its global fetch is info.
        target: runtime === "node" ? "info" : ">= 0.95x",
        ...(runtime === "node" ? {} : { holds: informer / retain >= 0.95 }),
      });
      if (r.ms.decoder !== undefined) {
        const decoder = mbps(r.ms.decoder);
        ctx.row({
          scenario: "1 layers: decoder alone over HTTP (no cache) vs bare JSON.parse (in memory)",
          runtime,
          n,
          result: `${decoder.toFixed(0)} MB/s`,
          baseline: `${memory.toFixed(0)} MB/s`,
          ratio: fmtX(decoder / memory),
          target: "info",
        });
        ctx.row({
          scenario: "1 layers: bare HTTP loop + Map cache vs bare JSON.parse (in memory)",
          runtime,
          n,
          result: `${retain.toFixed(0)} MB/s`,
          baseline: `${memory.toFixed(0)} MB/s`,
          ratio: fmtX(retain / memory),
          target: "info",
        });
      }
    }
  },
  steps: { decode },
} satisfies Scenario;
