import { describe, test } from "node:test";
import assert from "node:assert/strict";
import process from "node:process";
import { pods } from "../../src/client/resource.ts";
import { firstDifference, MutationError } from "../../src/cache/mutation_detector.ts";
import { closed, env, pod } from "../_informer_env.ts";

describe("cache mutation detector (detectMutations)", () => {
  test("a handler that changes a cached object is reported with the key and the path", async () => {
    const e = env();
    e.cluster.create(pods, pod("a", "p1", { app: "web" }));
    const inf = e.informer({ resource: pods, detectMutations: true });
    inf.addEventHandler({
      onAdd: (o) => {
        o.metadata.labels!.app = "hacked"; // the bug: changing a shared object
      },
    });
    inf.start();
    await inf.waitForSync();
    await e.clock.advance(1_000); // the periodic check
    const found = e.errors.filter((x) => x.kind === "mutation");
    assert.equal(found.length, 1);
    const error = found[0]!.error as MutationError;
    assert.ok(error instanceof MutationError);
    assert.equal(error.key, "a/p1");
    assert.equal(error.path, "metadata.labels.app");
    await e.clock.advance(5_000);
    assert.equal(e.errors.filter((x) => x.kind === "mutation").length, 1, "reported once");
    await closed(e);
  });

  test("a mutation is caught when the cache replaces the object, before the periodic check", async () => {
    const e = env();
    e.cluster.create(pods, pod("a", "p1"));
    const inf = e.informer({ resource: pods, detectMutations: { intervalMs: 0 } });
    inf.start();
    await inf.waitForSync();
    (inf.store.get("a/p1")!.spec as { containers: { image: string }[] }).containers[0]!.image =
      "evil";
    e.cluster.update(pods, {
      ...pod("a", "p1"),
      metadata: { namespace: "a", name: "p1", labels: { v: "2" } },
    });
    await e.clock.flush();
    const error = e.errors.find((x) => x.kind === "mutation")?.error as MutationError;
    assert.equal(error?.path, "spec.containers[0].image");
    await closed(e);
  });

  test("an object made unserializable (a BigInt) is reported once; the periodic check goes on", async () => {
    const e = env();
    e.cluster.create(pods, pod("a", "p1", { app: "web" }));
    const inf = e.informer({ resource: pods, detectMutations: true });
    inf.start();
    await inf.waitForSync();
    const labels = inf.store.get("a/p1")!.metadata as { labels: Record<string, unknown> };
    labels.labels.big = 1n;
    await e.clock.advance(3_000);
    const paths = () =>
      e.errors.filter((x) => x.kind === "mutation").map((x) => (x.error as MutationError).path);
    assert.deepEqual(paths(), ["metadata.labels.big"]);
    delete labels.labels.big; // serializable again: a change from the unserializable state
    await e.clock.advance(2_000);
    assert.equal(paths().length, 2);
    await closed(e);
  });

  test("off by default: nothing is checked", async () => {
    const e = env();
    e.cluster.create(pods, pod("a", "p1", { app: "web" }));
    const inf = e.informer({ resource: pods });
    inf.start();
    await inf.waitForSync();
    inf.store.get("a/p1")!.metadata.labels!.app = "x";
    await e.clock.advance(10_000);
    assert.deepEqual(e.errors.map((x) => x.kind), []);
    await closed(e);
  });

  test("KINFORMER_DETECT_MUTATIONS=1 turns it on for a test run", async () => {
    const before = process.env.KINFORMER_DETECT_MUTATIONS;
    process.env.KINFORMER_DETECT_MUTATIONS = "1";
    try {
      const e = env();
      e.cluster.create(pods, pod("a", "p1", { app: "web" }));
      const inf = e.informer({ resource: pods });
      inf.start();
      await inf.waitForSync();
      delete inf.store.get("a/p1")!.metadata.labels!.app;
      await e.clock.advance(1_000);
      const error = e.errors.find((x) => x.kind === "mutation")?.error as MutationError;
      assert.equal(error?.path, "metadata.labels.app");
      await closed(e);
    } finally {
      if (before === undefined) delete process.env.KINFORMER_DETECT_MUTATIONS;
      else process.env.KINFORMER_DETECT_MUTATIONS = before;
    }
  });

  test("firstDifference names the first changed path", () => {
    assert.equal(firstDifference({ a: { b: 1 } }, { a: { b: 2 } }), "a.b");
    assert.equal(firstDifference({ a: [1, 2] }, { a: [1, 3] }), "a[1]");
    assert.equal(firstDifference({ a: [1] }, { a: [1, 2] }), "a[1]");
    assert.equal(firstDifference({ a: 1 }, { a: 1, b: 2 }), "b");
    assert.equal(firstDifference({ a: 1, b: 2 }, { a: 1 }), "b");
    assert.equal(
      firstDifference({ x: { y: [{ z: "p" }] } }, { x: { y: [{ z: "q" }] } }),
      "x.y[0].z",
    );
  });

  test("an invalid option is refused", () => {
    const e = env();
    assert.throws(
      () => e.informer({ resource: pods, detectMutations: { intervalMs: -1 } }),
      /detectMutations\.intervalMs/,
    );
    e.cluster.close();
  });
});
