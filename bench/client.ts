/**
 * One benchmark measurement per process, against the bench server (bench/server.ts) over
 * loopback HTTP. Run by scripts/bench.mjs on Deno, Bun and Node; prints one line
 * `BENCH_RESULT {json}`.
 *
 *   <runtime> bench/client.ts <scenario> --url http://127.0.0.1:PORT [options]
 *
 * Scenarios: `decode`, `sync`, `fanout`, `slow`, `checkpoint`, `cold` (see each function).
 * @module
 */
import { createInformer, type InformerEvent, type SharedInformer } from "../src/cache/mod.ts";
import { KubeClient, pods } from "../src/client/mod.ts";
import { decodeWatchStream } from "../src/watch/mod.ts";
import type { KubeObject } from "../src/client/types.ts";
import { bareParseLines, bareStreamLines, stripManagedFields } from "./fixtures.ts";
import {
  args,
  gc,
  heapAfterGc,
  heapUsed,
  numberOption,
  option,
  report,
  runtime,
} from "./_runtime.ts";

const url = option("url");
const now = (): number => performance.now();

/** Reads events from `events` until `stop` says so; resolves with the time `stop` said so. */
async function consume(
  events: AsyncIterableIterator<InformerEvent<KubeObject>>,
  stop: (ev: InformerEvent<KubeObject>) => boolean,
): Promise<number> {
  for await (const ev of events) if (stop(ev)) break;
  return now();
}

/** Time (ms) for one informer to sync, then deliver `m` MODIFIED events to one `events()` listener. */
async function informerBurst(m: number): Promise<number> {
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

/**
 * Scenario 1: decode + deliver `--events M` MODIFIED events (after a list of the server's N
 * pods), against two baselines over the same bytes: the bare parse of the body in memory, and
 * a minimal fetch + split + JSON.parse loop over HTTP. Best of `--reps`. With `--layers 1`,
 * also the layers in between, to tell where the time goes: the decoder alone over HTTP
 * (`decodeWatchStream`, objects dropped) and the bare HTTP loop keeping every object in a
 * `Map` by key, as any cache must (what that costs is the runtime's garbage collector).
 */
async function decode(): Promise<unknown> {
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
    best.informer = Math.min(best.informer!, await informerBurst(m));
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

/**
 * Scenario 2 (and 5): start -> synced of one implementation in a fresh process, and the heap
 * it holds after a forced GC. `--impl`: `kinformer`, `kinformer-transform` (managedFields
 * stripped), `kinformer-stream` (`initialList: "stream"`: one watch with initial events instead
 * of a paged LIST), `bare` (paged fetch + JSON.parse, items kept in an array), `client-node`
 * (@kubernetes/client-node makeInformer, Node only).
 */
async function sync(): Promise<unknown> {
  const impl = option("impl");
  const expected = numberOption("pods");
  let keep: unknown;
  let count = 0;
  // client-node's module graph is large: load it before the clock and the heap baseline.
  const clientNode = impl === "client-node"
    ? await (await import("./client_node.ts")).loadClientNodeInformer()
    : undefined;
  const before = heapAfterGc();
  const t0 = now();
  switch (impl) {
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

/**
 * Scenario 3: `--listeners L` `events()` listeners on one informer; time from the moment all
 * of them have seen `synced` until all have received `--events M` MODIFIED events. Best of
 * `--reps`.
 */
async function fanout(): Promise<unknown> {
  const m = numberOption("events");
  const listeners = numberOption("listeners");
  const reps = numberOption("reps", 3);
  let best = Infinity;
  for (let r = 0; r < reps; r++) {
    gc();
    const informer = createInformer(new KubeClient({ server: `${url}/burst/${m}` }), {
      resource: pods,
    });
    let synced = 0;
    let t0 = 0;
    const done: Promise<number>[] = [];
    for (let i = 0; i < listeners; i++) {
      let n = 0;
      done.push(consume(informer.events(), (ev) => {
        if (ev.type === "synced") {
          if (++synced === listeners) t0 = now();
        } else if (ev.type === "update") return ++n === m;
        return false;
      }));
    }
    informer.start();
    const ends = await Promise.all(done);
    best = Math.min(best, Math.max(...ends) - t0);
    await informer.stop();
  }
  return { listeners, events: m, ms: best, perEventPerListenerNs: (best * 1e6) / (m * listeners) };
}

/**
 * Scenario 4: one listener stalls (never reads) while `--events M` events arrive; a second
 * listener reads them all and samples the heap (after GC) and the stalled backlog at every
 * quarter. `--policy`: `grow`, `coalesce`, or `none` (no stalled listener: the baseline).
 */
async function slow(): Promise<unknown> {
  const m = numberOption("events");
  const policy = option("policy");
  const informer = createInformer(new KubeClient({ server: `${url}/burst/${m}` }), {
    resource: pods,
  });
  const reader = informer.events();
  let stalled: AsyncIterableIterator<InformerEvent<KubeObject>> | undefined;
  if (policy === "grow" || policy === "coalesce") stalled = informer.events({ overflow: policy });
  else if (policy !== "none") throw new TypeError(`unknown --policy ${policy}`);
  const backlog = (): number => stalled === undefined ? 0 : informer.health().listeners[1]!.backlog;
  informer.start();
  const samples: { events: number; heap: number; backlog: number }[] = [];
  let n = 0;
  await consume(reader, (ev) => {
    if (ev.type === "synced") samples.push({ events: 0, heap: heapAfterGc(), backlog: backlog() });
    else if (ev.type === "update" && ++n % (m / 4) === 0) {
      samples.push({ events: n, heap: heapAfterGc(), backlog: backlog() });
    }
    return n === m;
  });
  await informer.stop();
  return { policy, events: m, samples };
}

/** Reads a file with the runtime's own API (what a cold-starting job would use). */
async function readText(path: string): Promise<string> {
  const g = globalThis as unknown as {
    Deno?: { readTextFile(path: string): Promise<string> };
    Bun?: { file(path: string): { text(): Promise<string> } };
  };
  if (g.Deno !== undefined) return await g.Deno.readTextFile(path);
  if (g.Bun !== undefined) return await g.Bun.file(path).text();
  const { readFile } = await import("node:fs/promises");
  return await readFile(path, "utf8");
}

/** Scenario 7, step 1: sync, then write `checkpoint({ includeObjects: true })` as JSON to `--file`. */
async function checkpoint(): Promise<unknown> {
  const { writeFile } = await import("node:fs/promises");
  const informer = createInformer(new KubeClient({ server: url }), { resource: pods });
  informer.start();
  await informer.waitForSync();
  const text = JSON.stringify(informer.checkpoint({ includeObjects: true }));
  await writeFile(option("file"), text);
  await informer.stop();
  return { bytes: text.length, objects: informer.store.size };
}

/**
 * Scenario 7, step 2, in a fresh process: cold start of an informer, `--mode resume` (read and
 * parse the checkpoint file, `resumeFrom`) or `--mode list` (full LIST). Measures the first
 * event of a listener that wants the cache (`replayCache: true`), `waitForSync()`, and the
 * moment it has caught up with the server (`until: "current"`, after the changes made since
 * the checkpoint).
 */
async function cold(): Promise<unknown> {
  const mode = option("mode");
  const t0 = now();
  let resumeFrom: unknown;
  if (mode === "resume") resumeFrom = JSON.parse(await readText(option("file")));
  else if (mode !== "list") throw new TypeError(`unknown --mode ${mode}`);
  const informer: SharedInformer = createInformer(new KubeClient({ server: url }), {
    resource: pods,
    ...(resumeFrom === undefined ? {} : { resumeFrom: resumeFrom as never }),
  });
  const first = informer.events({ replayCache: true }).next().then(now);
  const current = consume(informer.events({ until: "current", replayCache: false }), () => false);
  informer.start();
  const synced = informer.waitForSync().then(now);
  const result = {
    mode,
    firstEventMs: (await first) - t0,
    syncedMs: (await synced) - t0,
    currentMs: (await current) - t0,
    objects: informer.store.size,
  };
  await informer.stop();
  return result;
}

const scenarios: Record<string, () => Promise<unknown>> = {
  decode,
  sync,
  fanout,
  slow,
  checkpoint,
  cold,
};
const name = args()[0] ?? "";
const run = scenarios[name];
if (run === undefined) throw new TypeError(`unknown scenario ${JSON.stringify(name)}`);
const result = await run();
report({ scenario: name, runtime, heapUsed: heapUsed(), ...(result as object) });
