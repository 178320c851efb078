import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { KubeObject, KubeObjectLike } from "../../src/client/types.ts";
import { type Delta, DeltaFIFO } from "../../src/cache/delta_fifo.ts";
import { Indexer } from "../../src/cache/indexer.ts";

function pod(name: string, rv = "1", namespace = "ns"): KubeObject {
  return { metadata: { namespace, name, resourceVersion: rv } };
}

/** Delta summary: type, resource version, and `?` for a tombstone. */
function summary<T extends KubeObjectLike>(deltas: Delta<T>[]): string[] {
  return deltas.map((d) =>
    `${d.type}@${d.object.metadata?.resourceVersion}${d.finalStateUnknown ? "?" : ""}`
  );
}

/** Pops everything: `key: deltas` lines in pop order. */
function drain<T extends KubeObjectLike>(fifo: DeltaFIFO<T>): string[] {
  const out: string[] = [];
  for (let p = fifo.pop(); p !== undefined; p = fifo.pop()) {
    out.push(`${p[0]}: ${summary(p[1]).join(" ")}`);
  }
  return out;
}

/** An Indexer standing in for the informer's cache, filled with `objects`. */
function cacheOf(...objects: KubeObject[]): Indexer {
  const indexer = new Indexer();
  for (const o of objects) indexer.set(o);
  return indexer;
}

describe("DeltaFIFO", () => {
  test("an empty queue pops undefined and has length 0", () => {
    const fifo = new DeltaFIFO();
    assert.equal(fifo.length, 0);
    assert.equal(fifo.pop(), undefined);
    assert.equal(fifo.get("ns/a"), undefined);
  });

  test("all deltas of a key leave together, in the order they happened", () => {
    const fifo = new DeltaFIFO();
    fifo.add(pod("a", "1"));
    fifo.update(pod("a", "2"));
    fifo.update(pod("a", "3"));
    fifo.delete(pod("a", "4"));
    assert.equal(fifo.length, 1);
    assert.deepEqual(drain(fifo), ["ns/a: Added@1 Updated@2 Updated@3 Deleted@4"]);
  });

  test("keys pop in the order they first entered, however their later deltas interleave", () => {
    const fifo = new DeltaFIFO();
    fifo.add(pod("a", "1"));
    fifo.add(pod("b", "2"));
    fifo.add(pod("c", "3"));
    fifo.update(pod("a", "4"));
    fifo.update(pod("c", "5"));
    fifo.update(pod("b", "6"));
    assert.equal(fifo.length, 3);
    assert.deepEqual(drain(fifo), [
      "ns/a: Added@1 Updated@4",
      "ns/b: Added@2 Updated@6",
      "ns/c: Added@3 Updated@5",
    ]);
  });

  test("a key that changes again after being popped joins the back of the queue", () => {
    const fifo = new DeltaFIFO();
    fifo.add(pod("a", "1"));
    fifo.add(pod("b", "2"));
    assert.equal(fifo.pop()?.[0], "ns/a");
    fifo.update(pod("a", "3"));
    assert.deepEqual(drain(fifo), ["ns/b: Added@2", "ns/a: Updated@3"]);
  });

  test("cluster-scoped objects are keyed by name alone; a custom key function is honoured", () => {
    const fifo = new DeltaFIFO();
    fifo.add({ metadata: { name: "node-1", resourceVersion: "1" } });
    assert.equal(fifo.pop()?.[0], "node-1");
    const byUid = new DeltaFIFO({ keyOf: (o) => o.metadata.uid ?? "?" });
    byUid.add({ metadata: { name: "x", uid: "u-1", resourceVersion: "1" } });
    assert.equal(byUid.pop()?.[0], "u-1");
  });

  test("get returns a copy of a key's queued deltas without removing them", () => {
    const fifo = new DeltaFIFO();
    fifo.add(pod("a", "1"));
    const copy = fifo.get("ns/a")!;
    copy.push({ type: "Updated", object: pod("a", "9") });
    assert.deepEqual(summary(fifo.get("ns/a")!), ["Added@1"]);
    assert.equal(fifo.length, 1);
  });

  test("DeltaFIFO merges two consecutive deletes into one, keeping the newer (client-go)", () => {
    const fifo = new DeltaFIFO();
    fifo.add(pod("a", "1"));
    fifo.delete(pod("a", "2"));
    fifo.delete(pod("a", "3"));
    const [, deltas] = fifo.pop()!;
    assert.deepEqual(summary(deltas), ["Added@1", "Deleted@3"]);
    assert.equal(deltas[1]!.finalStateUnknown, undefined);
  });

  test("two consecutive tombstones merge into the first", () => {
    const known = cacheOf(pod("a", "1"));
    const fifo = new DeltaFIFO({ knownObjects: known });
    fifo.replace([]);
    fifo.replace([]);
    assert.deepEqual(drain(fifo), ["ns/a: Deleted@1?"]);
  });

  test("only consecutive deletes merge: delete, add, delete keeps all three", () => {
    const fifo = new DeltaFIFO();
    fifo.delete(pod("a", "1"));
    fifo.add(pod("a", "2"));
    fifo.delete(pod("a", "3"));
    assert.deepEqual(drain(fifo), ["ns/a: Deleted@1 Added@2 Deleted@3"]);
  });

  test("a watch delete after a tombstone replaces it: the known final state is kept", () => {
    const fifo = new DeltaFIFO({ knownObjects: cacheOf(pod("a", "1")) });
    fifo.replace([]); // tombstone for ns/a
    fifo.delete(pod("a", "5"));
    assert.deepEqual(drain(fifo), ["ns/a: Deleted@5"]);
  });

  test("a tombstone after a watch delete is dropped: the known final state is kept", () => {
    const fifo = new DeltaFIFO({ knownObjects: cacheOf(pod("a", "1")) });
    fifo.delete(pod("a", "5"));
    fifo.replace([]);
    assert.deepEqual(drain(fifo), ["ns/a: Deleted@5"]);
  });

  test("replace queues Replaced for every listed object", () => {
    const fifo = new DeltaFIFO({ knownObjects: new Indexer() });
    fifo.replace([pod("a", "7"), pod("b", "8")]);
    assert.deepEqual(drain(fifo), ["ns/a: Replaced@7", "ns/b: Replaced@8"]);
  });

  test("replace tombstones every known key the list no longer has, with the cached state", () => {
    const known = cacheOf(pod("a", "1"), pod("b", "2"), pod("c", "3"));
    const fifo = new DeltaFIFO({ knownObjects: known });
    fifo.replace([pod("a", "10"), pod("d", "11")]);
    assert.deepEqual(drain(fifo), [
      "ns/a: Replaced@10",
      "ns/d: Replaced@11",
      "ns/b: Deleted@2?",
      "ns/c: Deleted@3?",
    ]);
  });

  test("a tombstone carries the newest queued state of a known key, not the cached one", () => {
    const known = cacheOf(pod("a", "1"));
    const fifo = new DeltaFIFO({ knownObjects: known });
    fifo.update(pod("a", "2"));
    fifo.replace([]);
    assert.deepEqual(drain(fifo), ["ns/a: Updated@2 Deleted@2?"]);
  });

  test("replace tombstones keys that are only queued (never reached the cache)", () => {
    const fifo = new DeltaFIFO({ knownObjects: new Indexer() });
    fifo.add(pod("x", "1"));
    fifo.update(pod("x", "2"));
    fifo.add(pod("y", "3"));
    fifo.replace([pod("y", "4")]);
    assert.deepEqual(drain(fifo), [
      "ns/x: Added@1 Updated@2 Deleted@2?",
      "ns/y: Added@3 Replaced@4",
    ]);
  });

  test("a queued-only key whose last delta is already a delete gets no tombstone", () => {
    const fifo = new DeltaFIFO({ knownObjects: new Indexer() });
    fifo.add(pod("x", "1"));
    fifo.delete(pod("x", "2"));
    fifo.replace([]);
    assert.deepEqual(drain(fifo), ["ns/x: Added@1 Deleted@2"]);
  });

  test("without knownObjects, replace detects deletions against the queued keys", () => {
    const fifo = new DeltaFIFO();
    fifo.add(pod("a", "1"));
    fifo.add(pod("b", "2"));
    fifo.replace([pod("b", "3")]);
    assert.deepEqual(drain(fifo), ["ns/a: Added@1 Deleted@1?", "ns/b: Added@2 Replaced@3"]);
  });

  test("hasSynced is false until the first replace's keys have all been popped", () => {
    const fifo = new DeltaFIFO({ knownObjects: new Indexer() });
    assert.equal(fifo.hasSynced(), false);
    fifo.replace([pod("a"), pod("b"), pod("c")]);
    assert.equal(fifo.hasSynced(), false);
    fifo.pop();
    fifo.pop();
    assert.equal(fifo.hasSynced(), false);
    fifo.pop();
    assert.equal(fifo.hasSynced(), true);
  });

  test("hasSynced counts a listed key once, however often the list repeats it", () => {
    const fifo = new DeltaFIFO({ knownObjects: new Indexer() });
    fifo.replace([pod("a", "1"), pod("a", "2")]);
    assert.deepEqual(summary(fifo.pop()![1]), ["Replaced@1", "Replaced@2"]);
    assert.equal(fifo.hasSynced(), true);
  });

  test("hasSynced waits for the first replace's tombstones too", () => {
    const known = cacheOf(pod("gone"));
    const fifo = new DeltaFIFO({ knownObjects: known });
    fifo.replace([pod("a")]);
    fifo.pop();
    assert.equal(fifo.hasSynced(), false, "the tombstone for ns/gone is still queued");
    assert.equal(fifo.pop()?.[0], "ns/gone");
    assert.equal(fifo.hasSynced(), true);
  });

  test("an empty first replace is synced at once", () => {
    const fifo = new DeltaFIFO({ knownObjects: new Indexer() });
    fifo.replace([]);
    assert.equal(fifo.hasSynced(), true);
  });

  test("keys queued after the first replace do not delay hasSynced", () => {
    const fifo = new DeltaFIFO({ knownObjects: new Indexer() });
    fifo.replace([pod("a")]);
    fifo.add(pod("late"));
    fifo.pop();
    assert.equal(fifo.hasSynced(), true);
    assert.equal(fifo.length, 1);
  });

  test("a later replace does not make a synced queue unsynced", () => {
    const fifo = new DeltaFIFO({ knownObjects: new Indexer() });
    fifo.replace([]);
    fifo.replace([pod("a"), pod("b")]);
    assert.equal(fifo.hasSynced(), true);
  });

  test("an add, update or delete before any replace counts as populated (client-go semantics)", () => {
    for (const op of ["add", "update", "delete"] as const) {
      const fifo = new DeltaFIFO();
      fifo[op](pod("a"));
      assert.equal(fifo.hasSynced(), true, op);
    }
  });

  test("resync queues Sync with the cached object for known keys that have nothing queued", () => {
    const known = cacheOf(pod("a", "1"), pod("b", "2"), pod("c", "3"));
    const fifo = new DeltaFIFO({ knownObjects: known });
    fifo.update(pod("b", "20"));
    fifo.resync();
    assert.deepEqual(drain(fifo), ["ns/b: Updated@20", "ns/a: Sync@1", "ns/c: Sync@3"]);
  });

  test("resync without knownObjects does nothing", () => {
    const fifo = new DeltaFIFO();
    fifo.resync();
    assert.equal(fifo.length, 0);
  });

  test("keys keep first-entered order through thousands of keys re-entering the queue", () => {
    const fifo = new DeltaFIFO();
    const popped: string[] = [];
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < 1000; i++) fifo.add(pod(`p${i}`, String(round * 1000 + i + 1)));
      for (let i = 0; i < 500; i++) {
        const [key, deltas] = fifo.pop()!;
        popped.push(`${key}x${deltas.length}`);
      }
    }
    for (let p = fifo.pop(); p !== undefined; p = fifo.pop()) popped.push(`${p[0]}x${p[1].length}`);
    const range = (from: number, deltas: number): string[] =>
      Array.from({ length: 500 }, (_, i) => `ns/p${from + i}x${deltas}`);
    // Round 0 pops p0..p499; round 1 re-queues them behind p500..p999, which merge a second
    // Added; round 2 the same the other way round; p500..p999 re-entered last.
    assert.deepEqual(popped, [...range(0, 1), ...range(500, 2), ...range(0, 2), ...range(500, 1)]);
  });
});
