/**
 * The pod-index controller of `examples/controller.ts`, run as several replicas that coordinate
 * through Leases: `--mode sharded` (the default) splits the namespaces among the replicas,
 * `--mode leader` lets one replica (the elected leader) do all the work while the others stand
 * by with warm caches.
 *
 * ```sh
 * deno run -A examples/sharded_controller.ts                # 3 replicas in this process on a simulated cluster, ~12 s
 * deno run -A examples/sharded_controller.ts --mode leader
 * bun --conditions=kinformer-source examples/sharded_controller.ts
 * # In a cluster, one replica per pod (manifests and RBAC in examples/deploy/):
 * deno run --allow-net --allow-read --allow-env examples/sharded_controller.ts --in-cluster
 * ```
 *
 * `--in-cluster` (Deno) reads the pod's service account, takes its identity from `POD_NAME` and
 * keeps its Leases in `POD_NAMESPACE`, and stops cleanly on SIGTERM: in-flight reconciles
 * finish, then its shards (or leadership) are released so the other replicas take over at once.
 * In a test, run replicas in-process with {@linkcode startReplica} on a `ManualClock`
 * (`tests/controller/example_sharded_controller_test.ts`).
 * @module
 */
import type { Clock } from "@kinformer/kinformer/cache";
import { configmaps, KubeClient, pods } from "@kinformer/kinformer";
import { LeaderElector, ShardCoordinator } from "@kinformer/kinformer/controller";
import { SimulatedCluster } from "@kinformer/kinformer/testing";
import { INDEX_NAME, type PodIndexController, startPodIndexController } from "./controller.ts";

/** Name of the Lease group (sharded) or of the Lease (leader). */
export const LEASE_NAME = "pod-index";

/** Options of {@linkcode startReplica}. */
export interface ReplicaOptions {
  /** Client of the cluster. */
  client: KubeClient;
  /** Stops the replica: reconciles finish, then the Leases are released. */
  signal: AbortSignal;
  /** This replica's identity (the pod name in a cluster). */
  identity: string;
  /** Namespace the Leases live in (the controller's own namespace in a cluster). */
  leaseNamespace: string;
  /** `sharded`: split the namespaces; `leader`: one replica works. @default "sharded" */
  mode?: "sharded" | "leader" | undefined;
  /** Number of shards (sharded mode). @default 16 */
  shards?: number | undefined;
  /**
   * Lease timings; client-go's defaults (15 s / 10 s / 2 s) unless given.
   * @default {}
   */
  timings?: { leaseDurationMs?: number; renewDeadlineMs?: number; retryPeriodMs?: number };
  /** Time source. @default the system clock */
  clock?: Clock | undefined;
  /** Random source. @default Math.random */
  random?: (() => number) | undefined;
  /** Told what the replica does. @default undefined (silent) */
  log?: ((line: string) => void) | undefined;
}

/** A running replica: the pod-index controller plus its coordinator or elector. */
export interface Replica extends PodIndexController {
  /** The shard coordinator (sharded mode). */
  readonly coordinator: ShardCoordinator | undefined;
  /** The elector (leader mode). */
  readonly elector: LeaderElector | undefined;
}

/**
 * Starts one replica of the pod-index controller with sharding or leader election.
 *
 * @example
 * ```ts
 * import { KubeClient, pods } from "@kinformer/kinformer";
 * import { SimulatedCluster } from "@kinformer/kinformer/testing";
 * import { startReplica } from "./sharded_controller.ts";
 *
 * const cluster = new SimulatedCluster({ autoCreateNamespaces: true });
 * cluster.create(pods, { metadata: { namespace: "shop", name: "web-1" } });
 * const stop = new AbortController();
 * const replicas = ["a", "b"].map((identity) =>
 *   startReplica({
 *     client: new KubeClient({ server: "http://sim.local", fetch: cluster.fetch }),
 *     signal: stop.signal,
 *     identity,
 *     leaseNamespace: "default",
 *   })
 * );
 * await new Promise((resolve) => setTimeout(resolve, 200));
 * const owned = replicas.map((r) => r.coordinator?.ownedShards().length ?? 0);
 * console.log(owned[0]! + owned[1]!); // 16: every shard has one owner (a fair split follows)
 * stop.abort();
 * await Promise.all(replicas.map((r) => r.done));
 * cluster.close();
 * ```
 */
export function startReplica(options: ReplicaOptions): Replica {
  const mode = options.mode ?? "sharded";
  const log = options.log ?? ((_line: string): void => {});
  const common = {
    client: options.client,
    namespace: options.leaseNamespace,
    name: LEASE_NAME,
    identity: options.identity,
    clock: options.clock,
    random: options.random,
    onError: (error: unknown) =>
      log(`lease request failed: ${error instanceof Error ? error.message : String(error)}`),
    ...options.timings,
  };
  let coordinator: ShardCoordinator | undefined;
  let elector: LeaderElector | undefined;
  if (mode === "sharded") {
    coordinator = new ShardCoordinator({
      ...common,
      shards: options.shards,
      onMembersChanged: (members) => log(`members: ${members.join(", ")}`),
    });
  } else if (mode === "leader") {
    elector = new LeaderElector({
      ...common,
      onStartedLeading: () => log("started leading"),
      onStoppedLeading: () => log("stopped leading"),
      onNewLeader: (leader) => log(`leader is ${leader}`),
    });
  } else {
    throw new TypeError(`mode must be "sharded" or "leader", got ${String(mode)}`);
  }
  const controller = startPodIndexController({
    client: options.client,
    signal: options.signal,
    clock: options.clock,
    random: options.random,
    log,
    ...(coordinator === undefined ? {} : { sharding: coordinator }),
    ...(elector === undefined ? {} : { leaderElection: elector }),
  });
  return Object.assign(controller, { coordinator, elector });
}

// ------------------------------------------------------------------ command line

interface Args {
  mode: "sharded" | "leader";
  inCluster: boolean;
  seconds: number;
}

function parseArgs(args: readonly string[]): Args {
  const out: Args = { mode: "sharded", inCluster: false, seconds: 12 };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === "--in-cluster") out.inCluster = true;
    else if (arg === "--mode") {
      const m = args[++i];
      if (m !== "sharded" && m !== "leader") throw new TypeError("--mode is sharded or leader");
      out.mode = m;
    } else if (arg === "--seconds") {
      out.seconds = Number(args[++i]);
      if (!(out.seconds > 0)) throw new RangeError("--seconds must be a positive number");
    } else throw new TypeError(`unknown argument ${JSON.stringify(arg)}`);
  }
  return out;
}

/** Calls `fn` on SIGTERM or SIGINT (Deno, Node, Bun); returns an undo. */
function onTermination(fn: () => void): () => void {
  const g = globalThis as {
    Deno?: {
      addSignalListener(s: "SIGINT" | "SIGTERM", f: () => void): void;
      removeSignalListener(s: "SIGINT" | "SIGTERM", f: () => void): void;
    };
    process?: {
      once(s: "SIGINT" | "SIGTERM", f: () => void): void;
      off(s: "SIGINT" | "SIGTERM", f: () => void): void;
    };
  };
  const signals = ["SIGINT", "SIGTERM"] as const;
  if (g.Deno !== undefined) {
    for (const s of signals) g.Deno.addSignalListener(s, fn);
    return () => signals.forEach((s) => g.Deno!.removeSignalListener(s, fn));
  }
  if (g.process !== undefined) {
    for (const s of signals) g.process.once(s, fn);
    return () => signals.forEach((s) => g.process!.off(s, fn));
  }
  return () => {};
}

function env(name: string): string | undefined {
  const g = globalThis as {
    Deno?: { env: { get(n: string): string | undefined } };
    process?: { env: Record<string, string | undefined> };
  };
  return g.Deno?.env.get(name) ?? g.process?.env[name];
}

/** One replica in a pod, until SIGTERM. */
async function runInCluster(args: Args): Promise<void> {
  if ((globalThis as { Deno?: unknown }).Deno === undefined) {
    throw new TypeError("--in-cluster uses the Deno config loader; run it with deno");
  }
  const { loadFromDefault } = await import("@kinformer/kinformer/config/deno");
  const config = await loadFromDefault();
  const identity = env("POD_NAME");
  if (identity === undefined) throw new TypeError("POD_NAME must be set (the downward API)");
  const stop = new AbortController();
  const undo = onTermination(() => stop.abort(new Error("terminating")));
  const replica = startReplica({
    client: new KubeClient(config),
    signal: stop.signal,
    identity,
    leaseNamespace: env("POD_NAMESPACE") ?? config.namespace ?? "default",
    mode: args.mode,
    log: (line) => console.log(`[${identity}] ${line}`),
  });
  try {
    await replica.done;
  } finally {
    undo();
  }
}

function sleepMs(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Three replicas (then a fourth) in this process, with churn and a crash. */
async function runSimulation(args: Args): Promise<void> {
  // Namespaces come into being with their first object (as with NamespaceAutoProvision).
  const cluster = new SimulatedCluster({ seed: 7, autoCreateNamespaces: true });
  const namespaces = ["shop", "search", "billing", "batch", "ml", "web", "auth", "mail", "cdn"];
  for (const [i, ns] of namespaces.entries()) {
    cluster.create(pods, { metadata: { namespace: ns, name: `seed-${i}` } });
  }
  // Short leases so the demo shows a takeover within seconds (defaults: 15 s / 10 s / 2 s).
  const timings = { leaseDurationMs: 3_000, renewDeadlineMs: 2_000, retryPeriodMs: 500 };
  const replicas = new Map<string, { replica: Replica; stop: AbortController; up: boolean }>();
  const start = (identity: string): void => {
    const stop = new AbortController();
    let up = true;
    const client = new KubeClient({
      server: "http://simulated.cluster",
      // a crashed replica's requests fail: it cannot even release its leases
      fetch: (request) =>
        up ? cluster.fetch(request) : Promise.reject(new TypeError("replica crashed")),
    });
    const replica = startReplica({
      client,
      signal: stop.signal,
      identity,
      leaseNamespace: "kube-system",
      mode: args.mode,
      timings,
      log: (line) => {
        if (!line.startsWith("lease request failed")) console.log(`[${identity}] ${line}`);
      },
    });
    const entry = {
      replica,
      stop,
      get up(): boolean {
        return up;
      },
      set up(v: boolean) {
        up = v;
      },
    };
    replicas.set(identity, entry);
  };
  const churn = cluster.startChurn({
    resource: pods,
    namespaces,
    ratePerSecond: 10,
    mix: { create: 3, update: 1, delete: 2, recreate: 1, labelFlip: 0 },
  });
  const show = (): void => {
    const parts = [...replicas].filter(([, e]) => e.up).map(([id, e]) => {
      const r = e.replica;
      const owned = r.coordinator?.ownedShards() ?? (r.elector?.isLeader() ? ["leader"] : []);
      return `${id}: ${owned.length === 0 ? "-" : owned.join(",")} (${r.stats.reconciles})`;
    });
    console.log(`[sim] ${parts.join("   ")}`);
  };
  console.log(
    `${args.mode} mode: 3 replicas, pods churning at 10/s in ${namespaces.length} namespaces`,
  );
  for (const id of ["replica-a", "replica-b", "replica-c"]) start(id);
  const tick = args.seconds * 1000 / 12;
  for (let i = 1; i <= 12; i++) {
    await sleepMs(tick);
    if (i === 4) {
      const victim = args.mode === "leader"
        ? [...replicas].find(([, e]) => e.replica.elector?.isLeader())?.[0] ?? "replica-a"
        : "replica-b";
      console.log(`[sim] ${victim} crashes (no goodbye: its leases expire)`);
      const e = replicas.get(victim)!;
      e.up = false;
      e.stop.abort();
    }
    if (i === 8) {
      console.log("[sim] replica-d joins");
      start("replica-d");
    }
    show();
  }
  churn.stop();
  await sleepMs(tick * 2);
  for (const e of replicas.values()) e.stop.abort();
  await Promise.all([...replicas.values()].map((e) => e.replica.done.catch(() => {})));
  let wrong = 0;
  for (const ns of namespaces) {
    const names = cluster.list(pods, { namespace: ns }).map((p) => p.metadata.name!).sort();
    const cm = cluster.get(configmaps, { namespace: ns, name: INDEX_NAME }) as
      | { data?: Record<string, string> }
      | undefined;
    const ok = names.length === 0 ? cm === undefined : cm?.data?.pods === names.join(",");
    if (!ok) wrong++;
    console.log(
      `  ${ns.padEnd(8)} ${String(names.length).padStart(3)} pods  ${ok ? "ok" : "WRONG"}`,
    );
  }
  cluster.close();
  console.log(wrong === 0 ? "every pod-index is right" : `${wrong} pod-index(es) wrong`);
  if (wrong > 0) throw new Error("the replicas did not converge");
}

/** True when this file is the program being run, not imported (or bundled into a test). */
function isMainModule(): boolean {
  const url = new URL(import.meta.url);
  if (!/\/sharded_controller\.[cm]?[jt]s$/.test(url.pathname)) return false; // bundled
  const meta = import.meta as ImportMeta & { main?: boolean };
  if (typeof meta.main === "boolean") return meta.main; // Deno, Bun, Node >= 24
  const argv1 = (globalThis as { process?: { argv?: string[] } }).process?.argv?.[1];
  return argv1 !== undefined &&
    decodeURIComponent(url.pathname).endsWith(argv1.replaceAll("\\", "/"));
}

if (isMainModule()) {
  const g = globalThis as { Deno?: { args: string[] }; process?: { argv: string[] } };
  const args = parseArgs(g.Deno?.args ?? g.process?.argv.slice(2) ?? []);
  await (args.inCluster ? runInCluster(args) : runSimulation(args));
}
