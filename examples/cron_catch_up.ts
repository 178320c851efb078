/**
 * A cron-style catch-up job: each run resumes from the checkpoint the previous run saved, handles
 * every change made since (no full LIST: one watch from the saved resource version), saves a new
 * checkpoint and exits. A serverless function on a schedule does the same.
 *
 * ```sh
 * # against a cluster (here through `kubectl proxy`), twice: the second run prints only what changed
 * deno run --allow-net --allow-read --allow-write examples/cron_catch_up.ts --state pods.json --server http://127.0.0.1:8001
 * bun --conditions=kinformer-source examples/cron_catch_up.ts --state pods.json --server http://127.0.0.1:8001 --namespace default
 *
 * # no --server: an in-process simulated cluster that replays the same seeded history each run
 * # and adds one more round of changes, so every run has something new to catch up on
 * deno run --allow-read --allow-write examples/cron_catch_up.ts --state /tmp/demo.json
 * ```
 *
 * Options: `--state FILE` (required), `--server URL`, `--token TOKEN`, `--namespace NS`,
 * `--resource pods|configmaps` (default pods), `--timeout SECONDS` (default 300).
 *
 * Output: one line per change on stdout (`add default/web-1 rv=12`, with `initial` for the
 * first run's list and `final-state-unknown` for deletions inferred by a relist); progress on
 * stderr. Exit status 0 when caught up (checkpoint saved), 1 on error, 2 on timeout (in both cases
 * the checkpoint is left as it was: the next run starts from the same place).
 * @module
 */
import { readFile, rename, writeFile } from "node:fs/promises";
import process from "node:process";
import {
  configmaps,
  createInformer,
  type InformerEvent,
  KubeClient,
  type KubeObject,
  pods,
  type ResourceDescriptor,
} from "@kinformer/kinformer";
import { type InformerCheckpoint, objectKey } from "@kinformer/kinformer/cache";
import { podFixture, SimulatedCluster } from "@kinformer/kinformer/testing";

const RESOURCES: Record<string, ResourceDescriptor> = { pods, configmaps };

interface Args {
  state: string;
  server: string | undefined;
  token: string | undefined;
  namespace: string | undefined;
  resource: ResourceDescriptor;
  timeoutMs: number;
}

function parseArgs(argv: string[]): Args {
  const values = new Map<string, string>();
  for (let i = 0; i < argv.length; i += 2) {
    const name = argv[i]!;
    const value = argv[i + 1];
    if (!name.startsWith("--") || value === undefined) {
      throw new TypeError(`expected --option value, got ${name}`);
    }
    values.set(name.slice(2), value);
  }
  const known = ["state", "server", "token", "namespace", "resource", "timeout"];
  for (const name of values.keys()) {
    if (!known.includes(name)) {
      throw new TypeError(`unknown option --${name} (known: --${known.join(", --")})`);
    }
  }
  const state = values.get("state");
  if (state === undefined) {
    throw new TypeError("--state FILE is required (where the checkpoint is kept)");
  }
  const resourceName = values.get("resource") ?? "pods";
  const resource = RESOURCES[resourceName];
  if (resource === undefined) {
    throw new TypeError(`--resource must be one of ${Object.keys(RESOURCES).join(", ")}`);
  }
  const timeout = Number(values.get("timeout") ?? 300);
  if (!(timeout > 0)) {
    throw new RangeError(
      `--timeout must be a positive number of seconds, got ${values.get("timeout")}`,
    );
  }
  return {
    state,
    server: values.get("server"),
    token: values.get("token"),
    namespace: values.get("namespace"),
    resource,
    timeoutMs: timeout * 1000,
  };
}

/** The saved checkpoint, or undefined on the first run. */
async function loadCheckpoint(path: string): Promise<InformerCheckpoint | undefined> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    if ((error as { code?: string }).code === "ENOENT") return undefined;
    throw error;
  }
  return JSON.parse(text) as InformerCheckpoint;
}

/** Writes the checkpoint next to its place, then renames it there: a crash never leaves half a file. */
async function saveCheckpoint(path: string, cp: InformerCheckpoint): Promise<void> {
  const tmp = `${path}.${Date.now()}.tmp`;
  await writeFile(tmp, JSON.stringify(cp));
  await rename(tmp, path);
}

/**
 * Without `--server`: a simulated cluster replaying a fixed, seeded history. It is built up to the
 * saved checkpoint's resource version and then one round further, so each run sees one new round
 * of changes, as if time had passed since the last run.
 */
function simulatedCluster(
  resource: ResourceDescriptor,
  saved: InformerCheckpoint | undefined,
): SimulatedCluster {
  const cluster = new SimulatedCluster({ seed: 2024 });
  if (resource === pods) cluster.seed(pods, 6, (i) => podFixture(i, { namespace: "default" }));
  else cluster.seed(resource, 6);
  const round = (): void => void cluster.churn(4, { resource, namespaces: ["default"] });
  round();
  // (A checkpoint from a real cluster has a far larger resourceVersion: give up after a while and
  // let the informer find out the server does not know it. The simulated cluster's resource
  // versions are integers; a real server's are opaque strings.)
  const integer = (rv: string): bigint | undefined =>
    /^[1-9]\d*$/.test(rv) ? BigInt(rv) : undefined;
  for (let rounds = 1; saved !== undefined && rounds < 1_000; rounds++) {
    const current = integer(cluster.resourceVersion);
    const wanted = integer(saved.resourceVersion);
    if (current === undefined || wanted === undefined || current > wanted) break;
    round();
  }
  return cluster;
}

function describe(ev: Exclude<InformerEvent, { type: "synced" }>): string {
  const o = ev.object;
  const flags = ev.type === "add" && ev.isInInitialList
    ? " initial"
    : ev.type === "delete" && ev.finalStateUnknown
    ? " final-state-unknown"
    : "";
  return `${ev.type} ${objectKey(o)} rv=${o.metadata.resourceVersion ?? "?"}${flags}`;
}

async function main(): Promise<number> {
  const args = parseArgs(process.argv.slice(2));
  let saved = await loadCheckpoint(args.state);
  const simulated = args.server === undefined ? simulatedCluster(args.resource, saved) : undefined;
  const client = new KubeClient({
    server: args.server ?? "http://simulated.cluster",
    token: args.token,
    fetch: simulated?.fetch,
  });
  const options = {
    resource: args.resource,
    namespace: args.namespace,
    // What a checkpoint keeps is what the cache keeps: drop the bulky managedFields.
    transform: (o: KubeObject): KubeObject => {
      delete o.metadata.managedFields;
      return o;
    },
    onError: (error: unknown, ctx: { kind: string; phase: string; action: string }) =>
      console.error(`[${ctx.phase}/${ctx.kind}] ${String(error)}; ${ctx.action}`),
  };
  let informer;
  try {
    informer = createInformer(client, { ...options, resumeFrom: saved });
  } catch (error) {
    // A checkpoint of another resource or selection (the flags changed): start over.
    console.error(`ignoring ${args.state}: ${(error as Error).message}`);
    saved = undefined;
    informer = createInformer(client, options);
  }
  console.error(
    saved
      ? `resuming at resourceVersion ${saved.resourceVersion}`
      : "no checkpoint: listing everything",
  );

  const timeout = AbortSignal.timeout(args.timeoutMs);
  // The listener is made before the informer starts: no event can slip past it.
  const changes = informer.events({ until: "current", signal: timeout });
  informer.start();
  let handled = 0;
  let failure: unknown;
  try {
    for await (const ev of changes) {
      if (ev.type === "synced") continue;
      // Your processing goes here (send a notification, update a database, enqueue work...).
      console.log(describe(ev));
      handled++;
    }
  } catch (error) {
    failure = error;
  }
  // Checkpoint right as the iteration ends, before the informer can apply more to its cache. Only
  // a complete run moves the checkpoint: after a timeout or an error the next run starts from the
  // same place and may see some changes again, but never misses one (at-least-once).
  const complete = failure === undefined && !timeout.aborted;
  const checkpoint = complete ? informer.checkpoint({ includeObjects: true }) : undefined;
  await informer.stop();
  simulated?.close();
  if (checkpoint === undefined) {
    console.error(
      failure !== undefined
        ? `catch-up failed: ${String(failure)}`
        : `timed out after ${args.timeoutMs / 1000} s`,
    );
    console.error(`${handled} change(s) handled; ${args.state} not updated`);
    return failure !== undefined ? 1 : 2;
  }
  await saveCheckpoint(args.state, checkpoint);
  console.error(
    `${handled} change(s); caught up at resourceVersion ${checkpoint.resourceVersion}, saved to ${args.state}`,
  );
  return 0;
}

if ((import.meta as ImportMeta & { main?: boolean }).main) {
  try {
    process.exitCode = await main();
  } catch (error) {
    console.error(String(error));
    process.exitCode = 1;
  }
}
