import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { configmaps, pods } from "../../../../../src/client/resource.ts";
import type { KubeList, Status } from "../../../../../src/client/types.ts";
import { ManualClock } from "../../../../../src/testing/manual_clock.ts";
import { SimulatedCluster } from "../../../src/cluster/simulated_cluster.ts";
import { widgets } from "../../../src/model/kinds/widgets.ts";

function cluster(options?: { historyLimit?: number }): SimulatedCluster {
  return new SimulatedCluster({ clock: new ManualClock(), autoCreateNamespaces: true, ...options });
}

async function get<T = KubeList>(
  c: SimulatedCluster,
  path: string,
): Promise<{ status: number; body: T; headers: Headers; text: string }> {
  const res = await c.fetch(new Request(`http://sim${path}`));
  const text = await res.text();
  return { status: res.status, body: JSON.parse(text) as T, headers: res.headers, text };
}

function names(list: KubeList): string[] {
  return list.items.map((i) =>
    `${i.metadata.namespace ? i.metadata.namespace + "/" : ""}${i.metadata.name}`
  );
}

function addPods(
  c: SimulatedCluster,
  specs: Array<[string, string, Record<string, string>?]>,
): void {
  for (const [namespace, name, labels] of specs) {
    c.create(pods, {
      metadata: { name, namespace, labels: labels ?? {} },
      spec: { nodeName: `n-${name}` },
    });
  }
}

describe("SimulatedCluster LIST", () => {
  test("a list has kind, apiVersion, the current RV, and items without kind/apiVersion, sorted", async () => {
    const c = cluster();
    addPods(c, [["b", "z"], ["a", "y"], ["a", "x"]]);
    const { status, body, headers, text } = await get(c, "/api/v1/pods");
    assert.equal(status, 200);
    assert.equal(headers.get("content-type"), "application/json");
    assert.equal(body.kind, "PodList");
    assert.equal(body.apiVersion, "v1");
    assert.deepEqual(body.metadata, { resourceVersion: c.resourceVersion });
    assert.deepEqual(names(body), ["a/x", "a/y", "b/z"]);
    for (const item of body.items) {
      assert.equal(item.kind, undefined);
      assert.equal(item.apiVersion, undefined);
    }
    assert.ok(
      text.startsWith('{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":'),
    );
    c.close();
  });

  test("an empty list has an empty items array", async () => {
    const c = cluster();
    const { body } = await get(c, "/apis/example.com/v1/widgets");
    assert.equal(body.kind, "WidgetList");
    assert.equal(body.apiVersion, "example.com/v1");
    assert.deepEqual(body.items, []);
    c.close();
  });

  test("namespace paths, the legacy /watch-less path and cluster-scoped resources", async () => {
    const c = cluster();
    addPods(c, [["a", "x"], ["ab", "y"], ["a-b", "z"]]);
    assert.deepEqual(names((await get(c, "/api/v1/namespaces/a/pods")).body), ["a/x"]);
    // The namespaces a cluster starts with, and those the creates provisioned.
    assert.deepEqual(names((await get(c, "/api/v1/namespaces")).body), [
      "a",
      "a-b",
      "ab",
      "default",
      "kube-node-lease",
      "kube-public",
      "kube-system",
    ]);
    assert.equal((await get(c, "/api/v1/namespaces/a")).body.kind, "Namespace");
    c.close();
  });

  test("label and field selectors filter the list", async () => {
    const c = cluster();
    addPods(c, [["a", "x", { app: "web" }], ["a", "y", { app: "db" }], ["b", "z", {
      app: "web",
      tier: "1",
    }]]);
    assert.deepEqual(names((await get(c, "/api/v1/pods?labelSelector=app%3Dweb")).body), [
      "a/x",
      "b/z",
    ]);
    assert.deepEqual(names((await get(c, "/api/v1/pods?labelSelector=app%3Dweb%2C!tier")).body), [
      "a/x",
    ]);
    assert.deepEqual(
      names((await get(c, "/api/v1/pods?fieldSelector=metadata.namespace%3Db")).body),
      ["b/z"],
    );
    assert.deepEqual(names((await get(c, "/api/v1/pods?fieldSelector=spec.nodeName%3Dn-y")).body), [
      "a/y",
    ]);
    c.close();
  });

  test("a bad label selector or an unsupported field is a 400 BadRequest Status", async () => {
    const c = cluster();
    const bad = await get<Status>(c, "/api/v1/pods?labelSelector=app%20in%20(web");
    assert.equal(bad.status, 400);
    assert.equal(bad.body.kind, "Status");
    assert.equal(bad.body.reason, "BadRequest");
    assert.match(bad.body.message!, /unable to parse requirement/);
    const field = await get<Status>(c, "/api/v1/configmaps?fieldSelector=data.x%3D1");
    assert.equal(field.status, 400);
    assert.equal(field.body.message, "field label not supported: data.x");
    c.close();
  });

  test("limit/continue pages through a stable snapshot while objects change between pages", async () => {
    const c = cluster();
    for (let i = 0; i < 10; i++) {
      c.create(configmaps, { metadata: { name: `cm-${i}`, namespace: "default" } });
    }
    const first = await get(c, "/api/v1/configmaps?limit=4");
    const listRv = first.body.metadata.resourceVersion!;
    assert.deepEqual(first.body.metadata.remainingItemCount, 6);
    assert.deepEqual(names(first.body), [
      "default/cm-0",
      "default/cm-1",
      "default/cm-2",
      "default/cm-3",
    ]);
    // Mutations between pages must not show up in later pages.
    c.delete(configmaps, { namespace: "default", name: "cm-5" });
    c.create(configmaps, { metadata: { name: "cm-45", namespace: "default" } });
    c.patch(configmaps, { namespace: "default", name: "cm-6" }, { data: { changed: "yes" } });
    const second = await get(
      c,
      `/api/v1/configmaps?limit=4&continue=${first.body.metadata.continue}`,
    );
    assert.equal(second.body.metadata.resourceVersion, listRv);
    assert.deepEqual(names(second.body), [
      "default/cm-4",
      "default/cm-5",
      "default/cm-6",
      "default/cm-7",
    ]);
    assert.equal(second.body.items[2]!.data, undefined, "cm-6 as it was at the list RV");
    assert.equal(second.body.metadata.remainingItemCount, 2);
    const third = await get(
      c,
      `/api/v1/configmaps?limit=4&continue=${second.body.metadata.continue}`,
    );
    assert.equal(third.body.metadata.resourceVersion, listRv);
    assert.deepEqual(names(third.body), ["default/cm-8", "default/cm-9"]);
    assert.equal(third.body.metadata.continue, undefined);
    assert.equal(third.body.metadata.remainingItemCount, undefined);
    c.close();
  });

  test("the continue token is opaque base64 JSON of the snapshot RV and the last key", async () => {
    const c = cluster();
    addPods(c, [["a", "x"], ["a", "y"]]);
    const { body } = await get(c, "/api/v1/pods?limit=1");
    const token = body.metadata.continue!;
    assert.match(token, /^[A-Za-z0-9_-]+$/);
    const decoded = JSON.parse(atob(token.replace(/-/g, "+").replace(/_/g, "/"))) as {
      rv: number;
      start: string;
    };
    assert.equal(String(decoded.rv), body.metadata.resourceVersion);
    assert.equal(decoded.start, "a/x\u0000");
    c.close();
  });

  test("remainingItemCount is absent with selectors", async () => {
    const c = cluster();
    addPods(c, [["a", "x", { app: "w" }], ["a", "y", { app: "w" }], ["a", "z", { app: "w" }]]);
    const { body } = await get(c, "/api/v1/pods?limit=1&labelSelector=app%3Dw");
    assert.ok(body.metadata.continue);
    assert.equal(body.metadata.remainingItemCount, undefined);
    c.close();
  });

  test("a continue token whose snapshot was compacted is 410 Expired", async () => {
    const c = cluster();
    addPods(c, [["a", "x"], ["a", "y"]]);
    const first = await get(c, "/api/v1/pods?limit=1");
    c.create(pods, { metadata: { name: "w", namespace: "a" } });
    c.faults.compact();
    const res = await get<Status>(
      c,
      `/api/v1/pods?limit=1&continue=${first.body.metadata.continue}`,
    );
    assert.equal(res.status, 410);
    assert.equal(res.body.reason, "Expired");
    assert.equal(res.body.code, 410);
    c.close();
  });

  test("a continue token also expires when history rolls past its RV", async () => {
    const c = cluster({ historyLimit: 2 });
    addPods(c, [["a", "x"], ["a", "y"]]);
    const first = await get(c, "/api/v1/pods?limit=1");
    for (let i = 0; i < 3; i++) c.create(pods, { metadata: { name: `n${i}`, namespace: "b" } });
    const res = await get<Status>(
      c,
      `/api/v1/pods?limit=1&continue=${first.body.metadata.continue}`,
    );
    assert.equal(res.status, 410);
    c.close();
  });

  test("a malformed continue token is 400", async () => {
    const c = cluster();
    assert.equal((await get(c, "/api/v1/pods?continue=%%%")).status, 400);
    assert.equal((await get(c, "/api/v1/pods?continue=abc&resourceVersion=5")).status, 400);
    c.close();
  });

  test('resourceVersion "" and "0" serve the current state', async () => {
    const c = cluster();
    addPods(c, [["a", "x"]]);
    for (const rv of ["", "0"]) {
      const { body } = await get(c, `/api/v1/pods?resourceVersion=${rv}`);
      assert.equal(body.metadata.resourceVersion, c.resourceVersion);
      assert.equal(body.items.length, 1);
    }
    c.close();
  });

  test("resourceVersionMatch=Exact serves the state at that RV from history", async () => {
    const c = cluster();
    addPods(c, [["a", "x"]]);
    const rv = c.resourceVersion;
    c.delete(pods, { namespace: "a", name: "x" });
    c.create(pods, { metadata: { name: "y", namespace: "a" } });
    const exact = await get(c, `/api/v1/pods?resourceVersion=${rv}&resourceVersionMatch=Exact`);
    assert.equal(exact.body.metadata.resourceVersion, rv);
    assert.deepEqual(names(exact.body), ["a/x"]);
    const legacyPaged = await get(c, `/api/v1/pods?resourceVersion=${rv}&limit=10`);
    assert.deepEqual(names(legacyPaged.body), ["a/x"], "limit + RV without match is Exact");
    const notOlder = await get(
      c,
      `/api/v1/pods?resourceVersion=${rv}&resourceVersionMatch=NotOlderThan`,
    );
    assert.equal(notOlder.body.metadata.resourceVersion, c.resourceVersion);
    assert.deepEqual(names(notOlder.body), ["a/y"]);
    c.close();
  });

  test("an exact list at a compacted RV is 410 Expired", async () => {
    const c = cluster();
    addPods(c, [["a", "x"]]);
    const rv = c.resourceVersion;
    c.create(pods, { metadata: { name: "y", namespace: "a" } });
    c.faults.compact();
    const res = await get<Status>(
      c,
      `/api/v1/pods?resourceVersion=${rv}&resourceVersionMatch=Exact`,
    );
    assert.equal(res.status, 410);
    assert.equal(res.body.reason, "Expired");
    c.close();
  });

  test("a too-new resourceVersion is 504 Timeout with ResourceVersionTooLarge and Retry-After", async () => {
    const c = cluster();
    const res = await get<Status>(
      c,
      "/api/v1/pods?resourceVersion=999&resourceVersionMatch=NotOlderThan",
    );
    assert.equal(res.status, 504);
    assert.equal(res.headers.get("retry-after"), "1");
    assert.equal(res.body.reason, "Timeout");
    assert.equal(res.body.message, "Too large resource version: 999, current: 1");
    // On the wire a StatusCause's machine-readable type is the JSON key "reason".
    assert.deepEqual(res.body.details, {
      causes: [{ reason: "ResourceVersionTooLarge", message: "Too large resource version" }],
      retryAfterSeconds: 1,
    });
    c.close();
  });

  test("invalid list options are 422 Invalid ListOptions", async () => {
    const c = cluster();
    for (
      const q of [
        "resourceVersionMatch=Exact",
        "resourceVersion=0&resourceVersionMatch=Exact",
        "resourceVersion=1&resourceVersionMatch=Sometimes",
        "sendInitialEvents=true",
      ]
    ) {
      const res = await get<Status>(c, `/api/v1/pods?${q}`);
      assert.equal(res.status, 422, q);
      assert.equal(res.body.reason, "Invalid", q);
      assert.equal(res.body.details?.kind, "ListOptions", q);
    }
    c.close();
  });

  test("a non-numeric resourceVersion is 400", async () => {
    const c = cluster();
    assert.equal((await get(c, "/api/v1/pods?resourceVersion=abc")).status, 400);
    c.close();
  });

  test("large lists stream in batches and parse back to every item", async () => {
    const c = cluster();
    c.seed(pods, 300);
    const res = await c.fetch(new Request("http://sim/api/v1/pods"));
    const reader = res.body!.getReader();
    const chunks: Uint8Array[] = [];
    for (let r = await reader.read(); !r.done; r = await reader.read()) chunks.push(r.value);
    assert.ok(chunks.length > 1, "streamed in more than one chunk");
    const decoder = new TextDecoder();
    const text = chunks.map((chunk) => decoder.decode(chunk, { stream: true })).join("") +
      decoder.decode();
    assert.equal((JSON.parse(text) as KubeList).items.length, 300);
    c.close();
  });

  test("widgets list under /apis/example.com/v1 with namespaces", async () => {
    const c = cluster();
    c.create(widgets, { metadata: { name: "w1", namespace: "team" }, spec: { size: 1 } });
    const { body } = await get(c, "/apis/example.com/v1/namespaces/team/widgets");
    assert.deepEqual(names(body), ["team/w1"]);
    c.close();
  });
});
