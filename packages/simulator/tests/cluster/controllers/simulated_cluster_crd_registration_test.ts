// A CustomResourceDefinition written through the API is served as kube-apiserver serves it:
// discovery (legacy and aggregated), CRUD, watch, patch and apply of its custom resources,
// subresources, printer columns, short names, OpenAPI v3 and field validation from its schema;
// its status says NamesAccepted/Established; a name conflict is refused; deleting it deletes
// its custom resources; the resources option's custom resources are CRDs too.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { KubeObject } from "../../../../../src/client/types.ts";
import { defineResource } from "../../../../../src/client/define_resource.ts";
import { ManualClock } from "../../../../../src/testing/manual_clock.ts";
import { SimulatedCluster } from "../../../src/cluster/simulated_cluster.ts";
import type { CustomResourceDefinitionObject } from "../../../src/model/kinds/custom_resources.ts";

const CRDS = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";

function gadgetCrd(
  extra: Record<string, unknown> = {},
): CustomResourceDefinitionObject & Record<string, unknown> {
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: "gadgets.demo.io" },
    spec: {
      group: "demo.io",
      names: { plural: "gadgets", kind: "Gadget", shortNames: ["gd"], categories: ["all"] },
      scope: "Namespaced",
      versions: [{
        name: "v1",
        served: true,
        storage: true,
        subresources: {
          status: {},
          scale: { specReplicasPath: ".spec.replicas", statusReplicasPath: ".status.replicas" },
        },
        additionalPrinterColumns: [{ name: "Size", type: "integer", jsonPath: ".spec.size" }],
        schema: {
          openAPIV3Schema: {
            type: "object",
            properties: {
              spec: {
                type: "object",
                properties: { size: { type: "integer" }, replicas: { type: "integer" } },
              },
              status: { type: "object", "x-kubernetes-preserve-unknown-fields": true },
            },
          },
        },
      }],
      ...extra,
    },
  };
}

const gadgets = defineResource({
  group: "demo.io",
  version: "v1",
  resource: "gadgets",
  kind: "Gadget",
  namespaced: true,
});

interface Condition {
  type: string;
  status: string;
  reason: string;
  message: string;
}

function setup(options: ConstructorParameters<typeof SimulatedCluster>[0] = {}) {
  const clock = new ManualClock();
  const c = new SimulatedCluster({ clock, ...options });
  const send = async (
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ) => {
    const res = await c.fetch(
      new Request(`http://sim.test${path}`, {
        method,
        headers: { "Content-Type": "application/json", ...headers },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      }),
    );
    const text = await res.text();
    return { status: res.status, body: text === "" ? undefined : JSON.parse(text) };
  };
  return { c, clock, send };
}

function conditions(crd: { status?: { conditions?: Condition[] } }): Record<string, Condition> {
  return Object.fromEntries((crd.status?.conditions ?? []).map((c) => [c.type, c]));
}

describe("SimulatedCluster: CRDs created through the API", () => {
  test("a created CRD is served at once and gets NamesAccepted, Established, acceptedNames and storedVersions", async () => {
    const { c, send } = setup();
    const created = await send("POST", CRDS, gadgetCrd());
    assert.equal(created.status, 201, JSON.stringify(created.body));
    // Defaults of the v1 API.
    assert.equal(created.body.spec.names.singular, "gadget");
    assert.equal(created.body.spec.names.listKind, "GadgetList");
    assert.deepEqual(created.body.spec.conversion, { strategy: "None" });
    const got = await send("GET", `${CRDS}/gadgets.demo.io`);
    assert.equal(got.status, 200);
    const conds = conditions(got.body);
    assert.deepEqual(
      { ...conds.NamesAccepted, lastTransitionTime: undefined },
      {
        type: "NamesAccepted",
        status: "True",
        reason: "NoConflicts",
        message: "no conflicts found",
        lastTransitionTime: undefined,
      },
    );
    assert.equal(conds.Established?.status, "True");
    assert.equal(conds.Established?.reason, "InitialNamesAccepted");
    assert.deepEqual(got.body.status.acceptedNames, {
      plural: "gadgets",
      singular: "gadget",
      kind: "Gadget",
      listKind: "GadgetList",
      shortNames: ["gd"],
      categories: ["all"],
    });
    assert.deepEqual(got.body.status.storedVersions, ["v1"]);
    assert.deepEqual(got.body.metadata.finalizers, ["customresourcecleanup.apiextensions.k8s.io"]);
    c.close();
  });

  test("discovery: legacy /apis, /apis/<group>, /apis/<group>/<version> and aggregated v2 list it", async () => {
    const { c, send } = setup();
    const before = await send("GET", "/apis/demo.io/v1");
    assert.equal(before.status, 404);
    await send("POST", CRDS, gadgetCrd());
    const apis = await send("GET", "/apis");
    assert.ok(apis.body.groups.some((g: { name: string }) => g.name === "demo.io"));
    const group = await send("GET", "/apis/demo.io");
    assert.equal(group.body.preferredVersion.groupVersion, "demo.io/v1");
    const list = await send("GET", "/apis/demo.io/v1");
    assert.deepEqual(
      list.body.resources.map((r: { name: string }) => r.name),
      ["gadgets", "gadgets/status", "gadgets/scale"],
    );
    assert.deepEqual(list.body.resources[0].shortNames, ["gd"]);
    assert.deepEqual(list.body.resources[0].categories, ["all"]);
    assert.equal(list.body.resources[0].namespaced, true);
    const v2 = await send("GET", "/apis", undefined, {
      Accept: "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList",
    });
    const demo = v2.body.items.find((g: { metadata: { name: string } }) =>
      g.metadata.name === "demo.io"
    );
    assert.ok(demo, "aggregated discovery lists demo.io");
    const resource = demo.versions[0].resources[0];
    assert.equal(resource.resource, "gadgets");
    assert.equal(resource.scope, "Namespaced");
    assert.deepEqual(
      resource.subresources.map((s: { subresource: string }) => s.subresource),
      ["status", "scale"],
    );
    c.close();
  });

  test("its custom resources: create, get, list, watch, merge patch, apply, status, scale, Table, field validation", async () => {
    const { c, send } = setup();
    await send("POST", CRDS, gadgetCrd());
    const base = "/apis/demo.io/v1/namespaces/default/gadgets";
    const watch = await c.fetch(new Request(`http://sim.test${base}?watch=1`));
    const reader = watch.body!.pipeThrough(new TextDecoderStream()).getReader();
    const created = await send("POST", `${base}?fieldValidation=Strict`, {
      apiVersion: "demo.io/v1",
      kind: "Gadget",
      metadata: { name: "g1" },
      spec: { size: 3, replicas: 1 },
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assert.match((await reader.read()).value!, /^\{"type":"ADDED".*"name":"g1"/);
    const unknown = await send("POST", `${base}?fieldValidation=Strict`, {
      apiVersion: "demo.io/v1",
      kind: "Gadget",
      metadata: { name: "g2" },
      spec: { size: 3, bogus: true },
    });
    assert.equal(unknown.status, 400);
    assert.match(unknown.body.message, /unknown field "spec\.bogus"/);
    const patched = await c.fetch(
      new Request(`http://sim.test${base}/g1`, {
        method: "PATCH",
        headers: { "Content-Type": "application/merge-patch+json" },
        body: '{"spec":{"size":4}}',
      }),
    );
    assert.equal(patched.status, 200);
    const applied = await c.fetch(
      new Request(`http://sim.test${base}/g3?fieldManager=test`, {
        method: "PATCH",
        headers: { "Content-Type": "application/apply-patch+yaml" },
        body:
          '{"apiVersion":"demo.io/v1","kind":"Gadget","metadata":{"name":"g3"},"spec":{"size":1}}',
      }),
    );
    assert.equal(applied.status, 201, await applied.clone().text());
    const status = await send("PUT", `${base}/g1/status`, {
      ...c.get(gadgets, { namespace: "default", name: "g1" }),
      status: { replicas: 1 },
    });
    assert.equal(status.status, 200);
    const scale = await send("GET", `${base}/g1/scale`);
    assert.deepEqual(
      [scale.body.kind, scale.body.spec.replicas, scale.body.status.replicas],
      ["Scale", 1, 1],
    );
    const table = await send("GET", base, undefined, {
      Accept: "application/json;as=Table;g=meta.k8s.io;v=v1",
    });
    assert.deepEqual(
      table.body.columnDefinitions.map((d: { name: string }) => d.name),
      ["Name", "Size"],
    );
    assert.deepEqual(table.body.rows.map((r: { cells: unknown[] }) => r.cells), [
      ["g1", 4],
      ["g3", 1],
    ]);
    const list = await send("GET", "/apis/demo.io/v1/gadgets");
    assert.equal(list.body.kind, "GadgetList");
    assert.deepEqual(list.body.items.map((i: KubeObject) => i.metadata.name), ["g1", "g3"]);
    await reader.cancel();
    c.close();
  });

  test("a cluster-scoped CRD serves cluster-scoped resources; OpenAPI v3 publishes its schema", async () => {
    const { c, send } = setup();
    const crd = gadgetCrd({ scope: "Cluster" });
    await send("POST", CRDS, crd);
    const created = await send("POST", "/apis/demo.io/v1/gadgets", {
      apiVersion: "demo.io/v1",
      kind: "Gadget",
      metadata: { name: "global" },
      spec: { size: 1 },
    });
    assert.equal(created.status, 201);
    assert.equal(created.body.metadata.namespace, undefined);
    const index = await send("GET", "/openapi/v3");
    const url = index.body.paths["apis/demo.io/v1"]?.serverRelativeURL;
    assert.ok(url, "the group version has an OpenAPI document");
    const doc = await send("GET", url);
    const schema = doc.body.components.schemas["io.demo.v1.Gadget"];
    assert.equal(schema.properties.spec.properties.size.type, "integer");
    c.close();
  });

  test("a CRD is validated as kube-apiserver does: name, storage versions, scope (422)", async () => {
    const { c, send } = setup();
    const cases: Array<[Record<string, unknown>, string, RegExp]> = [
      [
        { ...gadgetCrd(), metadata: { name: "gizmos.demo.io" } },
        "metadata.name",
        /must be spec\.names\.plural\+"\."\+spec\.group/,
      ],
      [
        gadgetCrd({
          versions: [
            { name: "v1", served: true, storage: true },
            { name: "v2", served: true, storage: true },
          ],
        }),
        "spec.versions",
        /exactly one version marked as storage version/,
      ],
      [gadgetCrd({ scope: "Global" }), "spec.scope", /Unsupported value: "Global"/],
      [gadgetCrd({ group: "demo" }), "spec.group", /should be a domain with at least one dot/],
    ];
    for (const [body, field, message] of cases) {
      const res = await send("POST", CRDS, body);
      assert.equal(res.status, 422, JSON.stringify(res.body));
      assert.equal(res.body.reason, "Invalid");
      const cause = res.body.details.causes.find((x: { field: string }) => x.field === field);
      assert.ok(cause, `a cause for ${field}: ${JSON.stringify(res.body.details.causes)}`);
      assert.match(cause.message, message);
    }
    assert.equal((await send("GET", "/apis/demo.io/v1")).status, 404);
    c.close();
  });

  test("a CRD whose names another resource of its group holds is NamesAccepted=False and not served, until that one goes", async () => {
    const { c, send } = setup();
    await send("POST", CRDS, gadgetCrd());
    const clash = {
      ...gadgetCrd(),
      metadata: { name: "gizmos.demo.io" },
      spec: {
        ...gadgetCrd().spec as object,
        names: { plural: "gizmos", kind: "Gizmo", shortNames: ["gd"] },
      },
    };
    assert.equal((await send("POST", CRDS, clash)).status, 201);
    const got = await send("GET", `${CRDS}/gizmos.demo.io`);
    const conds = conditions(got.body);
    assert.deepEqual(
      [conds.NamesAccepted?.status, conds.NamesAccepted?.reason, conds.NamesAccepted?.message],
      ["False", "ShortNamesConflict", '"gd" is already in use'],
    );
    assert.deepEqual(
      [conds.Established?.status, conds.Established?.reason],
      ["False", "NotAccepted"],
    );
    assert.equal((await send("GET", "/apis/demo.io/v1/gizmos")).status, 404);
    // Once gadgets goes, gizmos gets its names.
    assert.equal((await send("DELETE", `${CRDS}/gadgets.demo.io`)).status, 200);
    await Promise.resolve();
    assert.equal((await send("GET", "/apis/demo.io/v1/gizmos")).status, 200);
    const after = conditions((await send("GET", `${CRDS}/gizmos.demo.io`)).body);
    assert.equal(after.Established?.status, "True");
    c.close();
  });

  test("deleting a CRD marks it Terminating, deletes its custom resources (watchers see DELETED), then stops serving", async () => {
    const { c, send } = setup();
    await send("POST", CRDS, gadgetCrd());
    const base = "/apis/demo.io/v1/namespaces/default/gadgets";
    await send("POST", base, { metadata: { name: "g1" }, spec: { size: 1 } });
    await send("POST", base, {
      metadata: { name: "kept", finalizers: ["demo.io/hold"] },
      spec: { size: 2 },
    });
    const watch = await c.fetch(new Request(`http://sim.test${base}?watch=1&resourceVersion=0`));
    const reader = watch.body!.pipeThrough(new TextDecoderStream()).getReader();
    const deleted = await send("DELETE", `${CRDS}/gadgets.demo.io`);
    assert.equal(deleted.status, 200);
    assert.ok(deleted.body.metadata.deletionTimestamp);
    await Promise.resolve();
    const crd = (await send("GET", `${CRDS}/gadgets.demo.io`)).body;
    assert.equal(conditions(crd).Terminating?.reason, "InstanceDeletionInProgress");
    // One custom resource holds a finalizer: the CRD waits for it, still serving.
    assert.deepEqual(
      (await send("GET", base)).body.items.map((i: KubeObject) => i.metadata.name),
      ["kept"],
    );
    const kept = c.get(gadgets, { namespace: "default", name: "kept" })!;
    await send("PUT", `${base}/kept`, { ...kept, metadata: { ...kept.metadata, finalizers: [] } });
    await Promise.resolve();
    assert.equal((await send("GET", `${CRDS}/gadgets.demo.io`)).status, 404);
    assert.equal((await send("GET", base)).status, 404);
    const discovery = await send("GET", "/apis");
    assert.ok(!discovery.body.groups.some((g: { name: string }) => g.name === "demo.io"));
    let text = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break; // the watch ends when the resource stops being served
      text += value;
    }
    const events = text.trim().split("\n").map((l) =>
      JSON.parse(l) as { type: string; object: KubeObject }
    );
    const gone = events.filter((e) => e.type === "DELETED").map((e) => e.object.metadata.name);
    assert.deepEqual(gone.sort(), ["g1", "kept"]);
    c.close();
  });

  test("updating a CRD changes what is served: a new printer column and a new version, objects kept", async () => {
    const { c, send } = setup();
    await send("POST", CRDS, gadgetCrd());
    await send("POST", "/apis/demo.io/v1/namespaces/default/gadgets", {
      metadata: { name: "g1" },
      spec: { size: 5 },
    });
    const current = (await send("GET", `${CRDS}/gadgets.demo.io`)).body;
    const v1 = current.spec.versions[0];
    const updated = await send("PUT", `${CRDS}/gadgets.demo.io`, {
      ...current,
      spec: {
        ...current.spec,
        versions: [
          { ...v1, storage: false },
          {
            ...v1,
            name: "v2",
            storage: true,
            additionalPrinterColumns: [{ name: "Big", type: "integer", jsonPath: ".spec.size" }],
          },
        ],
      },
    });
    assert.equal(updated.status, 200, JSON.stringify(updated.body));
    const v2 = await send("GET", "/apis/demo.io/v2/namespaces/default/gadgets/g1");
    assert.equal(v2.status, 200);
    assert.equal(v2.body.apiVersion, "demo.io/v2");
    const table = await send("GET", "/apis/demo.io/v2/namespaces/default/gadgets", undefined, {
      Accept: "application/json;as=Table;g=meta.k8s.io;v=v1",
    });
    assert.deepEqual(
      table.body.columnDefinitions.map((d: { name: string }) => d.name),
      ["Name", "Big"],
    );
    await Promise.resolve();
    const status = (await send("GET", `${CRDS}/gadgets.demo.io`)).body.status;
    assert.deepEqual(status.storedVersions, ["v1", "v2"]);
    c.close();
  });

  test("the resources option's custom resources are CRD objects, Established; re-applying one keeps its objects", async () => {
    const gizmos = defineResource({
      group: "example.org",
      version: "v1",
      resource: "gizmos",
      kind: "Gizmo",
      namespaced: false,
    });
    const { c, send } = setup({
      resources: [gadgetCrd(), { resource: gizmos, shortNames: ["gz"], scaleSubresource: true }],
    });
    const list = await send("GET", CRDS);
    const names = list.body.items.map((i: KubeObject) => i.metadata.name);
    assert.deepEqual(names, ["gadgets.demo.io", "gizmos.example.org", "widgets.example.com"]);
    const gz = list.body.items[1];
    assert.equal(gz.spec.scope, "Cluster");
    assert.deepEqual(gz.spec.names.shortNames, ["gz"]);
    assert.ok(gz.spec.versions[0].subresources.scale);
    assert.equal(conditions(gz).Established?.status, "True");
    // Applying the same CRD again (as a test setup may) changes nothing that is served.
    await send("POST", "/apis/demo.io/v1/namespaces/default/gadgets", { metadata: { name: "g" } });
    const current = list.body.items[0];
    const again = await send("PUT", `${CRDS}/gadgets.demo.io`, current);
    assert.equal(again.status, 200);
    assert.equal(c.list(gadgets).length, 1);
    c.close();
  });

  test("owner references to a CRD's custom resources work: the garbage collector finds their kind", async () => {
    const { c, clock, send } = setup();
    await send("POST", CRDS, gadgetCrd());
    const owner = await send("POST", "/apis/demo.io/v1/namespaces/default/gadgets", {
      metadata: { name: "g1" },
    });
    const ref = {
      apiVersion: "demo.io/v1",
      kind: "Gadget",
      name: "g1",
      uid: owner.body.metadata.uid,
    };
    await send("POST", "/api/v1/namespaces/default/configmaps", {
      metadata: { name: "dependent", ownerReferences: [ref] },
    });
    await send("DELETE", "/apis/demo.io/v1/namespaces/default/gadgets/g1");
    await clock.advance(10);
    assert.equal(
      (await send("GET", "/api/v1/namespaces/default/configmaps/dependent")).status,
      404,
    );
    c.close();
  });
});
