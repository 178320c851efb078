// Compile-time tests (type-checked by `deno check`, never run): the descriptors of
// @kinformer/kinformer, for users without kubernetes-types. They name a kind but no object type:
// without a type argument objects are KubeObject; any type argument of the same kind fits.
import type { Deployment } from "kubernetes-types/apps/v1.js";
import type { Pod } from "kubernetes-types/core/v1.js";
import {
  configmaps,
  createInformer,
  deployments,
  KubeClient,
  type KubeObject,
  pods,
  type ResourceDescriptor,
  type SharedInformer,
} from "../../mod.ts";
import type { UntypedResourceDescriptor } from "../../src/client/mod.ts";
import { SimulatedCluster } from "../../src/testing/mod.ts";

declare const client: KubeClient;

export const informer: SharedInformer<KubeObject> = createInformer(client, { resource: pods });
informer.addEventHandler({
  onAdd: (pod) => {
    const name: string | undefined = pod.metadata.name; // metadata is always there
    const spec: unknown = pod.spec; // everything else is unknown
    // @ts-expect-error an untyped object's fields are unknown, not any
    void pod.spec.nodeName;
    void [name, spec];
  },
});
// transform receives the informer's type (here KubeObject, whose metadata is required)
createInformer(client, {
  resource: pods,
  transform: (pod) => {
    delete pod.metadata.managedFields;
    return pod;
  },
});

// Any type of the same kind: kubernetes-types' Deployment for `deployments`.
export const typed: SharedInformer<Deployment> = createInformer<Deployment>(client, {
  resource: deployments,
});
// @ts-expect-error kubernetes-types' Pod (kind "Pod") for the Deployment descriptor
createInformer<Pod>(client, { resource: deployments });

// Built-in descriptors keep their kind in their type.
const kind: "Pod" = pods.kind;
const untyped: UntypedResourceDescriptor<"ConfigMap"> = configmaps;
// An untyped descriptor is a ResourceDescriptor (of KubeObject by default).
const asDescriptor: ResourceDescriptor = pods;
export { asDescriptor, kind, untyped };

// A descriptor written as a literal is untyped too.
export const literal = createInformer(client, {
  resource: {
    group: "example.com",
    version: "v1",
    resource: "widgets",
    kind: "Widget",
    namespaced: true,
  },
});
export const literalObjects: KubeObject[] = literal.store.list();

// The simulator's control API takes and returns KubeObject for untyped descriptors.
const cluster = new SimulatedCluster();
const created = cluster.create(pods, { metadata: { name: "a", namespace: "d" }, spec: {} });
export const uid: string | undefined = created.metadata.uid;
// inside a callback whose return type is unknown (assert.throws), too
export const thunk: () => unknown = () => cluster.create(pods, { metadata: {}, spec: { x: 1 } });

export async function clientCalls(): Promise<unknown[]> {
  const cm = await client.create(configmaps, { metadata: { name: "a", namespace: "d" }, data: {} });
  const uidOf: string | undefined = cm.metadata.uid;
  const list = await client.list(pods);
  const names: (string | undefined)[] = list.items.map((p) => p.metadata.name);
  return [uidOf, names];
}
