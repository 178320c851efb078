// What kube-apiserver's decoding does to built-in objects before they are stored: a Secret's
// stringData merged into base64 data, type defaulted, data checked as base64; empty omitempty
// maps dropped (but kept on custom resources); on create, update, patch and apply alike.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { KubeObject, Status } from "../../../../../src/client/types.ts";
import { configmaps, secrets } from "../../../../../src/client/builtin_resources.ts";
import { SimulatedCluster } from "../../../src/cluster/simulated_cluster.ts";
import { widgets } from "../../../src/model/kinds/widgets.ts";
import { base64Problem } from "../../../src/model/defaults/builtin_normalization.ts";

async function send(
  c: SimulatedCluster,
  method: string,
  path: string,
  body: unknown,
  contentType = "application/json",
): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await c.fetch(
    new Request(`http://sim.test${path}`, {
      method,
      headers: { "Content-Type": contentType },
      body: typeof body === "string" ? body : JSON.stringify(body),
    }),
  );
  return { status: res.status, body: await res.json() as Record<string, unknown> };
}

const SECRETS = "/api/v1/namespaces/default/secrets";
const b64 = (s: string) => btoa(s);

describe("Secret normalisation", () => {
  test("create: stringData merged into base64 data (stringData wins), removed, type Opaque", async () => {
    const c = new SimulatedCluster({ resources: [secrets] });
    const res = await send(c, "POST", SECRETS, {
      apiVersion: "v1",
      kind: "Secret",
      metadata: { name: "s" },
      data: { a: b64("old"), b: b64("keep") },
      stringData: { a: "new", c: "héllo" },
    });
    assert.equal(res.status, 201);
    assert.deepEqual(res.body.data, { a: b64("new"), b: b64("keep"), c: "aMOpbGxv" });
    assert.equal(res.body.stringData, undefined);
    assert.equal(res.body.type, "Opaque");
    const stored = c.get(secrets, { namespace: "default", name: "s" }) as Record<string, unknown>;
    assert.deepEqual(stored.data, res.body.data);
    assert.equal(Object.hasOwn(stored, "stringData"), false);
    c.close();
  });

  test("create with stringData only gets data; a given type is kept", async () => {
    const c = new SimulatedCluster({ resources: [secrets] });
    const res = await send(c, "POST", SECRETS, {
      metadata: { name: "s" },
      type: "kubernetes.io/basic-auth",
      stringData: { username: "u", password: "p" },
    });
    assert.equal(res.status, 201);
    assert.deepEqual(res.body.data, { username: b64("u"), password: b64("p") });
    assert.equal(res.body.type, "kubernetes.io/basic-auth");
    c.close();
  });

  test("update (PUT) merges stringData too", async () => {
    const c = new SimulatedCluster({ resources: [secrets] });
    await send(c, "POST", SECRETS, { metadata: { name: "s" }, data: { a: b64("1") } });
    const res = await send(c, "PUT", `${SECRETS}/s`, {
      metadata: { name: "s" },
      data: { a: b64("1") },
      stringData: { b: "2" },
    });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.data, { a: b64("1"), b: b64("2") });
    assert.equal(res.body.stringData, undefined);
    assert.equal(res.body.type, "Opaque");
    c.close();
  });

  test("merge, strategic merge and JSON patches merge stringData", async () => {
    const c = new SimulatedCluster({ resources: [secrets] });
    await send(c, "POST", SECRETS, { metadata: { name: "s" }, data: { a: b64("1") } });
    const merge = await send(c, "PATCH", `${SECRETS}/s`, {
      stringData: { a: "x" },
    }, "application/merge-patch+json");
    assert.equal(merge.status, 200);
    assert.deepEqual(merge.body.data, { a: b64("x") });
    const smp = await send(c, "PATCH", `${SECRETS}/s`, {
      stringData: { b: "y" },
    }, "application/strategic-merge-patch+json");
    assert.deepEqual(smp.body.data, { a: b64("x"), b: b64("y") });
    const jp = await send(c, "PATCH", `${SECRETS}/s`, [
      { op: "add", path: "/stringData", value: { c: "z" } },
    ], "application/json-patch+json");
    assert.equal(jp.status, 200);
    assert.deepEqual(jp.body.data, { a: b64("x"), b: b64("y"), c: b64("z") });
    assert.equal(jp.body.stringData, undefined);
    c.close();
  });

  test("server-side apply creates and updates with stringData merged", async () => {
    const c = new SimulatedCluster({ resources: [secrets] });
    const apply = (value: string) =>
      send(
        c,
        "PATCH",
        `${SECRETS}/s?fieldManager=ctl`,
        `apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\nstringData:\n  k: ${value}\n`,
        "application/apply-patch+yaml",
      );
    const created = await apply("one");
    assert.equal(created.status, 201);
    assert.deepEqual(created.body.data, { k: b64("one") });
    assert.equal(created.body.stringData, undefined);
    assert.equal(created.body.type, "Opaque");
    const updated = await apply("two");
    assert.equal(updated.status, 200);
    assert.deepEqual(updated.body.data, { k: b64("two") });
    assert.equal(updated.body.stringData, undefined);
    c.close();
  });

  test("data that is not base64 is a 400 worded as kube-apiserver's, on create and patch", async () => {
    const c = new SimulatedCluster({ resources: [secrets] });
    const bad = await send(c, "POST", SECRETS, {
      metadata: { name: "s" },
      data: { username: "admin" },
    });
    assert.equal(bad.status, 400);
    const s = bad.body as unknown as Status;
    assert.equal(s.reason, "BadRequest");
    assert.equal(
      s.message,
      'Secret in version "v1" cannot be handled as a Secret: illegal base64 data at input byte 4',
    );
    assert.equal(c.list(secrets).length, 0);
    await send(c, "POST", SECRETS, { metadata: { name: "s" }, data: { a: b64("ok") } });
    const patched = await send(c, "PATCH", `${SECRETS}/s`, {
      data: { a: "<foo>" },
    }, "application/merge-patch+json");
    assert.equal(patched.status, 400);
    assert.match(String(patched.body.message), /illegal base64 data at input byte 0$/);
    assert.deepEqual(
      (c.get(secrets, { namespace: "default", name: "s" }) as Record<string, unknown>).data,
      { a: b64("ok") },
    );
    const notString = await send(c, "POST", SECRETS, {
      metadata: { name: "t" },
      stringData: { n: 1 },
    });
    assert.equal(notString.status, 400);
    c.close();
  });

  test("base64 checks follow Go's StdEncoding", () => {
    assert.equal(base64Problem(""), undefined);
    assert.equal(base64Problem("YWJj"), undefined);
    assert.equal(base64Problem("YQ=="), undefined);
    assert.equal(base64Problem("YWI="), undefined);
    assert.equal(base64Problem("YWJj\nZGVm\r\n"), undefined);
    assert.equal(base64Problem("admin"), 4);
    assert.equal(base64Problem("YQ"), 0);
    assert.equal(base64Problem("APIKEY_BASE64"), 6);
    assert.equal(base64Problem("YQ=x"), 2);
    assert.equal(base64Problem("YQ==YQ=="), 4);
    assert.equal(base64Problem("Y==="), 1);
  });
});

describe("empty omitempty maps", () => {
  test("a ConfigMap's empty labels, annotations and data are not stored or answered", async () => {
    const c = new SimulatedCluster({ resources: [secrets] });
    const res = await send(c, "POST", "/api/v1/namespaces/default/configmaps", {
      metadata: { name: "cm", labels: {}, annotations: {}, finalizers: [] },
      data: {},
      binaryData: {},
    });
    assert.equal(res.status, 201);
    const meta = res.body.metadata as Record<string, unknown>;
    assert.equal(Object.hasOwn(meta, "labels"), false);
    assert.equal(Object.hasOwn(meta, "annotations"), false);
    assert.equal(Object.hasOwn(meta, "finalizers"), false);
    assert.equal(Object.hasOwn(res.body, "data"), false);
    assert.equal(Object.hasOwn(res.body, "binaryData"), false);
    const stored = c.get(configmaps, { namespace: "default", name: "cm" }) as KubeObject;
    assert.equal(Object.hasOwn(stored.metadata, "annotations"), false);
    assert.equal(Object.hasOwn(stored, "data"), false);
    c.close();
  });

  test("a patch removing the last label leaves no empty map", async () => {
    const c = new SimulatedCluster({ resources: [secrets] });
    await send(c, "POST", "/api/v1/namespaces/default/configmaps", {
      metadata: { name: "cm", labels: { a: "1" } },
      data: { k: "v" },
    });
    const res = await send(c, "PATCH", "/api/v1/namespaces/default/configmaps/cm", {
      metadata: { labels: { a: null } },
      data: { k: null },
    }, "application/merge-patch+json");
    assert.equal(res.status, 200);
    assert.equal(Object.hasOwn(res.body.metadata as object, "labels"), false);
    assert.equal(Object.hasOwn(res.body, "data"), false);
    c.close();
  });

  test("an empty Secret data is dropped", async () => {
    const c = new SimulatedCluster({ resources: [secrets] });
    const res = await send(c, "POST", SECRETS, { metadata: { name: "s" }, data: {} });
    assert.equal(Object.hasOwn(res.body, "data"), false);
    assert.equal(res.body.type, "Opaque");
    c.close();
  });

  test("custom resources keep the empty maps they are given", async () => {
    const c = new SimulatedCluster({ resources: [secrets] });
    const res = await send(c, "POST", "/apis/example.com/v1/namespaces/default/widgets", {
      apiVersion: "example.com/v1",
      kind: "Widget",
      metadata: { name: "w", labels: {}, annotations: {} },
      spec: { tags: {} },
    });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.deepEqual((res.body.metadata as Record<string, unknown>).labels, {});
    assert.deepEqual((res.body.metadata as Record<string, unknown>).annotations, {});
    const stored = c.get(widgets, { namespace: "default", name: "w" }) as KubeObject;
    assert.deepEqual(stored.metadata.labels, {});
    c.close();
  });
});
