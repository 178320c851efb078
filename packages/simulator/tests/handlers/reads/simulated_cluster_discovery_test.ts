// Aggregated discovery (apidiscovery.k8s.io/v2) and the legacy discovery documents describe the
// same groups, versions and resources.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { defineResource } from "../../../../../src/client/define_resource.ts";
import { services } from "../../../../../src/client/resource.ts";
import { SimulatedCluster } from "../../../src/cluster/simulated_cluster.ts";

const V2 = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList";
const V2BETA1 = "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList";

interface Discovered {
  kind: string;
  apiVersion: string;
  items: Array<{
    metadata: { name?: string; creationTimestamp: null };
    versions: Array<{
      version: string;
      freshness: string;
      resources: Array<{
        resource: string;
        responseKind: { group: string; version: string; kind: string };
        scope: string;
        singularResource: string;
        verbs: string[];
        shortNames?: string[];
        categories?: string[];
        subresources?: Array<{ subresource: string; responseKind: unknown; verbs: string[] }>;
      }>;
    }>;
  }>;
}

const multiVersionCrd = {
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "CustomResourceDefinition",
  metadata: { name: "gadgets.example.org" },
  spec: {
    group: "example.org",
    names: { plural: "gadgets", kind: "Gadget", categories: ["all", "toys"] },
    scope: "Cluster",
    versions: [
      { name: "v1beta1", served: true, storage: false },
      { name: "v1", served: true, storage: true, subresources: { status: {}, scale: {} } },
      { name: "v1alpha1", served: false, storage: false },
    ],
  },
};

describe("SimulatedCluster discovery", () => {
  const get = async (c: SimulatedCluster, path: string, accept?: string) =>
    await c.fetch(
      new Request(`http://sim.test${path}`, accept ? { headers: { Accept: accept } } : {}),
    );

  test("/api and /apis answer APIGroupDiscoveryList when asked for v2 first, as client-go asks", async () => {
    const c = new SimulatedCluster();
    const res = await get(c, "/apis", `${V2},${V2BETA1},application/json`);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("content-type"), V2);
    const body = await res.json() as Discovered;
    assert.equal(body.kind, "APIGroupDiscoveryList");
    assert.equal(body.apiVersion, "apidiscovery.k8s.io/v2");
    assert.deepEqual(body.items.map((g) => g.metadata.name), [
      "apps",
      "events.k8s.io",
      "authentication.k8s.io",
      "authorization.k8s.io",
      "apiextensions.k8s.io",
      "coordination.k8s.io",
      "example.com",
    ]);
    const apps = body.items[0]!.versions[0]!;
    assert.equal(apps.freshness, "Current");
    assert.deepEqual(apps.resources[0], {
      resource: "deployments",
      responseKind: { group: "apps", version: "v1", kind: "Deployment" },
      scope: "Namespaced",
      singularResource: "deployment",
      verbs: ["create", "delete", "get", "list", "patch", "update", "watch"],
      shortNames: ["deploy"],
      categories: ["all"],
      subresources: [
        {
          subresource: "status",
          responseKind: { group: "apps", version: "v1", kind: "Deployment" },
          verbs: ["get", "patch", "update"],
        },
        {
          subresource: "scale",
          responseKind: { group: "autoscaling", version: "v1", kind: "Scale" },
          verbs: ["get", "patch", "update"],
        },
      ],
    });
    const core = await (await get(c, "/api", V2)).json() as Discovered;
    assert.deepEqual(core.items.map((g) => g.metadata), [{ creationTimestamp: null }]);
    const beta = await get(c, "/api", V2BETA1);
    assert.equal(beta.headers.get("content-type"), V2BETA1);
    assert.equal((await beta.json() as Discovered).apiVersion, "apidiscovery.k8s.io/v2beta1");
    const legacy = await get(c, "/api", "application/json");
    assert.equal(legacy.headers.get("content-type"), "application/json");
    assert.equal((await legacy.json() as { kind: string }).kind, "APIVersions");
    c.close();
  });

  test("aggregated and legacy discovery agree on every group, version, resource, verb, short name, category and subresource", async () => {
    const c = new SimulatedCluster({ resources: [services, multiVersionCrd] });
    const aggregated = [
      ...(await (await get(c, "/api", V2)).json() as Discovered).items,
      ...(await (await get(c, "/apis", V2)).json() as Discovered).items,
    ];
    const fromAggregated: string[] = [];
    for (const g of aggregated) {
      for (const v of g.versions) {
        for (const r of v.resources) {
          fromAggregated.push(JSON.stringify([
            g.metadata.name ?? "",
            v.version,
            r.resource,
            r.responseKind.kind,
            r.scope === "Namespaced",
            r.singularResource,
            r.verbs,
            r.shortNames ?? [],
            r.categories ?? [],
            (r.subresources ?? []).map((s) => s.subresource),
          ]));
        }
      }
    }
    const fromLegacy: string[] = [];
    const groups = [
      { name: "", versions: [{ groupVersion: "v1", version: "v1" }] },
      ...(await (await get(c, "/apis")).json() as {
        groups: Array<{ name: string; versions: Array<{ groupVersion: string; version: string }> }>;
      }).groups,
    ];
    for (const g of groups) {
      for (const v of g.versions) {
        const path = g.name === "" ? "/api/v1" : `/apis/${v.groupVersion}`;
        const list = await (await get(c, path)).json() as {
          resources: Array<{
            name: string;
            kind: string;
            namespaced: boolean;
            singularName: string;
            verbs: string[];
            shortNames?: string[];
            categories?: string[];
          }>;
        };
        for (const r of list.resources) {
          if (r.name.includes("/")) continue;
          const subs = list.resources.filter((s) => s.name.startsWith(`${r.name}/`)).map((s) =>
            s.name.slice(r.name.length + 1)
          );
          fromLegacy.push(JSON.stringify([
            g.name,
            v.version,
            r.name,
            r.kind,
            r.namespaced,
            r.singularName,
            r.verbs,
            r.shortNames ?? [],
            r.categories ?? [],
            subs,
          ]));
        }
      }
    }
    assert.deepEqual(fromAggregated, fromLegacy);
    assert.ok(fromLegacy.some((r) => r.startsWith('["","v1","services","Service",true,"service"')));
    // A CRD's served versions, the preferred (v1) first; not the unserved one.
    const org = aggregated.find((g) => g.metadata.name === "example.org")!;
    assert.deepEqual(org.versions.map((v) => v.version), ["v1", "v1beta1"]);
    assert.deepEqual(org.versions[0]!.resources[0]!.categories, ["all", "toys"]);
    assert.equal(org.versions[0]!.resources[0]!.scope, "Cluster");
    assert.deepEqual(org.versions[1]!.resources[0]!.subresources, undefined);
    c.close();
  });

  test("the review resources are create-only; the built-in catalog fills in what a bare descriptor lacks", async () => {
    const ingresses = defineResource({
      group: "networking.k8s.io",
      version: "v1",
      resource: "ingresses",
      kind: "Ingress",
      namespaced: true,
    });
    const c = new SimulatedCluster({ resources: [ingresses] });
    const authz = await (await get(c, "/apis/authorization.k8s.io/v1")).json() as {
      resources: Array<{ name: string; verbs: string[]; namespaced: boolean }>;
    };
    assert.deepEqual(authz.resources.map((r) => [r.name, r.verbs, r.namespaced]), [
      ["selfsubjectaccessreviews", ["create"], false],
      ["selfsubjectrulesreviews", ["create"], false],
    ]);
    const net = await (await get(c, "/apis/networking.k8s.io/v1")).json() as {
      resources: Array<{ name: string; shortNames?: string[] }>;
    };
    assert.deepEqual(net.resources.map((r) => [r.name, r.shortNames]), [
      ["ingresses", ["ing"]],
      ["ingresses/status", undefined],
    ]);
    c.close();
  });
});
