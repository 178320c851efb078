// What a new user gets with default options when the cluster says no: a line naming the error
// at once, never silence and never a flood; `await start()` returning a synced cache; a start or
// a stream after stop() failing at once; a waitForSync that says why it timed out.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { defineResource } from "../../src/client/define_resource.ts";
import { KubeApiError } from "../../src/client/errors.ts";
import { KubeClient } from "../../src/client/kube_client.ts";
import { pods } from "../../src/client/resource.ts";
import { SharedInformerFactory } from "../../src/cache/factory.ts";
import { createInformer, type SharedInformer } from "../../src/cache/informer.ts";
import { watcher } from "../../src/cache/watcher.ts";
import type { KubeObject } from "../../src/client/types.ts";
import { ManualClock } from "../../src/testing/manual_clock.ts";
import { SimulatedCluster } from "@kinformer/simulator";
import { LifecycleError } from "../../src/util/lifecycle.ts";
import { advance } from "../_advance.ts";
import { captureConsole } from "../_console.ts";
import { pod } from "../_informer_env.ts";

/** A cluster on a manual clock, and a client of it. */
function setup(options: { deny?: boolean } = {}): {
  clock: ManualClock;
  cluster: SimulatedCluster;
  client: KubeClient;
} {
  const clock = new ManualClock(0);
  const cluster = new SimulatedCluster({
    clock,
    autoCreateNamespaces: true,
    ...(options.deny ? { authorization: [] } : {}), // no rule: everything is forbidden
  });
  const client = new KubeClient({ server: "http://sim.test", fetch: cluster.fetch });
  return { clock, cluster, client };
}

/** A custom resource whose CRD is not installed. */
const gadgets = defineResource({
  group: "example.org",
  version: "v1",
  resource: "gadgets",
  kind: "Gadget",
  namespaced: true,
});

describe("an informer with default options says what is wrong", () => {
  test("403 from RBAC: a line naming the error within 5 s, then a handful in a minute of retries", async () => {
    const printed = captureConsole();
    const { clock, cluster, client } = setup({ deny: true });
    try {
      const informer = createInformer(client, { resource: pods, clock });
      void informer.start();
      await advance(clock, 5_000, 100);
      assert.equal(printed.lines.length, 1, printed.lines.join("\n"));
      assert.match(
        printed.lines[0]!,
        /^error pods informer: list forbidden \(403\): pods is forbidden: User "system:anonymous" cannot list .*; retrying with backoff \(next in [\d.]+ (ms|s)\)$/,
      );
      await advance(clock, 60_000);
      const lists = cluster.requests.filter((r) => r.verb === "list").length;
      assert.ok(lists >= 5, `it kept retrying (${lists} lists)`);
      assert.ok(printed.lines.length <= 3, printed.lines.join("\n"));
      await informer.stop();
    } finally {
      printed.restore();
      cluster.close();
    }
  });

  test("a resource the server does not serve (404): a line naming it within 5 s", async () => {
    const printed = captureConsole();
    const { clock, cluster, client } = setup();
    try {
      const informer = createInformer(client, { resource: gadgets, clock });
      void informer.start();
      await advance(clock, 5_000, 100);
      assert.equal(printed.lines.length, 1, printed.lines.join("\n"));
      assert.match(
        printed.lines[0]!,
        /^error gadgets\.example\.org informer: list not found \(404\): .*; retrying with backoff/,
      );
      await advance(clock, 60_000);
      assert.ok(printed.lines.length <= 3, printed.lines.join("\n"));
      await informer.stop();
    } finally {
      printed.restore();
      cluster.close();
    }
  });

  test("a refused connection: a line naming the network error at once, a handful in a minute", async () => {
    const clock = new ManualClock(0);
    const printed = captureConsole();
    try {
      // Port 1 on the loopback: nothing listens there, the connection is refused.
      const client = new KubeClient({ server: "http://127.0.0.1:1" });
      const informer = createInformer(client, { resource: pods, clock });
      void informer.start();
      await printed.firstError; // the first attempt fails at once, before any backoff: the clock is at 0
      assert.equal(clock.now(), 0);
      assert.match(
        printed.lines[0]!,
        /^error pods informer: list network error: GET http:\/\/127\.0\.0\.1:1\/api\/v1\/pods.*; retrying with backoff/,
      );
      await advance(clock, 60_000);
      assert.ok(printed.lines.length <= 3, printed.lines.join("\n"));
      await informer.stop();
    } finally {
      printed.restore();
    }
  });

  test("a wrong token (401): the line names the error, never the token", async () => {
    const printed = captureConsole();
    const clock = new ManualClock(0);
    const cluster = new SimulatedCluster({ clock, token: "the-right-token" });
    try {
      const client = new KubeClient({
        server: "http://sim.test",
        fetch: cluster.fetch,
        token: "s3cr3t-wrong-token",
      });
      const informer = createInformer(client, { resource: pods, clock });
      void informer.start();
      await advance(clock, 60_000);
      assert.ok(printed.lines.length >= 1 && printed.lines.length <= 3, printed.lines.join("\n"));
      assert.match(printed.lines[0]!, /^error pods informer: list unauthorized \(401\)/);
      for (const line of printed.lines) assert.doesNotMatch(line, /s3cr3t|the-right-token/);
      await informer.stop();
    } finally {
      printed.restore();
      cluster.close();
    }
  });

  test("watcher() with default options prints the same way", async () => {
    const printed = captureConsole();
    const { clock, cluster, client } = setup({ deny: true });
    const ac = new AbortController();
    try {
      const steps = watcher(client, { resource: pods, clock, signal: ac.signal });
      const first = steps.next(); // the watcher starts at the first next()
      await advance(clock, 60_000);
      assert.ok(printed.lines.length >= 1 && printed.lines.length <= 3, printed.lines.join("\n"));
      assert.match(printed.lines[0]!, /^error pods watcher: list forbidden \(403\)/);
      ac.abort();
      assert.equal((await first).done, true);
    } finally {
      printed.restore();
      cluster.close();
    }
  });

  test("one line when it works again: healthy again after the errors", async () => {
    const printed = captureConsole();
    const { clock, cluster, client } = setup();
    try {
      cluster.faults.failNext(3, { verb: "list", status: 503 });
      const informer = createInformer(client, { resource: pods, clock });
      await Promise.all([informer.start(), advance(clock, 30_000)]);
      assert.equal(informer.hasSynced(), true);
      assert.equal(printed.lines.length, 2, printed.lines.join("\n"));
      assert.match(printed.lines[0]!, /^error pods informer: list server error \(503\)/);
      assert.equal(printed.lines[1], "warn pods informer: healthy again after 3 errors");
      await informer.stop();
    } finally {
      printed.restore();
      cluster.close();
    }
  });

  test("waitForSync cut short says what it waited for, with the last error as cause", async () => {
    const printed = captureConsole();
    const { clock, cluster, client } = setup({ deny: true });
    try {
      const informer = createInformer(client, { resource: pods, clock });
      void informer.start();
      const ac = new AbortController();
      // What AbortSignal.timeout(30_000) does, on the manual clock.
      clock.setTimeout(
        () => ac.abort(new DOMException("signal timed out", "TimeoutError")),
        30_000,
      );
      const waiting = informer.waitForSync({ signal: ac.signal });
      await Promise.all([
        assert.rejects(waiting, (error: Error) => {
          assert.equal(error.name, "TimeoutError");
          assert.match(
            error.message,
            /^pods informer not synced after 30 s: last error .*403 Forbidden: pods is forbidden/,
          );
          assert.ok(error.cause instanceof KubeApiError);
          assert.equal(error.cause.code, 403);
          return true;
        }),
        advance(clock, 30_000),
      ]);
      await informer.stop();
    } finally {
      printed.restore();
      cluster.close();
    }
  });
});

describe("client-node's habits work", () => {
  test("await start() returns once the cache has synced", async () => {
    const { cluster, client, clock } = setup();
    cluster.create(pods, pod("default", "web-1"));
    cluster.create(pods, pod("default", "web-2"));
    const informer = createInformer(client, { resource: pods, clock });
    assert.equal(informer.health().state, "idle");
    await informer.start();
    assert.equal(informer.hasSynced(), true);
    assert.equal(informer.store.size, 2);
    assert.equal(informer.health().state, "running");
    assert.equal(await informer.start(), undefined, "a second start returns at once");
    await informer.stop();
    assert.equal(informer.health().state, "stopped");
    cluster.close();
  });

  test("start() resolves (never rejects) when the informer is stopped before it synced", async () => {
    const printed = captureConsole();
    const { clock, cluster, client } = setup({ deny: true });
    try {
      const informer = createInformer(client, { resource: pods, clock });
      const started = informer.start();
      await advance(clock, 3_000);
      assert.equal(informer.health().state, "starting");
      await informer.stop();
      assert.equal(await started, undefined);
      assert.equal(informer.hasSynced(), false);
    } finally {
      printed.restore();
      cluster.close();
    }
  });

  test("start(), events() and addEventHandler() after stop() throw a LifecycleError at once", async () => {
    const { cluster, client, clock } = setup();
    const informer: SharedInformer<KubeObject> = createInformer(client, { resource: pods, clock });
    await informer.start();
    const stopping = informer.stop();
    assert.throws(() => informer.events(), {
      name: "LifecycleError",
      message:
        "pods informer was stopped: events() has nothing to deliver (an informer runs once: create a new one)",
    });
    await stopping;
    assert.throws(() => informer.start(), (error: unknown) => {
      assert.ok(error instanceof LifecycleError);
      assert.equal(error.state, "stopped");
      assert.equal(
        error.message,
        "pods informer was stopped and runs once: create a new one to start again",
      );
      return true;
    });
    assert.throws(() => informer.addEventHandler({}), /addEventHandler\(\) has nothing to deliver/);
    await informer.stop(); // stop stays idempotent
    const never = createInformer(client, { resource: pods, clock });
    await never.stop(); // stopped before it started: it cannot start either
    assert.throws(() => never.start(), LifecycleError);
    cluster.close();
  });

  test("the factory: await start() returns with every cache synced; start() after stop() throws", async () => {
    const { cluster, client, clock } = setup();
    cluster.create(pods, pod("default", "web-1"));
    const factory = new SharedInformerFactory(client, { clock });
    const informer = factory.informerFor(pods);
    await factory.start();
    assert.equal(informer.store.size, 1);
    await factory.stop();
    assert.throws(() => factory.start(), LifecycleError);
    cluster.close();
  });
});
