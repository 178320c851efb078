import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { DelayingQueue } from "../../src/queue/mod.ts";
import { ManualClock } from "../../src/testing/manual_clock.ts";

/** Takes every ready item without waiting, marking each done. */
async function drainReady<T>(queue: DelayingQueue<T>): Promise<T[]> {
  const out: T[] = [];
  while (queue.len > 0) {
    const next = await queue.get();
    if (next.shutdown) break;
    out.push(next.item);
    queue.done(next.item);
  }
  return out;
}

describe("DelayingQueue", () => {
  test("addAfter makes an item ready only once its delay has passed", async () => {
    const clock = new ManualClock(0);
    const queue = new DelayingQueue<string>({ clock });
    queue.addAfter("a", 100);
    assert.equal(queue.len, 0);
    assert.equal(queue.delayedLen, 1);
    await clock.advance(99);
    assert.equal(queue.len, 0);
    await clock.advance(1);
    assert.equal(queue.len, 1);
    assert.equal(queue.delayedLen, 0);
    assert.deepEqual(await drainReady(queue), ["a"]);
    assert.equal(clock.pendingTimers, 0);
  });

  test("a get waiting on an empty queue wakes when a delayed item becomes ready", async () => {
    const clock = new ManualClock(0);
    const queue = new DelayingQueue<string>({ clock });
    let got: string | undefined;
    const waiting = queue.get().then((r) => {
      if (!r.shutdown) got = r.item;
    });
    queue.addAfter("a", 50);
    await clock.advance(49);
    assert.equal(got, undefined);
    await clock.advance(1);
    await waiting;
    assert.equal(got, "a");
  });

  test("items become ready in order of ready time, not insertion", async () => {
    const clock = new ManualClock(0);
    const queue = new DelayingQueue<string>({ clock });
    const delays: Record<string, number> = { e: 50, a: 10, d: 40, b: 20, c: 30, f: 30 };
    for (const [key, ms] of Object.entries(delays)) queue.addAfter(key, ms);
    await clock.advance(100);
    assert.deepEqual(await drainReady(queue), ["a", "b", "c", "f", "d", "e"]);
  });

  test("a duplicate addAfter keeps the earliest ready time", async () => {
    const clock = new ManualClock(0);
    const queue = new DelayingQueue<string>({ clock });
    queue.addAfter("later-then-earlier", 100);
    queue.addAfter("later-then-earlier", 10);
    queue.addAfter("earlier-then-later", 20);
    queue.addAfter("earlier-then-later", 500);
    assert.equal(queue.delayedLen, 2);
    await clock.advance(10);
    assert.deepEqual(await drainReady(queue), ["later-then-earlier"]);
    await clock.advance(10);
    assert.deepEqual(await drainReady(queue), ["earlier-then-later"]);
    await clock.advance(1000);
    assert.equal(queue.len, 0, "the later duplicates must not fire again");
    assert.equal(clock.pendingTimers, 0);
  });

  test("the queue keeps exactly one clock timer, for the earliest waiting item", async () => {
    const clock = new ManualClock(0);
    const queue = new DelayingQueue<number>({ clock });
    // 500 items over 5 distinct ready times: 100, 200, ... 500 ms.
    for (let i = 0; i < 500; i++) queue.addAfter(i, 500 - (i % 5) * 100);
    assert.equal(clock.pendingTimers, 1);
    queue.addAfter(-1, 5); // earlier than all: the timer moves, no second timer
    assert.equal(clock.pendingTimers, 1);
    await clock.advance(5);
    assert.equal(queue.len, 1);
    assert.equal(clock.pendingTimers, 1);
    await clock.advance(95);
    assert.equal(queue.len, 101);
    assert.equal(clock.pendingTimers, 1);
    await clock.advance(400);
    assert.equal(queue.len, 501);
    assert.equal(clock.pendingTimers, 0);
  });

  test("items due at the same time are released together by one timer firing", async () => {
    const clock = new ManualClock(0);
    let timersSet = 0;
    const counting = {
      now: () => clock.now(),
      setTimeout: (fn: () => void, ms: number) => {
        timersSet++;
        return clock.setTimeout(fn, ms);
      },
      clearTimeout: (h: unknown) => clock.clearTimeout(h),
    };
    const q = new DelayingQueue<string>({ clock: counting });
    for (const key of ["a", "b", "c"]) q.addAfter(key, 10);
    await clock.advance(10);
    assert.equal(q.len, 3);
    assert.equal(timersSet, 1);
    void q.stop();
  });

  test("addAfter with a delay of zero or less adds the item at once", () => {
    const clock = new ManualClock(0);
    const queue = new DelayingQueue<string>({ clock });
    queue.addAfter("a", 0);
    queue.addAfter("b", -5);
    assert.equal(queue.len, 2);
    assert.equal(clock.pendingTimers, 0);
  });

  test("a delayed item that is already pending is not queued twice", async () => {
    const clock = new ManualClock(0);
    const queue = new DelayingQueue<string>({ clock });
    queue.add("a");
    queue.addAfter("a", 10);
    await clock.advance(10);
    assert.equal(queue.len, 1);
  });

  test("stop drops waiting items and clears the timer", async () => {
    const clock = new ManualClock(0);
    const queue = new DelayingQueue<string>({ clock });
    queue.addAfter("a", 10);
    queue.addAfter("b", 20);
    void queue.stop();
    assert.equal(clock.pendingTimers, 0);
    assert.equal(queue.delayedLen, 0);
    queue.addAfter("c", 10);
    assert.equal(clock.pendingTimers, 0, "addAfter after shutdown is ignored");
    await clock.advance(100);
    assert.deepEqual(await queue.get(), { shutdown: true });
  });

  test("stop({ drain: true }) also clears the timer", async () => {
    const clock = new ManualClock(0);
    const queue = new DelayingQueue<string>({ clock });
    queue.addAfter("a", 10);
    await queue.stop({ drain: true });
    assert.equal(clock.pendingTimers, 0);
  });

  test("metrics count retries and waiting items; the onRetry hook sees each one", () => {
    const clock = new ManualClock(0);
    const retried: string[] = [];
    const queue = new DelayingQueue<string>({
      clock,
      metrics: { onRetry: (item) => retried.push(item) },
    });
    queue.addAfter("a", 10);
    queue.addAfter("a", 5);
    queue.addAfter("b", 0);
    const m = queue.metrics();
    assert.equal(m.retries, 3);
    assert.equal(m.delayed, 1);
    assert.equal(m.depth, 1);
    assert.deepEqual(retried, ["a", "a", "b"]);
    void queue.stop();
  });

  test("addAfter rejects a NaN or infinite delay with a RangeError", () => {
    const queue = new DelayingQueue<string>({ clock: new ManualClock(0) });
    assert.throws(() => queue.addAfter("a", Number.NaN), {
      name: "RangeError",
      message: /delayMs/,
    });
    assert.throws(() => queue.addAfter("a", Infinity), { name: "RangeError", message: /delayMs/ });
    assert.throws(() => queue.addAfter("a", "5" as unknown as number), {
      name: "TypeError",
      message: /delayMs/,
    });
    assert.equal(queue.delayedLen, 0);
  });
});
