// Server-side Tables (`Accept: application/json;as=Table;v=v1;g=meta.k8s.io`) on the wire: the
// Table kube-apiserver answers for lists, single objects and watches, the column definitions of
// its printers, each printer's cells, and `includeObject`.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import {
  coreEvents,
  cronjobs,
  jobs,
  nodes,
  persistentvolumeclaims,
  persistentvolumes,
  pods,
  secrets,
  services,
  statefulsets,
} from "../../../../../src/client/resource.ts";
import type { KubeObject } from "../../../../../src/client/types.ts";
import { defineResource } from "../../../../../src/client/define_resource.ts";
import { ManualClock } from "../../../../../src/testing/manual_clock.ts";
import { SimulatedCluster } from "../../../src/cluster/simulated_cluster.ts";
import type { SimulatedClusterOptions } from "../../../src/cluster/cluster_options.ts";

const TABLE =
  "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json";

interface Table {
  kind: string;
  apiVersion: string;
  metadata: { resourceVersion?: string; continue?: string; remainingItemCount?: number };
  columnDefinitions:
    | Array<{ name: string; type: string; format: string; description: string; priority: number }>
    | null;
  rows: Array<{ cells: unknown[]; conditions?: unknown[]; object: Record<string, unknown> | null }>;
}

function setup(options: SimulatedClusterOptions = {}) {
  const clock = new ManualClock();
  const c = new SimulatedCluster({ clock, ...options });
  const get = async (path: string, accept = TABLE) => {
    const res = await c.fetch(
      new Request(`http://sim.test${path}`, { headers: { Accept: accept } }),
    );
    return { status: res.status, body: await res.json() as Table };
  };
  return { c, clock, get };
}

const at = (ms: number) => `${new Date(ms).toISOString().slice(0, 19)}Z`;

describe("SimulatedCluster server-side Tables", () => {
  test("a list of pods is a meta.k8s.io/v1 Table with kube-apiserver's pod columns", async () => {
    const { c, clock, get } = setup();
    c.create(pods, { metadata: { name: "a", namespace: "default" } });
    await clock.advance(125_000);
    const { status, body } = await get("/api/v1/namespaces/default/pods");
    assert.equal(status, 200);
    assert.equal(body.kind, "Table");
    assert.equal(body.apiVersion, "meta.k8s.io/v1");
    assert.deepEqual(body.metadata, { resourceVersion: c.resourceVersion });
    assert.deepEqual(
      body.columnDefinitions!.map((d) => [d.name, d.type, d.format, d.priority]),
      [
        ["Name", "string", "name", 0],
        ["Ready", "string", "", 0],
        ["Status", "string", "", 0],
        ["Restarts", "string", "", 0],
        ["Age", "string", "", 0],
        ["IP", "string", "", 1],
        ["Node", "string", "", 1],
        ["Nominated Node", "string", "", 1],
        ["Readiness Gates", "string", "", 1],
      ],
    );
    assert.match(
      body.columnDefinitions![0]!.description,
      /^Name must be unique within a namespace/,
    );
    assert.equal(
      body.columnDefinitions![1]!.description,
      "The aggregate readiness state of this pod for accepting traffic.",
    );
    assert.deepEqual(body.rows.map((r) => r.cells), [
      ["a", "0/0", "Pending", "0", "2m5s", "<none>", "<none>", "<none>", "<none>"],
    ]);
    // includeObject defaults to Metadata: a PartialObjectMetadata per row.
    assert.deepEqual(body.rows[0]!.object, {
      kind: "PartialObjectMetadata",
      apiVersion: "meta.k8s.io/v1",
      metadata: c.get(pods, { namespace: "default", name: "a" })!.metadata,
    });
    c.close();
  });

  test("includeObject=Object carries the whole object, None none; anything else is a 400", async () => {
    const { c, get } = setup();
    c.create(pods, { metadata: { name: "a", namespace: "default" } });
    const whole = (await get("/api/v1/pods?includeObject=Object")).body;
    assert.deepEqual(whole.rows[0]!.object, c.get(pods, { namespace: "default", name: "a" }));
    const none = (await get("/api/v1/pods?includeObject=None")).body;
    assert.equal(none.rows[0]!.object, null);
    const bad = await get("/api/v1/pods?includeObject=All");
    assert.equal(bad.status, 400);
    assert.equal(
      (bad.body as unknown as { message: string }).message,
      `Unable to convert to Table as requested: includeObject: Invalid value: "All": must be 'Metadata', 'Object', 'None', or empty`,
    );
    c.close();
  });

  test("paging metadata, v1beta1 Tables, one object's Table, and subresources answered as objects", async () => {
    const { c, get } = setup();
    for (const name of ["a", "b", "c"]) {
      c.create(pods, { metadata: { name, namespace: "default" } });
    }
    const page = (await get("/api/v1/pods?limit=2")).body;
    assert.equal(page.rows.length, 2);
    assert.equal(page.metadata.remainingItemCount, 1);
    assert.ok(page.metadata.continue);
    const beta =
      (await get("/api/v1/pods", "application/json;as=Table;v=v1beta1;g=meta.k8s.io")).body;
    assert.equal(beta.apiVersion, "meta.k8s.io/v1beta1");
    assert.equal(beta.rows[0]!.object!.apiVersion, "meta.k8s.io/v1beta1");
    const one = (await get("/api/v1/namespaces/default/pods/b")).body;
    assert.equal(one.kind, "Table");
    assert.deepEqual(one.rows.map((r) => r.cells[0]), ["b"]);
    assert.equal(
      one.metadata.resourceVersion,
      c.get(pods, { namespace: "default", name: "b" })!
        .metadata.resourceVersion,
    );
    const status = (await get("/api/v1/namespaces/default/pods/b/status"))
      .body as unknown as KubeObject;
    assert.equal(status.kind, "Pod");
    const only = await get(
      "/api/v1/namespaces/default/pods/b/status",
      "application/json;as=Table;v=v1;g=meta.k8s.io",
    );
    assert.equal(only.status, 406);
    c.close();
  });

  test("a watch sends Tables: the columns with the first event only, later ones null", async () => {
    const { c, clock } = setup({ bookmarkIntervalMs: 1_000 });
    c.create(pods, { metadata: { name: "a", namespace: "default" } });
    const res = await c.fetch(
      new Request(
        "http://sim.test/api/v1/namespaces/default/pods?watch=1&allowWatchBookmarks=true",
        {
          headers: { Accept: TABLE },
        },
      ),
    );
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = "";
    const lines = async (n: number) => {
      while (text.split("\n").length <= n) text += (await reader.read()).value ?? "";
      return text.split("\n").slice(0, n).map((l) =>
        JSON.parse(l) as { type: string; object: Table }
      );
    };
    c.create(pods, { metadata: { name: "b", namespace: "default" } });
    await clock.advance(1_000);
    const [added, second, bookmark] = await lines(3);
    assert.equal(added!.type, "ADDED");
    assert.equal(added!.object.kind, "Table");
    assert.equal(added!.object.columnDefinitions!.length, 9);
    assert.deepEqual(added!.object.rows[0]!.cells.slice(0, 3), ["a", "0/0", "Pending"]);
    assert.equal(
      added!.object.metadata.resourceVersion,
      c.get(pods, { namespace: "default", name: "a" })!.metadata.resourceVersion,
    );
    assert.equal(second!.object.columnDefinitions, null);
    assert.equal(second!.object.rows[0]!.cells[0], "b");
    assert.equal(bookmark!.type, "BOOKMARK");
    assert.equal(bookmark!.object.kind, "Table");
    assert.equal(bookmark!.object.metadata.resourceVersion, c.resourceVersion);
    assert.deepEqual(bookmark!.object.rows[0]!.object, {
      kind: "PartialObjectMetadata",
      apiVersion: "meta.k8s.io/v1",
      metadata: { resourceVersion: c.resourceVersion },
    });
    await reader.cancel();
    c.close();
  });

  test("a streaming list of Tables ends with a bookmark row carrying its metadata", async () => {
    const { c } = setup();
    c.create(pods, { metadata: { name: "a", namespace: "default" } });
    const res = await c.fetch(
      new Request(
        "http://sim.test/api/v1/pods?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&includeObject=Object",
        { headers: { Accept: TABLE } },
      ),
    );
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = "";
    while (text.split("\n").length <= 2) text += (await reader.read()).value ?? "";
    const [added, end] = text.split("\n").slice(0, 2).map((l) =>
      JSON.parse(l) as { type: string; object: Table }
    );
    assert.equal(added!.object.rows[0]!.object!.kind, "Pod");
    assert.equal(end!.type, "BOOKMARK");
    assert.deepEqual(end!.object.rows[0]!.object, {
      kind: "PartialObjectMetadata",
      apiVersion: "meta.k8s.io/v1",
      metadata: {
        resourceVersion: c.resourceVersion,
        annotations: { "k8s.io/initial-events-end": "true" },
      },
    });
    await reader.cancel();
    c.close();
  });

  test("pods that ran to the end carry a Completed row condition", async () => {
    const { c, get } = setup();
    c.create(pods, {
      metadata: { name: "ok", namespace: "default" },
      status: { phase: "Succeeded" },
    } as KubeObject);
    c.create(
      pods,
      { metadata: { name: "ko", namespace: "default" }, status: { phase: "Failed" } } as KubeObject,
    );
    const rows = (await get("/api/v1/pods")).body.rows;
    assert.deepEqual(rows.map((r) => r.conditions), [
      [{ type: "Completed", status: "True", reason: "Failed", message: "The pod failed." }],
      [{
        type: "Completed",
        status: "True",
        reason: "Succeeded",
        message: "The pod has completed successfully.",
      }],
    ]);
    c.close();
  });

  test("the printers of other built-in kinds: services, secrets, nodes, jobs, cron jobs, stateful sets, volumes, claims, events", async () => {
    const roles = defineResource({
      group: "rbac.authorization.k8s.io",
      version: "v1",
      resource: "roles",
      kind: "Role",
      namespaced: true,
    });
    const { c, clock, get } = setup({
      resources: [
        services,
        secrets,
        nodes,
        jobs,
        cronjobs,
        statefulsets,
        persistentvolumes,
        persistentvolumeclaims,
        roles,
      ],
    });
    const t0 = clock.now();
    const cells = async (path: string) => (await get(path)).body.rows.map((r) => r.cells);
    c.create(services, {
      metadata: { name: "lb", namespace: "default" },
      spec: {
        type: "LoadBalancer",
        clusterIP: "10.0.0.1",
        ports: [{ port: 80, nodePort: 30080 }, { port: 53, protocol: "UDP" }],
        selector: { app: "web", tier: "front" },
      },
      status: { loadBalancer: { ingress: [{ ip: "203.0.113.9" }] } },
    } as KubeObject);
    c.create(
      secrets,
      {
        metadata: { name: "s", namespace: "default" },
        type: "kubernetes.io/tls",
        data: { "tls.crt": "", "tls.key": "" },
      } as KubeObject,
    );
    c.create(nodes, {
      metadata: { name: "n1", labels: { "node-role.kubernetes.io/control-plane": "" } },
      spec: { unschedulable: true },
      status: {
        conditions: [{ type: "Ready", status: "True" }],
        addresses: [{ type: "InternalIP", address: "192.168.0.2" }],
        nodeInfo: { kubeletVersion: "v1.33.1", osImage: "Debian" },
      },
    } as KubeObject);
    c.create(jobs, {
      metadata: { name: "j", namespace: "default" },
      spec: {
        completions: 3,
        template: { spec: { containers: [{ name: "w", image: "busybox" }] } },
      },
      status: {
        succeeded: 3,
        startTime: at(t0),
        completionTime: at(t0 + 65_000),
        conditions: [{ type: "Complete", status: "True" }],
      },
    } as KubeObject);
    c.create(cronjobs, {
      metadata: { name: "cj", namespace: "default" },
      spec: {
        schedule: "*/5 * * * *",
        jobTemplate: { spec: { template: { spec: { containers: [] } } } },
      },
    } as KubeObject);
    c.create(
      statefulsets,
      {
        metadata: { name: "db", namespace: "default" },
        spec: {},
        status: { readyReplicas: 1 },
      } as KubeObject,
    );
    c.create(persistentvolumes, {
      metadata: { name: "pv1" },
      spec: {
        capacity: { storage: "10Gi" },
        accessModes: ["ReadWriteMany", "ReadWriteOnce"],
        persistentVolumeReclaimPolicy: "Retain",
        claimRef: { namespace: "default", name: "data" },
        storageClassName: "fast",
      },
      status: { phase: "Bound" },
    } as KubeObject);
    c.create(persistentvolumeclaims, {
      metadata: { name: "data", namespace: "default" },
      spec: { volumeName: "pv1", storageClassName: "fast" },
      status: { phase: "Bound", capacity: { storage: "10Gi" }, accessModes: ["ReadWriteOnce"] },
    } as KubeObject);
    c.create(roles, { metadata: { name: "reader", namespace: "default" } });
    c.create(coreEvents, {
      metadata: { name: "e", namespace: "default" },
      involvedObject: { kind: "Pod", name: "p", namespace: "default" },
      reason: "Pulled",
      message: " pulled \n",
      type: "Normal",
      lastTimestamp: at(t0),
      firstTimestamp: at(t0),
      count: 2,
    } as KubeObject);
    await clock.advance(10_000);
    assert.deepEqual(await cells("/api/v1/services"), [
      [
        "lb",
        "LoadBalancer",
        "10.0.0.1",
        "203.0.113.9",
        "80:30080/TCP,53/UDP",
        "10s",
        "app=web,tier=front",
      ],
    ]);
    assert.deepEqual(await cells("/api/v1/secrets"), [["s", "kubernetes.io/tls", 2, "10s"]]);
    assert.deepEqual(await cells("/api/v1/nodes"), [
      [
        "n1",
        "Ready,SchedulingDisabled",
        "control-plane",
        "10s",
        "v1.33.1",
        "192.168.0.2",
        "<none>",
        "Debian",
        "<unknown>",
        "<unknown>",
      ],
    ]);
    assert.deepEqual((await cells("/apis/batch/v1/jobs"))[0]!.slice(0, 5), [
      "j",
      "Complete",
      "3/3",
      "65s",
      "10s",
    ]);
    assert.deepEqual((await cells("/apis/batch/v1/cronjobs"))[0]!.slice(0, 7), [
      "cj",
      "*/5 * * * *",
      "<none>",
      "False",
      0,
      "<none>",
      "10s",
    ]);
    assert.deepEqual(await cells("/apis/apps/v1/statefulsets"), [["db", "1/1", "10s", "", ""]]);
    assert.deepEqual(await cells("/api/v1/persistentvolumes"), [
      [
        "pv1",
        "10Gi",
        "RWO,RWX",
        "Retain",
        "Bound",
        "default/data",
        "fast",
        "<unset>",
        "",
        "10s",
        "<unset>",
      ],
    ]);
    assert.deepEqual(await cells("/api/v1/persistentvolumeclaims"), [
      ["data", "Bound", "pv1", "10Gi", "RWO", "fast", "<unset>", "10s", "<unset>"],
    ]);
    // A built-in kind without a printer: Name and Created At (a date column).
    const role = (await get("/apis/rbac.authorization.k8s.io/v1/roles")).body;
    assert.deepEqual(role.columnDefinitions!.map((d) => [d.name, d.type]), [["Name", "string"], [
      "Created At",
      "date",
    ]]);
    assert.deepEqual(role.rows[0]!.cells, ["reader", at(t0)]);
    assert.deepEqual(await cells("/api/v1/events"), [
      ["10s", "Normal", "Pulled", "pod/p", "", "", "pulled", "10s", 2, "e"],
    ]);
    c.close();
  });
});
