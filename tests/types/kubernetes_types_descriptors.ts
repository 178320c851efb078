// Compile-time tests (type-checked by `deno check`, never run): the typed descriptors of
// @kinformer/kinformer/kubernetes-types carry kubernetes-types' object types everywhere.
import type { Deployment } from "kubernetes-types/apps/v1.js";
import type { ConfigMap, Pod } from "kubernetes-types/core/v1.js";
import { createInformer, KubeClient, SharedInformerFactory } from "../../mod.ts";
import type { InformerEvent, SharedInformer } from "../../mod.ts";
import type { Scale } from "../../src/client/mod.ts";
import { runController } from "../../src/controller/mod.ts";
import { configmaps, deployments, pods } from "../../src/kubernetes_types/mod.ts";

declare const client: KubeClient;
declare const signal: AbortSignal;

// ---- createInformer infers T from the descriptor ----------------------------------------------
export const deploymentInformer: SharedInformer<Deployment> = createInformer(client, {
  resource: deployments,
  namespace: "default",
  // transform receives T, not KubeObject
  transform: (d) => {
    delete d.metadata?.managedFields;
    return d;
  },
  indexers: { byReplicas: (d) => [String(d.spec?.replicas ?? 1)] },
});

export async function readEvents(): Promise<number> {
  let total = 0;
  for await (const ev of deploymentInformer.events({ signal })) {
    if (ev.type === "add" || ev.type === "update") total += ev.object.spec?.replicas ?? 0;
    if (ev.type === "update") {
      const before: number | undefined = ev.oldObject.spec?.replicas;
      total -= before ?? 0;
    }
    // @ts-expect-error a Deployment has no spec.containers (that is its pod template's)
    ev.type === "add" && ev.object.spec?.containers;
  }
  return total;
}

// A type argument that matches the descriptor is fine; one that does not, is not.
export const explicit = createInformer<Deployment>(client, { resource: deployments });
// @ts-expect-error a Deployment type for the pods descriptor
createInformer<Deployment>(client, { resource: pods });
// @ts-expect-error a Pod type for the deployments descriptor
createInformer<Pod>(client, { resource: deployments });
// @ts-expect-error transform must return the descriptor's type
createInformer(client, { resource: pods, transform: (p) => ({ ...p, kind: "Deployment" }) });

// ---- listers, store, handlers -----------------------------------------------------------------
const web: Deployment | undefined = deploymentInformer.lister.namespace("default").get("web");
const listed: Deployment[] = deploymentInformer.lister.list({ labelSelector: "app=web" });
const stored: Deployment | undefined = deploymentInformer.store.get("default/web");
const indexed: Deployment[] = deploymentInformer.store.byIndex("byReplicas", "3");
export { indexed, listed, stored, web };
// @ts-expect-error the lister of Deployments does not hand out Pods
export const wrongLister: Pod[] = deploymentInformer.lister.list();

deploymentInformer.addEventHandler({
  onAdd: (d, initial) => void [d.spec?.replicas, initial],
  onUpdate: (oldD, newD) => void [oldD.status?.readyReplicas, newD.status?.readyReplicas],
  onDelete: (d, unknown) => void [d.metadata?.name, unknown],
});
deploymentInformer.addEventHandler({
  // @ts-expect-error a handler of Pods on a Deployment informer
  onAdd: (p: Pod) => void p.spec?.containers,
});

export function describe(ev: InformerEvent<Deployment>): string {
  switch (ev.type) {
    case "add":
    case "update":
    case "delete":
      return `${ev.type} ${ev.object.metadata?.name} x${ev.object.spec?.replicas}`;
    case "synced":
      return "synced";
  }
}

// ---- the factory ------------------------------------------------------------------------------
const factory = new SharedInformerFactory(client);
export const podInformer: SharedInformer<Pod> = factory.informerFor(pods);
export const cmInformer: SharedInformer<ConfigMap> = factory.informerFor(configmaps, {
  fieldSelector: "metadata.name=settings",
});
// @ts-expect-error informerFor<Pod> of the configmaps descriptor
factory.informerFor<Pod>(configmaps);

// ---- runController infers its object type from the informers -----------------------------------
await runController({
  informers: [deploymentInformer],
  signal,
  keyFor: (d) => d.metadata?.namespace, // d: Deployment
  reconcile: (key) => void key,
});
await runController({
  // @ts-expect-error keyFor (below) takes Pods: an informer of Deployments does not fit
  informers: [deploymentInformer],
  signal,
  keyFor: (p: Pod) => p.spec?.nodeName,
  reconcile: () => {},
});

// ---- KubeClient ------------------------------------------------------------------------------
export async function clientCalls(): Promise<unknown[]> {
  const list = await client.list(deployments, { namespace: "default" });
  const first: Deployment | undefined = list.items[0];
  const got: Deployment = await client.get(deployments, "web", { namespace: "default" });
  const status: Deployment = await client.get(deployments, "web", {
    namespace: "default",
    subresource: "status",
  });
  const scale: Scale = await client.get(deployments, "web", {
    namespace: "default",
    subresource: "scale",
  });
  const created: ConfigMap = await client.create(configmaps, {
    metadata: { name: "settings", namespace: "default" },
    data: { mode: "fast" },
  });
  // @ts-expect-error ConfigMap data values are strings
  await client.create(configmaps, { metadata: { name: "x" }, data: { mode: 1 } });
  const replaced: ConfigMap = await client.replace(configmaps, { ...created, data: {} });
  const patched: Deployment = await client.patch(deployments, "web", { spec: { replicas: 2 } }, {
    namespace: "default",
  });
  // Server-side apply takes a partial object: no selector or template needed for replicas.
  const applied: Deployment = await client.apply(
    deployments,
    { metadata: { name: "web", namespace: "default" }, spec: { replicas: 3 } },
    { fieldManager: "my-controller", force: true },
  );
  const scaled: Scale = await client.apply(
    deployments,
    { metadata: { name: "web", namespace: "default" }, spec: { replicas: 4 } },
    { fieldManager: "my-controller", subresource: "scale" },
  );
  await client.apply(
    deployments,
    // @ts-expect-error replicas is a number
    { metadata: { name: "web" }, spec: { replicas: "3" } },
    { fieldManager: "m" },
  );
  // @ts-expect-error server-side apply needs a fieldManager
  await client.apply(deployments, { metadata: { name: "web" } }, {});
  const deleted = await client.delete(deployments, "web", {
    namespace: "default",
    preconditions: { uid: got.metadata?.uid },
  });
  return [first, status, scale, replaced, patched, applied, scaled, deleted];
}
