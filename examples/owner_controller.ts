/**
 * An example controller that owns what it makes: for every Widget (`example.com/v1`, the
 * simulated cluster's custom resource) it keeps a ConfigMap `<widget>-settings` (the widget's
 * `color` and `size`) and a Deployment `<widget>` (`size` replicas), both owned by the widget
 * (`metadata.ownerReferences` with `controller: true`), and reports in the widget's status
 * (through the status subresource) which generation it has acted on.
 *
 * How it is built, and why:
 * - typed end to end: `widgets` carries the `Widget` type, the ConfigMap and Deployment
 *   informers use the `kubernetes-types` descriptors of `@kinformer/kinformer/kubernetes-types`;
 * - {@linkcode runController} watches the widgets with the update predicate
 *   `generationChanged` (its own status writes do not wake it), and `owns()` the ConfigMaps and
 *   Deployments: any change to a child, someone's edit or its deletion, reconciles its widget;
 * - children are written with server-side apply (`fieldManager: "widget-controller"`,
 *   `force`: a controller owns its fields), so a reconcile sends only what it wants and an
 *   unchanged apply changes nothing; the status goes through the `status` subresource, also by
 *   apply;
 * - reconcile reads the informers' caches, never lists the API; children of a widget that is
 *   gone (or was re-created: another uid) are deleted with a uid precondition.
 *
 * Run it:
 *
 * ```sh
 * deno run -A examples/owner_controller.ts      # in-process simulated cluster, churn and faults
 * deno run -A examples/owner_controller.ts --server http://127.0.0.1:8001   # kubectl proxy; needs the CRD
 * ```
 *
 * In a test, run it in-process with {@linkcode startWidgetController} on a `ManualClock`
 * (see `tests/controller/owner_controller_test.ts`).
 * @module
 */
import type { Deployment } from "kubernetes-types/apps/v1.js";
import type { ConfigMap } from "kubernetes-types/core/v1.js";
import type { ObjectMeta, OwnerReference } from "kubernetes-types/meta/v1.js";
import type { Clock } from "@kinformer/kinformer/cache";
import { generationChanged, owns, runController } from "@kinformer/kinformer/controller";
import {
  KubeApiError,
  KubeClient,
  type KubeObjectLike,
  type ResourceDescriptor,
  type SharedInformer,
  SharedInformerFactory,
} from "@kinformer/kinformer";
import { RateLimitingQueue } from "@kinformer/kinformer/queue";
import { configmaps, deployments } from "@kinformer/kinformer/kubernetes-types";
import { SimulatedCluster, type Widget, widgets } from "@kinformer/kinformer/testing";

/** The field manager of every write this controller makes. */
export const FIELD_MANAGER = "widget-controller";
/** Label on every child, so the child informers watch only this controller's objects. */
export const MANAGED_BY = "app.kubernetes.io/managed-by";

/** Options of {@linkcode startWidgetController}. */
export interface WidgetControllerOptions {
  /** Client of the cluster. */
  client: KubeClient;
  /** Stops the controller; in-flight writes finish, every watch and timer is released. */
  signal: AbortSignal;
  /** Time source of the informers and the queue; tests pass a `ManualClock`. @default the system clock */
  clock?: Clock | undefined;
  /** Random source of backoff jitter; tests pass a seeded one. @default Math.random */
  random?: (() => number) | undefined;
  /** Widgets reconciled at once. @default 2 */
  workers?: number | undefined;
  /** One line per write, deletion and failure. @default undefined (silent) */
  log?: ((line: string) => void) | undefined;
}

/** A running controller; from {@linkcode startWidgetController}. */
export interface WidgetController {
  /** Resolves once the controller has stopped and released everything. */
  readonly done: Promise<void>;
  /** Resolves once every informer has synced. */
  waitForSync(): Promise<void>;
  /** Widget keys whose last reconcile failed (waiting for a retry). */
  readonly failing: ReadonlySet<string>;
  /** Caught up: informers synced and watching, nothing queued, in flight or failing. */
  readonly idle: boolean;
  /** Counters: applies of children and statuses, deletions of orphans, failed reconciles. */
  readonly stats: Readonly<Record<"applied" | "statuses" | "orphansDeleted" | "failures", number>>;
}

/** The owner reference every child of `widget` carries. */
function ownerOf(widget: Widget): OwnerReference[] {
  return [{
    apiVersion: "example.com/v1",
    kind: "Widget",
    name: widget.metadata.name!,
    uid: widget.metadata.uid!,
    controller: true,
    blockOwnerDeletion: true,
  }];
}

/** The ConfigMap `widget` should have. */
export function desiredConfigMap(widget: Widget): ConfigMap {
  return {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: {
      name: `${widget.metadata.name}-settings`,
      namespace: widget.metadata.namespace!,
      labels: { [MANAGED_BY]: FIELD_MANAGER },
      ownerReferences: ownerOf(widget),
    },
    data: { color: String(widget.spec?.color ?? "none"), size: String(widget.spec?.size ?? 0) },
  };
}

/** The Deployment `widget` should have. */
export function desiredDeployment(widget: Widget): Deployment {
  const name = widget.metadata.name!;
  const labels = { "app.kubernetes.io/instance": name };
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: {
      name,
      namespace: widget.metadata.namespace!,
      labels: { [MANAGED_BY]: FIELD_MANAGER },
      ownerReferences: ownerOf(widget),
    },
    spec: {
      replicas: widget.spec?.size ?? 0,
      selector: { matchLabels: labels },
      template: {
        metadata: { labels },
        spec: { containers: [{ name: "widget", image: "registry.example.com/widget:1" }] },
      },
    },
  };
}

/** Whether `have` already holds every field of `want` (a cached child needs no apply). */
function covers(have: unknown, want: unknown): boolean {
  if (typeof want !== "object" || want === null) return have === want;
  if (Array.isArray(want)) {
    return Array.isArray(have) && have.length === want.length &&
      want.every((w, i) => covers(have[i], w));
  }
  if (typeof have !== "object" || have === null || Array.isArray(have)) return false;
  return Object.entries(want).every(([k, v]) => covers((have as Record<string, unknown>)[k], v));
}

/** Starts the controller and returns at once; it runs until `options.signal` aborts. */
export function startWidgetController(options: WidgetControllerOptions): WidgetController {
  const { client, signal } = options;
  const clock = options.clock;
  const log = options.log ?? ((_line: string): void => {});
  const stats = { applied: 0, statuses: 0, orphansDeleted: 0, failures: 0 };
  const failing = new Set<string>();

  const factory = new SharedInformerFactory(client, { clock, random: options.random });
  const ownerIndex = {
    // `namespace/name` of the controlling Widget: which children a widget has.
    owner: (o: { metadata?: ObjectMeta }) =>
      (o.metadata?.ownerReferences ?? [])
        .filter((r) => r.controller && r.kind === "Widget")
        .map((r) => `${o.metadata?.namespace}/${r.name}`),
  };
  const selector = `${MANAGED_BY}=${FIELD_MANAGER}`;
  const widgetInformer = factory.informerFor(widgets);
  const cmInformer = factory.informerFor(configmaps, {
    labelSelector: selector,
    indexers: ownerIndex,
  });
  const deployInformer = factory.informerFor(deployments, {
    labelSelector: selector,
    indexers: ownerIndex,
  });
  const queue = new RateLimitingQueue<string>({
    name: "widgets",
    ...(clock === undefined ? {} : { clock }),
  });
  const write = { fieldManager: FIELD_MANAGER, force: true } as const;

  /** Deletes the children of `owner` (a widget key) whose controller is not `keepUid`. */
  const deleteOrphans = async <T extends KubeObjectLike>(
    resource: ResourceDescriptor<T>,
    informer: SharedInformer<T>,
    owner: string,
    keepUid: string | undefined,
    signal: AbortSignal,
  ): Promise<void> => {
    for (const child of informer.store.byIndex("owner", owner)) {
      const meta = child.metadata!;
      if (meta.ownerReferences?.find((r) => r.controller)?.uid === keepUid) continue;
      try {
        await client.delete(resource, meta.name!, {
          namespace: meta.namespace,
          preconditions: { uid: meta.uid },
          signal,
        });
        stats.orphansDeleted++;
        log(`deleted orphan ${resource.kind} ${meta.namespace}/${meta.name}`);
      } catch (error) {
        if (!(error instanceof KubeApiError && error.code === 404)) throw error;
      }
    }
  };

  const reconcile = async (key: string, ctx: { signal: AbortSignal }): Promise<void> => {
    const [namespace] = key.split("/") as [string, string];
    const widget = widgetInformer.store.get(key);
    const live = widget !== undefined && widget.metadata.deletionTimestamp === undefined;
    // Children of a widget that is gone, or of an older widget of the same name: delete them.
    const keep = live ? widget.metadata.uid : undefined;
    await deleteOrphans(configmaps, cmInformer, key, keep, ctx.signal);
    await deleteOrphans(deployments, deployInformer, key, keep, ctx.signal);
    if (!live) return;

    const cm = desiredConfigMap(widget);
    const cachedCm = cmInformer.store.get(`${namespace}/${cm.metadata!.name}`);
    if (!covers(cachedCm, cm)) {
      await client.apply(configmaps, cm, { ...write, signal: ctx.signal });
      stats.applied++;
      log(`applied ConfigMap ${namespace}/${cm.metadata!.name}`);
    }
    const deployment = desiredDeployment(widget);
    const cachedDeployment = deployInformer.store.get(key);
    if (!covers(cachedDeployment, deployment)) {
      await client.apply(deployments, deployment, { ...write, signal: ctx.signal });
      stats.applied++;
      log(`applied Deployment ${key} (${deployment.spec?.replicas} replicas)`);
    }
    const status = {
      observedGeneration: widget.metadata.generation ?? 0,
      configMap: cm.metadata!.name!,
      replicas: deployment.spec?.replicas ?? 0,
      ready: true,
    };
    if (!covers(widget.status, status)) {
      await client.apply(widgets, {
        metadata: { name: widget.metadata.name!, namespace },
        status,
      }, { ...write, subresource: "status", signal: ctx.signal });
      stats.statuses++;
      log(`status of ${key}: generation ${status.observedGeneration} reconciled`);
    }
  };

  factory.start({ signal });
  const done = (async (): Promise<void> => {
    try {
      await runController({
        informers: [widgetInformer],
        // The widget's own status writes do not bump its generation: they do not wake us.
        updatePredicates: [generationChanged],
        sources: [owns(cmInformer, widgets), owns(deployInformer, widgets)],
        reconcile: async (key, ctx) => {
          await reconcile(key, ctx);
          failing.delete(key);
        },
        onError: (error, { key }) => {
          if (key !== undefined) failing.add(key);
          stats.failures++;
          log(`reconcile ${key} failed: ${error instanceof Error ? error.message : error}`);
        },
        signal,
        clock,
        queue,
        workers: options.workers ?? 2,
        startInformers: false, // the factory started them
      });
    } finally {
      await factory.stop();
    }
  })();

  return {
    done,
    waitForSync: () => factory.waitForSync({ signal }),
    failing,
    stats,
    get idle(): boolean {
      const q = queue.metrics();
      if (q.depth > 0 || q.inFlight > 0 || failing.size > 0) return false;
      return factory.informers.every((i) => {
        const h = i.health();
        return h.synced && h.activity === "watching" && h.listeners.every((l) => l.backlog === 0);
      });
    },
  };
}

/** What is wrong in `cluster` from this controller's point of view (empty: converged). */
export function problems(cluster: SimulatedCluster): string[] {
  const out: string[] = [];
  const owned = new Set<string>();
  for (const widget of cluster.list(widgets)) {
    const key = `${widget.metadata.namespace}/${widget.metadata.name}`;
    const cm = desiredConfigMap(widget);
    const haveCm = cluster.get(configmaps, {
      namespace: widget.metadata.namespace!,
      name: cm.metadata!.name!,
    });
    if (!covers(haveCm, cm)) out.push(`${key}: ConfigMap missing or wrong`);
    const deployment = desiredDeployment(widget);
    const haveDeployment = cluster.get(deployments, {
      namespace: widget.metadata.namespace!,
      name: widget.metadata.name!,
    });
    if (!covers(haveDeployment, deployment)) out.push(`${key}: Deployment missing or wrong`);
    if (widget.status?.observedGeneration !== widget.metadata.generation) {
      out.push(`${key}: status not at generation ${widget.metadata.generation}`);
    }
    owned.add(widget.metadata.uid!);
  }
  for (const child of [...cluster.list(configmaps), ...cluster.list(deployments)]) {
    const meta = child.metadata ?? {};
    const ref = meta.ownerReferences?.find((r) => r.controller);
    if (ref !== undefined && !owned.has(ref.uid)) {
      out.push(`orphan ${child.kind} ${meta.namespace}/${meta.name}`);
    }
  }
  return out;
}

// ------------------------------------------------------------------ running it as a script

function sleepMs(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Runs against an in-process simulated cluster with churn and faults for a few seconds. */
async function runSimulation(): Promise<void> {
  // Namespaces come into being with their first object (as with NamespaceAutoProvision).
  const cluster = new SimulatedCluster({ seed: 7, autoCreateNamespaces: true });
  for (let i = 0; i < 6; i++) {
    cluster.create(widgets, {
      metadata: { name: `w${i}`, namespace: i % 2 ? "shop" : "search" },
      spec: { size: i % 4, color: ["red", "blue"][i % 2]! },
    });
  }
  const client = new KubeClient({ server: "http://simulated.cluster", fetch: cluster.fetch });
  const stop = new AbortController();
  const controller = startWidgetController({
    client,
    signal: stop.signal,
    log: (line) => console.log(`[controller] ${line}`),
  });
  const churn = cluster.startChurn({
    resource: widgets,
    namespaces: ["shop", "search"],
    ratePerSecond: 5,
    signal: stop.signal,
  });
  try {
    await controller.waitForSync();
    const faults: Array<[string, () => void]> = [
      ["every watch dropped", () => cluster.faults.dropWatches()],
      ["the next 3 writes fail", () => cluster.faults.failNext(3, { verb: "patch" })],
      ["someone deletes a Deployment", () => {
        const d = cluster.list(deployments)[0]?.metadata;
        if (d) cluster.delete(deployments, { namespace: d.namespace!, name: d.name! });
      }],
      ["history compacted", () => {
        cluster.faults.compact();
        cluster.faults.dropWatches();
      }],
    ];
    for (const [what, inject] of faults) {
      await sleepMs(700);
      console.log(`[sim] ${what}`);
      inject();
    }
    await sleepMs(700);
    churn.stop();
    cluster.faults.reset();
    for (let i = 0; i < 300 && !(controller.idle && problems(cluster).length === 0); i++) {
      await sleepMs(100);
    }
  } finally {
    stop.abort();
    await controller.done;
    cluster.close();
  }
  const left = problems(cluster);
  console.log("controller:", controller.stats);
  if (left.length > 0) throw new Error(`not converged: ${left.join("; ")}`);
  console.log(`converged: ${cluster.list(widgets).length} widgets, each with its children`);
}

/** Entry point: `--server URL [--token T]` (Ctrl-C stops), or a simulated cluster. */
export async function main(args: readonly string[]): Promise<void> {
  const at = args.indexOf("--server");
  if (at < 0) return await runSimulation();
  const tokenAt = args.indexOf("--token");
  const client = new KubeClient({
    server: args[at + 1]!,
    token: tokenAt < 0 ? undefined : args[tokenAt + 1],
  });
  const stop = new AbortController();
  const controller = startWidgetController({ client, signal: stop.signal, log: console.log });
  await controller.done;
}

if ((import.meta as ImportMeta & { main?: boolean }).main === true) {
  const g = globalThis as { Deno?: { args: string[] }; process?: { argv: string[] } };
  await main(g.Deno?.args ?? g.process?.argv.slice(2) ?? []);
}
