/**
 * Scenario 1: decode + deliver M MODIFIED watch events (after a list of the server's N pods) to
 * one `events()` listener, against two baselines over the same bytes: the bare parse of the
 * body in memory, and a minimal fetch + split + JSON.parse loop over HTTP. At the first size,
 * also the layers in between, to tell where the time goes: the decoder alone over HTTP
 * (`decodeWatchStream`, objects dropped) and the bare HTTP loop keeping every object in a `Map`
 * by key, as any cache must (what that costs is the runtime's garbage collector).
 * @module
 */
import { createInformer } from "../../src/cache/mod.ts";
import { KubeClient, pods } from "../../src/client/mod.ts";
import { decodeWatchStream } from "../../src/watch/mod.ts";
import type { KubeObject } from "../../src/client/types.ts";
import { bareParseLines, bareStreamLines } from "../fixtures.ts";
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
  const best: Record<string, number> = { informer: Infinity, memory: Infinity, http: Infinity };
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
    await measure("http", async () => {
      let n = 0;
      const response = await fetch(`${url}/raw/burst/${m}`);
      await bareStreamLines(response.body!, () => {
        n++;
      });
      return n;
    });
    if (!layers) continue;
    await measure("decoder", async () => {
      let n = 0;
      const response = await fetch(`${url}/raw/burst/${m}`);
      for await (const ev of decodeWatchStream(response.body!)) if (ev.type === "MODIFIED") n++;
      return n;
    });
    await measure("httpRetain", async () => {
      const cache = new Map<string, KubeObject>();
      let n = 0;
      const response = await fetch(`${url}/raw/burst/${m}`);
      await bareStreamLines(response.body!, (ev) => {
        cache.set(`${ev.object.metadata.namespace}/${ev.object.metadata.name}`, ev.object);
        n++;
      });
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
      const http = mbps(r.ms.http);
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
      ctx.row({
        scenario: "1 decode+deliver vs fetch+split+parse loop",
        runtime,
        n,
        result,
        baseline: `${http.toFixed(0)} MB/s, ${(eps(r.ms.http) / 1000).toFixed(1)}k ev/s`,
        ratio: fmtX(informer / http),
        target: "info",
      });
      if (r.ms.decoder !== undefined && r.ms.httpRetain !== undefined) {
        const decoder = mbps(r.ms.decoder);
        const retain = mbps(r.ms.httpRetain);
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
        ctx.row({
          scenario: "1 layers: decode+deliver vs bare HTTP loop + Map cache",
          runtime,
          n,
          result: `${informer.toFixed(0)} MB/s`,
          baseline: `${retain.toFixed(0)} MB/s`,
          ratio: fmtX(informer / retain),
          target: "info",
        });
      }
    }
  },
  steps: { decode },
} satisfies Scenario;
