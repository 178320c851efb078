// Compile-time tests (type-checked by `deno check`, never run): @kubernetes/client-node's models
// (classes whose timestamps are `Date`s and whose `kind` is any string) are accepted as type
// arguments with the untyped descriptors of @kinformer/kinformer, without casts.
import type { V1ConfigMap, V1Deployment, V1Pod } from "@kubernetes/client-node";
import { createInformer, defineResource, KubeClient, SharedInformerFactory } from "../../mod.ts";
import { configmaps, deployments, pods } from "../../mod.ts";
import type { SharedInformer } from "../../mod.ts";
import { runController } from "../../src/controller/mod.ts";
import { deployments as typedDeployments } from "../../src/kubernetes_types/mod.ts";

declare const client: KubeClient;
declare const signal: AbortSignal;

export const informer: SharedInformer<V1Deployment> = createInformer<V1Deployment>(client, {
  resource: deployments,
  transform: (d) => {
    delete d.metadata?.managedFields;
    return d;
  },
});
const replicas: number | undefined = informer.store.get("default/web")?.spec?.replicas;
const created: Date | undefined = informer.lister.list()[0]?.metadata?.creationTimestamp;
export { created, replicas };

export const podInformer = new SharedInformerFactory(client).informerFor<V1Pod>(pods);
podInformer.addEventHandler({ onAdd: (pod) => void pod.spec?.containers.length });

await runController({
  informers: [podInformer],
  signal,
  keyFor: (pod) => pod.spec?.nodeName, // pod: V1Pod
  reconcile: () => {},
});

export async function clientCalls(cm: V1ConfigMap): Promise<unknown[]> {
  const got: V1Deployment = await client.get<V1Deployment>(deployments, "web", {
    namespace: "default",
  });
  const made: V1ConfigMap = await client.create<V1ConfigMap>(configmaps, cm);
  const applied: V1Deployment = await client.apply<V1Deployment>(
    deployments,
    { metadata: { name: "web", namespace: "default" }, spec: { replicas: 1 } },
    { fieldManager: "m" },
  );
  return [got, made, applied];
}

// The kubernetes-types descriptors are typed with kubernetes-types' Deployment (string
// timestamps): client-node's V1Deployment (Date timestamps) is another type.
// @ts-expect-error V1Deployment for the kubernetes-types-typed deployments descriptor
createInformer<V1Deployment>(client, { resource: typedDeployments });

// With client-node's models (`kind: string`) a mix-up is caught by descriptors typed with them.
const v1Pods = defineResource<V1Pod>(pods);
export const typedPods: SharedInformer<V1Pod> = createInformer(client, { resource: v1Pods });
// @ts-expect-error a V1Deployment for the V1Pod-typed descriptor
createInformer<V1Deployment>(client, { resource: v1Pods });
