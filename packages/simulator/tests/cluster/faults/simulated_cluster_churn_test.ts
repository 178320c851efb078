import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { configmaps, namespaces, pods } from "../../../../../src/client/resource.ts";
import type { KubeList, KubeObject } from "../../../../../src/client/types.ts";
import { ManualClock } from "../../../../../src/testing/manual_clock.ts";
import { SimulatedCluster } from "../../../src/cluster/simulated_cluster.ts";
import { LineReader, type TestWatchEvent } from "../../../../../tests/_serve.ts";

function setup(seed = 11): { c: SimulatedCluster; clock: ManualClock } {
  const clock = new ManualClock();
  return { clock, c: new SimulatedCluster({ clock, seed }) };
}

/** Applies watch events to a map of key -> object, the way a cache would. */
function replay(into: Map<string, KubeObject>, events: TestWatchEvent[]): void {
  for (const e of events) {
    const key = `${e.object.metadata.namespace}/${e.object.metadata.name}`;
    if (e.type === "DELETED") into.delete(key);
    else if (e.type === "ADDED" || e.type === "MODIFIED") into.set(key, e.object as KubeObject);
  }
}

async function readUntilRv(r: LineReader, rv: string): Promise<TestWatchEvent[]> {
  const out: TestWatchEvent[] = [];
  while (out.length === 0 || out[out.length - 1]!.object.metadata.resourceVersion !== rv) {
    const e = await r.event();
    if (e === undefined) throw new Error("watch ended early");
    out.push(e);
  }
  return out;
}

describe("SimulatedCluster churn", () => {
  test("churn(n) is deterministic for a seed", () => {
    const run = (): { stats: unknown; state: string } => {
      const { c } = setup(5);
      c.seed(configmaps, 10);
      const stats = c.churn(200, { resource: configmaps, namespaces: ["ns-0", "ns-1"] });
      const state = JSON.stringify(c.list(configmaps));
      c.close();
      return { stats, state };
    };
    assert.deepEqual(run(), run());
  });

  test("churn runs every kind of operation according to the mix", () => {
    const { c } = setup();
    const stats = c.churn(500, { resource: pods, namespaces: ["a", "b"] });
    assert.equal(stats.steps, 500);
    for (const op of ["create", "update", "delete", "recreate", "labelFlip"] as const) {
      assert.ok(stats[op] > 0, `${op} ran`);
    }
    const onlyCreates = c.churn(20, {
      resource: pods,
      mix: { create: 1, update: 0, delete: 0, recreate: 0, labelFlip: 0 },
    });
    assert.equal(onlyCreates.create, 20);
    c.close();
  });

  test("replaying a watch from the list RV reproduces the list, with and without a selector", async () => {
    const { c } = setup();
    c.churn(50, { resource: configmaps, namespaces: ["a", "b"] });
    for (const selector of ["", "selected%3Dtrue"]) {
      const listRes = await c.fetch(
        new Request(`http://sim/api/v1/configmaps?labelSelector=${selector}`),
      );
      const list = await listRes.json() as KubeList;
      const cache = new Map<string, KubeObject>();
      replay(
        cache,
        list.items.map((o) => ({ type: "ADDED", object: o as TestWatchEvent["object"] })),
      );
      const w = await c.fetch(
        new Request(
          `http://sim/api/v1/configmaps?watch=1&resourceVersion=${list.metadata.resourceVersion}&labelSelector=${selector}`,
        ),
      );
      const r = new LineReader(w.body!);
      c.churn(300, { resource: configmaps, namespaces: ["a", "b"] });
      // Make sure something is sent at the end, then read up to it.
      c.create(configmaps, {
        metadata: {
          name: `marker${selector.length}`,
          namespace: "a",
          labels: { selected: "true" },
        },
      });
      replay(cache, await readUntilRv(r, c.resourceVersion));
      await r.cancel();
      const expected = c.list(configmaps, { labelSelector: decodeURIComponent(selector) });
      assert.deepEqual(
        [...cache.keys()].sort(),
        expected.map((o) => `${o.metadata.namespace}/${o.metadata.name}`),
      );
      for (const o of expected) {
        const got = cache.get(`${o.metadata.namespace}/${o.metadata.name}`)!;
        assert.equal(got.metadata.resourceVersion, o.metadata.resourceVersion);
        assert.equal(got.metadata.uid, o.metadata.uid);
      }
    }
    c.close();
  });

  test("recreate deletes and creates the same name with a new uid", async () => {
    const { c } = setup();
    c.create(configmaps, { metadata: { name: "x", namespace: "default" } });
    const before = c.get(configmaps, { namespace: "default", name: "x" })!;
    const w = await c.fetch(
      new Request(`http://sim/api/v1/configmaps?watch=1&resourceVersion=${c.resourceVersion}`),
    );
    const r = new LineReader(w.body!);
    c.churn(1, {
      resource: configmaps,
      mix: { create: 0, update: 0, delete: 0, recreate: 1, labelFlip: 0 },
    });
    const [deleted, added] = await r.events(2);
    assert.equal(deleted!.type, "DELETED");
    assert.equal(added!.type, "ADDED");
    assert.equal(added!.object.metadata.name, "x");
    assert.notEqual(added!.object.metadata.uid, before.metadata.uid);
    await r.cancel();
    c.close();
  });

  test("startChurn runs ratePerSecond operations per second of the clock until stopped", async () => {
    const { c, clock } = setup();
    const churn = c.startChurn({ resource: configmaps, ratePerSecond: 50, namespaces: ["a"] });
    await clock.advance(1_000);
    assert.equal(churn.stats.steps, 50);
    await clock.advance(500);
    assert.equal(churn.stats.steps, 75);
    churn.stop();
    assert.equal(churn.running, false);
    assert.equal(clock.pendingTimers, 0);
    await clock.advance(1_000);
    assert.equal(churn.stats.steps, 75);
    c.close();
  });

  test("startChurn stops on its signal and on close()", async () => {
    const { c, clock } = setup();
    const ac = new AbortController();
    const a = c.startChurn({ resource: namespaces, ratePerSecond: 10, signal: ac.signal });
    const b = c.startChurn({ resource: pods, ratePerSecond: 1_000 });
    await clock.advance(100);
    assert.equal(a.stats.steps, 1);
    assert.equal(b.stats.steps, 100);
    ac.abort();
    assert.equal(a.running, false);
    c.close();
    assert.equal(b.running, false);
    assert.equal(clock.pendingTimers, 0);
  });

  test("churn options are validated", () => {
    const { c } = setup();
    assert.throws(() => c.startChurn({ resource: pods, ratePerSecond: 0 }), RangeError);
    assert.throws(() => c.churn(1, { resource: pods, mix: { create: -1 } }), RangeError);
    assert.throws(
      () =>
        c.churn(1, {
          resource: pods,
          mix: { create: 0, update: 0, delete: 0, recreate: 0, labelFlip: 0 },
        }),
      RangeError,
    );
    assert.throws(() => c.churn(1, { resource: pods, namespaces: [] }), TypeError);
    c.close();
  });
});
