// kubectl 1.33 discovers the simulated cluster through aggregated discovery
// (apidiscovery.k8s.io/v2): two requests, /api and /apis, and no per-group fallback.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { deployments, pods } from "../../src/client/resource.ts";
import { defineResource } from "../../src/client/define_resource.ts";
import { deploymentFixture } from "../../src/testing/fixtures.ts";
import { kubectlVersion, setupKubectl, tableRows } from "./_kubectl.ts";

const version = await kubectlVersion();
const available = version !== undefined;
console.log(`kubectl_discovery_test: ${available ? `kubectl ${version}` : "skipped, no kubectl"}`);

const services = defineResource({
  version: "v1",
  resource: "services",
  kind: "Service",
  namespaced: true,
});

describe("kubectl discovers the simulated cluster", {
  skip: !available && "kubectl not found",
}, () => {
  test("api-resources reads aggregated discovery from /api and /apis only, with every resource's short names and scope", async () => {
    const { c, kubectl, close } = await setupKubectl({ resources: [services] });
    try {
      c.clearRequests();
      const rows = tableRows((await kubectl(["api-resources"])).stdout);
      const paths = c.requests.map((r) => r.path);
      assert.deepEqual(paths, ["/api", "/apis"], "no per-group-version requests");
      assert.deepEqual(rows[0], ["NAME", "SHORTNAMES", "APIVERSION", "NAMESPACED", "KIND"]);
      const byName = (name: string, apiVersion: string) =>
        rows.find((r) => r[0] === name && r.includes(apiVersion));
      assert.deepEqual(byName("pods", "v1"), ["pods", "po", "v1", "true", "Pod"]);
      assert.deepEqual(byName("services", "v1"), ["services", "svc", "v1", "true", "Service"]);
      assert.deepEqual(byName("namespaces", "v1"), [
        "namespaces",
        "ns",
        "v1",
        "false",
        "Namespace",
      ]);
      assert.deepEqual(byName("events", "v1"), ["events", "ev", "v1", "true", "Event"]);
      assert.deepEqual(byName("events", "events.k8s.io/v1"), [
        "events",
        "ev",
        "events.k8s.io/v1",
        "true",
        "Event",
      ]);
      assert.deepEqual(byName("deployments", "apps/v1"), [
        "deployments",
        "deploy",
        "apps/v1",
        "true",
        "Deployment",
      ]);
      assert.deepEqual(byName("leases", "coordination.k8s.io/v1"), [
        "leases",
        "coordination.k8s.io/v1",
        "true",
        "Lease",
      ]);
      assert.deepEqual(byName("selfsubjectaccessreviews", "authorization.k8s.io/v1"), [
        "selfsubjectaccessreviews",
        "authorization.k8s.io/v1",
        "false",
        "SelfSubjectAccessReview",
      ]);
      assert.deepEqual(byName("widgets", "example.com/v1"), [
        "widgets",
        "wg",
        "example.com/v1",
        "true",
        "Widget",
      ]);
      // Verbs as discovery says them (only what the simulator serves).
      const wide = tableRows((await kubectl(["api-resources", "-o", "wide"])).stdout);
      const podRow = wide.find((r) => r[0] === "pods")!;
      assert.equal(podRow.at(-2), "create,delete,get,list,patch,update,watch");
      assert.equal(podRow.at(-1), "all");
    } finally {
      await close();
    }
  });

  test("get all lists the resources of the all category, found through discovery", async () => {
    const { c, kubectl, close } = await setupKubectl({ resources: [services] });
    try {
      c.create(pods, { metadata: { name: "p", namespace: "default" } });
      c.create(deployments, deploymentFixture(0, { name: "d", namespace: "default" }));
      c.create(services, {
        metadata: { name: "s", namespace: "default" },
        spec: { clusterIP: "10.96.0.10", ports: [{ port: 80 }] },
      });
      const out = (await kubectl(["get", "all"])).stdout;
      assert.match(out, /^pod\/p\s+0\/0\s+Pending\s+0/m);
      assert.match(out, /^service\/s\s+ClusterIP\s+10\.96\.0\.10\s+<none>\s+80\/TCP/m);
      assert.match(out, /^deployment\.apps\/d\s+0\/\d+\s+0\s+0\s+0s$/m);
    } finally {
      await close();
    }
  });
});
