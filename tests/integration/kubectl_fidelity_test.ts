// kubectl against the simulated cluster: real client-go code paths (discovery fallback, paging,
// list-then-watch) must see exactly what the simulator holds and does.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { configmaps, deployments, pods } from "../../src/client/resource.ts";
import type { KubeObject } from "../../src/client/types.ts";
import type { SimulatedCluster } from "@kinformer/simulator";
import { defineResource } from "../../src/client/define_resource.ts";
import { deploymentFixture } from "../../src/testing/fixtures.ts";
import { widgets } from "@kinformer/simulator";
import { kubectlVersion, setupKubectl, splitJsonDocuments } from "./_kubectl.ts";
import type { SimulatedClusterOptions } from "@kinformer/simulator";

/** These tests are about reads: objects go into any namespace (NamespaceAutoProvision). */
const setup = (options: SimulatedClusterOptions = {}) =>
  setupKubectl({ autoCreateNamespaces: true, ...options });

const version = await kubectlVersion();
const available = version !== undefined;
console.log(
  `kubectl_fidelity_test: ${available ? `kubectl ${version}` : "skipped, no kubectl"}`,
);

describe(
  "kubectl against the simulated cluster",
  { skip: !available && "kubectl not found" },
  () => {
    test("extra resources (option resources) are discovered and served to kubectl", async () => {
      const services = defineResource({
        version: "v1",
        resource: "services",
        kind: "Service",
        namespaced: true,
      });
      const gadgets = defineResource({
        group: "example.org",
        version: "v1alpha1",
        resource: "gadgets",
        kind: "Gadget",
        namespaced: false,
      });
      const { c, kubectl, close } = await setup({
        resources: [services, { resource: gadgets, shortNames: ["gd"] }],
      });
      try {
        c.create(services, { metadata: { name: "web", namespace: "default" } });
        c.create(gadgets, { metadata: { name: "g1" }, spec: { size: 1 } });
        const svc = JSON.parse((await kubectl(["get", "services", "-o", "json"])).stdout) as {
          items: KubeObject[];
        };
        assert.deepEqual(svc.items.map((s) => s.metadata.name), ["web"]);
        // A short name, and a cluster-scoped custom resource (no namespace in the path).
        const gd = JSON.parse((await kubectl(["get", "gd", "-o", "json"])).stdout) as {
          items: KubeObject[];
        };
        assert.deepEqual(gd.items, c.list(gadgets));
        assert.ok(c.requests.some((r) => r.path === "/apis/example.org/v1alpha1/gadgets"));
        const resources = (await kubectl(["api-resources", "--api-group=example.org"])).stdout;
        assert.match(resources, /gadgets\s+gd\s+example\.org\/v1alpha1\s+false\s+Gadget/);
      } finally {
        await close();
      }
    });

    function seedPods(c: SimulatedCluster): void {
      c.seed(pods, 12);
      for (let i = 0; i < 5; i++) {
        c.create(pods, {
          metadata: { name: `x-${i}`, namespace: `team-${i % 2}`, labels: { app: "x" } },
        });
      }
    }

    test("get pods --server-print=false -o json, -o name and the default table all work", async () => {
      const { c, kubectl, close } = await setup();
      try {
        seedPods(c);
        const plain = JSON.parse(
          (await kubectl(["get", "pods", "-A", "--server-print=false", "-o", "json"])).stdout,
        ) as { items: KubeObject[] };
        assert.equal(plain.items.length, c.list(pods).length);
        const names = (await kubectl(["get", "pods", "-n", "team-0", "-o", "name"])).stdout
          .trim().split("\n").sort();
        assert.deepEqual(
          names,
          c.list(pods, { namespace: "team-0" }).map((p) => `pod/${p.metadata.name}`).sort(),
        );
        // The default asks for a server-side Table (kubectl_tables_test.ts checks its columns).
        const table = (await kubectl(["get", "pods", "-n", "team-1"])).stdout;
        assert.match(table, /^NAME\s/);
        assert.match(table, /x-1/);
      } finally {
        await close();
      }
    });

    test("get pods -A -o json, -l app=x and --chunk-size=7 print exactly the simulator's pods", async () => {
      const { c, kubectl, close } = await setup();
      try {
        seedPods(c);
        const all = JSON.parse(
          (await kubectl(["get", "pods", "-A", "-o", "json", "--show-managed-fields"])).stdout,
        ) as { items: KubeObject[] };
        assert.deepEqual(all.items, c.list(pods));

        const selected = JSON.parse(
          (await kubectl(["get", "pods", "-A", "-l", "app=x", "-o", "json"])).stdout,
        ) as {
          items: KubeObject[];
        };
        assert.equal(selected.items.length, 5);
        assert.deepEqual(selected.items, c.list(pods, { labelSelector: "app=x" }));
        assert.ok(c.requests.some((r) => r.verb === "list" && r.query.labelSelector === "app=x"));

        c.clearRequests();
        const paged = JSON.parse(
          (await kubectl([
            "get",
            "pods",
            "-A",
            "--chunk-size=7",
            "-o",
            "json",
            "--show-managed-fields",
          ])).stdout,
        ) as {
          items: KubeObject[];
        };
        assert.deepEqual(paged.items, c.list(pods));
        const lists = c.requests.filter((r) => r.verb === "list" && r.resource === "pods");
        assert.equal(lists.length, 3, "17 pods in pages of 7");
        assert.ok(lists.every((r) => r.query.limit === "7"));
        assert.equal(lists[0]!.query.continue, undefined);
        assert.ok(lists[1]!.query.continue && lists[2]!.query.continue);

        c.create(widgets, { metadata: { name: "w1", namespace: "default" }, spec: { size: 3 } });
        const ws = JSON.parse((await kubectl(["get", "widgets", "-A", "-o", "json"])).stdout) as {
          items: KubeObject[];
        };
        assert.deepEqual(ws.items, c.list(widgets));
      } finally {
        await close();
      }
    });

    test("apply --server-side creates, merges, reports conflicts, forces and dry-runs like a real server", async () => {
      const { c, start, kubectl, file, close } = await setup();
      try {
        const manifest = (mode: string) =>
          [
            "apiVersion: v1",
            "kind: ConfigMap",
            "metadata:",
            "  name: settings",
            "  labels:",
            "    app: web",
            "data:",
            `  mode: ${mode}`,
            "",
          ].join("\n");
        const created = await kubectl([
          "apply",
          "--server-side",
          "-f",
          await file("fast.yaml", manifest("fast")),
        ]);
        assert.match(created.stdout, /configmap\/settings serverside-applied/);
        const stored = c.get(configmaps, { namespace: "default", name: "settings" })!;
        assert.deepEqual(stored.data, { mode: "fast" });
        assert.deepEqual(
          stored.metadata.managedFields?.map((e) => [e.manager, e.operation, e.fieldsV1]),
          [["kubectl", "Apply", {
            "f:data": { "f:mode": {} },
            "f:metadata": { "f:labels": { "f:app": {} } },
          }]],
        );
        assert.ok(
          c.requests.some((r) =>
            r.method === "PATCH" && r.query.fieldManager === "kubectl" && r.name === "settings"
          ),
        );

        // Another manager wants another value: the conflict kubectl prints is the server's.
        const safe = await file("safe.yaml", manifest("safe"));
        const refused = await start([
          "apply",
          "--server-side",
          "--field-manager",
          "other",
          "-f",
          safe,
        ]).done;
        assert.notEqual(refused.code, 0);
        assert.match(
          refused.stderr,
          /Apply failed with 1 conflict: conflict with "kubectl": \.data\.mode/,
        );
        assert.deepEqual(c.get(configmaps, { namespace: "default", name: "settings" })!.data, {
          mode: "fast",
        });

        // A server-side dry run changes nothing; --force-conflicts takes the field over.
        const rv = c.resourceVersion;
        await kubectl([
          "apply",
          "--server-side",
          "--field-manager",
          "other",
          "--force-conflicts",
          "--dry-run=server",
          "-f",
          safe,
        ]);
        assert.equal(c.resourceVersion, rv);
        await kubectl([
          "apply",
          "--server-side",
          "--field-manager",
          "other",
          "--force-conflicts",
          "-f",
          safe,
        ]);
        const taken = c.get(configmaps, { namespace: "default", name: "settings" })!;
        assert.deepEqual(taken.data, { mode: "safe" });
        assert.deepEqual(
          taken.metadata.managedFields?.map((e) => [e.manager, e.fieldsV1]),
          [
            ["kubectl", { "f:metadata": { "f:labels": { "f:app": {} } } }],
            ["other", {
              "f:data": { "f:mode": {} },
              "f:metadata": { "f:labels": { "f:app": {} } },
            }],
          ],
        );

        // kubectl scale goes through the scale subresource.
        c.create(deployments, deploymentFixture(1, { name: "web", namespace: "default" }));
        await kubectl(["scale", "deployment", "web", "--replicas=4"]);
        const web = c.get(deployments, { namespace: "default", name: "web" })!;
        assert.equal((web.spec as { replicas: number }).replicas, 4);
        assert.ok(c.requests.some((r) => r.path.endsWith("/deployments/web/scale")));
      } finally {
        await close();
      }
    });

    test("get pods --watch --output-watch-events -o json prints the simulator's events", async () => {
      const { c, clock, start, close } = await setup();
      try {
        c.create(pods, { metadata: { name: "a", namespace: "default", labels: { app: "x" } } });
        c.create(pods, { metadata: { name: "other", namespace: "elsewhere" } });
        const proc = start([
          "get",
          "pods",
          "-n",
          "default",
          "--watch",
          "--output-watch-events",
          "-o",
          "json",
        ]);
        for (let i = 0; i < 2000 && c.openWatches === 0; i++) await clock.flush(1);
        assert.equal(c.openWatches, 1, "kubectl opened a watch");
        const watchRequest = c.requests.find((r) => r.verb === "watch")!;
        assert.equal(watchRequest.namespace, "default");

        c.create(pods, { metadata: { name: "b", namespace: "default" } });
        c.patch(pods, { namespace: "default", name: "a" }, { metadata: { labels: { app: "y" } } });
        c.delete(pods, { namespace: "default", name: "b" });
        c.create(pods, { metadata: { name: "ignored", namespace: "elsewhere" } });
        const expected = 4;
        for (let i = 0; i < 4000 && splitJsonDocuments(proc.stdout()).length < expected; i++) {
          await clock.flush(1);
        }
        const run = await proc.kill();
        const events = splitJsonDocuments(run.stdout) as Array<
          { type: string; object: KubeObject }
        >;
        assert.deepEqual(
          events.map((e) => `${e.type} ${e.object.metadata.name}`),
          ["ADDED a", "ADDED b", "MODIFIED a", "DELETED b"],
          run.stderr,
        );
        assert.deepEqual(events[2]!.object, c.get(pods, { namespace: "default", name: "a" }));
        assert.equal(
          events[3]!.object.metadata.resourceVersion,
          String(Number(c.resourceVersion) - 1),
        );
      } finally {
        await close();
      }
    });
  },
);
