// Liveness under misbehaving servers: no hot loop, no wedge, no livelock, no deadline on a
// healthy transfer. Each test reproduces one way the informer got stuck or hammered a server.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { configmaps, pods } from "../../src/client/resource.ts";
import { KubeApiError } from "../../src/client/errors.ts";
import { SharedInformerFactory } from "../../src/cache/factory.ts";
import { MAX_RETRY_AFTER_MS } from "../../src/cache/reflector.ts";
import { ListInactivityError } from "../../src/cache/reflector_errors.ts";
import { WatchDecodeError } from "../../src/watch/decode_error.ts";
import { LineTooLongError } from "../../src/watch/line_splitter.ts";
import type { WatchCorruption } from "@kinformer/simulator";
import { closed, env, pod } from "../_informer_env.ts";
import type { SimulatedCluster } from "@kinformer/simulator";

/** Requests of `verb` seen so far. */
const count = (cluster: SimulatedCluster, verb: string): number =>
  cluster.requests.filter((r) => r.verb === verb).length;

/** Keys and resource versions, for comparing a cache with the server. */
const state = (
  objects: { metadata: { namespace?: string; name?: string; resourceVersion?: string } }[],
) =>
  objects.map((o) => `${o.metadata.namespace}/${o.metadata.name}@${o.metadata.resourceVersion}`)
    .sort();

describe("liveness: a LIST that keeps delivering bytes is never cut", () => {
  test("a list drip-fed for much longer than the inactivity limit syncs in one request", async () => {
    const e = env();
    for (let i = 0; i < 60; i++) e.cluster.create(pods, pod("a", `p${i}`));
    // ~15 KB at ~256 bytes per second: about a minute for one response.
    e.cluster.faults.dripListBodies({ maxChunkBytes: 512, delayMs: 1_000 });
    const inf = e.informer({ resource: pods, inactivityTimeoutMs: 5_000 });
    inf.start();
    for (let t = 0; t < 120 && !inf.hasSynced(); t++) await e.clock.advance(1_000);
    assert.equal(inf.hasSynced(), true, "the drip-fed list completed");
    assert.equal(count(e.cluster, "list"), 1, "the list was never abandoned and retried");
    assert.equal(inf.store.size, 60);
    assert.deepEqual(e.errors.map((x) => x.kind), []);
    await closed(e);
  });

  test("a list that stops sending bytes mid-body is abandoned after the idle limit, then retried", async () => {
    const e = env();
    for (let i = 0; i < 20; i++) e.cluster.create(pods, pod("a", `p${i}`));
    e.cluster.faults.dripListBodies({ maxChunkBytes: 256, delayMs: 1_000 });
    const inf = e.informer({ resource: pods, inactivityTimeoutMs: 5_000 });
    inf.start();
    await e.clock.advance(3_000);
    e.cluster.faults.stall(); // the connection goes quiet mid-body
    await e.clock.advance(6_000);
    const first = e.errors[0];
    assert.equal(first?.kind, "inactivity");
    assert.ok(first.error instanceof ListInactivityError, String(first.error));
    assert.doesNotMatch(String(first.error), /watch/);
    e.cluster.faults.reset();
    for (let t = 0; t < 60 && !inf.hasSynced(); t++) await e.clock.advance(1_000);
    assert.equal(inf.hasSynced(), true);
    assert.equal(inf.store.size, 20);
    await closed(e);
  });

  test("the simulated server, like the real one, ignores limit at resourceVersion 0", async () => {
    const e = env();
    for (let i = 0; i < 12; i++) {
      e.cluster.create(configmaps, { metadata: { namespace: "a", name: `c${i}` } });
    }
    const at0 = await e.client.list(configmaps, { resourceVersion: "0", limit: 5 });
    assert.equal(at0.items.length, 12);
    assert.equal(at0.metadata.continue, undefined);
    const consistent = await e.client.list(configmaps, { limit: 5 });
    assert.equal(consistent.items.length, 5);
    assert.ok(consistent.metadata.continue);
    const exact = await e.client.list(configmaps, {
      resourceVersion: e.cluster.resourceVersion,
      limit: 5,
    });
    assert.equal(exact.items.length, 5, "paging still works at other resource versions");
    const noCache = env({ cluster: { watchCache: false } });
    noCache.cluster.create(configmaps, { metadata: { namespace: "a", name: "c1" } });
    noCache.cluster.create(configmaps, { metadata: { namespace: "a", name: "c2" } });
    const paged = await noCache.client.list(configmaps, { resourceVersion: "0", limit: 1 });
    assert.equal(paged.items.length, 1, "without a watch cache, lists at 0 page");
    await closed(e);
    await closed(noCache);
  });
});

describe("liveness: relists do not page at an exact resource version", () => {
  test("after a 410 the relist at the last synced RV sends no limit", async () => {
    const e = env();
    for (let i = 0; i < 8; i++) e.cluster.create(pods, pod("a", `p${i}`));
    const inf = e.informer({ resource: pods, pageSize: 3 });
    inf.start();
    await inf.waitForSync();
    e.cluster.create(pods, pod("a", "seen")); // the watch makes progress past the list's RV
    await e.clock.flush();
    const rv = inf.resourceVersion!;
    e.cluster.faults.dropWatches();
    e.cluster.create(pods, pod("a", "late")); // while away; then history is compacted: 410
    e.cluster.faults.compact();
    await e.clock.advance(5_000);
    const lists = e.cluster.requests.filter((r) => r.verb === "list").map((r) =>
      `rv=${r.query.resourceVersion} limit=${r.query.limit ?? "-"}`
    );
    assert.deepEqual(lists, ["rv=0 limit=3", `rv=${rv} limit=-`]);
    assert.deepEqual(state(inf.store.list()), state(e.cluster.list(pods)));
    await closed(e);
  });

  test("a server whose first list came back in pages keeps getting paged relists", async () => {
    const e = env({ cluster: { watchCache: false } });
    for (let i = 0; i < 8; i++) e.cluster.create(pods, pod("a", `p${i}`));
    const inf = e.informer({ resource: pods, pageSize: 3 });
    inf.start();
    await inf.waitForSync();
    await e.clock.flush();
    e.cluster.clearRequests();
    e.cluster.faults.dropWatches();
    e.cluster.create(pods, pod("a", "late"));
    e.cluster.faults.compact();
    await e.clock.advance(5_000);
    const limits = e.cluster.requests.filter((r) => r.verb === "list" && !r.query.continue)
      .map((r) => r.query.limit);
    assert.ok(limits.length >= 1 && limits.every((l) => l === "3"), `limits ${limits}`);
    assert.deepEqual(state(inf.store.list()), state(e.cluster.list(pods)));
    await closed(e);
  });
});

describe("liveness: a watch that cannot be decoded leads to a relist, not a wedge", () => {
  const kinds: WatchCorruption[] = ["malformed", "unknown-type", "numeric-rv", "long-line"];
  for (const kind of kinds) {
    test(`${kind}: re-watched once from the same RV, then relisted; typed errors; cache intact`, async () => {
      const e = env();
      e.cluster.create(pods, pod("a", "p1"));
      const inf = e.informer({ resource: pods, maxLineLength: 64 * 1024 });
      inf.start();
      await inf.waitForSync();
      await e.clock.flush();
      const rv = inf.resourceVersion!;
      e.cluster.create(pods, pod("a", "p2"));
      e.cluster.faults.corruptWatches(kind, { times: 2, longLineBytes: 100_000 });
      e.cluster.faults.dropWatches();
      for (let t = 0; t < 30; t++) await e.clock.advance(1_000);
      const decode = e.errors.filter((x) => x.kind === "decode");
      assert.equal(decode.length, 2, e.errors.map((x) => String(x.error)).join("\n"));
      for (const { error } of decode) {
        assert.ok(error instanceof WatchDecodeError || error instanceof LineTooLongError);
      }
      // Only the decode failures and the dropped connection; no bad resource version leaked
      // into a later request.
      assert.deepEqual(
        e.errors.filter((x) => x.kind !== "decode" && x.kind !== "network").map((x) => x.kind),
        [],
      );
      const lists = e.cluster.requests.filter((r) => r.verb === "list");
      assert.equal(lists.length, 2, "one relist after the second decode failure");
      assert.ok(
        e.cluster.requests.filter((r) => r.verb === "watch" && r.query.resourceVersion === rv)
          .length <= 3,
      );
      assert.equal(inf.health().relists, 1);
      e.cluster.create(pods, pod("a", "p3"));
      await e.clock.flush();
      assert.deepEqual(state(inf.store.list()), state(e.cluster.list(pods)));
      await closed(e);
    });
  }
});

describe("liveness: server-supplied delays are validated", () => {
  for (const bad of ["abc", "-5", "1.5", "NaN", ""]) {
    test(`a garbage Retry-After (${JSON.stringify(bad)}) is ignored for the normal backoff`, async () => {
      const e = env();
      e.cluster.faults.failNext(1, { status: 429, verb: "list", retryAfter: bad });
      const inf = e.informer({ resource: pods, backoff: { jitter: "none" } });
      inf.start();
      await e.clock.flush();
      assert.equal(e.errors[0]?.kind, "rate-limited");
      const error = e.errors[0]!.error as KubeApiError;
      assert.equal(error.retryAfterSeconds, undefined);
      await e.clock.advance(799);
      assert.equal(count(e.cluster, "list"), 1, "waits the backoff's 800 ms");
      await e.clock.advance(1);
      await inf.waitForSync();
      await closed(e);
    });
  }

  test("a huge Retry-After is clamped to MAX_RETRY_AFTER_MS and no timer overflows", async () => {
    const e = env();
    const retryIn: number[] = [];
    e.cluster.faults.failNext(1, { status: 429, verb: "list", retryAfter: "99999999999" });
    const inf = e.informer({
      resource: pods,
      onError: (_error, ctx) => retryIn.push(ctx.retryInMs ?? 0),
    });
    inf.start();
    await e.clock.flush();
    assert.deepEqual(retryIn, [MAX_RETRY_AFTER_MS]);
    await e.clock.advance(MAX_RETRY_AFTER_MS - 1);
    assert.equal(count(e.cluster, "list"), 1);
    await e.clock.advance(1);
    await inf.waitForSync();
    await closed(e);
  });

  test("a Status with a bad retryAfterSeconds falls back to the backoff", async () => {
    let fail = true;
    const e = env({
      fetch: (c) => (req) => {
        if (!fail) return c.fetch(req);
        fail = false;
        return Promise.resolve(Response.json({
          kind: "Status",
          apiVersion: "v1",
          status: "Failure",
          code: 503,
          reason: "ServiceUnavailable",
          details: { retryAfterSeconds: -3 },
        }, { status: 503 }));
      },
    });
    const inf = e.informer({ resource: pods, backoff: { jitter: "none" } });
    inf.start();
    await e.clock.flush();
    assert.equal((e.errors[0]?.error as KubeApiError).retryAfterSeconds, undefined);
    await e.clock.advance(799);
    assert.equal(inf.hasSynced(), false, "waits the backoff's 800 ms");
    await e.clock.advance(1);
    await inf.waitForSync();
    await closed(e);
  });
});

describe("liveness: no hot loop, whatever the server does", () => {
  test("a server that closes every watch after one event: at most 25 watches in 10 s", async () => {
    const e = env();
    e.cluster.create(pods, pod("a", "p0"));
    const inf = e.informer({ resource: pods });
    inf.start();
    await inf.waitForSync();
    e.cluster.faults.closeWatchesAfter(1);
    e.cluster.faults.dropWatches();
    const before = count(e.cluster, "watch");
    // A busy resource: a change every 100 ms, so every new watch has an event at once.
    for (let t = 0; t < 100; t++) {
      e.cluster.create(pods, pod("a", `q${t}`));
      await e.clock.advance(100);
    }
    const watches = count(e.cluster, "watch") - before;
    assert.ok(watches <= 25, `${watches} watch requests in 10 s`);
    assert.ok(watches >= 3, "it kept re-watching");
    e.cluster.faults.reset();
    await e.clock.advance(60_000);
    assert.deepEqual(state(inf.store.list()), state(e.cluster.list(pods)));
    await closed(e);
  });

  test("a server that answers every watch with 410 at once is not relisted in a loop", async () => {
    let gone = false;
    const e = env({
      fetch: (c) => (req) => {
        if (gone && new URL(req.url).searchParams.get("watch")) {
          return Promise.resolve(
            new Response(
              '{"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","status":"Failure","code":410,"reason":"Expired","message":"too old"}}\n',
            ),
          );
        }
        return c.fetch(req);
      },
    });
    const inf = e.informer({ resource: pods });
    inf.start();
    await inf.waitForSync();
    gone = true;
    e.cluster.faults.dropWatches();
    const before = e.cluster.requests.length;
    for (let t = 0; t < 100; t++) await e.clock.advance(100);
    const requests = e.cluster.requests.length - before;
    assert.ok(requests <= 25, `${requests} requests in 10 s`);
    await closed(e);
  });
});

describe("liveness: streaming lists cannot livelock", () => {
  test("a silent stream without its end bookmark falls back to LIST within the deadline, even with a shorter inactivity limit", async () => {
    const e = env();
    e.cluster.create(pods, pod("a", "p1"));
    e.cluster.faults.omitInitialEventsEnd();
    const inf = e.informer({
      resource: pods,
      initialList: "stream",
      inactivityTimeoutMs: 5_000,
      initialEventsTimeoutMs: 10_000,
    });
    inf.start();
    for (let t = 0; t < 12 && !inf.hasSynced(); t++) await e.clock.advance(1_000);
    assert.equal(inf.hasSynced(), true);
    assert.deepEqual(e.cluster.requests.map((r) => r.verb).slice(0, 2), ["watch", "list"]);
    assert.equal(e.errors[0]?.kind, "initial-events-timeout");
    await closed(e);
  });

  test("a large stream that keeps flowing is never cut by the initial-events deadline", async () => {
    const e = env();
    for (let i = 0; i < 20; i++) e.cluster.create(pods, pod("a", `p${i}`));
    // ~5 KB at ~64 bytes per 500 ms: a minute of steady progress, 6x the deadline.
    e.cluster.faults.chunkBodies({ maxChunkBytes: 128, delayMs: 500 });
    const inf = e.informer({
      resource: pods,
      initialList: "stream",
      initialEventsTimeoutMs: 10_000,
      inactivityTimeoutMs: 20_000,
    });
    inf.start();
    for (let t = 0; t < 100 && !inf.hasSynced(); t++) await e.clock.advance(5_000);
    assert.equal(inf.hasSynced(), true);
    assert.ok(e.clock.now() > 60_000, "the stream ran well past the 10 s deadline");
    assert.equal(count(e.cluster, "list"), 0, "no fallback to LIST");
    assert.equal(count(e.cluster, "watch"), 1);
    assert.equal(inf.store.size, 20);
    e.cluster.faults.reset();
    await closed(e);
  });

  test("after a fallback to LIST, the next relist tries streaming again", async () => {
    const e = env();
    e.cluster.create(pods, pod("a", "p1"));
    e.cluster.faults.disableWatchList();
    const inf = e.informer({ resource: pods, initialList: "stream" });
    inf.start();
    await e.clock.advance(2_000);
    await inf.waitForSync();
    e.cluster.faults.disableWatchList(false);
    e.cluster.clearRequests();
    e.cluster.faults.dropWatches();
    e.cluster.create(pods, pod("a", "p2"));
    e.cluster.faults.compact();
    await e.clock.advance(5_000);
    // The re-watch after the drop gets 410; the relist that follows is a streaming list.
    assert.deepEqual(
      e.cluster.requests.map((r) => `${r.verb}${r.query.sendInitialEvents ? " (stream)" : ""}`),
      ["watch", "watch (stream)"],
    );
    assert.deepEqual(state(inf.store.list()), state(e.cluster.list(pods)));
    await closed(e);
  });
});

describe("liveness: the factory never ignores options silently", () => {
  test("a second informerFor() with more indexers adds them to the shared cache", async () => {
    const e = env();
    e.cluster.create(pods, pod("a", "p1", { app: "web" }));
    const factory = new SharedInformerFactory(e.client, { clock: e.clock });
    const byApp = (o: { metadata: { labels?: Record<string, string> } }) => [
      o.metadata.labels?.app ?? "",
    ];
    const first = factory.informerFor(pods);
    factory.start();
    await factory.waitForSync();
    const second = factory.informerFor(pods, { indexers: { byApp } });
    assert.equal(second, first);
    assert.deepEqual(first.store.byIndex("byApp", "web").map((o) => o.metadata.name), ["p1"]);
    assert.equal(factory.informerFor(pods, { indexers: { byApp } }), first, "same again is fine");
    assert.throws(
      () => factory.informerFor(pods, { indexers: { byApp: () => [] } }),
      /indexers\.byApp/,
    );
    await factory.stop();
    await closed(e);
  });

  test("a different transform, resync or other option throws an error naming it", async () => {
    const e = env();
    const factory = new SharedInformerFactory(e.client, { clock: e.clock });
    factory.informerFor(pods, { resyncPeriodMs: 30_000 });
    assert.throws(() => factory.informerFor(pods, { resyncPeriodMs: 60_000 }), /resyncPeriodMs/);
    assert.throws(() => factory.informerFor(pods, { transform: (o) => o }), /transform/);
    assert.throws(() => factory.informerFor(pods, { pageSize: 10 }), /pageSize/);
    // Another namespace or selector is another informer: no conflict.
    const other = factory.informerFor(pods, { namespace: "b", resyncPeriodMs: 60_000 });
    assert.equal(other.options.resyncPeriodMs, 60_000);
    await factory.stop();
    await closed(e);
  });
});

/** Forces a full garbage collection (npm test runs every runtime with gc exposed). */
function collectGarbage(): void {
  const g = globalThis as { gc?: () => void; Bun?: { gc(force: boolean): void } };
  if (g.Bun !== undefined) g.Bun.gc(true);
  else if (typeof g.gc === "function") g.gc();
  else throw new Error("gc is not exposed: run with --expose-gc (npm test does)");
}

describe("liveness: abandoned iterators do not leak", () => {
  test("events() iterators dropped without return() or abort lose their listeners once collected", async () => {
    const e = env();
    const inf = e.informer({ resource: pods });
    inf.start();
    await inf.waitForSync();
    const kept = inf.events();
    await kept.next();
    // Fifty consumers that read once and walk away, as a careless script would.
    await (async () => {
      for (let i = 0; i < 50; i++) await inf.events().next();
    })();
    assert.equal(inf.health().listeners.length, 51);
    for (let i = 0; i < 50 && inf.health().listeners.length > 1; i++) {
      collectGarbage();
      await new Promise((resolve) => setTimeout(resolve, 0)); // finalizers run as tasks
    }
    assert.equal(inf.health().listeners.length, 1, "only the iterator still referenced remains");
    e.cluster.create(pods, pod("a", "p1"));
    await e.clock.flush();
    assert.equal((await kept.next()).value?.type, "add", "the kept one still works");
    await kept.return?.();
    await closed(e);
  });
});
