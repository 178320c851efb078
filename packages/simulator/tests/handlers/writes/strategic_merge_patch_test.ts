// Strategic merge patches as kube-apiserver applies them to built-in kinds: lists merge by the
// keys of the API types, the directives work, errors are the API server's, custom resources
// answer 415.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { configmaps, deployments, pods } from "../../../../../src/client/resource.ts";
import type { KubeObject, Status } from "../../../../../src/client/types.ts";
import { KubeApiError } from "../../../../../src/client/errors.ts";
import { defineResource } from "../../../../../src/client/define_resource.ts";
import { SimulatedCluster } from "../../../src/cluster/simulated_cluster.ts";
import { widgets } from "../../../src/model/kinds/widgets.ts";
import { mergePatch } from "../../../src/handlers/writes/merge_patch.ts";
import { strategicMergePatch } from "../../../src/handlers/writes/strategic_merge_patch.ts";
import { schemaOf } from "../../../src/model/defaults/patch_strategies.ts";
import { SERVED_RESOURCES } from "../../../src/model/registry/served_resources.ts";

const POD = schemaOf(SERVED_RESOURCES.find((r) => r.desc.kind === "Pod")!);

function pod(): KubeObject {
  return {
    metadata: { name: "web", namespace: "default", finalizers: ["a.io/one", "b.io/two"] },
    spec: {
      containers: [
        {
          name: "app",
          image: "app:1",
          env: [{ name: "MODE", value: "fast" }, { name: "LEVEL", value: "1" }],
          ports: [{ containerPort: 80, name: "http" }],
        },
        { name: "sidecar", image: "proxy:1" },
      ],
      tolerations: [{ key: "a", operator: "Exists" }],
    },
  };
}

function smp(target: unknown, patch: unknown): KubeObject {
  return strategicMergePatch(target, patch, POD) as KubeObject;
}

type Containers = Array<{ name: string; image?: string; env?: unknown[]; ports?: unknown[] }>;
const containers = (o: KubeObject) => (o.spec as { containers: Containers }).containers;

function apiError(fn: () => unknown, code: number, message?: string | RegExp): void {
  assert.throws(fn, (e: unknown) => {
    assert.ok(e instanceof KubeApiError, String(e));
    assert.equal(e.code, code, e.message);
    if (typeof message === "string") assert.equal(e.status?.message, message);
    else if (message) assert.match(e.status?.message ?? "", message);
    return true;
  });
}

describe("strategic merge patch", () => {
  test("containers merge by name: one changes, the others stay", () => {
    const out = smp(pod(), { spec: { containers: [{ name: "app", image: "app:2" }] } });
    assert.deepEqual(containers(out).map((c) => [c.name, c.image]), [
      ["app", "app:2"],
      ["sidecar", "proxy:1"],
    ]);
    // Fields of the container that the patch does not name are kept.
    assert.equal(containers(out)[0]!.env!.length, 2);
  });

  test("a new item goes first, the server's items follow in their order", () => {
    const out = smp(pod(), { spec: { containers: [{ name: "init", image: "busybox" }] } });
    assert.deepEqual(containers(out).map((c) => c.name), ["init", "app", "sidecar"]);
  });

  test("env merges by name and ports by containerPort, inside a container", () => {
    const out = smp(pod(), {
      spec: {
        containers: [{
          name: "app",
          env: [{ name: "LEVEL", value: "2" }, { name: "NEW", value: "x" }],
          ports: [{ containerPort: 80, protocol: "TCP" }],
        }],
      },
    });
    const app = containers(out)[0]!;
    // A server item stays before the patch items that come after it on the server.
    assert.deepEqual(app.env, [
      { name: "MODE", value: "fast" },
      { name: "LEVEL", value: "2" },
      { name: "NEW", value: "x" },
    ]);
    assert.deepEqual(app.ports, [{ containerPort: 80, name: "http", protocol: "TCP" }]);
  });

  test("finalizers merge as a set; $deleteFromPrimitiveList removes some", () => {
    const added = smp(pod(), { metadata: { finalizers: ["c.io/three", "a.io/one"] } });
    assert.deepEqual(added.metadata.finalizers, ["c.io/three", "a.io/one", "b.io/two"]);
    const removed = smp(pod(), {
      metadata: { "$deleteFromPrimitiveList/finalizers": ["a.io/one", "x.io/absent"] },
    });
    assert.deepEqual(removed.metadata.finalizers, ["b.io/two"]);
    // null removes the field, whatever its strategy.
    assert.equal(smp(pod(), { metadata: { finalizers: null } }).metadata.finalizers, undefined);
  });

  test("a list without a strategy is replaced", () => {
    const out = smp(pod(), { spec: { tolerations: [{ key: "b", operator: "Exists" }] } });
    assert.deepEqual((out.spec as { tolerations: unknown[] }).tolerations, [
      { key: "b", operator: "Exists" },
    ]);
  });

  test("$patch: delete removes an item by its merge key; $patch: replace replaces a list or a map", () => {
    const deleted = smp(pod(), { spec: { containers: [{ name: "sidecar", $patch: "delete" }] } });
    assert.deepEqual(containers(deleted).map((c) => c.name), ["app"]);
    const replaced = smp(pod(), {
      spec: { containers: [{ name: "only", image: "x" }, { $patch: "replace" }] },
    });
    assert.deepEqual(containers(replaced), [{ name: "only", image: "x" }]);
    const map = smp(
      { ...pod(), metadata: { name: "web", labels: { a: "1", b: "2" } } },
      { metadata: { labels: { $patch: "replace", c: "3" } } },
    );
    assert.deepEqual(map.metadata.labels, { c: "3" });
    const emptied = smp(
      { ...pod(), metadata: { name: "web", labels: { a: "1" } } },
      { metadata: { labels: { $patch: "delete" } } },
    );
    assert.deepEqual(emptied.metadata.labels, {});
  });

  test("$setElementOrder puts the items in the given order", () => {
    const out = smp(pod(), {
      spec: { "$setElementOrder/containers": [{ name: "sidecar" }, { name: "app" }] },
    });
    assert.deepEqual(containers(out).map((c) => c.name), ["sidecar", "app"]);
    const fin = smp(pod(), {
      metadata: {
        "$setElementOrder/finalizers": ["b.io/two", "c.io/new", "a.io/one"],
        finalizers: ["c.io/new"],
      },
    });
    assert.deepEqual(fin.metadata.finalizers, ["b.io/two", "c.io/new", "a.io/one"]);
  });

  test("$retainKeys keeps only the listed fields of the object it is in", () => {
    const deployment = {
      metadata: { name: "d" },
      spec: { strategy: { type: "RollingUpdate", rollingUpdate: { maxSurge: 1 } } },
    };
    const schema = schemaOf(SERVED_RESOURCES.find((r) => r.desc.kind === "Deployment")!);
    const out = strategicMergePatch(deployment, {
      spec: { strategy: { $retainKeys: ["type"], type: "Recreate" } },
    }, schema) as { spec: unknown };
    assert.deepEqual(out.spec, { strategy: { type: "Recreate" } });
    apiError(
      () =>
        strategicMergePatch(
          deployment,
          { spec: { strategy: { $retainKeys: ["type"], other: 1 } } },
          schema,
        ),
      400,
      "invalid patch format of retainKeys",
    );
  });

  test("errors are the API server's: 500 for a missing merge key or $patch: merge, 422, 400", () => {
    apiError(
      () => smp(pod(), { spec: { containers: [{ image: "x" }] } }),
      500,
      "map: map[image:x] does not contain declared merge key: name",
    );
    apiError(
      () => smp(pod(), { spec: { containers: [{ name: "app", $patch: "merge" }] } }),
      500,
      "merging lists cannot yet be specified in the patch",
    );
    apiError(
      () => smp(pod(), { metadata: { $patch: "sideways" } }),
      500,
      "unknown patch type: sideways in map: map[$patch:sideways]",
    );
    apiError(
      () => smp({ metadata: { name: "x", finalizers: [] } }, { metadata: { finalizers: [["a"]] } }),
      422,
      "the server rejected our request due to an error in our request",
    );
    apiError(
      () => smp(pod(), { metadata: { finalizers: [["nested"]] } }),
      500,
      /^list element types are not identical/,
    );
    apiError(
      () => smp(pod(), { metadata: { "$deleteFromPrimitiveList": ["a"] } }),
      400,
      "invalid patch format of primitive list",
    );
    apiError(() => smp(pod(), [1]), 400);
  });

  test("keys are own data: __proto__ in a patch is data, never a prototype", () => {
    const out = smp(pod(), JSON.parse('{"metadata":{"labels":{"__proto__":{"polluted":"yes"}}}}'));
    assert.equal(Object.getPrototypeOf(out.metadata.labels), Object.prototype);
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
    assert.ok(Object.hasOwn(out.metadata.labels!, "__proto__"));
  });

  // Values without lists (and without `$` keys): a strategic merge patch is a JSON merge patch.
  const key = fc.constantFrom("a", "b", "c", "d");
  const scalar = fc.oneof(fc.string({ maxLength: 3 }), fc.integer(), fc.boolean());
  const tree = fc.letrec((tie) => ({
    node: fc.dictionary(key, fc.oneof({ depthSize: "small" }, scalar, tie("node"))),
  })).node;
  const patchTree = fc.letrec((tie) => ({
    node: fc.dictionary(
      key,
      fc.oneof({ depthSize: "small" }, scalar, fc.constant(null), tie("node")),
    ),
  })).node;

  test("property: without lists, it is a JSON merge patch", () => {
    fc.assert(
      fc.property(tree, patchTree, (t, p) => {
        const [target, patch] = JSON.parse(JSON.stringify([t, p])) as [unknown, unknown];
        assert.deepEqual(strategicMergePatch(target, patch, {}), mergePatch(target, patch));
      }),
      { numRuns: 300 },
    );
  });

  test("property: a keyed list keeps every server item and every patch item once, merged by key", () => {
    const item = fc.record({ name: fc.constantFrom("a", "b", "c", "d", "e"), v: fc.integer() });
    const unique = (items: Array<{ name: string; v: number }>) =>
      items.filter((x, i) => items.findIndex((y) => y.name === x.name) === i);
    fc.assert(
      fc.property(fc.array(item), fc.array(item), (server, patch) => {
        const s = unique(server);
        const p = unique(patch);
        const out = smp({ spec: { containers: s } }, { spec: { containers: p } });
        const names = containers(out).map((c) => c.name);
        assert.equal(new Set(names).size, names.length);
        assert.deepEqual(new Set(names), new Set([...s, ...p].map((x) => x.name)));
        for (const c of containers(out) as unknown as Array<{ name: string; v: number }>) {
          const want = p.find((x) => x.name === c.name) ?? s.find((x) => x.name === c.name)!;
          assert.equal(c.v, want.v);
        }
        // Patch items keep the patch's order.
        const inPatch = names.filter((n) => p.some((x) => x.name === n));
        assert.deepEqual(inPatch, p.map((x) => x.name));
      }),
      { numRuns: 300 },
    );
  });

  test("property: a merged set of finalizers is the union; a delete list takes its items out", () => {
    const names = fc.uniqueArray(fc.constantFrom("a", "b", "c", "d", "e", "f"));
    fc.assert(
      fc.property(names, names, names, (server, add, drop) => {
        const merged = smp({ metadata: { name: "x", finalizers: server } }, {
          metadata: { finalizers: add },
        });
        assert.deepEqual(
          new Set(merged.metadata.finalizers ?? []),
          new Set([...server, ...add]),
        );
        const after = smp({ metadata: { name: "x", finalizers: server } }, {
          metadata: { "$deleteFromPrimitiveList/finalizers": drop },
        });
        assert.deepEqual(after.metadata.finalizers ?? [], server.filter((f) => !drop.includes(f)));
      }),
      { numRuns: 300 },
    );
  });
});

describe("strategic merge patch over HTTP", () => {
  async function patch(
    c: SimulatedCluster,
    path: string,
    body: unknown,
    contentType = "application/strategic-merge-patch+json",
  ): Promise<{ status: number; json: Record<string, unknown> }> {
    const res = await c.fetch(
      new Request(`http://sim${path}`, {
        method: "PATCH",
        headers: { "Content-Type": contentType },
        body: JSON.stringify(body),
      }),
    );
    return { status: res.status, json: await res.json() as Record<string, unknown> };
  }

  test("built-in kinds merge by key, for the object, its status and its scale", async () => {
    const c = new SimulatedCluster();
    c.create(pods, pod());
    const res = await patch(c, "/api/v1/namespaces/default/pods/web", {
      metadata: { finalizers: ["c.io/three"] },
      spec: { containers: [{ name: "app", image: "app:2" }] },
    });
    assert.equal(res.status, 200);
    const stored = c.get(pods, { namespace: "default", name: "web" })!;
    assert.deepEqual(stored.metadata.finalizers, ["c.io/three", "a.io/one", "b.io/two"]);
    assert.deepEqual(containers(stored).map((x) => [x.name, x.image]), [["app", "app:2"], [
      "sidecar",
      "proxy:1",
    ]]);
    c.create(deployments, { metadata: { name: "d", namespace: "default" }, spec: { replicas: 1 } });
    const scaled = await patch(c, "/apis/apps/v1/namespaces/default/deployments/d/scale", {
      spec: { replicas: 3 },
    });
    assert.equal(scaled.status, 200);
    assert.equal(
      (c.get(deployments, { namespace: "default", name: "d" })!.spec as { replicas: number })
        .replicas,
      3,
    );
    const cm = c.create(configmaps, {
      metadata: { name: "cm", namespace: "default" },
      data: { a: "1" },
    });
    assert.equal(
      (await patch(c, "/api/v1/namespaces/default/configmaps/cm", { data: { b: "2" } })).status,
      200,
    );
    assert.deepEqual(c.get(configmaps, { namespace: "default", name: "cm" })!.data, {
      a: "1",
      b: "2",
    });
    assert.ok(cm);
    c.close();
  });

  test("a custom resource answers 415 UnsupportedMediaType, as kube-apiserver does", async () => {
    const gadgets = defineResource({
      group: "example.org",
      version: "v1",
      resource: "gadgets",
      kind: "Gadget",
      namespaced: true,
    });
    const c = new SimulatedCluster({ resources: [gadgets] });
    c.create(widgets, { metadata: { name: "w", namespace: "default" }, spec: { size: 1 } });
    c.create(gadgets, { metadata: { name: "g", namespace: "default" } });
    for (
      const path of [
        "/apis/example.com/v1/namespaces/default/widgets/w",
        "/apis/example.org/v1/namespaces/default/gadgets/g",
      ]
    ) {
      const res = await patch(c, path, { metadata: { labels: { a: "b" } } });
      assert.equal(res.status, 415);
      assert.deepEqual(res.json as unknown as Status, {
        kind: "Status",
        apiVersion: "v1",
        metadata: {},
        status: "Failure",
        message:
          "the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml",
        reason: "UnsupportedMediaType",
        details: {},
        code: 415,
      });
    }
    // A merge patch still works.
    assert.equal(
      (await patch(
        c,
        "/apis/example.com/v1/namespaces/default/widgets/w",
        { spec: { size: 2 } },
        "application/merge-patch+json",
      )).status,
      200,
    );
    c.close();
  });
});
