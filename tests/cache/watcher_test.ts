import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { configmaps, pods } from "../../src/client/resource.ts";
import type { KubeObjectLike } from "../../src/client/types.ts";
import { watcher, type WatcherEvent } from "../../src/cache/watcher.ts";
import { objectKey } from "../../src/cache/object_key.ts";
import { seededRandom } from "../../src/testing/seeded_random.ts";
import { minimalInformer } from "../../examples/minimal_informer.ts";
import { closed, env, pod } from "../_informer_env.ts";
import { catchUncaught } from "./_uncaught.ts";

const show = (ev: WatcherEvent): string => {
  switch (ev.type) {
    case "init":
      return "init";
    case "init-apply":
    case "apply":
    case "delete":
      return `${ev.type} ${ev.object.metadata.name}`;
    case "init-done":
    case "bookmark":
      return `${ev.type} @${ev.resourceVersion}`;
  }
};

const snapshot = (objects: Iterable<KubeObjectLike>): string[] =>
  [...objects].map((o) => `${objectKey(o)} ${o.metadata?.uid} ${o.metadata?.resourceVersion}`)
    .sort();

describe("watcher", () => {
  test("yields init, the state, init-done, then applies, deletes and bookmarks", async () => {
    const e = env();
    e.cluster.create(pods, pod("a", "p1"));
    e.cluster.create(pods, pod("a", "p2"));
    const ac = new AbortController();
    const it = watcher(e.client, {
      resource: pods,
      clock: e.clock,
      random: seededRandom(1),
      signal: ac.signal,
    });
    const seen: string[] = [];
    const rv = e.cluster.resourceVersion;
    for (let i = 0; i < 4; i++) seen.push(show((await it.next()).value as WatcherEvent));
    assert.deepEqual(seen, ["init", "init-apply p1", "init-apply p2", `init-done @${rv}`]);
    e.cluster.create(pods, pod("a", "p3"));
    e.cluster.delete(pods, { namespace: "a", name: "p1" });
    const applied = (await it.next()).value as WatcherEvent;
    assert.ok(applied.type === "apply");
    assert.equal(applied.object.metadata.name, "p3");
    assert.equal(applied.resourceVersion, applied.object.metadata.resourceVersion);
    assert.equal(show((await it.next()).value as WatcherEvent), "delete p1");
    await e.clock.advance(60_000); // the simulator's bookmark interval
    const bookmark = (await it.next()).value as WatcherEvent;
    assert.equal(bookmark.type, "bookmark");
    ac.abort();
    assert.equal((await it.next()).done, true);
    await closed(e);
  });

  test("a relist after 410 yields the whole state again: what is not re-announced is gone", async () => {
    const e = env();
    e.cluster.create(pods, pod("a", "p1"));
    e.cluster.create(pods, pod("a", "p2"));
    const it = watcher(e.client, { resource: pods, clock: e.clock, random: seededRandom(1) });
    for (let i = 0; i < 4; i++) await it.next();
    e.cluster.create(pods, pod("a", "seen"));
    assert.equal(show((await it.next()).value as WatcherEvent), "apply seen");
    e.cluster.faults.dropWatches();
    e.cluster.delete(pods, { namespace: "a", name: "p1" });
    e.cluster.faults.compact();
    await e.clock.advance(5_000);
    const relist: string[] = [];
    for (let ev = (await it.next()).value;; ev = (await it.next()).value) {
      relist.push(show(ev as WatcherEvent));
      if ((ev as WatcherEvent).type === "init-done") break;
    }
    assert.deepEqual(relist.slice(0, -1), ["init", "init-apply p2", "init-apply seen"]);
    await it.return?.();
    await closed(e);
  });

  test("back-pressure: a consumer that does not read stops the watch from reading", async () => {
    let watchBytes = 0;
    const e = env({
      fetch: (c) => async (req) => {
        const res = await c.fetch(req);
        if (!new URL(req.url).searchParams.has("watch") || res.body === null) return res;
        const counted = res.body.pipeThrough(
          new TransformStream<Uint8Array, Uint8Array>({
            transform(chunk, out) {
              watchBytes += chunk.byteLength;
              out.enqueue(chunk);
            },
          }),
        );
        return new Response(counted, { status: res.status, headers: res.headers });
      },
    });
    const it = watcher(e.client, {
      resource: configmaps,
      clock: e.clock,
      random: seededRandom(1),
      highWaterMark: 8,
    });
    for (let i = 0; i < 2; i++) await it.next(); // init, init-done (an empty list)
    e.cluster.faults.chunkBodies({ maxChunkBytes: 1024 });
    for (let i = 0; i < 2_000; i++) {
      e.cluster.create(configmaps, { metadata: { namespace: "a", name: `c${i}` } });
    }
    await e.clock.flush();
    const whileStalled = watchBytes;
    assert.ok(whileStalled < 50_000, `read ${whileStalled} bytes while nobody consumed`);
    const names: string[] = [];
    while (names.length < 2_000) {
      const ev = (await it.next()).value as WatcherEvent;
      if (ev.type === "apply") names.push(ev.object.metadata.name!);
    }
    assert.equal(names[1_999], "c1999", "every event arrives, in order");
    assert.ok(watchBytes > 10 * whileStalled, `${watchBytes} bytes in all`);
    await it.return?.();
    await closed(e);
  });

  test("no I/O before the first next(); return() before it starts nothing; an aborted signal ends it", async () => {
    const e = env();
    e.cluster.create(pods, pod("a", "p1"));
    const it = watcher(e.client, { resource: pods, clock: e.clock, random: seededRandom(1) });
    await e.clock.advance(10_000);
    assert.equal(e.cluster.requests.length, 0, "nothing before next()");
    assert.equal(show((await it.next()).value as WatcherEvent), "init");
    assert.deepEqual(e.cluster.requests.map((r) => r.verb), ["list"]);
    await it.return?.();
    const unused = watcher(e.client, { resource: pods, clock: e.clock });
    assert.equal((await unused.return!()).done, true);
    const ac = new AbortController();
    ac.abort();
    const aborted = watcher(e.client, { resource: pods, clock: e.clock, signal: ac.signal });
    assert.equal((await aborted.next()).done, true);
    assert.equal(e.cluster.requests.length, 1, "neither of the last two made a request");
    await closed(e);
  });

  test("it is AsyncDisposable: disposing ends it and releases the watch (await using)", async () => {
    const e = env();
    e.cluster.create(pods, pod("a", "p1"));
    const it = watcher(e.client, { resource: pods, clock: e.clock, random: seededRandom(1) });
    assert.equal(typeof it[Symbol.asyncDispose], "function");
    for (let ev = await it.next(); !ev.done; ev = await it.next()) {
      if (ev.value.type === "init-done") break;
    }
    await e.clock.flush();
    assert.equal(e.cluster.openWatches, 1);
    await it[Symbol.asyncDispose]();
    assert.equal(e.cluster.openWatches, 0);
    assert.equal((await it.next()).done, true);
    // Disposing one never iterated makes no request.
    const unused = watcher(e.client, { resource: pods, clock: e.clock });
    await unused[Symbol.asyncDispose]();
    assert.deepEqual(e.cluster.requests.filter((r) => r.verb === "list").length, 1);
    await closed(e);
  });

  test("an onError that throws does not stop the watcher; the throw is reported as uncaught", async () => {
    const e = env();
    e.cluster.faults.failNext(1, { status: 500, verb: "list" });
    const uncaught: unknown[] = [];
    const restore = catchUncaught((error) => uncaught.push(error));
    try {
      const boom = new Error("onError broke");
      const it = watcher(e.client, {
        resource: pods,
        clock: e.clock,
        random: seededRandom(1),
        onError: () => {
          throw boom;
        },
      });
      const first = it.next();
      await e.clock.advance(5_000);
      assert.equal(((await first).value as WatcherEvent).type, "init", "it recovered");
      assert.deepEqual(uncaught, [boom]);
      await it.return?.();
    } finally {
      restore();
    }
    await closed(e);
  });

  test("options are validated up front", () => {
    const e = env();
    assert.throws(() => watcher(e.client, { resource: pods, highWaterMark: 0 }), /highWaterMark/);
    assert.throws(
      () => watcher(e.client, { resource: pods, initialList: "bogus" as "list" }),
      /initialList/,
    );
    e.cluster.close();
  });
});

describe("a minimal informer from the public parts (examples/minimal_informer.ts)", () => {
  for (const seed of [1, 2]) {
    test(`stays equal to the server under the fault mix (seed ${seed})`, async () => {
      const e = env({ seed });
      const rng = seededRandom(seed * 31);
      e.cluster.churn(30, { resource: pods, namespaces: ["a", "b"] });
      const ac = new AbortController();
      const informer = minimalInformer(e.client, pods, {
        signal: ac.signal,
        watcher: { clock: e.clock, random: seededRandom(seed), maxLineLength: 64 * 1024 },
      });
      const f = e.cluster.faults;
      for (let round = 0; round < 150; round++) {
        e.cluster.churn(Math.floor(rng() * 4), { resource: pods, namespaces: ["a", "b"] });
        const r = rng();
        if (r < 0.05) f.dropWatches();
        else if (r < 0.08) f.compact();
        else if (r < 0.10) f.failNext(1, { status: 500, verb: rng() < 0.5 ? "list" : "watch" });
        else if (r < 0.12) f.chunkBodies({ maxChunkBytes: 1 + Math.floor(rng() * 40) });
        else if (r < 0.14) f.wholeBodies();
        else if (r < 0.16) f.closeWatchesAfter(1 + Math.floor(rng() * 3));
        else if (r < 0.18) f.closeWatchesAfter(undefined);
        else if (r < 0.20) f.corruptWatches("malformed");
        await e.clock.advance(Math.floor(rng() * 3_000));
      }
      f.reset();
      for (let i = 0; i < 40; i++) await e.clock.advance(5_000);
      await informer.synced;
      assert.deepEqual(snapshot(informer.store.values()), snapshot(e.cluster.list(pods)));
      ac.abort();
      await informer.done;
      await closed(e);
    });
  }
});
