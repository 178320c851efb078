import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { KubeObject } from "../../src/client/types.ts";
import {
  labelSelectorFromObject,
  parseLabelSelector,
  SelectorParseError,
} from "../../src/client/label_selector.ts";
import { Indexer } from "../../src/cache/indexer.ts";
import { Lister } from "../../src/cache/lister.ts";

function obj(
  namespace: string | undefined,
  name: string,
  labels?: Record<string, string>,
): KubeObject {
  const metadata: KubeObject["metadata"] = { name };
  if (namespace !== undefined) metadata.namespace = namespace;
  if (labels !== undefined) metadata.labels = labels;
  return { metadata };
}

function names(objects: KubeObject[]): string[] {
  return objects.map((o) => `${o.metadata.namespace ?? ""}/${o.metadata.name}`).sort();
}

function fixture(): { cache: Indexer; lister: Lister } {
  const cache = new Indexer();
  cache.set(obj("default", "web-1", { app: "web", tier: "front" }));
  cache.set(obj("default", "web-2", { app: "web", tier: "back" }));
  cache.set(obj("default", "db-1", { app: "db" }));
  cache.set(obj("prod", "web-1", { app: "web", tier: "front" }));
  cache.set(obj("prod", "bare"));
  cache.set(obj(undefined, "node-1", { role: "worker" }));
  return { cache, lister: new Lister(cache) };
}

describe("Lister", () => {
  test("list without a selector (or with an empty one) returns every object", () => {
    const { lister } = fixture();
    assert.equal(lister.list().length, 6);
    assert.equal(lister.list({}).length, 6);
    assert.equal(lister.list({ labelSelector: "" }).length, 6);
    assert.equal(lister.list({ labelSelector: undefined }).length, 6);
    assert.equal(lister.list({ labelSelector: parseLabelSelector("") }).length, 6);
  });

  test("list filters by a label selector string", () => {
    const { lister } = fixture();
    assert.deepEqual(names(lister.list({ labelSelector: "app=web" })), [
      "default/web-1",
      "default/web-2",
      "prod/web-1",
    ]);
    assert.deepEqual(names(lister.list({ labelSelector: "app=web,tier in (back)" })), [
      "default/web-2",
    ]);
    assert.deepEqual(names(lister.list({ labelSelector: "app notin (web)" })), [
      "/node-1",
      "default/db-1",
      "prod/bare",
    ]);
  });

  test("objects without labels match only requirements that allow a missing label", () => {
    const { lister } = fixture();
    assert.deepEqual(names(lister.list({ labelSelector: "!app" })), ["/node-1", "prod/bare"]);
    assert.equal(lister.list({ labelSelector: "app" }).length, 4);
  });

  test("list accepts an already parsed selector (text or object form)", () => {
    const { lister } = fixture();
    const parsed = parseLabelSelector("tier=front");
    assert.deepEqual(names(lister.list({ labelSelector: parsed })), [
      "default/web-1",
      "prod/web-1",
    ]);
    const fromObject = labelSelectorFromObject({
      matchLabels: { app: "web" },
      matchExpressions: [{ key: "tier", operator: "NotIn", values: ["front"] }],
    });
    assert.deepEqual(names(lister.list({ labelSelector: fromObject })), ["default/web-2"]);
  });

  test("get reads by cache key", () => {
    const { lister } = fixture();
    assert.equal(lister.get("default/web-1")?.metadata.labels?.["tier"], "front");
    assert.equal(lister.get("node-1")?.metadata.name, "node-1");
    assert.equal(lister.get("default/nope"), undefined);
  });

  test("a bad selector string throws SelectorParseError", () => {
    const { lister } = fixture();
    for (const bad of ["app in (web", "=web", "app=we b", "app=web,"]) {
      assert.throws(() => lister.list({ labelSelector: bad }), SelectorParseError, bad);
      assert.throws(
        () => lister.namespace("default").list({ labelSelector: bad }),
        SelectorParseError,
        bad,
      );
    }
  });

  test("a selector that is neither a string nor a LabelSelector is a TypeError", () => {
    const { lister } = fixture();
    assert.throws(
      () => lister.list({ labelSelector: { app: "web" } as unknown as string }),
      (error: unknown) => error instanceof TypeError && /labelSelector/.test(error.message),
    );
  });

  test("reads see the cache as it is now, not as it was when the lister was made", () => {
    const { cache, lister } = fixture();
    const ns = lister.namespace("default");
    cache.set(obj("default", "web-3", { app: "web" }));
    cache.delete("default/web-1");
    assert.deepEqual(names(ns.list({ labelSelector: "app=web" })), [
      "default/web-2",
      "default/web-3",
    ]);
    assert.equal(ns.get("web-1"), undefined);
  });
});

describe("NamespaceLister", () => {
  test("get reads an object by name within the namespace only", () => {
    const { lister } = fixture();
    assert.equal(lister.namespace("prod").get("web-1")?.metadata.namespace, "prod");
    assert.equal(lister.namespace("default").get("web-1")?.metadata.namespace, "default");
    assert.equal(lister.namespace("prod").get("db-1"), undefined);
    assert.equal(lister.namespace("missing").get("web-1"), undefined);
  });

  test("list returns the namespace's objects, filtered by the selector", () => {
    const { lister } = fixture();
    assert.deepEqual(names(lister.namespace("default").list()), [
      "default/db-1",
      "default/web-1",
      "default/web-2",
    ]);
    assert.deepEqual(names(lister.namespace("prod").list({ labelSelector: "app=web" })), [
      "prod/web-1",
    ]);
    assert.deepEqual(
      names(lister.namespace("default").list({ labelSelector: parseLabelSelector("tier") })),
      ["default/web-1", "default/web-2"],
    );
    assert.deepEqual(lister.namespace("missing").list(), []);
  });

  test('the "" namespace reads cluster-scoped objects, by name', () => {
    const { lister } = fixture();
    const cluster = lister.namespace("");
    assert.deepEqual(names(cluster.list()), ["/node-1"]);
    assert.equal(cluster.get("node-1")?.metadata.name, "node-1");
    assert.deepEqual(names(cluster.list({ labelSelector: "role=worker" })), ["/node-1"]);
  });
});
