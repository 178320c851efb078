import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { ItemExponentialFailureRateLimiter, RateLimitingQueue } from "../../src/queue/mod.ts";
import { ManualClock } from "../../src/testing/manual_clock.ts";

/** Takes one ready item and marks it done. */
async function takeDone<T>(queue: RateLimitingQueue<T>): Promise<T> {
  const next = await queue.get();
  assert.equal(next.shutdown, false);
  const item = (next as { item: T }).item;
  queue.done(item);
  return item;
}

describe("RateLimitingQueue", () => {
  test("addRateLimited re-adds an item after exponentially growing delays", async () => {
    const clock = new ManualClock(0);
    const queue = new RateLimitingQueue<string>({ clock });
    for (const delay of [5, 10, 20, 40]) {
      assert.equal(queue.addRateLimited("a"), delay, "returns the delay it chose");
      await clock.advance(delay - 1);
      assert.equal(queue.len, 0, `not ready before ${delay} ms`);
      await clock.advance(1);
      assert.equal(queue.len, 1, `ready after ${delay} ms`);
      await takeDone(queue);
    }
    assert.equal(queue.numRequeues("a"), 4);
    void queue.stop();
    assert.equal(clock.pendingTimers, 0);
  });

  test("forget resets the item's backoff and requeue count", async () => {
    const clock = new ManualClock(0);
    const queue = new RateLimitingQueue<string>({ clock });
    queue.addRateLimited("a");
    queue.addRateLimited("a");
    assert.equal(queue.numRequeues("a"), 2);
    queue.forget("a");
    assert.equal(queue.numRequeues("a"), 0);
    await clock.advance(5);
    assert.equal(queue.len, 1, "the earliest pending ready time (5 ms) still applies");
    await takeDone(queue);
    queue.addRateLimited("a");
    await clock.advance(5);
    assert.equal(queue.len, 1, "after forget the delay starts again at 5 ms");
    void queue.stop();
  });

  test("the default limiter's token bucket runs on the queue's clock", async () => {
    const clock = new ManualClock(0);
    const queue = new RateLimitingQueue<number>({ clock });
    for (let i = 0; i < 101; i++) queue.addRateLimited(i);
    await clock.advance(5);
    assert.equal(queue.len, 100, "the burst of 100 only waits the 5 ms backoff");
    await clock.advance(94);
    assert.equal(queue.len, 100);
    await clock.advance(1);
    assert.equal(queue.len, 101, "the 101st waits 100 ms for a token");
    void queue.stop();
  });

  test("a custom rate limiter chooses the delay", async () => {
    const clock = new ManualClock(0);
    const queue = new RateLimitingQueue<string>({
      clock,
      rateLimiter: new ItemExponentialFailureRateLimiter({ baseDelayMs: 1000 }),
    });
    queue.addRateLimited("a");
    await clock.advance(999);
    assert.equal(queue.len, 0);
    await clock.advance(1);
    assert.equal(queue.len, 1);
    void queue.stop();
  });

  test("addRateLimited after shutdown is ignored and does not count a retry", () => {
    const clock = new ManualClock(0);
    const queue = new RateLimitingQueue<string>({ clock });
    void queue.stop();
    assert.equal(queue.addRateLimited("a"), undefined, "no delay: nothing was added");
    assert.equal(queue.numRequeues("a"), 0);
    assert.equal(queue.metrics().retries, 0);
    assert.equal(clock.pendingTimers, 0);
  });

  test("metrics count rate-limited retries and report the queue's name", () => {
    const clock = new ManualClock(0);
    const retried: string[] = [];
    const queue = new RateLimitingQueue<string>({
      clock,
      name: "deployments",
      metrics: { onRetry: (item) => retried.push(item) },
    });
    queue.addRateLimited("a");
    queue.addRateLimited("b");
    const m = queue.metrics();
    assert.equal(m.name, "deployments");
    assert.equal(m.retries, 2);
    assert.equal(m.delayed, 2);
    assert.deepEqual(retried, ["a", "b"]);
    void queue.stop();
  });

  test("an invalid rateLimiter option is rejected with a TypeError naming it", () => {
    assert.throws(() => new RateLimitingQueue({ rateLimiter: { when: () => 0 } as never }), {
      name: "TypeError",
      message: /rateLimiter/,
    });
  });
});
