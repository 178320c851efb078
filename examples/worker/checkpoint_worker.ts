/**
 * A catch-up job on Cloudflare Workers: a cron trigger resumes an informer from the checkpoint
 * it stored in KV last time, processes every change since then (`events({ until: "current" })`
 * ends by itself once the cache has caught up with the cluster), stores the new checkpoint and
 * ends. No LIST while the checkpoint is fresh: one cheap `limit=1` list learns the current
 * resource version, then a watch from the saved version replays what happened in between.
 *
 * ```toml
 * # wrangler.toml
 * main = "examples/worker/checkpoint_worker.ts"
 * compatibility_date = "2025-01-01"
 * [triggers]
 * crons = ["*\/5 * * * *"]
 * [[kv_namespaces]]
 * binding = "CHECKPOINTS"
 * id = "<namespace id>"
 * [vars]
 * KUBE_SERVER = "https://my-cluster.example"
 * KUBE_NAMESPACE = "default"
 * # wrangler secret put KUBE_TOKEN
 * ```
 *
 * `POST /run` runs the same job on demand and answers with its report (what the tests use;
 * `?timeoutMs=` sets its deadline); `GET /checkpoint` shows the stored checkpoint's resource version and object count.
 *
 * How long a run takes: the newest resource version of a cluster is usually a change to some
 * other resource (resource versions are global), and then only the watch's next BOOKMARK
 * tells the informer it is current. API servers send one about once a minute, so a run can
 * wait up to a minute doing nothing (wall time, not CPU time: cron invocations may take
 * minutes). Keep `CATCH_UP_TIMEOUT_MS` above that.
 *
 * Delivery is at least once: the checkpoint is stored only after every event up to it was
 * processed, so a run that times out (or fails) leaves the old checkpoint, and the next run
 * processes those events again. If the saved version is too old for the API server (410
 * Gone, typically after a few minutes to an hour without a run), the informer relists and
 * reports only the difference (deletions as `delete` with `finalStateUnknown`).
 * @module
 */
import { configmaps, createInformer, type InformerEvent, KubeClient } from "@kinformer/kinformer";
import type { InformerCheckpoint } from "@kinformer/kinformer/cache";

/** The part of a Workers KV namespace this job uses (`KVNamespace` satisfies it). */
export interface CheckpointStore {
  get(key: string): Promise<string | null>;
  put(key: string, value: string): Promise<void>;
}

/** The Worker's bindings. */
export interface Env {
  /** API server URL. */
  KUBE_SERVER: string;
  /** Bearer token (a secret). */
  KUBE_TOKEN?: string;
  /** Namespace to follow; all namespaces when absent. */
  KUBE_NAMESPACE?: string;
  /** Where checkpoints are kept (a KV namespace, or anything with `get`/`put` of strings). */
  CHECKPOINTS: CheckpointStore;
  /** Give up a run after this many ms (the checkpoint then stays as it was). @default 90000 */
  CATCH_UP_TIMEOUT_MS?: string;
}

/** What one run did. */
export interface CatchUpReport {
  /** Whether the run started from a stored checkpoint. */
  resumed: boolean;
  /** Resource version of the checkpoint it started from. */
  fromResourceVersion: string | null;
  /** Resource version of the checkpoint it stored (null when it stored none). */
  toResourceVersion: string | null;
  /** Changes processed, in order, e.g. `"update default/web"`. */
  events: string[];
  /** Objects in the cache at the end. */
  objects: number;
  /** Full LISTs the informer made (0 when resuming from a fresh checkpoint). */
  lists: number;
  /** Whether the run caught up before its deadline. */
  complete: boolean;
  /** Errors the informer recovered from. */
  errors: string[];
}

/** Types of the `scheduled` handler's arguments (from `@cloudflare/workers-types`). */
export interface ScheduledController {
  readonly scheduledTime: number;
  readonly cron: string;
}
export interface ExecutionContext {
  waitUntil(promise: Promise<unknown>): void;
}

function describe(ev: Exclude<InformerEvent, { type: "synced" }>): string {
  const m = ev.object.metadata;
  const key = m.namespace ? `${m.namespace}/${m.name}` : String(m.name);
  const unknown = ev.type === "delete" && ev.finalStateUnknown ? " (final state unknown)" : "";
  return `${ev.type} ${key}${unknown}`;
}

/**
 * Processes one change. Replace this with the real work (send a notification, update a
 * database, ...); a throw fails the run and keeps the old checkpoint.
 */
function handleChange(ev: Exclude<InformerEvent, { type: "synced" }>, report: CatchUpReport): void {
  report.events.push(describe(ev));
}

/** The KV key of the checkpoint: one per resource and namespace. */
function checkpointKey(env: Env): string {
  return `kinformer/checkpoint/configmaps/${env.KUBE_NAMESPACE || "*"}`;
}

/** Options of {@linkcode catchUp}. */
export interface CatchUpOptions {
  /** Deadline of this run in ms. @default env.CATCH_UP_TIMEOUT_MS, else 90000 */
  timeoutMs?: number | undefined;
}

/** One catch-up run: load checkpoint, resume, process changes until current, store checkpoint. */
export async function catchUp(env: Env, options: CatchUpOptions = {}): Promise<CatchUpReport> {
  const namespace = env.KUBE_NAMESPACE || undefined;
  const key = checkpointKey(env);
  const timeoutMs = options.timeoutMs ?? Number(env.CATCH_UP_TIMEOUT_MS ?? "90000");
  if (!(timeoutMs > 0)) {
    throw new RangeError(`the catch-up timeout must be a positive number of ms, got ${timeoutMs}`);
  }

  const saved = await env.CHECKPOINTS.get(key);
  const resumeFrom = saved === null ? undefined : JSON.parse(saved) as InformerCheckpoint;
  const errors: string[] = [];
  const client = new KubeClient({ server: env.KUBE_SERVER, token: env.KUBE_TOKEN });
  const informer = createInformer(client, {
    resource: configmaps,
    namespace,
    resumeFrom,
    onError: (error, ctx) => errors.push(`${ctx.phase}/${ctx.kind}: ${String(error)}`),
  });
  const report: CatchUpReport = {
    resumed: resumeFrom !== undefined,
    fromResourceVersion: resumeFrom?.resourceVersion ?? null,
    toResourceVersion: null,
    events: [],
    objects: 0,
    lists: 0,
    complete: false,
    errors,
  };
  const signal = AbortSignal.timeout(timeoutMs);
  informer.start({ signal });
  try {
    try {
      for await (const ev of informer.events({ until: "current", signal })) {
        if (ev.type !== "synced") handleChange(ev, report);
      }
    } catch (error) {
      if (!signal.aborted) throw error;
    }
    // The iteration ends by itself once everything up to the current version was delivered,
    // or early when the deadline aborted it: then the old checkpoint stays.
    report.complete = !signal.aborted && informer.hasSynced();
    if (report.complete) {
      const checkpoint = informer.checkpoint({ includeObjects: true });
      await env.CHECKPOINTS.put(key, JSON.stringify(checkpoint));
      report.toResourceVersion = checkpoint.resourceVersion;
    }
  } finally {
    const health = informer.health();
    report.objects = health.objects;
    report.lists = health.lists;
    await informer.stop();
  }
  return report;
}

export default {
  scheduled(_controller: ScheduledController, env: Env, ctx: ExecutionContext): void {
    ctx.waitUntil(
      catchUp(env).then((report) => {
        console.log(
          `catch-up: ${report.events.length} changes, ${
            report.fromResourceVersion ?? "start"
          } -> ` +
            `${report.toResourceVersion ?? "(not stored)"}, ${report.lists} lists`,
        );
      }),
    );
  },

  async fetch(request: Request, env: Env): Promise<Response> {
    const url = new URL(request.url);
    if (request.method === "POST" && url.pathname === "/run") {
      const timeout = url.searchParams.get("timeoutMs");
      try {
        return Response.json(
          await catchUp(env, { timeoutMs: timeout === null ? undefined : Number(timeout) }),
        );
      } catch (error) {
        return Response.json({ error: String(error) }, { status: 500 });
      }
    }
    if (request.method === "GET" && url.pathname === "/checkpoint") {
      const saved = await env.CHECKPOINTS.get(checkpointKey(env));
      if (saved === null) return Response.json(null);
      const cp = JSON.parse(saved) as InformerCheckpoint;
      return Response.json({
        resourceVersion: cp.resourceVersion,
        objects: cp.objects?.length ?? 0,
      });
    }
    return new Response("POST /run or GET /checkpoint\n", { status: 404 });
  },
};
