// kubectl's default output is the server's Table: against the simulated cluster, kubectl 1.33
// must print the columns and cells kube-apiserver prints (pods' READY/STATUS/RESTARTS, the wide
// columns, leases' HOLDER, a CRD's printer columns), also for `get -w`.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { deployments, leases, pods } from "../../src/client/resource.ts";
import type { KubeObject } from "../../src/client/types.ts";
import { defineResource } from "../../src/client/define_resource.ts";
import { kubectlVersion, setupKubectl, tableRows } from "./_kubectl.ts";

const version = await kubectlVersion();
const available = version !== undefined;
console.log(`kubectl_tables_test: ${available ? `kubectl ${version}` : "skipped, no kubectl"}`);

/** An RFC 3339 time `ms` milliseconds since the epoch, in whole seconds. */
const at = (ms: number) => `${new Date(ms).toISOString().slice(0, 19)}Z`;

const gadgetCrd = {
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "CustomResourceDefinition",
  metadata: { name: "gadgets.example.org" },
  spec: {
    group: "example.org",
    names: { plural: "gadgets", singular: "gadget", kind: "Gadget", shortNames: ["gd"] },
    scope: "Namespaced",
    versions: [{
      name: "v1",
      served: true,
      storage: true,
      subresources: { status: {} },
      schema: {
        openAPIV3Schema: {
          type: "object",
          properties: {
            spec: {
              type: "object",
              properties: { size: { type: "integer" }, color: { type: "string" } },
            },
            status: { type: "object", "x-kubernetes-preserve-unknown-fields": true },
          },
        },
      },
      additionalPrinterColumns: [
        { name: "Size", type: "integer", jsonPath: ".spec.size" },
        {
          name: "Ready",
          type: "string",
          jsonPath: '.status.conditions[?(@.type=="Ready")].status',
        },
        { name: "Age", type: "date", jsonPath: ".metadata.creationTimestamp" },
        { name: "Color", type: "string", priority: 1, jsonPath: ".spec.color" },
      ],
    }],
  },
};
const gadgets = defineResource({
  group: "example.org",
  version: "v1",
  resource: "gadgets",
  kind: "Gadget",
  namespaced: true,
});

describe("kubectl prints the simulated cluster's Tables", {
  skip: !available && "kubectl not found",
}, () => {
  test("get pods: READY, STATUS, RESTARTS and AGE as kube-apiserver derives them; -o wide adds IP, NODE, NOMINATED NODE, READINESS GATES", async () => {
    const { c, clock, kubectl, close } = await setupKubectl();
    try {
      const t0 = clock.now();
      const container = (status: Record<string, unknown>) => ({
        name: "app",
        image: "nginx",
        ...status,
      });
      c.create(pods, {
        metadata: { name: "web-1", namespace: "default" },
        spec: {
          containers: [{ name: "app", image: "nginx" }],
          nodeName: "node-a",
          readinessGates: [{ conditionType: "example.com/ready" }],
        },
        status: {
          phase: "Running",
          podIP: "10.0.0.7",
          conditions: [{ type: "Ready", status: "True" }, {
            type: "example.com/ready",
            status: "True",
          }],
          containerStatuses: [container({
            ready: true,
            restartCount: 0,
            state: { running: { startedAt: at(t0) } },
          })],
        },
      } as KubeObject);
      await clock.advance(150_000);
      c.create(pods, {
        metadata: { name: "crash-1", namespace: "default" },
        spec: { containers: [{ name: "app", image: "nginx" }] },
        status: {
          phase: "Running",
          nominatedNodeName: "node-b",
          containerStatuses: [container({
            ready: false,
            restartCount: 3,
            state: { waiting: { reason: "CrashLoopBackOff" } },
            lastState: { terminated: { exitCode: 1, finishedAt: at(clock.now() - 40_000) } },
          })],
        },
      } as KubeObject);
      c.create(pods, {
        metadata: { name: "init-1", namespace: "default" },
        spec: {
          initContainers: [{ name: "setup", image: "busybox" }],
          containers: [{ name: "app", image: "nginx" }],
        },
        status: {
          phase: "Pending",
          initContainerStatuses: [{
            name: "setup",
            ready: false,
            restartCount: 0,
            state: { running: {} },
          }],
        },
      } as KubeObject);
      c.create(pods, {
        metadata: { name: "done-1", namespace: "default" },
        spec: { containers: [{ name: "app", image: "busybox" }] },
        status: {
          phase: "Succeeded",
          containerStatuses: [container({
            ready: false,
            restartCount: 0,
            state: { terminated: { exitCode: 0, reason: "Completed" } },
          })],
        },
      } as KubeObject);
      c.create(pods, {
        metadata: { name: "gone-1", namespace: "default", finalizers: ["example.com/hold"] },
        spec: { containers: [{ name: "app", image: "nginx" }] },
        status: { phase: "Running" },
      } as KubeObject);
      c.delete(pods, { namespace: "default", name: "gone-1" }); // held by its finalizer
      await clock.advance(60_000);

      const table = tableRows((await kubectl(["get", "pods"])).stdout);
      assert.deepEqual(table, [
        ["NAME", "READY", "STATUS", "RESTARTS", "AGE"],
        ["crash-1", "0/1", "CrashLoopBackOff", "3 (100s ago)", "60s"],
        ["done-1", "0/1", "Completed", "0", "60s"],
        ["gone-1", "0/1", "Terminating", "0", "60s"],
        ["init-1", "0/1", "Init:0/1", "0", "60s"],
        ["web-1", "1/1", "Running", "0", "3m30s"],
      ]);
      const wide = tableRows((await kubectl(["get", "pods", "-o", "wide"])).stdout);
      assert.deepEqual(wide[0], [
        "NAME",
        "READY",
        "STATUS",
        "RESTARTS",
        "AGE",
        "IP",
        "NODE",
        "NOMINATED NODE",
        "READINESS GATES",
      ]);
      assert.deepEqual(wide[1], [
        "crash-1",
        "0/1",
        "CrashLoopBackOff",
        "3 (100s ago)",
        "60s",
        "<none>",
        "<none>",
        "node-b",
        "<none>",
      ]);
      assert.deepEqual(wide[5], [
        "web-1",
        "1/1",
        "Running",
        "0",
        "3m30s",
        "10.0.0.7",
        "node-a",
        "<none>",
        "1/1",
      ]);
      // One object is a Table too; --show-labels and -A use the rows' metadata.
      const one = tableRows((await kubectl(["get", "pod", "web-1", "--show-labels"])).stdout);
      assert.deepEqual(one, [
        ["NAME", "READY", "STATUS", "RESTARTS", "AGE", "LABELS"],
        ["web-1", "1/1", "Running", "0", "3m30s", "<none>"],
      ]);
      const all = tableRows((await kubectl(["get", "pods", "-A"])).stdout);
      assert.deepEqual(all[0], ["NAMESPACE", "NAME", "READY", "STATUS", "RESTARTS", "AGE"]);
      assert.deepEqual(all[1]!.slice(0, 2), ["default", "crash-1"]);
    } finally {
      await close();
    }
  });

  test("get leases prints HOLDER; get deployments READY, UP-TO-DATE, AVAILABLE and, wide, the containers", async () => {
    const { c, clock, kubectl, close } = await setupKubectl();
    try {
      c.create(leases, {
        metadata: { name: "controller-lock", namespace: "default" },
        spec: { holderIdentity: "replica-b_1234", leaseDurationSeconds: 15 },
      } as KubeObject);
      c.create(
        leases,
        { metadata: { name: "free", namespace: "default" }, spec: {} } as KubeObject,
      );
      c.create(deployments, {
        metadata: { name: "web", namespace: "default" },
        spec: {
          replicas: 3,
          selector: { matchLabels: { app: "web" } },
          template: {
            metadata: { labels: { app: "web" } },
            spec: {
              containers: [{ name: "app", image: "nginx:1.27" }, {
                name: "proxy",
                image: "envoy",
              }],
            },
          },
        },
        status: { readyReplicas: 2, updatedReplicas: 3, availableReplicas: 2 },
      } as KubeObject);
      await clock.advance(7_200_000);
      const leaseTable = tableRows((await kubectl(["get", "leases"])).stdout);
      assert.deepEqual(leaseTable, [
        ["NAME", "HOLDER", "AGE"],
        ["controller-lock", "replica-b_1234", "120m"],
        ["free", "120m"], // an empty HOLDER cell
      ]);
      const deploy = tableRows((await kubectl(["get", "deployments", "-o", "wide"])).stdout);
      assert.deepEqual(deploy, [
        ["NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE", "CONTAINERS", "IMAGES", "SELECTOR"],
        ["web", "2/3", "3", "2", "120m", "app,proxy", "nginx:1.27,envoy", "app=web"],
      ]);
    } finally {
      await close();
    }
  });

  test("get on a custom resource prints its CRD's additionalPrinterColumns (JSONPath, types, priority)", async () => {
    const { c, clock, kubectl, close } = await setupKubectl({ resources: [gadgetCrd] });
    try {
      c.create(gadgets, {
        metadata: { name: "g1", namespace: "default" },
        spec: { size: 3, color: "blue" },
        status: {
          conditions: [{ type: "Synced", status: "True" }, { type: "Ready", status: "False" }],
        },
      } as KubeObject);
      await clock.advance(30_000);
      c.create(
        gadgets,
        { metadata: { name: "g2", namespace: "default" }, spec: { size: 1 } } as KubeObject,
      );
      const table = tableRows((await kubectl(["get", "gd"])).stdout);
      assert.deepEqual(table, [
        ["NAME", "SIZE", "READY", "AGE"],
        ["g1", "3", "False", "30s"],
        ["g2", "1", "0s"], // no Ready condition: an empty cell
      ]);
      const wide = tableRows((await kubectl(["get", "gadgets", "-o", "wide"])).stdout);
      assert.deepEqual(wide[0], ["NAME", "SIZE", "READY", "AGE", "COLOR"]);
      assert.deepEqual(wide[1], ["g1", "3", "False", "30s", "blue"]);
    } finally {
      await close();
    }
  });

  test("get pods -w prints the server's rows for the list and then each watch event", async () => {
    const { c, clock, start, close } = await setupKubectl();
    try {
      c.create(pods, {
        metadata: { name: "a", namespace: "default" },
        spec: { containers: [{ name: "app", image: "nginx" }] },
      } as KubeObject);
      const proc = start(["get", "pods", "-w", "--output-watch-events"]);
      for (let i = 0; i < 2000 && c.openWatches === 0; i++) await clock.flush(1);
      assert.equal(c.openWatches, 1, "kubectl opened a watch");
      c.patch(pods, { namespace: "default", name: "a" }, {
        status: {
          phase: "Running",
          containerStatuses: [{
            name: "app",
            ready: true,
            restartCount: 0,
            state: { running: {} },
          }],
        },
      });
      c.delete(pods, { namespace: "default", name: "a" });
      // Whole lines only: kubectl may write a row in two pieces (seen: "DELETED   a" alone).
      const whole = (): string => proc.stdout().slice(0, proc.stdout().lastIndexOf("\n") + 1);
      for (let i = 0; i < 4000 && tableRows(whole()).length < 4; i++) await clock.flush(1);
      const run = await proc.kill();
      assert.deepEqual(tableRows(run.stdout), [
        ["EVENT", "NAME", "READY", "STATUS", "RESTARTS", "AGE"],
        ["ADDED", "a", "0/1", "Pending", "0", "0s"],
        ["MODIFIED", "a", "1/1", "Running", "0", "0s"],
        ["DELETED", "a", "1/1", "Running", "0", "0s"],
      ], run.stderr);
    } finally {
      await close();
    }
  });
});
