/**
 * The kinformer demo (`npm start`).
 *
 * With no arguments it starts a simulated Kubernetes API server in-process with live pod churn
 * and injected faults (dropped watches, a compacted history that forces a 410 relist, throttling,
 * bodies split into tiny chunks), runs a SharedInformerFactory over it, prints the event stream
 * from `informer.events()`, sync progress and cache size, and checks at the end that the cache
 * equals the server's state.
 *
 * Against a real cluster, as kubectl reaches it (TLS, client certificates, exec plugins for EKS,
 * GKE and AKS; `--kubeconfig` alone: KUBECONFIG, else ~/.kube/config, else in-cluster):
 *   npm start -- --kubeconfig [PATH] [--context NAME] [--namespace NS] [--seconds 30]
 * or through `kubectl proxy`:
 *   npm start -- --server http://127.0.0.1:8001 [--token TOKEN] [--namespace NS] [--seconds 30]
 *
 * Runs on Deno (`deno run -A examples/demo.ts`), Bun (`bun --conditions=kinformer-source examples/demo.ts`) and Node (bundled).
 * @module
 */
import {
  configmaps,
  type InformerEvent,
  KubeClient,
  type KubeObject,
  pods,
  SharedInformerFactory,
} from "@kinformer/kinformer";
import { objectKey } from "@kinformer/kinformer/cache";
import { SimulatedCluster } from "@kinformer/kinformer/testing";

interface Args {
  server?: string;
  /** A kubeconfig: its path, or "" for the usual lookup (KUBECONFIG, ~/.kube/config, in-cluster). */
  kubeconfig?: string;
  context?: string;
  token?: string;
  namespace?: string;
  seconds: number;
  quiet: boolean;
}

function parseArgs(argv: string[]): Args {
  const args: Args = { seconds: 12, quiet: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const value = (): string => {
      const v = argv[++i];
      if (v === undefined) throw new TypeError(`${a} needs a value`);
      return v;
    };
    if (a === "--server") args.server = value();
    else if (a === "--kubeconfig") {
      // An optional path: `--kubeconfig` alone means the usual lookup.
      const next = argv[i + 1];
      args.kubeconfig = next !== undefined && !next.startsWith("--") ? argv[++i]! : "";
    } else if (a === "--context") args.context = value();
    else if (a === "--token") args.token = value();
    else if (a === "--namespace") args.namespace = value();
    else if (a === "--seconds") args.seconds = Number(value());
    else if (a === "--quiet") args.quiet = true;
    else if (a === "--help" || a === "-h") {
      console.log(
        "usage: demo [--server URL [--token TOKEN] | --kubeconfig [PATH] [--context NAME]]\n" +
          "            [--namespace NS] [--seconds N] [--quiet]",
      );
      throw new Error("help");
    } else throw new TypeError(`unknown argument ${a}`);
  }
  if (!(args.seconds > 0)) throw new RangeError(`--seconds must be positive, got ${args.seconds}`);
  return args;
}

function runtimeArgs(): string[] {
  const g = globalThis as { Deno?: { args: string[] }; process?: { argv: string[] } };
  return g.Deno?.args ?? g.process?.argv.slice(2) ?? [];
}

const started = Date.now();
const stamp = (): string => `+${((Date.now() - started) / 1000).toFixed(2)}s`.padStart(8);

function describe(ev: InformerEvent): string {
  switch (ev.type) {
    case "add":
      return `ADD     ${objectKey(ev.object)}${ev.isInInitialList ? " (initial list)" : ""}`;
    case "update":
      return ev.object === ev.oldObject
        ? `RESYNC  ${objectKey(ev.object)}`
        : `UPDATE  ${
          objectKey(ev.object)
        } rv ${ev.oldObject.metadata.resourceVersion} -> ${ev.object.metadata.resourceVersion}`;
    case "delete":
      return `DELETE  ${objectKey(ev.object)}${
        ev.finalStateUnknown ? " (deleted while disconnected)" : ""
      }`;
    case "synced":
      return "SYNCED  this listener has the whole initial list";
  }
}

export async function main(argv: string[] = runtimeArgs()): Promise<number> {
  let args: Args;
  try {
    args = parseArgs(argv);
  } catch (e) {
    if ((e as Error).message !== "help") console.error(String(e));
    return (e as Error).message === "help" ? 0 : 2;
  }
  const stop = new AbortController();
  let cluster: SimulatedCluster | undefined;
  let client: KubeClient;
  let closeConfig = (): void => {};
  if (args.kubeconfig !== undefined) {
    // A real cluster as kubectl sees it: TLS, client certificates, exec plugins (EKS, GKE, AKS).
    // The loader of the runtime this runs on (an example may pick; the library never sniffs).
    const { loadFromDefault, loadKubeconfig } = "Deno" in globalThis
      ? await import("@kinformer/kinformer/config/deno")
      : "Bun" in globalThis
      ? await import("@kinformer/kinformer/config/bun")
      : await import("@kinformer/kinformer/config/node");
    const options = args.kubeconfig === ""
      ? await loadFromDefault(args.context ? { context: args.context } : {})
      : await loadKubeconfig({
        path: args.kubeconfig,
        ...(args.context ? { context: args.context } : {}),
      });
    closeConfig = () => options.close();
    client = new KubeClient(options);
    console.log(`kinformer demo: watching pods on ${options.server} for ${args.seconds}s`);
  } else if (args.server) {
    client = new KubeClient({ server: args.server, ...(args.token ? { token: args.token } : {}) });
    console.log(`kinformer demo: watching pods on ${args.server} for ${args.seconds}s`);
  } else {
    cluster = new SimulatedCluster({ seed: 42 });
    cluster.churn(150, {
      resource: pods,
      namespaces: ["default", "shop", "kube-system"],
      mix: { create: 1, update: 0, delete: 0, recreate: 0, labelFlip: 0 },
    });
    client = new KubeClient({ server: "http://simulated.cluster", fetch: cluster.fetch });
    console.log(
      `kinformer demo: simulated cluster with ${
        cluster.list(pods).length
      } pods, churn 8 ops/s, faults on a schedule, ${args.seconds}s`,
    );
  }

  const errors: string[] = [];
  const factory = new SharedInformerFactory(client, {
    ...(args.namespace ? { namespace: args.namespace } : {}),
    transform: (o: KubeObject) => {
      delete o.metadata.managedFields; // the standard memory saver
      return o;
    },
    onError: (error, ctx) => {
      const line = `${ctx.kind} during ${ctx.phase}; ${ctx.action}: ${(error as Error).message}`;
      errors.push(line);
      console.log(`${stamp()}  !       ${line}`);
    },
  });
  const podInformer = factory.informerFor(pods);
  const cmInformer = factory.informerFor(configmaps);
  factory.start();

  const t0 = Date.now();
  const syncs = factory.waitForSync().then(() => {
    console.log(
      `${stamp()}  cache synced in ${
        Date.now() - t0
      } ms: ${podInformer.store.size} pods, ${cmInformer.store.size} configmaps`,
    );
  });

  // Faults on a schedule, so the output shows the informer recovering.
  const timers: ReturnType<typeof setTimeout>[] = [];
  let churn: { stop(): void } | undefined;
  if (cluster) {
    const c = cluster;
    const at = (seconds: number, what: string, fn: () => void) =>
      timers.push(setTimeout(() => {
        console.log(`${stamp()}  *       fault: ${what}`);
        fn();
      }, seconds * 1000));
    churn = c.startChurn({
      resource: pods,
      namespaces: ["default", "shop", "kube-system"],
      ratePerSecond: 8,
    });
    at(
      args.seconds * 0.2,
      "drop every open watch (the informer resumes from its RV, no relist)",
      () => c.faults.dropWatches(),
    );
    at(
      args.seconds * 0.35,
      "deliver bodies in 1-9 byte chunks",
      () => c.faults.chunkBodies({ maxChunkBytes: 9 }),
    );
    at(args.seconds * 0.5, "compact history + drop watches (410 Gone: relist, tombstones)", () => {
      c.faults.wholeBodies();
      c.faults.dropWatches();
      c.churn(6, { resource: pods, namespaces: ["default", "shop"] });
      c.faults.compact();
    });
    at(args.seconds * 0.7, "throttle the next 2 requests with 429 + Retry-After: 1", () => {
      c.faults.failNext(2, { status: 429, retryAfterSeconds: 1 });
      c.faults.dropWatches();
    });
  }
  const health = setInterval(() => {
    const h = podInformer.health();
    console.log(
      `${stamp()}  health  state=${h.state} pods=${h.objects} rv=${h.lastSyncResourceVersion} lists=${h.lists} relists=${h.relists} watchRestarts=${h.watchRestarts} backlog=${
        h.listeners.map((l) => l.backlog).join("/")
      }`,
    );
  }, Math.max(1000, (args.seconds * 1000) / 5));
  const end = setTimeout(() => stop.abort(), args.seconds * 1000);

  let count = 0;
  const quietAfter = 12;
  for await (const ev of podInformer.events({ signal: stop.signal })) {
    count++;
    if (args.quiet) continue;
    if (ev.type === "add" && ev.isInInitialList && count > quietAfter) {
      if (count === quietAfter + 1) console.log(`${stamp()}  ...     (initial list continues)`);
      continue;
    }
    console.log(`${stamp()}  ${describe(ev)}`);
  }
  clearTimeout(end);
  clearInterval(health);
  for (const t of timers) clearTimeout(t);
  churn?.stop();
  await syncs.catch(() => {});
  let exit = 0;
  if (cluster) {
    // Quiesce, then a catch-up run: everything up to the server's current RV, then it ends.
    cluster.faults.reset();
    let caughtUp = 0;
    for await (const _ of podInformer.events({ until: "current", replayCache: false })) caughtUp++;
    const want = new Map(cluster.list(pods).map((p) => [objectKey(p), p.metadata.resourceVersion]));
    const have = new Map(
      podInformer.store.list().map((p) => [objectKey(p), p.metadata.resourceVersion]),
    );
    const same = want.size === have.size && [...want].every(([k, rv]) => have.get(k) === rv);
    console.log(
      `${stamp()}  done: ${count} events (+${caughtUp} in the final catch-up), ${errors.length} recovered errors; cache matches the server: ${
        same ? "yes" : "NO"
      } (${have.size} pods)`,
    );
    if (!same) exit = 1;
  } else {
    console.log(`${stamp()}  done: ${count} events, ${podInformer.store.size} pods cached`);
  }
  await factory.stop();
  cluster?.close();
  closeConfig();
  return exit;
}

if (import.meta.main) {
  const code = await main();
  const g = globalThis as { Deno?: { exit(c: number): never }; process?: { exitCode?: number } };
  if (g.Deno) g.Deno.exit(code);
  else if (g.process) g.process.exitCode = code;
}
