import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { configmaps, pods } from "../../../../../src/client/resource.ts";
import type { KubeList, Status } from "../../../../../src/client/types.ts";
import { ManualClock } from "../../../../../src/testing/manual_clock.ts";
import { SimulatedCluster } from "../../../src/cluster/simulated_cluster.ts";
import { LineReader, summarize } from "../../../../../tests/_serve.ts";

function setup(): { c: SimulatedCluster; clock: ManualClock } {
  const clock = new ManualClock();
  return { clock, c: new SimulatedCluster({ clock, seed: 3 }) };
}

async function watch(c: SimulatedCluster, path: string): Promise<LineReader> {
  const res = await c.fetch(new Request(`http://sim${path}`));
  assert.equal(res.status, 200);
  return new LineReader(res.body!);
}

function cm(c: SimulatedCluster, name: string, data?: Record<string, string>): void {
  c.create(configmaps, { metadata: { name, namespace: "default" }, ...(data ? { data } : {}) });
}

/** Tracks whether a promise has settled. */
function track<T>(p: Promise<T>): { settled: () => boolean; promise: Promise<T> } {
  let done = false;
  const promise = p.finally(() => {
    done = true;
  });
  return { settled: () => done, promise };
}

describe("SimulatedCluster faults", () => {
  test("dropWatches: the client gets the events already sent, then a network error", async () => {
    const { c } = setup();
    const r = await watch(c, "/api/v1/configmaps?watch=1&resourceVersion=1");
    cm(c, "a");
    assert.equal(c.faults.dropWatches(), 1);
    assert.equal(c.openWatches, 0);
    assert.deepEqual(summarize(await r.events(1)), ["ADDED a"]);
    await assert.rejects(
      r.event(),
      (e: unknown) => e instanceof TypeError && /network error/.test(e.message),
    );
    c.close();
  });

  test("dropWatchAfter(n): the next watch is dropped after n events; later watches are not", async () => {
    const { c } = setup();
    cm(c, "a");
    cm(c, "b");
    cm(c, "c");
    c.faults.dropWatchAfter(2);
    const first = await watch(c, "/api/v1/configmaps?watch=1");
    assert.deepEqual(summarize(await first.events(2)), ["ADDED a", "ADDED b"]);
    await assert.rejects(first.event(), TypeError);
    const second = await watch(c, "/api/v1/configmaps?watch=1");
    assert.deepEqual(summarize(await second.events(3)), ["ADDED a", "ADDED b", "ADDED c"]);
    await second.cancel();
    c.close();
  });

  test("dropWatchAfter can be limited to one resource", async () => {
    const { c } = setup();
    c.faults.dropWatchAfter(0, { resource: pods });
    const cms = await watch(c, "/api/v1/configmaps?watch=1&resourceVersion=1");
    cm(c, "a");
    assert.deepEqual(summarize(await cms.events(1)), ["ADDED a"]);
    await cms.cancel();
    c.close();
  });

  test("chunkBodies splits watch lines anywhere, also inside multi-byte UTF-8 characters", async () => {
    const { c } = setup();
    c.faults.chunkBodies({ maxChunkBytes: 3 });
    const r = await watch(c, "/api/v1/configmaps?watch=1&resourceVersion=1");
    for (let i = 0; i < 5; i++) cm(c, `u${i}`, { text: "ÄÖÜ – 監視 🚀".repeat(3) });
    const events = await r.events(5);
    assert.deepEqual(summarize(events), [
      "ADDED u0",
      "ADDED u1",
      "ADDED u2",
      "ADDED u3",
      "ADDED u4",
    ]);
    assert.ok(r.chunks.every((chunk) => chunk.byteLength >= 1 && chunk.byteLength <= 3));
    const splitInsideCharacter = r.chunks.some((chunk) => {
      const first = chunk[0]!;
      return (first & 0xc0) === 0x80; // a chunk starting with a UTF-8 continuation byte
    });
    assert.ok(splitInsideCharacter, "some chunk starts in the middle of a character");
    await r.cancel();
    c.close();
  });

  test("chunkBodies applies to lists too, and the list still parses", async () => {
    const { c } = setup();
    c.seed(pods, 5);
    c.faults.chunkBodies({ maxChunkBytes: 64 });
    const res = await c.fetch(new Request("http://sim/api/v1/pods"));
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let text = "";
    let chunks = 0;
    for (let r = await reader.read(); !r.done; r = await reader.read()) {
      assert.ok(r.value.byteLength <= 64);
      chunks++;
      text += decoder.decode(r.value, { stream: true });
    }
    text += decoder.decode();
    assert.ok(chunks > 50);
    assert.equal((JSON.parse(text) as KubeList).items.length, 5);
    c.close();
  });

  test("chunk delays run on the cluster clock", async () => {
    const { c, clock } = setup();
    c.faults.chunkBodies({ maxChunkBytes: 100_000, delayMs: 100 });
    const r = await watch(c, "/api/v1/configmaps?watch=1&resourceVersion=1");
    cm(c, "a");
    const next = track(r.event());
    await clock.flush();
    assert.equal(next.settled(), false);
    await clock.advance(100);
    assert.equal((await next.promise)!.object.metadata.name, "a");
    await r.cancel();
    c.close();
    assert.equal(clock.pendingTimers, 0);
  });

  test("stall: open watches send nothing and new requests wait until resume", async () => {
    const { c, clock } = setup();
    const r = await watch(c, "/api/v1/configmaps?watch=1&resourceVersion=1");
    c.faults.stall();
    cm(c, "a");
    const next = track(r.event());
    const list = track(c.fetch(new Request("http://sim/api/v1/configmaps")));
    await clock.advance(60_000);
    assert.equal(next.settled(), false);
    assert.equal(list.settled(), false);
    c.faults.resume();
    assert.equal((await next.promise)!.object.metadata.name, "a");
    const res = await list.promise;
    assert.equal(res.status, 200);
    assert.equal(((await res.json()) as KubeList).items.length, 1);
    await r.cancel();
    c.close();
  });

  test("a stalled request rejects when its signal aborts; close() answers stalled requests 503", async () => {
    const { c } = setup();
    c.faults.stall();
    const ac = new AbortController();
    const aborted = c.fetch(new Request("http://sim/api/v1/pods", { signal: ac.signal }));
    ac.abort(new Error("gave up"));
    await assert.rejects(aborted, /gave up/);
    const waiting = c.fetch(new Request("http://sim/api/v1/pods"));
    c.close();
    const res = await waiting;
    assert.equal(res.status, 503);
    assert.equal(res.headers.get("retry-after"), "1");
    await res.body?.cancel();
  });

  test("a watch dropped while stalled loses what was queued", async () => {
    const { c } = setup();
    const r = await watch(c, "/api/v1/configmaps?watch=1&resourceVersion=1");
    c.faults.stall();
    cm(c, "a");
    c.faults.dropWatches();
    await assert.rejects(r.event(), TypeError);
    c.faults.resume();
    c.close();
  });

  test("failNext: 500 InternalError Status, 503 with Retry-After, 429 plain text", async () => {
    const { c } = setup();
    c.faults.failNext(1);
    c.faults.failNext(1, { status: 503, retryAfterSeconds: 2 });
    c.faults.failNext(1, { status: 429, retryAfterSeconds: 5 });
    const r500 = await c.fetch(new Request("http://sim/api/v1/pods"));
    assert.equal(r500.status, 500);
    const s500 = await r500.json() as Status;
    assert.equal(s500.reason, "InternalError");
    assert.equal(s500.kind, "Status");
    const r503 = await c.fetch(new Request("http://sim/api/v1/pods"));
    assert.equal(r503.status, 503);
    assert.equal(r503.headers.get("retry-after"), "2");
    assert.equal(((await r503.json()) as Status).reason, "ServiceUnavailable");
    const r429 = await c.fetch(new Request("http://sim/api/v1/pods"));
    assert.equal(r429.status, 429);
    assert.equal(r429.headers.get("retry-after"), "5");
    assert.match(r429.headers.get("content-type")!, /^text\/plain/);
    assert.equal(await r429.text(), "Too many requests, please try again later.\n");
    const ok = await c.fetch(new Request("http://sim/api/v1/pods"));
    assert.equal(ok.status, 200);
    await ok.body?.cancel();
    c.close();
  });

  test("failNext with a verb fails only that verb", async () => {
    const { c } = setup();
    c.faults.failNext(2, { verb: "watch", status: 503 });
    const list = await c.fetch(new Request("http://sim/api/v1/pods"));
    assert.equal(list.status, 200);
    await list.body?.cancel();
    for (let i = 0; i < 2; i++) {
      const w = await c.fetch(new Request("http://sim/api/v1/pods?watch=1"));
      assert.equal(w.status, 503);
      await w.body?.cancel();
    }
    const w = await c.fetch(new Request("http://sim/api/v1/pods?watch=1"));
    assert.equal(w.status, 200);
    await w.body?.cancel();
    c.close();
  });

  test("omitInitialEventsEnd: a streaming list never sends the initial-events-end bookmark", async () => {
    const { c } = setup();
    cm(c, "a");
    c.faults.omitInitialEventsEnd();
    const r = await watch(
      c,
      "/api/v1/configmaps?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true",
    );
    cm(c, "b");
    assert.deepEqual(summarize(await r.events(2)), ["ADDED a", "ADDED b"]);
    await r.cancel();
    c.close();
  });

  test("closeAfterInitialEventsEnd: the armed streaming lists end right after their end bookmark", async () => {
    const { c } = setup();
    cm(c, "a");
    c.faults.closeAfterInitialEventsEnd({ times: 1 });
    const path =
      "http://sim/api/v1/configmaps?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true";
    const first = await c.fetch(new Request(path));
    const lines = (await first.text()).trim().split("\n").map((l) => JSON.parse(l));
    assert.deepEqual(lines.map((l) => l.type), ["ADDED", "BOOKMARK"]);
    assert.equal(lines[1].object.metadata.annotations["k8s.io/initial-events-end"], "true");
    assert.equal(lines[1].object.metadata.resourceVersion, c.resourceVersion);
    const second = await watch(c, path.replace("http://sim", "")); // disarmed: stays open
    const rv = c.resourceVersion;
    cm(c, "b");
    assert.deepEqual(summarize(await second.events(3)), ["ADDED a", `BOOKMARK ${rv}`, "ADDED b"]);
    await second.cancel();
    c.close();
  });

  test("disableWatchList refuses streaming lists with 422 until re-enabled", async () => {
    const { c } = setup();
    const path =
      "http://sim/api/v1/pods?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan";
    c.faults.disableWatchList();
    const refused = await c.fetch(new Request(path));
    assert.equal(refused.status, 422);
    await refused.body?.cancel();
    c.faults.disableWatchList(false);
    const ok = await c.fetch(new Request(path));
    assert.equal(ok.status, 200);
    await ok.body?.cancel();
    c.close();
  });

  test("reset clears every fault", async () => {
    const { c } = setup();
    c.faults.failNext(3);
    c.faults.chunkBodies();
    c.faults.stall();
    c.faults.reset();
    assert.equal(c.faults.stalled, false);
    assert.equal(c.faults.chunking, undefined);
    const res = await c.fetch(new Request("http://sim/api/v1/pods"));
    assert.equal(res.status, 200);
    await res.body?.cancel();
    c.close();
  });

  test("fault options are validated", () => {
    const { c } = setup();
    assert.throws(() => c.faults.failNext(-1), RangeError);
    assert.throws(() => c.faults.failNext(1, { status: 404 as 500 }), RangeError);
    assert.throws(() => c.faults.chunkBodies({ maxChunkBytes: 0 }), RangeError);
    assert.throws(() => c.faults.chunkBodies({ delayMs: -1 }), RangeError);
    assert.throws(() => c.faults.dropWatchAfter(1.5), RangeError);
    c.close();
  });
});

describe("SimulatedCluster faults that lose or corrupt watch events", () => {
  test("loseNextWatchEvent: one open watch skips one event and goes on; another watch gets it", async () => {
    const { c } = setup();
    cm(c, "a");
    const rv = c.resourceVersion;
    const first = await watch(c, `/api/v1/configmaps?watch=1&resourceVersion=${rv}`);
    c.faults.loseNextWatchEvent({ resource: configmaps });
    cm(c, "b"); // lost on `first`
    const second = await watch(c, `/api/v1/configmaps?watch=1&resourceVersion=${rv}`);
    cm(c, "c");
    assert.deepEqual(summarize(await first.events(1)), ["ADDED c"]);
    assert.deepEqual(summarize(await second.events(2)), ["ADDED b", "ADDED c"]);
    // Resuming from what `first` saw last never brings the lost event back.
    const seen = await watch(c, `/api/v1/configmaps?watch=1&resourceVersion=${c.resourceVersion}`);
    c.delete(configmaps, { namespace: "default", name: "a" });
    assert.deepEqual(summarize(await seen.events(1)), ["DELETED a"]);
    await Promise.all([first.cancel(), second.cancel(), seen.cancel()]);
    c.close();
  });

  test("loseNextWatchEvent: a fault for another resource leaves this watch alone; reset() disarms", async () => {
    const { c } = setup();
    const r = await watch(c, "/api/v1/configmaps?watch=1&resourceVersion=1");
    c.faults.loseNextWatchEvent({ resource: pods });
    cm(c, "a");
    assert.deepEqual(summarize(await r.events(1)), ["ADDED a"]);
    c.faults.loseNextWatchEvent();
    c.faults.reset();
    cm(c, "b");
    assert.deepEqual(summarize(await r.events(1)), ["ADDED b"]);
    await r.cancel();
    c.close();
  });

  test("corruptNextWatchEvent: wrong-uid delivers the object with a uid no object has", async () => {
    const { c } = setup();
    cm(c, "a");
    const r = await watch(c, `/api/v1/configmaps?watch=1&resourceVersion=${c.resourceVersion}`);
    c.faults.corruptNextWatchEvent();
    c.patch(configmaps, { namespace: "default", name: "a" }, { data: { x: "1" } });
    const [event] = await r.events(1);
    const stored = c.list(configmaps)[0]!;
    assert.equal(event!.type, "MODIFIED");
    assert.equal(event!.object.metadata.resourceVersion, stored.metadata.resourceVersion);
    assert.notEqual(event!.object.metadata.uid, stored.metadata.uid);
    assert.equal(event!.object.kind, "ConfigMap");
    await r.cancel();
    c.close();
  });

  test("corruptNextWatchEvent: old-version waits for a MODIFIED and sends the version before it", async () => {
    const { c } = setup();
    cm(c, "a", { v: "1" });
    const before = c.list(configmaps)[0]!.metadata.resourceVersion;
    const r = await watch(c, `/api/v1/configmaps?watch=1&resourceVersion=${c.resourceVersion}`);
    c.faults.corruptNextWatchEvent({ corruption: "old-version", resource: configmaps });
    cm(c, "b"); // an ADDED: delivered as is
    c.patch(configmaps, { namespace: "default", name: "a" }, { data: { v: "2" } });
    const events = await r.events(2);
    assert.deepEqual(summarize(events), ["ADDED b", "MODIFIED a"]);
    assert.equal(events[1]!.object.metadata.resourceVersion, before);
    assert.deepEqual(events[1]!.object.data, { v: "1" });
    await r.cancel();
    assert.throws(
      () => c.faults.corruptNextWatchEvent({ corruption: "bad" as "wrong-uid" }),
      TypeError,
    );
    assert.throws(() => c.faults.loseNextWatchEvent({ times: -1 }), RangeError);
    c.close();
  });
});
