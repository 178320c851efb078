/**
 * The benchmark's API server, run in its own process (bundled for Node by scripts/bench.mjs)
 * so that neither its CPU time nor its heap is counted in the client being measured.
 *
 * It serves a {@linkcode SimulatedCluster} seeded with `--pods N` pods (podFixture) over real
 * loopback HTTP with the node:http adapter, plus, under URL prefixes:
 *
 * - `/burst/<M>/...`: the simulator, except that a watch gets a pre-built body of M
 *   `MODIFIED` events (resource versions following the cluster's) as fast as the socket takes
 *   it, then stays open and silent (so an informer does not re-watch). The simulator itself
 *   writes events as objects change; pre-building them keeps the server from being the
 *   bottleneck of a decode benchmark.
 * - `/raw/burst/<M>`: the same M events as a plain body that ends (baselines).
 * - `/relist/<id>/...`: the simulator, except that the first watch of `<id>` stays open and
 *   silent until `/bench/expire?id=<id>` (POST), which ends it with a 410 Expired `ERROR`
 *   event: the client relists when the measurement wants it (memory scenario).
 * - `/bench/churn?steps=K` (POST): K random changes to the pods (cold-start benchmark).
 * - `/bench/info`: `{ pods, resourceVersion }`.
 *
 * `--events M1,M2` builds those bursts before the server announces itself: one JSON line
 * `{ "url": ... }` on stdout. Stops on SIGTERM or at the end of stdin.
 * @module
 */
import { pods } from "../src/client/mod.ts";
import { SimulatedCluster } from "../packages/simulator/src/cluster/simulated_cluster.ts";
import { serve } from "../src/adapters/node/serve.ts";
import type { KubeObject } from "../src/client/types.ts";
import { buildWatchBurst, podFixture, type WatchBurst } from "./fixtures.ts";

declare const process: {
  argv: string[];
  stdout: { write(s: string): boolean };
  stdin: { on(event: string, fn: () => void): void; resume(): void };
  on(event: string, fn: () => void): void;
  exit(code: number): never;
};

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
}

const podCount = arg("pods", 10_000);
// No watch cache: lists at resourceVersion "0" are paged, so the sync scenarios measure paged,
// pipelined lists against the bare paged loop (with a watch cache, the first list would be
// one response).
const cluster = new SimulatedCluster({ historyLimit: 100_000, watchCache: false });
// The seeded objects are adopted by the cluster (not copied): keep them to build bursts from,
// which is much cheaper than `cluster.list()` (a JSON round trip per object).
const seeded: KubeObject[] = [];
cluster.seed(pods, podCount, (i) => {
  const pod = podFixture(i);
  seeded.push(pod);
  return pod;
});
const bursts = new Map<number, WatchBurst>();

/** The burst of `m` events following the cluster's current resource version (built once). */
function burst(m: number): WatchBurst {
  let b = bursts.get(m);
  if (b === undefined) {
    const served = seeded.map((pod) => ({ kind: "Pod", apiVersion: "v1", ...pod }));
    b = buildWatchBurst(served, {
      events: m,
      firstResourceVersion: Number(cluster.resourceVersion) + 1,
    });
    bursts.set(m, b);
  }
  return b;
}

/** A body of the burst's chunks; `hold` keeps it open (silent) afterwards until cancelled. */
function burstBody(b: WatchBurst, hold: boolean): ReadableStream<Uint8Array> {
  let i = 0;
  let release: (() => void) | undefined;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (i < b.chunks.length) {
        controller.enqueue(b.chunks[i++]!);
        return;
      }
      if (!hold) {
        controller.close();
        return;
      }
      return new Promise<void>((resolve) => (release = resolve));
    },
    cancel() {
      release?.();
    },
  }, { highWaterMark: 0 });
}

const jsonHeaders = { "content-type": "application/json" };

/** `/relist/<id>` watches held until expired, by id; ids asked to expire; ids expired. */
const held = new Map<string, ReadableStreamDefaultController<Uint8Array>>();
const expireAsked = new Set<string>();
const expired = new Set<string>();
const EXPIRED_EVENT = new TextEncoder().encode(
  JSON.stringify({
    type: "ERROR",
    object: {
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: "too old resource version (bench)",
      reason: "Expired",
      code: 410,
    },
  }) + "\n",
);

function handle(request: Request): Response | Promise<Response> {
  const url = new URL(request.url);
  const path = url.pathname;
  if (path === "/bench/info") {
    return new Response(
      JSON.stringify({ pods: podCount, resourceVersion: cluster.resourceVersion }),
      {
        headers: jsonHeaders,
      },
    );
  }
  if (path === "/bench/churn" && request.method === "POST") {
    const steps = Number(url.searchParams.get("steps") ?? "100");
    const stats = cluster.churn(steps, {
      resource: pods,
      mix: { create: 0, update: 1, delete: 0, recreate: 0, labelFlip: 0 },
    });
    return new Response(JSON.stringify({ stats, resourceVersion: cluster.resourceVersion }), {
      headers: jsonHeaders,
    });
  }
  if (path === "/bench/expire" && request.method === "POST") {
    const id = url.searchParams.get("id") ?? "";
    const controller = held.get(id);
    held.delete(id);
    if (controller === undefined) expireAsked.add(id); // the watch has not come yet
    else {
      expired.add(id);
      controller.enqueue(EXPIRED_EVENT);
      controller.close();
    }
    return new Response(JSON.stringify({ expired: controller !== undefined }), {
      headers: jsonHeaders,
    });
  }
  const relist = /^\/relist\/([a-z0-9-]+)(\/.*)$/.exec(path);
  if (relist !== null) {
    const id = relist[1]!;
    const isWatch = url.searchParams.get("watch") === "1" ||
      url.searchParams.get("watch") === "true";
    if (isWatch && !expired.has(id) && !held.has(id)) {
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          if (!expireAsked.delete(id)) {
            held.set(id, controller);
            return;
          }
          expired.add(id);
          controller.enqueue(EXPIRED_EVENT);
          controller.close();
        },
        cancel() {
          held.delete(id);
        },
      });
      return new Response(body, { headers: jsonHeaders });
    }
    const headers = new Headers(request.headers);
    headers.delete("accept-encoding");
    return cluster.fetch(new Request(new URL(relist[2]! + url.search, url), { headers }));
  }
  const raw = /^\/raw\/burst\/(\d+)$/.exec(path);
  if (raw !== null) {
    const b = burst(Number(raw[1]));
    return new Response(burstBody(b, false), {
      headers: {
        ...jsonHeaders,
        "x-bench-bytes": String(b.bytes),
        "x-bench-events": String(b.events),
      },
    });
  }
  const prefixed = /^\/burst\/(\d+)(\/.*)$/.exec(path);
  if (prefixed !== null) {
    const m = Number(prefixed[1]);
    if (url.searchParams.get("watch") === "1" || url.searchParams.get("watch") === "true") {
      return new Response(burstBody(burst(m), true), { headers: jsonHeaders });
    }
    const inner = new URL(prefixed[2]! + url.search, url);
    return cluster.fetch(new Request(inner, request));
  }
  // Under /gzip the cluster compresses as kube-apiserver does (LIST bodies over 128 KiB, when
  // asked): the link scenario measures bytes on the wire. Everywhere else answers come
  // uncompressed, so loopback scenarios measure the client, not the bench server's gzip (on
  // the same two cores), and stay comparable with runs from before the simulator gzipped.
  const gzip = /^\/gzip(\/.*)$/.exec(path);
  if (gzip !== null) {
    return cluster.fetch(new Request(new URL(gzip[1]! + url.search, url), request));
  }
  const headers = new Headers(request.headers);
  headers.delete("accept-encoding");
  return cluster.fetch(new Request(request, { headers }));
}

// Build the default burst and the list JSON (made lazily, once per object) before announcing
// readiness, so that no measured client pays for them.
const eventsIndex = process.argv.indexOf("--events");
const prebuild = eventsIndex >= 0 ? process.argv[eventsIndex + 1]!.split(",").map(Number) : [];
for (const m of prebuild) if (m > 0) burst(m);
await (await cluster.fetch(new Request("http://bench/api/v1/pods"))).arrayBuffer();

const server = await serve(handle, { hostname: "127.0.0.1", port: 0 });
process.stdout.write(
  JSON.stringify({ url: server.url, pods: podCount, readyMs: Math.round(performance.now()) }) +
    "\n",
);
const stop = (): void => {
  cluster.close();
  void server.close().then(() => process.exit(0));
};
process.on("SIGTERM", stop);
process.stdin.on("end", stop);
process.stdin.resume();
