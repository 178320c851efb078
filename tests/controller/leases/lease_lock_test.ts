import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { KubeClient } from "../../../src/client/kube_client.ts";
import { leases } from "../../../src/client/resource.ts";
import { LeaseLock, leaseSnapshot } from "../../../src/controller/mod.ts";
import { SimulatedCluster } from "@kinformer/simulator";

const record = {
  holderIdentity: "a",
  leaseDurationSeconds: 15,
  acquireTime: Date.UTC(2026, 0, 1, 0, 0, 0, 250),
  renewTime: Date.UTC(2026, 0, 1, 0, 0, 2, 500),
  leaseTransitions: 4,
};

describe("LeaseLock", () => {
  test("create writes the record as a Lease spec with MicroTime times and the labels", async () => {
    const cluster = new SimulatedCluster({ autoCreateNamespaces: true });
    const client = new KubeClient({ server: "http://sim", fetch: cluster.fetch });
    const lock = new LeaseLock({ client, namespace: "ops", name: "ctl", labels: { team: "x" } });
    assert.equal(lock.describe(), "ops/ctl");
    assert.equal(await lock.get(), undefined);
    const created = await lock.create(record);
    assert.deepEqual(created.record, record);
    const stored = cluster.get(leases, { namespace: "ops", name: "ctl" })!;
    assert.deepEqual(stored.metadata.labels, { team: "x" });
    assert.deepEqual(stored.spec, {
      holderIdentity: "a",
      leaseDurationSeconds: 15,
      acquireTime: "2026-01-01T00:00:00.250000Z",
      renewTime: "2026-01-01T00:00:02.500000Z",
      leaseTransitions: 4,
    });
    cluster.close();
  });

  test("update is conditional on the snapshot's resourceVersion and keeps other fields", async () => {
    const cluster = new SimulatedCluster({ autoCreateNamespaces: true });
    const client = new KubeClient({ server: "http://sim", fetch: cluster.fetch });
    cluster.create(leases, {
      metadata: { name: "ctl", namespace: "ops", annotations: { note: "keep" } },
      spec: { holderIdentity: "z", leaseDurationSeconds: 30, preferredHolder: "z" },
    });
    const lock = new LeaseLock({ client, namespace: "ops", name: "ctl" });
    const read = (await lock.get())!;
    assert.deepEqual(read.record, {
      holderIdentity: "z",
      leaseDurationSeconds: 30,
      acquireTime: undefined,
      renewTime: undefined,
      leaseTransitions: 0,
    });
    const written = await lock.update(read, record);
    assert.deepEqual(written.record, record);
    assert.equal(written.lease.metadata.annotations?.note, "keep");
    assert.equal((written.lease.spec as { preferredHolder?: string }).preferredHolder, "z");
    await assert.rejects(lock.update(read, record), { code: 409, reason: "Conflict" });
    await lock.delete();
    await lock.delete(); // already gone: fine
    await assert.rejects(lock.update(written, record), { code: 404 });
    cluster.close();
  });

  test("options are checked; malformed fields read as a record nobody holds for long", () => {
    const cluster = new SimulatedCluster({ autoCreateNamespaces: true });
    const client = new KubeClient({ server: "http://sim", fetch: cluster.fetch });
    assert.throws(() => new LeaseLock({ client, namespace: "", name: "x" }), TypeError);
    assert.throws(
      () => new LeaseLock({ client: {} as KubeClient, namespace: "a", name: "x" }),
      /client/,
    );
    assert.throws(
      () =>
        new LeaseLock({ client, namespace: "a", name: "x", labels: { a: 1 as unknown as string } }),
      /labels/,
    );
    const s = leaseSnapshot({
      metadata: { name: "x" },
      spec: { holderIdentity: 7, leaseDurationSeconds: "15", renewTime: "yesterday" },
    });
    assert.deepEqual(s.record, {
      holderIdentity: "",
      leaseDurationSeconds: 0,
      acquireTime: undefined,
      renewTime: undefined,
      leaseTransitions: 0,
    });
    assert.equal(s.resourceVersion, "");
    cluster.close();
  });
});
