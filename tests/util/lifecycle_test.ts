import { describe, test } from "node:test";
import assert from "node:assert/strict";
import {
  Lifecycle,
  LifecycleError,
  type LifecycleEvent,
  type LifecycleState,
  nextLifecycleState,
} from "../../src/util/lifecycle.ts";

describe("the lifecycle every long-running object shares", () => {
  const refused = "refused";
  // [state, event, next for an object that runs once, next for a restartable one]
  const table: [LifecycleState, LifecycleEvent, string, string][] = [
    ["idle", "start", "starting", "starting"],
    ["starting", "start", "starting", "starting"],
    ["running", "start", "running", "running"],
    ["stopping", "start", refused, refused],
    ["stopped", "start", refused, "starting"],
    ["idle", "started", "idle", "idle"],
    ["starting", "started", "running", "running"],
    ["stopping", "started", "stopping", "stopping"],
    ["stopped", "started", "stopped", "stopped"],
    ["idle", "stop", "stopping", "stopping"],
    ["starting", "stop", "stopping", "stopping"],
    ["running", "stop", "stopping", "stopping"],
    ["stopping", "stop", "stopping", "stopping"],
    ["stopped", "stop", "stopped", "stopped"],
    ["stopping", "stopped", "stopped", "stopped"],
    ["running", "stopped", "running", "running"],
  ];
  for (const [state, event, once, restartable] of table) {
    test(`${event} in ${state}: ${once} (runs once), ${restartable} (restartable)`, () => {
      const show = (next: ReturnType<typeof nextLifecycleState>): string =>
        typeof next === "object" ? refused : next;
      assert.equal(show(nextLifecycleState(state, event, false)), once);
      assert.equal(show(nextLifecycleState(state, event, true)), restartable);
    });
  }

  test("a refused start says what to do: wait for the stop only where a start can follow it", () => {
    const refusal = (state: LifecycleState, restartable: boolean): string => {
      const next = nextLifecycleState(state, "start", restartable);
      assert.equal(typeof next, "object");
      return typeof next === "object" ? next.refused : next;
    };
    assert.equal(
      refusal("stopping", false),
      "is stopping and runs once: create a new one to start again",
    );
    assert.equal(
      refusal("stopped", false),
      "was stopped and runs once: create a new one to start again",
    );
    assert.equal(refusal("stopping", true), "is stopping: await stop() before starting it again");
  });

  test("start() says whether it started the object; a refused start throws a LifecycleError naming the object", () => {
    const life = new Lifecycle("pods informer", { restartable: false });
    assert.equal(life.state, "idle");
    assert.equal(life.start(), true);
    assert.equal(life.start(), false, "a second start does nothing");
    life.started();
    assert.equal(life.state, "running");
    assert.equal(life.active, true);
    assert.equal(life.stop(), true);
    assert.equal(life.stop(), false);
    life.stopped();
    assert.equal(life.state, "stopped");
    assert.throws(() => life.start(), (error: unknown) => {
      assert.ok(error instanceof LifecycleError);
      assert.equal(error.name, "LifecycleError");
      assert.equal(error.state, "stopped");
      assert.match(error.message, /^pods informer was stopped and runs once/);
      return true;
    });
  });

  test("a restartable object starts again after a stop", () => {
    const life = new Lifecycle("leader elector", { restartable: true });
    life.start();
    life.stop();
    assert.throws(() => life.start(), /leader elector is stopping: await stop\(\)/);
    life.stopped();
    assert.equal(life.start(), true);
    assert.equal(life.state, "starting");
  });

  test("waiters are woken at every transition", async () => {
    const life = new Lifecycle("work queue", { restartable: false });
    const running = life.wait(() => (life.state === "running" ? "done" : "pending"), {
      failure: () => new Error("never"),
    });
    const stoppedFirst = life.wait(
      () => (life.state === "stopped" ? "failed" : life.state === "running" ? "done" : "pending"),
      { failure: () => new Error("stopped first") },
    );
    life.start();
    life.started();
    await running;
    await stoppedFirst;
    const never = life.wait(
      () => (life.state === "idle" ? "done" : life.state === "stopped" ? "failed" : "pending"),
      {
        failure: () => new Error("stopped before idle"),
      },
    );
    life.stop();
    life.stopped();
    await assert.rejects(never, /stopped before idle/);
    assert.equal(life.waiters.size, 0);
  });
});
