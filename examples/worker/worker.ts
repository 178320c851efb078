/**
 * kinformer in a Cloudflare Worker: each request runs an informer on ConfigMaps, waits for it
 * to sync, optionally creates a few ConfigMaps itself, collects the live events that follow and
 * answers with a JSON report.
 *
 * ```sh
 * # wrangler.toml: main = "examples/worker/worker.ts", compatibility_date = "2025-01-01"
 * # [vars] KUBE_SERVER = "https://my-cluster.example"   (and `wrangler secret put KUBE_TOKEN`)
 * curl "https://<worker>/?events=3&create=3&namespace=default"
 * ```
 *
 * Query: `events` (live events to wait for, default 3, at most 100), `create` (ConfigMaps the
 * Worker creates after the sync, default 0, at most 20), `namespace` (default: all; `create`
 * needs one), `timeoutMs` (give up waiting after this long, default 10000, at most 25000).
 *
 * Workers rules this follows: I/O objects (a fetch, a stream, a timer) belong to the request
 * that made them, so the informer is created, used and stopped inside one `fetch` call, never
 * kept in a global; the watch is a streaming subrequest that ends (the informer stops) before
 * the response is returned. In your project, import from `"@kinformer/kinformer"` (npm) and let
 * wrangler bundle it; no `nodejs_compat` flag is needed.
 * @module
 */
import { configmaps, createInformer, type InformerEvent, KubeClient } from "@kinformer/kinformer";

/** The Worker's bindings. */
export interface Env {
  /** API server URL, e.g. `https://my-cluster.example` (a `[vars]` entry). */
  KUBE_SERVER: string;
  /** Bearer token (a secret). */
  KUBE_TOKEN?: string;
}

/** What the Worker answers. */
export interface WatchReport {
  /** Whether the informer synced. */
  synced: boolean;
  /** `namespace/name` of every object in the initial list, sorted. */
  initial: string[];
  /** Live events after the sync, in order, as `"add default/x"`. */
  live: string[];
  /** Names the Worker created. */
  created: string[];
  /** Whether all requested live events arrived before the timeout. */
  complete: boolean;
  /** Full LISTs the informer made. */
  lists: number;
  /** Watch events it received. */
  watchEvents: number;
  /** Errors it recovered from. */
  errors: string[];
}

function intParam(url: URL, name: string, fallback: number, max: number): number {
  const text = url.searchParams.get(name);
  if (text === null) return fallback;
  const n = Number(text);
  if (!Number.isInteger(n) || n < 0 || n > max) {
    throw new RangeError(`${name} must be an integer in [0, ${max}], got ${JSON.stringify(text)}`);
  }
  return n;
}

function keyOf(ev: Exclude<InformerEvent, { type: "synced" }>): string {
  const m = ev.object.metadata;
  return m.namespace ? `${m.namespace}/${m.name}` : String(m.name);
}

/** Runs one informer for the length of one request. */
export async function watchOnce(env: Env, url: URL): Promise<WatchReport> {
  const events = intParam(url, "events", 3, 100);
  const create = intParam(url, "create", 0, 20);
  const timeoutMs = intParam(url, "timeoutMs", 10_000, 25_000);
  const namespace = url.searchParams.get("namespace") ?? undefined;
  if (create > 0 && namespace === undefined) throw new TypeError("create needs a namespace");

  const client = new KubeClient({ server: env.KUBE_SERVER, token: env.KUBE_TOKEN });
  const errors: string[] = [];
  const informer = createInformer(client, {
    resource: configmaps,
    namespace,
    onError: (error, ctx) => errors.push(`${ctx.phase}/${ctx.kind}: ${String(error)}`),
  });
  const report: WatchReport = {
    synced: false,
    initial: [],
    live: [],
    created: [],
    complete: false,
    lists: 0,
    watchEvents: 0,
    errors,
  };
  // A Worker must answer within its request: bound the wait, whatever the cluster does.
  const signal = AbortSignal.timeout(timeoutMs);
  informer.start({ signal });
  try {
    for await (const ev of informer.events({ signal })) {
      if (ev.type === "synced") {
        report.synced = true;
        report.initial.sort();
        if (events === 0) break;
        // Write from the Worker too: the watch reports these as live events.
        const stamp = Date.now().toString(36);
        for (let i = 0; i < create; i++) {
          const name = `worker-${stamp}-${i}`;
          await client.create(configmaps, {
            metadata: { name, namespace: namespace ?? "default" },
            data: { createdBy: "kinformer worker example" },
          }, { signal });
          report.created.push(name);
        }
        continue;
      }
      if (!report.synced) {
        report.initial.push(keyOf(ev));
        continue;
      }
      report.live.push(`${ev.type} ${keyOf(ev)}`);
      if (report.live.length >= events) break;
    }
  } catch (error) {
    if (!signal.aborted) throw error;
  } finally {
    const health = informer.health();
    report.lists = health.lists;
    report.watchEvents = health.events;
    await informer.stop();
  }
  report.complete = report.synced && report.live.length >= events;
  return report;
}

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const url = new URL(request.url);
    if (url.pathname !== "/") return new Response("not found\n", { status: 404 });
    try {
      return Response.json(await watchOnce(env, url));
    } catch (error) {
      const status = error instanceof RangeError || error instanceof TypeError ? 400 : 500;
      return Response.json({ error: String(error) }, { status });
    }
  },
};
