// OpenAPI v3 documents and server-side field validation (fieldValidation=Strict|Warn|Ignore).
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { configmaps, deployments } from "../../../../../src/client/resource.ts";
import { defineResource } from "../../../../../src/client/define_resource.ts";
import type { Status } from "../../../../../src/client/types.ts";
import { SimulatedCluster } from "../../../src/cluster/simulated_cluster.ts";
import { widgets } from "../../../src/model/kinds/widgets.ts";

type Doc = {
  openapi: string;
  paths: Record<string, Record<string, Record<string, unknown>>>;
  components: { schemas: Record<string, Record<string, unknown>> };
};

const gadgetCrd = {
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "CustomResourceDefinition",
  spec: {
    group: "example.org",
    names: { plural: "gadgets", kind: "Gadget" },
    scope: "Namespaced",
    versions: [{
      name: "v1",
      served: true,
      storage: true,
      schema: {
        openAPIV3Schema: {
          type: "object",
          properties: {
            spec: {
              type: "object",
              properties: {
                size: { type: "integer" },
                parts: {
                  type: "array",
                  items: { type: "object", properties: { name: { type: "string" } } },
                },
                extra: { type: "object", "x-kubernetes-preserve-unknown-fields": true },
              },
            },
          },
        },
      },
    }],
  },
};

function send(
  c: SimulatedCluster,
  method: string,
  path: string,
  body?: string,
  contentType = "application/json",
) {
  return c.fetch(
    new Request(`http://sim.test${path}`, {
      method,
      ...(body === undefined ? {} : { body, headers: { "Content-Type": contentType } }),
    }),
  );
}

describe("SimulatedCluster OpenAPI v3", () => {
  test("the index names one document per group version, with a hash that changes with it", async () => {
    const c = new SimulatedCluster({ resources: [gadgetCrd] });
    const index = await (await send(c, "GET", "/openapi/v3")).json() as {
      paths: Record<string, { serverRelativeURL: string }>;
    };
    assert.deepEqual(Object.keys(index.paths).sort(), [
      "api/v1",
      "apis/apiextensions.k8s.io/v1",
      "apis/apps/v1",
      "apis/coordination.k8s.io/v1",
      "apis/events.k8s.io/v1",
      "apis/example.com/v1",
      "apis/example.org/v1",
    ]);
    assert.match(
      index.paths["api/v1"]!.serverRelativeURL,
      /^\/openapi\/v3\/api\/v1\?hash=[0-9A-F]{16}$/,
    );
    const res = await send(c, "GET", index.paths["api/v1"]!.serverRelativeURL);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("content-type"), "application/json");
    const doc = await res.json() as Doc;
    assert.equal(doc.openapi, "3.0.0");
    assert.equal((await send(c, "GET", "/openapi/v3/apis/batch/v1")).status, 404);
    c.close();
  });

  test("PATCH operations name their kind and take fieldValidation; SMP only where every field is described", async () => {
    const c = new SimulatedCluster({ resources: [gadgetCrd] });
    const doc = async (gv: string) =>
      await (await send(c, "GET", `/openapi/v3/${gv}`)).json() as Doc;
    const core = await doc("api/v1");
    const patch = core.paths["/api/v1/namespaces/{namespace}/configmaps/{name}"]!.patch!;
    assert.deepEqual(patch["x-kubernetes-group-version-kind"], {
      group: "",
      version: "v1",
      kind: "ConfigMap",
    });
    assert.ok(
      (patch.parameters as Array<{ name: string; in: string }>).some((p) =>
        p.name === "fieldValidation" && p.in === "query"
      ),
    );
    const types = (p: Record<string, unknown>) =>
      Object.keys((p.requestBody as { content: object }).content).sort();
    assert.deepEqual(types(patch), [
      "application/apply-patch+yaml",
      "application/json-patch+json",
      "application/merge-patch+json",
      "application/strategic-merge-patch+json",
    ]);
    assert.deepEqual(types(core.paths["/api/v1/namespaces/{namespace}/pods/{name}"]!.patch!), [
      "application/apply-patch+yaml",
      "application/json-patch+json",
      "application/merge-patch+json",
    ]);
    assert.ok(core.paths["/api/v1/namespaces/{namespace}/pods/{name}/status"]!.patch);
    const cm = core.components.schemas["io.k8s.api.core.v1.ConfigMap"]!;
    assert.deepEqual(cm["x-kubernetes-group-version-kind"], [{
      group: "",
      kind: "ConfigMap",
      version: "v1",
    }]);
    assert.deepEqual(Object.keys(cm.properties as object).sort(), [
      "apiVersion",
      "binaryData",
      "data",
      "immutable",
      "kind",
      "metadata",
    ]);
    const meta = core.components.schemas["io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"]!;
    const owners = (meta.properties as Record<string, Record<string, unknown>>).ownerReferences!;
    assert.equal(owners["x-kubernetes-patch-merge-key"], "uid");
    const gadget = (await doc("apis/example.org/v1")).components.schemas["org.example.v1.Gadget"]!;
    assert.deepEqual(Object.keys(gadget.properties as object).sort(), [
      "apiVersion",
      "kind",
      "metadata",
      "spec",
    ]);
    c.close();
  });
});

describe("SimulatedCluster server-side field validation", () => {
  const cm = (extra: string) =>
    `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","labelz":{}},"data":{"a":"b"}${extra}}`;

  test("Strict: unknown and duplicate fields are a 400 worded as the API server's; nothing is stored", async () => {
    const c = new SimulatedCluster();
    const res = await send(
      c,
      "POST",
      "/api/v1/namespaces/default/configmaps?fieldValidation=Strict",
      cm(',"dta":{},"data":{"x":"y"}'),
    );
    assert.equal(res.status, 400);
    const s = await res.json() as Status;
    assert.equal(s.reason, "BadRequest");
    assert.equal(
      s.message,
      'ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: unknown field "metadata.labelz", unknown field "dta", duplicate field "data"',
    );
    assert.equal(c.list(configmaps).length, 0);
    c.close();
  });

  test("Warn (the default): dropped, with a Warning header per field; Ignore: dropped silently", async () => {
    const c = new SimulatedCluster();
    const warned = await send(c, "POST", "/api/v1/namespaces/default/configmaps", cm(',"dta":{}'));
    assert.equal(warned.status, 201);
    assert.equal(
      warned.headers.get("warning"),
      '299 - "unknown field \\"metadata.labelz\\"", 299 - "unknown field \\"dta\\""',
    );
    const stored = c.get(configmaps, { namespace: "default", name: "c" })!;
    assert.equal(Object.hasOwn(stored, "dta"), false);
    assert.equal(Object.hasOwn(stored.metadata, "labelz"), false);
    assert.deepEqual(stored.data, { a: "b" });
    const ignored = await send(
      c,
      "PUT",
      "/api/v1/namespaces/default/configmaps/c?fieldValidation=Ignore",
      cm(',"dta":{}'),
    );
    assert.equal(ignored.status, 200, await ignored.clone().text());
    assert.equal(ignored.headers.get("warning"), null);
    // Header-safe and bounded: a non-ASCII field name is escaped; at most 50 warnings, then a count.
    const many = Object.fromEntries(Array.from({ length: 60 }, (_, i) => [`x${i}`, 1]));
    const crowded = await send(
      c,
      "POST",
      "/api/v1/namespaces/default/configmaps",
      JSON.stringify({ metadata: { name: "d" }, "名前": 1, ...many }),
    );
    assert.equal(crowded.status, 201, await crowded.clone().text());
    const warnings = crowded.headers.get("warning")!.split(", 299 - ");
    assert.equal(warnings.length, 51);
    assert.equal(warnings[0], '299 - "unknown field \\"\\u540d\\u524d\\""');
    assert.equal(warnings[50], '"11 more warnings"');
    const bad = await send(
      c,
      "POST",
      "/api/v1/namespaces/default/configmaps?fieldValidation=Loud",
      cm(""),
    );
    assert.equal(bad.status, 422);
    assert.match(
      (await bad.json() as Status).message!,
      /fieldValidation: Unsupported value: "Loud"/,
    );
    c.close();
  });

  test("patches and applies are validated too; where a schema preserves unknown fields, anything goes", async () => {
    const c = new SimulatedCluster({ resources: [gadgetCrd] });
    c.create(configmaps, { metadata: { name: "c", namespace: "default" }, data: {} });
    const merge = await send(
      c,
      "PATCH",
      "/api/v1/namespaces/default/configmaps/c?fieldValidation=Strict",
      '{"data":{"k":"v"},"dat":{"k":"v"}}',
      "application/merge-patch+json",
    );
    assert.equal(merge.status, 400);
    assert.equal(
      (await merge.json() as Status).message,
      'strict decoding error: unknown field "dat"',
    );
    // A JSON patch is judged by the object it makes; the unknown fields it adds are removed.
    // (The empty `data` the ConfigMap was created with is not stored, as on a real server.)
    const ops =
      '[{"op":"add","path":"/dat","value":{}},{"op":"add","path":"/data","value":{"k":"v"}}]';
    const strictJson = await send(
      c,
      "PATCH",
      "/api/v1/namespaces/default/configmaps/c?fieldValidation=Strict",
      ops,
      "application/json-patch+json",
    );
    assert.equal(strictJson.status, 400);
    assert.equal(
      (await strictJson.json() as Status).message,
      'strict decoding error: unknown field "dat"',
    );
    const warnJson = await send(
      c,
      "PATCH",
      "/api/v1/namespaces/default/configmaps/c",
      ops,
      "application/json-patch+json",
    );
    assert.equal(warnJson.status, 200, await warnJson.clone().text());
    assert.equal(warnJson.headers.get("warning"), '299 - "unknown field \\"dat\\""');
    const patched = c.get(configmaps, { namespace: "default", name: "c" })!;
    assert.equal(Object.hasOwn(patched, "dat"), false);
    assert.deepEqual(patched.data, { k: "v" });
    const smp = await send(
      c,
      "PATCH",
      "/api/v1/namespaces/default/configmaps/c?fieldValidation=Strict",
      '{"metadata":{"$setElementOrder/finalizers":[]},"data":{"k":null}}',
      "application/strategic-merge-patch+json",
    );
    assert.equal(smp.status, 200, await smp.clone().text());
    const apply = await send(
      c,
      "PATCH",
      "/apis/example.org/v1/namespaces/default/gadgets/g?fieldManager=t&fieldValidation=Strict",
      "apiVersion: example.org/v1\nkind: Gadget\nmetadata:\n  name: g\nspec:\n  size: 1\n  sise: 2\n",
      "application/apply-patch+yaml",
    );
    // Server-side apply's typed conversion fails: a 500 with no reason, as kube-apiserver.
    assert.equal(apply.status, 500);
    const applyStatus = await apply.json() as Status;
    assert.equal(applyStatus.reason, undefined);
    assert.equal(
      applyStatus.message,
      "failed to create typed patch object (default/g; example.org/v1, Kind=Gadget): .spec.sise: field not declared in schema",
    );
    const nested = await send(
      c,
      "POST",
      "/apis/example.org/v1/namespaces/default/gadgets?fieldValidation=Strict",
      '{"apiVersion":"example.org/v1","kind":"Gadget","metadata":{"name":"g"},"spec":{"parts":[{"name":"a"},{"nme":"b"}],"extra":{"any":{"thing":1}}}}',
    );
    assert.equal(nested.status, 400);
    assert.match(
      (await nested.json() as Status).message!,
      /unknown field "spec\.parts\[1\]\.nme"$/,
    );
    const ok = await send(
      c,
      "POST",
      "/apis/example.org/v1/namespaces/default/gadgets?fieldValidation=Strict",
      '{"apiVersion":"example.org/v1","kind":"Gadget","metadata":{"name":"g"},"spec":{"parts":[{"name":"a"}],"extra":{"any":{"thing":1}}}}',
    );
    assert.equal(ok.status, 201, await ok.clone().text());
    c.close();
  });

  test("kinds described in their metadata only accept any other field in spec and status; custom resources without a schema anywhere", async () => {
    const networkpolicies = defineResource({
      group: "networking.k8s.io",
      version: "v1",
      resource: "networkpolicies",
      kind: "NetworkPolicy",
      namespaced: true,
    });
    const c = new SimulatedCluster({ resources: [networkpolicies] });
    const policy = await send(
      c,
      "POST",
      "/apis/networking.k8s.io/v1/namespaces/default/networkpolicies?fieldValidation=Strict",
      '{"apiVersion":"networking.k8s.io/v1","kind":"NetworkPolicy","metadata":{"name":"n"},"spec":{"anything":1}}',
    );
    assert.equal(policy.status, 201, await policy.clone().text());
    assert.deepEqual(c.get(networkpolicies, { namespace: "default", name: "n" })?.spec, {
      anything: 1,
    });
    // A pod has nothing at its top level besides apiVersion, kind, metadata, spec and status:
    // a stray field there (`sepc`) is refused as kube-apiserver refuses it, or dropped with a
    // warning under Warn (kubectl's --validate=warn).
    const typo = await send(
      c,
      "POST",
      "/api/v1/namespaces/default/pods?fieldValidation=Strict",
      '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"q"},"sepc":{},"whatever":true}',
    );
    assert.equal(typo.status, 400);
    assert.match(
      ((await typo.json()) as Status).message ?? "",
      /strict decoding error: unknown field "sepc", unknown field "whatever"/,
    );
    const warned = await send(
      c,
      "POST",
      "/apis/apps/v1/namespaces/default/deployments?fieldValidation=Warn",
      '{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"w"},"replicas":3}',
    );
    assert.equal(warned.status, 201);
    assert.equal(warned.headers.get("warning"), '299 - "unknown field \\"replicas\\""');
    assert.equal(
      (c.get(deployments, { namespace: "default", name: "w" }) as Record<string, unknown>)
        .replicas,
      undefined,
    );
    c.delete(deployments, { namespace: "default", name: "w" });
    const deploy = await send(
      c,
      "POST",
      "/apis/apps/v1/namespaces/default/deployments?fieldValidation=Strict",
      '{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d","nam":"x"}}',
    );
    assert.equal(deploy.status, 400, "metadata is described for every kind");
    assert.equal(c.list(deployments).length, 0);
    const widget = await send(
      c,
      "POST",
      "/apis/example.com/v1/namespaces/default/widgets?fieldValidation=Strict",
      '{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w"},"spec":{"size":1},"more":{}}',
    );
    assert.equal(widget.status, 201);
    assert.deepEqual(c.get(widgets, { namespace: "default", name: "w" })?.spec, { size: 1 });
    c.close();
  });
});
