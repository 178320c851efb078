// The one lifecycle in the controller layer: Controller (start/stop/waitForSync/whenStopped,
// grace period, metrics hooks, error contexts), LeaderElector and ShardCoordinator
// (start/stop/asyncDispose, restart), and a coordinator shared by two controllers.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import {
  Controller,
  type InformerEventHandlerLike,
  type InformerLike,
  LeaderElector,
  type ReconcileOutcome,
  type ReconcileResult,
  ShardCoordinator,
} from "../../../src/controller/mod.ts";
import type { ErrorContext } from "../../../src/util/error_context.ts";
import { LifecycleError } from "../../../src/util/lifecycle.ts";
import { KubeClient } from "../../../src/client/kube_client.ts";
import { leases } from "../../../src/client/resource.ts";
import { sleep } from "../../../src/util/clock.ts";
import { ManualClock } from "../../../src/testing/manual_clock.ts";
import { SimulatedCluster } from "@kinformer/simulator";

type Obj = { metadata: { namespace?: string; name?: string } };

/** A synced informer holding `names` in namespace default; objects can be added later. */
function informerOf(...names: string[]): InformerLike<Obj> & { add(name: string): void } {
  const handlers = new Set<InformerEventHandlerLike<Obj>>();
  return {
    addEventHandler(handler) {
      handlers.add(handler);
      for (const name of names) handler.onAdd?.({ metadata: { namespace: "default", name } }, true);
      return { hasSynced: () => true, remove: () => void handlers.delete(handler) };
    },
    add(name: string) {
      for (const h of handlers) h.onAdd?.({ metadata: { namespace: "default", name } }, false);
    },
  };
}

describe("Controller", () => {
  test("start, waitForSync, stop, whenStopped, health; it runs once", async () => {
    const clock = new ManualClock(0);
    const reconciled: string[] = [];
    const controller = new Controller({
      name: "web",
      informers: [informerOf("a")],
      clock,
      reconcile: (key) => void reconciled.push(key),
    });
    assert.equal(controller.health().state, "idle");
    controller.start();
    controller.start(); // idempotent
    await controller.waitForSync();
    await clock.flush();
    assert.deepEqual(reconciled, ["default/a"]);
    assert.deepEqual(controller.health(), {
      name: "web",
      state: "running",
      synced: true,
      workers: 1,
      activeWorkers: 0,
    });
    await controller.stop();
    await controller.stop();
    await controller.whenStopped();
    assert.equal(controller.health().state, "stopped");
    // A controller runs once: a start after stop fails at once, saying so.
    assert.throws(() => controller.start(), (error: unknown) => {
      assert.ok(error instanceof LifecycleError);
      assert.equal(
        error.message,
        "controller web was stopped and runs once: create a new one to start again",
      );
      return true;
    });
    assert.equal(controller.health().state, "stopped");
    assert.equal(clock.pendingTimers, 0);
  });

  test("aborting the start signal stops it; stop before start stops it for good", async () => {
    const abort = new AbortController();
    const controller = new Controller({ informers: [informerOf()], reconcile: () => {} });
    controller.start({ signal: abort.signal });
    await controller.waitForSync();
    abort.abort();
    await controller.whenStopped();
    assert.equal(controller.health().state, "stopped");

    const never = new Controller({ informers: [informerOf()], reconcile: () => {} });
    await never.stop();
    await never.whenStopped();
    await assert.rejects(never.waitForSync(), /stopped before it synced/);
  });

  test("stop lets in-flight reconciles run for the grace period, then aborts their signal", async () => {
    const clock = new ManualClock(0);
    const informer = informerOf("slow");
    const signals: AbortSignal[] = [];
    let finished = false;
    const controller = new Controller({
      informers: [informer],
      clock,
      shutdownGracePeriodMs: 5_000,
      reconcile: async (_key, ctx) => {
        signals.push(ctx.signal);
        try {
          await sleep(60_000, { clock, signal: ctx.signal });
        } finally {
          finished = true;
        }
      },
    });
    controller.start();
    await clock.flush();
    assert.equal(signals.length, 1);
    const stopping = controller.stop();
    informer.add("late"); // not taken any more
    await clock.advance(4_999);
    assert.equal(signals[0]!.aborted, false, "still within the grace period");
    assert.equal(controller.health().state, "running");
    await clock.advance(1);
    await stopping;
    assert.equal(signals[0]!.aborted, true);
    assert.equal(finished, true);
    assert.equal(signals.length, 1, "no key was taken after stop");
    assert.equal(clock.pendingTimers, 0);
  });

  test("a reconcile that finishes within the grace period ends the stop early", async () => {
    const clock = new ManualClock(0);
    let aborted: boolean | undefined;
    const controller = new Controller({
      informers: [informerOf("a")],
      clock,
      shutdownGracePeriodMs: 30_000,
      reconcile: async (_key, ctx) => {
        await sleep(1_000, { clock });
        aborted = ctx.signal.aborted;
      },
    });
    controller.start();
    await clock.flush();
    const stopping = controller.stop();
    await clock.advance(1_000);
    await stopping;
    assert.equal(aborted, false);
    assert.equal(clock.pendingTimers, 0, "the grace timer is cleared");
  });

  test("requeue: true and requeueAfterMs: 0 come back through the rate limiter, never hot (as controller-runtime's Requeue)", async () => {
    for (const result of [{ requeue: true }, { requeueAfterMs: 0 }] as ReconcileResult[]) {
      const clock = new ManualClock(0);
      const at: number[] = [];
      const outcomes: ReconcileOutcome[] = [];
      const controller = new Controller({
        informers: [informerOf("again")],
        clock,
        onError: () => {},
        metrics: { onReconcile: (outcome) => void outcomes.push(outcome) },
        reconcile: () => {
          at.push(clock.now());
          return at.length < 50 ? result : undefined;
        },
      });
      controller.start();
      await clock.advance(1_000);
      // The default limiter backs off 5 ms, 10 ms, 20 ms ...: a handful in a second, not 50 at once.
      assert.ok(at.length >= 3 && at.length <= 12, `${at.length} reconciles in 1 s`);
      assert.ok(at.every((t, i) => i === 0 || t > at[i - 1]!), "each one later than the last");
      assert.deepEqual(new Set(outcomes), new Set(["requeue"]));
      await controller.stop();
    }
  });

  test("metrics hooks see every outcome and the busy workers", async () => {
    const clock = new ManualClock(0);
    const outcomes: [ReconcileOutcome, number][] = [];
    const active: number[] = [];
    let workers = 0;
    const results: Record<string, () => ReconcileResult | undefined> = {
      "default/ok": () => undefined,
      "default/fail": () => {
        throw new Error("nope");
      },
      "default/now": () => ({ requeueAfterMs: 0 }),
      "default/later": () => ({ requeueAfterMs: 60_000 }),
    };
    const seen = new Set<string>();
    const controller = new Controller({
      informers: [informerOf("ok", "fail", "now", "later")],
      clock,
      workers: 2,
      onError: () => {},
      metrics: {
        onStart: (n) => void (workers = n),
        onReconcile: (outcome, ms) => void outcomes.push([outcome, ms]),
        onActiveWorkers: (n) => void active.push(n),
      },
      reconcile: async (key, ctx) => {
        await sleep(100, { clock, signal: ctx.signal });
        if (seen.has(key)) return;
        seen.add(key);
        return results[key]!();
      },
    });
    controller.start();
    await clock.advance(250);
    await controller.stop();
    assert.equal(workers, 2);
    assert.deepEqual(
      outcomes.slice(0, 4).map(([o, ms]) => [o, ms]),
      [["success", 100], ["error", 100], ["requeue", 100], ["requeue_after", 100]],
    );
    assert.equal(active[0], 0);
    assert.ok(Math.max(...active) === 2);
    assert.equal(active.at(-1), 0);
  });

  test("onError learns where (phase: reconcile with the key, handler, callback) and what (kind)", async () => {
    const clock = new ManualClock(0);
    const errors: ErrorContext[] = [];
    const controller = new Controller<Obj>({
      name: "kinds",
      informers: [informerOf("a", "b")],
      clock,
      keyFor: (o) => {
        if (o.metadata.name === "b") throw new Error("bad key");
        return `default/${o.metadata.name}`;
      },
      metrics: {
        onReconcile: () => {
          throw new Error("hook broke");
        },
      },
      onError: (_error, context) => void errors.push(context),
      reconcile: () => {
        throw new Error("failed");
      },
    });
    controller.start();
    await clock.flush();
    await controller.stop();
    const seen = errors.map((c) => `${c.phase}:${c.kind}:${c.key ?? "-"}:${c.controller}`);
    assert.ok(seen.includes("handler:handler:-:kinds"), seen.join(" "));
    assert.ok(seen.includes("callback:handler:-:kinds"), seen.join(" "));
    assert.ok(seen.includes("reconcile:other:default/a:kinds"), seen.join(" "));
    assert.ok(errors.every((c) => c.source === "controller kinds"));
  });

  test("options are checked up front, naming the option", () => {
    const base = { informers: [], reconcile: () => {} };
    assert.throws(() => new Controller({ ...base, name: "" }), /name/);
    assert.throws(() => new Controller({ ...base, shutdownGracePeriodMs: -1 }), {
      name: "RangeError",
      message: /shutdownGracePeriodMs/,
    });
    assert.throws(() => new Controller({ ...base, metrics: { onReconcile: 1 as never } }), {
      name: "TypeError",
      message: /metrics.onReconcile/,
    });
    assert.throws(() => new Controller({ ...base, startCoordination: "yes" as never }), {
      name: "TypeError",
      message: /startCoordination/,
    });
  });
});

describe("LeaderElector and ShardCoordinator lifecycle", () => {
  /** A ManualClock, a simulated cluster on it, and the options of replica `a` of group `ctl`. */
  function setup() {
    const clock = new ManualClock();
    const c = new SimulatedCluster({ clock });
    const client = new KubeClient({ server: "http://sim", fetch: c.fetch });
    return {
      clock,
      c,
      replica: { client, namespace: "default", name: "ctl", identity: "a", clock },
    };
  }

  test("LeaderElector: start is idempotent, stop releases, a start while stopping throws, it restarts, asyncDispose stops", async () => {
    const { clock, c, replica } = setup();
    const elector = new LeaderElector(replica);
    assert.deepEqual([elector.health().state, elector.health().activity], ["idle", "idle"]);
    elector.start();
    elector.start();
    assert.equal(elector.running, true);
    assert.deepEqual([elector.health().state, elector.health().activity], [
      "running",
      "candidate",
    ]);
    await clock.advance(100);
    assert.equal(elector.isLeader(), true);
    assert.deepEqual([elector.health().state, elector.health().activity], ["running", "leading"]);
    const stopping = elector.stop();
    assert.equal(elector.health().state, "stopping");
    // A start while it releases the lease fails at once, saying what to do.
    assert.throws(() => elector.start(), (error: unknown) => {
      assert.ok(error instanceof LifecycleError);
      assert.match(error.message, /^leader election default\/ctl is stopping: await stop\(\)/);
      return true;
    });
    await stopping;
    assert.deepEqual([elector.health().state, elector.health().activity], ["stopped", "stopped"]);
    assert.equal(elector.running, false);
    assert.equal(elector.isLeader(), false);
    const lease = c.get(leases, { namespace: "default", name: "ctl" }) as {
      spec: { holderIdentity?: string };
    };
    assert.equal(lease.spec.holderIdentity ?? "", "", "released");
    assert.equal(clock.pendingTimers, 0);
    {
      // What `await using` does at the block's end (Node 22 has the symbol, not the syntax).
      const again = elector;
      try {
        again.start();
        await clock.advance(100);
        assert.equal(again.isLeader(), true);
      } finally {
        await again[Symbol.asyncDispose]();
      }
    }
    assert.equal(elector.running, false);
    assert.equal(elector.health().state, "stopped");
    c.close();
  });

  test("ShardCoordinator: start/stop/asyncDispose, the start signal stops it, it restarts", async () => {
    const { clock, c, replica } = setup();
    const coordinator = new ShardCoordinator({ ...replica, shards: 4 });
    const abort = new AbortController();
    coordinator.start({ signal: abort.signal });
    await clock.advance(5_000);
    assert.deepEqual(coordinator.ownedShards(), [0, 1, 2, 3]);
    assert.deepEqual([coordinator.health().state, coordinator.health().activity], [
      "running",
      "leading",
    ]);
    abort.abort();
    assert.equal(coordinator.health().state, "stopping");
    await coordinator.stop();
    assert.equal(coordinator.running, false);
    assert.deepEqual(coordinator.ownedShards(), []);
    assert.deepEqual([coordinator.health().state, coordinator.health().activity], [
      "stopped",
      "stopped",
    ]);
    {
      // A stopped coordinator starts again: a restart.
      const again = coordinator;
      try {
        again.start();
        assert.deepEqual([again.health().state, again.health().activity], [
          "running",
          "candidate",
        ]);
        await clock.advance(5_000);
        assert.deepEqual(again.ownedShards(), [0, 1, 2, 3]);
      } finally {
        await again[Symbol.asyncDispose]();
      }
    }
    assert.equal(coordinator.running, false);
    c.close();
  });

  test("one elector shared by two controllers (startCoordination: false): both follow it", async () => {
    const { clock, c, replica } = setup();
    const elector = new LeaderElector(replica);
    const done: string[] = [];
    const make = (name: string) =>
      new Controller({
        name,
        informers: [informerOf("x")],
        clock,
        leaderElection: elector,
        startCoordination: false,
        reconcile: (key) => void done.push(`${name} ${key}`),
      });
    const one = make("one");
    one.start();
    await clock.advance(1_000);
    assert.deepEqual(done, [], "nobody leads yet: nothing is reconciled");
    elector.start();
    await clock.advance(1_000);
    const two = make("two"); // starts while the elector already leads: it replays at once
    two.start();
    await clock.advance(1_000);
    assert.deepEqual(done.sort(), ["one default/x", "two default/x"]);
    await one.stop();
    assert.equal(elector.isLeader(), true, "a controller does not stop a shared elector");
    await two.stop();
    await elector.stop();
    c.close();
  });
});
