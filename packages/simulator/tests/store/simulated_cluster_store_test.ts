import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { KubeApiError } from "../../../../src/client/errors.ts";
import { configmaps, namespaces, pods } from "../../../../src/client/resource.ts";
import type { KubeObject } from "../../../../src/client/types.ts";
import { ManualClock } from "../../../../src/testing/manual_clock.ts";
import { SimulatedCluster } from "../../src/cluster/simulated_cluster.ts";
import { widgets } from "../../src/model/kinds/widgets.ts";

function cluster(): SimulatedCluster {
  return new SimulatedCluster({ clock: new ManualClock(1_700_000_000_000), seed: 7 });
}

async function call(
  c: SimulatedCluster,
  method: string,
  path: string,
  body?: unknown,
  contentType = "application/json",
): Promise<{ status: number; json: Record<string, unknown> }> {
  const init: RequestInit = { method };
  if (body !== undefined) {
    init.body = JSON.stringify(body);
    init.headers = { "Content-Type": contentType };
  }
  const res = await c.fetch(new Request(`http://sim${path}`, init));
  return { status: res.status, json: await res.json() as Record<string, unknown> };
}

function apiError(fn: () => unknown, code: number, reason: string): void {
  assert.throws(fn, (e: unknown) => {
    assert.ok(e instanceof KubeApiError, String(e));
    assert.equal(e.code, code);
    assert.equal(e.reason, reason);
    return true;
  });
}

describe("SimulatedCluster object store", () => {
  test("create assigns uid, resourceVersion, creationTimestamp and generation; get adds kind", () => {
    const c = cluster();
    assert.equal(c.resourceVersion, "1");
    const pod = c.create(pods, { metadata: { name: "a", namespace: "default" }, spec: {} });
    assert.match(
      pod.metadata.uid!,
      /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
    assert.equal(pod.metadata.resourceVersion, "2");
    assert.equal(pod.metadata.creationTimestamp, "2023-11-14T22:13:20Z");
    assert.equal(pod.metadata.generation, 1);
    assert.equal(pod.kind, "Pod");
    assert.equal(pod.apiVersion, "v1");
    assert.deepEqual(c.get(pods, { namespace: "default", name: "a" }), pod);
    assert.equal(c.resourceVersion, "2");
    c.close();
  });

  test("uids are seeded: the same seed gives the same uids", () => {
    const a = cluster();
    const b = cluster();
    const obj = { metadata: { name: "x", namespace: "default" } };
    assert.equal(a.create(configmaps, obj).metadata.uid, b.create(configmaps, obj).metadata.uid);
    a.close();
    b.close();
  });

  test("one resourceVersion counter spans every resource", () => {
    const c = cluster();
    c.create(pods, { metadata: { name: "a", namespace: "default" } });
    const ns = c.create(namespaces, { metadata: { name: "team" } });
    const w = c.create(widgets, { metadata: { name: "w", namespace: "team" }, spec: { size: 1 } });
    assert.equal(ns.metadata.resourceVersion, "3");
    assert.equal(ns.metadata.namespace, undefined);
    assert.equal(w.metadata.resourceVersion, "4");
    assert.equal(w.apiVersion, "example.com/v1");
    c.close();
  });

  test("creating an existing name is 409 AlreadyExists", () => {
    const c = cluster();
    c.create(pods, { metadata: { name: "a", namespace: "default" } });
    apiError(
      () => c.create(pods, { metadata: { name: "a", namespace: "default" } }),
      409,
      "AlreadyExists",
    );
    c.close();
  });

  test("generateName makes a unique name", () => {
    const c = cluster();
    const a = c.create(pods, { metadata: { generateName: "web-", namespace: "default" } });
    assert.match(a.metadata.name!, /^web-[a-z0-9]{5}$/);
    c.close();
  });

  test("invalid names and labels are 422 Invalid", () => {
    const c = cluster();
    apiError(
      () => c.create(pods, { metadata: { name: "Bad_Name", namespace: "default" } }),
      422,
      "Invalid",
    );
    apiError(
      () =>
        c.create(pods, { metadata: { name: "a", namespace: "default", labels: { "a b": "c" } } }),
      422,
      "Invalid",
    );
    apiError(() => c.create(pods, { metadata: { namespace: "default" } }), 422, "Invalid");
    c.close();
  });

  test("update bumps resourceVersion; generation only when spec changes", () => {
    const c = cluster();
    const a = c.create(widgets, {
      metadata: { name: "w", namespace: "default" },
      spec: { size: 1 },
    });
    const labelled = c.update(widgets, { ...a, metadata: { ...a.metadata, labels: { x: "y" } } });
    assert.equal(labelled.metadata.resourceVersion, "3");
    assert.equal(labelled.metadata.generation, 1);
    const resized = c.update(widgets, { ...labelled, spec: { size: 2 } });
    assert.equal(resized.metadata.generation, 2);
    assert.equal(resized.metadata.uid, a.metadata.uid);
    assert.equal(resized.metadata.creationTimestamp, a.metadata.creationTimestamp);
    c.close();
  });

  test("an update that changes nothing keeps the resourceVersion", () => {
    const c = cluster();
    const a = c.create(configmaps, {
      metadata: { name: "a", namespace: "default" },
      data: { k: "v" },
    });
    const same = c.update(configmaps, a);
    assert.equal(same.metadata.resourceVersion, a.metadata.resourceVersion);
    assert.equal(c.resourceVersion, a.metadata.resourceVersion);
    c.close();
  });

  test("update with a stale resourceVersion is 409 Conflict; a missing object is 404", () => {
    const c = cluster();
    const a = c.create(configmaps, { metadata: { name: "a", namespace: "default" } });
    c.update(configmaps, { ...a, data: { k: "1" } });
    apiError(() => c.update(configmaps, { ...a, data: { k: "2" } }), 409, "Conflict");
    apiError(
      () => c.update(configmaps, { metadata: { name: "nope", namespace: "default" } }),
      404,
      "NotFound",
    );
    c.close();
  });

  test("patch applies a JSON merge patch (null deletes)", () => {
    const c = cluster();
    c.create(configmaps, {
      metadata: { name: "a", namespace: "default", labels: { x: "1", y: "2" } },
    });
    const p = c.patch(configmaps, { namespace: "default", name: "a" }, {
      metadata: { labels: { x: null, z: "3" } },
      data: { k: "v" },
    });
    assert.deepEqual(p.metadata.labels, { y: "2", z: "3" });
    assert.deepEqual(p.data, { k: "v" });
    c.close();
  });

  test("delete removes the object at a new resourceVersion; unknown is 404", () => {
    const c = cluster();
    c.create(pods, { metadata: { name: "a", namespace: "default" } });
    const last = c.delete(pods, { namespace: "default", name: "a" });
    assert.equal(last.metadata.resourceVersion, "3");
    assert.equal(c.get(pods, { namespace: "default", name: "a" }), undefined);
    apiError(() => c.delete(pods, { namespace: "default", name: "a" }), 404, "NotFound");
    c.close();
  });

  test("finalizers hold a deleted object until an update clears them", () => {
    const c = cluster();
    c.create(configmaps, {
      metadata: { name: "a", namespace: "default", finalizers: ["example.com/keep"] },
    });
    const terminating = c.delete(configmaps, { namespace: "default", name: "a" });
    assert.equal(terminating.metadata.deletionTimestamp, "2023-11-14T22:13:20Z");
    const still = c.get(configmaps, { namespace: "default", name: "a" })!;
    assert.ok(still);
    c.update(configmaps, { ...still, metadata: { ...still.metadata, finalizers: [] } });
    assert.equal(c.get(configmaps, { namespace: "default", name: "a" }), undefined);
    c.close();
  });

  test("list filters by namespace and selectors and sorts by namespace/name", () => {
    const c = cluster();
    for (const name of ["a", "b"]) c.create(namespaces, { metadata: { name } });
    for (
      const [ns, name, app] of [["b", "x", "web"], ["a", "y", "db"], ["a", "x", "web"]] as const
    ) {
      c.create(pods, { metadata: { name, namespace: ns, labels: { app } } });
    }
    assert.deepEqual(c.list(pods).map((p) => `${p.metadata.namespace}/${p.metadata.name}`), [
      "a/x",
      "a/y",
      "b/x",
    ]);
    assert.deepEqual(c.list(pods, { labelSelector: "app=web" }).length, 2);
    assert.deepEqual(c.list(pods, { namespace: "a", fieldSelector: "metadata.name=y" }).length, 1);
    c.close();
  });

  test("seed creates realistic pods of 2-4 KB, with managedFields and non-ASCII text", () => {
    const c = cluster();
    c.seed(pods, 20);
    const all = c.list(pods);
    assert.equal(all.length, 20);
    for (const p of all) {
      const size = new TextEncoder().encode(JSON.stringify(p)).byteLength;
      assert.ok(size >= 2048 && size <= 4096, `pod is ${size} bytes`);
      assert.ok(Array.isArray(p.metadata.managedFields));
    }
    assert.ok(all.some((p) => [...JSON.stringify(p)].some((ch) => ch.charCodeAt(0) > 127)));
    c.close();
  });

  test("control API rejects resources the cluster does not serve", () => {
    const c = cluster();
    const nodes = { version: "v1", resource: "nodes", kind: "Node", namespaced: false };
    assert.throws(() => c.create(nodes, { metadata: { name: "n" } }), TypeError);
    c.close();
  });
});

describe("SimulatedCluster writes over HTTP", () => {
  test("POST creates (201), GET reads, PUT replaces, DELETE returns the object", async () => {
    const c = cluster();
    const created = await call(c, "POST", "/api/v1/namespaces/default/pods", {
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "a" },
      spec: { containers: [] },
      status: { phase: "Running" },
    });
    assert.equal(created.status, 201);
    const meta = created.json.metadata as KubeObject["metadata"];
    assert.equal(meta.namespace, "default");
    assert.deepEqual(
      created.json.status,
      { phase: "Pending" },
      "the server resets status on create",
    );
    const got = await call(c, "GET", "/api/v1/namespaces/default/pods/a");
    assert.equal(got.status, 200);
    assert.equal(got.json.kind, "Pod");
    const put = await call(c, "PUT", "/api/v1/namespaces/default/pods/a", {
      ...got.json,
      metadata: { ...(got.json.metadata as object), labels: { a: "b" } },
      status: { phase: "Failed" },
    });
    assert.equal(put.status, 200);
    assert.deepEqual(put.json.status, { phase: "Pending" }, "a main-resource PUT keeps the status");
    const del = await call(c, "DELETE", "/api/v1/namespaces/default/pods/a");
    assert.equal(del.status, 200);
    assert.equal(del.json.kind, "Pod");
    c.close();
  });

  test("PUT on /status changes only the status", async () => {
    const c = cluster();
    const w = c.create(widgets, {
      metadata: { name: "w", namespace: "default" },
      spec: { size: 1 },
    });
    const res = await call(c, "PUT", "/apis/example.com/v1/namespaces/default/widgets/w/status", {
      ...w,
      spec: { size: 99 },
      status: { ready: true },
    });
    assert.equal(res.status, 200);
    assert.deepEqual(res.json.spec, { size: 1 });
    assert.deepEqual(res.json.status, { ready: true });
    c.close();
  });

  test("PATCH supports merge, strategic (as merge) and JSON patch; unknown types are 415", async () => {
    const c = cluster();
    c.create(configmaps, { metadata: { name: "a", namespace: "default" }, data: { a: "1" } });
    const path = "/api/v1/namespaces/default/configmaps/a";
    const merge = await call(
      c,
      "PATCH",
      path,
      { data: { b: "2" } },
      "application/merge-patch+json",
    );
    assert.deepEqual(merge.json.data, { a: "1", b: "2" });
    const smp = await call(
      c,
      "PATCH",
      path,
      { data: { a: null } },
      "application/strategic-merge-patch+json",
    );
    assert.deepEqual(smp.json.data, { b: "2" });
    const jp = await call(
      c,
      "PATCH",
      path,
      [{ op: "add", path: "/data/c", value: "3" }],
      "application/json-patch+json",
    );
    assert.deepEqual(jp.json.data, { b: "2", c: "3" });
    const bad = await call(c, "PATCH", path, {}, "application/xml");
    assert.equal(bad.status, 415);
    c.close();
  });

  test("DELETE of a configmap answers a Success Status", async () => {
    const c = cluster();
    const cm = c.create(configmaps, { metadata: { name: "a", namespace: "default" } });
    const del = await call(c, "DELETE", "/api/v1/namespaces/default/configmaps/a");
    assert.deepEqual(del.json, {
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Success",
      details: { name: "a", kind: "configmaps", uid: cm.metadata.uid },
    });
    c.close();
  });

  test("errors are Status objects: 409 AlreadyExists, 409 Conflict, 404 NotFound, 400, 405", async () => {
    const c = cluster();
    const a = c.create(configmaps, { metadata: { name: "a", namespace: "default" } });
    const exists = await call(c, "POST", "/api/v1/namespaces/default/configmaps", {
      metadata: { name: "a" },
    });
    assert.deepEqual(exists, {
      status: 409,
      json: {
        kind: "Status",
        apiVersion: "v1",
        metadata: {},
        status: "Failure",
        message: 'configmaps "a" already exists',
        reason: "AlreadyExists",
        details: { name: "a", kind: "configmaps" },
        code: 409,
      },
    });
    c.update(configmaps, { ...a, data: { x: "1" } });
    const stale = await call(c, "PUT", "/api/v1/namespaces/default/configmaps/a", a);
    assert.equal(stale.status, 409);
    assert.equal(stale.json.reason, "Conflict");
    const missing = await call(c, "GET", "/apis/example.com/v1/namespaces/default/widgets/nope");
    assert.equal(missing.status, 404);
    assert.equal(missing.json.message, 'widgets.example.com "nope" not found');
    assert.deepEqual(missing.json.details, { name: "nope", group: "example.com", kind: "widgets" });
    const wrongNs = await call(c, "POST", "/api/v1/namespaces/default/configmaps", {
      metadata: { name: "b", namespace: "other" },
    });
    assert.equal(wrongNs.status, 400);
    assert.equal(wrongNs.json.reason, "BadRequest");
    const notJson = await c.fetch(
      new Request("http://sim/api/v1/namespaces/default/configmaps", { method: "POST", body: "{" }),
    );
    assert.equal(notJson.status, 400);
    await notJson.body?.cancel();
    const method = await call(c, "PUT", "/api/v1/namespaces/default/configmaps", {});
    assert.equal(method.status, 405);
    assert.equal(method.json.reason, "MethodNotAllowed");
    c.close();
  });
});
