import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { CacheMemory } from "../../src/cache/cache_memory.ts";
import { podFixture } from "../../src/testing/fixtures.ts";
import { ManualClock } from "../../src/testing/manual_clock.ts";

type Pod = ReturnType<typeof podFixture> & { spec: object };

/** A decoded pod `i` at resource version `rv` (a fresh copy, as a watch event brings it). */
function pod(i: number, rv: number): Pod {
  const p = podFixture(i);
  p.metadata.resourceVersion = String(rv);
  return JSON.parse(JSON.stringify(p)) as Pod;
}

/**
 * A clock whose time also moves by `workMs` each time the cache looks up an object's cached
 * version, which it does once per update it shares: sharing one object "takes" `workMs`.
 */
class WorkClock extends ManualClock {
  spent = 0;
  override now(): number {
    return super.now() + this.spent;
  }
}

/** A shared-mode cache of one object per name, written as the informer's store writer does. */
function sharedCache(workMs = 0): {
  memory: CacheMemory<Pod>;
  clock: WorkClock;
  put(o: Pod): Pod;
  /** Deletes the object named `name` from the cache. */
  remove(name: string): void;
  /** How many of `objects` share their spec with their first version (shared since). */
  shared(objects: Pod[]): number;
} {
  const cache = new Map<string, Pod>();
  const first = new Map<string, Pod>();
  const clock = new WorkClock();
  const memory = new CacheMemory<Pod>("shared", false, {
    current: (o) => {
      clock.spent += workMs;
      return cache.get(o.metadata.name ?? "");
    },
    size: () => cache.size,
    clock,
  });
  return {
    memory,
    clock,
    put(o: Pod): Pod {
      const name = o.metadata.name ?? "";
      const out = memory.admit(o, cache.get(name));
      cache.set(name, out);
      if (!first.has(name)) first.set(name, out);
      return out;
    },
    remove: (name) => void cache.delete(name),
    shared: (objects) =>
      objects.filter((o) => o.spec === first.get(o.metadata.name ?? "")?.spec).length,
  };
}

describe("CacheMemory (shared)", () => {
  test("an update is cached as decoded and shares the previous version's parts a task later", async () => {
    const { memory, clock, put } = sharedCache();
    const first = put(pod(1, 10));
    const update = pod(1, 11);
    const expected = structuredClone(update);
    const cached = put(update);
    assert.equal(cached, update);
    assert.notEqual(cached.spec, first.spec); // not shared on the watch's hot path
    assert.ok(!Object.isFrozen(cached.spec));
    await clock.advance(0);
    assert.equal(cached.spec, first.spec); // shared since, and frozen
    assert.ok(Object.isFrozen(cached.spec));
    assert.deepEqual(cached, expected); // the content never changed
    assert.equal(clock.pendingTimers, 0);
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

  test("close drops the updates waiting, unshared, and leaves no timer", async () => {
    const { memory, clock, put } = sharedCache();
    const first = put(pod(3, 10));
    const second = put(pod(3, 11));
    memory.close();
    assert.equal(clock.pendingTimers, 0);
    await clock.advance(1_000);
    assert.notEqual(second.spec, first.spec);
    assert.deepEqual(second, pod(3, 11));
  });

  test("while updates keep coming, a slice of sharing (256 objects or 4 ms) is followed by a pause 24 times its length", async () => {
    // Sharing one object takes 0.1 ms here: a slice ends after 48 objects (4.8 ms, the time
    // being looked at every 16 objects), then pauses 24 x 4.8 = 115.2 ms.
    const { memory, clock, put, shared } = sharedCache(0.1);
    for (let i = 0; i < 300; i++) put(pod(i, 10));
    const updates: Pod[] = [];
    for (let i = 0; i < 200; i++) updates.push(put(pod(i, 11)));
    await clock.advance(0);
    assert.equal(shared(updates), 48);
    for (let i = 200; i < 300; i++) updates.push(put(pod(i, 11))); // more keep coming
    await clock.advance(115);
    assert.equal(shared(updates), 48, "no slice during the pause");
    await clock.advance(1);
    assert.equal(shared(updates), 96);
    memory.close();
  });

  test("once no update came since the last slice, the rest is shared back to back", async () => {
    const { memory, clock, put, shared } = sharedCache(0.1);
    for (let i = 0; i < 300; i++) put(pod(i, 10));
    const updates: Pod[] = [];
    for (let i = 0; i < 300; i++) updates.push(put(pod(i, 11)));
    await clock.advance(0);
    assert.equal(shared(updates), 48); // the updates came before this slice: a pause follows
    await clock.advance(116);
    // None came during the pause: the next slices follow at once, yielding to I/O between.
    assert.equal(shared(updates), 300);
    assert.equal(clock.pendingTimers, 0);
    memory.close();
  });

  test("a slice shares at most 256 objects however fast, and pauses at least 24 ms while updates come", async () => {
    const { memory, clock, put, shared } = sharedCache(0);
    for (let i = 0; i < 600; i++) put(pod(i, 10));
    const updates: Pod[] = [];
    for (let i = 0; i < 300; i++) updates.push(put(pod(i, 11)));
    await clock.advance(0);
    assert.equal(shared(updates), 256);
    for (let i = 300; i < 600; i++) updates.push(put(pod(i, 11)));
    await clock.advance(23);
    assert.equal(shared(updates), 256);
    await clock.advance(1);
    assert.equal(shared(updates), 512);
    memory.close();
  });

  test("at most as many updates wait as the cache holds objects (at least 4,096): past it the oldest is shared at once", () => {
    const { memory, put, remove, shared } = sharedCache();
    const n = 4_097;
    for (let i = 0; i < n; i++) put(pod(i, 10));
    const updates: Pod[] = [];
    for (let i = 0; i < n; i++) updates.push(put(pod(i, 11)));
    assert.equal(shared(updates), 0, "as many waiting as cached objects");
    updates.push(put(pod(1, 12))); // replaces the one waiting for pod 1: as many
    assert.equal(shared(updates), 0);
    remove(pod(n - 1, 0).metadata.name!); // its update still waits: one more than cached
    updates.push(put(pod(2, 12)));
    assert.equal(shared(updates), 1);
    assert.equal(shared([updates[0]!]), 1, "the oldest: pod 0's");
    memory.close();
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
