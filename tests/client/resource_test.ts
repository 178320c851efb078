import { describe, test } from "node:test";
import assert from "node:assert/strict";
import {
  configmaps,
  coreEvents,
  cronjobs,
  customresourcedefinitions,
  daemonsets,
  deployments,
  endpoints,
  ingresses,
  jobs,
  leases,
  namespaces,
  nodes,
  persistentvolumeclaims,
  persistentvolumes,
  pods,
  replicasets,
  type ResourceDescriptor,
  resourcePath,
  secrets,
  serviceaccounts,
  services,
  statefulsets,
} from "../../src/client/mod.ts";
import { resourceKey } from "../../src/client/resource.ts";

const widgets: ResourceDescriptor = {
  group: "example.com",
  version: "v1alpha1",
  resource: "widgets",
  kind: "Widget",
  namespaced: true,
};
const clusterWidgets: ResourceDescriptor = {
  group: "example.com",
  version: "v1",
  resource: "clusterwidgets",
  kind: "ClusterWidget",
  namespaced: false,
};

describe("resourcePath", () => {
  test("a core namespaced resource lives under /api/v1/namespaces/{ns}", () => {
    assert.equal(resourcePath(pods, { namespace: "default" }), "/api/v1/namespaces/default/pods");
    assert.equal(
      resourcePath(pods, { namespace: "default", name: "web-1" }),
      "/api/v1/namespaces/default/pods/web-1",
    );
  });

  test("a namespaced resource without a namespace is the cluster-wide collection", () => {
    assert.equal(resourcePath(pods), "/api/v1/pods");
    assert.equal(resourcePath(pods, {}), "/api/v1/pods");
    assert.equal(resourcePath(pods, { namespace: "" }), "/api/v1/pods");
    assert.equal(resourcePath(deployments), "/apis/apps/v1/deployments");
  });

  test("a core cluster-scoped resource has no namespace segment", () => {
    assert.equal(resourcePath(nodes), "/api/v1/nodes");
    assert.equal(resourcePath(nodes, { name: "node-1" }), "/api/v1/nodes/node-1");
    assert.equal(resourcePath(namespaces, { name: "default" }), "/api/v1/namespaces/default");
  });

  test("a named-group namespaced resource lives under /apis/{group}/{version}/namespaces/{ns}", () => {
    assert.equal(
      resourcePath(deployments, { namespace: "prod", name: "web" }),
      "/apis/apps/v1/namespaces/prod/deployments/web",
    );
    assert.equal(
      resourcePath(leases, { namespace: "kube-system" }),
      "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases",
    );
  });

  test("a named-group cluster-scoped resource lives under /apis/{group}/{version}", () => {
    assert.equal(
      resourcePath(customresourcedefinitions, { name: "widgets.example.com" }),
      "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.example.com",
    );
  });

  test("a custom resource uses its own group and version", () => {
    assert.equal(
      resourcePath(widgets, { namespace: "team-a", name: "w1" }),
      "/apis/example.com/v1alpha1/namespaces/team-a/widgets/w1",
    );
    assert.equal(resourcePath(widgets), "/apis/example.com/v1alpha1/widgets");
    assert.equal(resourcePath(clusterWidgets), "/apis/example.com/v1/clusterwidgets");
  });

  test("an empty group means the core group", () => {
    const core: ResourceDescriptor = {
      group: "",
      version: "v1",
      resource: "pods",
      kind: "Pod",
      namespaced: true,
    };
    assert.equal(resourcePath(core), "/api/v1/pods");
  });

  test("a subresource follows the object name", () => {
    assert.equal(
      resourcePath(pods, { namespace: "default", name: "web-1", subresource: "status" }),
      "/api/v1/namespaces/default/pods/web-1/status",
    );
    assert.equal(
      resourcePath(deployments, { namespace: "default", name: "web", subresource: "scale" }),
      "/apis/apps/v1/namespaces/default/deployments/web/scale",
    );
    assert.equal(
      resourcePath(nodes, { name: "node-1", subresource: "status" }),
      "/api/v1/nodes/node-1/status",
    );
  });

  test("path segments are percent-encoded; a / or % in one is refused, as client-go refuses it", () => {
    assert.equal(
      resourcePath(configmaps, { namespace: "a b", name: "x?y#z" }),
      "/api/v1/namespaces/a%20b/configmaps/x%3Fy%23z",
    );
    assert.throws(() => resourcePath(configmaps, { namespace: "a", name: "x/y" }), /options\.name/);
    assert.throws(() => resourcePath(configmaps, { namespace: "a%2F", name: "x" }), /namespace/);
  });

  test("a namespace for a cluster-scoped resource is a TypeError naming the option", () => {
    assert.throws(
      () => resourcePath(nodes, { namespace: "default" }),
      (e: unknown) => e instanceof TypeError && /options\.namespace/.test(e.message),
    );
    assert.throws(() => resourcePath(clusterWidgets, { namespace: "x", name: "y" }), TypeError);
  });

  test("a subresource without a name is a TypeError naming the option", () => {
    assert.throws(
      () => resourcePath(pods, { namespace: "default", subresource: "status" }),
      (e: unknown) => e instanceof TypeError && /options\.name/.test(e.message),
    );
  });

  test("a name of a namespaced resource without a namespace is a TypeError", () => {
    assert.throws(
      () => resourcePath(pods, { name: "web-1" }),
      (e: unknown) => e instanceof TypeError && /options\.namespace is required/.test(e.message),
    );
  });

  test("'.' and '..' segments are refused, since URL parsing would collapse them", () => {
    assert.throws(() => resourcePath(pods, { namespace: "default", name: ".." }), TypeError);
    assert.throws(() => resourcePath(pods, { namespace: "." }), TypeError);
  });

  test("a descriptor without version or resource is a TypeError naming the field", () => {
    const bad = { version: "", resource: "pods", kind: "Pod", namespaced: true };
    assert.throws(
      () => resourcePath(bad),
      (e: unknown) => e instanceof TypeError && /resource\.version/.test(e.message),
    );
  });
});

describe("resourceKey", () => {
  test("is {group}/{version}/{resource}, or {version}/{resource} for the core group", () => {
    assert.equal(resourceKey(deployments), "apps/v1/deployments");
    assert.equal(resourceKey(pods), "v1/pods");
    assert.equal(resourceKey(widgets), "example.com/v1alpha1/widgets");
  });

  test("differs between versions of the same resource", () => {
    assert.notEqual(resourceKey(widgets), resourceKey({ ...widgets, version: "v1" }));
  });
});

describe("ready-made descriptors", () => {
  const table: Array<[ResourceDescriptor, string, string, boolean, string]> = [
    [pods, "", "pods", true, "Pod"],
    [configmaps, "", "configmaps", true, "ConfigMap"],
    [secrets, "", "secrets", true, "Secret"],
    [services, "", "services", true, "Service"],
    [endpoints, "", "endpoints", true, "Endpoints"],
    [coreEvents, "", "events", true, "Event"],
    [serviceaccounts, "", "serviceaccounts", true, "ServiceAccount"],
    [namespaces, "", "namespaces", false, "Namespace"],
    [nodes, "", "nodes", false, "Node"],
    [persistentvolumes, "", "persistentvolumes", false, "PersistentVolume"],
    [persistentvolumeclaims, "", "persistentvolumeclaims", true, "PersistentVolumeClaim"],
    [deployments, "apps", "deployments", true, "Deployment"],
    [statefulsets, "apps", "statefulsets", true, "StatefulSet"],
    [daemonsets, "apps", "daemonsets", true, "DaemonSet"],
    [replicasets, "apps", "replicasets", true, "ReplicaSet"],
    [jobs, "batch", "jobs", true, "Job"],
    [cronjobs, "batch", "cronjobs", true, "CronJob"],
    [ingresses, "networking.k8s.io", "ingresses", true, "Ingress"],
    [leases, "coordination.k8s.io", "leases", true, "Lease"],
    [
      customresourcedefinitions,
      "apiextensions.k8s.io",
      "customresourcedefinitions",
      false,
      "CustomResourceDefinition",
    ],
  ];

  test("carry the group, v1, plural, scope and kind of each built-in type", () => {
    for (const [descriptor, group, resource, namespaced, kind] of table) {
      assert.equal(descriptor.group ?? "", group, resource);
      assert.equal(descriptor.version, "v1", resource);
      assert.equal(descriptor.resource, resource);
      assert.equal(descriptor.namespaced, namespaced, resource);
      assert.equal(descriptor.kind, kind, resource);
      const prefix = group === "" ? "/api/v1" : `/apis/${group}/v1`;
      assert.equal(resourcePath(descriptor), `${prefix}/${resource}`);
    }
  });

  test("are frozen so a shared descriptor cannot be changed by accident", () => {
    assert.ok(Object.isFrozen(pods));
    assert.throws(() => {
      (pods as { resource: string }).resource = "nope";
    }, TypeError);
  });
});
