// The informer's `memory` modes (shared, compact, plain), the per-page transform of lists, and
// what health() and /metrics say about memory and event lag.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { pods } from "../../src/client/resource.ts";
import type { KubeObject } from "../../src/client/types.ts";
import type { CacheMemoryMode } from "../../src/cache/informer_options.ts";
import { serverWriteTime } from "../../src/cache/event_lag.ts";
import { prometheusMetrics } from "../../src/metrics/prometheus.ts";
import { closed, env, pod, show, take } from "../_informer_env.ts";

const MODES: CacheMemoryMode[] = ["shared", "compact", "plain"];

/** What an informer in `mode` tells and caches over a create/patch/delete sequence. */
async function run(mode: CacheMemoryMode): Promise<{
  told: string[];
  cached: KubeObject[];
  byNamespace: string[];
  mode: string;
  bytes: number;
}> {
  const e = env();
  for (let i = 0; i < 4; i++) e.cluster.create(pods, pod("a", `p${i}`, { app: "web" }));
  const inf = e.informer({ resource: pods, memory: mode });
  const it = inf.events();
  inf.start();
  const told = (await take(it, (ev) => ev.type === "synced")).map(show);
  e.cluster.patch(pods, { namespace: "a", name: "p1" }, {
    metadata: { annotations: { x: "ü ✓" } },
  });
  e.cluster.delete(pods, { namespace: "a", name: "p2" });
  e.cluster.create(pods, pod("b", "q1"));
  const live = await take(it, (_, all) => all.length === 3);
  told.push(...live.map(show));
  const update = live[0]!;
  assert.ok(update.type === "update");
  assert.equal(update.oldObject.metadata.annotations?.x, undefined);
  assert.equal(update.object.metadata.annotations?.x, "ü ✓");
  assert.equal(inf.store.get("a/p1"), update.object, "a read right after the event: its object");
  const cached = inf.store.list().map((o) => structuredClone(o));
  const byNamespace = inf.lister.namespace("a").list({ labelSelector: "app=web" }).map((o) =>
    o.metadata.name!
  );
  const health = inf.health();
  await it.return?.();
  await closed(e);
  return {
    told,
    cached,
    byNamespace,
    mode: health.memory.mode,
    bytes: health.memory.estimatedBytes,
  };
}

describe("informer memory modes", () => {
  test("shared, compact and plain caches tell the same events and hold the same objects", async () => {
    const results = await Promise.all(MODES.map(run));
    const [shared, compact, plain] = results;
    assert.deepEqual(plain!.told, [
      "add p0 (initial)",
      "add p1 (initial)",
      "add p2 (initial)",
      "add p3 (initial)",
      "synced",
      "update p1",
      "delete p2",
      "add q1",
    ]);
    for (const r of [shared!, compact!]) {
      assert.deepEqual(r.told, plain!.told);
      assert.deepEqual(r.cached, plain!.cached);
      assert.deepEqual(r.byNamespace, plain!.byNamespace);
    }
    assert.deepEqual(results.map((r) => r.mode), MODES);
    for (const r of results) assert.ok(r.bytes > 0, `${r.mode}: ${r.bytes} bytes`);
  });

  test("shared (the default): equal parts of cached objects are one frozen object", async () => {
    const e = env();
    for (let i = 0; i < 3; i++) e.cluster.create(pods, pod("a", `p${i}`));
    const inf = e.informer({ resource: pods });
    inf.start();
    await inf.waitForSync();
    const [a, b] = [inf.store.get("a/p0")!, inf.store.get("a/p1")!];
    assert.equal(a.spec, b.spec);
    assert.ok(Object.isFrozen(a.spec));
    assert.throws(() => {
      (b.spec as { nodeName?: string }).nodeName = "changed";
    }, TypeError);
    assert.equal(inf.health().memory.mode, "shared");
    await closed(e);
  });

  test("with detectMutations nothing is shared or frozen (the detector sees every write)", async () => {
    const e = env();
    for (let i = 0; i < 3; i++) e.cluster.create(pods, pod("a", `p${i}`));
    const inf = e.informer({ resource: pods, detectMutations: true });
    inf.start();
    await inf.waitForSync();
    assert.notEqual(inf.store.get("a/p0")!.spec, inf.store.get("a/p1")!.spec);
    assert.equal(inf.health().memory.mode, "plain");
    await closed(e);
  });

  test("an unknown memory mode is a TypeError naming the option", () => {
    const e = env();
    assert.throws(
      () => e.informer({ resource: pods, memory: "tiny" as CacheMemoryMode }),
      /memory/,
    );
    e.cluster.close();
  });

  test("a paged list's items are transformed as pages arrive, not after the last one", async () => {
    let transformed = 0;
    const seenAtListRequests: number[] = [];
    const e = env({
      cluster: { watchCache: false }, // pages lists at resourceVersion "0"
      fetch: (c) => (request) => {
        const url = new URL(request.url);
        if (url.searchParams.get("watch") === null) seenAtListRequests.push(transformed);
        return c.fetch(request);
      },
    });
    for (let i = 0; i < 10; i++) e.cluster.create(pods, pod("a", `p${i}`));
    const inf = e.informer({
      resource: pods,
      pageSize: 2,
      transform: (o) => {
        transformed++;
        return o;
      },
    });
    inf.start();
    await inf.waitForSync();
    assert.equal(seenAtListRequests.length, 5);
    assert.ok(
      seenAtListRequests.at(-1)! > 0,
      `transformed before the last page: ${seenAtListRequests}`,
    );
    assert.equal(transformed, 10);
    await closed(e);
  });
});

describe("relist: unchanged objects are kept, not decoded again", () => {
  for (const initialList of ["list", "stream"] as const) {
    test(`${initialList}: an unchanged object stays the cached one (not transformed again); a changed one is replaced`, async () => {
      const e = env({ cluster: { watchCache: initialList === "stream" } });
      for (const n of ["p1", "p2", "p3"]) e.cluster.create(pods, pod("a", n));
      const transformed: string[] = [];
      const inf = e.informer({
        resource: pods,
        initialList,
        transform: (o) => {
          transformed.push(o.metadata.name!);
          o.metadata.annotations = { seen: String(transformed.length) };
          return o;
        },
      });
      const it = inf.events();
      inf.start();
      await take(it, (ev) => ev.type === "synced");
      const before = new Map(inf.store.list().map((o) => [o.metadata.name, o]));
      transformed.length = 0;
      await e.clock.flush();
      assert.equal(e.cluster.faults.dropWatches(), 1);
      await e.clock.flush();
      // While away: p1 changes, p3 is deleted and re-created (a new uid), history compacted.
      e.cluster.patch(pods, { namespace: "a", name: "p1" }, { metadata: { labels: { v: "2" } } });
      e.cluster.delete(pods, { namespace: "a", name: "p3" });
      e.cluster.create(pods, pod("a", "p3"));
      e.cluster.faults.compact();
      await e.clock.advance(10_000);
      const evs = await take(it, (_, all) => all.length === 3);
      assert.deepEqual(evs.map(show), ["update p1", "delete p3 (unknown)", "add p3"]);
      assert.equal(inf.health().relists, 1);
      // p2 is the very object cached before, its transform's output kept: the relist read
      // its identity and did not run the transform for it.
      assert.equal(inf.store.get("a/p2"), before.get("p2"));
      assert.deepEqual(transformed.sort(), ["p1", "p3"]);
      const p1 = inf.store.get("a/p1")!;
      assert.notEqual(p1, before.get("p1"));
      assert.equal(p1.metadata.labels?.v, "2");
      assert.equal(p1.metadata.annotations?.seen !== undefined, true); // transformed
      await it.return?.();
      await closed(e);
    });
  }

  test("compact mode reads nothing from its cache to compare: every item is decoded", async () => {
    const e = env();
    for (const n of ["p1", "p2"]) e.cluster.create(pods, pod("a", n));
    let transformed = 0;
    const inf = e.informer({
      resource: pods,
      memory: "compact",
      transform: (o) => {
        transformed++;
        return o;
      },
    });
    const it = inf.events();
    inf.start();
    await take(it, (ev) => ev.type === "synced");
    await e.clock.flush();
    e.cluster.faults.dropWatches();
    await e.clock.flush();
    e.cluster.patch(pods, { namespace: "a", name: "p1" }, { metadata: { labels: { v: "2" } } });
    e.cluster.faults.compact();
    await e.clock.advance(10_000);
    const evs = await take(it, (_, all) => all.length === 1);
    assert.deepEqual(evs.map(show), ["update p1"]);
    assert.equal(transformed, 4);
    await it.return?.();
    await closed(e);
  });
});

describe("event lag", () => {
  test("serverWriteTime is the newest managedFields time", () => {
    assert.equal(serverWriteTime({ metadata: { name: "a" } }), undefined);
    const managedFields = [
      { manager: "a", time: "2026-01-01T00:00:09Z" },
      { manager: "b", time: "2026-01-01T00:00:03Z" },
      { manager: "c" },
    ];
    assert.equal(
      serverWriteTime({ metadata: { name: "a", managedFields } } as KubeObject),
      Date.UTC(2026, 0, 1, 0, 0, 9),
    );
  });

  test("health().eventLag: server write to the consumer taking a live event", async () => {
    const e = env();
    e.cluster.create(pods, pod("a", "p0"));
    const inf = e.informer({ resource: pods });
    const it = inf.events();
    inf.start();
    await take(it, (ev) => ev.type === "synced");
    assert.equal(inf.health().eventLag, undefined, "the initial list is not measured");
    // Through the API, so the server stamps managedFields with the write's time.
    await e.client.create(pods, pod("a", "p1"), { fieldManager: "test" });
    await e.clock.flush(); // delivered into the iterator's buffer, not yet taken
    await e.clock.advance(7_000);
    const [ev] = await take(it, () => true);
    assert.equal(ev?.type, "add");
    const lag = inf.health().eventLag!;
    assert.equal(lag.events, 1);
    assert.ok(lag.lastMs >= 7_000 && lag.lastMs < 8_000, `lag ${lag.lastMs}`);
    assert.equal(lag.maxMs, lag.lastMs);
    const prom = prometheusMetrics({ health: () => inf.health() });
    const text = prom.render();
    assert.match(text, /^kinformer_cache_estimated_bytes\{mode="shared"\} \d+$/m);
    assert.match(text, /^kinformer_event_lag_seconds_count 1$/m);
    assert.match(text, /^kinformer_event_lag_max_seconds 7(\.\d+)?$/m);
    await it.return?.();
    await closed(e);
  });
});
