/**
 * What `examples/deno.ts` and `examples/bun.ts` share: their flags, and the run itself (watch
 * ConfigMaps, on a simulated cluster served over HTTP in this process unless `--server` is
 * given, and print every change). Each runtime file adds only its glue: where the arguments
 * come from, SIGINT, its `serve`, and how to exit. `examples/node.mjs` keeps its own copy,
 * being plain JavaScript run against the built npm package.
 * @module
 */
import { configmaps, createInformer, type InformerEvent, KubeClient } from "@kinformer/kinformer";
import { configMapFixture, SimulatedCluster } from "@kinformer/kinformer/testing";

/** The examples' flags. */
export interface WatchArgs {
  /** `--server URL`; `undefined` for an in-process simulated cluster. */
  server: string | undefined;
  /** `--token TOKEN`. */
  token: string | undefined;
  /** `--namespace NS`; `undefined` for all namespaces. */
  namespace: string | undefined;
  /** `--events N`: stop after N changes after the sync. */
  events: number;
  /** `--seconds S`: stop after S seconds. */
  seconds: number;
  /** `--rate R`: simulated changes per second. */
  rate: number;
}

/** Parses `--flag value` (or `--flag=value`) pairs into {@linkcode WatchArgs}. */
export function parseArgs(argv: readonly string[]): WatchArgs {
  const args: WatchArgs = {
    server: undefined,
    token: undefined,
    namespace: undefined,
    events: Infinity,
    seconds: 10,
    rate: 10,
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const eq = arg.indexOf("=");
    const flag = eq < 0 ? arg : arg.slice(0, eq);
    const value = eq < 0 ? argv[++i] : arg.slice(eq + 1);
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

/** What the runtime supplies. */
export interface RuntimeGlue {
  /** Runtime name and version for the banner, e.g. `Deno 2.1.4`. */
  name: string;
  /** Serves the simulated cluster over HTTP (a `serve` from `src/adapters/<runtime>/serve.ts`). */
  serve(
    handler: (request: Request) => Response | Promise<Response>,
    options: { hostname: string; port: number },
  ): Promise<{ url: string; close(): Promise<void> }>;
  /** Calls `listener` on SIGINT until the returned function is called. */
  onInterrupt(listener: () => void): () => void;
}

/** One line per change, e.g. `ADD default/settings (initial)`. */
export function describe(ev: Exclude<InformerEvent, { type: "synced" }>): string {
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

/**
 * Watches ConfigMaps and prints every change until `args.events` changes after the sync,
 * `args.seconds` or SIGINT, then a `done:` line. Resolves whether the informer synced.
 */
export async function watchAndPrint(args: WatchArgs, runtime: RuntimeGlue): Promise<boolean> {
  const stop = new AbortController();
  const offInterrupt = runtime.onInterrupt(() => stop.abort(new Error("interrupted")));
  const timer = setTimeout(() => stop.abort(new Error("time limit")), args.seconds * 1000);

  // No --server: simulate a cluster here, served over HTTP like a real one.
  let cluster: SimulatedCluster | undefined;
  let served: { url: string; close(): Promise<void> } | undefined;
  let server = args.server;
  if (server === undefined) {
    cluster = new SimulatedCluster();
    cluster.seed(configmaps, 3, (i) => configMapFixture(i, { namespace: "default" }));
    served = await runtime.serve(cluster.fetch, { hostname: "127.0.0.1", port: 0 });
    server = served.url;
  }
  console.log(
    `kinformer on ${runtime.name}: ${cluster ? "simulated cluster" : "API server"} at ${server}`,
  );

  const client = new KubeClient({ server, token: args.token });
  const informer = createInformer(client, {
    resource: configmaps,
    namespace: args.namespace,
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
        cluster?.startChurn({
          resource: configmaps,
          ratePerSecond: args.rate,
          signal: stop.signal,
        });
        continue;
      }
      console.log(describe(ev));
      if (synced && ++changes >= args.events) break;
    }
  } finally {
    clearTimeout(timer);
    offInterrupt();
    stop.abort();
    await informer.stop();
    cluster?.close();
    await served?.close();
  }
  console.log(`done: ${changes} changes after the sync${synced ? "" : " (never synced)"}`);
  return synced;
}
