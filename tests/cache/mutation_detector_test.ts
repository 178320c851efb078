// serial: sets process environment variables, which Deno shares between the modules it runs in
// parallel, so scripts/test.mjs runs this file on its own there.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import process from "node:process";
import { pods } from "../../src/client/resource.ts";
import {
  fingerprint,
  firstDifference,
  jsonText,
  MutationError,
} from "../../src/cache/mutation_detector.ts";
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

describe("the mutation detector at any depth", () => {
  /** JSON text of `{"a":{"a":...{"a":leaf}...}}`, `depth` levels, built without recursion. */
  const nested = (depth: number, leaf: string): string =>
    '{"a":'.repeat(depth) + leaf + "}".repeat(depth);

  /** A server with one pod whose spec nests `depth` deep; the watch sends it MODIFIED once. */
  const deepServer =
    (depth: number) =>
    (c: { fetch: (r: Request) => Promise<Response> }) =>
    (request: Request): Promise<Response> => {
      const url = new URL(request.url);
      if (!url.pathname.endsWith("/pods")) return c.fetch(request);
      const pod = (rv: string, leaf: string) =>
        `{"kind":"Pod","apiVersion":"v1","metadata":{"namespace":"a","name":"deep","uid":"u1",` +
        `"resourceVersion":"${rv}"},"spec":${nested(depth, leaf)}}`;
      if (url.searchParams.get("watch") === null) {
        const list = `{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"10"},` +
          `"items":[${pod("10", "1")}]}`;
        return Promise.resolve(
          new Response(list, { headers: { "content-type": "application/json" } }),
        );
      }
      if (url.searchParams.get("resourceVersion") !== "10") {
        return new Promise((_, reject) =>
          request.signal.addEventListener("abort", () => reject(request.signal.reason), {
            once: true,
          })
        );
      }
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(
            new TextEncoder().encode(`{"type":"MODIFIED","object":${pod("11", "2")}}\n`),
          );
        },
      });
      return Promise.resolve(new Response(body));
    };

  for (const depth of [5_000, 200_000]) {
    test(`an object nested ${depth} deep: no error, no event lost, a deep mutation still found`, async () => {
      const e = env({ fetch: deepServer(depth) });
      const inf = e.informer({ resource: pods, detectMutations: true });
      const seen: string[] = [];
      inf.addEventHandler({
        onAdd: (o) => void seen.push(`add ${o.metadata.name}`),
        onUpdate: (_, o) => void seen.push(`update ${o.metadata.resourceVersion}`),
      });
      inf.start();
      await inf.waitForSync();
      await e.clock.flush();
      assert.deepEqual(seen, ["add deep", "update 11"], "every event reached the handler");
      assert.deepEqual(e.errors.map((x) => x.kind), []);
      await e.clock.advance(1_000); // a periodic check over the deep object
      assert.deepEqual(e.errors.map((x) => x.kind), []);
      // Change the deepest value in place: found, with its path, and nothing throws.
      let node = inf.store.get("a/deep")!.spec as Record<string, unknown>;
      for (let i = 1; i < depth; i++) node = node.a as Record<string, unknown>;
      node.a = 3;
      await e.clock.advance(1_000);
      const found = e.errors.filter((x) => x.kind === "mutation");
      assert.equal(found.length, 1);
      const path = (found[0]!.error as MutationError).path;
      assert.equal(path, "spec" + ".a".repeat(depth));
      await closed(e);
    });
  }

  test("fingerprint writes what JSON.stringify writes, and goes on where it gives up", () => {
    const samples: unknown[] = [
      { a: [1, "two", null, true, { b: undefined, c: () => 1 }], d: -0, e: NaN, f: 1e21 },
      [undefined, Symbol("s"), [[]], {}],
      { date: new Date(0), boxed: [new Number(1), new String("s"), new Boolean(false)] },
      "plain",
      { 'quote"key': "line\nbreak \u2028 é" },
    ];
    for (const value of samples) assert.equal(jsonText(value), JSON.stringify(value));
    assert.equal(jsonText(undefined), undefined);
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    assert.equal(fingerprint(cyclic), "");
    assert.equal(fingerprint({ big: 1n }), "");
    const deep = JSON.parse(nested(300_000, "1"));
    assert.equal(fingerprint(deep), nested(300_000, "1"));
  });
});
