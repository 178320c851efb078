// The Cloudflare Worker examples, bundled with esbuild and run in workerd against a simulated
// cluster served over loopback by the test process.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { configmaps } from "../../src/client/resource.ts";
import type { KubeObject } from "../../src/client/types.ts";
import type { SimulatedCluster, SimulatedClusterOptions } from "@kinformer/simulator";
import type { WatchReport } from "../../examples/worker/worker.ts";
import type { CatchUpReport } from "../../examples/worker/checkpoint_worker.ts";
import { runtime, serveCluster } from "../_serve.ts";
import { bin, bundle, eventually, missingBinary, withTempDir } from "../_runtime_process.ts";
import {
  MEMORY_KV_MODULE,
  startWorkerd,
  type Workerd,
  workerdConfig,
} from "../_runtime_workerd.ts";

const skip = missingBinary(bin("workerd"), "workerd");
if (skip !== undefined) console.log(`workerd_test: skipped: ${skip}`);

function configMap(namespace: string, name: string): KubeObject {
  return { metadata: { namespace, name }, data: { v: "1" } };
}

async function postJson<T>(url: string, init?: RequestInit): Promise<T> {
  const response = await fetch(url, init);
  const text = await response.text();
  assert.equal(response.status, 200, `${url} answered ${response.status}: ${text}`);
  return JSON.parse(text) as T;
}

/** Requests the cluster saw as compact strings, e.g. `list limit=1`. */
function seen(cluster: SimulatedCluster): string[] {
  return cluster.requests.map((r) => {
    const q = r.query;
    switch (r.verb) {
      case "list":
        return `list${q.limit ? ` limit=${q.limit}` : ""}`;
      case "watch":
        return `watch from ${q.resourceVersion}`;
      default:
        return r.verb;
    }
  });
}

/** Bundles the checkpoint Worker with an in-memory KV namespace and starts it in workerd. */
async function startCheckpointWorker(dir: string, server: string): Promise<Workerd> {
  await bundle(
    "examples/worker/checkpoint_worker.ts",
    join(dir, "checkpoint_worker.js"),
    "neutral",
  );
  await writeFile(join(dir, "kv.js"), MEMORY_KV_MODULE);
  return await startWorkerd(
    dir,
    workerdConfig([
      {
        name: "main",
        module: "checkpoint_worker.js",
        bindings: [
          { name: "KUBE_SERVER", text: server },
          { name: "KUBE_NAMESPACE", text: "default" },
          { name: "CHECKPOINTS", kvNamespace: "kv" },
          { name: "CATCH_UP_TIMEOUT_MS", text: "10000" },
        ],
      },
      { name: "kv", module: "kv.js" },
    ]),
  );
}

/** `POST /run` on the checkpoint Worker. */
function runCatchUp(workerd: Workerd, query = ""): Promise<CatchUpReport> {
  return postJson(`${workerd.url}/run${query}`, { method: "POST" });
}

/**
 * Runs `body` against the checkpoint Worker in workerd, started against a served simulated
 * cluster (made with `setup.cluster`) that already holds the ConfigMaps `setup.configMaps` in
 * namespace default; stops both afterwards.
 */
async function withCheckpointWorker(
  setup: { tempDir: string; cluster: SimulatedClusterOptions; configMaps: string[] },
  body: (cluster: SimulatedCluster, workerd: Workerd) => Promise<void>,
): Promise<void> {
  await withTempDir(setup.tempDir, async (dir) => {
    const sim = await serveCluster(setup.cluster);
    let workerd: Workerd | undefined;
    try {
      for (const name of setup.configMaps) {
        sim.cluster.create(configmaps, configMap("default", name));
      }
      workerd = await startCheckpointWorker(dir, sim.server.url);
      await body(sim.cluster, workerd);
    } finally {
      await workerd?.close();
      await sim.close();
    }
  });
}

describe(`Cloudflare Workers in workerd (test process: ${runtime})`, () => {
  test("a Worker's informer lists, syncs and receives the live events of its own writes", {
    skip,
    timeout: 20_000,
  }, async () => {
    await withTempDir("workerd", async (dir) => {
      const sim = await serveCluster({ autoCreateNamespaces: true });
      let workerd: Workerd | undefined;
      try {
        const { cluster, server } = sim;
        for (const name of ["a", "b", "c"]) cluster.create(configmaps, configMap("default", name));
        cluster.create(configmaps, configMap("other", "elsewhere"));
        const listedAt = cluster.resourceVersion;
        await bundle("examples/worker/worker.ts", join(dir, "worker.js"), "neutral");
        workerd = await startWorkerd(
          dir,
          workerdConfig([{
            name: "main",
            module: "worker.js",
            bindings: [{ name: "KUBE_SERVER", text: server.url }],
          }]),
        );

        const report = await postJson<WatchReport>(
          `${workerd.url}/?namespace=default&create=3&events=3&timeoutMs=15000`,
        );
        assert.deepEqual(report.errors, [], workerd.child.output);
        assert.equal(report.synced, true);
        assert.deepEqual(report.initial, ["default/a", "default/b", "default/c"]);
        assert.equal(report.created.length, 3);
        assert.deepEqual(report.live, report.created.map((name) => `add default/${name}`));
        assert.equal(report.complete, true);
        assert.equal(report.lists, 1);
        assert.equal(report.watchEvents, 3);
        const listRv = cluster.requests.find((r) => r.verb === "list")?.query;
        assert.deepEqual(listRv, { limit: "500", resourceVersion: "0" });
        // One LIST, then the watch from its version (opened while the Worker writes, so the
        // creates may come before or after it: they are newer than the list either way).
        const requests = seen(cluster);
        assert.equal(requests[0], "list limit=500");
        assert.deepEqual([...requests].sort(), [
          "create",
          "create",
          "create",
          "list limit=500",
          `watch from ${listedAt}`,
        ]);
        assert.ok(
          cluster.requests.every((r) => r.namespace === "default"),
          "every request was scoped to the namespace",
        );
        // The Worker stopped its informer before answering: its watch gets closed.
        await eventually(() => cluster.openWatches === 0, "the Worker's watch is closed");
      } finally {
        await workerd?.close();
        await sim.close();
      }
    });
  });

  test("the cron checkpoint Worker resumes from KV: no LIST, only the changes since its last run", {
    skip,
    timeout: 20_000,
  }, async () => {
    // The newest resource version can belong to another namespace (as on a real cluster,
    // where it is global): then only a BOOKMARK tells the watch it is current. Real API
    // servers send one about every minute; here every 200 ms.
    await withCheckpointWorker(
      {
        tempDir: "workerd-cp",
        cluster: { bookmarkIntervalMs: 200, autoCreateNamespaces: true },
        configMaps: ["a", "b", "c"],
      },
      async (cluster, workerd) => {
        // First run: nothing stored yet, so it lists (and learns the current version).
        const first = await runCatchUp(workerd);
        assert.deepEqual(first.errors, []);
        assert.equal(first.resumed, false);
        assert.deepEqual(first.events, ["add default/a", "add default/b", "add default/c"]);
        assert.equal(first.complete, true);
        assert.equal(first.toResourceVersion, cluster.resourceVersion);
        assert.equal(first.objects, 3);
        assert.deepEqual(
          await postJson(`${workerd.url}/checkpoint`),
          { resourceVersion: cluster.resourceVersion, objects: 3 },
        );

        // Changes between runs.
        cluster.clearRequests();
        cluster.create(configmaps, configMap("default", "d"));
        cluster.patch(configmaps, { namespace: "default", name: "b" }, { data: { v: "2" } });
        cluster.delete(configmaps, { namespace: "default", name: "a" });
        cluster.create(configmaps, configMap("other", "not-followed"));

        // Second run: resumes from the checkpoint; only the changes, and no full LIST.
        const second = await runCatchUp(workerd);
        assert.deepEqual(second.errors, []);
        assert.equal(second.resumed, true);
        assert.equal(second.fromResourceVersion, first.toResourceVersion);
        assert.deepEqual(second.events, ["add default/d", "update default/b", "delete default/a"]);
        assert.equal(second.complete, true);
        assert.equal(second.lists, 0);
        assert.equal(second.objects, 3);
        assert.deepEqual(
          seen(cluster).filter((s) => s.startsWith("list")),
          ["list limit=1"],
          "the only list is the limit=1 one that learns the current resource version",
        );
        assert.ok(seen(cluster).includes(`watch from ${first.toResourceVersion}`));

        // Third run, nothing changed in the namespace: nothing to process.
        cluster.clearRequests();
        const third = await runCatchUp(workerd);
        assert.equal(third.resumed, true);
        assert.deepEqual(third.events, []);
        assert.equal(third.complete, true);
        assert.equal(third.lists, 0);
        await eventually(() => cluster.openWatches === 0, "the Worker's watches are closed");
      },
    );
  });

  test("the cron checkpoint Worker relists after 410 Gone and reports only the difference", {
    skip,
    timeout: 20_000,
  }, async () => {
    await withCheckpointWorker(
      {
        tempDir: "workerd-410",
        cluster: { historyLimit: 3, bookmarkIntervalMs: 200 },
        configMaps: ["a", "b"],
      },
      async (cluster, workerd) => {
        const first = await runCatchUp(workerd);
        assert.deepEqual(first.events, ["add default/a", "add default/b"]);

        // More changes than the server keeps: the saved version is gone (410 on the watch).
        cluster.delete(configmaps, { namespace: "default", name: "a" });
        for (let i = 0; i < 5; i++) {
          cluster.patch(configmaps, { namespace: "default", name: "b" }, {
            data: { v: String(i) },
          });
        }
        cluster.create(configmaps, configMap("default", "c"));

        const second = await runCatchUp(workerd);
        assert.equal(second.resumed, true);
        assert.equal(second.complete, true);
        assert.equal(second.lists, 1, "relisted once");
        assert.deepEqual(
          [...second.events].sort(),
          ["add default/c", "delete default/a (final state unknown)", "update default/b"],
        );
        assert.equal(second.objects, 2);
        assert.equal(second.toResourceVersion, cluster.resourceVersion);
      },
    );
  });
  test(
    "a catch-up run that misses its deadline keeps the old checkpoint; the next run processes those changes",
    {
      skip,
      timeout: 20_000,
    },
    async () => {
      await withCheckpointWorker(
        {
          tempDir: "workerd-deadline",
          cluster: { bookmarkIntervalMs: 200 },
          configMaps: ["a", "b"],
        },
        async (cluster, workerd) => {
          const first = await runCatchUp(workerd);
          assert.deepEqual(first.events, ["add default/a", "add default/b"]);
          assert.equal(first.complete, true);

          cluster.create(configmaps, configMap("default", "c"));
          cluster.faults.stall(); // the API server stops answering
          const late = await runCatchUp(workerd, "?timeoutMs=300");
          assert.equal(late.resumed, true);
          assert.equal(late.complete, false);
          assert.deepEqual(late.events, []);
          assert.equal(late.toResourceVersion, null);
          assert.deepEqual(
            await postJson(`${workerd.url}/checkpoint`),
            { resourceVersion: first.toResourceVersion, objects: 2 },
            "the checkpoint stays as it was",
          );

          cluster.faults.resume();
          const next = await runCatchUp(workerd);
          assert.equal(next.fromResourceVersion, first.toResourceVersion);
          assert.deepEqual(next.events, ["add default/c"]);
          assert.equal(next.complete, true);
          assert.equal(next.lists, 0);
        },
      );
    },
  );
});
