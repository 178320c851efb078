import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { CompactCodec } from "../../src/cache/compact_store.ts";
import { Indexer } from "../../src/cache/indexer.ts";
import { podFixture } from "../../src/testing/fixtures.ts";
import type { KubeObject } from "../../src/client/types.ts";

const byNode = {
  byNode: (o: KubeObject) => [(o.spec as { nodeName?: string } | undefined)?.nodeName ?? ""],
};

describe("CompactCodec in an Indexer", () => {
  test("get, list, indexes and keys answer as the plain cache does", () => {
    const plain = new Indexer(byNode);
    const compact = new Indexer(byNode, { codec: new CompactCodec({ recent: 3 }) });
    for (let i = 0; i < 40; i++) {
      plain.set(podFixture(i));
      compact.set(podFixture(i));
    }
    compact.delete("ns-3/pod-000003");
    plain.delete("ns-3/pod-000003");
    compact.set(podFixture(5, { labels: { changed: "yes" } }));
    plain.set(podFixture(5, { labels: { changed: "yes" } }));
    assert.equal(compact.size, plain.size);
    assert.deepEqual(compact.listKeys(), plain.listKeys());
    assert.deepEqual(compact.list(), plain.list());
    for (const key of plain.listKeys()) assert.deepEqual(compact.get(key), plain.get(key));
    assert.deepEqual(compact.listIndexFuncValues("byNode"), plain.listIndexFuncValues("byNode"));
    for (const node of plain.listIndexFuncValues("byNode")) {
      assert.deepEqual(compact.byIndex("byNode", node), plain.byIndex("byNode", node));
    }
    assert.deepEqual(compact.byIndex("namespace", "ns-1"), plain.byIndex("namespace", "ns-1"));
  });

  test("non-ASCII text comes back unchanged and is held at one byte per character", () => {
    const codec = new CompactCodec<KubeObject>({ recent: 0 });
    const object = { metadata: { name: "a", annotations: { note: "監視 ✓ grüß 🚀" } } };
    const held = codec.encode(object, "a") as string;
    assert.ok(![...held].some((c) => c.charCodeAt(0) > 0x7f), "every character below U+0080");
    assert.deepEqual(codec.decode(held, "a"), object);
  });

  test("the object last written is what a read returns, until it falls out of `recent`", () => {
    const cache = new Indexer<KubeObject>({}, {
      codec: new CompactCodec<KubeObject>({ recent: 2 }),
    });
    const a = podFixture(1);
    cache.set(a);
    assert.equal(cache.get("ns-1/pod-000001"), a);
    cache.set(podFixture(2));
    cache.set(podFixture(3));
    const again = cache.get("ns-1/pod-000001");
    assert.notEqual(again, a);
    assert.deepEqual(again, a);
    assert.equal(cache.get("ns-1/pod-000001"), again, "now recent again");
  });

  test("bytes follow what is held: up on insert, down on delete", () => {
    const codec = new CompactCodec<KubeObject>({ recent: 0 });
    const cache = new Indexer<KubeObject>({}, { codec });
    assert.equal(codec.bytes(), 0);
    cache.set(podFixture(1));
    const one = codec.bytes();
    assert.ok(one > JSON.stringify(podFixture(1)).length);
    cache.set(podFixture(1)); // replaced, not added
    assert.equal(codec.bytes(), one);
    cache.delete("ns-1/pod-000001");
    assert.equal(codec.bytes(), 0);
    assert.equal(cache.estimatedBytes(), 0);
  });

  test("an index function that throws leaves the compact cache unchanged", () => {
    const cache = new Indexer<KubeObject>({
      bad: (o) => {
        if (o.metadata.name === "pod-000002") throw new Error("boom");
        return [];
      },
    }, { codec: new CompactCodec() });
    cache.set(podFixture(1));
    assert.throws(() => cache.set(podFixture(2)), /boom/);
    assert.deepEqual(cache.listKeys(), ["ns-1/pod-000001"]);
  });

  test("a bad `recent` is a RangeError naming it", () => {
    assert.throws(() => new CompactCodec({ recent: -1 }), /recent/);
  });
});
