// health() and the metrics hooks, driven by faults injected into the simulated cluster on a manual
// clock: every counter, timestamp and state must follow what actually happened.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { pods } from "../../src/client/resource.ts";
import type { InformerMetrics } from "../../src/cache/informer.ts";
import type { ErrorKind } from "../../src/util/error_kind.ts";
import { sleep } from "../../src/util/clock.ts";
import type { SimulatedCluster } from "@kinformer/simulator";
import { closed, type Env, env, pod, take, verbs } from "../_informer_env.ts";

/** Every metrics hook, recording its calls as text (`"list 750ms 5 items 3 pages"`, ...). */
function recorder(): {
  metrics: Required<InformerMetrics>;
  calls: string[];
  of(prefix: string): string[];
} {
  const calls: string[] = [];
  return {
    calls,
    of: (prefix) => calls.filter((c) => c.startsWith(prefix + " ")),
    metrics: {
      onList: (ms, items, pages) => void calls.push(`list ${ms}ms ${items} items ${pages} pages`),
      onWatchEvent: (type) => void calls.push(`event ${type}`),
      onRelist: (reason) => void calls.push(`relist ${reason}`),
      onReconnect: (kind) => void calls.push(`reconnect ${kind}`),
      onWatchOpened: () => void calls.push("opened watch"),
      onDecodeError: (error) => void calls.push(`decode ${(error as Error).name}`),
      onListenerBacklog: (max) => void calls.push(`backlog ${max}`),
      onConsistencyCheck: (r) => void calls.push(`check ${r.outcome}`),
    },
  };
}

/** Serves the first watch request a body with one good event and one malformed line. */
function corruptFirstWatch(): {
  fetch: (c: SimulatedCluster) => (r: Request) => Promise<Response>;
} {
  let corrupt = true;
  return {
    fetch: (c) => (req) => {
      if (corrupt && new URL(req.url).searchParams.get("watch")) {
        corrupt = false;
        return Promise.resolve(
          new Response(
            '{"type":"ADDED","object":{"metadata":{"namespace":"a","name":"x","resourceVersion":"1"}}}\n{not json\n',
            { headers: { "content-type": "application/json" } },
          ),
        );
      }
      return c.fetch(req);
    },
  };
}

/**
 * The first LIST reaches the server (it is recorded) but its answer never comes back, as on a
 * half-open connection; only aborting the request ends it.
 */
function halfOpenFirstList(): {
  fetch: (c: SimulatedCluster) => (r: Request) => Promise<Response>;
} {
  let first = true;
  return {
    fetch: (c) => (req) => {
      if (!first || new URL(req.url).searchParams.has("watch")) return c.fetch(req);
      first = false;
      void c.fetch(req).then((res) => res.body?.cancel());
      return new Promise((_, reject) => {
        const abort = (): void => reject(req.signal.reason);
        if (req.signal.aborted) abort();
        else req.signal.addEventListener("abort", abort, { once: true });
      });
    },
  };
}

/** Starts an informer and waits until its first watch is open. */
async function watching(
  e: Env,
  inf: { start(): void; waitForSync(): Promise<void> },
): Promise<void> {
  inf.start();
  await inf.waitForSync();
  await e.clock.flush();
  assert.equal(e.cluster.openWatches, 1);
}

describe("health()", () => {
  test("before start: idle, not synced, every counter at zero, no timestamps", async () => {
    const e = env();
    const inf = e.informer({ resource: pods });
    const { state, synced, lastSyncResourceVersion, objects, lastEventAt, lastBookmarkAt } = inf
      .health();
    const { lists, relists, watchRestarts, events, errors, lastError, stalled, listeners } = inf
      .health();
    const { activity } = inf.health();
    assert.deepEqual({
      state,
      activity,
      synced,
      lastSyncResourceVersion,
      objects,
      lastEventAt,
      lastBookmarkAt,
      lists,
      relists,
      watchRestarts,
      events,
      errors,
      lastError,
      stalled,
      listeners,
    }, {
      state: "idle",
      activity: "idle",
      synced: false,
      lastSyncResourceVersion: undefined,
      objects: 0,
      lastEventAt: undefined,
      lastBookmarkAt: undefined,
      lists: 0,
      relists: 0,
      watchRestarts: 0,
      events: 0,
      errors: {},
      lastError: undefined,
      stalled: false,
      listeners: [],
    });
    await closed(e);
  });

  test("state is the lifecycle (starting, running, stopped); activity follows the reflector: listing, watching, backing-off, watching again, stopped", async () => {
    const e = env();
    e.cluster.create(pods, pod("a", "p1"));
    const inf = e.informer({ resource: pods, backoff: { jitter: "none" } });
    e.cluster.faults.stall(); // the first LIST gets no answer yet
    inf.start();
    await e.clock.flush();
    assert.equal(inf.health().activity, "listing");
    assert.equal(inf.health().state, "starting", "started, not synced yet");
    e.cluster.faults.resume();
    await inf.waitForSync();
    await e.clock.flush();
    assert.equal(inf.health().activity, "watching");
    assert.equal(inf.health().state, "running");
    // The watch drops; the re-watch is refused with a 503 and Retry-After: 5.
    e.cluster.faults.failNext(1, { verb: "watch", status: 503, retryAfterSeconds: 5 });
    e.cluster.faults.dropWatches();
    await e.clock.flush();
    assert.equal(inf.health().activity, "backing-off");
    await e.clock.advance(800);
    assert.equal(inf.health().activity, "backing-off");
    assert.equal(inf.health().errors.server, 1);
    await e.clock.advance(4_900);
    assert.equal(inf.health().activity, "backing-off");
    await e.clock.advance(200);
    assert.equal(inf.health().activity, "watching");
    assert.deepEqual(verbs(e.cluster), ["list", "watch", "watch", "watch"]);
    await inf.stop();
    assert.equal(inf.health().state, "stopped");
    assert.equal(inf.health().activity, "stopped");
    await closed(e);
  });

  test("lists and relists: the first list is a list; a 410 relist counts as both", async () => {
    const e = env();
    e.cluster.create(pods, pod("a", "p1"));
    const inf = e.informer({ resource: pods });
    await watching(e, inf);
    assert.equal(inf.health().lists, 1);
    assert.equal(inf.health().relists, 0);
    e.cluster.faults.dropWatches();
    e.cluster.create(pods, pod("a", "p2"));
    e.cluster.faults.compact();
    await e.clock.advance(10_000);
    const h = inf.health();
    assert.equal(h.lists, 2);
    assert.equal(h.relists, 1);
    assert.equal(h.objects, 2);
    assert.equal(h.synced, true);
    assert.equal(h.lastSyncResourceVersion, e.cluster.resourceVersion);
    assert.ok((h.errors.expired ?? 0) >= 1);
    assert.equal(h.lastError?.kind, "expired");
    await closed(e);
  });

  test("watchRestarts counts every watch after the first: dropped, timed out, inactive", async () => {
    const e = env();
    const inf = e.informer({ resource: pods, inactivityTimeoutMs: 150_000 });
    await watching(e, inf);
    assert.equal(inf.health().watchRestarts, 0);
    e.cluster.faults.dropWatches();
    await e.clock.advance(2_000);
    assert.equal(inf.health().watchRestarts, 1);
    await e.clock.advance(600_000); // timeoutSeconds is below 600: the server closes the watch
    assert.ok(inf.health().watchRestarts >= 2);
    const before = inf.health().watchRestarts;
    e.cluster.faults.stall();
    await e.clock.advance(151_000);
    e.cluster.faults.resume();
    await e.clock.flush();
    assert.equal(inf.health().watchRestarts, before + 1);
    assert.equal(inf.health().errors.inactivity, 1);
    const watches = verbs(e.cluster).filter((v) => v === "watch").length;
    assert.equal(inf.health().watchRestarts, watches - 1);
    assert.equal(inf.health().lists, 1);
    await closed(e);
  });

  test("errors are counted by kind; lastError is the newest, with its message and clock time", async () => {
    const e = env(corruptFirstWatch());
    e.cluster.create(pods, pod("a", "p1"));
    e.cluster.faults.failNext(1, { verb: "list", status: 500 });
    e.cluster.faults.failNext(1, { verb: "list", status: 429, retryAfterSeconds: 2 });
    const inf = e.informer({ resource: pods });
    const t0 = e.clock.now();
    inf.start();
    await e.clock.flush();
    assert.deepEqual(inf.health().errors, { server: 1 });
    assert.equal(inf.health().lastError?.at, t0);
    await e.clock.advance(10_000);
    await inf.waitForSync();
    const h = inf.health();
    assert.equal(h.errors.server, 1);
    assert.equal(h.errors["rate-limited"], 1);
    assert.equal(h.errors.decode, 1);
    assert.equal(h.lastError?.kind, "decode");
    assert.ok(h.lastError!.at > t0 && h.lastError!.at <= e.clock.now());
    e.cluster.faults.dropWatches();
    await e.clock.flush();
    const dropped = inf.health();
    assert.equal(dropped.errors.network, 1);
    assert.equal(dropped.lastError?.kind, "network");
    assert.equal(dropped.lastError?.at, e.clock.now());
    assert.equal(typeof dropped.lastError?.message, "string");
    assert.deepEqual(
      e.errors.map((x) => x.kind),
      ["server", "rate-limited", "decode", "network"],
    );
    await closed(e);
  });

  test("lastEventAt is the clock time of the last event; lastBookmarkAt of the last bookmark (every 60 s)", async () => {
    const e = env();
    const inf = e.informer({ resource: pods });
    const t0 = e.clock.now();
    await watching(e, inf);
    assert.equal(inf.health().lastEventAt, undefined);
    assert.equal(inf.health().lastBookmarkAt, undefined);
    await e.clock.advance(5_000);
    e.cluster.create(pods, pod("a", "p1"));
    await e.clock.flush();
    assert.equal(inf.health().lastEventAt, t0 + 5_000);
    assert.equal(inf.health().events, 1);
    await e.clock.advance(55_000);
    assert.equal(inf.health().lastBookmarkAt, t0 + 60_000);
    await e.clock.advance(60_000);
    const h = inf.health();
    assert.equal(h.lastBookmarkAt, t0 + 120_000);
    assert.equal(h.lastEventAt, t0 + 5_000);
    assert.equal(h.events, 1); // bookmarks are not counted as events
    assert.equal(h.lastSyncResourceVersion, e.cluster.resourceVersion);
    await closed(e);
  });

  test("a quiet cluster is not stalled: bookmarks count as activity", async () => {
    const e = env();
    const inf = e.informer({ resource: pods, inactivityTimeoutMs: 150_000 });
    await watching(e, inf);
    for (let i = 0; i < 20; i++) {
      await e.clock.advance(30_000);
      assert.equal(inf.health().stalled, false, `stalled after ${(i + 1) * 30} s`);
    }
    assert.equal(inf.health().errors.inactivity, undefined);
    await closed(e);
  });

  test("stalled turns on when nothing arrives past the inactivity limit, across reconnects, and off at the next bookmark", async () => {
    const e = env();
    const inf = e.informer({
      resource: pods,
      inactivityTimeoutMs: 150_000,
      backoff: { jitter: "none" },
    });
    await watching(e, inf);
    e.cluster.faults.stall();
    await e.clock.advance(150_000);
    assert.equal(inf.health().stalled, false);
    await e.clock.advance(1_000); // the inactivity timer fired at 150 s; the re-watch hangs too
    assert.equal(inf.health().stalled, true);
    assert.equal(inf.health().errors.inactivity, 1);
    assert.equal(inf.health().activity, "watching");
    e.cluster.faults.resume(); // the re-watch is answered now, but has nothing to say yet
    await e.clock.flush();
    assert.equal(inf.health().stalled, true);
    assert.equal(inf.health().lastBookmarkAt, undefined);
    await e.clock.advance(60_000); // its first bookmark
    assert.notEqual(inf.health().lastBookmarkAt, undefined);
    assert.equal(inf.health().stalled, false);
    assert.equal(inf.health().errors.inactivity, 1);
    await inf.stop();
    assert.equal(inf.health().stalled, false); // a stopped informer is not stalled
    await closed(e);
  });

  test(
    "a first LIST that never answers turns stalled on after the inactivity limit",
    async () => {
      const e = env(halfOpenFirstList());
      const inf = e.informer({ resource: pods, inactivityTimeoutMs: 150_000 });
      inf.start();
      await e.clock.advance(150_000);
      assert.equal(inf.health().stalled, false);
      await e.clock.advance(1_000);
      assert.equal(inf.health().stalled, true);
      await closed(e);
    },
  );

  test(
    "a LIST that never answers (half-open connection) is abandoned after the inactivity limit and retried",
    async () => {
      const e = env(halfOpenFirstList());
      e.cluster.create(pods, pod("a", "p1"));
      const inf = e.informer({ resource: pods, inactivityTimeoutMs: 150_000 });
      inf.start();
      await e.clock.advance(160_000);
      assert.equal(inf.hasSynced(), true);
      assert.deepEqual(verbs(e.cluster).slice(0, 2), ["list", "list"]);
      assert.equal(inf.health().errors.inactivity, 1);
      await closed(e);
    },
  );

  test("listeners: each one's backlog, high-water mark, synced flag and overflow policy", async () => {
    const e = env();
    for (const n of ["p1", "p2", "p3"]) e.cluster.create(pods, pod("a", n));
    const inf = e.informer({ resource: pods });
    const slow = inf.events();
    const coalescing = inf.events({ overflow: "coalesce" });
    await watching(e, inf);
    let [a, b] = inf.health().listeners;
    assert.deepEqual(a, { backlog: 4, highWater: 4, synced: false, overflow: "grow" });
    assert.deepEqual(b, { backlog: 4, highWater: 4, synced: false, overflow: "coalesce" });
    await take(slow, (ev) => ev.type === "synced");
    for (let i = 0; i < 5; i++) {
      e.cluster.patch(pods, { namespace: "a", name: "p1" }, {
        metadata: { annotations: { i: String(i) } },
      });
    }
    await e.clock.flush();
    [a, b] = inf.health().listeners;
    assert.deepEqual(a, { backlog: 5, highWater: 5, synced: true, overflow: "grow" });
    assert.equal(b!.synced, false);
    assert.equal(b!.backlog, 4); // the updates merged into the pending add of p1
    await take(coalescing, (ev) => ev.type === "synced");
    assert.equal(inf.health().listeners[1]!.backlog, 0);
    assert.equal(inf.health().listeners[1]!.synced, true);
    await slow.return!();
    assert.equal(inf.health().listeners.length, 1);
    await closed(e);
  });
});

describe("metrics hooks", () => {
  test("onList gets the duration on the informer's clock, the items and the pages of each list round", async () => {
    const e: Env = env({
      fetch: (c) => async (req) => {
        if (!new URL(req.url).searchParams.has("watch")) await sleep(250, { clock: e.clock });
        return c.fetch(req);
      },
      cluster: { watchCache: false }, // pages at "0", so relists at an exact version page too
    });
    for (let i = 0; i < 5; i++) e.cluster.create(pods, pod("a", `p${i}`));
    const r = recorder();
    const inf = e.informer({ resource: pods, pageSize: 2, metrics: r.metrics });
    inf.start();
    await e.clock.advance(750);
    await inf.waitForSync();
    assert.deepEqual(r.of("list"), ["list 750ms 5 items 3 pages"]);
    e.cluster.faults.dropWatches();
    e.cluster.delete(pods, { namespace: "a", name: "p0" });
    e.cluster.faults.compact();
    await e.clock.advance(20_000);
    // A 410 relist: the list at the old version fails (no call), the consistent one succeeds.
    assert.deepEqual(r.of("list"), ["list 750ms 5 items 3 pages", "list 500ms 4 items 2 pages"]);
    await closed(e);
  });

  test("onList for a streaming list: one page, the initial objects", async () => {
    const e = env();
    for (let i = 0; i < 3; i++) e.cluster.create(pods, pod("a", `p${i}`));
    const r = recorder();
    const inf = e.informer({ resource: pods, initialList: "stream", metrics: r.metrics });
    inf.start();
    await inf.waitForSync();
    assert.deepEqual(r.of("list"), ["list 0ms 3 items 1 pages"]);
    await closed(e);
  });

  test("onWatchEvent is called once per event, by type, bookmarks included", async () => {
    const e = env();
    const r = recorder();
    const inf = e.informer({ resource: pods, metrics: r.metrics });
    await watching(e, inf);
    e.cluster.create(pods, pod("a", "p1"));
    e.cluster.patch(pods, { namespace: "a", name: "p1" }, { metadata: { labels: { x: "1" } } });
    e.cluster.delete(pods, { namespace: "a", name: "p1" });
    await e.clock.advance(60_000);
    assert.deepEqual(r.of("event"), [
      "event ADDED",
      "event MODIFIED",
      "event DELETED",
      "event BOOKMARK",
    ]);
    assert.equal(inf.health().events, 3);
    await closed(e);
  });

  test("onRelist says why: a consistency check's repair is 'requested'", async () => {
    const e = env();
    e.cluster.create(pods, pod("a", "p1"));
    const r = recorder();
    const inf = e.informer({
      resource: pods,
      metrics: r.metrics,
      consistencyCheck: { repair: true, intervalMs: 0 },
    });
    await watching(e, inf);
    e.cluster.faults.loseNextWatchEvent();
    e.cluster.create(pods, pod("a", "lost"));
    e.cluster.create(pods, pod("a", "p2"));
    await e.clock.flush();
    assert.equal((await inf.verify()).outcome, "drift");
    await e.clock.flush();
    assert.deepEqual(r.of("relist"), ["relist requested"]);
    await closed(e);
  });

  test("onRelist: not for the first list; for a 410 relist; for a resumed informer's relist", async () => {
    const e = env();
    e.cluster.create(pods, pod("a", "p1"));
    const r = recorder();
    const inf = e.informer({ resource: pods, metrics: r.metrics });
    await watching(e, inf);
    assert.deepEqual(r.of("relist"), []);
    e.cluster.faults.dropWatches();
    e.cluster.create(pods, pod("a", "p2"));
    e.cluster.faults.compact();
    await e.clock.advance(10_000);
    assert.deepEqual(r.of("relist"), ["relist expired"]);
    const cp = inf.checkpoint({ includeObjects: true });
    await inf.stop();

    e.cluster.create(pods, pod("a", "p3"));
    e.cluster.faults.compact();
    const resumed = recorder();
    const again = e.informer({ resource: pods, resumeFrom: cp, metrics: resumed.metrics });
    again.start();
    await e.clock.advance(10_000);
    assert.deepEqual(resumed.of("relist"), ["relist expired"]);
    assert.equal(again.health().lists, 1);
    assert.equal(again.health().relists, 1);
    await closed(e);
  });

  test("onReconnect names why the previous watch ended: network, closed, inactivity, server", async () => {
    const e = env();
    const r = recorder();
    const inf = e.informer({ resource: pods, inactivityTimeoutMs: 150_000, metrics: r.metrics });
    await watching(e, inf);
    e.cluster.faults.dropWatches();
    await e.clock.advance(2_000);
    assert.deepEqual(r.of("reconnect"), ["reconnect network"]);
    await e.clock.advance(600_000); // the server ends the watch at its timeoutSeconds
    assert.ok(r.of("reconnect").includes("reconnect closed"));
    r.calls.length = 0;
    e.cluster.faults.stall();
    await e.clock.advance(151_000);
    e.cluster.faults.resume();
    await e.clock.flush();
    assert.deepEqual(r.of("reconnect"), ["reconnect inactivity"]);
    r.calls.length = 0;
    e.cluster.faults.failNext(1, { verb: "watch", status: 500 });
    e.cluster.faults.dropWatches();
    await e.clock.advance(10_000);
    assert.deepEqual(r.of("reconnect"), ["reconnect network", "reconnect server"]);
    const kinds: (ErrorKind | "closed")[] = ["network", "closed", "inactivity", "server"];
    assert.ok(kinds.every((k) => (inf.health().errors[k as ErrorKind] ?? 1) >= 1));
    await closed(e);
  });

  test("onWatchOpened: a watch the server accepts is told at once, before its first line", async () => {
    const e = env();
    const r = recorder();
    const inf = e.informer({ resource: pods, metrics: r.metrics });
    await watching(e, inf);
    assert.deepEqual(r.of("opened"), ["opened watch"]);
    const lines = (): string[] =>
      r.calls.filter((c) => c.startsWith("opened") || c.startsWith("event"));
    r.calls.length = 0;
    e.cluster.faults.dropWatches();
    await e.clock.advance(2_000);
    assert.deepEqual(lines(), ["opened watch"], "a recovering cluster is live before any line");
    e.cluster.create(pods, pod("a", "p1"));
    await e.clock.flush();
    assert.deepEqual(lines(), ["opened watch", "event ADDED"]);
    await closed(e);
  });

  test("onDecodeError gets the decode error; the watch then reconnects ('decode')", async () => {
    const e = env(corruptFirstWatch());
    const r = recorder();
    const inf = e.informer({ resource: pods, metrics: r.metrics });
    inf.start();
    await inf.waitForSync();
    await e.clock.advance(2_000);
    assert.deepEqual(r.of("decode"), ["decode WatchDecodeError"]);
    assert.deepEqual(r.of("reconnect"), ["reconnect decode"]);
    assert.equal(inf.health().errors.decode, 1);
    await closed(e);
  });

  test("onListenerBacklog reports the largest listener backlog after each batch", async () => {
    const e = env();
    for (const n of ["p1", "p2", "p3"]) e.cluster.create(pods, pod("a", n));
    const r = recorder();
    const inf = e.informer({ resource: pods, metrics: r.metrics });
    const slow = inf.events();
    const fast = inf.events();
    await watching(e, inf);
    // The initial batch: 3 adds nobody has read (the synced marker follows the report).
    assert.ok(["backlog 3", "backlog 4"].includes(r.of("backlog").at(-1)!));
    await take(fast, (ev) => ev.type === "synced");
    e.cluster.create(pods, pod("a", "p4"));
    await e.clock.flush();
    assert.deepEqual(r.of("backlog").at(-1), "backlog 5");
    await take(slow, (_, all) => all.length === 5);
    await take(fast, () => true);
    e.cluster.create(pods, pod("a", "p5"));
    await e.clock.flush();
    assert.deepEqual(r.of("backlog").at(-1), "backlog 1");
    const max = Math.max(...inf.health().listeners.map((l) => l.backlog));
    assert.equal(max, 1);
    await slow.return!();
    await fast.return!();
    await closed(e);
  });

  test("hooks written as methods keep their `this`", async () => {
    class Counters implements InformerMetrics {
      lists = 0;
      events = 0;
      onList(): void {
        this.lists++;
      }
      onWatchEvent(): void {
        this.events++;
      }
    }
    const e = env();
    const counters = new Counters();
    const inf = e.informer({ resource: pods, metrics: counters });
    await watching(e, inf);
    e.cluster.create(pods, pod("a", "p1"));
    await e.clock.flush();
    assert.equal(counters.lists, 1);
    assert.equal(counters.events, 1);
    await closed(e);
  });

  test(
    "a metrics hook that throws is reported and does not stop the informer",
    async () => {
      const e = env();
      const inf = e.informer({
        resource: pods,
        metrics: {
          onWatchEvent() {
            throw new Error("metrics backend down");
          },
        },
      });
      await watching(e, inf);
      e.cluster.create(pods, pod("a", "p1"));
      await e.clock.advance(5_000);
      assert.deepEqual(inf.store.listKeys(), ["a/p1"]);
      assert.ok(e.errors.length >= 1);
      assert.equal(inf.health().watchRestarts, 0);
      await closed(e);
    },
  );
});
