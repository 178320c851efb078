// The owner controller example (examples/owner_controller.ts) against the simulated cluster on a
// manual clock: widgets churn (spec edits, deletes, re-creates), children are tampered with and
// deleted, watches drop, history is compacted, writes fail; then it must converge.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import {
  desiredConfigMap,
  FIELD_MANAGER,
  problems,
  startWidgetController,
  type WidgetController,
} from "../../examples/owner_controller.ts";
import { KubeClient } from "../../src/client/kube_client.ts";
import { configmaps, deployments } from "../../src/client/resource.ts";
import { ManualClock } from "../../src/testing/manual_clock.ts";
import { SimulatedCluster } from "@kinformer/simulator";
import { widgets } from "@kinformer/simulator";
import { seeded } from "../_informer_env.ts";

const WRITES = new Set(["create", "update", "patch", "delete"]);

function writesSeen(cluster: SimulatedCluster): number {
  return cluster.requests.filter((r) => WRITES.has(r.verb)).length;
}

/** Advances the clock until the controller is idle and writes have stopped for `quietMs`. */
async function quiesce(
  clock: ManualClock,
  cluster: SimulatedCluster,
  controller: WidgetController,
  { stepMs = 250, quietMs = 2_000, maxMs = 180_000 } = {},
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
  assert.fail(`not quiet after ${maxMs} ms: ${problems(cluster).join("; ")}`);
}

function setup(seed: number) {
  const clock = new ManualClock();
  const cluster = new SimulatedCluster({ clock, seed, autoCreateNamespaces: true });
  for (let i = 0; i < 8; i++) {
    cluster.create(widgets, {
      metadata: { name: `w${i}`, namespace: i % 2 ? "shop" : "search" },
      spec: { size: i % 4, color: ["red", "blue", "green"][i % 3]! },
    });
  }
  const client = new KubeClient({ server: "http://sim.test", fetch: cluster.fetch });
  const stop = new AbortController();
  const controller = startWidgetController({
    client,
    signal: stop.signal,
    clock,
    random: seeded(seed),
    workers: 3,
  });
  return {
    clock,
    cluster,
    controller,
    async shutdown(): Promise<void> {
      stop.abort();
      await controller.done;
      cluster.close();
      await clock.flush();
      assert.equal(cluster.openWatches, 0, "every watch is closed");
      assert.equal(clock.pendingTimers, 0, "no timer is left behind");
    },
  };
}

describe("example owner controller", () => {
  test("creates and owns each widget's children with server-side apply and reports status", async () => {
    const { clock, cluster, controller, shutdown } = setup(3);
    try {
      await quiesce(clock, cluster, controller);
      assert.deepEqual(problems(cluster), []);
      const w = cluster.get(widgets, { namespace: "shop", name: "w1" })!;
      const cm = cluster.get(configmaps, { namespace: "shop", name: "w1-settings" })!;
      assert.deepEqual(cm.data, desiredConfigMap(w).data);
      assert.deepEqual(cm.metadata.ownerReferences?.map((r) => [r.kind, r.uid, r.controller]), [
        ["Widget", w.metadata.uid, true],
      ]);
      // Written by apply: one Apply entry of the controller's manager.
      assert.deepEqual(
        cm.metadata.managedFields?.map((e) => [e.manager, e.operation]),
        [[FIELD_MANAGER, "Apply"]],
      );
      // The status went through the status subresource.
      assert.deepEqual(w.status, {
        observedGeneration: 1,
        configMap: "w1-settings",
        replicas: 1,
        ready: true,
      });
      assert.ok(
        w.metadata.managedFields?.some((e) =>
          e.manager === FIELD_MANAGER && e.operation === "Apply" && e.subresource === "status"
        ),
      );
      assert.ok(
        cluster.requests.some((r) => r.method === "PATCH" && r.path.endsWith("/widgets/w1/status")),
      );
    } finally {
      await shutdown();
    }
  });

  test("converges under churn, tampering and faults", async () => {
    const { clock, cluster, controller, shutdown } = setup(11);
    try {
      await quiesce(clock, cluster, controller);
      const random = seeded(99);
      const pick = <T>(items: readonly T[]): T | undefined =>
        items[Math.floor(random() * items.length)];
      const faults = cluster.faults;
      const timeline = new Map<number, () => void>([
        [500, () => faults.chunkBodies({ maxChunkBytes: 64 })],
        [1_000, () => faults.failNext(3, { verb: "patch", status: 500 })],
        [1_500, () => faults.dropWatches()],
        [2_000, () => faults.failNext(1, { verb: "delete", status: 503, retryAfterSeconds: 0 })],
        [2_500, () => {
          faults.compact(); // re-watches from older versions get 410 Gone and relist
          faults.dropWatches();
        }],
        [3_500, () => faults.dropWatches()],
      ]);
      let edits = 0;
      let tampered = 0;
      for (let at = 0; at < 5_000; at += 100) {
        timeline.get(at)?.();
        // Widgets come, go, come back with a new uid, get relabelled and annotated.
        cluster.churn(2, {
          resource: widgets,
          namespaces: ["shop", "search"],
          mix: { create: 2, update: 1, delete: 1, recreate: 1, labelFlip: 1 },
        });
        // Their specs change (a new generation each time).
        const w = pick(cluster.list(widgets));
        if (w !== undefined) {
          cluster.patch(widgets, { namespace: w.metadata.namespace!, name: w.metadata.name! }, {
            spec: { size: Math.floor(random() * 5), color: pick(["red", "blue", "teal"])! },
          });
          edits++;
        }
        // Someone edits or deletes a child behind the controller's back.
        const child = pick(cluster.list(configmaps));
        if (child !== undefined && at % 300 === 0) {
          const ref = { namespace: child.metadata.namespace!, name: child.metadata.name! };
          if (random() < 0.5) cluster.patch(configmaps, ref, { data: { color: "tampered" } });
          else cluster.delete(configmaps, ref);
          tampered++;
        }
        const d = pick(cluster.list(deployments));
        if (d !== undefined && at % 700 === 0) {
          cluster.delete(deployments, { namespace: d.metadata.namespace!, name: d.metadata.name! });
          tampered++;
        }
        await clock.advance(100);
      }
      faults.reset();
      assert.ok(edits > 40 && tampered > 10, `${edits} edits, ${tampered} tamperings`);

      await quiesce(clock, cluster, controller);
      assert.deepEqual(problems(cluster), []);
      assert.equal(controller.failing.size, 0);
      assert.ok(controller.stats.failures > 0, "the injected write failures were retried");
      assert.ok(controller.stats.orphansDeleted > 0, "children of deleted widgets were removed");
      // Every child is the controller's: labelled, owned by a live widget, applied by it.
      const uids = new Set(cluster.list(widgets).map((w) => w.metadata.uid));
      for (const child of [...cluster.list(configmaps), ...cluster.list(deployments)]) {
        const owner = child.metadata.ownerReferences?.find((r) => r.controller);
        assert.ok(owner !== undefined && uids.has(owner.uid), `${child.metadata.name} owned`);
        assert.ok(
          child.metadata.managedFields?.some((e) =>
            e.manager === FIELD_MANAGER && e.operation === "Apply"
          ),
        );
      }
      assert.equal(
        cluster.list(configmaps).length,
        cluster.list(widgets).length,
        "one ConfigMap per widget, no more",
      );
    } finally {
      await shutdown();
    }
  });
});
