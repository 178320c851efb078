// A custom resource for tests that install and delete its CRD in the simulated cluster.
import { defineResource } from "../../src/client/define_resource.ts";
import type { KubeObject } from "../../src/client/types.ts";

export const gadgets = defineResource({
  group: "demo.io",
  version: "v1",
  resource: "gadgets",
  kind: "Gadget",
  namespaced: true,
});

/** The CRD that serves `gadgets`. */
export function gadgetCrd(): KubeObject {
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: "gadgets.demo.io" },
    spec: {
      group: "demo.io",
      names: { plural: "gadgets", singular: "gadget", kind: "Gadget" },
      scope: "Namespaced",
      versions: [{
        name: "v1",
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true },
        },
      }],
    },
  } as KubeObject;
}

/** A gadget named `name` in namespace `a`. */
export function gadget(name: string): KubeObject {
  return { apiVersion: "demo.io/v1", kind: "Gadget", metadata: { namespace: "a", name } };
}
