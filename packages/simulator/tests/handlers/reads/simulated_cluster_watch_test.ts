import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { configmaps, pods } from "../../../../../src/client/resource.ts";
import type { Status } from "../../../../../src/client/types.ts";
import { ManualClock } from "../../../../../src/testing/manual_clock.ts";
import { SimulatedCluster } from "../../../src/cluster/simulated_cluster.ts";
import { LineReader, summarize } from "../../../../../tests/_serve.ts";

function setup(
  options?: { historyLimit?: number; watchList?: boolean; bookmarkIntervalMs?: number },
): {
  c: SimulatedCluster;
  clock: ManualClock;
} {
  const clock = new ManualClock();
  return { clock, c: new SimulatedCluster({ clock, ...options }) };
}

async function watch(c: SimulatedCluster, path: string, signal?: AbortSignal): Promise<LineReader> {
  const init: RequestInit = {};
  if (signal) init.signal = signal;
  const res = await c.fetch(new Request(`http://sim${path}`, init));
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("content-type"), "application/json");
  return new LineReader(res.body!);
}

function cm(c: SimulatedCluster, name: string, labels: Record<string, string> = {}): void {
  c.create(configmaps, { metadata: { name, namespace: "default", labels } });
}

describe("SimulatedCluster WATCH", () => {
  test("without resourceVersion: synthetic ADDED for the current state, then changes", async () => {
    const { c } = setup();
    cm(c, "a");
    cm(c, "b");
    const r = await watch(c, "/api/v1/configmaps?watch=1");
    assert.deepEqual(summarize(await r.events(2)), ["ADDED a", "ADDED b"]);
    c.patch(configmaps, { namespace: "default", name: "a" }, { data: { x: "1" } });
    c.delete(configmaps, { namespace: "default", name: "b" });
    const [modified, deleted] = await r.events(2);
    assert.equal(modified!.type, "MODIFIED");
    assert.equal(modified!.object.kind, "ConfigMap");
    assert.equal(modified!.object.apiVersion, "v1");
    assert.equal(deleted!.type, "DELETED");
    assert.equal(
      deleted!.object.metadata.resourceVersion,
      c.resourceVersion,
      "DELETED carries the deletion RV",
    );
    await r.cancel();
    assert.equal(c.openWatches, 0);
    c.close();
  });

  test('resourceVersion "0" also starts with the current state; watch=true works too', async () => {
    const { c } = setup();
    cm(c, "a");
    const r = await watch(c, "/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=0");
    assert.deepEqual(summarize(await r.events(1)), ["ADDED a"]);
    await r.cancel();
    c.close();
  });

  test("from resourceVersion N: only events strictly after N, from history", async () => {
    const { c } = setup();
    cm(c, "a");
    const rv = c.resourceVersion;
    cm(c, "b");
    c.delete(configmaps, { namespace: "default", name: "a" });
    const r = await watch(c, `/api/v1/configmaps?watch=1&resourceVersion=${rv}`);
    assert.deepEqual(summarize(await r.events(2)), ["ADDED b", "DELETED a"]);
    cm(c, "c");
    assert.deepEqual(summarize(await r.events(1)), ["ADDED c"]);
    await r.cancel();
    c.close();
  });

  test("the legacy /api/v1/watch/ path and a single-object watch", async () => {
    const { c } = setup();
    cm(c, "a");
    cm(c, "b");
    const all = await watch(c, "/api/v1/watch/namespaces/default/configmaps");
    assert.deepEqual(summarize(await all.events(2)), ["ADDED a", "ADDED b"]);
    const one = await watch(c, "/api/v1/watch/namespaces/default/configmaps/b");
    assert.deepEqual(summarize(await one.events(1)), ["ADDED b"]);
    await all.cancel();
    await one.cancel();
    c.close();
  });

  test("an RV older than the kept history: HTTP 200, one ERROR 410 Expired event, then the end", async () => {
    const { c } = setup({ historyLimit: 2 });
    cm(c, "a");
    cm(c, "b");
    cm(c, "c");
    cm(c, "d");
    const r = await watch(c, "/api/v1/configmaps?watch=1&resourceVersion=2");
    const events = await r.rest();
    assert.equal(events.length, 1);
    assert.equal(events[0]!.type, "ERROR");
    const s = events[0]!.object as unknown as Status;
    assert.equal(s.kind, "Status");
    assert.equal(s.code, 410);
    assert.equal(s.reason, "Expired");
    assert.equal(s.message, "too old resource version: 2 (3)");
    assert.equal(c.openWatches, 0);
    c.close();
  });

  test("after compaction, watching from an older RV gets the 410 ERROR event", async () => {
    const { c } = setup();
    cm(c, "a");
    const rv = c.resourceVersion;
    cm(c, "b");
    c.faults.compact();
    const events = await (await watch(c, `/api/v1/configmaps?watch=1&resourceVersion=${rv}`))
      .rest();
    assert.deepEqual(summarize(events), ["ERROR 410"]);
    c.close();
  });

  test("a too-new RV on a watch is a 504 with ResourceVersionTooLarge", async () => {
    const { c } = setup();
    const res = await c.fetch(new Request("http://sim/api/v1/pods?watch=1&resourceVersion=50"));
    assert.equal(res.status, 504);
    assert.equal(((await res.json()) as Status).reason, "Timeout");
    c.close();
  });

  test("bookmarks come every bookmarkIntervalMs with only kind, apiVersion and the RV", async () => {
    const { c, clock } = setup({ bookmarkIntervalMs: 1_000 });
    cm(c, "a");
    const r = await watch(
      c,
      `/api/v1/configmaps?watch=1&resourceVersion=${c.resourceVersion}&allowWatchBookmarks=true`,
    );
    await clock.advance(999);
    cm(c, "b");
    await clock.advance(1);
    const [added, bookmark] = await r.events(2);
    assert.equal(added!.type, "ADDED");
    assert.deepEqual(bookmark, {
      type: "BOOKMARK",
      object: {
        kind: "ConfigMap",
        apiVersion: "v1",
        metadata: { resourceVersion: c.resourceVersion },
      },
    });
    await clock.advance(1_000);
    assert.deepEqual(summarize(await r.events(1)), [`BOOKMARK ${c.resourceVersion}`]);
    await r.cancel();
    assert.equal(clock.pendingTimers, 0, "a cancelled watch leaves no timer");
    c.close();
  });

  test("no bookmarks without allowWatchBookmarks", async () => {
    const { c, clock } = setup({ bookmarkIntervalMs: 1_000 });
    const r = await watch(c, "/api/v1/configmaps?watch=1&timeoutSeconds=5");
    await clock.advance(5_000);
    assert.deepEqual(await r.rest(), []);
    c.close();
  });

  test("timeoutSeconds ends the watch cleanly on the clock, with a bookmark just before", async () => {
    const { c, clock } = setup();
    cm(c, "a");
    const r = await watch(
      c,
      `/api/v1/configmaps?watch=1&resourceVersion=${c.resourceVersion}&timeoutSeconds=30&allowWatchBookmarks=true`,
    );
    await clock.advance(29_999);
    assert.equal(c.openWatches, 1);
    await clock.advance(1);
    assert.deepEqual(summarize(await r.rest()), [`BOOKMARK ${c.resourceVersion}`]);
    assert.equal(c.openWatches, 0);
    assert.equal(clock.pendingTimers, 0);
    c.close();
  });

  test("sendInitialEvents: ADDEDs, the initial-events-end BOOKMARK at the snapshot RV, then live events", async () => {
    const { c } = setup();
    cm(c, "a");
    cm(c, "b");
    const snapshotRv = c.resourceVersion;
    const r = await watch(
      c,
      "/api/v1/configmaps?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true",
    );
    const [a, b, end] = await r.events(3);
    assert.deepEqual(summarize([a!, b!]), ["ADDED a", "ADDED b"]);
    assert.deepEqual(end, {
      type: "BOOKMARK",
      object: {
        kind: "ConfigMap",
        apiVersion: "v1",
        metadata: {
          resourceVersion: snapshotRv,
          annotations: { "k8s.io/initial-events-end": "true" },
        },
      },
    });
    cm(c, "c");
    assert.deepEqual(summarize(await r.events(1)), ["ADDED c"]);
    await r.cancel();
    c.close();
  });

  test("sendInitialEvents needs resourceVersionMatch=NotOlderThan and the feature: else 422", async () => {
    const { c } = setup();
    const paths = [
      "/api/v1/pods?watch=1&sendInitialEvents=true",
      "/api/v1/pods?watch=1&sendInitialEvents=true&resourceVersionMatch=Exact",
      "/api/v1/pods?watch=1&resourceVersionMatch=NotOlderThan",
    ];
    for (const path of paths) {
      const res = await c.fetch(new Request(`http://sim${path}`));
      assert.equal(res.status, 422, path);
      const s = await res.json() as Status;
      assert.equal(s.reason, "Invalid");
      assert.equal(s.details?.kind, "ListOptions");
    }
    c.close();
    const off = setup({ watchList: false }).c;
    const res = await off.fetch(
      new Request(
        "http://sim/api/v1/pods?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan",
      ),
    );
    assert.equal(res.status, 422);
    assert.match(((await res.json()) as Status).message!, /WatchList feature gate/);
    off.close();
  });

  test("selector transitions: leaving the selector is DELETED (new state), entering is ADDED", async () => {
    const { c } = setup();
    cm(c, "a", { app: "web" });
    const rv = c.resourceVersion;
    const r = await watch(
      c,
      `/api/v1/configmaps?watch=1&resourceVersion=${rv}&labelSelector=app%3Dweb`,
    );
    c.patch(configmaps, { namespace: "default", name: "a" }, {
      metadata: { labels: { app: "db" } },
    });
    c.patch(configmaps, { namespace: "default", name: "a" }, { data: { ignored: "yes" } });
    c.patch(configmaps, { namespace: "default", name: "a" }, {
      metadata: { labels: { app: "web" } },
    });
    c.patch(configmaps, { namespace: "default", name: "a" }, { data: { seen: "yes" } });
    cm(c, "b", { app: "db" });
    c.delete(configmaps, { namespace: "default", name: "b" });
    const events = await r.events(3);
    assert.deepEqual(summarize(events), ["DELETED a", "ADDED a", "MODIFIED a"]);
    assert.deepEqual(
      events[0]!.object.metadata.labels,
      { app: "db" },
      "DELETED carries the new state",
    );
    await r.cancel();
    c.close();
  });

  test("field selectors filter watches (metadata.name)", async () => {
    const { c } = setup();
    const r = await watch(
      c,
      `/api/v1/configmaps?watch=1&resourceVersion=1&fieldSelector=metadata.name%3Db`,
    );
    cm(c, "a");
    cm(c, "b");
    assert.deepEqual(summarize(await r.events(1)), ["ADDED b"]);
    await r.cancel();
    c.close();
  });

  test("a bad selector on a watch is a 400 Status, not a stream", async () => {
    const { c } = setup();
    const res = await c.fetch(new Request("http://sim/api/v1/pods?watch=1&labelSelector=%3D%3D"));
    assert.equal(res.status, 400);
    assert.equal(((await res.json()) as Status).reason, "BadRequest");
    c.close();
  });

  test("aborting the request's signal removes the watcher and fails the body", async () => {
    const { c } = setup();
    const ac = new AbortController();
    const r = await watch(c, "/api/v1/pods?watch=1&resourceVersion=1", ac.signal);
    assert.equal(c.openWatches, 1);
    ac.abort(new Error("client gone"));
    assert.equal(c.openWatches, 0);
    await assert.rejects(r.event(), /client gone/);
    c.close();
  });

  test("cancelling the body removes the watcher", async () => {
    const { c } = setup();
    const r = await watch(c, "/api/v1/pods?watch=1&resourceVersion=1");
    assert.equal(c.openWatches, 1);
    await r.cancel();
    assert.equal(c.openWatches, 0);
    c.close();
  });

  test("close() ends every watch cleanly and leaves no timer", async () => {
    const { c, clock } = setup();
    const r1 = await watch(
      c,
      "/api/v1/pods?watch=1&resourceVersion=1&allowWatchBookmarks=true&timeoutSeconds=60",
    );
    const r2 = await watch(c, "/api/v1/configmaps?watch=1&allowWatchBookmarks=true");
    assert.ok(clock.pendingTimers > 0);
    c.close();
    assert.equal(c.openWatches, 0);
    assert.equal(clock.pendingTimers, 0);
    assert.deepEqual(await r1.rest(), []);
    assert.deepEqual(await r2.rest(), []);
    const after = await c.fetch(new Request("http://sim/api/v1/pods"));
    assert.equal(after.status, 503);
    await after.body?.cancel();
  });

  test("watch lines are UTF-8 JSON, one per line, also with non-ASCII content", async () => {
    const { c } = setup();
    const r = await watch(c, "/api/v1/configmaps?watch=1&resourceVersion=1");
    c.create(configmaps, {
      metadata: { name: "u", namespace: "default" },
      data: { greeting: "grüß dich ✓ 🚀" },
    });
    const [e] = await r.events(1);
    assert.equal((e!.object as { data?: { greeting?: string } }).data?.greeting, "grüß dich ✓ 🚀");
    await r.cancel();
    c.close();
  });

  test("pods watches see status transitions as MODIFIED", async () => {
    const { c } = setup();
    c.create(pods, { metadata: { name: "p", namespace: "default" }, status: { phase: "Pending" } });
    const r = await watch(
      c,
      `/api/v1/pods?watch=1&resourceVersion=${c.resourceVersion}&fieldSelector=status.phase%3DRunning`,
    );
    c.patch(pods, { namespace: "default", name: "p" }, { status: { phase: "Running" } });
    c.patch(pods, { namespace: "default", name: "p" }, { status: { phase: "Succeeded" } });
    assert.deepEqual(summarize(await r.events(2)), ["ADDED p", "DELETED p"]);
    await r.cancel();
    c.close();
  });
});
