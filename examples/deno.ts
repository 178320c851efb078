/**
 * kinformer on Deno: watch ConfigMaps and print every change.
 *
 * ```sh
 * # Against a simulated cluster served in this process with Deno.serve (with some churn):
 * deno run --allow-net examples/deno.ts --events 5
 * # Against a real cluster through `kubectl proxy` (http://127.0.0.1:8001):
 * deno run --allow-net examples/deno.ts --server http://127.0.0.1:8001 --namespace default
 * ```
 *
 * Flags: `--server URL` (default: an in-process simulated cluster), `--token TOKEN`,
 * `--namespace NS` (default: all), `--events N` (stop after N changes after the sync),
 * `--seconds S` (stop after S seconds, default 10), `--rate R` (simulated changes per second,
 * default 10). Exits 0 once stopped after a sync, 1 if the informer never synced.
 *
 * In your project: `deno add jsr:@kinformer/kinformer`, then import from
 * `"@kinformer/kinformer"` and `"@kinformer/kinformer/testing"` instead of the relative paths.
 * @module
 */
import { configmaps, createInformer, type InformerEvent, KubeClient } from "../mod.ts";
import { configMapFixture, SimulatedCluster } from "../src/testing/mod.ts";
import { serve } from "../src/testing/serve_deno.ts";

interface Args {
  server: string | undefined;
  token: string | undefined;
  namespace: string | undefined;
  events: number;
  seconds: number;
  rate: number;
}

function parseArgs(argv: readonly string[]): Args {
  const args: Args = {
    server: undefined,
    token: undefined,
    namespace: undefined,
    events: Infinity,
    seconds: 10,
    rate: 10,
  };
  for (let i = 0; i < argv.length; i += 2) {
    const flag = argv[i];
    const value = argv[i + 1];
    if (value === undefined) throw new TypeError(`${flag} needs a value`);
    const number = (): number => {
      const n = Number(value);
      if (!(n > 0)) throw new RangeError(`${flag} must be a positive number, got ${value}`);
      return n;
    };
    switch (flag) {
      case "--server":
        args.server = value;
        break;
      case "--token":
        args.token = value;
        break;
      case "--namespace":
        args.namespace = value;
        break;
      case "--events":
        args.events = number();
        break;
      case "--seconds":
        args.seconds = number();
        break;
      case "--rate":
        args.rate = number();
        break;
      default:
        throw new TypeError(`unknown flag ${flag}`);
    }
  }
  return args;
}

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

const args = parseArgs(Deno.args);
const stop = new AbortController();
const onSigint = (): void => stop.abort(new Error("interrupted"));
Deno.addSignalListener("SIGINT", onSigint);
const timer = setTimeout(() => stop.abort(new Error("time limit")), args.seconds * 1000);

// No --server: simulate a cluster here, served over HTTP like a real one.
let cluster: SimulatedCluster | undefined;
let served: { url: string; close(): Promise<void> } | undefined;
let server = args.server;
if (server === undefined) {
  cluster = new SimulatedCluster();
  cluster.seed(configmaps, 3, (i) => configMapFixture(i, { namespace: "default" }));
  served = await serve(cluster.fetch, { hostname: "127.0.0.1", port: 0 });
  server = served.url;
}
console.log(
  `kinformer on Deno ${Deno.version.deno}: ${
    cluster ? "simulated cluster" : "API server"
  } at ${server}`,
);

const client = new KubeClient({ server, token: args.token });
const informer = createInformer(client, {
  resource: configmaps,
  namespace: args.namespace,
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
      cluster?.startChurn({ resource: configmaps, ratePerSecond: args.rate, signal: stop.signal });
      continue;
    }
    console.log(describe(ev));
    if (synced && ++changes >= args.events) break;
  }
} finally {
  clearTimeout(timer);
  Deno.removeSignalListener("SIGINT", onSigint);
  stop.abort();
  await informer.stop();
  cluster?.close();
  await served?.close();
}
console.log(`done: ${changes} changes after the sync${synced ? "" : " (never synced)"}`);
Deno.exit(synced ? 0 : 1);
