/**
 * Scenario 1: decode + deliver M MODIFIED watch events (after a list of the server's N pods) to
 * one `events()` listener, against baselines over the same bytes: the bare parse of the body in
 * memory, and the fair minimal watch loop
 * of issue 33 (`byteLineCache`: fetch, lines cut on `\n` bytes, `JSON.parse`, every object kept
 * in a `Map` by namespace/name, as any cache must; what keeping them costs is the runtime's
 * garbage collector), whose throughput the informer must reach within 5% (on Deno and Bun;
 * Node's own transport is measured against `node:http` in `node_transport`). At the first size,
 * also the decoder alone over HTTP (`decodeWatchStream`, objects dropped).
 *
 * The informer and the loop are timed under the same conditions (each difference removed is one
 * that made the ratio swing by up to 30% between runs):
 *
 * - **Same window.** Both clocks start when the watch request is made (the informer's in the
 *   client's `fetch` option, which then calls the global `fetch`) and stop at the M-th event
 *   handed on (to the listener; into the `Map`). The informer's request waits until its
 *   listener has taken the list (N `add`s, then `synced`), which it would otherwise still be
 *   delivering, about 5% into the window. Its window was from its `synced` event before: the
 *   watch request had gone out some 300 ms earlier, GC debt of the list came after.
 * - **Same heap.** Each holds a cache of the N pods when its clock starts: the informer its
 *   synced store, the loop a `Map` filled from one LIST of the same pods (a loop that starts on
 *   an empty heap collects less, and less often). Both then replace those objects event by event.
 * - **No GC debt.** A full collection right before each clock starts: the informer's window
 *   used to begin just after a 50k-pod LIST whose garbage was then collected inside it.
 * - **Warm-up and order.** One informer run, not measured, comes first: it compiles the
 *   informer's code (the loop's few lines are hot after its first events), and the loop no
 *   longer has the process's fresh heap to itself. Without it the informer's times fell and the
 *   loop's rose round by round (Deno, 50k: informer 8.2, 7.2, 7.4 s; loop 3.4, 5.5, 5.5 s), and
 *   each side's best paired a cold informer with a fresh-heap loop. Then the rounds alternate
 *   which goes first, and each side keeps its best; every sample is kept in the raw results
 *   (`samples`) to show the spread.
 * - CPU time (every thread of the process) is recorded next to wall time for each window
 *   (`cpuMs`, and a row of its own): on a shared machine wall time includes waiting for a
 *   core, CPU time does not.
 *
 * With the layers (first size), the informer also runs with `memory: "plain"` in the same
 * rounds: the informer sharing no values, which shows what sharing costs the watch (on Deno
 * and Bun, most of the informer's remaining gap to the loop).
 * @module
 */
import { type CacheMemoryMode, createInformer } from "../../src/cache/mod.ts";
import { KubeClient, pods } from "../../src/client/mod.ts";
import type { KubeObject } from "../../src/client/types.ts";
import { decodeWatchStream } from "../../src/watch/mod.ts";
import { bareParseLines, byteLineCache } from "../fixtures.ts";
import { cpuMs, heapAfterGc, numberOption, option } from "../_runtime.ts";
import { now } from "../_measure.ts";
import { fmtN, fmtX } from "../_format.ts";
import type { Scenario } from "../_scenario.ts";

const DECODE_EVENTS = 100_000;

/** One measured window: wall and CPU time (ms), the events it saw, the heap it started on. */
interface Window {
  ms: number;
  cpuMs: number;
  events: number;
  heapAtStart: number;
}

/** A clock started after a full collection; `stop()` reads the window. */
function startClock(): { stop(events: number): Window } {
  const heapAtStart = heapAfterGc();
  const cpu0 = cpuMs();
  const t0 = now();
  return { stop: (events) => ({ ms: now() - t0, cpuMs: cpuMs() - cpu0, events, heapAtStart }) };
}

/**
 * One informer syncs N pods, then is timed from its watch request to its M-th `update`. The
 * reflector makes its watch request as soon as the list is in the store, while the listener
 * still has the list's N `add`s to take: the request waits (in the client's `fetch`) until the
 * listener has taken `synced`, so that delivering the list is not counted as watching.
 */
async function informerWatch(
  url: string,
  m: number,
  memory: CacheMemoryMode = "shared",
): Promise<Window> {
  let listTaken!: () => void;
  const listed = new Promise<void>((resolve) => (listTaken = resolve));
  let clock: ReturnType<typeof startClock> | undefined;
  let watching = false;
  const client = new KubeClient({
    server: `${url}/burst/${m}`,
    fetch: async (request) => {
      if (!watching && new URL(request.url).searchParams.has("watch")) {
        watching = true;
        await listed;
        clock = startClock();
      }
      return await fetch(request);
    },
  });
  const informer = createInformer(client, { resource: pods, memory });
  informer.start();
  let n = 0;
  for await (const ev of informer.events()) {
    if (ev.type === "synced") listTaken();
    else if (ev.type === "update" && ++n === m) break;
  }
  const window = clock?.stop(n);
  await informer.stop();
  if (window === undefined) throw new Error("the informer made no watch request");
  return window;
}

/** The minimal loop: a `Map` filled from one LIST, then timed from its watch request. */
async function loopWatch(url: string, m: number): Promise<Window> {
  const list = await (await fetch(`${url}/api/v1/pods`)).json() as { items: KubeObject[] };
  const cache = new Map<string, KubeObject>();
  for (const pod of list.items) cache.set(`${pod.metadata.namespace}/${pod.metadata.name}`, pod);
  list.items = [];
  const clock = startClock();
  const response = await fetch(`${url}/raw/burst/${m}`);
  return clock.stop(await byteLineCache(response.body!, m, cache));
}

/**
 * `--url --events M --reps R --layers 0|1`: R rounds of each measurement, informer and loop in
 * alternating order; the best window of each, and every sample.
 */
async function decode(): Promise<unknown> {
  const url = option("url");
  const m = numberOption("events");
  const reps = numberOption("reps", 3);
  const layers = numberOption("layers", 0) === 1;
  const raw = await fetch(`${url}/raw/burst/${m}`);
  const bytes = new Uint8Array(await raw.arrayBuffer());
  const samples: Record<string, Window[]> = { informer: [], memory: [], httpRetain: [] };
  const measure = async (name: string, run: () => Promise<Window>): Promise<void> => {
    const window = await run();
    if (window.events !== m) throw new Error(`${name}: ${window.events} of ${m} events`);
    (samples[name] ??= []).push(window);
  };
  const round: (() => Promise<void>)[] = [
    () => measure("informer", () => informerWatch(url, m)),
    () => measure("httpRetain", () => loopWatch(url, m)),
  ];
  // The informer sharing nothing (what the value sharing costs the watch): a layer.
  if (layers) round.push(() => measure("informerPlain", () => informerWatch(url, m, "plain")));
  // Warm-up, not measured (see the module doc).
  await informerWatch(url, m);
  for (let r = 0; r < reps; r++) {
    for (const run of r % 2 === 0 ? round : round.toReversed()) await run();
    await measure("memory", () => {
      const clock = startClock();
      return Promise.resolve(clock.stop(bareParseLines(bytes)));
    });
    if (!layers) continue;
    await measure("decoder", async () => {
      const clock = startClock();
      let n = 0;
      const response = await fetch(`${url}/raw/burst/${m}`);
      for await (const ev of decodeWatchStream(response.body!)) if (ev.type === "MODIFIED") n++;
      return clock.stop(n);
    });
  }
  const best = (pick: (w: Window) => number): Record<string, number> =>
    Object.fromEntries(
      Object.entries(samples).map(([name, ws]) => [name, Math.min(...ws.map(pick))]),
    );
  return {
    events: m,
    bytes: bytes.length,
    ms: best((w) => w.ms),
    cpuMs: best((w) => w.cpuMs),
    samples,
  };
}

export default {
  name: "decode",
  order: 1,
  settings: { decodeEvents: DECODE_EVENTS },
  bursts: () => [DECODE_EVENTS],
  async withServer(ctx, server, n) {
    // At least two rounds, so that each side runs once first and once second.
    const reps = ctx.quick ? 2 : 3;
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
      // The same ratio in CPU time (every thread): what each spends, whatever else runs.
      const cpu = r.cpuMs.httpRetain / r.cpuMs.informer;
      ctx.row({
        scenario: "1 watch CPU per event: decode+deliver vs fetch byte loop + Map",
        runtime,
        n,
        result: `${(r.cpuMs.informer * 1000 / r.events).toFixed(1)} us/ev`,
        baseline: `${(r.cpuMs.httpRetain * 1000 / r.events).toFixed(1)} us/ev`,
        ratio: fmtX(cpu),
        target: "info",
      });
      if (r.ms.informerPlain !== undefined) {
        const plain = mbps(r.ms.informerPlain);
        ctx.row({
          scenario:
            '1 layers: decode+deliver, memory "plain" (no value sharing) vs fetch byte loop + Map',
          runtime,
          n,
          result: `${plain.toFixed(0)} MB/s, CPU ${
            fmtX(r.cpuMs.httpRetain / r.cpuMs.informerPlain)
          }`,
          baseline: `${retain.toFixed(0)} MB/s`,
          ratio: fmtX(plain / retain),
          target: "info",
        });
      }
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
