import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { CacheMemory } from "../../src/cache/cache_memory.ts";
import { podFixture } from "../../src/testing/fixtures.ts";

type Pod = ReturnType<typeof podFixture> & { spec: object };

/** A decoded pod `i` at resource version `rv` (a fresh copy, as a watch event brings it). */
function pod(i: number, rv: number): Pod {
  const p = podFixture(i);
  p.metadata.resourceVersion = String(rv);
  return JSON.parse(JSON.stringify(p)) as Pod;
}

/** A shared-mode cache of one object per name, written as the informer's store writer does. */
function sharedCache(): { memory: CacheMemory<Pod>; put(o: Pod): Pod } {
  const cache = new Map<string, Pod>();
  const memory = new CacheMemory<Pod>("shared", false, (o) => cache.get(o.metadata.name ?? ""));
  return {
    memory,
    put(o: Pod): Pod {
      const out = memory.admit(o, cache.get(o.metadata.name ?? ""));
      cache.set(o.metadata.name ?? "", out);
      return out;
    },
  };
}

describe("CacheMemory (shared)", () => {
  test("an update is cached as decoded and shares the previous version's parts a task later", async () => {
    const { memory, put } = sharedCache();
    const first = put(pod(1, 10));
    const update = pod(1, 11);
    const expected = structuredClone(update);
    const cached = put(update);
    assert.equal(cached, update);
    assert.notEqual(cached.spec, first.spec); // not shared on the watch's hot path
    assert.ok(!Object.isFrozen(cached.spec));
    await new Promise((resolve) => setTimeout(resolve, 0));
    assert.equal(cached.spec, first.spec); // shared since, and frozen
    assert.ok(Object.isFrozen(cached.spec));
    assert.deepEqual(cached, expected); // the content never changed
    memory.close();
  });

  test("an update replaced before its turn stays as decoded; the newest shares the last shared version's parts", () => {
    const { memory, put } = sharedCache();
    const first = put(pod(2, 10));
    const second = put(pod(2, 11));
    const third = put(pod(2, 12));
    memory.settle();
    assert.notEqual(second.spec, first.spec);
    assert.ok(!Object.isFrozen(second.spec));
    assert.equal(third.spec, first.spec);
  });

  test("close drops the updates waiting, unshared", async () => {
    const { memory, put } = sharedCache();
    const first = put(pod(3, 10));
    const second = put(pod(3, 11));
    memory.close();
    await new Promise((resolve) => setTimeout(resolve, 0));
    assert.notEqual(second.spec, first.spec);
    assert.deepEqual(second, pod(3, 11));
  });
});

describe("CacheMemory.admitListed", () => {
  test("an object of a list shares the cached version's parts at once (a list holds its objects until it ends)", () => {
    const { memory, put } = sharedCache();
    const first = put(pod(1, 10));
    const listed = pod(1, 12);
    const expected = structuredClone(listed);
    const out = memory.admitListed(listed, first);
    assert.equal(out.spec, first.spec);
    assert.ok(Object.isFrozen(out.spec));
    assert.deepEqual(out, expected);
  });

  test("a listed object with no cached version is shared with what was seen before", () => {
    const { memory } = sharedCache();
    const a = memory.admitListed(pod(1, 10));
    const b = memory.admitListed(pod(1, 10));
    assert.notEqual(a, b);
    assert.equal(a.spec, b.spec);
  });
});
