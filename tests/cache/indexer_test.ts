import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { KubeObject } from "../../src/client/types.ts";
import { Indexer, type IndexFunc, NAMESPACE_INDEX } from "../../src/cache/indexer.ts";
import { objectKey, splitObjectKey } from "../../src/cache/object_key.ts";

function obj(
  namespace: string | undefined,
  name: string,
  labels: Record<string, string> = {},
  rv = "1",
): KubeObject {
  return namespace === undefined
    ? { metadata: { name, labels, resourceVersion: rv } }
    : { metadata: { namespace, name, labels, resourceVersion: rv } };
}

const byApp: IndexFunc<KubeObject> = (o) => {
  const app = o.metadata.labels?.["app"];
  return app === undefined ? [] : [app];
};

/** Every label as `key=value`: a multi-value index. */
const byLabel: IndexFunc<KubeObject> = (o) =>
  Object.entries(o.metadata.labels ?? {}).map(([k, v]) => `${k}=${v}`);

function sorted(values: string[]): string[] {
  return [...values].sort();
}

function names(objects: KubeObject[]): string[] {
  return sorted(objects.map((o) => o.metadata.name!));
}

describe("Indexer", () => {
  test("get, has, list, listKeys and size reflect the objects set and deleted", () => {
    const cache = new Indexer();
    assert.equal(cache.size, 0);
    const a = obj("ns", "a");
    assert.equal(cache.set(a), undefined);
    cache.set(obj(undefined, "node-1"));
    assert.equal(cache.size, 2);
    assert.equal(cache.get("ns/a"), a);
    assert.equal(cache.has("ns/a"), true);
    assert.equal(cache.get("node-1")?.metadata.name, "node-1");
    assert.equal(cache.get("ns/missing"), undefined);
    assert.equal(cache.has("ns/missing"), false);
    assert.deepEqual(sorted(cache.listKeys()), ["node-1", "ns/a"]);
    assert.deepEqual(names(cache.list()), ["a", "node-1"]);
    assert.equal(cache.delete("ns/a"), a);
    assert.equal(cache.delete("ns/a"), undefined);
    assert.equal(cache.size, 1);
    assert.equal(cache.has("ns/a"), false);
  });

  test("values and entries iterate the cached objects without copying", () => {
    const cache = new Indexer();
    const a = obj("ns", "a");
    const b = obj(undefined, "b");
    cache.set(a);
    cache.set(b);
    assert.deepEqual([...cache.values()], [a, b]);
    assert.deepEqual([...cache.entries()], [["ns/a", a], ["b", b]]);
  });

  test("set replaces the object under its key and returns the previous one", () => {
    const cache = new Indexer();
    const v1 = obj("ns", "a", {}, "1");
    const v2 = obj("ns", "a", {}, "2");
    cache.set(v1);
    assert.equal(cache.set(v2), v1);
    assert.equal(cache.size, 1);
    assert.equal(cache.get("ns/a"), v2);
  });

  test("set honours an explicit key", () => {
    const cache = new Indexer();
    cache.set(obj("ns", "a"), "custom-key");
    assert.equal(cache.get("custom-key")?.metadata.name, "a");
    assert.deepEqual(cache.indexKeys(NAMESPACE_INDEX, "ns"), ["custom-key"]);
  });

  test("list and listKeys return fresh arrays", () => {
    const cache = new Indexer();
    cache.set(obj("ns", "a"));
    cache.list().pop();
    cache.listKeys().pop();
    assert.equal(cache.list().length, 1);
    assert.equal(cache.listKeys().length, 1);
  });

  test("the namespace index is built in; cluster-scoped objects file under the empty string", () => {
    const cache = new Indexer();
    cache.set(obj("ns1", "a"));
    cache.set(obj("ns1", "b"));
    cache.set(obj("ns2", "c"));
    cache.set(obj(undefined, "node-1"));
    assert.equal(NAMESPACE_INDEX, "namespace");
    assert.deepEqual(names(cache.byIndex("namespace", "ns1")), ["a", "b"]);
    assert.deepEqual(names(cache.byIndex("namespace", "ns2")), ["c"]);
    assert.deepEqual(names(cache.byIndex("namespace", "")), ["node-1"]);
    assert.deepEqual(cache.byIndex("namespace", "nope"), []);
    assert.deepEqual(sorted(cache.indexKeys("namespace", "ns1")), ["ns1/a", "ns1/b"]);
    assert.deepEqual(sorted(cache.listIndexFuncValues("namespace")), ["", "ns1", "ns2"]);
  });

  test("custom indexers given to the constructor index every object set", () => {
    const cache = new Indexer({ byApp });
    cache.set(obj("ns", "a", { app: "web" }));
    cache.set(obj("ns", "b", { app: "db" }));
    cache.set(obj("other", "c", { app: "web" }));
    cache.set(obj("ns", "d"));
    assert.deepEqual(names(cache.byIndex("byApp", "web")), ["a", "c"]);
    assert.deepEqual(sorted(cache.listIndexFuncValues("byApp")), ["db", "web"]);
  });

  test("an index added after objects exist indexes them at once", () => {
    const cache = new Indexer();
    cache.set(obj("ns", "a", { app: "web" }));
    cache.set(obj("ns", "b", { app: "db" }));
    cache.addIndexers({ byApp });
    assert.deepEqual(names(cache.byIndex("byApp", "web")), ["a"]);
    assert.deepEqual(names(cache.byIndex("byApp", "db")), ["b"]);
    cache.set(obj("ns", "c", { app: "web" }));
    assert.deepEqual(names(cache.byIndex("byApp", "web")), ["a", "c"]);
  });

  test("a changed object moves to its new index value and leaves no stale key behind", () => {
    const cache = new Indexer({ byApp });
    cache.set(obj("ns", "a", { app: "web" }, "1"));
    cache.set(obj("ns", "a", { app: "api" }, "2"));
    assert.deepEqual(cache.byIndex("byApp", "web"), []);
    assert.deepEqual(cache.indexKeys("byApp", "web"), []);
    assert.deepEqual(names(cache.byIndex("byApp", "api")), ["a"]);
    assert.deepEqual(cache.listIndexFuncValues("byApp"), ["api"]);
    // An update that keeps the value keeps the key filed once.
    cache.set(obj("ns", "a", { app: "api" }, "3"));
    assert.deepEqual(cache.indexKeys("byApp", "api"), ["ns/a"]);
    assert.equal(cache.byIndex("byApp", "api")[0]?.metadata.resourceVersion, "3");
  });

  test("deleting an object removes it from every index and drops values left empty", () => {
    const cache = new Indexer({ byApp, byLabel });
    cache.set(obj("ns", "a", { app: "web", tier: "front" }));
    cache.set(obj("ns", "b", { app: "web" }));
    cache.delete("ns/a");
    assert.deepEqual(cache.indexKeys("byApp", "web"), ["ns/b"]);
    assert.deepEqual(cache.listIndexFuncValues("byLabel"), ["app=web"]);
    cache.delete("ns/b");
    assert.deepEqual(cache.listIndexFuncValues("byApp"), []);
    assert.deepEqual(cache.listIndexFuncValues("byLabel"), []);
    assert.deepEqual(cache.listIndexFuncValues("namespace"), []);
  });

  test("a multi-value index files an object under each value and tracks changes per value", () => {
    const cache = new Indexer({ byLabel });
    cache.set(obj("ns", "a", { app: "web", tier: "front" }));
    cache.set(obj("ns", "b", { app: "web", tier: "back" }));
    assert.deepEqual(names(cache.byIndex("byLabel", "app=web")), ["a", "b"]);
    assert.deepEqual(names(cache.byIndex("byLabel", "tier=front")), ["a"]);
    assert.deepEqual(sorted(cache.listIndexFuncValues("byLabel")), [
      "app=web",
      "tier=back",
      "tier=front",
    ]);
    // a: drops tier, keeps app, gains env.
    cache.set(obj("ns", "a", { app: "web", env: "prod" }, "2"));
    assert.deepEqual(names(cache.byIndex("byLabel", "app=web")), ["a", "b"]);
    assert.deepEqual(cache.byIndex("byLabel", "tier=front"), []);
    assert.deepEqual(names(cache.byIndex("byLabel", "env=prod")), ["a"]);
    assert.deepEqual(sorted(cache.listIndexFuncValues("byLabel")), [
      "app=web",
      "env=prod",
      "tier=back",
    ]);
  });

  test("a value an index function repeats files the key once", () => {
    const cache = new Indexer({ twice: (o) => [o.metadata.name!, o.metadata.name!] });
    cache.set(obj("ns", "a"));
    assert.deepEqual(cache.indexKeys("twice", "a"), ["ns/a"]);
    cache.delete("ns/a");
    assert.deepEqual(cache.listIndexFuncValues("twice"), []);
  });

  test("an object changed in place before its update still leaves no stale index entry", () => {
    const cache = new Indexer({ byApp });
    const cached = obj("ns", "a", { app: "web" }, "1");
    cache.set(cached);
    // A consumer wrongly edits the shared object, then the real update arrives.
    cached.metadata.labels!["app"] = "edited";
    cache.set(obj("ns", "a", { app: "api" }, "2"));
    assert.deepEqual(cache.listIndexFuncValues("byApp"), ["api"]);
    cache.delete("ns/a");
    assert.deepEqual(cache.listIndexFuncValues("byApp"), []);
  });

  test("an unknown index is a RangeError that lists the known ones", () => {
    const cache = new Indexer({ byApp });
    for (
      const call of [
        () => cache.byIndex("nope", "x"),
        () => cache.indexKeys("nope", "x"),
        () => cache.listIndexFuncValues("nope"),
      ]
    ) {
      assert.throws(call, (error: unknown) => {
        assert.ok(error instanceof RangeError);
        assert.match(error.message, /"nope".*namespace.*byApp/);
        return true;
      });
    }
  });

  test("adding an index under a name in use is a RangeError, also the built-in namespace", () => {
    const cache = new Indexer({ byApp });
    assert.throws(() => cache.addIndexers({ byApp }), RangeError);
    assert.throws(() => cache.addIndexers({ [NAMESPACE_INDEX]: byApp }), RangeError);
    assert.throws(() => new Indexer({ [NAMESPACE_INDEX]: byApp }), RangeError);
  });

  test("addIndexers is all or nothing", () => {
    const cache = new Indexer();
    cache.set(obj("ns", "a", { app: "web" }));
    assert.throws(() => cache.addIndexers({ byLabel, namespace: byApp }), RangeError);
    assert.throws(() => cache.byIndex("byLabel", "app=web"), RangeError, "byLabel not added");
    const failing: IndexFunc<KubeObject> = () => {
      throw new Error("boom");
    };
    assert.throws(() => cache.addIndexers({ byApp, failing }), /boom/);
    assert.throws(() => cache.byIndex("byApp", "web"), RangeError, "byApp not added");
    cache.addIndexers({ byApp });
    assert.deepEqual(cache.indexKeys("byApp", "web"), ["ns/a"]);
  });

  test("an index that is not a function is a TypeError naming it", () => {
    const cache = new Indexer();
    assert.throws(
      () => cache.addIndexers({ bad: "nope" as unknown as IndexFunc<KubeObject> }),
      (error: unknown) => error instanceof TypeError && /indexers\.bad/.test(error.message),
    );
  });

  test("an index function returning a string instead of an array is a TypeError", () => {
    // A common slip: `(o) => o.metadata.labels.app` would otherwise index every character.
    const cache = new Indexer({ oops: (o) => o.metadata.name as unknown as string[] });
    assert.throws(() => cache.set(obj("ns", "abc")), (error: unknown) => {
      assert.ok(error instanceof TypeError);
      assert.match(error.message, /"oops".*array of strings/);
      return true;
    });
    assert.equal(cache.size, 0);
    assert.deepEqual(cache.listIndexFuncValues("oops"), []);
  });

  test("an index function that throws leaves the cache exactly as it was", () => {
    const cache = new Indexer({
      byApp,
      picky: (o) => {
        if (o.metadata.labels?.["bad"] !== undefined) throw new Error("picky");
        return [];
      },
    });
    const v1 = obj("ns", "a", { app: "web" }, "1");
    cache.set(v1);
    assert.throws(() => cache.set(obj("ns", "a", { app: "api", bad: "1" }, "2")), /picky/);
    assert.equal(cache.get("ns/a"), v1);
    assert.deepEqual(cache.listIndexFuncValues("byApp"), ["web"]);
  });

  test("byIndex and indexKeys return copies", () => {
    const cache = new Indexer();
    cache.set(obj("ns", "a"));
    cache.indexKeys("namespace", "ns").pop();
    cache.byIndex("namespace", "ns").pop();
    assert.deepEqual(cache.indexKeys("namespace", "ns"), ["ns/a"]);
  });

  test("index contents match a brute-force scan after many random changes", () => {
    let s = 12345;
    const random = (n: number): number => {
      s = (Math.imul(s, 1103515245) + 12345) >>> 0;
      return (s >>> 8) % n;
    };
    const apps = ["web", "db", "api", "cache"];
    const cache = new Indexer({ byApp, byLabel });
    for (let step = 0; step < 5000; step++) {
      const name = `p${random(50)}`;
      const ns = `ns${random(3)}`;
      if (random(4) === 0) cache.delete(`${ns}/${name}`);
      else {
        const labels: Record<string, string> = {};
        if (random(3) > 0) labels["app"] = apps[random(apps.length)]!;
        if (random(2) > 0) labels["tier"] = String(random(3));
        cache.set(obj(ns, name, labels, String(step + 1)));
      }
    }
    const all = cache.list();
    for (const [index, fn] of [["byApp", byApp], ["byLabel", byLabel]] as const) {
      const expected = new Map<string, string[]>();
      for (const o of all) {
        for (const v of fn(o)) {
          expected.set(v, [
            ...(expected.get(v) ?? []),
            `${o.metadata.namespace}/${o.metadata.name}`,
          ]);
        }
      }
      assert.deepEqual(sorted(cache.listIndexFuncValues(index)), sorted([...expected.keys()]));
      for (const [v, keys] of expected) {
        assert.deepEqual(sorted(cache.indexKeys(index, v)), sorted(keys));
      }
    }
  });
});

describe("objectKey and splitObjectKey", () => {
  test("namespaced objects key as namespace/name, cluster-scoped ones as name", () => {
    assert.equal(objectKey(obj("default", "web-1")), "default/web-1");
    assert.equal(objectKey(obj(undefined, "node-1")), "node-1");
    assert.equal(objectKey({ metadata: { namespace: "", name: "node-1" } }), "node-1");
  });

  test("an object without metadata.name is a TypeError", () => {
    assert.throws(() => objectKey({ metadata: { namespace: "ns" } }), TypeError);
    assert.throws(() => objectKey({ metadata: { name: "" } }), TypeError);
    assert.throws(() => objectKey({} as KubeObject), TypeError);
  });

  test("splitObjectKey inverts objectKey", () => {
    assert.deepEqual(splitObjectKey("default/web-1"), { namespace: "default", name: "web-1" });
    assert.deepEqual(splitObjectKey("node-1"), { namespace: "", name: "node-1" });
  });
});
