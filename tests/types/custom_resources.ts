// Compile-time tests (type-checked by `deno check`, never run): a custom resource's descriptor
// and object type declared together.
import type { Pod } from "kubernetes-types/core/v1.js";
import {
  createInformer,
  defineResource,
  KubeClient,
  type ResourceDescriptor,
  type SharedInformer,
} from "../../mod.ts";
import type { CustomObject, ObjectOf } from "../../src/client/mod.ts";
import { SimulatedCluster, type Widget, widgets } from "../../src/testing/mod.ts";

declare const client: KubeClient;

interface GadgetSpec {
  size: number;
  colour?: "red" | "blue";
}
type Gadget = CustomObject<GadgetSpec, { ready?: boolean }>;
export const gadgets = defineResource<Gadget>({
  group: "example.com",
  version: "v1",
  resource: "gadgets",
  kind: "Gadget",
  namespaced: true,
});

const informer = createInformer(client, { resource: gadgets });
export const sizes: number[] = informer.store.list().map((g) => g.spec?.size ?? 0);
// CustomObject's metadata is always there (objects from the server have it)
export const names: (string | undefined)[] = informer.store.list().map((g) => g.metadata.name);
// @ts-expect-error colour is "red" or "blue"
export const green: Gadget = { metadata: {}, spec: { size: 1, colour: "green" } };

// ObjectOf gets the type back from a descriptor.
type FromDescriptor = ObjectOf<typeof gadgets>;
export const same: Gadget = {} as FromDescriptor;
export const back: SharedInformer<FromDescriptor> = informer;

// A literal kind must match a type whose kind is a literal.
// @ts-expect-error kubernetes-types' Pod has kind "Pod"
defineResource<Pod>({ version: "v1", resource: "pods", kind: "Deployment", namespaced: true });
export const podsAgain: ResourceDescriptor<Pod> = defineResource<Pod>({
  version: "v1",
  resource: "pods",
  kind: "Pod",
  namespaced: true,
});

// @ts-expect-error a Gadget informer cannot take another CRD's descriptor
createInformer<Gadget>(client, { resource: widgets });

// The simulator's widgets descriptor is typed.
const cluster = new SimulatedCluster();
const w: Widget = cluster.create(widgets, { metadata: { name: "w" }, spec: { size: 2 } });
export const size: number | undefined = w.spec?.size;
export const widgetInformer: SharedInformer<Widget> = createInformer(client, { resource: widgets });
