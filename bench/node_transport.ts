/**
 * Node transport benchmark (issue 14): kinformer on Node with its own `node:http` transport
 * (`createNodeFetch`, whose watch body skips Web streams) and with Node's global `fetch`, each
 * next to baselines measured in the same run:
 *
 * - watch: M `MODIFIED` events of ~3 KB (default 100,000) over K pods (10,000), decoded and
 *   delivered to one `events()` listener, against the fair minimal loop (issue 33): `node:http`,
 *   lines cut on `\n` bytes, each decoded and `JSON.parse`d, the objects kept in a `Map` by
 *   namespace/name; the same loop on `fetch`; the text loop the bench used before (utf8
 *   `setEncoding` + string `split`, informational); client-node's informer; and `JSON.parse`
 *   alone (the lines already in memory);
 * - initial sync of N pods (default 50,000): kinformer's paged, pipelined LIST against
 *   client-node's `makeInformer` and a bare sequential paged `node:http` GET + `JSON.parse`.
 *
 * Self-contained: `node bench/node_transport.ts` (Node 24, which runs .ts itself) starts the
 * server in a child process and measures every row in a fresh child process (best of
 * `--runs`, default 3), then prints the table. Options: `--events M --watch-pods K --pods N
 * --runs R --json FILE`, and `--only watch|sync|<row>` for some rows (raw times, no table).
 * Takes about 3 minutes with the defaults.
 * @module
 */
import { Buffer } from "node:buffer";
import { type ChildProcess, spawn } from "node:child_process";
import { writeFile } from "node:fs/promises";
import http from "node:http";
import os from "node:os";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { createInformer } from "../src/cache/mod.ts";
import { KubeClient, pods } from "../src/client/mod.ts";
import type { KubeObject } from "../src/client/types.ts";
import { createNodeFetch } from "../src/adapters/node/fetch.ts";
import { serve } from "../src/adapters/node/serve.ts";
import { SimulatedCluster } from "../packages/simulator/src/cluster/simulated_cluster.ts";
import { clientNodeInformer, loadClientNode } from "./client_node.ts";
import { buildWatchBurst, byteLineCache, ByteLines, podFixture } from "./fixtures.ts";

const SELF = fileURLToPath(import.meta.url);

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
}
function argText(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

const EVENTS = arg("events", 100_000);
const WATCH_PODS = arg("watch-pods", 10_000);
const SYNC_PODS = arg("pods", 50_000);
const RUNS = arg("runs", 3);

// ------------------------------------------------------------------------------------------
// The server (child process): two simulated clusters under URL prefixes.
//   /sync/...            a cluster of SYNC_PODS pods
//   /watch/...           a cluster of WATCH_PODS pods; its watches get a pre-built body of
//                        EVENTS MODIFIED events, then stay open and silent
//   /raw                 the same events as a body that ends (baselines)
// The pre-built bodies are written by a plain node:http front server, which passes the rest
// (the watch cluster's lists) through to the simulator's adapter; the sync rows talk to the
// adapter directly.

/**
 * Writes the burst straight to the socket (64 KiB writes, waiting for `drain`), so that the
 * server is never what limits a decode measurement; `hold` keeps the response open afterwards.
 */
async function writeBurst(
  res: http.ServerResponse,
  chunks: Uint8Array[],
  hold: boolean,
): Promise<void> {
  res.writeHead(200, { "content-type": "application/json" });
  for (const chunk of chunks) {
    if (res.destroyed) return;
    if (!res.write(chunk)) {
      await new Promise<void>((resolve) => {
        const done = (): void => {
          res.off("drain", done);
          res.off("close", done);
          resolve();
        };
        res.on("drain", done);
        res.on("close", done);
      });
    }
  }
  if (!hold) res.end();
}

async function runServer(): Promise<void> {
  const sync = new SimulatedCluster({ historyLimit: 10 });
  sync.seed(pods, SYNC_PODS, (i) => podFixture(i));
  const watch = new SimulatedCluster({ historyLimit: 10 });
  const seeded: KubeObject[] = [];
  watch.seed(pods, WATCH_PODS, (i) => {
    const pod = podFixture(i);
    seeded.push(pod);
    return pod;
  });
  const burst = buildWatchBurst(seeded.map((pod) => ({ kind: "Pod", apiVersion: "v1", ...pod })), {
    events: EVENTS,
    firstResourceVersion: Number(watch.resourceVersion) + 1,
  });
  const inner = (request: Request, prefix: string): Request => {
    const url = new URL(request.url);
    url.pathname = url.pathname.slice(prefix.length);
    return new Request(url, request);
  };
  // The simulated clusters, served by the node:http adapter, behind a front server that
  // answers watches and /raw with the pre-built bytes and passes everything else through.
  const simulated = await serve((request) => {
    const url = new URL(request.url);
    if (url.pathname.startsWith("/sync/")) return sync.fetch(inner(request, "/sync"));
    if (url.pathname.startsWith("/watch/")) return watch.fetch(inner(request, "/watch"));
    return new Response("not found", { status: 404 });
  });
  const backend = new URL(simulated.url);
  const agent = new http.Agent({ keepAlive: true });
  const front = http.createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://bench");
    const w = url.searchParams.get("watch");
    if (url.pathname === "/raw") return void writeBurst(res, burst.chunks, false);
    if (url.pathname.startsWith("/watch/") && (w === "1" || w === "true")) {
      return void writeBurst(res, burst.chunks, true);
    }
    const upstream = http.request({
      host: backend.hostname,
      port: backend.port,
      path: req.url,
      method: req.method,
      headers: req.headers,
      agent,
    }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      res.flushHeaders(); // a watch's head goes out before its first event
      answer.pipe(res);
    });
    upstream.on("error", () => res.destroy());
    req.pipe(upstream);
  });
  // Warm the list JSON (built lazily, once per object) before announcing readiness.
  await (await sync.fetch(new Request("http://bench/api/v1/pods"))).arrayBuffer();
  await (await watch.fetch(new Request("http://bench/api/v1/pods"))).arrayBuffer();
  await new Promise<void>((resolve) => front.listen(0, "127.0.0.1", resolve));
  const { port } = front.address() as { port: number };
  process.stdout.write(
    JSON.stringify({
      url: `http://127.0.0.1:${port}`,
      syncUrl: simulated.url,
      bytes: burst.bytes,
    }) + "\n",
  );
  process.stdin.on("end", () => {
    sync.close();
    watch.close();
    front.closeAllConnections();
    front.close();
    agent.destroy();
    void simulated.close().then(() => process.exit(0));
  });
  process.stdin.resume();
}

// ------------------------------------------------------------------------------------------
// The measurements (one per child process). Each prints `{ ms }` as its last line.

type Measure = (url: string) => Promise<number>;

/** CPU time at the start of the measured window (set by {@linkcode mark}). */
let cpuAtMark: NodeJS.CpuUsage | undefined;

/** Starts the measured window: returns the time, and notes the process's CPU time. */
function mark(): number {
  cpuAtMark = process.cpuUsage();
  return performance.now();
}

const keyOf = (o: { metadata?: { namespace?: string; name?: string } }): string =>
  `${o.metadata?.namespace}/${o.metadata?.name}`;

/** kinformer: events() listener, from synced to the EVENTS-th update. */
function kinformerWatch(transport: "node" | "fetch"): Measure {
  return async (url) => {
    const t = transport === "node" ? createNodeFetch() : undefined;
    const client = new KubeClient(
      t === undefined ? { server: `${url}/watch` } : { server: `${url}/watch`, fetch: t.fetch },
    );
    const informer = createInformer(client, { resource: pods });
    const controller = new AbortController();
    let started = 0;
    let seen = 0;
    informer.start({ signal: controller.signal });
    for await (const event of informer.events({ signal: controller.signal })) {
      if (event.type === "synced") started = mark();
      else if (event.type === "update" && ++seen === EVENTS) break;
    }
    const ms = performance.now() - started;
    controller.abort();
    await informer.stop();
    t?.close();
    return ms;
  };
}

/**
 * The minimal node:http loop, the fair baseline: cut lines on `\n` bytes, decode each line
 * (`Buffer#toString`), `JSON.parse`, keep the object in a Map by namespace/name. Until issue 33
 * the baseline was the text loop below, which pays for `setEncoding("utf8")` (a
 * `StringDecoder` over every chunk, then `split` of the joined text): about 1.4x the CPU of this
 * one, which made the informer look faster than a minimal loop (1.13x) when it was not (0.76x).
 */
const nodeHttpLoop: Measure = (url) =>
  new Promise((resolve, reject) => {
    const started = mark();
    const cache = new Map<string, unknown>();
    const lines = new ByteLines();
    let seen = 0;
    const onLine = (line: Uint8Array): void => {
      const bytes = Buffer.from(line.buffer, line.byteOffset, line.length);
      const event = JSON.parse(bytes.toString("utf8")) as { object: KubeObject };
      cache.set(keyOf(event.object), event.object);
      seen++;
    };
    http.get(`${url}/raw`, (res) => {
      res.on("data", (chunk: Buffer) => lines.push(chunk, onLine));
      res.on("end", () => {
        if (seen !== EVENTS) reject(new Error(`saw ${seen} events`));
        else resolve(performance.now() - started);
      });
    }).on("error", reject);
  });

/** The text loop (the baseline before issue 33): utf8 text, split on newlines, JSON.parse, Map. */
const nodeHttpTextLoop: Measure = (url) =>
  new Promise((resolve, reject) => {
    const started = mark();
    const cache = new Map<string, unknown>();
    let seen = 0;
    let rest = "";
    http.get(`${url}/raw`, (res) => {
      res.setEncoding("utf8");
      res.on("data", (text: string) => {
        const lines = (rest + text).split("\n");
        rest = lines.pop()!;
        for (const line of lines) {
          const event = JSON.parse(line) as { object: KubeObject };
          cache.set(keyOf(event.object), event.object);
          seen++;
        }
      });
      res.on("end", () => {
        if (seen !== EVENTS) reject(new Error(`saw ${seen} events`));
        else resolve(performance.now() - started);
      });
    }).on("error", reject);
  });

/** The same fair loop on the global fetch: bytes cut on `\n`, TextDecoder per line, Map. */
const fetchLoop: Measure = async (url) => {
  const started = mark();
  const response = await fetch(`${url}/raw`);
  const seen = await byteLineCache(response.body!, EVENTS);
  if (seen !== EVENTS) throw new Error(`saw ${seen} events`);
  return performance.now() - started;
};

/** JSON.parse alone, over the lines already in memory. */
const jsonParseAlone: Measure = async (url) => {
  const text = await (await fetch(`${url}/raw`)).text();
  const lines = text.split("\n");
  lines.pop();
  const started = mark();
  let sink = 0;
  for (const line of lines) sink += (JSON.parse(line) as { type: string }).type.length;
  const ms = performance.now() - started;
  if (sink === 0) throw new Error("nothing parsed");
  return ms;
};

/** client-node's makeInformer: from start() resolving (listed) to the EVENTS-th update. */
const clientNodeWatch: Measure = async (url) => {
  const informer = clientNodeInformer(await loadClientNode(), `${url}/watch`);
  let seen = 0;
  let started = 0;
  const done = new Promise<number>((resolve) => {
    informer.on("update", () => {
      if (++seen === EVENTS) resolve(performance.now() - started);
    });
  });
  await informer.start();
  started = mark();
  const ms = await done;
  await informer.stop();
  return ms;
};

/** kinformer initial sync: createInformer + waitForSync (paged LIST, 500 per page). */
function kinformerSync(transport: "node" | "fetch"): Measure {
  return async (url) => {
    const t = transport === "node" ? createNodeFetch() : undefined;
    const started = mark();
    const client = new KubeClient(
      t === undefined ? { server: `${url}/sync` } : { server: `${url}/sync`, fetch: t.fetch },
    );
    const informer = createInformer(client, { resource: pods });
    const controller = new AbortController();
    informer.start({ signal: controller.signal });
    await informer.waitForSync({ signal: controller.signal });
    const ms = performance.now() - started;
    if (informer.store.list().length !== SYNC_PODS) throw new Error("incomplete sync");
    controller.abort();
    await informer.stop();
    t?.close();
    return ms;
  };
}

/** client-node: makeInformer.start() (one unpaged list). */
const clientNodeSync: Measure = async (url) => {
  const k8s = await loadClientNode();
  const started = mark();
  const informer = clientNodeInformer(k8s, `${url}/sync`);
  await informer.start();
  const ms = performance.now() - started;
  if (informer.list().length !== SYNC_PODS) throw new Error("incomplete sync");
  await informer.stop();
  return ms;
};

/** Bare sequential paged node:http GET + JSON.parse into a Map. */
const bareSync: Measure = async (url) => {
  const started = mark();
  const agent = new http.Agent({ keepAlive: true });
  const cache = new Map<string, unknown>();
  let next = "";
  do {
    const page = await new Promise<{ items: KubeObject[]; metadata: { continue?: string } }>(
      (resolve, reject) => {
        const query = `limit=500${next ? `&continue=${encodeURIComponent(next)}` : ""}`;
        http.get(`${url}/sync/api/v1/pods?${query}`, { agent }, (res) => {
          res.setEncoding("utf8");
          let text = "";
          res.on("data", (t: string) => (text += t));
          res.on("end", () => resolve(JSON.parse(text)));
        }).on("error", reject);
      },
    );
    for (const item of page.items) cache.set(keyOf(item), item);
    next = page.metadata.continue ?? "";
  } while (next !== "");
  agent.destroy();
  if (cache.size !== SYNC_PODS) throw new Error("incomplete sync");
  return performance.now() - started;
};

const MEASURES: Record<string, Measure> = {
  "watch:kinformer-node": kinformerWatch("node"),
  "watch:kinformer-fetch": kinformerWatch("fetch"),
  "watch:node-http-loop": nodeHttpLoop,
  "watch:node-http-text-loop": nodeHttpTextLoop,
  "watch:fetch-loop": fetchLoop,
  "watch:client-node": clientNodeWatch,
  "watch:json-parse": jsonParseAlone,
  "sync:kinformer-node": kinformerSync("node"),
  "sync:kinformer-fetch": kinformerSync("fetch"),
  "sync:client-node": clientNodeSync,
  "sync:bare-node-http": bareSync,
};

// ------------------------------------------------------------------------------------------
// The parent: server, then each measure RUNS times in fresh processes, then the table.

function startServer(): Promise<
  { url: string; syncUrl: string; bytes: number; child: ChildProcess }
> {
  const child = spawn(process.execPath, [SELF, "--serve", ...process.argv.slice(2)], {
    stdio: ["pipe", "pipe", "inherit"],
  });
  return new Promise((resolve, reject) => {
    let out = "";
    child.stdout!.setEncoding("utf8");
    child.stdout!.on("data", (text: string) => {
      out += text;
      const nl = out.indexOf("\n");
      if (nl >= 0) resolve({ ...JSON.parse(out.slice(0, nl)), child });
    });
    child.once("exit", (code) => reject(new Error(`server exited with ${code}`)));
  });
}

function measureInChild(name: string, url: string): Promise<{ ms: number; cpuMs: number }> {
  const child = spawn(
    process.execPath,
    [SELF, "--measure", name, "--url", url, ...process.argv.slice(2)],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  return new Promise((resolve, reject) => {
    let out = "";
    child.stdout!.setEncoding("utf8");
    child.stdout!.on("data", (text: string) => (out += text));
    child.once("exit", (code) => {
      const last = out.trim().split("\n").at(-1) ?? "";
      try {
        if (code !== 0) throw new Error(`exit ${code}`);
        resolve(JSON.parse(last) as { ms: number; cpuMs: number });
      } catch (error) {
        reject(new Error(`${name}: ${(error as Error).message}: ${out}`));
      }
    });
  });
}

async function main(): Promise<void> {
  const t0 = performance.now();
  const load = os.loadavg()[0]!.toFixed(2);
  const server = await startServer();
  const best: Record<string, number> = {};
  const bestCpu: Record<string, number> = {};
  try {
    for (let run = 0; run < RUNS; run++) {
      const only = argText("only");
      for (const name of Object.keys(MEASURES)) {
        if (only !== undefined && !name.startsWith(only)) continue;
        // Lists go straight to the simulator's adapter; watches to the front server.
        const url = name.startsWith("sync:") ? server.syncUrl : server.url;
        const { ms, cpuMs } = await measureInChild(name, url);
        best[name] = Math.min(best[name] ?? Infinity, ms);
        bestCpu[name] = Math.min(bestCpu[name] ?? Infinity, cpuMs);
        process.stderr.write(
          `  run ${run + 1}/${RUNS} ${name}: ${ms.toFixed(0)} ms (process CPU ${
            cpuMs.toFixed(0)
          } ms)\n`,
        );
      }
    }
  } finally {
    server.child.stdin!.end();
  }
  if (argText("only") !== undefined) {
    for (const [name, ms] of Object.entries(best)) console.log(`${name}: ${ms.toFixed(0)} ms`);
    return;
  }
  const rate = (name: string): number => EVENTS / (best[name]! / 1000);
  const mbps = (name: string): number => server.bytes / 1e6 / (best[name]! / 1000);
  const k = (n: number): string => `${(n / 1000).toFixed(1)}k`;
  const x = (a: number, b: number): string => `${(a / b).toFixed(2)}x`;
  const s = (name: string): string => `${(best[name]! / 1000).toFixed(2)} s`;
  const cpu = (name: string): string => `${(bestCpu[name]! / 1000).toFixed(2)} s`;
  /** "1.02x (CPU 1.05x)": a throughput ratio by wall time, and by CPU time. */
  const faster = (a: string, b: string): string =>
    `${x(best[b]!, best[a]!)} (CPU ${x(bestCpu[b]!, bestCpu[a]!)})`;
  const rows: string[][] = [
    [
      "watch: kinformer, Node transport (node:http)",
      `${k(rate("watch:kinformer-node"))} ev/s (${mbps("watch:kinformer-node").toFixed(0)} MB/s)`,
      cpu("watch:kinformer-node"),
      `${faster("watch:kinformer-node", "watch:node-http-loop")} of the node:http loop; ${
        faster("watch:kinformer-node", "watch:client-node")
      } of client-node`,
    ],
    [
      "watch: kinformer, global fetch",
      `${k(rate("watch:kinformer-fetch"))} ev/s`,
      cpu("watch:kinformer-fetch"),
      `${faster("watch:kinformer-fetch", "watch:fetch-loop")} of the fetch loop; ${
        faster("watch:kinformer-fetch", "watch:client-node")
      } of client-node`,
    ],
    [
      "watch baseline: node:http + byte split + JSON.parse + Map",
      `${k(rate("watch:node-http-loop"))} ev/s`,
      cpu("watch:node-http-loop"),
      `${faster("watch:node-http-loop", "watch:client-node")} of client-node`,
    ],
    [
      "watch baseline (before issue 33): node:http + utf8 text split + JSON.parse + Map",
      `${k(rate("watch:node-http-text-loop"))} ev/s`,
      cpu("watch:node-http-text-loop"),
      `${faster("watch:node-http-text-loop", "watch:node-http-loop")} of the byte loop`,
    ],
    [
      "watch baseline: fetch + byte split + TextDecoder + JSON.parse + Map",
      `${k(rate("watch:fetch-loop"))} ev/s`,
      cpu("watch:fetch-loop"),
      "",
    ],
    [
      "watch baseline: client-node makeInformer",
      `${k(rate("watch:client-node"))} ev/s`,
      cpu("watch:client-node"),
      "",
    ],
    [
      "watch baseline: JSON.parse alone (lines in memory)",
      `${k(rate("watch:json-parse"))} ev/s`,
      cpu("watch:json-parse"),
      "",
    ],
    [
      `sync ${k(SYNC_PODS)} pods: kinformer, Node transport`,
      s("sync:kinformer-node"),
      cpu("sync:kinformer-node"),
      `${faster("sync:kinformer-node", "sync:client-node")} faster than client-node; ${
        faster("sync:kinformer-node", "sync:bare-node-http")
      } faster than the bare sequential loop`,
    ],
    [
      `sync ${k(SYNC_PODS)} pods: kinformer, global fetch`,
      s("sync:kinformer-fetch"),
      cpu("sync:kinformer-fetch"),
      `${faster("sync:kinformer-fetch", "sync:client-node")} faster than client-node`,
    ],
    [
      `sync baseline: client-node makeInformer (one unpaged list)`,
      s("sync:client-node"),
      cpu("sync:client-node"),
      "",
    ],
    [
      `sync baseline: bare sequential paged node:http GET + JSON.parse + Map`,
      s("sync:bare-node-http"),
      cpu("sync:bare-node-http"),
      "",
    ],
  ];
  const header =
    `Node ${process.version}, ${os.cpus().length} x ${os.cpus()[0]?.model ?? "cpu"}, ` +
    `load ${load} at start; ${k(EVENTS)} events of ~${
      (server.bytes / EVENTS / 1000).toFixed(1)
    } KB ` +
    `over ${k(WATCH_PODS)} pods; best of ${RUNS}; ${
      ((performance.now() - t0) / 1000).toFixed(0)
    } s`;
  console.log(header);
  console.log(
    "\n| scenario | result (wall, best of runs) | CPU time | same-run comparison |\n|---|---|---|---|",
  );
  for (const row of rows) console.log(`| ${row.join(" | ")} |`);
  const json = argText("json");
  if (json !== undefined) {
    await writeFile(
      json,
      JSON.stringify({ header, best, bestCpu, bytes: server.bytes, rows }, null, 2) + "\n",
    );
  }
}

if (process.argv.includes("--serve")) {
  await runServer();
} else if (process.argv.includes("--measure")) {
  const name = argText("measure")!;
  const ms = await MEASURES[name]!(argText("url")!);
  // CPU time (all threads, the GC's included) from the start of the measured window to the
  // end of the measure (a short teardown included): steadier than wall time on a busy machine.
  const used = process.cpuUsage(cpuAtMark);
  const cpuMs = (used.user + used.system) / 1000;
  process.stdout.write(`\n${JSON.stringify({ ms, cpuMs })}\n`);
  process.exit(0);
} else {
  await main();
}
