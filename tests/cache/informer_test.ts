import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { configmaps, namespaces, pods } from "../../src/client/resource.ts";
import { KubeClient } from "../../src/client/kube_client.ts";
import { metadataOnly } from "../../src/client/metadata_only.ts";
import { createInformer, type ErrorContext } from "../../src/cache/informer.ts";
import { SharedInformerFactory } from "../../src/cache/factory.ts";
import { ManualClock } from "../../src/testing/manual_clock.ts";
import { SimulatedCluster } from "@kinformer/simulator";
import { closed, env, pod, seeded, show, take, verbs } from "../_informer_env.ts";
import { catchUncaught } from "./_uncaught.ts";

/** An env whose cluster holds pod a/p1, and a started informer on pods; `it` has seen `synced`. */
async function syncedOnP1() {
  const e = env();
  e.cluster.create(pods, pod("a", "p1"));
  const inf = e.informer({ resource: pods });
  const it = inf.events();
  inf.start();
  await take(it, (ev) => ev.type === "synced");
  return { e, inf, it };
}

/**
 * An `env` fetch that answers the first request `matches` accepts with `answer()` instead of the
 * cluster, and passes every other request to the cluster.
 */
function answerFirst(
  matches: (request: Request) => boolean,
  answer: () => Response,
): (c: SimulatedCluster) => (request: Request) => Promise<Response> {
  let pending = true;
  return (c) => (request) => {
    if (pending && matches(request)) {
      pending = false;
      return Promise.resolve(answer());
    }
    return c.fetch(request);
  };
}

describe("informer: list, cache and listeners", () => {
  test("does nothing until start(), then lists at RV 0 with limit 500 and serves the cache", async () => {
    const e = env();
    e.cluster.create(pods, pod("a", "p1", { app: "web" }));
    e.cluster.create(pods, pod("b", "p2", { app: "db" }));
    const inf = e.informer({
      resource: pods,
      indexers: { app: (p) => [p.metadata.labels?.app ?? ""] },
    });
    await e.clock.flush();
    assert.equal(e.cluster.requests.length, 0);
    inf.start();
    inf.start();
    await inf.waitForSync();
    assert.equal(inf.hasSynced(), true);
    const list = e.cluster.requests[0]!;
    assert.equal(list.verb, "list");
    assert.equal(list.query.resourceVersion, "0");
    assert.equal(list.query.limit, "500");
    assert.equal(inf.store.size, 2);
    assert.equal(inf.store.get("a/p1")?.metadata.labels?.app, "web");
    assert.deepEqual(inf.store.byIndex("namespace", "b").map((p) => p.metadata.name), ["p2"]);
    assert.deepEqual(inf.store.byIndex("app", "web").map((p) => p.metadata.name), ["p1"]);
    assert.deepEqual(
      inf.lister.list({ labelSelector: "app in (db)" }).map((p) => p.metadata.name),
      ["p2"],
    );
    assert.equal(inf.lister.namespace("a").get("p1")?.metadata.name, "p1");
    await e.close();
  });

  test("objects from the initial list carry apiVersion and kind, as watched ones do (a LIST's items have neither)", async () => {
    const { e, inf, it } = await syncedOnP1();
    const listed = inf.store.get("a/p1")!;
    assert.equal(listed.apiVersion, "v1");
    assert.equal(listed.kind, "Pod");
    e.cluster.create(pods, pod("a", "p2"));
    await take(it, (ev) => ev.type === "add");
    assert.equal(inf.store.get("a/p2")!.kind, "Pod");
    const meta = e.informer({ resource: metadataOnly(pods) });
    meta.start();
    await meta.waitForSync();
    const partial = meta.store.get("a/p1")!;
    assert.equal(partial.apiVersion, "meta.k8s.io/v1");
    assert.equal(partial.kind, "PartialObjectMetadata");
    await meta.stop();
    await inf.stop();
    await closed(e);
  });

  test("pages the list with limit/continue and keeps one resource version", async () => {
    const e = env({ cluster: { watchCache: false } }); // a server that pages lists at "0"
    for (let i = 0; i < 23; i++) e.cluster.create(pods, pod("a", `p${String(i).padStart(2, "0")}`));
    const inf = e.informer({ resource: pods, pageSize: 5 });
    inf.start();
    await inf.waitForSync();
    const lists = e.cluster.requests.filter((r) => r.verb === "list");
    assert.equal(lists.length, 5);
    assert.equal(lists[1]!.query.continue !== undefined, true);
    assert.equal(inf.store.size, 23);
    await e.clock.flush();
    const watch = e.cluster.requests.find((r) => r.verb === "watch")!;
    assert.equal(watch.query.resourceVersion, e.cluster.resourceVersion);
    assert.equal(watch.query.allowWatchBookmarks, "true");
    const timeout = Number(watch.query.timeoutSeconds);
    assert.ok(timeout >= 300 && timeout < 600, `timeoutSeconds ${timeout}`);
    await e.close();
  });

  test("events() yields the initial list as adds, then synced, then live add/update/delete", async () => {
    const e = env();
    e.cluster.create(pods, pod("a", "p1"));
    e.cluster.create(pods, pod("a", "p2"));
    const inf = e.informer({ resource: pods });
    const it = inf.events();
    inf.start();
    const initial = await take(it, (ev) => ev.type === "synced");
    assert.deepEqual(initial.map(show), ["add p1 (initial)", "add p2 (initial)", "synced"]);
    e.cluster.create(pods, pod("a", "p3"));
    e.cluster.patch(pods, { namespace: "a", name: "p1" }, { metadata: { labels: { x: "1" } } });
    e.cluster.delete(pods, { namespace: "a", name: "p1" });
    const live = await take(it, (_, all) => all.length === 3);
    assert.deepEqual(live.map(show), ["add p3", "update p1", "delete p1"]);
    const update = live[1]!;
    assert.ok(update.type === "update");
    assert.equal(update.oldObject.metadata.labels?.x, undefined);
    assert.equal(update.object.metadata.labels?.x, "1");
    const del = live[2]!;
    assert.ok(del.type === "delete" && del.finalStateUnknown === false);
    assert.equal(del.object.metadata.labels?.x, "1");
    await it.return!();
    assert.equal(inf.health().listeners.length, 0);
    await e.close();
  });

  test("an events() iterator is AsyncDisposable: disposing removes its listener (await using)", async () => {
    const e = env();
    e.cluster.create(pods, pod("a", "p1"));
    const inf = e.informer({ resource: pods });
    const it = inf.events();
    inf.start();
    await take(it, (ev) => ev.type === "synced");
    assert.equal(inf.health().listeners.length, 1);
    assert.equal(typeof it[Symbol.asyncDispose], "function");
    await it[Symbol.asyncDispose]();
    assert.equal(inf.health().listeners.length, 0);
    assert.equal((await it.next()).done, true);
    await e.close();
  });

  test("a listener that joins late gets the cache as initial adds, then its own synced", async () => {
    const e = env();
    e.cluster.create(pods, pod("a", "p1"));
    const inf = e.informer({ resource: pods });
    inf.start();
    await inf.waitForSync();
    e.cluster.create(pods, pod("a", "p2"));
    await e.clock.flush();
    const late = await take(inf.events(), (ev) => ev.type === "synced");
    assert.deepEqual(late.map(show), ["add p1 (initial)", "add p2 (initial)", "synced"]);
    await e.close();
  });

  test("per-listener synced: a slow handler is not synced while a fast one is", async () => {
    const e = env();
    for (const n of ["p1", "p2", "p3"]) e.cluster.create(pods, pod("a", n));
    const inf = e.informer({ resource: pods });
    const fastSeen: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const slowSeen: string[] = [];
    const fast = inf.addEventHandler({ onAdd: (p) => void fastSeen.push(p.metadata.name!) });
    const slow = inf.addEventHandler({
      onAdd: async (p) => {
        slowSeen.push(p.metadata.name!);
        await gate;
      },
    });
    inf.start();
    await inf.waitForSync();
    await e.clock.flush();
    assert.equal(inf.hasSynced(), true);
    assert.equal(fast.hasSynced(), true);
    assert.deepEqual(fastSeen, ["p1", "p2", "p3"]);
    assert.equal(slow.hasSynced(), false);
    assert.deepEqual(slowSeen, ["p1"]);
    const slowHealth = inf.health().listeners.find((l) => !l.synced)!;
    assert.equal(slowHealth.backlog, 3); // p2, p3, synced
    await fast.waitForSync();
    const slowSynced = slow.waitForSync();
    release();
    await slowSynced;
    assert.equal(slow.hasSynced(), true);
    assert.deepEqual(slowSeen, ["p1", "p2", "p3"]);
    slow.remove();
    fast.remove();
    await e.close();
  });

  test("a handler that throws is reported and delivery goes on", async () => {
    const e = env();
    e.cluster.create(pods, pod("a", "p1"));
    e.cluster.create(pods, pod("a", "p2"));
    const inf = e.informer({ resource: pods });
    const seen: string[] = [];
    inf.addEventHandler({
      onAdd: (p) => {
        seen.push(p.metadata.name!);
        if (p.metadata.name === "p1") throw new Error("boom");
      },
    });
    inf.start();
    await inf.waitForSync();
    await e.clock.flush();
    assert.deepEqual(seen, ["p1", "p2"]);
    assert.equal(e.errors.filter((x) => x.kind === "handler").length, 1);
    await e.close();
  });

  test("resync re-delivers the cache as updates with object === oldObject, without requests", async () => {
    const e = env();
    e.cluster.create(pods, pod("a", "p1"));
    e.cluster.create(pods, pod("a", "p2"));
    const inf = e.informer({ resource: pods, resyncPeriodMs: 30_000 });
    const it = inf.events();
    inf.start();
    await take(it, (ev) => ev.type === "synced");
    const before = e.cluster.requests.length;
    await e.clock.advance(30_000);
    const resync = await take(it, (_, all) => all.length === 2);
    assert.deepEqual(resync.map(show).sort(), ["update p1", "update p2"]);
    for (const ev of resync) assert.ok(ev.type === "update" && ev.object === ev.oldObject);
    assert.equal(e.cluster.requests.length, before);
    await e.close();
  });

  test("transform runs before caching (strip managedFields)", async () => {
    const e = env();
    e.cluster.create(pods, {
      ...pod("a", "p1"),
      metadata: { namespace: "a", name: "p1", managedFields: [{ manager: "kubectl" }] },
    });
    const inf = e.informer({
      resource: pods,
      transform: (o) => {
        delete o.metadata.managedFields;
        return o;
      },
    });
    inf.start();
    await inf.waitForSync();
    assert.equal(inf.store.get("a/p1")?.metadata.managedFields, undefined);
    await e.close();
  });

  test("coalescing bounds a stalled listener's memory by keys; grow keeps every event", async () => {
    const e = env();
    for (let i = 0; i < 10; i++) e.cluster.create(pods, pod("a", `p${i}`));
    const inf = e.informer({ resource: pods });
    const grow = inf.events();
    const coalesce = inf.events({ overflow: "coalesce" });
    inf.start();
    await inf.waitForSync();
    for (let round = 0; round < 200; round++) {
      for (let i = 0; i < 10; i++) {
        e.cluster.patch(pods, { namespace: "a", name: `p${i}` }, {
          metadata: { annotations: { round: String(round) } },
        });
      }
    }
    await e.clock.flush(10);
    while (inf.resourceVersion !== e.cluster.resourceVersion) await e.clock.flush();
    const [g, c] = inf.health().listeners;
    assert.equal(g!.overflow, "grow");
    assert.equal(g!.backlog, 10 + 1 + 2000);
    assert.equal(c!.overflow, "coalesce");
    assert.ok(c!.backlog <= 11, `coalesced backlog ${c!.backlog}`);
    const events = await take(coalesce, (_, all) => all.length === c!.backlog);
    assert.equal(events.at(-1)?.type !== undefined, true);
    const names = events.filter((x) => x.type === "add").map((x) =>
      x.type === "add" && x.object.metadata.annotations?.round
    );
    assert.deepEqual(names, Array(10).fill("199"));
    await grow.return!();
    await e.close();
  });

  test("an object re-created under the same name arrives as delete then add", async () => {
    const { e, inf, it } = await syncedOnP1();
    const oldUid = inf.store.get("a/p1")!.metadata.uid;
    e.cluster.delete(pods, { namespace: "a", name: "p1" });
    e.cluster.create(pods, pod("a", "p1"));
    const evs = await take(it, (_, all) => all.length === 2);
    assert.deepEqual(evs.map(show), ["delete p1", "add p1"]);
    assert.notEqual(inf.store.get("a/p1")!.metadata.uid, oldUid);
    await e.close();
  });
});

describe("informer: surviving a real cluster", () => {
  test("a dropped watch resumes from the last RV without relisting", async () => {
    const { e, inf, it } = await syncedOnP1();
    const rv = inf.resourceVersion;
    assert.equal(e.cluster.faults.dropWatches(), 1);
    e.cluster.create(pods, pod("a", "p2"));
    await e.clock.advance(2_000);
    const evs = await take(it, (_, all) => all.length === 1);
    assert.deepEqual(evs.map(show), ["add p2"]);
    assert.deepEqual(verbs(e.cluster), ["list", "watch", "watch"]);
    assert.equal(e.cluster.requests[2]!.query.resourceVersion, rv);
    assert.equal(inf.health().relists, 0);
    assert.equal(inf.health().watchRestarts, 1);
    await e.close();
  });

  test("410 Expired relists: tombstones for objects deleted while away, delete+add for a new uid", async () => {
    const e = env();
    for (const n of ["p1", "p2", "p3"]) e.cluster.create(pods, pod("a", n));
    const inf = e.informer({ resource: pods });
    const it = inf.events();
    inf.start();
    await take(it, (ev) => ev.type === "synced");
    await e.clock.flush();
    assert.equal(e.cluster.faults.dropWatches(), 1);
    await e.clock.flush();
    // While disconnected: p1 changes, p2 goes, p3 is re-created, history is compacted.
    e.cluster.patch(pods, { namespace: "a", name: "p1" }, { metadata: { labels: { v: "2" } } });
    e.cluster.delete(pods, { namespace: "a", name: "p2" });
    e.cluster.delete(pods, { namespace: "a", name: "p3" });
    e.cluster.create(pods, pod("a", "p3"));
    e.cluster.faults.compact();
    // re-watch -> 410. The watch had started at the list's RV and received nothing, so a relist
    // at that RV could only be stale: the reflector backs off and lists consistently ("").
    await e.clock.advance(10_000);
    const evs = await take(it, (_, all) => all.length === 4);
    const lists = e.cluster.requests.filter((r) => r.verb === "list").map((r) =>
      r.query.resourceVersion
    );
    assert.deepEqual(lists, ["0", ""]);
    assert.deepEqual(evs.map(show), [
      "update p1",
      "delete p3 (unknown)",
      "add p3",
      "delete p2 (unknown)",
    ]);
    const tomb = evs[3]!;
    assert.ok(tomb.type === "delete");
    assert.equal(tomb.object.metadata.name, "p2"); // last known state, no tombstone to unwrap
    assert.equal(inf.health().relists, 1);
    assert.ok(e.errors.some((x) => x.kind === "expired"));
    assert.deepEqual(inf.store.listKeys().sort(), ["a/p1", "a/p3"]);
    await e.close();
  });

  test("a 429 with Retry-After is honoured before the next attempt", async () => {
    const e = env();
    e.cluster.create(pods, pod("a", "p1"));
    e.cluster.faults.failNext(1, { status: 429, verb: "list", retryAfterSeconds: 7 });
    const inf = e.informer({ resource: pods });
    inf.start();
    await e.clock.flush();
    assert.deepEqual(verbs(e.cluster), ["list"]);
    assert.equal(e.errors[0]?.kind, "rate-limited");
    await e.clock.advance(6_900);
    assert.deepEqual(verbs(e.cluster), ["list"]);
    await e.clock.advance(200);
    await inf.waitForSync();
    assert.deepEqual(verbs(e.cluster).slice(0, 2), ["list", "list"]);
    await e.close();
  });

  test("a stalled (half-open) watch is reconnected by the inactivity timer", async () => {
    const e = env();
    const inf = e.informer({ resource: pods, inactivityTimeoutMs: 150_000 });
    const it = inf.events();
    inf.start();
    await take(it, (ev) => ev.type === "synced");
    e.cluster.faults.stall();
    e.cluster.create(pods, pod("a", "late"));
    await e.clock.advance(149_000);
    assert.equal(inf.health().stalled, false);
    assert.equal(inf.store.size, 0);
    await e.clock.advance(1_001);
    assert.ok(e.errors.some((x) => x.kind === "inactivity"));
    e.cluster.faults.resume();
    await e.clock.advance(2_000);
    const evs = await take(it, (_, all) => all.length === 1);
    assert.deepEqual(evs.map(show), ["add late"]);
    assert.deepEqual(verbs(e.cluster), ["list", "watch", "watch"]);
    await e.close();
  });

  test("health().stalled turns on when nothing arrives across reconnects, and off again", async () => {
    const e = env();
    const inf = e.informer({ resource: pods, inactivityTimeoutMs: 150_000 });
    inf.start();
    await inf.waitForSync();
    await e.clock.flush();
    e.cluster.faults.stall();
    await e.clock.advance(149_000);
    assert.equal(inf.health().stalled, false);
    await e.clock.advance(3_000); // the inactivity timer reconnects, the new watch is silent too
    const h = inf.health();
    assert.equal(h.stalled, true);
    assert.equal(h.watchRestarts, 1);
    assert.equal(h.errors.inactivity, 1);
    e.cluster.faults.resume();
    e.cluster.create(pods, pod("a", "alive"));
    await e.clock.flush();
    assert.equal(inf.store.size, 1);
    assert.equal(inf.health().stalled, false);
    await e.close();
  });

  test("401 Unauthorized is reported and retried with growing backoff, not in a hot loop", async () => {
    const clock = new ManualClock();
    const cluster = new SimulatedCluster({ clock, token: "right" });
    const client = new KubeClient({
      server: "http://sim.test",
      token: "wrong",
      fetch: cluster.fetch,
    });
    const kinds: string[] = [];
    const inf = createInformer(client, {
      resource: pods,
      clock,
      random: seeded(3),
      onError: (_e, ctx) => kinds.push(ctx.kind),
    });
    inf.start();
    await clock.advance(60_000);
    const lists = cluster.requests.filter((r) => r.verb === "list").length;
    assert.ok(lists >= 3 && lists <= 8, `${lists} lists in 60 s`);
    assert.ok(kinds.every((k) => k === "unauthorized"));
    assert.equal(inf.health().lastError?.kind, "unauthorized");
    assert.equal(inf.hasSynced(), false);
    await inf.stop();
    cluster.close();
    assert.equal(clock.pendingTimers, 0);
  });

  test("a malformed watch line is reported as a decode error and the watch resumes, cache intact", async () => {
    const e = env({
      fetch: answerFirst(
        (req) => Boolean(new URL(req.url).searchParams.get("watch")),
        () =>
          new Response('{"type":"ADDED","object":{"metadata":{"name":"x"}}}\n{not json\n', {
            headers: { "content-type": "application/json" },
          }),
      ),
    });
    e.cluster.create(pods, pod("a", "p1"));
    const inf = e.informer({ resource: pods });
    inf.start();
    await inf.waitForSync();
    await e.clock.advance(2_000);
    assert.ok(e.errors.some((x) => x.kind === "decode"));
    e.cluster.create(pods, pod("a", "p2"));
    await e.clock.flush();
    assert.deepEqual(inf.store.listKeys().sort(), ["a/p1", "a/p2", "x"]);
    assert.equal(inf.health().relists, 0);
    await e.close();
  });

  test("an HTML error page from a proxy on LIST is a typed error, then the informer recovers", async () => {
    const e = env({
      fetch: answerFirst(
        () => true,
        () =>
          new Response("<html><body><h1>502 Bad Gateway</h1></body></html>", {
            status: 502,
            headers: { "content-type": "text/html" },
          }),
      ),
    });
    e.cluster.create(pods, pod("a", "p1"));
    const inf = e.informer({ resource: pods });
    inf.start();
    await e.clock.advance(2_000);
    await inf.waitForSync();
    assert.equal(e.errors[0]?.kind, "server");
    assert.match(String(e.errors[0]?.error), /502/);
    assert.equal(inf.store.size, 1);
    await e.close();
  });

  test("streaming list: sendInitialEvents with no LIST, initial adds then synced", async () => {
    const e = env();
    e.cluster.create(pods, pod("a", "p1"));
    e.cluster.create(pods, pod("a", "p2"));
    const inf = e.informer({ resource: pods, initialList: "stream" });
    const it = inf.events();
    inf.start();
    const evs = await take(it, (ev) => ev.type === "synced");
    assert.deepEqual(evs.map(show), ["add p1 (initial)", "add p2 (initial)", "synced"]);
    assert.deepEqual(verbs(e.cluster), ["watch"]);
    const q = e.cluster.requests[0]!.query;
    assert.equal(q.sendInitialEvents, "true");
    assert.equal(q.resourceVersionMatch, "NotOlderThan");
    e.cluster.create(pods, pod("a", "p3"));
    assert.deepEqual((await take(it, () => true)).map(show), ["add p3"]);
    await e.close();
  });

  test("streaming list falls back to LIST when the server refuses it (422)", async () => {
    const e = env();
    e.cluster.faults.disableWatchList();
    e.cluster.create(pods, pod("a", "p1"));
    const inf = e.informer({ resource: pods, initialList: "auto" });
    inf.start();
    await e.clock.advance(2_000);
    await inf.waitForSync();
    assert.deepEqual(verbs(e.cluster).slice(0, 3), ["watch", "list", "watch"]);
    assert.equal(e.errors[0]?.kind, "invalid");
    assert.equal(inf.store.size, 1);
    await e.close();
  });

  test("streaming list whose end bookmark never comes falls back to LIST instead of hanging", async () => {
    const e = env();
    e.cluster.faults.omitInitialEventsEnd();
    e.cluster.create(pods, pod("a", "p1"));
    const inf = e.informer({
      resource: pods,
      initialList: "stream",
      initialEventsTimeoutMs: 60_000,
    });
    inf.start();
    await e.clock.advance(59_000);
    assert.equal(inf.hasSynced(), false);
    await e.clock.advance(3_000);
    await inf.waitForSync();
    assert.ok(e.errors.some((x) => x.kind === "initial-events-timeout"));
    assert.deepEqual(verbs(e.cluster).slice(0, 3), ["watch", "list", "watch"]);
    await e.close();
  });

  test("chunks split anywhere (mid-JSON, mid-UTF-8) give the same cache", async () => {
    const e = env();
    for (let i = 0; i < 5; i++) {
      e.cluster.create(pods, {
        ...pod("a", `p${i}`),
        metadata: { namespace: "a", name: `p${i}`, annotations: { note: "héllo 日本語 🚀" } },
      });
    }
    e.cluster.faults.chunkBodies({ maxChunkBytes: 7 });
    const inf = e.informer({ resource: pods });
    const it = inf.events();
    inf.start();
    await take(it, (ev) => ev.type === "synced");
    e.cluster.create(pods, {
      ...pod("a", "p9"),
      metadata: { namespace: "a", name: "p9", annotations: { note: "ünïcödé ✓" } },
    });
    const [ev] = await take(it, () => true);
    assert.ok(ev?.type === "add");
    assert.equal(ev.object.metadata.annotations?.note, "ünïcödé ✓");
    assert.equal(inf.store.get("a/p3")?.metadata.annotations?.note, "héllo 日本語 🚀");
    await e.close();
  });

  test("namespace and label selectors apply to LIST and WATCH; leaving the selector is a delete", async () => {
    const e = env();
    e.cluster.create(pods, pod("a", "p1", { app: "web" }));
    e.cluster.create(pods, pod("a", "p2", { app: "db" }));
    e.cluster.create(pods, pod("b", "p3", { app: "web" }));
    const inf = e.informer({ resource: pods, namespace: "a", labelSelector: "app=web" });
    const it = inf.events();
    inf.start();
    const initial = await take(it, (ev) => ev.type === "synced");
    assert.deepEqual(initial.map(show), ["add p1 (initial)", "synced"]);
    for (const r of e.cluster.requests) {
      assert.equal(r.query.labelSelector, "app=web");
      assert.match(r.path, /namespaces\/a\/pods/);
    }
    e.cluster.patch(pods, { namespace: "a", name: "p1" }, { metadata: { labels: { app: "db" } } });
    e.cluster.patch(pods, { namespace: "a", name: "p2" }, { metadata: { labels: { app: "web" } } });
    assert.deepEqual((await take(it, (_, all) => all.length === 2)).map(show), [
      "delete p1",
      "add p2",
    ]);
    await e.close();
  });

  test("stop() releases every timer, reader and watch; events() iterators end", async () => {
    const e = env();
    e.cluster.create(pods, pod("a", "p1"));
    const inf = e.informer({ resource: pods, resyncPeriodMs: 10_000 });
    const it = inf.events();
    inf.start();
    await take(it, (ev) => ev.type === "synced");
    assert.equal(e.cluster.openWatches, 1);
    const pending = it.next();
    await inf.stop();
    assert.deepEqual(await pending, { done: true, value: undefined });
    await e.clock.flush();
    assert.equal(e.cluster.openWatches, 0);
    assert.equal(inf.health().state, "stopped");
    e.cluster.close();
    assert.equal(e.clock.pendingTimers, 0);
  });

  test("start({ signal }) stops on abort; waitForSync rejects on its own abort", async () => {
    const e = env();
    e.cluster.faults.failNext(100, { status: 500, verb: "list" });
    const inf = e.informer({ resource: pods });
    const ac = new AbortController();
    inf.start({ signal: ac.signal });
    const wait = new AbortController();
    const waiting = inf.waitForSync({ signal: wait.signal });
    wait.abort(new Error("gave up"));
    await assert.rejects(waiting, /gave up/);
    ac.abort();
    await e.clock.flush();
    await assert.rejects(inf.waitForSync(), /stopped before it synced/);
    await e.close();
    assert.equal(e.clock.pendingTimers, 0);
  });

  test("bad options are rejected up front with the option's name", () => {
    const e = env();
    assert.throws(() => e.informer({ resource: pods, pageSize: 0 }), /pageSize/);
    assert.throws(() => e.informer({ resource: namespaces, namespace: "a" }), /cluster-scoped/);
    assert.throws(
      () => e.informer({ resource: pods, initialList: "fast" as "list" }),
      /initialList/,
    );
    assert.throws(() => e.informer({ resource: pods, resyncPeriodMs: -1 }), /resyncPeriodMs/);
    e.cluster.close();
  });
});

describe("one lifecycle", () => {
  test("start is idempotent, stop is idempotent and releases everything, await using stops", async () => {
    const e = env();
    e.cluster.create(pods, pod("default", "p1"));
    // `await using` is Symbol.asyncDispose at the block's end (spelled out: Node 22 has the
    // symbol but not the syntax).
    {
      const inf = e.informer({ resource: pods });
      try {
        inf.start();
        inf.start();
        await inf.waitForSync();
        assert.equal(e.cluster.requests.filter((r) => r.verb === "list").length, 1);
      } finally {
        await inf[Symbol.asyncDispose]();
      }
    }
    assert.equal(e.cluster.openWatches, 0, "await using stopped it");
    const inf = e.informer({ resource: pods });
    inf.start();
    await inf.waitForSync();
    await Promise.all([inf.stop(), inf.stop()]);
    await inf.stop();
    assert.equal(inf.health().state, "stopped");
    await closed(e);
  });

  test("a signal already aborted stops at once; aborting the signal later stops the informer", async () => {
    const e = env();
    const aborted = e.informer({ resource: pods });
    aborted.start({ signal: AbortSignal.abort() });
    await e.clock.flush();
    assert.equal(e.cluster.requests.length, 0);
    await assert.rejects(aborted.waitForSync(), /stopped before it synced/);
    const old = e.informer({ resource: pods });
    const ac = new AbortController();
    old.start({ signal: ac.signal });
    await old.waitForSync();
    ac.abort();
    await e.clock.flush();
    assert.equal(old.health().state, "stopped");
    await closed(e);
  });

  test("the factory: start({ signal }), waitForSync(), stop(); a start after stop() throws", async () => {
    const e = env();
    e.cluster.create(pods, pod("default", "p1"));
    const factory = new SharedInformerFactory(e.client, { clock: e.clock });
    const podInformer = factory.informerFor(pods);
    const ac = new AbortController();
    factory.start({ signal: ac.signal });
    factory.start({ signal: ac.signal });
    await factory.waitForSync();
    const late = factory.informerFor(configmaps);
    await late.waitForSync();
    ac.abort(); // stops them all, the late one too
    await e.clock.flush();
    assert.equal(podInformer.health().state, "stopped");
    assert.equal(late.health().state, "stopped");
    await factory.stop();
    await factory.stop(); // idempotent
    assert.throws(() => factory.start(), {
      name: "LifecycleError",
      message: "informer factory was stopped and runs once: create a new one to start again",
    });
    {
      const other = new SharedInformerFactory(e.client, { clock: e.clock });
      try {
        other.informerFor(pods);
        other.start();
        await other.waitForSync();
      } finally {
        await other[Symbol.asyncDispose]();
      }
    }
    await closed(e);
  });
});

describe("SharedInformerFactory", () => {
  test("shares one informer per resource+namespace+selectors and syncs them all", async () => {
    const e = env();
    e.cluster.create(pods, pod("default", "p1"));
    e.cluster.create(configmaps, { metadata: { namespace: "default", name: "c1" }, data: {} });
    const factory = new SharedInformerFactory(e.client, { namespace: "default", clock: e.clock });
    const a = factory.informerFor(pods);
    assert.equal(factory.informerFor(pods), a);
    assert.notEqual(factory.informerFor(pods, { labelSelector: "x=y" }), a);
    const cms = factory.informerFor(configmaps);
    const ns = factory.informerFor(namespaces); // cluster-scoped: the default namespace is dropped
    factory.start();
    await factory.waitForSync();
    assert.equal(a.store.size, 1);
    assert.equal(cms.store.size, 1);
    assert.equal(ns.hasSynced(), true);
    const late = factory.informerFor(configmaps, { fieldSelector: "metadata.name=c1" });
    await late.waitForSync();
    assert.equal(late.store.size, 1);
    await factory.stop();
    e.cluster.close();
    assert.equal(e.clock.pendingTimers, 0);
  });

  test("an informer asked for after stop() is not started: nothing outlives the factory", async () => {
    const e = env();
    const factory = new SharedInformerFactory(e.client, { clock: e.clock });
    factory.informerFor(pods);
    factory.start();
    await factory.waitForSync();
    await factory.stop();
    e.cluster.clearRequests();
    const late = factory.informerFor(configmaps);
    await e.clock.advance(1_000);
    assert.deepEqual(e.cluster.requests.map((r) => r.verb), [], "no list, no watch");
    assert.equal(late.health().state, "idle");
    assert.equal(e.cluster.openWatches, 0);
    assert.throws(() => factory.start(), /informer factory was stopped/, "it says so at once");
    await e.clock.advance(1_000);
    assert.deepEqual(e.cluster.requests.map((r) => r.verb), []);
    await factory.stop();
    await late.stop();
    e.cluster.close();
    assert.equal(e.clock.pendingTimers, 0);
  });
});

describe("informer: relist after a watch that had made progress", () => {
  test("410 after events relists at the last synced RV, unpaged (served from the watch cache)", async () => {
    const { e, inf, it } = await syncedOnP1();
    e.cluster.create(pods, pod("a", "p2"));
    await take(it, () => true);
    const rv = inf.resourceVersion!;
    await e.clock.flush();
    e.cluster.faults.dropWatches();
    e.cluster.delete(pods, { namespace: "a", name: "p1" });
    e.cluster.faults.compact();
    await e.clock.advance(10_000);
    const evs = await take(it, () => true);
    assert.deepEqual(evs.map(show), ["delete p1 (unknown)"]);
    const lists = e.cluster.requests.filter((r) => r.verb === "list").map((r) =>
      `${r.query.resourceVersion} limit=${r.query.limit ?? "-"}`
    );
    assert.deepEqual(lists, ["0 limit=500", `${rv} limit=-`]);
    await e.close();
  });
});

describe("informer: pipelined paging", () => {
  test("the next page (one ahead, no more) is requested as soon as a page's continue token arrives", async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let held = false;
    const e = env({
      fetch: (c) => async (req) => {
        const res = await c.fetch(req);
        const url = new URL(req.url);
        if (held || url.searchParams.get("limit") === null || url.searchParams.has("continue")) {
          return res;
        }
        held = true;
        // Page 1: hand over the head (with metadata.continue) at once, the rest after the gate.
        const text = await res.text();
        const cut = text.indexOf('"items"') + 10;
        const enc = new TextEncoder();
        const body = new ReadableStream<Uint8Array>({
          async start(controller) {
            controller.enqueue(enc.encode(text.slice(0, cut)));
            await gate;
            controller.enqueue(enc.encode(text.slice(cut)));
            controller.close();
          },
        });
        return new Response(body, { status: res.status, headers: res.headers });
      },
      cluster: { watchCache: false },
    });
    for (let i = 0; i < 12; i++) e.cluster.create(pods, pod("a", `p${String(i).padStart(2, "0")}`));
    const inf = e.informer({ resource: pods, pageSize: 5 });
    inf.start();
    await e.clock.flush(5);
    const lists = () => e.cluster.requests.filter((r) => r.verb === "list");
    assert.equal(lists().length, 2, "page 2 was requested while page 1 was still arriving");
    assert.equal(inf.hasSynced(), false);
    release();
    await inf.waitForSync();
    assert.deepEqual(inf.store.listKeys().length, 12);
    assert.equal(lists().length, 3);
    await e.close();
  });
});

describe("informer: one way a throwing callback is reported", () => {
  test("a throwing handler, transform and metrics hook go to onError by kind; a throwing onError is reported as uncaught and the informer goes on", async () => {
    const e = env();
    e.cluster.create(pods, pod("default", "p1"));
    const uncaught: unknown[] = [];
    const restore = catchUncaught((error) => uncaught.push(error));
    try {
      const kinds: string[] = [];
      const broken = new Error("onError broke");
      const inf = e.informer({
        resource: pods,
        transform: (o) => {
          if (o.metadata.name === "bad") throw new Error("transform broke");
          return o;
        },
        metrics: {
          onList: () => {
            throw new Error("hook broke");
          },
        },
        onError: (_error, context) => {
          kinds.push(context.kind);
          throw broken;
        },
      });
      inf.addEventHandler({
        onAdd: () => {
          throw new Error("handler broke");
        },
      });
      inf.start();
      await inf.waitForSync();
      e.cluster.create(pods, pod("default", "bad"));
      e.cluster.create(pods, pod("default", "p2"));
      await e.clock.flush();
      assert.deepEqual(inf.store.listKeys().sort(), ["default/p1", "default/p2"]);
      assert.deepEqual([...new Set(kinds)].sort(), ["handler", "transform"]);
      assert.equal(uncaught.length, kinds.length, "every throw of onError was reported");
      assert.ok(uncaught.every((error) => error === broken));
    } finally {
      restore();
    }
    await closed(e);
  });

  test("a throwing index function goes to onError as kind and phase handler; that key keeps its state", async () => {
    const e = env();
    e.cluster.create(pods, pod("default", "p1"));
    const contexts: ErrorContext[] = [];
    const inf = e.informer({
      resource: pods,
      indexers: {
        byName: (o) => {
          if (o.metadata.labels?.["broken"] === "yes") throw new Error("index broke");
          return [o.metadata.name ?? ""];
        },
      },
      onError: (_error, context) => void contexts.push(context),
    });
    inf.start();
    await inf.waitForSync();
    e.cluster.patch(pods, { namespace: "default", name: "p1" }, {
      metadata: { labels: { broken: "yes" } },
    });
    e.cluster.create(pods, pod("default", "p2"));
    await e.clock.flush();
    assert.deepEqual(contexts, [{
      kind: "handler",
      phase: "handler",
      source: "pods informer",
      key: "default/p1",
      action: "keeping the key's cached object",
    }]);
    assert.equal(inf.store.get("default/p1")?.metadata.labels?.["broken"], undefined);
    assert.deepEqual(inf.store.byIndex("byName", "p2").length, 1);
    await e.close();
  });
});
