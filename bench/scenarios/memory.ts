/**
 * Scenario 14: the cache's memory (issue 33, items 4-6). In fresh processes on each runtime,
 * the informer in each `memory` mode (`shared`, the default; `compact`; `plain`, objects as
 * decoded) next to @kubernetes/client-node's informer and the bare paged fetch + JSON.parse
 * loop keeping the items in an array:
 *
 * - the heap held after sync (forced GC), and the peak heap during the sync, sampled every
 *   5 ms (garbage included: what the process must have room for);
 * - the peak heap during a relist (the bench server ends the watch with 410 Expired when
 *   asked: a paged list again, replacing the cache) against the settled heap;
 * - the read cost: `store.get` of random keys (cold for the compact cache's recent objects),
 *   and `store.list()`;
 * - watch throughput: M MODIFIED events decoded and delivered to a handler, per mode, next to
 *   the minimal fetch + split + JSON.parse loop over the same bytes (`plain` is the informer
 *   as it was before objects were shared).
 * @module
 */
import { createInformer } from "../../src/cache/mod.ts";
import type { CacheMemoryMode } from "../../src/cache/mod.ts";
import { KubeClient, pods } from "../../src/client/mod.ts";
import { bareParseLines, byteLineCache } from "../fixtures.ts";
import { gc, heapAfterGc, heapUsed, numberOption, option } from "../_runtime.ts";
import { now } from "../_measure.ts";
import { fmtMB, fmtMs, fmtN, fmtX } from "../_format.ts";
import type { BenchContext, BenchServer, ClientResult, Scenario } from "../_scenario.ts";

const MODES: readonly CacheMemoryMode[] = ["shared", "compact", "plain"];
const SYNC_IMPLS = [...MODES, "bare", "client-node"];
const EVENTS = 20_000;
const READS = 20_000;
const SAMPLE_MS = 5;

/** Samples the heap every 5 ms; `peak()` is the highest sample (and one taken now). */
function heapSampler(): { peak(): number; stop(): void } {
  let peak = heapUsed();
  const timer = setInterval(() => {
    const h = heapUsed();
    if (h > peak) peak = h;
  }, SAMPLE_MS);
  return {
    peak: () => Math.max(peak, heapUsed()),
    stop: () => clearInterval(timer),
  };
}

/**
 * POSTs the bench server's expiry. Retried once on a network error: after the reads (seconds
 * in compact mode) the pooled connection may be the one the server is closing as idle, and
 * undici then fails the request with "other side closed" (a race of the driver's own fetch,
 * not of the informer, which retries its requests itself).
 */
async function expire(url: string): Promise<void> {
  try {
    await fetch(url, { method: "POST" }).then((r) => r.text());
  } catch {
    await fetch(url, { method: "POST" }).then((r) => r.text());
  }
}

/** Resolves once `check()` holds, polling every 10 ms. */
async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((r) => setTimeout(r, 10));
}

/**
 * `--url --impl I --pods N --reads K`: sync (peak and settled heap), then for the informer modes
 * the read cost and a relist (peak and settled heap).
 */
async function sync(): Promise<unknown> {
  const url = option("url");
  const impl = option("impl");
  const expected = numberOption("pods");
  const reads = numberOption("reads", READS);
  const clientNode = impl === "client-node"
    ? await (await import("../client_node.ts")).loadClientNodeInformer()
    : undefined;
  const before = heapAfterGc();
  let sampler = heapSampler();
  const t0 = now();
  let keep: unknown;
  let count = 0;
  const out: Record<string, unknown> = { impl };
  if (impl === "bare") {
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
  } else if (impl === "client-node") {
    const informer = await clientNode!(url);
    count = informer.list().length;
    keep = informer;
  } else {
    const id = Math.random().toString(36).slice(2);
    const informer = createInformer(new KubeClient({ server: `${url}/relist/${id}` }), {
      resource: pods,
      memory: impl as CacheMemoryMode,
    });
    informer.start();
    await informer.waitForSync();
    count = informer.store.size;
    out.syncMs = now() - t0;
    sampler.stop();
    out.syncPeak = sampler.peak() - before;
    out.heap = heapAfterGc() - before;
    out.estimatedBytes = informer.health().memory.estimatedBytes;
    // Reads: random keys (cold for the compact cache's recent objects), then a whole list.
    const keys = informer.store.listKeys();
    let seed = 7;
    const pick = (): string => keys[(seed = (seed * 1103515245 + 12345) >>> 0) % keys.length]!;
    const sample = Array.from({ length: reads }, pick);
    let t = now();
    let names = 0;
    for (const key of sample) names += informer.store.get(key)!.metadata.name!.length;
    out.getUs = (now() - t) * 1000 / reads;
    t = now();
    names += informer.store.list().length;
    out.listMs = now() - t;
    out.checksum = names;
    // A relist: the server ends the watch with 410 Expired; the informer lists again.
    gc();
    const settled = heapUsed();
    sampler = heapSampler();
    t = now();
    await expire(`${url}/bench/expire?id=${id}`);
    await until(() => informer.health().lists >= 2);
    out.relistMs = now() - t;
    sampler.stop();
    out.relistPeak = sampler.peak() - before;
    out.relistPeakOverSettled = (sampler.peak() - before) / (settled - before);
    out.heapAfterRelist = heapAfterGc() - before;
    if (informer.store.size < expected) throw new Error(`relist kept ${informer.store.size}`);
    await informer.stop();
    return { ...out, objects: count };
  }
  out.syncMs = now() - t0;
  sampler.stop();
  out.syncPeak = sampler.peak() - before;
  if (count < expected) throw new Error(`${impl} synced ${count} of ${expected} pods`);
  out.heap = heapAfterGc() - before;
  return { ...out, objects: count, kept: keep !== undefined };
}

/**
 * `--url --events M --mode shared|compact|plain|baseline`: ms to deliver M MODIFIED events to a
 * handler after the sync, in a fresh process per mode (so no mode runs warmer than another);
 * `baseline`: the fetch + split + JSON.parse loop and the in-memory parse of the same bytes.
 */
async function events(): Promise<unknown> {
  const url = option("url");
  const m = numberOption("events");
  const mode = option("mode");
  if (mode === "baseline") {
    gc();
    let t = now();
    const response = await fetch(`${url}/raw/burst/${m}`);
    // The fair minimal loop (bench/fixtures.ts): bytes cut on \n, each line parsed into a Map.
    const n = await byteLineCache(response.body!, m);
    const http = now() - t;
    const bytes = new Uint8Array(await (await fetch(`${url}/raw/burst/${m}`)).arrayBuffer());
    gc();
    t = now();
    if (bareParseLines(bytes) !== m || n !== m) throw new Error("baseline miscounted");
    return { events: m, ms: { http, parse: now() - t } };
  }
  const informer = createInformer(new KubeClient({ server: `${url}/burst/${m}` }), {
    resource: pods,
    memory: mode as CacheMemoryMode,
  });
  let n = 0;
  const done = new Promise<number>((resolve) => {
    informer.addEventHandler({
      onUpdate: () => {
        if (++n === m) resolve(now());
      },
    });
  });
  informer.start();
  await informer.waitForSync();
  const t0 = now(); // the watch (the burst) starts once the list is in
  const ms = (await done) - t0;
  await informer.stop();
  return { events: m, ms: { [mode]: ms } };
}

/** One size's rows on one runtime. */
function rows(
  ctx: BenchContext,
  runtime: string,
  n: number,
  r: Record<string, ClientResult>,
): void {
  const at50k = n === 50_000;
  const row = (
    scenario: string,
    result: string,
    baseline: string,
    x: number,
    target?: { text: string; holds: boolean },
  ): void =>
    ctx.row({
      scenario,
      runtime,
      n,
      result,
      baseline,
      ratio: fmtX(x),
      target: target !== undefined && at50k ? target.text : "info",
      holds: target !== undefined && at50k ? target.holds : undefined,
    });
  const cn = r["client-node"];
  const bare = r.bare;
  for (const mode of MODES) {
    const m = r[mode];
    if (m === undefined) continue;
    const target = mode === "shared" ? 0.65 : mode === "compact" ? 0.5 : undefined;
    if (cn !== undefined) {
      const x = m.heap / cn.heap;
      row(
        `14 heap after sync (memory: ${mode}) vs client-node`,
        fmtMB(m.heap),
        fmtMB(cn.heap),
        x,
        target === undefined ? undefined : { text: `<= ${target}x`, holds: x <= target },
      );
    }
    if (bare !== undefined) {
      row(
        `14 heap after sync (memory: ${mode}) vs bare parsed items`,
        fmtMB(m.heap),
        fmtMB(bare.heap),
        m.heap / bare.heap,
      );
    }
    const peakX = m.syncPeak / m.heap;
    row(
      `14 peak heap during sync (memory: ${mode}) vs its settled heap`,
      fmtMB(m.syncPeak),
      fmtMB(m.heap),
      peakX,
      mode === "shared" ? { text: "<= 1.3x", holds: peakX <= 1.3 } : undefined,
    );
    if (cn !== undefined) {
      const x = m.syncPeak / cn.syncPeak;
      row(
        `14 peak heap during sync (memory: ${mode}) vs client-node's peak`,
        fmtMB(m.syncPeak),
        fmtMB(cn.syncPeak),
        x,
        mode === "shared" ? { text: "< 1x", holds: x < 1 } : undefined,
      );
    }
    const relistX = m.relistPeak / m.heap;
    row(
      `14 peak heap during relist (memory: ${mode}) vs its settled heap`,
      fmtMB(m.relistPeak),
      fmtMB(m.heap),
      relistX,
      mode === "shared" ? { text: "<= 1.3x", holds: relistX <= 1.3 } : undefined,
    );
    row(
      `14 estimated cache bytes (health) vs measured heap (memory: ${mode})`,
      fmtMB(m.estimatedBytes),
      fmtMB(m.heap),
      m.estimatedBytes / m.heap,
    );
  }
  const shared = r.shared;
  const compact = r.compact;
  if (shared !== undefined && compact !== undefined) {
    row(
      "14 read: store.get of a random key (compact vs shared)",
      `${compact.getUs.toFixed(2)} us`,
      `${shared.getUs.toFixed(2)} us`,
      compact.getUs / shared.getUs,
    );
    const burst = r.events;
    if (burst !== undefined) {
      // What a list of the compact cache costs against a bare JSON.parse of as many pods (the
      // in-memory parse of the watch burst, per pod): the decoding is the whole price.
      const parseMs = burst.ms.parse / burst.events * compact.objects;
      row(
        "14 read: store.list() (memory: compact) vs bare JSON.parse of as many pods",
        fmtMs(compact.listMs),
        fmtMs(parseMs),
        compact.listMs / parseMs,
      );
    }
    row(
      "14 sync time (memory: compact) vs shared",
      fmtMs(compact.syncMs),
      fmtMs(shared.syncMs),
      compact.syncMs / shared.syncMs,
    );
  }
  if (shared !== undefined && r.plain !== undefined) {
    row(
      "14 sync time (memory: shared) vs plain",
      fmtMs(shared.syncMs),
      fmtMs(r.plain.syncMs),
      shared.syncMs / r.plain.syncMs,
    );
  }
  const ev = r.events;
  if (ev !== undefined) {
    const eps = (ms: number): string => `${(ev.events / ms).toFixed(1)}k ev/s`;
    for (const mode of ["shared", "compact"]) {
      row(
        `14 watch events/s (memory: ${mode}) vs plain (objects as decoded)`,
        eps(ev.ms[mode]),
        eps(ev.ms.plain),
        ev.ms.plain / ev.ms[mode],
      );
    }
    row(
      "14 watch events/s (memory: shared) vs fetch+split+parse loop",
      eps(ev.ms.shared),
      eps(ev.ms.http),
      ev.ms.http / ev.ms.shared,
    );
    row(
      "14 watch events/s (memory: shared) vs bare JSON.parse (in memory)",
      eps(ev.ms.shared),
      eps(ev.ms.parse),
      ev.ms.parse / ev.ms.shared,
    );
  }
}

export default {
  name: "memory",
  order: 14,
  settings: { memoryEvents: EVENTS, memoryReads: READS, heapSampleMs: SAMPLE_MS },
  bursts: () => [EVENTS],
  async withServer(ctx: BenchContext, server: BenchServer, n: number) {
    for (const runtime of ctx.runtimes) {
      ctx.log(`memory ${runtime} N=${fmtN(n)}: ${SYNC_IMPLS.join(", ")}, events`);
      const r: Record<string, ClientResult> = {};
      for (const impl of SYNC_IMPLS) {
        const result = await ctx.client(runtime, "memory/sync", [
          "--url",
          server.url,
          "--impl",
          impl,
          "--pods",
          String(n),
          "--reads",
          String(READS),
        ]);
        if (result !== undefined) r[impl] = result;
      }
      // Watch throughput: each mode in fresh processes, alternating, best of two.
      const ms: Record<string, number> = {};
      for (let rep = 0; rep < 2; rep++) {
        for (const mode of [...MODES, "baseline"]) {
          const result = await ctx.client(runtime, "memory/events", [
            "--url",
            server.url,
            "--events",
            String(EVENTS),
            "--mode",
            mode,
          ]);
          for (const [k, v] of Object.entries(result?.ms ?? {})) {
            ms[k] = Math.min(ms[k] ?? Infinity, v as number);
          }
        }
      }
      if (Object.keys(ms).length === MODES.length + 2) r.events = { events: EVENTS, ms };
      ctx.raw.memory!.push({ n, runtime, ...r });
      rows(ctx, runtime, n, r);
    }
  },
  steps: { sync, events },
} satisfies Scenario;
