// Discovery: aggregated (two requests) when the server offers it, legacy (one request per group
// version) when it does not, with the same answer.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { KubeClient } from "../../src/client/kube_client.ts";
import { AGGREGATED_DISCOVERY_ACCEPT, discoverResources } from "../../src/client/discovery.ts";
import { SimulatedCluster } from "@kinformer/simulator";

/** A client on `cluster`, optionally through a server that knows only legacy discovery. */
function clientOf(cluster: SimulatedCluster, legacyOnly = false) {
  const accepts: string[] = [];
  const client = new KubeClient({
    server: "http://sim.test",
    fetch: (request) => {
      accepts.push(request.headers.get("accept") ?? "");
      if (!legacyOnly) return cluster.fetch(request);
      const headers = new Headers(request.headers);
      headers.set("accept", "application/json");
      return cluster.fetch(new Request(request, { headers }));
    },
  });
  return { client, accepts };
}

const summary = (r: { group: string; version: string; resource: string; kind: string }) =>
  `${r.group}/${r.version}/${r.resource} ${r.kind}`;

describe("discoverResources", () => {
  test("reads aggregated discovery in two requests, with the apidiscovery Accept header", async () => {
    const cluster = new SimulatedCluster();
    const { client, accepts } = clientOf(cluster);
    const found = await discoverResources(client);
    assert.deepEqual(accepts, [AGGREGATED_DISCOVERY_ACCEPT, AGGREGATED_DISCOVERY_ACCEPT]);
    assert.match(
      AGGREGATED_DISCOVERY_ACCEPT,
      /g=apidiscovery\.k8s\.io;v=v2;as=APIGroupDiscoveryList/,
    );
    const pods = found.find((r) => r.group === "" && r.resource === "pods");
    assert.deepEqual(pods, {
      group: "",
      version: "v1",
      resource: "pods",
      kind: "Pod",
      namespaced: true,
      verbs: pods?.verbs,
      preferred: true,
    });
    assert.ok(pods?.verbs.includes("watch"));
    assert.ok(!found.some((r) => r.resource.includes("/")), "no subresources");
    cluster.close();
  });

  test("falls back to legacy discovery, with the same resources", async () => {
    const cluster = new SimulatedCluster();
    const aggregated = await discoverResources(clientOf(cluster).client);
    const { client, accepts } = clientOf(cluster, true);
    const legacy = await discoverResources(client);
    assert.ok(accepts.length > 2, `${accepts.length} requests: one per group version`);
    assert.deepEqual(legacy.map(summary).sort(), aggregated.map(summary).sort());
    const preferred = (list: typeof legacy) => list.filter((r) => r.preferred).map(summary).sort();
    assert.deepEqual(preferred(legacy), preferred(aggregated));
    cluster.close();
  });
});
