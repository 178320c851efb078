// The fleet and its controller under issue 32's contract: with default options a failing cluster
// is printed at once and never floods; one lifecycle in health().state; a fleet runs once, and
// engage() or events() after stop() fail at once.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { pods } from "../../src/client/resource.ts";
import type { KubeObject } from "../../src/client/types.ts";
import { Fleet } from "../../src/fleet/fleet.ts";
import { FleetController, runFleetController } from "../../src/fleet/fleet_controller.ts";
import { LifecycleError } from "../../src/util/lifecycle.ts";
import { advance } from "../_advance.ts";
import { captureConsole } from "../_console.ts";
import { blackhole, clientOf, link, ManualClock, notFound, server } from "./_fleet_env.ts";

describe("a fleet with default options says what is wrong", () => {
  test("a 403 and a 404 cluster: a line each naming its cluster within 5 s, a handful in a minute", async () => {
    const printed = captureConsole();
    const clock = new ManualClock();
    const good = server(clock, 2);
    const locked = server(clock, 2, { authorization: [] });
    try {
      const fleet = new Fleet<KubeObject>({ resource: pods, clock });
      fleet.engage("good", clientOf("good", good.fetch));
      fleet.engage("locked", clientOf("locked", locked.fetch));
      fleet.engage("nocrd", clientOf("nocrd", notFound));
      await advance(clock, 5_000, 100);
      assert.equal(printed.lines.length, 2, printed.lines.join("\n"));
      assert.match(
        printed.lines.find((l) => l.includes("locked")) ?? "",
        /^error fleet pods \(cluster locked\): list forbidden \(403\): pods is forbidden: .*; retrying with backoff \(next in [\d.]+ (ms|s)\)$/,
      );
      assert.match(
        printed.lines.find((l) => l.includes("nocrd")) ?? "",
        /^error fleet pods \(cluster nocrd\): list not found \(404\): the server could not find the requested resource; the resource is not served/,
      );
      await advance(clock, 60_000);
      const lists = locked.requests.filter((r) => r.verb === "list").length;
      assert.ok(lists >= 5, `the forbidden cluster kept retrying (${lists} lists)`);
      assert.ok(printed.lines.length <= 4, printed.lines.join("\n"));
      assert.equal(fleet.state("good"), "synced");
      await fleet.stop();
    } finally {
      printed.restore();
      good.close();
      locked.close();
    }
  });

  test("a cluster that goes away: one line at once, and one when no cluster fails any more", async () => {
    const printed = captureConsole();
    const clock = new ManualClock();
    const flakyServer = server(clock, 2, { bookmarkIntervalMs: 5_000 });
    const flaky = link(flakyServer);
    try {
      const fleet = new Fleet<KubeObject>({
        resource: pods,
        clock,
        informerOptions: () => ({ backoff: { jitter: "none" } }),
      });
      fleet.engage("flaky", clientOf("flaky", flaky.fetch));
      await fleet.waitForSync();
      flaky.down();
      await advance(clock, 30_000);
      assert.equal(fleet.state("flaky"), "unreachable");
      assert.equal(printed.lines.length, 1, printed.lines.join("\n"));
      assert.match(printed.lines[0]!, /^error fleet pods \(cluster flaky\): watch network error: /);
      flaky.up();
      await advance(clock, 60_000);
      assert.equal(fleet.state("flaky"), "synced");
      assert.match(printed.lines.at(-1)!, /^warn fleet pods: healthy again after \d+ errors$/);
      assert.ok(printed.lines.length <= 3, printed.lines.join("\n"));
      await fleet.stop();
    } finally {
      printed.restore();
      flakyServer.close();
    }
  });

  test("clusters failing the same way or differently within a minute: each its own first line", async () => {
    const printed = captureConsole();
    const clock = new ManualClock();
    const locked = server(clock, 1, { authorization: [] });
    try {
      await using fleet = new Fleet<KubeObject>({ resource: pods, clock });
      fleet.engage("b", clientOf("b", notFound));
      await advance(clock, 5_000, 100);
      fleet.engage("c", clientOf("c", notFound)); // the same 404, 5 s later
      await advance(clock, 5_000, 100);
      fleet.engage("d", clientOf("d", locked.fetch));
      await advance(clock, 5_000, 100);
      assert.deepEqual(
        printed.lines.map((l) => l.replace(/\): list .*/, ")")),
        [
          "error fleet pods (cluster b)",
          "error fleet pods (cluster c)",
          "error fleet pods (cluster d)",
        ],
      );
      assert.match(printed.lines[1]!, /\(cluster c\): list not found \(404\)/);
      assert.match(printed.lines[2]!, /\(cluster d\): list forbidden \(403\)/);
    } finally {
      printed.restore();
      locked.close();
    }
  });

  test("200 clusters failing print a bounded number of lines, naming clusters not printed", async () => {
    const printed = captureConsole();
    const clock = new ManualClock();
    const refused = (): Promise<Response> =>
      Promise.reject(new TypeError("fetch failed: connection refused"));
    try {
      const fleet = new Fleet<KubeObject>({ resource: pods, clock });
      for (let i = 0; i < 200; i++) {
        fleet.engage(`c${i}`, clientOf(`c${i}`, i % 2 === 0 ? notFound : refused));
      }
      await advance(clock, 180_000, 5_000);
      assert.equal(fleet.health().states.missing, 100);
      assert.equal(fleet.health().states.unreachable, 100);
      // 3 minutes: at most 5 lines and a summary a minute.
      assert.ok(printed.lines.length >= 6 && printed.lines.length <= 18, printed.lines.join("\n"));
      const summary = printed.lines.find((l) => l.includes("not printed")) ?? "";
      assert.match(
        summary,
        /^error fleet pods: \d+ errors not printed in the last [\d.]+ (s|min) \(at most 5 lines a minute\): .*in 9\d clusters \(c\d+, c\d+, c\d+, c\d+, c\d+ and 9\d more\)/,
      );
      await fleet.stop();
      assert.equal(clock.pendingTimers, 0, "no timer left after stop()");
    } finally {
      printed.restore();
    }
  });

  test("a cluster recovering while another still fails: a line for it; for the fleet once none fails", async () => {
    const printed = captureConsole();
    const clock = new ManualClock();
    const aServer = server(clock, 1, { bookmarkIntervalMs: 5_000 });
    const bServer = server(clock, 1, { bookmarkIntervalMs: 5_000 });
    const a = link(aServer);
    const b = link(bServer);
    try {
      await using fleet = new Fleet<KubeObject>({
        resource: pods,
        clock,
        informerOptions: () => ({ backoff: { jitter: "none" } }),
      });
      fleet.engage("a", clientOf("a", a.fetch));
      fleet.engage("b", clientOf("b", b.fetch));
      await fleet.waitForSync();
      a.down();
      b.down();
      await advance(clock, 30_000);
      assert.equal(printed.lines.filter((l) => l.startsWith("error")).length, 2);
      a.up();
      await advance(clock, 60_000);
      assert.equal(fleet.state("a"), "synced");
      assert.match(
        printed.lines.find((l) => l.startsWith("warn")) ?? "",
        /^warn fleet pods \(cluster a\): healthy again after \d+ errors$/,
      );
      b.up();
      await advance(clock, 60_000);
      assert.equal(fleet.state("b"), "synced");
      assert.match(printed.lines.at(-1)!, /^warn fleet pods: healthy again after \d+ errors$/);
    } finally {
      printed.restore();
      aServer.close();
      bServer.close();
    }
  });

  test("a fleet controller whose reconcile always fails prints a handful of lines, not one per retry", async () => {
    const printed = captureConsole();
    const clock = new ManualClock();
    const a = server(clock, 3);
    try {
      await using fleet = new Fleet<KubeObject>({ resource: pods, clock });
      fleet.engage("a", clientOf("a", a.fetch));
      const ac = new AbortController();
      let tries = 0;
      const done = runFleetController({
        fleet,
        clock,
        name: "inventory",
        signal: ac.signal,
        reconcile: () => {
          tries++;
          throw new Error("cannot reconcile");
        },
      });
      await fleet.waitForSync();
      await advance(clock, 60_000);
      assert.ok(tries >= 30, `retried on the rate limiter (${tries} tries)`);
      assert.ok(printed.lines.length >= 1 && printed.lines.length <= 2, printed.lines.join("\n"));
      assert.match(
        printed.lines[0]!,
        /^error fleet controller inventory \(ns-\d\/pod-\d+, cluster a\): reconcile error: cannot reconcile; retrying with backoff \(next in [\d.]+ ms\)$/,
      );
      ac.abort();
      await done;
    } finally {
      printed.restore();
      a.close();
    }
  });

  test("a fleet controller failing the same way in two clusters: a line for each cluster", async () => {
    const printed = captureConsole();
    const clock = new ManualClock();
    const a = server(clock, 1);
    const b = server(clock, 1);
    try {
      await using fleet = new Fleet<KubeObject>({ resource: pods, clock });
      fleet.engage("a", clientOf("a", a.fetch));
      fleet.engage("b", clientOf("b", b.fetch));
      const ac = new AbortController();
      const done = runFleetController({
        fleet,
        clock,
        name: "inventory",
        signal: ac.signal,
        reconcile: () => {
          throw new Error("cannot reconcile");
        },
      });
      await fleet.waitForSync();
      await advance(clock, 5_000);
      assert.deepEqual(
        printed.lines.map((l) => l.replace(/^.*, cluster (\w+)\): reconcile error.*$/, "$1"))
          .sort(),
        ["a", "b"],
      );
      ac.abort();
      await done;
      assert.equal(printed.lines.length, 2, printed.lines.join("\n"));
    } finally {
      printed.restore();
      a.close();
      b.close();
    }
  });
});

describe("the fleet's lifecycle", () => {
  test("idle, starting until every cluster has synced or failed, running, stopping, stopped", async () => {
    const clock = new ManualClock();
    const a = server(clock, 1);
    const locked = server(clock, 1, { authorization: [] });
    const hole = { count: 0, aborted: 0 };
    const fleet = new Fleet<KubeObject>({
      resource: pods,
      clock,
      syncTimeoutMs: 5_000,
      onError: () => {},
    });
    assert.equal(fleet.health().state, "idle");
    fleet.engage("a", clientOf("a", a.fetch));
    fleet.engage("locked", clientOf("locked", locked.fetch));
    fleet.engage("hung", clientOf("hung", blackhole(hole)));
    assert.equal(fleet.health().state, "starting");
    await fleet.waitForSync({ clusters: ["a"] });
    await clock.flush();
    assert.equal(fleet.state("locked"), "forbidden");
    assert.equal(fleet.health().state, "starting", "the hung cluster has not answered yet");
    await clock.advance(5_000);
    assert.equal(fleet.health().state, "running", "each cluster synced or failed");
    assert.equal(fleet.state("hung"), "unreachable");
    const stopping = fleet.stop();
    assert.equal(fleet.health().state, "stopping");
    assert.equal(fleet.stop(), stopping, "a second stop() is the same stop");
    await stopping;
    assert.equal(fleet.health().state, "stopped");
    assert.equal(hole.aborted, hole.count, "no request left hanging");
    assert.equal(clock.pendingTimers, 0);
    a.close();
    locked.close();
  });

  test("a fleet runs once: engage() and events() after stop() throw, a sync wait rejects", async () => {
    const clock = new ManualClock();
    const a = server(clock, 1);
    const fleet = new Fleet<KubeObject>({ resource: pods, clock });
    fleet.engage("a", clientOf("a", a.fetch));
    await fleet.waitForSync();
    const pending = fleet.waitForSync({ clusters: ["later"] });
    await fleet.stop();
    await assert.rejects(pending, /^Error: fleet pods stopped before the clusters synced$/);
    await assert.rejects(fleet.waitForSync(), /fleet pods stopped before the clusters synced/);
    assert.throws(
      () => fleet.engage("b", clientOf("b", a.fetch)),
      (error: unknown) =>
        error instanceof LifecycleError && error.state === "stopped" &&
        /^fleet pods was stopped: engage\(\) after stop\(\) is refused/.test(error.message),
    );
    assert.throws(() => fleet.events(), LifecycleError);
    assert.deepEqual(fleet.clusters(), []);
    a.close();
  });

  test("a fleet controller: idle, running, stopping, stopped; it runs once and stops with its fleet", async () => {
    const clock = new ManualClock();
    const a = server(clock, 2);
    const fleet = new Fleet<KubeObject>({ resource: pods, clock });
    fleet.engage("a", clientOf("a", a.fetch));
    const seen: string[] = [];
    let release: () => void = () => {};
    const controller = new FleetController({
      fleet,
      clock,
      name: "inventory",
      reconcile: ({ fleetKey }, ctx) => {
        seen.push(fleetKey);
        // The first reconcile holds until it is released: stop() waits for it.
        if (seen.length === 1) {
          return new Promise<void>((resolve) => {
            release = resolve;
            ctx.signal.addEventListener("abort", () => resolve(), { once: true });
          });
        }
      },
    });
    assert.deepEqual(controller.health(), {
      name: "inventory",
      state: "idle",
      workers: 1,
      activeWorkers: 0,
      queued: 0,
    });
    controller.start();
    controller.start(); // a second start does nothing
    assert.equal(controller.health().state, "running");
    await fleet.waitForSync();
    await clock.flush();
    assert.equal(controller.health().activeWorkers, 1);
    assert.equal(controller.health().queued, 1);
    const stopping = controller.stop();
    assert.equal(controller.health().state, "stopping");
    await stopping;
    assert.equal(controller.health().state, "stopped");
    assert.equal(seen.length, 1, "nothing taken after stop()");
    assert.throws(() => controller.start(), /fleet controller inventory was stopped and runs once/);
    release();

    // A controller stops with its fleet; one started on a stopped fleet fails at once.
    const second = new FleetController({ fleet, clock, reconcile: () => {} });
    second.start();
    await fleet.stop();
    await second.whenStopped;
    assert.equal(second.health().state, "stopped");
    const third = new FleetController({ fleet, clock, reconcile: () => {} });
    assert.throws(() => third.start(), LifecycleError);
    assert.equal(third.health().state, "stopped");
    a.close();
  });
});
