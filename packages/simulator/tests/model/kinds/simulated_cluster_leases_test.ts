import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { KubeClient } from "../../../../../src/client/kube_client.ts";
import { leases } from "../../../../../src/client/resource.ts";
import type { KubeObject } from "../../../../../src/client/types.ts";
import { SimulatedCluster } from "../../../src/cluster/simulated_cluster.ts";

function lease(spec: Record<string, unknown>): KubeObject {
  return {
    apiVersion: "coordination.k8s.io/v1",
    kind: "Lease",
    metadata: { name: "ctl", namespace: "kube-system" },
    spec,
  };
}

const good = {
  holderIdentity: "a",
  leaseDurationSeconds: 15,
  acquireTime: "2026-11-26T03:04:05.123456Z",
  renewTime: "2026-11-26T03:04:07.000000Z",
  leaseTransitions: 0,
};

describe("SimulatedCluster serves Leases", () => {
  test("create, get, update with optimistic concurrency, list, delete", async () => {
    const cluster = new SimulatedCluster();
    const client = new KubeClient({ server: "http://sim", fetch: cluster.fetch });
    const created = await client.create(leases, lease(good));
    assert.equal(created.kind, "Lease");
    assert.equal(created.apiVersion, "coordination.k8s.io/v1");
    const read = await client.get(leases, "ctl", { namespace: "kube-system" });
    assert.deepEqual(read.spec, good);
    const renewed = await client.replace(leases, {
      ...read,
      spec: { ...good, renewTime: "2026-11-26T03:04:09.000000Z" },
    });
    assert.notEqual(renewed.metadata.resourceVersion, read.metadata.resourceVersion);
    await assert.rejects(
      client.replace(leases, { ...read, spec: { ...good, holderIdentity: "b" } }),
      { code: 409, reason: "Conflict" },
    );
    await assert.rejects(client.create(leases, lease(good)), {
      code: 409,
      reason: "AlreadyExists",
    });
    const list = await client.list(leases, { namespace: "kube-system" });
    assert.deepEqual(list.items.map((l) => l.metadata.name), ["ctl"]);
    assert.equal(list.kind, "LeaseList");
    await client.delete(leases, "ctl", { namespace: "kube-system" });
    await assert.rejects(client.get(leases, "ctl", { namespace: "kube-system" }), { code: 404 });
    cluster.close();
  });

  test("toISOString() times are refused with 400, like a real server", async () => {
    const cluster = new SimulatedCluster();
    const client = new KubeClient({ server: "http://sim", fetch: cluster.fetch });
    const millis = new Date(Date.UTC(2026, 10, 26, 3, 4, 5, 123)).toISOString();
    for (const field of ["acquireTime", "renewTime"]) {
      await assert.rejects(
        client.create(leases, lease({ ...good, [field]: millis })),
        (error: { code: number; reason: string; message: string }) => {
          assert.equal(error.code, 400);
          assert.equal(error.reason, "BadRequest");
          assert.match(error.message, new RegExp(`spec\\.${field}`));
          return true;
        },
      );
    }
    await client.create(leases, lease(good));
    const current = await client.get(leases, "ctl", { namespace: "kube-system" });
    await assert.rejects(
      client.replace(leases, { ...current, spec: { ...good, renewTime: "2026-11-26T03:04:05Z" } }),
      { code: 400 },
    );
    assert.throws(() => cluster.update(leases, { ...current, spec: { ...good, renewTime: 5 } }), {
      code: 400,
    });
    cluster.close();
  });

  test("leaseDurationSeconds <= 0 and negative leaseTransitions are 422 Invalid", async () => {
    const cluster = new SimulatedCluster();
    const client = new KubeClient({ server: "http://sim", fetch: cluster.fetch });
    await assert.rejects(
      client.create(leases, lease({ ...good, leaseDurationSeconds: 0, leaseTransitions: -1 })),
      (
        error: {
          code: number;
          reason: string;
          status: { details: { causes: { field: string }[] } };
        },
      ) => {
        assert.equal(error.code, 422);
        assert.equal(error.reason, "Invalid");
        assert.deepEqual(error.status.details.causes.map((c) => c.field), [
          "spec.leaseDurationSeconds",
          "spec.leaseTransitions",
        ]);
        return true;
      },
    );
    // an empty holder and absent times are fine (a released lease)
    await client.create(leases, lease({ holderIdentity: "", leaseDurationSeconds: 1 }));
    cluster.close();
  });

  test("discovery lists coordination.k8s.io/v1 leases", async () => {
    const cluster = new SimulatedCluster();
    const res = await cluster.fetch(new Request("http://sim/apis/coordination.k8s.io/v1"));
    const body = await res.json() as {
      groupVersion: string;
      resources: { name: string; kind: string }[];
    };
    assert.equal(body.groupVersion, "coordination.k8s.io/v1");
    assert.deepEqual(body.resources.map((r) => [r.name, r.kind]), [["leases", "Lease"]]);
    cluster.close();
  });
});
