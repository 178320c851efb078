// Field selectors on custom resources (selectableFields, GA in Kubernetes 1.32): the simulated
// cluster lets a field selector name a CRD version's selectableFields besides metadata.name and
// metadata.namespace, on LIST and WATCH, and refuses any other field with kube-apiserver's 400
// `field label not supported: <field>`; a CRD whose selectableFields the API server would refuse
// is a 422. The client and an informer send field selectors for any resource.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { defineResource } from "../../../../../src/client/define_resource.ts";
import { KubeApiError, KubeClient } from "../../../../../src/client/mod.ts";
import { customresourcedefinitions } from "../../../../../src/client/builtin_resources.ts";
import { createInformer } from "../../../../../src/cache/informer.ts";
import { ManualClock } from "../../../../../src/testing/manual_clock.ts";
import { SimulatedCluster } from "../../../src/cluster/simulated_cluster.ts";
import { failure } from "../../../../../tests/_errors.ts";

const gadgets = defineResource({
  group: "demo.io",
  version: "v1",
  resource: "gadgets",
  kind: "Gadget",
  namespaced: true,
});

function gadgetCrd(selectableFields?: unknown, specProperties: Record<string, unknown> = {}) {
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: "gadgets.demo.io" },
    spec: {
      group: "demo.io",
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
                  color: { type: "string" },
                  size: { type: "integer" },
                  shiny: { type: "boolean" },
                  tags: { type: "array", items: { type: "string" } },
                  ...specProperties,
                },
              },
            },
          },
        },
        ...(selectableFields === undefined ? {} : { selectableFields }),
      }],
    },
  };
}

const SELECTABLE = [{ jsonPath: ".spec.color" }, { jsonPath: ".spec.size" }, {
  jsonPath: ".spec.shiny",
}];

function gadget(name: string, spec: Record<string, unknown>) {
  return { metadata: { namespace: "default", name }, spec };
}

function setup(selectableFields: unknown) {
  const clock = new ManualClock();
  const cluster = new SimulatedCluster({ clock, resources: [gadgetCrd(selectableFields)] });
  const client = new KubeClient({ server: "http://sim.test", fetch: cluster.fetch });
  return { clock, cluster, client };
}

const names = (list: { items: Array<{ metadata: { name?: string } }> }) =>
  list.items.map((o) => o.metadata.name);

describe("SimulatedCluster: field selectors on custom resources (selectableFields)", () => {
  test("LIST selects on a CRD's selectableFields (string, integer, boolean; absent reads as empty)", async () => {
    const { cluster, client } = setup(SELECTABLE);
    await client.create(gadgets, gadget("a", { color: "blue", size: 3, shiny: true }));
    await client.create(gadgets, gadget("b", { color: "red", size: 3, shiny: false }));
    await client.create(gadgets, gadget("c", {}));
    const select = async (fieldSelector: string) =>
      names(await client.list(gadgets, { namespace: "default", fieldSelector }));
    assert.deepEqual(await select("spec.color=blue"), ["a"]);
    assert.deepEqual(await select("spec.color!=blue"), ["b", "c"]);
    assert.deepEqual(await select("spec.size=3"), ["a", "b"]);
    assert.deepEqual(await select("spec.shiny=true"), ["a"]);
    assert.deepEqual(await select("spec.color="), ["c"]);
    assert.deepEqual(await select("spec.size=3,spec.color=red"), ["b"]);
    // metadata.name and metadata.namespace are always selectable.
    assert.deepEqual(await select("metadata.name=c"), ["c"]);
    assert.deepEqual(await select("metadata.namespace=default,spec.shiny=false"), ["b"]);
    cluster.close();
  });

  test("a field that is not selectable is kube-apiserver's 400 field label not supported, on LIST and WATCH", async () => {
    const { cluster, client } = setup(SELECTABLE);
    for (const fieldSelector of ["spec.tags=x", "spec.colour=blue", "status.phase=Ready"]) {
      const field = fieldSelector.split("=")[0];
      const listed = await failure(client.list(gadgets, { fieldSelector }));
      assert.ok(listed instanceof KubeApiError);
      assert.equal(listed.code, 400);
      assert.equal(listed.reason, "BadRequest");
      assert.equal(listed.status?.message, `field label not supported: ${field}`);
      const watched = await failure(client.watch(gadgets, { fieldSelector }));
      assert.ok(watched instanceof KubeApiError);
      assert.equal(watched.code, 400);
      assert.equal(watched.status?.message, `field label not supported: ${field}`);
    }
    cluster.close();
  });

  test("without selectableFields only metadata.name and metadata.namespace are selectable", async () => {
    const { cluster, client } = setup(undefined);
    await client.create(gadgets, gadget("a", { color: "blue" }));
    assert.deepEqual(names(await client.list(gadgets, { fieldSelector: "metadata.name=a" })), [
      "a",
    ]);
    const refused = await failure(client.list(gadgets, { fieldSelector: "spec.color=blue" }));
    assert.ok(refused instanceof KubeApiError);
    assert.equal(refused.status?.message, "field label not supported: spec.color");
    cluster.close();
  });

  test("an informer with a field selector on a custom resource follows objects into and out of it", async () => {
    const { clock, cluster, client } = setup(SELECTABLE);
    await client.create(gadgets, gadget("a", { color: "blue" }));
    await client.create(gadgets, gadget("b", { color: "red" }));
    const informer = createInformer(client, {
      resource: gadgets,
      fieldSelector: "spec.color=blue",
      clock,
    });
    const seen: string[] = [];
    informer.addEventHandler({
      onAdd: (o) => void seen.push(`add ${o.metadata.name}`),
      onUpdate: (_old, o) => void seen.push(`update ${o.metadata.name}`),
      onDelete: (o) => void seen.push(`delete ${o.metadata.name}`),
    });
    informer.start();
    await informer.waitForSync();
    assert.deepEqual(informer.store.list().map((o) => o.metadata.name), ["a"]);
    await client.patch(gadgets, "b", { spec: { color: "blue" } }, { namespace: "default" });
    await client.patch(gadgets, "a", { spec: { color: "green" } }, { namespace: "default" });
    for (let i = 0; i < 50 && seen.length < 3; i++) await clock.advance(10);
    assert.deepEqual(seen, ["add a", "add b", "delete a"]);
    assert.deepEqual(informer.store.list().map((o) => o.metadata.name), ["b"]);
    const queries = cluster.requests.filter((r) => r.verb === "list" || r.verb === "watch");
    assert.ok(queries.length >= 2);
    for (const r of queries) assert.equal(r.query.fieldSelector, "spec.color=blue");
    await informer.stop();
    cluster.close();
  });

  test("a CRD created through the API serves its selectableFields; bad ones are a 422", async () => {
    const clock = new ManualClock();
    const cluster = new SimulatedCluster({ clock });
    const client = new KubeClient({ server: "http://sim.test", fetch: cluster.fetch });
    await client.create(customresourcedefinitions, gadgetCrd(SELECTABLE) as never);
    await client.create(gadgets, gadget("a", { color: "blue" }));
    await client.create(gadgets, gadget("b", { color: "red" }));
    assert.deepEqual(names(await client.list(gadgets, { fieldSelector: "spec.color=red" })), ["b"]);

    const bad: Array<[unknown, RegExp]> = [
      [[{ jsonPath: ".metadata.labels" }], /must not point to metadata fields/],
      [[{ jsonPath: ".spec.tags[0]" }], /not a simple JSON path/],
      [[{ jsonPath: ".spec.tags" }], /must point to a field of type string, boolean or integer/],
      [[{ jsonPath: ".spec.nothing" }], /not a field of the schema/],
      [[{ jsonPath: ".spec.color" }, { jsonPath: ".spec.color" }], /duplicate/],
      [Array.from({ length: 9 }, (_, i) => ({ jsonPath: `.spec.f${i}` })), /at most 8/],
    ];
    for (const [fields, why] of bad) {
      const crd = gadgetCrd(fields);
      crd.metadata.name = "widgets2.demo.io";
      crd.spec.names = { plural: "widgets2", kind: "Widget2" };
      const error = await failure(client.create(customresourcedefinitions, crd as never));
      assert.ok(error instanceof KubeApiError, String(error));
      assert.equal(error.code, 422);
      assert.match(error.message, why);
    }
    assert.throws(
      () => new SimulatedCluster({ resources: [gadgetCrd([{ jsonPath: "spec.color" }])] }),
      /selectableFields\[0\]\.jsonPath: "spec\.color" is not a simple JSON path/,
    );
    cluster.close();
  });
});
