// Common defaults kube-apiserver gives built-in objects written through the API: Deployment
// spec defaults, PV/PVC phase Pending, Service type, ports and an allocated cluster IP.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import {
  deployments,
  persistentvolumeclaims,
  persistentvolumes,
  services,
} from "../../../../../src/client/builtin_resources.ts";
import { SimulatedCluster } from "../../../src/cluster/simulated_cluster.ts";

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
      body: JSON.stringify(body),
    }),
  );
  return { status: res.status, body: await res.json() as Record<string, unknown> };
}

const spec = (r: { body: Record<string, unknown> }) => r.body.spec as Record<string, unknown>;
const DEPLOYMENTS = "/apis/apps/v1/namespaces/default/deployments";
const SERVICES = "/api/v1/namespaces/default/services";
const template = {
  metadata: { labels: { app: "web" } },
  spec: { containers: [{ name: "web", image: "nginx" }] },
};

describe("built-in defaults", () => {
  test("a Deployment gets replicas, strategy, revisionHistoryLimit and progressDeadlineSeconds", async () => {
    const c = new SimulatedCluster();
    const created = await send(c, "POST", DEPLOYMENTS, {
      metadata: { name: "web" },
      spec: { selector: { matchLabels: { app: "web" } }, template },
    });
    assert.equal(created.status, 201);
    const s = spec(created);
    assert.equal(s.replicas, 1);
    assert.deepEqual(s.strategy, {
      type: "RollingUpdate",
      rollingUpdate: { maxUnavailable: "25%", maxSurge: "25%" },
    });
    assert.equal(s.revisionHistoryLimit, 10);
    assert.equal(s.progressDeadlineSeconds, 600);
    // Given values are kept; a Recreate strategy gets no rollingUpdate.
    const given = await send(c, "POST", DEPLOYMENTS, {
      metadata: { name: "db" },
      spec: {
        replicas: 0,
        strategy: { type: "Recreate" },
        revisionHistoryLimit: 2,
        selector: { matchLabels: { app: "web" } },
        template,
      },
    });
    assert.equal(spec(given).replicas, 0);
    assert.deepEqual(spec(given).strategy, { type: "Recreate" });
    assert.equal(spec(given).revisionHistoryLimit, 2);
    // An update without the defaults gets them again and does not bump the generation.
    const put = await send(c, "PUT", `${DEPLOYMENTS}/web`, {
      metadata: { name: "web" },
      spec: { selector: { matchLabels: { app: "web" } }, template },
    });
    assert.equal(put.status, 200);
    assert.equal(spec(put).replicas, 1);
    assert.equal((put.body.metadata as { generation: number }).generation, 1);
    // The control API stores what it is given.
    c.create(deployments, { metadata: { name: "raw", namespace: "default" }, spec: {} });
    assert.deepEqual(c.get(deployments, { namespace: "default", name: "raw" })?.spec, {});
    c.close();
  });

  test("PersistentVolumes and PersistentVolumeClaims start Pending", async () => {
    const c = new SimulatedCluster({ resources: [persistentvolumes, persistentvolumeclaims] });
    const pv = await send(c, "POST", "/api/v1/persistentvolumes", {
      metadata: { name: "pv1" },
      spec: {
        capacity: { storage: "1Gi" },
        accessModes: ["ReadWriteOnce"],
        hostPath: { path: "/x" },
      },
    });
    assert.equal(pv.status, 201);
    assert.deepEqual(pv.body.status, { phase: "Pending" });
    const pvc = await send(c, "POST", "/api/v1/namespaces/default/persistentvolumeclaims", {
      metadata: { name: "data" },
      spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } },
    });
    assert.equal(pvc.status, 201);
    assert.deepEqual(pvc.body.status, { phase: "Pending" });
    c.close();
  });

  test("a Service gets its type, ports' defaults and a cluster IP from 10.96.0.0/12", async () => {
    const c = new SimulatedCluster({ resources: [services] });
    const a = await send(c, "POST", SERVICES, {
      metadata: { name: "a" },
      spec: { selector: { app: "web" }, ports: [{ port: 80 }] },
    });
    assert.equal(a.status, 201);
    const s = spec(a);
    assert.equal(s.type, "ClusterIP");
    assert.equal(s.sessionAffinity, "None");
    assert.equal(s.internalTrafficPolicy, "Cluster");
    assert.deepEqual(s.ports, [{ port: 80, protocol: "TCP", targetPort: 80 }]);
    assert.match(String(s.clusterIP), /^10\.(9[6-9]|10\d|11[01])\.\d+\.\d+$/);
    assert.deepEqual(s.clusterIPs, [s.clusterIP]);
    assert.deepEqual(s.ipFamilies, ["IPv4"]);
    assert.equal(s.ipFamilyPolicy, "SingleStack");
    const b = await send(c, "POST", SERVICES, {
      metadata: { name: "b" },
      spec: { ports: [{ port: 443, targetPort: "https" }] },
    });
    assert.notEqual(spec(b).clusterIP, s.clusterIP);
    assert.equal((spec(b).ports as { targetPort: unknown }[])[0]!.targetPort, "https");
    const headless = await send(c, "POST", SERVICES, {
      metadata: { name: "h" },
      spec: { clusterIP: "None", ports: [{ port: 80 }] },
    });
    assert.equal(spec(headless).clusterIP, "None");
    assert.deepEqual(spec(headless).clusterIPs, ["None"]);
    const external = await send(c, "POST", SERVICES, {
      metadata: { name: "e" },
      spec: { type: "ExternalName", externalName: "example.com" },
    });
    assert.equal(spec(external).clusterIP, undefined);
    // An update that omits the allocated IP keeps it.
    const put = await send(c, "PUT", `${SERVICES}/a`, {
      metadata: { name: "a" },
      spec: { selector: { app: "api" }, ports: [{ port: 80 }] },
    });
    assert.equal(put.status, 200);
    assert.equal(spec(put).clusterIP, s.clusterIP);
    assert.deepEqual(spec(put).clusterIPs, [s.clusterIP]);
    c.close();
  });
});
