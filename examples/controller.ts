/**
 * An example controller: keeps one `pod-index` ConfigMap per namespace whose `data` lists the
 * namespace's pods (`pods: "a,b,c"`, sorted, and `count: "3"`). It creates the ConfigMap when
 * the first pod appears, updates it as pods come and go, and deletes it when the last pod is
 * gone. It only ever touches ConfigMaps labelled `app.kubernetes.io/managed-by=
 * kinformer-pod-index`; a `pod-index` ConfigMap someone else made is left alone.
 *
 * How it is built: a {@linkcode SharedInformerFactory} with a pods informer and a configmaps
 * informer (only objects named `pod-index`), {@linkcode runController} with two workers and
 * namespace names as keys. Reconcile reads only the informers' listers, never the API, and
 * writes with optimistic concurrency (create; replace with the cached `resourceVersion`;
 * delete with uid and resourceVersion preconditions). A 409 Conflict or a failed write throws,
 * so the work queue retries the namespace with backoff once the cache has caught up.
 *
 * Run it:
 *
 * ```sh
 * deno run -A examples/controller.ts        # in-process simulated cluster, churn and faults, ~10 s
 * bun --conditions=kinformer-source examples/controller.ts                # the same on Bun
 * kubectl proxy &                           # a real cluster (needs rights on pods and configmaps)
 * deno run -A examples/controller.ts --server http://127.0.0.1:8001
 * deno run -A examples/controller.ts --server https://my-cluster:6443 --token "$TOKEN" --seconds 60
 * ```
 *
 * In a test, run it in-process with {@linkcode startPodIndexController} on a `ManualClock`
 * (see `tests/controller/example_controller_test.ts`).
 * @module
 */
import type { Clock, ErrorContext } from "@kinformer/kinformer/cache";
import {
  configmaps,
  type ErrorKind,
  KubeApiError,
  KubeClient,
  type KubeObject,
  pods,
  SharedInformerFactory,
} from "@kinformer/kinformer";
import {
  type LeaderElector,
  type LeaderElectorOptions,
  type ReconcileContext,
  runController,
  type ShardCoordinator,
  type ShardCoordinatorOptions,
} from "@kinformer/kinformer/controller";
import { RateLimitingQueue } from "@kinformer/kinformer/queue";
import { resourcePath } from "@kinformer/kinformer/client";
import { SimulatedCluster } from "@kinformer/kinformer/testing";

/** Name of the ConfigMap kept in every namespace that has pods. */
export const INDEX_NAME = "pod-index";
/** Label that marks a ConfigMap as this controller's. */
export const MANAGED_BY_LABEL = "app.kubernetes.io/managed-by";
/** Value of {@linkcode MANAGED_BY_LABEL} on this controller's ConfigMaps. */
export const MANAGER = "kinformer-pod-index";

/** A ConfigMap, as far as this controller cares. */
export interface ConfigMap extends KubeObject {
  /** String data. */
  data?: Record<string, string>;
}

/** Options of {@linkcode startPodIndexController}. */
export interface PodIndexControllerOptions {
  /** Client of the cluster (a real one, or one whose `fetch` is a `SimulatedCluster`). */
  client: KubeClient;
  /** Stops the controller: in-flight writes finish, then every watch and timer is released. */
  signal: AbortSignal;
  /**
   * Time source of the informers and the work queue; tests pass a `ManualClock`.
   * @default the system clock
   */
  clock?: Clock | undefined;
  /**
   * Namespaces reconciled at once (one namespace is never reconciled twice at once).
   * @default 2
   */
  workers?: number | undefined;
  /**
   * Random source of the informers' backoff jitter; tests pass a seeded one.
   * @default Math.random
   */
  random?: (() => number) | undefined;
  /**
   * Told what the controller does, one line per write, conflict, failure or skipped object.
   * @default undefined (silent)
   */
  log?: ((line: string) => void) | undefined;
  /**
   * Run as one of several replicas of which only the leader reconciles (passed to
   * `runController`; see `examples/sharded_controller.ts`).
   * @default undefined (this process alone)
   */
  leaderElection?: LeaderElector | LeaderElectorOptions | undefined;
  /**
   * Run as one of several replicas that split the namespaces among them (passed to
   * `runController`; see `examples/sharded_controller.ts`).
   * @default undefined (this process alone)
   */
  sharding?: ShardCoordinator | ShardCoordinatorOptions | undefined;
}

/** What the controller has done so far. */
export interface PodIndexStats {
  /** Reconcile calls. */
  reconciles: number;
  /** ConfigMaps created. */
  created: number;
  /** ConfigMaps replaced with a new pod list. */
  updated: number;
  /** ConfigMaps deleted because their namespace has no pods left. */
  deleted: number;
  /** Reconciles that found the ConfigMap already right. */
  unchanged: number;
  /** Writes answered 409 (stale cache or a concurrent writer); each was retried. */
  conflicts: number;
  /** Reconciles that failed otherwise (5xx, network, ...); each was retried. */
  failures: number;
  /** Reconciles that found a `pod-index` ConfigMap it does not own, and left it alone. */
  skippedForeign: number;
  /** Errors the informers met and recovered from, by kind (`network`, `expired`, ...). */
  informerErrors: Partial<Record<ErrorKind, number>>;
}

/** A running pod-index controller; from {@linkcode startPodIndexController}. */
export interface PodIndexController {
  /**
   * Resolves once the controller has stopped after `signal` aborted and released every watch
   * and timer; rejects if it stopped on a fatal error.
   */
  readonly done: Promise<void>;
  /** Resolves once both informer caches hold a complete list. */
  waitForSync(): Promise<void>;
  /** Counters (live). */
  readonly stats: Readonly<PodIndexStats>;
  /** Namespaces whose last reconcile failed and that wait for a retry, with the error. */
  readonly failing: ReadonlyMap<string, unknown>;
  /**
   * True when the controller is caught up: both informers are synced and watching (not
   * listing or backing off), no event waits for delivery, no namespace is queued or being
   * reconciled, and none waits for a retry after a failure.
   */
  readonly idle: boolean;
}

/** The `data` of a `pod-index` ConfigMap for these pod names. */
function indexData(podNames: readonly string[]): Record<string, string> {
  return { pods: podNames.join(","), count: String(podNames.length) };
}

function sameData(a: Record<string, string> | undefined, b: Record<string, string>): boolean {
  if (a === undefined) return false;
  const keys = Object.keys(b);
  return Object.keys(a).length === keys.length && keys.every((k) => a[k] === b[k]);
}

/** The controller keeps only what it reads of a pod: 2-4 KB of JSON become ~100 bytes. */
function slimPod(pod: KubeObject): KubeObject {
  const { name, namespace, uid, resourceVersion } = pod.metadata;
  const metadata: KubeObject["metadata"] = {};
  if (name !== undefined) metadata.name = name;
  if (namespace !== undefined) metadata.namespace = namespace;
  if (uid !== undefined) metadata.uid = uid;
  if (resourceVersion !== undefined) metadata.resourceVersion = resourceVersion;
  return { metadata };
}

function describeError(error: unknown): string {
  if (error instanceof KubeApiError) return `${error.code} ${error.reason}: ${error.message}`;
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

/**
 * Starts the pod-index controller and returns at once; it runs until `options.signal` aborts.
 *
 * @example
 * ```ts
 * import { configmaps, KubeClient, pods } from "@kinformer/kinformer";
 * import { SimulatedCluster } from "@kinformer/kinformer/testing";
 * import { startPodIndexController } from "./controller.ts";
 *
 * const cluster = new SimulatedCluster({ autoCreateNamespaces: true });
 * cluster.create(pods, { metadata: { namespace: "shop", name: "web-1" } });
 * const client = new KubeClient({ server: "http://sim.local", fetch: cluster.fetch });
 * const stop = new AbortController();
 * const controller = startPodIndexController({ client, signal: stop.signal, log: console.log });
 * await controller.waitForSync();
 * while (!controller.idle) await new Promise((resolve) => setTimeout(resolve, 10));
 * // logged: created shop/pod-index (1 pods: web-1)
 * console.log(cluster.get(configmaps, { namespace: "shop", name: "pod-index" })?.data);
 * // { pods: "web-1", count: "1" }
 * stop.abort();
 * await controller.done;
 * cluster.close();
 * ```
 */
export function startPodIndexController(options: PodIndexControllerOptions): PodIndexController {
  if (typeof options !== "object" || options === null) {
    throw new TypeError(`options must be an object, got ${String(options)}`);
  }
  const { client, signal } = options;
  if (!(client instanceof KubeClient)) throw new TypeError("options.client must be a KubeClient");
  if (!(signal instanceof AbortSignal)) {
    throw new TypeError("options.signal must be an AbortSignal");
  }
  const workers = options.workers ?? 2;
  if (!Number.isInteger(workers) || workers < 1) {
    throw new RangeError(`options.workers must be a positive integer, got ${String(workers)}`);
  }
  const clock = options.clock;
  const log = options.log ?? ((_line: string): void => {});

  const stats: PodIndexStats = {
    reconciles: 0,
    created: 0,
    updated: 0,
    deleted: 0,
    unchanged: 0,
    conflicts: 0,
    failures: 0,
    skippedForeign: 0,
    informerErrors: {},
  };
  const failing = new Map<string, unknown>();
  const foreign = new Set<string>(); // namespaces whose pod-index is someone else's (logged once)

  const factory = new SharedInformerFactory(client, {
    clock,
    random: options.random,
    onError: (error, context) => {
      stats.informerErrors[context.kind] = (stats.informerErrors[context.kind] ?? 0) + 1;
      log(`informer recovering from ${context.kind} error: ${describeError(error)}`);
    },
  });
  const podInformer = factory.informerFor(pods, { transform: slimPod });
  const indexInformer = factory.informerFor<ConfigMap>(configmaps, {
    fieldSelector: `metadata.name=${INDEX_NAME}`,
  });
  const queue = new RateLimitingQueue<string>({
    name: "pod-index",
    ...(clock === undefined ? {} : { clock }),
  });

  /** Brings `namespace`'s pod-index in line with the pods in the cache. */
  const reconcile = async (namespace: string, { signal }: ReconcileContext): Promise<void> => {
    stats.reconciles++;
    const names = podInformer.lister.namespace(namespace).list()
      .map((pod) => pod.metadata.name ?? "")
      .sort();
    const current = indexInformer.lister.namespace(namespace).get(INDEX_NAME);
    const ref = `${namespace}/${INDEX_NAME}`;

    if (current !== undefined && current.metadata.labels?.[MANAGED_BY_LABEL] !== MANAGER) {
      stats.skippedForeign++;
      if (!foreign.has(namespace)) log(`leaving ${ref} alone: it is not managed by ${MANAGER}`);
      foreign.add(namespace);
      failing.delete(namespace);
      return;
    }
    foreign.delete(namespace);

    if (names.length === 0) {
      if (current !== undefined) {
        // Delete exactly the version we looked at: a 409 means our cache is behind.
        const path = resourcePath(configmaps, { namespace, name: INDEX_NAME });
        try {
          const response = await client.request(path, {
            method: "DELETE",
            body: {
              apiVersion: "v1",
              kind: "DeleteOptions",
              preconditions: {
                uid: current.metadata.uid,
                resourceVersion: current.metadata.resourceVersion,
              },
            },
            signal,
          });
          await response.body?.cancel();
          stats.deleted++;
          log(`deleted ${ref} (no pods left)`);
        } catch (error) {
          if (!(error instanceof KubeApiError && error.code === 404)) throw error;
        }
      }
      failing.delete(namespace);
      return;
    }

    const data = indexData(names);
    const summary = `${names.length} pods: ${
      names.length > 5 ? `${names.slice(0, 5).join(", ")}, ...` : names.join(", ")
    }`;
    if (current === undefined) {
      await client.create<ConfigMap>(configmaps, {
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { name: INDEX_NAME, namespace, labels: { [MANAGED_BY_LABEL]: MANAGER } },
        data,
      }, { signal });
      stats.created++;
      log(`created ${ref} (${summary})`);
    } else if (sameData(current.data, data)) {
      stats.unchanged++;
    } else {
      // The cached resourceVersion makes this an optimistic-concurrency write.
      await client.replace<ConfigMap>(configmaps, {
        ...current,
        apiVersion: "v1",
        kind: "ConfigMap",
        data,
      }, { signal });
      stats.updated++;
      log(`updated ${ref} (${summary})`);
    }
    failing.delete(namespace);
  };

  const onError = (error: unknown, context: ErrorContext): void => {
    const namespace = context.key;
    if (namespace === undefined) {
      log(`error: ${describeError(error)}`);
      return;
    }
    failing.set(namespace, error);
    if (error instanceof KubeApiError && error.code === 409) {
      stats.conflicts++;
      log(`conflict on ${namespace}/${INDEX_NAME} (${error.reason}); retrying with backoff`);
    } else {
      stats.failures++;
      log(`reconcile ${namespace} failed (${describeError(error)}); retrying with backoff`);
    }
  };

  factory.start({ signal });
  const done = (async (): Promise<void> => {
    try {
      await runController<KubeObject>({
        informers: [podInformer, indexInformer],
        reconcile,
        signal,
        workers,
        queue,
        clock,
        onError,
        startInformers: false, // the factory started them
        keyFor: (object) => object.metadata.namespace, // both kinds map to their namespace
        ...(options.leaderElection === undefined ? {} : { leaderElection: options.leaderElection }),
        ...(options.sharding === undefined ? {} : { sharding: options.sharding }),
      });
    } finally {
      await factory.stop();
    }
  })();

  return {
    done,
    waitForSync: () => factory.waitForSync({ signal }),
    stats,
    failing,
    get idle(): boolean {
      // A namespace that failed waits in the queue's delay heap until its retry; one that has
      // succeeded since may still have a stale retry there, which will find nothing to do.
      const q = queue.metrics();
      if (q.depth > 0 || q.inFlight > 0 || failing.size > 0) return false;
      return factory.informers.every((informer) => {
        const health = informer.health();
        return health.synced && health.activity === "watching" &&
          health.listeners.every((listener) => listener.backlog === 0);
      });
    },
  };
}

// ------------------------------------------------------------------ running it as a script

interface Args {
  help: boolean;
  server: string | undefined;
  token: string | undefined;
  seconds: number | undefined;
}

function parseArgs(args: readonly string[]): Args {
  const out: Args = { help: false, server: undefined, token: undefined, seconds: undefined };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    const [flag, inline] = arg.includes("=") ? arg.split(/=(.*)/s, 2) as [string, string] : [arg];
    const value = (): string => {
      const v = inline ?? args[++i];
      if (v === undefined || v === "") throw new TypeError(`${flag} needs a value`);
      return v;
    };
    if (flag === "--server") out.server = value();
    else if (flag === "--token") out.token = value();
    else if (flag === "--seconds") {
      out.seconds = Number(value());
      if (!(out.seconds > 0)) throw new RangeError(`--seconds must be a positive number`);
    } else if (flag === "--help" || flag === "-h") {
      out.help = true;
    } else throw new TypeError(`unknown argument ${JSON.stringify(arg)} (try --help)`);
  }
  return out;
}

function sleepMs(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    }
    signal?.addEventListener("abort", done, { once: true });
  });
}

function aborted(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener("abort", () => resolve(), { once: true });
  });
}

/** Calls `fn` on Ctrl-C where the runtime lets us hear it (Node, Bun, Deno); returns an undo. */
function onInterrupt(fn: () => void): () => void {
  const g = globalThis as {
    Deno?: {
      addSignalListener(s: "SIGINT", f: () => void): void;
      removeSignalListener(s: "SIGINT", f: () => void): void;
    };
    process?: { once(s: "SIGINT", f: () => void): void; off(s: "SIGINT", f: () => void): void };
  };
  if (g.Deno !== undefined) {
    g.Deno.addSignalListener("SIGINT", fn);
    return () => g.Deno!.removeSignalListener("SIGINT", fn);
  }
  if (g.process !== undefined) {
    g.process.once("SIGINT", fn);
    return () => g.process!.off("SIGINT", fn);
  }
  return () => {};
}

/** Runs against a real cluster until Ctrl-C (or `--seconds`). */
async function runAgainstServer(args: Args): Promise<void> {
  const client = new KubeClient({ server: args.server!, token: args.token });
  const stop = new AbortController();
  const undo = onInterrupt(() => stop.abort(new Error("interrupted")));
  console.log(`pod-index controller on ${client.server}; Ctrl-C to stop`);
  const controller = startPodIndexController({
    client,
    signal: stop.signal,
    log: (line) => console.log(`[controller] ${line}`),
  });
  try {
    await controller.waitForSync();
    console.log("caches synced; reconciling every namespace");
    await (args.seconds === undefined
      ? aborted(stop.signal)
      : sleepMs(args.seconds * 1000, stop.signal));
  } finally {
    stop.abort();
    await controller.done;
    undo();
  }
  console.log("stopped", controller.stats);
}

/** Every namespace's pod-index as the simulated cluster has it, beside its pods. */
function report(cluster: SimulatedCluster): { lines: string[]; wrong: string[] } {
  const byNamespace = new Map<string, string[]>();
  for (const pod of cluster.list(pods)) {
    const ns = pod.metadata.namespace!;
    byNamespace.set(ns, [...(byNamespace.get(ns) ?? []), pod.metadata.name!]);
  }
  const indexes = new Map<string, ConfigMap>();
  for (const cm of cluster.list(configmaps, { fieldSelector: `metadata.name=${INDEX_NAME}` })) {
    indexes.set(cm.metadata.namespace!, cm as ConfigMap);
  }
  const lines: string[] = [];
  const wrong: string[] = [];
  for (const ns of [...new Set([...byNamespace.keys(), ...indexes.keys()])].sort()) {
    const names = (byNamespace.get(ns) ?? []).sort();
    const cm = indexes.get(ns);
    const ours = cm?.metadata.labels?.[MANAGED_BY_LABEL] === MANAGER;
    const shown = cm === undefined
      ? "no pod-index"
      : `pod-index count=${cm.data?.count ?? "?"}${ours ? "" : " (not ours, left alone)"}`;
    lines.push(`  ${ns.padEnd(10)} ${String(names.length).padStart(3)} pods   ${shown}`);
    if (cm !== undefined && !ours) continue;
    const right = names.length === 0 ? cm === undefined : sameData(cm?.data, indexData(names));
    if (!right) wrong.push(ns);
  }
  return { lines, wrong };
}

/** Runs against an in-process simulated cluster with churn and faults for about 10 s. */
async function runSimulation(seconds: number): Promise<void> {
  // Namespaces come into being with their first object (as with NamespaceAutoProvision).
  const cluster = new SimulatedCluster({ seed: 42, autoCreateNamespaces: true });
  const namespaces = ["shop", "search", "billing", "batch"];
  let n = 0;
  for (const ns of namespaces) {
    for (let i = 0; i < 3; i++) {
      cluster.create(pods, { metadata: { namespace: ns, name: `seed-${n++}` } });
    }
  }
  // A stale index in a namespace without pods (to be deleted), and someone else's pod-index.
  cluster.create(configmaps, {
    metadata: { namespace: "retired", name: INDEX_NAME, labels: { [MANAGED_BY_LABEL]: MANAGER } },
    data: { pods: "old-1", count: "1" },
  });
  cluster.create(configmaps, {
    metadata: { namespace: "legacy", name: INDEX_NAME },
    data: { note: "hand-made; not the controller's" },
  });
  cluster.create(pods, { metadata: { namespace: "legacy", name: "old-app" } });

  const client = new KubeClient({ server: "http://simulated.cluster", fetch: cluster.fetch });
  const stop = new AbortController();
  const undo = onInterrupt(() => stop.abort(new Error("interrupted")));
  console.log(`simulated cluster: ${n + 1} pods in ${namespaces.length + 1} namespaces`);
  const controller = startPodIndexController({
    client,
    signal: stop.signal,
    log: (line) => console.log(`[controller] ${line}`),
  });
  const churn = cluster.startChurn({
    resource: pods,
    namespaces,
    ratePerSecond: 15,
    mix: { create: 3, update: 1, delete: 2, recreate: 1, labelFlip: 1 },
    signal: stop.signal,
  });
  const step = (seconds * 1000) / 10;
  const faults: Array<[string, () => void]> = [
    [
      "bodies now arrive in chunks of 1-64 bytes",
      () => cluster.faults.chunkBodies({ maxChunkBytes: 64 }),
    ],
    ["the next 3 writes fail with 500", () => {
      cluster.faults.failNext(1, { verb: "create" });
      cluster.faults.failNext(1, { verb: "update" });
      cluster.faults.failNext(1, { verb: "delete" });
    }],
    ["every watch dropped", () => cluster.faults.dropWatches()],
    ["history compacted and watches dropped: re-watches get 410 and relist", () => {
      cluster.faults.compact();
      cluster.faults.dropWatches();
    }],
    ["someone edits shop/pod-index by hand", () => {
      const cm = cluster.get(configmaps, { namespace: "shop", name: INDEX_NAME });
      if (cm) cluster.update(configmaps, { ...cm, data: { pods: "hand-edited" } });
    }],
    ["faults cleared", () => cluster.faults.reset()],
  ];
  try {
    await controller.waitForSync();
    console.log(`caches synced; churning pods at 15/s for ${seconds} s with faults`);
    for (const [what, inject] of faults) {
      await sleepMs(step, stop.signal);
      if (stop.signal.aborted) break;
      console.log(`[sim] ${what}`);
      inject();
    }
    await sleepMs(step * 2, stop.signal);
    churn.stop();
    console.log(
      `[sim] churn stopped after ${churn.stats.steps} changes; waiting for the controller`,
    );
    // Informers may still be backing off after the faults: give them up to 30 s.
    for (let i = 0; i < 300 && !stop.signal.aborted; i++) {
      if (controller.idle && report(cluster).wrong.length === 0) break;
      await sleepMs(100, stop.signal);
    }
  } finally {
    stop.abort();
    await controller.done;
    undo();
    cluster.close();
  }
  const { lines, wrong } = report(cluster);
  console.log("final state:");
  for (const line of lines) console.log(line);
  const { informerErrors, ...counts } = controller.stats;
  console.log("controller:", counts);
  console.log("informer errors recovered from:", informerErrors);
  if (wrong.length > 0) throw new Error(`pod-index out of date in ${wrong.join(", ")}`);
  console.log("every pod-index matches its namespace's pods");
}

/** Entry point: `--server URL [--token T] [--seconds N]`, or a simulated cluster. */
export async function main(args: readonly string[]): Promise<void> {
  const parsed = parseArgs(args);
  if (parsed.help) {
    console.log("usage: controller.ts [--server URL [--token T]] [--seconds N]");
    return;
  }
  if (parsed.server !== undefined) await runAgainstServer(parsed);
  else await runSimulation(parsed.seconds ?? 10);
}

/** True when this file is the program being run, not imported (or bundled into a test). */
function isMainModule(): boolean {
  const url = new URL(import.meta.url);
  if (!/\/controller\.[cm]?[jt]s$/.test(url.pathname)) return false; // bundled into another file
  const meta = import.meta as ImportMeta & { main?: boolean };
  if (typeof meta.main === "boolean") return meta.main; // Deno, Bun, Node >= 24
  const argv1 = (globalThis as { process?: { argv?: string[] } }).process?.argv?.[1];
  return argv1 !== undefined &&
    decodeURIComponent(url.pathname).endsWith(argv1.replaceAll("\\", "/"));
}

if (isMainModule()) {
  const g = globalThis as { Deno?: { args: string[] }; process?: { argv: string[] } };
  await main(g.Deno?.args ?? g.process?.argv.slice(2) ?? []);
}
