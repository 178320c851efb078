/**
 * The StaticSite operator: for every `StaticSite` (group `sites.kinformer.dev`) it keeps
 *
 * - a ConfigMap `<name>-content` holding `index.html` (the site's `spec.message`) and a
 *   Deployment `<name>` serving it with nginx (`spec.replicas`), both owned by the site
 *   (`ownerReferences`, so Kubernetes' garbage collector deletes them with it), written with
 *   server-side apply;
 * - an entry `<namespace>.<name>` in the site registry, a ConfigMap in the operator's own
 *   namespace that stands for an external system (a DNS provider, a CDN): something
 *   ownerReferences cannot clean up across namespaces, so a finalizer
 *   (`sites.kinformer.dev/registry`) removes the entry before the site goes;
 * - `status.conditions` (`Ready`: the Deployment has `spec.replicas` ready replicas),
 *   `status.observedGeneration`, `status.url`, written through the status subresource;
 * - Events (`events.k8s.io/v1`): Provisioned, Updated, Available, Registered, Deregistered,
 *   ReconcileError.
 *
 * It runs as one {@linkcode Manager} per replica with leader election: only the leader
 * reconciles, the others keep synced caches and take over when it goes. `main.ts` runs it in a
 * pod; `tests/controller/example_operator_test.ts` runs two replicas on the simulated cluster.
 * @module
 */
import {
  configmaps,
  type CustomObject,
  defineResource,
  deployments,
  KubeApiError,
  type KubeClient,
  type KubeObject,
} from "@kinformer/kinformer/client";
import { SharedInformerFactory } from "@kinformer/kinformer/cache";
import {
  type Condition,
  EventRecorder,
  finalizer,
  findCondition,
  generationChanged,
  Manager,
  owns,
  setCondition,
  updateWithRetry,
} from "@kinformer/kinformer/controller";
import type { Clock } from "@kinformer/kinformer/cache";

/** The desired state of a site. */
export interface StaticSiteSpec {
  /** The text of the site's page. */
  message: string;
  /** How many nginx replicas serve it. @default 1 */
  replicas?: number;
}

/** The observed state of a site. */
export interface StaticSiteStatus {
  /** `Ready` and its transitions. */
  conditions?: Condition[];
  /** The generation the status was computed from. */
  observedGeneration?: number | undefined;
  /** Where the site is served inside the cluster. */
  url?: string;
  /** Ready nginx replicas. */
  readyReplicas?: number;
}

/** A `sites.kinformer.dev/v1alpha1` StaticSite. */
export type StaticSite = CustomObject<StaticSiteSpec, StaticSiteStatus>;

/** `sites.kinformer.dev/v1alpha1` StaticSites (deploy/crd.yaml). */
export const staticSites = defineResource<StaticSite>({
  group: "sites.kinformer.dev",
  version: "v1alpha1",
  resource: "staticsites",
  kind: "StaticSite",
  namespaced: true,
});

/** The finalizer that guards the registry entry. */
export const FINALIZER = "sites.kinformer.dev/registry";
/** Field manager of every write, and the `managed-by` label of the children. */
export const MANAGER = "static-site-operator";
/** Name of the registry ConfigMap (in the operator's namespace). */
export const REGISTRY = "static-site-registry";
/** Label that marks the children (their informers select on it). */
export const MANAGED_BY = "app.kubernetes.io/managed-by";

type ConfigMap = KubeObject & { data?: Record<string, string> };
type Deployment = KubeObject & {
  spec?: { replicas?: number };
  status?: { readyReplicas?: number };
};

/** Options of {@linkcode createOperator}. */
export interface OperatorOptions {
  /** The client of the cluster. */
  client: KubeClient;
  /** The operator's namespace: its Lease and the registry live there. */
  namespace: string;
  /** This replica's identity (the pod name): the Lease holder and `reportingInstance`. */
  identity: string;
  /** Time source (tests pass a ManualClock). @default systemClock */
  clock?: Clock | undefined;
  /** Random source of the informers' and the elector's jitter. @default Math.random */
  random?: (() => number) | undefined;
  /** Told about errors. @default logs with console.error */
  onError?: ((error: unknown) => void) | undefined;
}

/** What {@linkcode createOperator} builds: start the manager (or `runManager` it). */
export interface Operator {
  /** The manager: one controller, leader election, an event recorder. */
  readonly manager: Manager;
  /** The event recorder (started and stopped by the manager). */
  readonly recorder: EventRecorder;
  /** The informers' factory. */
  readonly factory: SharedInformerFactory;
}

function condition(conditions: readonly Condition[] | undefined): Condition | undefined {
  return findCondition(conditions, "Ready");
}

/** Builds the operator of one replica; starts nothing. */
export function createOperator(options: OperatorOptions): Operator {
  const { client, namespace, identity } = options;
  const clock = options.clock;
  const random = options.random;
  const common = {
    ...(clock === undefined ? {} : { clock }),
    ...(random === undefined ? {} : { random }),
  };
  const onError = options.onError ?? ((error: unknown) => console.error("operator:", error));
  const factory = new SharedInformerFactory(client, { ...common, onError: (e) => onError(e) });
  const sites = factory.informerFor(staticSites);
  const children = { labelSelector: `${MANAGED_BY}=${MANAGER}` };
  const contents = factory.informerFor<ConfigMap>(configmaps, children);
  const servers = factory.informerFor<Deployment>(deployments, children);
  const recorder = new EventRecorder({
    client,
    reportingController: "sites.kinformer.dev/static-site-operator",
    reportingInstance: identity,
    ...common,
    onError: (error) => onError(error),
  });
  const manager = new Manager({
    ...(clock === undefined ? {} : { clock }),
    onError: (error) => onError(error),
    leaderElection: {
      client,
      namespace,
      name: MANAGER,
      identity,
      ...(random === undefined ? {} : { random }),
    },
  });
  manager.add(recorder);

  const event = (
    site: StaticSite,
    type: "Normal" | "Warning",
    reason: string,
    action: string,
    note: string,
  ): void => recorder.record(site, { type, reason, action, note, resource: staticSites });

  /** The registry entry of a site: added (apply) or removed (cleanup), retried on conflict. */
  const register = async (site: StaticSite, url: string | undefined): Promise<boolean> => {
    const entry = `${site.metadata.namespace}.${site.metadata.name}`;
    let changed = false;
    try {
      await updateWithRetry<ConfigMap>(client, {
        resource: configmaps,
        namespace,
        name: REGISTRY,
        fieldManager: MANAGER,
        mutate: (registry) => {
          const data = { ...registry.data };
          if (url === undefined ? !(entry in data) : data[entry] === url) return false;
          if (url === undefined) delete data[entry];
          else data[entry] = url;
          registry.data = data;
          changed = true;
        },
      });
    } catch (error) {
      if (!(error instanceof KubeApiError && error.code === 404)) throw error;
      if (url === undefined) return false; // no registry: nothing to remove
      await client.create<ConfigMap>(configmaps, {
        metadata: { name: REGISTRY, namespace, labels: { [MANAGED_BY]: MANAGER } },
        data: { [entry]: url },
      }, { fieldManager: MANAGER });
      changed = true;
    }
    return changed;
  };

  /** Everything but deletion: children, registry entry, status, events. */
  const apply = async (site: StaticSite): Promise<void> => {
    const { name, uid, generation } = site.metadata;
    const ns = site.metadata.namespace ?? "default";
    const replicas = site.spec?.replicas ?? 1;
    const key = `${ns}/${name}`;
    const hadChildren = contents.store.get(`${ns}/${name}-content`) !== undefined &&
      servers.store.get(key) !== undefined;
    const owner = {
      apiVersion: "sites.kinformer.dev/v1alpha1",
      kind: "StaticSite",
      name: name!,
      uid: uid!,
      controller: true,
      blockOwnerDeletion: true,
    };
    const labels = { [MANAGED_BY]: MANAGER, "sites.kinformer.dev/site": name! };
    await client.apply<ConfigMap>(configmaps, {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: `${name}-content`, namespace: ns, labels, ownerReferences: [owner] },
      data: { "index.html": `<!doctype html>\n<h1>${escapeHtml(site.spec?.message ?? "")}</h1>\n` },
    }, { fieldManager: MANAGER, force: true });
    const server = await client.apply<Deployment>(deployments, {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name: name!, namespace: ns, labels, ownerReferences: [owner] },
      spec: {
        replicas,
        selector: { matchLabels: { "sites.kinformer.dev/site": name! } },
        template: {
          metadata: { labels: { "sites.kinformer.dev/site": name! } },
          spec: {
            containers: [{
              name: "nginx",
              image: "nginx:1.27-alpine",
              ports: [{ containerPort: 80 }],
              volumeMounts: [{ name: "content", mountPath: "/usr/share/nginx/html" }],
            }],
            volumes: [{ name: "content", configMap: { name: `${name}-content` } }],
          },
        },
      },
    } as Deployment, { fieldManager: MANAGER, force: true });
    if (!hadChildren) {
      event(
        site,
        "Normal",
        "Provisioned",
        "Apply",
        `created ConfigMap ${name}-content and Deployment ${name}`,
      );
    } else if (site.status?.observedGeneration !== generation) {
      event(site, "Normal", "Updated", "Apply", `applied generation ${generation}`);
    }
    const url = `http://${name}.${ns}.svc.cluster.local`;
    if (await register(site, url)) {
      event(site, "Normal", "Registered", "Register", `registered ${url}`);
    }
    // Status from the Deployment as the informer (or the apply) last saw it.
    const ready = (servers.store.get(key) ?? server).status?.readyReplicas ?? 0;
    const available = ready >= replicas;
    const before = condition(site.status?.conditions);
    let becameReady = false;
    await updateWithRetry(client, {
      resource: staticSites,
      namespace: ns,
      name: name!,
      subresource: "status",
      fieldManager: MANAGER,
      mutate: (fresh) => {
        const status = { ...fresh.status };
        const conditions = setCondition(status.conditions, {
          type: "Ready",
          status: available ? "True" : "False",
          reason: available ? "Available" : "Progressing",
          message: `${ready} of ${replicas} replicas ready`,
          observedGeneration: fresh.metadata.generation,
        }, common.clock === undefined ? {} : { clock: common.clock });
        if (
          conditions === status.conditions &&
          status.observedGeneration === fresh.metadata.generation &&
          status.url === url && status.readyReplicas === ready
        ) return false;
        becameReady = available && condition(status.conditions)?.status !== "True";
        fresh.status = {
          ...status,
          conditions,
          observedGeneration: fresh.metadata.generation,
          url,
          readyReplicas: ready,
        };
      },
    });
    if (becameReady && before?.status !== "True") {
      event(site, "Normal", "Available", "Reconcile", `${ready} of ${replicas} replicas ready`);
    }
  };

  const cleanup = async (site: StaticSite): Promise<void> => {
    if (await register(site, undefined)) {
      event(site, "Normal", "Deregistered", "Cleanup", "removed from the site registry");
    }
  };

  manager.addController({
    name: "staticsite",
    informers: [sites],
    workers: 2,
    // Status writes do not wake it; spec changes, deletion and finalizer changes do.
    updatePredicates: [generationChanged, (a, b) => deletionOf(a) !== deletionOf(b)],
    sources: [owns(contents, staticSites), owns(servers, staticSites)],
    reconcile: async (key) => {
      const site = sites.store.get(key);
      if (site === undefined) return; // gone: its children follow through ownerReferences
      try {
        await finalizer(site, {
          client,
          resource: staticSites,
          finalizer: FINALIZER,
          fieldManager: MANAGER,
          apply,
          cleanup,
        });
      } catch (error) {
        if (!(error instanceof KubeApiError && error.code === 409)) {
          event(site, "Warning", "ReconcileError", "Reconcile", messageOf(error));
        }
        throw error; // retried with backoff
      }
    },
  });
  return { manager, recorder, factory };
}

function deletionOf(site: StaticSite): unknown {
  return (site.metadata as { deletionTimestamp?: unknown }).deletionTimestamp;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
