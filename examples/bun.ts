/**
 * kinformer on Bun: watch ConfigMaps and print every change.
 *
 * ```sh
 * # Against a simulated cluster served in this process with Bun.serve (with some churn):
 * bun examples/bun.ts --events 5
 * # Against a real cluster through `kubectl proxy` (http://127.0.0.1:8001):
 * bun examples/bun.ts --server http://127.0.0.1:8001 --namespace default
 * ```
 *
 * Flags: `--server URL` (default: an in-process simulated cluster), `--token TOKEN`,
 * `--namespace NS` (default: all), `--events N` (stop after N changes after the sync),
 * `--seconds S` (stop after S seconds, default 10), `--rate R` (simulated changes per second,
 * default 10). Exits 0 once stopped after a sync, 1 if the informer never synced.
 *
 * In your project: `bun add @kinformer/kinformer`, then import from `"@kinformer/kinformer"`
 * and `"@kinformer/kinformer/testing"` instead of the relative paths. Bun runs the TypeScript
 * sources as they are.
 * @module
 */
import process from "node:process";
import { parseArgs } from "node:util";
import { configmaps, createInformer, type InformerEvent, KubeClient } from "../mod.ts";
import { configMapFixture, SimulatedCluster } from "../src/testing/mod.ts";
import { serve } from "../src/testing/serve_bun.ts";

const { values } = parseArgs({
  args: process.argv.slice(2),
  options: {
    server: { type: "string" },
    token: { type: "string" },
    namespace: { type: "string" },
    events: { type: "string", default: "Infinity" },
    seconds: { type: "string", default: "10" },
    rate: { type: "string", default: "10" },
  },
});
function positive(name: "events" | "seconds" | "rate"): number {
  const n = Number(values[name]);
  if (!(n > 0)) throw new RangeError(`--${name} must be a positive number, got ${values[name]}`);
  return n;
}
const maxChanges = positive("events");
const seconds = positive("seconds");
const rate = positive("rate");

function describe(ev: Exclude<InformerEvent, { type: "synced" }>): string {
  const m = ev.object.metadata;
  const key = m.namespace ? `${m.namespace}/${m.name}` : m.name;
  switch (ev.type) {
    case "add":
      return `ADD ${key}${ev.isInInitialList ? " (initial)" : ""}`;
    case "update":
      return `UPDATE ${key}`;
    case "delete":
      return `DELETE ${key}${ev.finalStateUnknown ? " (final state unknown)" : ""}`;
  }
}

const stop = new AbortController();
const onSigint = (): void => stop.abort(new Error("interrupted"));
process.once("SIGINT", onSigint);
const timer = setTimeout(() => stop.abort(new Error("time limit")), seconds * 1000);

// No --server: simulate a cluster here, served over HTTP like a real one.
// (Bun.serve sends a response head only with the first body chunk, oven-sh/bun#33660; the
// churn keeps watches busy, so that does not show here.)
let cluster: SimulatedCluster | undefined;
let served: { url: string; close(): Promise<void> } | undefined;
let server = values.server;
if (server === undefined) {
  cluster = new SimulatedCluster();
  cluster.seed(configmaps, 3, (i) => configMapFixture(i, { namespace: "default" }));
  served = await serve(cluster.fetch, { hostname: "127.0.0.1", port: 0 });
  server = served.url;
}
console.log(
  `kinformer on Bun ${process.versions.bun}: ${
    cluster ? "simulated cluster" : "API server"
  } at ${server}`,
);

const client = new KubeClient({ server, token: values.token });
const informer = createInformer(client, {
  resource: configmaps,
  namespace: values.namespace,
  onError: (error, ctx) =>
    console.error(`error (${ctx.kind}, retry in ${ctx.retryInMs} ms): ${error}`),
});
informer.start();
let synced = false;
let changes = 0;
try {
  for await (const ev of informer.events({ signal: stop.signal })) {
    if (ev.type === "synced") {
      synced = true;
      console.log(`SYNCED ${informer.store.list().length} objects`);
      // The simulated cluster starts changing once the informer has its initial state.
      cluster?.startChurn({ resource: configmaps, ratePerSecond: rate, signal: stop.signal });
      continue;
    }
    console.log(describe(ev));
    if (synced && ++changes >= maxChanges) break;
  }
} finally {
  clearTimeout(timer);
  process.off("SIGINT", onSigint);
  stop.abort();
  await informer.stop();
  cluster?.close();
  await served?.close();
}
console.log(`done: ${changes} changes after the sync${synced ? "" : " (never synced)"}`);
process.exit(synced ? 0 : 1);
