// The example controller (examples/controller.ts) against the simulated cluster on a manual
// clock: churn and faults, then quiesce and check every namespace's pod-index.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import {
  type ConfigMap,
  INDEX_NAME,
  MANAGED_BY_LABEL,
  MANAGER,
  type PodIndexController,
  startPodIndexController,
} from "../../examples/controller.ts";
import { KubeClient } from "../../src/client/kube_client.ts";
import { configmaps, pods } from "../../src/client/resource.ts";
import { ManualClock } from "../../src/testing/manual_clock.ts";
import { SimulatedCluster } from "@kinformer/simulator";
import { seeded } from "../_informer_env.ts";

const WRITES = new Set(["create", "update", "patch", "delete"]);

/** What every namespace's pod-index must say, computed from the pods the cluster has. */
function expectedIndexes(cluster: SimulatedCluster): Map<string, Record<string, string>> {
  const names = new Map<string, string[]>();
  for (const pod of cluster.list(pods)) {
    const ns = pod.metadata.namespace!;
    names.set(ns, [...(names.get(ns) ?? []), pod.metadata.name!]);
  }
  const out = new Map<string, Record<string, string>>();
  for (const [ns, list] of [...names].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const sorted = [...list].sort();
    out.set(ns, { pods: sorted.join(","), count: String(sorted.length) });
  }
  return out;
}

/** The controller's ConfigMaps as the cluster has them (namespace -> data). */
function managedIndexes(cluster: SimulatedCluster): Map<string, Record<string, string>> {
  const out = new Map<string, Record<string, string>>();
  for (const cm of cluster.list(configmaps, { labelSelector: `${MANAGED_BY_LABEL}=${MANAGER}` })) {
    assert.equal(cm.metadata.name, INDEX_NAME, "the controller only makes pod-index ConfigMaps");
    out.set(cm.metadata.namespace!, (cm as ConfigMap).data ?? {});
  }
  return out;
}

function writesSeen(cluster: SimulatedCluster): number {
  return cluster.requests.filter((r) => WRITES.has(r.verb)).length;
}

function createPods(cluster: SimulatedCluster, namespace: string, names: string[]): void {
  for (const name of names) cluster.create(pods, { metadata: { namespace, name } });
}

/**
 * Advances the clock until the controller has been idle (caught up, nothing queued or
 * retrying) for `quietMs` in a row with no write reaching the cluster. Fails after `maxMs`.
 */
async function quiesce(
  clock: ManualClock,
  cluster: SimulatedCluster,
  controller: PodIndexController,
  { stepMs = 250, quietMs = 2_000, maxMs = 120_000 } = {},
): Promise<void> {
  let quietFor = 0;
  let writes = writesSeen(cluster);
  for (let waited = 0; waited <= maxMs; waited += stepMs) {
    await clock.advance(stepMs);
    const now = writesSeen(cluster);
    quietFor = controller.idle && now === writes ? quietFor + stepMs : 0;
    writes = now;
    if (quietFor >= quietMs) return;
  }
  assert.fail(
    `controller did not quiesce within ${maxMs} ms: failing=${[...controller.failing.keys()]}`,
  );
}

/** A `fetch` that can hold ConfigMap watch requests until the gate opens (a lagging cache). */
function gatedFetch(cluster: SimulatedCluster): {
  fetch: (request: Request) => Promise<Response>;
  close(): void;
  open(): void;
} {
  let waiting: Array<() => void> | undefined;
  return {
    fetch: async (request) => {
      const url = new URL(request.url);
      const held = waiting;
      if (
        held !== undefined && url.pathname.endsWith("/configmaps") && url.searchParams.has("watch")
      ) {
        await new Promise<void>((resolve, reject) => {
          const onAbort = (): void => reject(request.signal.reason);
          request.signal.addEventListener("abort", onAbort, { once: true });
          held.push(() => {
            request.signal.removeEventListener("abort", onAbort);
            resolve();
          });
        });
      }
      return cluster.fetch(request);
    },
    close() {
      waiting ??= [];
    },
    open() {
      const held = waiting ?? [];
      waiting = undefined;
      for (const release of held) release();
    },
  };
}

interface Setup {
  clock: ManualClock;
  cluster: SimulatedCluster;
  stop: AbortController;
  controller: PodIndexController;
  logs: string[];
  /** Aborts, waits for the controller, closes the cluster, and checks nothing leaked. */
  shutdown(): Promise<void>;
}

function setup(
  seed: number,
  prepare: (cluster: SimulatedCluster) => void,
  fetch?: (cluster: SimulatedCluster) => (request: Request) => Promise<Response>,
): Setup {
  const clock = new ManualClock(0);
  const cluster = new SimulatedCluster({ clock, seed, autoCreateNamespaces: true });
  prepare(cluster);
  const client = new KubeClient({
    server: "http://sim.test",
    fetch: fetch?.(cluster) ?? cluster.fetch,
  });
  const stop = new AbortController();
  const logs: string[] = [];
  const controller = startPodIndexController({
    client,
    signal: stop.signal,
    clock,
    workers: 2,
    random: seeded(seed),
    log: (line) => logs.push(line),
  });
  return {
    clock,
    cluster,
    stop,
    controller,
    logs,
    async shutdown() {
      stop.abort();
      await controller.done;
      cluster.close();
      await clock.flush();
      assert.equal(cluster.openWatches, 0, "every watch is closed");
      assert.equal(clock.pendingTimers, 0, "no timer is left behind");
    },
  };
}

describe("example pod-index controller", () => {
  test("keeps one pod-index per namespace listing exactly its pods through churn and faults", async () => {
    const env = setup(7, (cluster) => {
      createPods(cluster, "alpha", ["a-3", "a-1", "a-2"]);
      createPods(cluster, "beta", ["b-1", "b-2"]);
      createPods(cluster, "gamma", ["g-1"]);
      // A leftover index of ours in a namespace with no pods: it must go.
      cluster.create(configmaps, {
        metadata: { namespace: "delta", name: INDEX_NAME, labels: { [MANAGED_BY_LABEL]: MANAGER } },
        data: { pods: "gone-1", count: "1" },
      });
    });
    const { clock, cluster, controller } = env;
    try {
      await quiesce(clock, cluster, controller);
      assert.deepEqual(
        managedIndexes(cluster),
        new Map([
          ["alpha", { pods: "a-1,a-2,a-3", count: "3" }],
          ["beta", { pods: "b-1,b-2", count: "2" }],
          ["gamma", { pods: "g-1", count: "1" }],
        ]),
      );
      assert.equal(controller.stats.created, 3);
      assert.equal(controller.stats.deleted, 1);

      // Churn pods in four namespaces (one new) while faults hit lists, watches and writes.
      const churnOptions = {
        resource: pods,
        namespaces: ["alpha", "beta", "gamma", "epsilon"],
        mix: { create: 3, update: 1, delete: 2, recreate: 1, labelFlip: 1 },
      };
      const churned = { steps: 0, create: 0, update: 0, delete: 0, recreate: 0, labelFlip: 0 };
      const faults = cluster.faults;
      const timeline = new Map<number, () => void>([
        [500, () => faults.chunkBodies({ maxChunkBytes: 64 })],
        [1_000, () => {
          faults.failNext(2, { verb: "update", status: 500 });
          faults.failNext(1, { verb: "create", status: 500 });
          faults.failNext(1, { verb: "delete", status: 503, retryAfterSeconds: 0 });
        }],
        [1_500, () => faults.dropWatches()],
        [2_500, () => {
          faults.compact(); // re-watching from an older resourceVersion now gets 410 Gone
          faults.dropWatches();
        }],
        [3_000, () => {
          // Empty one namespace completely: its index must be deleted.
          for (const pod of cluster.list(pods, { namespace: "beta" })) {
            cluster.delete(pods, { namespace: "beta", name: pod.metadata.name! });
          }
        }],
        [3_500, () => faults.dropWatches()],
      ]);
      for (let at = 0; at < 5_000; at += 100) {
        timeline.get(at)?.();
        // 4 changes per 100 ms of cluster time: 40 per second.
        const stats = cluster.churn(at === 3_000 ? 0 : 4, churnOptions);
        for (const k of Object.keys(churned) as (keyof typeof churned)[]) churned[k] += stats[k];
        await clock.advance(100);
      }
      faults.reset();
      assert.equal(churned.steps, 196);
      assert.ok(churned.create > 0 && churned.delete > 0);
      assert.ok(churned.recreate > 0 && churned.labelFlip > 0 && churned.update > 0);

      await quiesce(clock, cluster, controller);

      // Every namespace with pods has exactly one index listing exactly its pods; namespaces
      // without pods (delta, and any the churn emptied) have none.
      assert.deepEqual(managedIndexes(cluster), expectedIndexes(cluster));
      assert.equal(controller.failing.size, 0, "no conflict or failed write is left unresolved");
      assert.ok(controller.idle);

      // The faults really happened and were recovered from.
      const stats = controller.stats;
      assert.ok(stats.failures > 0, "injected write failures were retried");
      assert.ok((stats.informerErrors.network ?? 0) > 0, "dropped watches were reconnected");
      assert.ok((stats.informerErrors.expired ?? 0) > 0, "410 Gone led to a relist");
      assert.ok(stats.created > 3 && stats.updated > 0 && stats.deleted > 1);

      // Quiet means quiet: time passing brings no more writes and no change.
      const writes = writesSeen(cluster);
      await clock.advance(30_000);
      assert.equal(writesSeen(cluster), writes);
      assert.deepEqual(managedIndexes(cluster), expectedIndexes(cluster));
    } finally {
      await env.shutdown();
    }
  });

  test("retries a write that conflicts with a stale cache until the cache catches up", async () => {
    let gate!: ReturnType<typeof gatedFetch>;
    const env = setup(
      11,
      (cluster) => createPods(cluster, "alpha", ["a-1", "a-2"]),
      (cluster) => (gate = gatedFetch(cluster)).fetch,
    );
    const { clock, cluster, controller } = env;
    try {
      await quiesce(clock, cluster, controller);
      assert.equal(controller.stats.conflicts, 0);

      // The ConfigMap watch lags: it is dropped and cannot reconnect yet.
      gate.close();
      cluster.faults.dropWatches();
      await clock.advance(5_000);
      // Someone edits the index behind the controller's back, then a pod appears: the
      // controller's cached copy is stale, so its replace must be refused.
      const cm = cluster.get(configmaps, { namespace: "alpha", name: INDEX_NAME })!;
      cluster.update(configmaps, { ...cm, data: { pods: "hand-edited", count: "0" } });
      cluster.create(pods, { metadata: { namespace: "alpha", name: "a-3" } });
      await clock.advance(2_000);

      assert.ok(controller.stats.conflicts >= 2, `conflicts: ${controller.stats.conflicts}`);
      assert.ok(controller.failing.has("alpha"), "alpha waits for a retry");
      assert.ok(!controller.idle);
      assert.deepEqual(
        (cluster.get(configmaps, { namespace: "alpha", name: INDEX_NAME }) as ConfigMap).data,
        { pods: "hand-edited", count: "0" },
        "a stale write never overwrote the newer version",
      );
      assert.ok(env.logs.some((line) => line.startsWith("conflict on alpha/pod-index")));

      gate.open(); // the cache catches up; the next retry succeeds
      await quiesce(clock, cluster, controller);
      assert.deepEqual(
        managedIndexes(cluster),
        new Map([["alpha", { pods: "a-1,a-2,a-3", count: "3" }]]),
      );
      assert.equal(controller.failing.size, 0);
    } finally {
      gate.open();
      await env.shutdown();
    }
  });

  test("never touches a pod-index ConfigMap it does not own", async () => {
    const env = setup(3, (cluster) => {
      createPods(cluster, "legacy", ["old-app"]);
      cluster.create(configmaps, {
        metadata: { namespace: "legacy", name: INDEX_NAME },
        data: { note: "hand-made" },
      });
      cluster.create(configmaps, {
        metadata: { namespace: "empty", name: INDEX_NAME, labels: { team: "x" } },
        data: { note: "hand-made" },
      });
      createPods(cluster, "shop", ["web-1"]);
    });
    const { clock, cluster, controller } = env;
    try {
      const before = cluster.list(configmaps);
      await quiesce(clock, cluster, controller);
      // Unmanaged ones are byte-for-byte unchanged; shop got an index of ours.
      const after = cluster.list(configmaps);
      for (const cm of before) {
        assert.deepEqual(after.find((c) => c.metadata.uid === cm.metadata.uid), cm);
      }
      assert.deepEqual(managedIndexes(cluster), new Map([["shop", { pods: "web-1", count: "1" }]]));
      assert.ok(controller.stats.skippedForeign >= 2);
      assert.equal(controller.failing.size, 0, "a foreign ConfigMap is not an error to retry");
      assert.ok(
        !cluster.requests.some((r) => WRITES.has(r.verb) && r.namespace !== "shop"),
        "no write outside shop",
      );

      // Once the owner removes theirs, the controller takes over the name.
      cluster.delete(configmaps, { namespace: "legacy", name: INDEX_NAME });
      await quiesce(clock, cluster, controller);
      assert.deepEqual(managedIndexes(cluster).get("legacy"), { pods: "old-app", count: "1" });
    } finally {
      await env.shutdown();
    }
  });

  test("stops cleanly when aborted while writes fail and a watch hangs", async () => {
    let gate!: ReturnType<typeof gatedFetch>;
    const env = setup(
      5,
      (cluster) => createPods(cluster, "alpha", ["a-1"]),
      (cluster) => (gate = gatedFetch(cluster)).fetch,
    );
    const { clock, cluster, controller } = env;
    await quiesce(clock, cluster, controller);
    gate.close();
    cluster.faults.dropWatches();
    cluster.faults.failNext(1_000, { verb: "update" });
    await clock.advance(3_000);
    cluster.create(pods, { metadata: { namespace: "alpha", name: "a-2" } });
    await clock.advance(1_000);
    assert.ok(controller.stats.failures > 0, "writes are failing and being retried");
    assert.ok(controller.failing.has("alpha"));

    let settled = false;
    const done = controller.done.then(() => {
      settled = true;
    });
    env.stop.abort();
    await clock.flush();
    await done;
    assert.ok(settled, "done resolves without the clock moving");
    await env.shutdown(); // also checks: no open watch, no pending timer
  });

  test("rejects bad options up front", () => {
    const cluster = new SimulatedCluster();
    const client = new KubeClient({ server: "http://sim.test", fetch: cluster.fetch });
    const signal = new AbortController().signal;
    assert.throws(
      () => startPodIndexController({ client, signal, workers: 0 }),
      /options\.workers must be a positive integer, got 0/,
    );
    assert.throws(
      () => startPodIndexController({ client: {} as KubeClient, signal }),
      /options\.client must be a KubeClient/,
    );
    cluster.close();
  });
});
