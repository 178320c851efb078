// CustomResourceDefinition objects as the resources option: every served version is served,
// the storage version holds the objects, the others read and write them with their own
// apiVersion; names, scope, subresources, printer columns and schema come from the CRD.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { KubeObject } from "../../../../../src/client/types.ts";
import { defineResource } from "../../../../../src/client/define_resource.ts";
import { customresourcedefinitions } from "../../../../../src/client/builtin_resources.ts";
import { KubeClient } from "../../../../../src/client/kube_client.ts";
import { SimulatedCluster } from "../../../src/cluster/simulated_cluster.ts";
import type { SimulatedClusterOptions } from "../../../src/cluster/cluster_options.ts";

function crd(versions: unknown[], extra: Record<string, unknown> = {}) {
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: "gadgets.example.org" },
    spec: {
      group: "example.org",
      names: { plural: "gadgets", singular: "gadget", kind: "Gadget", shortNames: ["gd"] },
      scope: "Namespaced",
      versions,
      ...extra,
    },
  };
}

const v1 = defineResource({
  group: "example.org",
  version: "v1",
  resource: "gadgets",
  kind: "Gadget",
  namespaced: true,
});
const v1beta1 = { ...v1, version: "v1beta1" };

describe("SimulatedCluster with CustomResourceDefinition objects", () => {
  test("every served version reads and writes the storage version's objects", async () => {
    const c = new SimulatedCluster({
      resources: [crd([
        { name: "v1beta1", served: true, storage: false },
        { name: "v1", served: true, storage: true, subresources: { status: {}, scale: {} } },
      ])],
    });
    const res = await c.fetch(
      new Request("http://sim.test/apis/example.org/v1beta1/namespaces/default/gadgets", {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body:
          '{"apiVersion":"example.org/v1beta1","kind":"Gadget","metadata":{"name":"g"},"spec":{"replicas":2}}',
      }),
    );
    assert.equal(res.status, 201, await res.clone().text());
    assert.equal((await res.json() as KubeObject).apiVersion, "example.org/v1beta1");
    const stored = c.get(v1, { namespace: "default", name: "g" })!;
    assert.equal(stored.apiVersion, "example.org/v1");
    assert.equal(
      c.get(v1beta1, { namespace: "default", name: "g" })!.apiVersion,
      "example.org/v1beta1",
    );
    const scale = await c.fetch(
      new Request("http://sim.test/apis/example.org/v1/namespaces/default/gadgets/g/scale"),
    );
    assert.equal((await scale.json() as { spec: { replicas: number } }).spec.replicas, 2);
    const list = await c.fetch(new Request("http://sim.test/apis/example.org/v1beta1/gadgets"));
    const body = await list.json() as { apiVersion: string; items: KubeObject[] };
    assert.equal(body.apiVersion, "example.org/v1beta1");
    assert.deepEqual(body.items.map((i) => i.metadata.name), ["g"]);
    c.close();
  });

  test("the customresourcedefinitions descriptor serves CRDs; it is not read as a CRD object", async () => {
    const ok = { name: "v1", served: true, storage: true };
    // CRDs are served by default; naming the descriptor (as one had to) is still accepted.
    const cluster = new SimulatedCluster({ resources: [customresourcedefinitions, crd([ok])] });
    const client = new KubeClient({ server: "http://sim", fetch: cluster.fetch });
    const gizmos = crd([ok]);
    const created = await client.create(customresourcedefinitions, {
      ...gizmos,
      metadata: { name: "gizmos.example.org" },
      spec: { ...gizmos.spec, names: { plural: "gizmos", kind: "Gizmo" } },
    });
    assert.equal(created.metadata.name, "gizmos.example.org");
    const listed = await client.list(customresourcedefinitions);
    // The resources option's custom resources are CRDs too (widgets is served by default).
    assert.deepEqual(listed.items.map((c) => c.metadata.name), [
      "gadgets.example.org",
      "gizmos.example.org",
      "widgets.example.com",
    ]);
    assert.equal((await client.list(v1, { namespace: "default" })).items.length, 0); // served
    cluster.close();
  });

  test("malformed CRDs are TypeErrors naming the field", () => {
    const ok = { name: "v1", served: true, storage: true };
    const bad: Array<[unknown, RegExp]> = [
      [
        { ...crd([ok]), apiVersion: "apiextensions.k8s.io/v1beta1" },
        /must be apiextensions\.k8s\.io\/v1/,
      ],
      [crd([ok], { scope: "Global" }), /spec\.scope must be "Namespaced" or "Cluster"/],
      [crd([]), /spec\.versions must be a non-empty array/],
      [crd([{ ...ok, storage: false }]), /exactly one storage version/],
      [crd([{ ...ok, served: false }]), /the storage version must be served/],
      [
        crd([{ ...ok, additionalPrinterColumns: [{ name: "X", type: "text", jsonPath: ".x" }] }]),
        /additionalPrinterColumns\[0\]\.type must be one of/,
      ],
      [crd([ok], { names: { kind: "Gadget" } }), /spec\.names\.plural must be a non-empty string/],
    ];
    for (const [entry, message] of bad) {
      assert.throws(
        () => new SimulatedCluster({ resources: [entry] } as SimulatedClusterOptions),
        (e: Error) =>
          e instanceof TypeError && /options\.resources\[0\]/.test(e.message) &&
          message.test(e.message),
        message.source,
      );
    }
  });
});
