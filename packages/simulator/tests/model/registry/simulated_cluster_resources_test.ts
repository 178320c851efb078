// The simulated cluster's `resources` option: more resources (CRDs, built-ins it does not serve
// by default) served like the built-in ones, over the client, informers and discovery.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { defineResource } from "../../../../../src/client/define_resource.ts";
import { pods } from "../../../../../src/client/resource.ts";
import type { CustomObject, KubeObject } from "../../../../../src/client/types.ts";
import { SimulatedCluster } from "../../../src/cluster/simulated_cluster.ts";
import { closed, env } from "../../../../../tests/_informer_env.ts";

type Gadget = CustomObject<{ replicas?: number; color?: string }, { ready?: boolean }>;

const services = defineResource({
  version: "v1",
  resource: "services",
  kind: "Service",
  namespaced: true,
});
const gadgets = defineResource<Gadget>({
  group: "example.org",
  version: "v1alpha1",
  resource: "gadgets",
  kind: "Gadget",
  namespaced: false,
});
const notes = defineResource({
  group: "example.org",
  version: "v1",
  resource: "notes",
  kind: "Note",
  namespaced: true,
});

describe("SimulatedCluster option resources", () => {
  test("an extra namespaced core resource and a cluster-scoped CRD are served over HTTP", async () => {
    const e = env({
      cluster: { resources: [services, { resource: gadgets, shortNames: ["gd"] }] },
    });
    const svc = await e.client.create(services, { metadata: { namespace: "ns1", name: "web" } });
    assert.equal(svc.kind, "Service");
    assert.equal(svc.apiVersion, "v1");
    assert.match(svc.metadata.uid ?? "", /./);
    const g = await e.client.create(gadgets, { metadata: { name: "g1" }, spec: { replicas: 1 } });
    assert.equal(g.apiVersion, "example.org/v1alpha1");
    assert.equal(g.metadata.namespace, undefined);
    assert.equal(e.cluster.requests.at(-1)?.path, "/apis/example.org/v1alpha1/gadgets");
    assert.deepEqual(
      (await e.client.list(services, { namespace: "ns1" })).items.map((s) => s.metadata.name),
      ["web"],
    );
    assert.equal((await e.client.list(gadgets)).kind, "GadgetList");
    const patched = await e.client.patch(gadgets, "g1", { spec: { color: "red" } }, {
      type: "merge",
    });
    assert.equal(patched.spec?.color, "red");
    await e.client.delete(services, "web", { namespace: "ns1" });
    assert.equal(e.cluster.list(services).length, 0);
    await closed(e);
  });

  test("an informer on a custom resource syncs and follows writes", async () => {
    const e = env({ cluster: { resources: [gadgets] } });
    e.cluster.create(gadgets, { metadata: { name: "a" }, spec: { replicas: 1 } });
    const inf = e.informer({ resource: gadgets });
    inf.start();
    await inf.waitForSync();
    assert.equal(inf.store.get("a")?.spec?.replicas, 1);
    e.cluster.create(gadgets, { metadata: { name: "b" } });
    e.cluster.delete(gadgets, { name: "a" });
    await e.clock.flush();
    assert.deepEqual(inf.store.list().map((x) => x.metadata.name), ["b"]);
    assert.deepEqual(e.errors, []);
    await closed(e);
  });

  test("status is a subresource by default and part of the object with statusSubresource: false", async () => {
    const e = env({
      cluster: { resources: [gadgets, { resource: notes, statusSubresource: false }] },
    });
    e.cluster.create(gadgets, { metadata: { name: "g" }, status: { ready: true } });
    const g = await e.client.get(gadgets, "g");
    const replaced = await e.client.replace(gadgets, {
      ...g,
      spec: { replicas: 2 },
      status: { ready: false },
    });
    assert.equal(replaced.status?.ready, true, "main-resource writes keep the status");
    assert.equal(replaced.spec?.replicas, 2);
    const status = await e.client.replace(gadgets, { ...replaced, status: { ready: false } }, {
      subresource: "status",
    });
    assert.equal(status.status?.ready, false);

    e.cluster.create(notes, { metadata: { namespace: "n", name: "x" } } as KubeObject);
    const x = await e.client.get(notes, "x", { namespace: "n" });
    const written = await e.client.replace(notes, { ...x, status: { done: true } } as KubeObject);
    assert.deepEqual((written as { status?: unknown }).status, { done: true });
    await assert.rejects(
      e.client.get(notes, "x", { namespace: "n", subresource: "status" }),
      (err: Error & { code?: number }) => err.code === 404,
    );
    await closed(e);
  });

  test("scaleSubresource serves an autoscaling/v1 Scale of spec.replicas", async () => {
    const e = env({ cluster: { resources: [{ resource: gadgets, scaleSubresource: true }] } });
    e.cluster.create(gadgets, { metadata: { name: "g" }, spec: { replicas: 3 } });
    const scale = await e.client.get(gadgets, "g", { subresource: "scale" });
    assert.equal(scale.kind, "Scale");
    assert.equal(scale.spec?.replicas, 3);
    await closed(e);
  });

  test("discovery lists the extra resources, their group and short names", async () => {
    const e = env({
      cluster: { resources: [services, { resource: gadgets, shortNames: ["gd"] }, notes] },
    });
    const get = async (path: string) =>
      await (await e.cluster.fetch(new Request(`http://sim.test${path}`))).json();
    const core = await get("/api/v1") as { resources: { name: string }[] };
    assert.ok(core.resources.some((r) => r.name === "services"));
    assert.ok(core.resources.some((r) => r.name === "pods"), "built-ins stay served");
    const groups = await get("/apis") as {
      groups: { name: string; versions: { version: string }[] }[];
    };
    const org = groups.groups.find((g) => g.name === "example.org");
    assert.deepEqual(org?.versions.map((v) => v.version).sort(), ["v1", "v1alpha1"]);
    const list = await get("/apis/example.org/v1alpha1") as {
      resources: { name: string; namespaced: boolean; shortNames?: string[]; kind: string }[];
    };
    const gd = list.resources.find((r) => r.name === "gadgets");
    assert.deepEqual(
      { namespaced: gd?.namespaced, shortNames: gd?.shortNames, kind: gd?.kind },
      { namespaced: false, shortNames: ["gd"], kind: "Gadget" },
    );
    assert.ok(list.resources.some((r) => r.name === "gadgets/status"));
    await closed(e);
  });

  test("a resource not asked for is still not served (404 over HTTP, TypeError in the control API)", async () => {
    const c = new SimulatedCluster();
    const res = await c.fetch(new Request("http://sim.test/api/v1/namespaces/x/services"));
    assert.equal(res.status, 404);
    await res.body?.cancel();
    assert.throws(
      () => c.list(services),
      (e: Error) => e instanceof TypeError && /does not serve \/v1\/services/.test(e.message),
    );
    c.close();
  });

  test("bad entries are TypeErrors naming the entry", () => {
    const bad: [unknown, RegExp][] = [
      [{ resources: "services" }, /options\.resources must be an array/],
      [{ resources: [null] }, /options\.resources\[0\] must be a resource descriptor/],
      [{ resources: [{ version: "v1", resource: "x", namespaced: true }] }, /resources\[0\].*kind/],
      [
        { resources: [services, { ...services }] },
        /resources\[1\]: \/v1\/services is already served/,
      ],
      [{ resources: [pods] }, /resources\[0\]: \/v1\/pods is already served/],
      [
        { resources: [{ resource: gadgets, scaleSubresource: "yes" }] },
        /scaleSubresource must be a boolean/,
      ],
      [{ resources: [{ resource: gadgets, shortNames: [""] }] }, /shortNames must be an array/],
    ];
    for (const [options, message] of bad) {
      assert.throws(
        () => new SimulatedCluster(options as never),
        (e: Error) => e instanceof TypeError && message.test(e.message),
        JSON.stringify(options),
      );
    }
  });
});
