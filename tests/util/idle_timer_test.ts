import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { Clock } from "../../src/util/clock.ts";
import { IdleTimer } from "../../src/util/idle_timer.ts";
import { ManualClock } from "../../src/testing/manual_clock.ts";

/** An IdleTimer on a manual clock, counting how often it fired. */
function idleTimer(limitMs: number): { clock: ManualClock; timer: IdleTimer; fired: number[] } {
  const clock = new ManualClock(0);
  const fired: number[] = [];
  const timer = new IdleTimer(clock, limitMs, () => fired.push(clock.now()));
  return { clock, timer, fired };
}

describe("IdleTimer", () => {
  test("fires once, `limitMs` after it starts, when nothing touches it", async () => {
    const { clock, fired } = idleTimer(1_000);
    await clock.advance(999);
    assert.deepEqual(fired, []);
    await clock.advance(1);
    assert.deepEqual(fired, [1_000]);
    await clock.advance(10_000);
    assert.deepEqual(fired, [1_000], "never again");
    assert.equal(clock.pendingTimers, 0);
  });

  test("a touch moves the deadline to `limitMs` after the touch", async () => {
    const { clock, timer, fired } = idleTimer(1_000);
    await clock.advance(600);
    timer.touch(clock.now());
    await clock.advance(400); // the first timer fires early and is moved
    assert.deepEqual(fired, []);
    await clock.advance(599);
    assert.deepEqual(fired, []);
    await clock.advance(1);
    assert.deepEqual(fired, [1_600]);
  });

  test("touching sets no timer: one clock timer however many touches", async () => {
    const { clock, timer, fired } = idleTimer(1_000);
    assert.equal(clock.pendingTimers, 1);
    for (let t = 1; t <= 900; t++) {
      await clock.advance(1);
      timer.touch(clock.now());
    }
    assert.equal(clock.pendingTimers, 1);
    assert.deepEqual(fired, []);
    await clock.advance(1_000);
    assert.deepEqual(fired, [1_900]);
  });

  test("held, it does not fire however long; released, it counts from the release", async () => {
    const { clock, timer, fired } = idleTimer(1_000);
    timer.hold();
    await clock.advance(5_000);
    assert.deepEqual(fired, []);
    timer.release(clock.now());
    await clock.advance(999);
    assert.deepEqual(fired, []);
    await clock.advance(1);
    assert.deepEqual(fired, [6_000]);
  });

  test("restart counts from now with the new limit and calls only the new callback", async () => {
    const { clock, timer, fired } = idleTimer(1_000);
    await clock.advance(900);
    const second: number[] = [];
    timer.restart(5_000, () => second.push(clock.now()));
    assert.equal(clock.pendingTimers, 1, "the old timer is cleared");
    await clock.advance(4_999);
    assert.deepEqual(second, []);
    await clock.advance(1);
    assert.deepEqual(second, [5_900]);
    assert.deepEqual(fired, []);
  });

  test("stop cancels the timer for good; a later restart is ignored", async () => {
    const { clock, timer, fired } = idleTimer(1_000);
    timer.stop();
    assert.equal(clock.pendingTimers, 0);
    timer.restart(10, () => fired.push(clock.now()));
    assert.equal(clock.pendingTimers, 0);
    await clock.advance(5_000);
    assert.deepEqual(fired, []);
  });

  test("a timer that fires after stop (a clock that cannot cancel) does nothing", async () => {
    const clock = new ManualClock(0);
    const fired: number[] = [];
    const stubborn: Clock = {
      now: () => clock.now(),
      setTimeout: (fn, ms) => clock.setTimeout(fn, ms),
      clearTimeout: () => {},
    };
    const timer = new IdleTimer(stubborn, 1_000, () => fired.push(clock.now()));
    timer.stop();
    await clock.advance(2_000);
    assert.deepEqual(fired, []);
  });
});
