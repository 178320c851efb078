// Namespaces in the simulated cluster behave as kube-apiserver and kube-controller-manager make
// them behave: the usual ones exist from the start, a create needs an existing, active
// namespace, and deleting one terminates it, empties it, then removes it.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { KubeApiError } from "../../../../../src/client/errors.ts";
import { configmaps, namespaces, pods } from "../../../../../src/client/resource.ts";
import type { KubeObject } from "../../../../../src/client/types.ts";
import { CONTROLLER_DELAY_MS } from "../../../src/cluster/controllers/cluster_controllers.ts";
import { ManualClock } from "../../../../../src/testing/manual_clock.ts";
import {
  SimulatedCluster,
  type SimulatedClusterOptions,
} from "../../../src/cluster/simulated_cluster.ts";
import { widgets } from "../../../src/model/kinds/widgets.ts";

function setup(options: SimulatedClusterOptions = {}): { c: SimulatedCluster; clock: ManualClock } {
  const clock = new ManualClock();
  return { c: new SimulatedCluster({ clock, seed: 3, ...options }), clock };
}

async function call(
  c: SimulatedCluster,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; json: Record<string, unknown> }> {
  const init: RequestInit = { method };
  if (body !== undefined) {
    init.body = JSON.stringify(body);
    init.headers = { "Content-Type": "application/json" };
  }
  const res = await c.fetch(new Request(`http://sim${path}`, init));
  return { status: res.status, json: await res.json() as Record<string, unknown> };
}

/** Every watch line of `path` from `rv` until the cluster closes. */
async function watchAll(
  c: SimulatedCluster,
  path: string,
  rv: string,
): Promise<() => Promise<string[]>> {
  const res = await c.fetch(new Request(`http://sim${path}?watch=1&resourceVersion=${rv}`));
  const text = res.text();
  return async () => {
    c.close();
    return (await text).trim().split("\n").filter((l) => l !== "").map((l) => {
      const e = JSON.parse(l) as { type: string; object: KubeObject };
      return `${e.type} ${
        e.object.metadata.namespace ? e.object.metadata.namespace + "/" : ""
      }${e.object.metadata.name}`;
    });
  };
}

describe("namespaces in the simulated cluster", () => {
  test("default, kube-system, kube-public and kube-node-lease exist from the start, Active", () => {
    const { c } = setup();
    const all = c.list(namespaces);
    assert.deepEqual(all.map((n) => n.metadata.name), [
      "default",
      "kube-node-lease",
      "kube-public",
      "kube-system",
    ]);
    for (const ns of all) {
      assert.equal((ns.status as { phase: string }).phase, "Active");
      assert.deepEqual((ns.spec as { finalizers: string[] }).finalizers, ["kubernetes"]);
      assert.equal(ns.metadata.labels?.["kubernetes.io/metadata.name"], ns.metadata.name);
      assert.equal(ns.metadata.resourceVersion, "1");
      assert.match(ns.metadata.uid!, /^[0-9a-f-]{36}$/);
    }
    // They are there before any history: the first change is still resourceVersion 2.
    assert.equal(c.resourceVersion, "1");
    assert.equal(
      c.create(configmaps, { metadata: { name: "a", namespace: "default" } }).metadata
        .resourceVersion,
      "2",
    );
    c.close();
  });

  test('a create in a namespace that does not exist is 404 namespaces "x" not found', async () => {
    const { c } = setup();
    const res = await call(c, "POST", "/api/v1/namespaces/nope/configmaps", {
      metadata: { name: "a" },
    });
    assert.equal(res.status, 404);
    assert.deepEqual(res.json, {
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: 'namespaces "nope" not found',
      reason: "NotFound",
      details: { name: "nope", kind: "namespaces" },
      code: 404,
    });
    // The control API and server-side apply say the same; nothing was stored.
    assert.throws(
      () => c.create(pods, { metadata: { name: "p", namespace: "nope" } }),
      (e: unknown) =>
        e instanceof KubeApiError && e.code === 404 &&
        e.message.includes('namespaces "nope" not found'),
    );
    const apply = await c.fetch(
      new Request("http://sim/api/v1/namespaces/nope/configmaps/a?fieldManager=m", {
        method: "PATCH",
        headers: { "Content-Type": "application/apply-patch+yaml" },
        body: JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "a" } }),
      }),
    );
    assert.equal(apply.status, 404);
    assert.equal(c.list(configmaps).length, 0);
    assert.equal(c.get(namespaces, { name: "nope" }), undefined);
    c.close();
  });

  test("with autoCreateNamespaces a create provisions its namespace first (not on a dry run)", async () => {
    const { c } = setup({ autoCreateNamespaces: true });
    const dry = await call(c, "POST", "/api/v1/namespaces/team/configmaps?dryRun=All", {
      metadata: { name: "a" },
    });
    assert.equal(dry.status, 404);
    const res = await call(c, "POST", "/api/v1/namespaces/team/configmaps", {
      metadata: { name: "a" },
    });
    assert.equal(res.status, 201);
    const ns = c.get(namespaces, { name: "team" })!;
    assert.equal((ns.status as { phase: string }).phase, "Active");
    assert.equal(ns.metadata.resourceVersion, "2");
    assert.equal((res.json.metadata as { resourceVersion: string }).resourceVersion, "3");
    c.create(pods, { metadata: { name: "p", namespace: "other" } });
    assert.ok(c.get(namespaces, { name: "other" }));
    assert.throws(() => new SimulatedCluster({ autoCreateNamespaces: "yes" as never }), TypeError);
    c.close();
  });

  test("seed and churn create the namespaces they fill", () => {
    const { c } = setup();
    c.seed(pods, 12);
    assert.deepEqual(
      c.list(namespaces).map((n) => n.metadata.name).filter((n) => n?.startsWith("ns-")),
      ["ns-0", "ns-1", "ns-2", "ns-3", "ns-4", "ns-5", "ns-6", "ns-7", "ns-8", "ns-9"],
    );
    c.churn(5, { resource: configmaps, namespaces: ["shop"] });
    assert.ok(c.get(namespaces, { name: "shop" }));
    c.close();
  });

  test("namespaces created over HTTP get the kubernetes finalizer, phase Active and the name label", async () => {
    const { c } = setup();
    const res = await call(c, "POST", "/api/v1/namespaces", {
      metadata: { name: "team", labels: { tier: "gold" } },
      spec: { finalizers: ["example.com/x"] },
      status: { phase: "Terminating" },
    });
    assert.equal(res.status, 201);
    assert.deepEqual(res.json.spec, { finalizers: ["example.com/x", "kubernetes"] });
    assert.deepEqual(res.json.status, { phase: "Active" });
    assert.deepEqual((res.json.metadata as KubeObject["metadata"]).labels, {
      tier: "gold",
      "kubernetes.io/metadata.name": "team",
    });
    // An update cannot drop spec.finalizers or the name label.
    const current = c.get(namespaces, { name: "team" })!;
    const put = await call(c, "PUT", "/api/v1/namespaces/team", {
      ...current,
      metadata: { ...current.metadata, labels: {} },
      spec: {},
    });
    assert.equal(put.status, 200);
    assert.deepEqual(put.json.spec, { finalizers: ["example.com/x", "kubernetes"] });
    assert.deepEqual((put.json.metadata as KubeObject["metadata"]).labels, {
      "kubernetes.io/metadata.name": "team",
    });
    c.close();
  });

  test("default, kube-system and kube-public may not be deleted; kube-node-lease may", async () => {
    const { c } = setup();
    for (const name of ["default", "kube-system", "kube-public"]) {
      const res = await call(c, "DELETE", `/api/v1/namespaces/${name}`);
      assert.equal(res.status, 403);
      assert.equal(res.json.reason, "Forbidden");
      assert.equal(
        res.json.message,
        `namespaces "${name}" is forbidden: this namespace may not be deleted`,
      );
      assert.deepEqual(res.json.details, { name, kind: "namespaces" });
    }
    assert.throws(() => c.delete(namespaces, { name: "default" }), KubeApiError);
    assert.equal((await call(c, "DELETE", "/api/v1/namespaces/kube-node-lease")).status, 200);
    c.close();
  });

  test("deleting a namespace terminates it, deletes its contents, then removes it", async () => {
    const { c, clock } = setup();
    c.create(namespaces, { metadata: { name: "team" } });
    c.create(configmaps, { metadata: { name: "a", namespace: "team" } });
    c.create(pods, { metadata: { name: "p", namespace: "team" } });
    c.create(widgets, { metadata: { name: "w", namespace: "team" }, spec: { size: 1 } });
    c.create(configmaps, { metadata: { name: "keep", namespace: "default" } });
    const rv = c.resourceVersion;
    const events = await Promise.all([
      watchAll(c, "/api/v1/namespaces", rv),
      watchAll(c, "/api/v1/configmaps", rv),
      watchAll(c, "/api/v1/pods", rv),
    ]);

    const res = await call(c, "DELETE", "/api/v1/namespaces/team");
    assert.equal(res.status, 200);
    const meta = res.json.metadata as KubeObject["metadata"];
    assert.equal(meta.deletionTimestamp, "2023-11-14T22:13:20Z");
    assert.equal((meta as Record<string, unknown>).deletionGracePeriodSeconds, undefined);
    assert.deepEqual(res.json.spec, { finalizers: ["kubernetes"] });
    assert.deepEqual(res.json.status, { phase: "Terminating" });
    // Nothing more happens until the controllers' turn.
    assert.equal(c.list(configmaps, { namespace: "team" }).length, 1);
    // Terminating: no new content (403, cause NamespaceTerminating); a second delete is a no-op.
    const refused = await call(c, "POST", "/api/v1/namespaces/team/configmaps", {
      metadata: { generateName: "new-" },
    });
    assert.equal(refused.status, 403);
    assert.deepEqual(refused.json, {
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message:
        'configmaps "new-" is forbidden: unable to create new content in namespace team because it is being terminated',
      reason: "Forbidden",
      details: {
        name: "new-",
        kind: "configmaps",
        causes: [{
          reason: "NamespaceTerminating",
          message: "namespace team is being terminated",
          field: "metadata.namespace",
        }],
      },
      code: 403,
    });
    const again = await call(c, "DELETE", "/api/v1/namespaces/team");
    assert.equal(again.status, 200);
    assert.equal(
      (again.json.metadata as KubeObject["metadata"]).resourceVersion,
      meta.resourceVersion,
    );

    await clock.advance(CONTROLLER_DELAY_MS);
    assert.equal(c.get(namespaces, { name: "team" }), undefined);
    assert.deepEqual(c.list(configmaps).map((x) => x.metadata.name), ["keep"]);
    assert.deepEqual(c.list(pods), []);
    assert.deepEqual(c.list(widgets), []);
    const [ns, cms, ps] = await Promise.all(events.map((e) => e()));
    assert.deepEqual(ns, ["MODIFIED team", "MODIFIED team", "DELETED team"]);
    assert.deepEqual(cms, ["DELETED team/a"]);
    assert.deepEqual(ps, ["DELETED team/p"]);
  });

  test("contents with finalizers hold the namespace in Terminating, with the controller's conditions", async () => {
    const { c, clock } = setup();
    c.create(namespaces, { metadata: { name: "team" } });
    c.create(configmaps, {
      metadata: { name: "held", namespace: "team", finalizers: ["example.com/hold"] },
    });
    c.delete(namespaces, { name: "team" });
    await clock.advance(CONTROLLER_DELAY_MS);
    const held = c.get(configmaps, { namespace: "team", name: "held" })!;
    assert.ok(held.metadata.deletionTimestamp);
    const ns = c.get(namespaces, { name: "team" })!;
    const status = ns.status as { phase: string; conditions: Record<string, string>[] };
    assert.equal(status.phase, "Terminating");
    assert.deepEqual(status.conditions.map((x) => [x.type, x.status, x.reason]), [
      ["NamespaceDeletionDiscoveryFailure", "False", "ResourcesDiscovered"],
      ["NamespaceDeletionGroupVersionParsingFailure", "False", "ParsedGroupVersions"],
      ["NamespaceDeletionContentFailure", "False", "ContentDeleted"],
      ["NamespaceContentRemaining", "True", "SomeResourcesRemain"],
      ["NamespaceFinalizersRemaining", "True", "SomeFinalizerRemain"],
    ]);
    assert.equal(
      status.conditions[3]!.message,
      "Some resources are remaining: configmaps. has 1 resource instances",
    );
    assert.equal(
      status.conditions[4]!.message,
      "Some finalizers are remaining: example.com/hold in 1 resource instances",
    );
    assert.deepEqual(Object.keys(status.conditions[0]!), [
      "type",
      "status",
      "lastTransitionTime",
      "reason",
      "message",
    ]);
    // An update may drop a finalizer but not add one to an object being deleted.
    assert.throws(
      () =>
        c.patch(configmaps, { namespace: "team", name: "held" }, {
          metadata: { finalizers: ["example.com/hold", "example.com/more"] },
        }),
      (e: unknown) =>
        e instanceof KubeApiError && e.code === 422 &&
        e.message.includes(
          'no new finalizers can be added if the object is being deleted, found new finalizers []string{"example.com/more"}',
        ),
    );
    // Releasing the finalizer lets the namespace controller finish.
    c.patch(configmaps, { namespace: "team", name: "held" }, { metadata: { finalizers: null } });
    assert.equal(c.get(configmaps, { namespace: "team", name: "held" }), undefined);
    await clock.advance(CONTROLLER_DELAY_MS);
    assert.equal(c.get(namespaces, { name: "team" }), undefined);
    c.close();
  });

  test("a dry-run delete of a namespace changes nothing", async () => {
    const { c, clock } = setup();
    c.create(namespaces, { metadata: { name: "team" } });
    const rv = c.resourceVersion;
    const res = await call(c, "DELETE", "/api/v1/namespaces/team?dryRun=All");
    assert.equal(res.status, 200);
    assert.deepEqual(res.json.status, { phase: "Terminating" });
    await clock.advance(CONTROLLER_DELAY_MS);
    assert.equal(
      (c.get(namespaces, { name: "team" })!.status as { phase: string }).phase,
      "Active",
    );
    assert.equal(c.resourceVersion, rv);
    assert.equal(clock.pendingTimers, 0);
    c.close();
  });

  test("an update in a terminating namespace is allowed; only creates are refused", async () => {
    const { c } = setup();
    c.create(namespaces, { metadata: { name: "team" } });
    c.create(configmaps, { metadata: { name: "a", namespace: "team", finalizers: ["x/y"] } });
    c.delete(namespaces, { name: "team" });
    const ok = await c.fetch(
      new Request("http://sim/api/v1/namespaces/team/configmaps/a", {
        method: "PATCH",
        headers: { "Content-Type": "application/merge-patch+json" },
        body: JSON.stringify({ metadata: { labels: { touched: "yes" } } }),
      }),
    );
    assert.equal(ok.status, 200);
    assert.equal(((await ok.json()) as KubeObject).metadata.labels?.touched, "yes");
    c.close();
  });
});
