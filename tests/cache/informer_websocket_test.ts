// The informer with its watches over WebSockets (`transport: "websocket"`), on a manual clock
// against the simulated cluster's in-process WebSocket: it syncs and follows changes, and
// recovers exactly as over HTTP from every way a watch goes wrong (a dropped connection, a
// silent one, garbage, expired history, a refused handshake) without hammering the server.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { configmaps, pods } from "../../src/client/resource.ts";
import { KubeApiError } from "../../src/client/errors.ts";
import { WebSocketWatchError } from "../../src/client/websocket_watch_error.ts";
import { WatchInactivityError } from "../../src/cache/reflector_errors.ts";
import { WatchDecodeError } from "../../src/watch/decode_error.ts";
import { LineTooLongError } from "../../src/watch/line_splitter.ts";
import type { WatchCorruption } from "@kinformer/simulator";
import { closed, env, pod, show, take } from "../_informer_env.ts";
import type { SimulatedCluster } from "@kinformer/simulator";

/** Requests of `verb` so far, and how many of them were WebSocket handshakes. */
function count(cluster: SimulatedCluster, verb: string): { all: number; webSocket: number } {
  const of = cluster.requests.filter((r) => r.verb === verb);
  return { all: of.length, webSocket: of.filter((r) => r.webSocket === true).length };
}

const state = (objects: { metadata: { name?: string; resourceVersion?: string } }[]) =>
  objects.map((o) => `${o.metadata.name}@${o.metadata.resourceVersion}`).sort();

const ws = { client: { watchTransport: "websocket" as const } };

describe("informer over WebSockets", () => {
  test("lists over HTTP, watches over a WebSocket, and delivers the same events", async () => {
    const e = env();
    e.cluster.create(pods, pod("a", "p1"));
    const inf = e.informer({ resource: pods, transport: "websocket" });
    const it = inf.events()[Symbol.asyncIterator]();
    inf.start();
    await inf.waitForSync();
    e.cluster.create(pods, pod("a", "p2"));
    e.cluster.patch(pods, { namespace: "a", name: "p1" }, { metadata: { labels: { x: "1" } } });
    e.cluster.delete(pods, { namespace: "a", name: "p2" });
    const events = await take(it, (_, all) => all.length === 5);
    assert.deepEqual(events.map(show), [
      "add p1 (initial)",
      "synced",
      "add p2",
      "update p1",
      "delete p2",
    ]);
    assert.deepEqual(count(e.cluster, "list"), { all: 1, webSocket: 0 });
    assert.deepEqual(count(e.cluster, "watch"), { all: 1, webSocket: 1 });
    assert.deepEqual(e.errors, []);
    await it.return?.();
    await closed(e);
  });

  test("the client's watchTransport applies when the informer does not say; a streaming list works too", async () => {
    const e = env({ ...ws, cluster: { watchList: true } });
    for (let i = 0; i < 3; i++) {
      e.cluster.create(configmaps, { metadata: { namespace: "a", name: `c${i}` } });
    }
    const inf = e.informer({ resource: configmaps, initialList: "stream" });
    inf.start();
    await inf.waitForSync();
    assert.equal(inf.store.size, 3);
    assert.deepEqual(count(e.cluster, "list"), { all: 0, webSocket: 0 });
    assert.deepEqual(count(e.cluster, "watch"), { all: 1, webSocket: 1 });
    assert.equal(e.cluster.requests[0]!.query.sendInitialEvents, "true");
    await closed(e);
  });

  test("a dropped connection (close 1006) is a network error; it watches again from the same resource version, no relist", async () => {
    const e = env(ws);
    e.cluster.create(pods, pod("a", "p1"));
    const inf = e.informer({ resource: pods });
    inf.start();
    await inf.waitForSync();
    await e.clock.flush();
    const rv = inf.resourceVersion;
    e.cluster.faults.dropWatches();
    e.cluster.create(pods, pod("a", "p2"));
    for (let t = 0; t < 10 && inf.store.size < 2; t++) await e.clock.advance(1_000);
    assert.equal(inf.store.size, 2);
    assert.deepEqual(e.errors.map((x) => x.kind), ["network"]);
    const error = e.errors[0]!.error;
    assert.ok(error instanceof WebSocketWatchError && error.code === 1006, String(error));
    assert.deepEqual(count(e.cluster, "list"), { all: 1, webSocket: 0 });
    const watches = e.cluster.requests.filter((r) => r.verb === "watch");
    assert.equal(watches.length, 2);
    assert.equal(watches[1]!.query.resourceVersion, rv);
    await closed(e);
  });

  test("a silent WebSocket (stalled) is cut after the inactivity limit and reopened", async () => {
    const e = env(ws);
    e.cluster.create(pods, pod("a", "p1"));
    const inf = e.informer({ resource: pods, inactivityTimeoutMs: 30_000 });
    inf.start();
    await inf.waitForSync();
    await e.clock.flush();
    e.cluster.faults.stall();
    await e.clock.advance(29_000);
    assert.equal(e.errors.length, 0, "not before the limit");
    await e.clock.advance(2_000);
    assert.deepEqual(e.errors.map((x) => x.kind), ["inactivity"]);
    assert.ok(e.errors[0]!.error instanceof WatchInactivityError);
    e.cluster.faults.resume();
    e.cluster.create(pods, pod("a", "p2"));
    for (let t = 0; t < 10 && inf.store.size < 2; t++) await e.clock.advance(1_000);
    assert.equal(inf.store.size, 2);
    assert.ok(count(e.cluster, "watch").webSocket >= 2);
    await closed(e);
  });

  const corruptions: WatchCorruption[] = ["malformed", "unknown-type", "numeric-rv", "long-line"];
  for (const kind of corruptions) {
    test(`garbage message (${kind}): watched again once from the same RV, then relisted; typed errors; cache intact`, async () => {
      const e = env(ws);
      e.cluster.create(pods, pod("a", "p1"));
      const inf = e.informer({ resource: pods, maxLineLength: 64 * 1024 });
      inf.start();
      await inf.waitForSync();
      await e.clock.flush();
      e.cluster.create(pods, pod("a", "p2"));
      e.cluster.faults.corruptWatches(kind, { times: 2, longLineBytes: 100_000 });
      e.cluster.faults.dropWatches();
      for (let t = 0; t < 30; t++) await e.clock.advance(1_000);
      const decode = e.errors.filter((x) => x.kind === "decode");
      assert.equal(decode.length, 2, e.errors.map((x) => String(x.error)).join("\n"));
      for (const { error } of decode) {
        assert.ok(error instanceof WatchDecodeError || error instanceof LineTooLongError);
      }
      assert.deepEqual(
        e.errors.filter((x) => x.kind !== "decode" && x.kind !== "network").map((x) => x.kind),
        [],
      );
      assert.equal(count(e.cluster, "list").all, 2, "one relist after the second decode failure");
      assert.equal(inf.health().relists, 1);
      e.cluster.create(pods, pod("a", "p3"));
      await e.clock.flush();
      assert.deepEqual(state(inf.store.list()), state(e.cluster.list(pods)));
      await closed(e);
    });
  }

  test("expired history (an ERROR 410 message) relists", async () => {
    const e = env(ws);
    e.cluster.create(pods, pod("a", "p1"));
    const inf = e.informer({ resource: pods });
    inf.start();
    await inf.waitForSync();
    await e.clock.flush();
    e.cluster.faults.dropWatches();
    e.cluster.create(pods, pod("a", "p2"));
    e.cluster.faults.compact(); // the watch is reopened from before p2: history is gone
    for (let t = 0; t < 10 && count(e.cluster, "list").all < 2; t++) await e.clock.advance(1_000);
    await e.clock.flush();
    const expired = e.errors.filter((x) => x.kind === "expired");
    assert.equal(expired.length, 1, e.errors.map((x) => String(x.error)).join("\n"));
    assert.ok(expired[0]!.error instanceof KubeApiError && expired[0]!.error.code === 410);
    assert.equal(count(e.cluster, "list").all, 2);
    assert.deepEqual(state(inf.store.list()), state(e.cluster.list(pods)));
    await closed(e);
  });

  test("a handshake the server keeps refusing is retried on the backoff, never in a loop, while LISTs work", async () => {
    // The cluster refuses this origin (CORS): LISTs (no Origin) pass, every handshake gets 403,
    // which a WebSocket cannot see: a network error each time.
    const e = env({
      client: { watchTransport: "websocket", webSocketOrigin: "https://elsewhere.example" },
    });
    e.cluster.create(pods, pod("a", "p1"));
    const inf = e.informer({ resource: pods });
    inf.start();
    await inf.waitForSync();
    for (let t = 0; t < 60; t++) await e.clock.advance(10_000); // ten minutes
    // A refused origin is not even recorded (CORS answers first): count the failures.
    const attempts = e.errors.length;
    assert.ok(attempts >= 10 && attempts <= 40, `${attempts} handshakes in ten minutes`);
    assert.ok(e.errors.every((x) => x.kind === "network"));
    assert.ok(
      e.errors.every((x) =>
        x.error instanceof WebSocketWatchError && x.error.phase === "handshake"
      ),
    );
    assert.equal(inf.health().activity, "backing-off");
    assert.equal(inf.store.size, 1, "the cache from the LIST stays");
    await closed(e);
  });

  test("stop() closes the socket: the server's watch ends, nothing is left behind", async () => {
    const e = env(ws);
    const inf = e.informer({ resource: pods });
    inf.start();
    await inf.waitForSync();
    await e.clock.flush();
    assert.equal(e.cluster.openWatches, 1);
    await inf.stop();
    await e.clock.flush();
    assert.equal(e.cluster.openWatches, 0);
    await closed(e);
  });
});
