// kubectl 1.33 against a CRD created through the API, as with a real cluster: apply the CRD,
// wait for Established, apply a custom resource, get it with its printer columns and by short
// name, see the CRD in `get crd` next to the resources option's, delete the CRD and its
// custom resources go with it.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { defineResource } from "../../src/client/define_resource.ts";
import { kubectlVersion, setupKubectl, tableRows } from "./_kubectl.ts";

const version = await kubectlVersion();
const available = version !== undefined;
console.log(`kubectl_crd_test: ${available ? `kubectl ${version}` : "skipped, no kubectl"}`);

const crd = {
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "CustomResourceDefinition",
  metadata: { name: "gadgets.demo.io" },
  spec: {
    group: "demo.io",
    names: { plural: "gadgets", kind: "Gadget", shortNames: ["gdt"] },
    scope: "Namespaced",
    versions: [{
      name: "v1",
      served: true,
      storage: true,
      subresources: { status: {} },
      schema: {
        openAPIV3Schema: {
          type: "object",
          properties: {
            spec: { type: "object", properties: { size: { type: "integer" } } },
            status: { type: "object", "x-kubernetes-preserve-unknown-fields": true },
          },
        },
      },
      additionalPrinterColumns: [{ name: "Size", type: "integer", jsonPath: ".spec.size" }],
    }],
  },
};

const gadgets = defineResource({
  group: "demo.io",
  version: "v1",
  resource: "gadgets",
  kind: "Gadget",
  namespaced: true,
});

describe("kubectl and CRDs created through the API", {
  skip: !available && "kubectl not found",
}, () => {
  test("apply CRD, wait Established, apply a custom resource, get with printer columns, delete CRD removes its resources", async () => {
    const { c, kubectl, run, file, close } = await setupKubectl();
    try {
      // Discovery is cached first, without the CRD's group.
      await kubectl(["get", "pods"]);
      await kubectl(["apply", "-f", await file("crd.json", JSON.stringify(crd))]);
      await kubectl([
        "wait",
        "--for=condition=Established",
        "crd/gadgets.demo.io",
        "--timeout=10s",
      ]);
      const gadget = { apiVersion: "demo.io/v1", kind: "Gadget", metadata: { name: "g1" } };
      await kubectl([
        "apply",
        "-f",
        await file("g1.json", JSON.stringify({ ...gadget, spec: { size: 3 } })),
      ]);
      assert.deepEqual(tableRows((await kubectl(["get", "gadgets"])).stdout), [
        ["NAME", "SIZE"],
        ["g1", "3"],
      ]);
      assert.deepEqual(tableRows((await kubectl(["get", "gdt"])).stdout)[1], ["g1", "3"]);
      const crds = tableRows((await kubectl(["get", "crd"])).stdout);
      assert.deepEqual(crds[0], ["NAME", "CREATED AT"]);
      assert.deepEqual(crds.slice(1).map((r) => r[0]), ["gadgets.demo.io", "widgets.example.com"]);
      await kubectl(["delete", "crd", "gadgets.demo.io"]);
      assert.throws(() => c.list(gadgets), /does not serve demo\.io\/v1\/gadgets/);
      // With the discovery cached before the delete: the path is gone (as on a real cluster).
      const stale = await run(["get", "gadgets"]);
      assert.notEqual(stale.code, 0);
      assert.match(stale.stderr, /NotFound|doesn't have a resource type/);
      // api-resources refreshes the cache: the group is gone from discovery.
      const resources = await kubectl(["api-resources", "--api-group=demo.io", "-o", "name"]);
      assert.equal(resources.stdout.trim(), "");
      const after = await run(["get", "gadgets"]);
      assert.notEqual(after.code, 0);
      assert.match(after.stderr, /the server doesn't have a resource type "gadgets"/);
    } finally {
      await close();
    }
  });

  test("applying the CRD the resources option already serves changes nothing served", async () => {
    const { c, kubectl, file, close } = await setupKubectl({ resources: [crd] });
    try {
      c.create(gadgets, { metadata: { name: "g1", namespace: "default" }, spec: { size: 2 } });
      const crds = tableRows((await kubectl(["get", "crd"])).stdout).slice(1).map((r) => r[0]);
      assert.deepEqual(crds, ["gadgets.demo.io", "widgets.example.com"]);
      await kubectl(["apply", "-f", await file("crd.json", JSON.stringify(crd))]);
      await kubectl([
        "wait",
        "--for=condition=Established",
        "crd/gadgets.demo.io",
        "--timeout=10s",
      ]);
      assert.deepEqual(tableRows((await kubectl(["get", "gdt"])).stdout), [
        ["NAME", "SIZE"],
        ["g1", "2"],
      ]);
    } finally {
      await close();
    }
  });
});
