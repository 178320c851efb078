// Garbage collection by owner references in the simulated cluster: the propagation policies,
// the per-resource defaults, dependents whose owner is gone, finalizers on dependents, and the
// order in which watchers hear about it all.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { defineResource } from "../../../../../src/client/define_resource.ts";
import { configmaps, deployments, pods } from "../../../../../src/client/resource.ts";
import type { KubeObject } from "../../../../../src/client/types.ts";
import { CONTROLLER_DELAY_MS } from "../../../src/cluster/controllers/cluster_controllers.ts";
import { ManualClock } from "../../../../../src/testing/manual_clock.ts";
import { SimulatedCluster } from "../../../src/cluster/simulated_cluster.ts";
import { widgets } from "../../../src/model/kinds/widgets.ts";

const jobs = defineResource({
  group: "batch",
  version: "v1",
  resource: "jobs",
  kind: "Job",
  namespaced: true,
});

function setup(): { c: SimulatedCluster; clock: ManualClock } {
  const clock = new ManualClock();
  return { c: new SimulatedCluster({ clock, seed: 5, resources: [jobs] }), clock };
}

/** An owner reference to `owner`. */
function ownedBy(
  owner: { kind?: string; apiVersion?: string; metadata: { name?: string; uid?: string } },
  block = true,
): Record<string, unknown> {
  return {
    apiVersion: owner.apiVersion,
    kind: owner.kind,
    name: owner.metadata.name,
    uid: owner.metadata.uid,
    controller: true,
    blockOwnerDeletion: block,
  };
}

function child(name: string, owners: Record<string, unknown>[], finalizers?: string[]): KubeObject {
  return {
    metadata: {
      name,
      namespace: "default",
      ownerReferences: owners as never,
      ...(finalizers ? { finalizers } : {}),
    },
  };
}

/** Records every watch event of the listed paths, in the order the cluster commits them. */
async function recorder(c: SimulatedCluster, paths: string[]): Promise<() => Promise<string[]>> {
  const rv = c.resourceVersion;
  const bodies = await Promise.all(paths.map(async (p) => {
    const res = await c.fetch(new Request(`http://sim${p}?watch=1&resourceVersion=${rv}`));
    return { text: res.text() }; // read to the end once the cluster closes
  }));
  return async () => {
    c.close();
    const events: Array<{ rv: number; line: string }> = [];
    for (const text of await Promise.all(bodies.map((b) => b.text))) {
      for (const l of text.trim().split("\n").filter((x) => x !== "")) {
        const e = JSON.parse(l) as { type: string; object: KubeObject };
        const fin = e.object.metadata.finalizers?.join(",");
        events.push({
          rv: Number(e.object.metadata.resourceVersion),
          line: `${e.type} ${e.object.kind}/${e.object.metadata.name}${fin ? ` [${fin}]` : ""}`,
        });
      }
    }
    return events.sort((a, b) => a.rv - b.rv).map((e) => e.line);
  };
}

async function del(c: SimulatedCluster, path: string, body?: unknown): Promise<Response> {
  return await c.fetch(
    new Request(`http://sim${path}`, {
      method: "DELETE",
      ...(body === undefined
        ? {}
        : { body: JSON.stringify(body), headers: { "Content-Type": "application/json" } }),
    }),
  );
}

describe("garbage collection in the simulated cluster", () => {
  test("Background: the owner goes at once, its dependents (and theirs) a moment later", async () => {
    const { c, clock } = setup();
    const w = c.create(widgets, {
      metadata: { name: "w", namespace: "default" },
      spec: { size: 1 },
    });
    const cm = c.create(configmaps, child("cm", [ownedBy(w)]));
    c.create(pods, child("p", [ownedBy(cm)]));
    c.create(configmaps, child("other", []));
    const events = await recorder(c, [
      "/apis/example.com/v1/widgets",
      "/api/v1/configmaps",
      "/api/v1/pods",
    ]);
    const res = await del(c, "/apis/example.com/v1/namespaces/default/widgets/w", {
      kind: "DeleteOptions",
      apiVersion: "v1",
      propagationPolicy: "Background",
    });
    assert.equal(res.status, 200);
    assert.equal(c.get(widgets, { namespace: "default", name: "w" }), undefined);
    assert.ok(
      c.get(configmaps, { namespace: "default", name: "cm" }),
      "dependents go after the owner",
    );
    await clock.advance(CONTROLLER_DELAY_MS);
    assert.equal(c.get(configmaps, { namespace: "default", name: "cm" }), undefined);
    assert.equal(c.get(pods, { namespace: "default", name: "p" }), undefined);
    assert.ok(c.get(configmaps, { namespace: "default", name: "other" }));
    assert.deepEqual(await events(), ["DELETED Widget/w", "DELETED ConfigMap/cm", "DELETED Pod/p"]);
  });

  test("without a policy most resources delete dependents in the background", async () => {
    const { c, clock } = setup();
    const d = c.create(deployments, {
      metadata: { name: "web", namespace: "default" },
      spec: { replicas: 1 },
    });
    c.create(pods, child("p", [ownedBy(d)]));
    c.delete(deployments, { namespace: "default", name: "web" });
    await clock.advance(CONTROLLER_DELAY_MS);
    assert.deepEqual(c.list(pods), []);
    c.close();
  });

  test("batch/v1 jobs orphan their dependents by default, as kube-apiserver keeps them", async () => {
    const { c, clock } = setup();
    const job = c.create(jobs, { metadata: { name: "j", namespace: "default" }, spec: {} });
    c.create(pods, child("p", [ownedBy(job)]));
    const res = await del(c, "/apis/batch/v1/namespaces/default/jobs/j");
    assert.equal(res.status, 200);
    const body = await res.json() as KubeObject;
    assert.deepEqual(body.metadata.finalizers, ["orphan"]);
    assert.ok(body.metadata.deletionTimestamp);
    await clock.advance(CONTROLLER_DELAY_MS);
    assert.equal(c.get(jobs, { namespace: "default", name: "j" }), undefined);
    const p = c.get(pods, { namespace: "default", name: "p" })!;
    assert.equal(p.metadata.ownerReferences, undefined);
    c.close();
  });

  test("Foreground: the owner waits with foregroundDeletion until its blocking dependents are gone", async () => {
    const { c, clock } = setup();
    const w = c.create(widgets, {
      metadata: { name: "w", namespace: "default" },
      spec: { size: 1 },
    });
    c.create(configmaps, child("blocks", [ownedBy(w)]));
    c.create(configmaps, child("held", [ownedBy(w)], ["example.com/hold"]));
    c.create(pods, child("loose", [ownedBy(w, false)]));
    const events = await recorder(c, [
      "/apis/example.com/v1/widgets",
      "/api/v1/configmaps",
      "/api/v1/pods",
    ]);
    const res = await del(
      c,
      "/apis/example.com/v1/namespaces/default/widgets/w?propagationPolicy=Foreground",
    );
    assert.equal(res.status, 200);
    const owner = await res.json() as KubeObject;
    assert.deepEqual(owner.metadata.finalizers, ["foregroundDeletion"]);
    assert.ok(owner.metadata.deletionTimestamp);
    assert.equal((owner.metadata as Record<string, unknown>).deletionGracePeriodSeconds, 0);

    await clock.advance(CONTROLLER_DELAY_MS);
    // The blocking dependent with a finalizer holds the owner; the others are gone.
    assert.ok(c.get(widgets, { namespace: "default", name: "w" }));
    assert.equal(c.get(configmaps, { namespace: "default", name: "blocks" }), undefined);
    assert.equal(c.get(pods, { namespace: "default", name: "loose" }), undefined);
    const held = c.get(configmaps, { namespace: "default", name: "held" })!;
    assert.ok(held.metadata.deletionTimestamp);

    c.patch(configmaps, { namespace: "default", name: "held" }, { metadata: { finalizers: null } });
    await clock.advance(CONTROLLER_DELAY_MS);
    assert.equal(c.get(widgets, { namespace: "default", name: "w" }), undefined);
    assert.deepEqual(await events(), [
      "MODIFIED Widget/w [foregroundDeletion]",
      "DELETED ConfigMap/blocks",
      "MODIFIED ConfigMap/held [example.com/hold]",
      "DELETED Pod/loose",
      "DELETED ConfigMap/held",
      "DELETED Widget/w",
    ]);
  });

  test("Foreground cascades: a dependent with dependents of its own is deleted in the foreground", async () => {
    const { c, clock } = setup();
    const w = c.create(widgets, {
      metadata: { name: "w", namespace: "default" },
      spec: { size: 1 },
    });
    const d = c.create(deployments, { ...child("d", [ownedBy(w)]), spec: { replicas: 1 } });
    c.create(pods, child("p", [ownedBy(d)]));
    const events = await recorder(c, [
      "/apis/example.com/v1/widgets",
      "/apis/apps/v1/deployments",
      "/api/v1/pods",
    ]);
    c.delete(widgets, { namespace: "default", name: "w" }, { propagationPolicy: "Foreground" });
    await clock.advance(CONTROLLER_DELAY_MS);
    assert.deepEqual(c.list(widgets), []);
    assert.deepEqual(await events(), [
      "MODIFIED Widget/w [foregroundDeletion]",
      "MODIFIED Deployment/d [foregroundDeletion]",
      "DELETED Pod/p",
      "DELETED Deployment/d",
      "DELETED Widget/w",
    ]);
  });

  test("Orphan: dependents lose the reference and stay; then the owner goes", async () => {
    const { c, clock } = setup();
    const w = c.create(widgets, {
      metadata: { name: "w", namespace: "default" },
      spec: { size: 1 },
    });
    const other = c.create(widgets, {
      metadata: { name: "o", namespace: "default" },
      spec: { size: 1 },
    });
    c.create(configmaps, child("cm", [ownedBy(w), ownedBy(other, false)]));
    const events = await recorder(c, ["/apis/example.com/v1/widgets", "/api/v1/configmaps"]);
    const res = await del(c, "/apis/example.com/v1/namespaces/default/widgets/w", {
      propagationPolicy: "Orphan",
    });
    assert.deepEqual((await res.json() as KubeObject).metadata.finalizers, ["orphan"]);
    await clock.advance(CONTROLLER_DELAY_MS);
    assert.equal(c.get(widgets, { namespace: "default", name: "w" }), undefined);
    const cm = c.get(configmaps, { namespace: "default", name: "cm" })!;
    assert.deepEqual(cm.metadata.ownerReferences?.map((r) => r.name), ["o"]);
    assert.deepEqual(
      cm.metadata.managedFields?.map((m) => m.manager).includes("kube-controller-manager"),
      true,
    );
    assert.deepEqual(await events(), [
      "MODIFIED Widget/w [orphan]",
      "MODIFIED ConfigMap/cm",
      "DELETED Widget/w",
    ]);
  });

  test("an object that already has the orphan finalizer is orphaned by a delete without a policy", async () => {
    const { c, clock } = setup();
    const w = c.create(widgets, {
      metadata: { name: "w", namespace: "default", finalizers: ["orphan"] },
      spec: { size: 1 },
    });
    c.create(configmaps, child("cm", [ownedBy(w)]));
    c.delete(widgets, { namespace: "default", name: "w" });
    await clock.advance(CONTROLLER_DELAY_MS);
    assert.equal(c.get(widgets, { namespace: "default", name: "w" }), undefined);
    assert.equal(
      c.get(configmaps, { namespace: "default", name: "cm" })!.metadata.ownerReferences,
      undefined,
    );
    // orphanDependents=false (the deprecated field) cascades, answered 202 while it waits.
    const x = c.create(widgets, {
      metadata: { name: "x", namespace: "default", finalizers: ["example.com/keep"] },
      spec: { size: 1 },
    });
    c.create(configmaps, child("cx", [ownedBy(x)]));
    const res = await del(c, "/apis/example.com/v1/namespaces/default/widgets/x", {
      orphanDependents: false,
    });
    assert.equal(res.status, 202);
    c.close();
  });

  test("a dependent whose owner does not exist, or has another uid, is collected", async () => {
    const { c, clock } = setup();
    const w = c.create(widgets, {
      metadata: { name: "w", namespace: "default" },
      spec: { size: 1 },
    });
    c.create(
      configmaps,
      child("stale", [{ ...ownedBy(w), uid: "00000000-0000-4000-8000-000000000000" }]),
    );
    c.create(configmaps, child("gone", [{ ...ownedBy(w), name: "nobody" }]));
    c.create(configmaps, child("fine", [ownedBy(w)]));
    // Owners of kinds the cluster does not serve cannot be looked up: kept, as by a real GC.
    c.create(
      configmaps,
      child("unknown", [{ apiVersion: "apps/v1", kind: "ReplicaSet", name: "rs", uid: "u-1" }]),
    );
    // One live owner keeps it: it only loses the reference to the missing one.
    c.create(
      configmaps,
      child("half", [ownedBy(w), { ...ownedBy(w), name: "nobody", uid: "u-2" }]),
    );
    await clock.advance(CONTROLLER_DELAY_MS);
    assert.deepEqual(c.list(configmaps).map((x) => x.metadata.name), ["fine", "half", "unknown"]);
    assert.deepEqual(
      c.get(configmaps, { namespace: "default", name: "half" })!.metadata.ownerReferences?.map((
        r,
      ) => r.uid),
      [w.metadata.uid],
    );
    c.close();
  });

  test("a delete that waits for finalizers bumps metadata.generation once, as kube-apiserver's", () => {
    // markAsDeleting: the first deletionTimestamp bumps a generation above 0 (controllers that
    // watch generations see the deletion); later deletes do not bump it again.
    const c = new SimulatedCluster();
    c.create(widgets, {
      metadata: { namespace: "default", name: "w", finalizers: ["example.com/cleanup"] },
      spec: { size: 1 },
    });
    const before = c.get(widgets, { namespace: "default", name: "w" })!.metadata.generation!;
    assert.ok(before > 0);
    c.delete(widgets, { namespace: "default", name: "w" });
    const marked = c.get(widgets, { namespace: "default", name: "w" })!;
    assert.ok(marked.metadata.deletionTimestamp);
    assert.equal(marked.metadata.generation, before + 1);
    c.delete(widgets, { namespace: "default", name: "w" });
    assert.equal(
      c.get(widgets, { namespace: "default", name: "w" })!.metadata.generation,
      before + 1,
    );
    c.close();
  });

  test("a dependent's own finalizers are honoured: it is marked, not removed", async () => {
    const { c, clock } = setup();
    const w = c.create(widgets, {
      metadata: { name: "w", namespace: "default" },
      spec: { size: 1 },
    });
    c.create(configmaps, child("held", [ownedBy(w)], ["example.com/hold"]));
    c.delete(widgets, { namespace: "default", name: "w" });
    await clock.advance(CONTROLLER_DELAY_MS);
    const held = c.get(configmaps, { namespace: "default", name: "held" })!;
    assert.ok(held.metadata.deletionTimestamp);
    assert.deepEqual(held.metadata.finalizers, ["example.com/hold"]);
    c.close();
  });

  test("a foreground cycle (each blocks the other) still completes", async () => {
    const { c, clock } = setup();
    const a = c.create(widgets, {
      metadata: { name: "a", namespace: "default" },
      spec: { size: 1 },
    });
    const b = c.create(widgets, { ...child("b", [ownedBy(a)]), spec: { size: 1 } });
    c.patch(widgets, { namespace: "default", name: "a" }, {
      metadata: { ownerReferences: [ownedBy(b)] },
    });
    c.delete(widgets, { namespace: "default", name: "a" }, { propagationPolicy: "Foreground" });
    await clock.advance(CONTROLLER_DELAY_MS);
    assert.deepEqual(c.list(widgets), []);
    c.close();
  });

  test("delete options are checked as kube-apiserver checks them", async () => {
    const { c } = setup();
    c.create(configmaps, child("cm", []));
    const bad = await del(c, "/api/v1/namespaces/default/configmaps/cm?propagationPolicy=Sideways");
    assert.equal(bad.status, 422);
    assert.equal(
      (await bad.json() as { message: string }).message,
      'DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Unsupported value: "Sideways": supported values: "Foreground", "Background", "Orphan", "nil"',
    );
    const both = await del(c, "/api/v1/namespaces/default/configmaps/cm", {
      propagationPolicy: "Orphan",
      orphanDependents: true,
    });
    assert.equal(both.status, 422);
    assert.throws(
      () =>
        c.delete(configmaps, { namespace: "default", name: "cm" }, {
          propagationPolicy: "x" as never,
        }),
      TypeError,
    );
    assert.ok(c.get(configmaps, { namespace: "default", name: "cm" }));
    c.close();
  });

  test("nothing is scheduled while nothing needs collecting, and close() cancels a pending pass", () => {
    const { c, clock } = setup();
    c.seed(pods, 5); // fixtures owned by ReplicaSets, a kind the cluster does not serve
    c.create(configmaps, child("cm", []));
    assert.equal(clock.pendingTimers, 0);
    const w = c.create(widgets, {
      metadata: { name: "w", namespace: "default" },
      spec: { size: 1 },
    });
    c.create(configmaps, child("dep", [ownedBy(w)]));
    assert.equal(clock.pendingTimers, 0);
    c.delete(widgets, { namespace: "default", name: "w" });
    assert.equal(clock.pendingTimers, 1);
    c.close();
    assert.equal(clock.pendingTimers, 0);
  });
});
