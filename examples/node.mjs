// kinformer on Node.js (20+), in plain JavaScript: watch ConfigMaps and print every change.
//
// Node 20 does not run TypeScript, so this imports the built npm package, exactly as an
// application would after `npm install @kinformer/kinformer`:
//
//   npm install @kinformer/kinformer
//   node node.mjs --events 5                                # in-process simulated cluster
//   node node.mjs --server http://127.0.0.1:8001           # a real cluster via `kubectl proxy`
//
// From this repository: `npm run build` (dist/), then `node examples/node.mjs`: package.json's
// `exports` point into dist/, so Node resolves the package by its own name.
//
// Flags: --server URL (default: a simulated cluster in this process, handed to the client as
// its `fetch`), --token TOKEN, --namespace NS (default: all), --events N (stop after N changes
// after the sync), --seconds S (stop after S seconds, default 10), --rate R (simulated changes
// per second, default 10). Exits 0 once stopped after a sync, 1 if the informer never synced.
//
// examples/deno.ts and examples/bun.ts share this flag parsing and event printing through
// examples/_watch_and_print.ts. This file keeps its own copy on purpose: it is plain JavaScript
// that imports only the built package, so it runs as it is when copied into an application.
import process from "node:process";
import { parseArgs } from "node:util";
import { configmaps, createInformer, KubeClient } from "@kinformer/kinformer";
import { configMapFixture, SimulatedCluster } from "@kinformer/kinformer/testing";

const { values } = parseArgs({
  options: {
    server: { type: "string" },
    token: { type: "string" },
    namespace: { type: "string" },
    events: { type: "string", default: "Infinity" },
    seconds: { type: "string", default: "10" },
    rate: { type: "string", default: "10" },
  },
});
function positive(name) {
  const n = Number(values[name]);
  if (!(n > 0)) throw new RangeError(`--${name} must be a positive number, got ${values[name]}`);
  return n;
}
const maxChanges = positive("events");
const seconds = positive("seconds");
const rate = positive("rate");

function describe(ev) {
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
const onSigint = () => stop.abort(new Error("interrupted"));
process.once("SIGINT", onSigint);
const timer = setTimeout(() => stop.abort(new Error("time limit")), seconds * 1000);

// No --server: simulate a cluster in this process. The client calls its
// fetch handler directly (no HTTP), which is all a test of your own code needs.
let client;
let cluster;
if (values.server === undefined) {
  cluster = new SimulatedCluster();
  cluster.seed(configmaps, 3, (i) => configMapFixture(i, { namespace: "default" }));
  client = new KubeClient({ server: "http://simulated.cluster", fetch: cluster.fetch });
} else {
  client = new KubeClient({ server: values.server, token: values.token });
}
console.log(
  `kinformer on Node ${process.version}: ${
    cluster ? "simulated cluster" : "API server"
  } at ${client.server}`,
);

const informer = createInformer(client, {
  resource: configmaps,
  namespace: values.namespace,
  onError: (error, ctx) =>
    console.error(`error (${ctx.kind} during ${ctx.phase}; ${ctx.action}): ${error}`),
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
}
console.log(`done: ${changes} changes after the sync${synced ? "" : " (never synced)"}`);
process.exitCode = synced ? 0 : 1;
