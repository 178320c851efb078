import { describe, test } from "node:test";
import assert from "node:assert/strict";
import {
  BucketRateLimiter,
  defaultControllerRateLimiter,
  ItemExponentialFailureRateLimiter,
  MaxOfRateLimiter,
  type RateLimiter,
} from "../../src/queue/mod.ts";
import { ManualClock } from "../../src/testing/manual_clock.ts";

describe("ItemExponentialFailureRateLimiter", () => {
  test("delays double from 5 ms per failure and stop at the 1000 s cap", () => {
    const limiter = new ItemExponentialFailureRateLimiter<string>();
    const delays = Array.from({ length: 20 }, () => limiter.when("a"));
    assert.deepEqual(delays.slice(0, 6), [5, 10, 20, 40, 80, 160]);
    assert.equal(delays[17], 5 * 2 ** 17); // 655 360 ms
    assert.equal(delays[18], 1_000_000);
    assert.equal(delays[19], 1_000_000);
  });

  test("the cap holds long after 2^n overflows", () => {
    const limiter = new ItemExponentialFailureRateLimiter<string>();
    let last = 0;
    for (let i = 0; i < 2000; i++) last = limiter.when("a");
    assert.equal(last, 1_000_000);
    assert.equal(limiter.numRequeues("a"), 2000);
  });

  test("items back off independently", () => {
    const limiter = new ItemExponentialFailureRateLimiter<string>();
    limiter.when("a");
    limiter.when("a");
    assert.equal(limiter.when("b"), 5);
    assert.equal(limiter.when("a"), 20);
  });

  test("forget resets an item's failures and numRequeues", () => {
    const limiter = new ItemExponentialFailureRateLimiter<string>();
    limiter.when("a");
    limiter.when("a");
    assert.equal(limiter.numRequeues("a"), 2);
    limiter.forget("a");
    assert.equal(limiter.numRequeues("a"), 0);
    assert.equal(limiter.when("a"), 5);
  });

  test("base and cap are configurable", () => {
    const limiter = new ItemExponentialFailureRateLimiter<string>({
      baseDelayMs: 100,
      maxDelayMs: 350,
    });
    assert.deepEqual([1, 2, 3, 4].map(() => limiter.when("a")), [100, 200, 350, 350]);
  });

  test("invalid options are rejected with RangeError naming the option", () => {
    assert.throws(() => new ItemExponentialFailureRateLimiter({ baseDelayMs: -1 }), {
      name: "RangeError",
      message: /baseDelayMs/,
    });
    assert.throws(() => new ItemExponentialFailureRateLimiter({ maxDelayMs: Number.NaN }), {
      name: "RangeError",
      message: /maxDelayMs/,
    });
  });
});

describe("BucketRateLimiter", () => {
  test("the first 100 calls pass at once, then tokens are reserved 100 ms apart", () => {
    const clock = new ManualClock(0);
    const limiter = new BucketRateLimiter<string>({ clock });
    for (let i = 0; i < 100; i++) assert.equal(limiter.when(`k${i}`), 0, `call ${i}`);
    assert.deepEqual([limiter.when("x"), limiter.when("y"), limiter.when("z")], [100, 200, 300]);
  });

  test("tokens refill at qps on the injected clock and never beyond burst", async () => {
    const clock = new ManualClock(0);
    const limiter = new BucketRateLimiter<string>({ qps: 10, burst: 100, clock });
    for (let i = 0; i < 100; i++) limiter.when("k");
    await clock.advance(100); // one token back
    assert.equal(limiter.when("k"), 0);
    assert.equal(limiter.when("k"), 100);
    await clock.advance(60_000); // far more than a full bucket's worth
    for (let i = 0; i < 100; i++) assert.equal(limiter.when("k"), 0);
    assert.equal(limiter.when("k"), 100);
  });

  test("a reserved token is accounted for when time passes", async () => {
    const clock = new ManualClock(0);
    const limiter = new BucketRateLimiter<string>({ qps: 10, burst: 1, clock });
    assert.equal(limiter.when("a"), 0);
    assert.equal(limiter.when("a"), 100); // reserves the token due at t=100
    await clock.advance(100);
    assert.equal(limiter.when("a"), 100); // the token of t=100 is taken, next at t=200
  });

  test("the bucket tracks no items: numRequeues is 0 and forget does nothing", () => {
    const limiter = new BucketRateLimiter<string>({ clock: new ManualClock(0), burst: 1 });
    limiter.when("a");
    limiter.forget("a");
    assert.equal(limiter.numRequeues("a"), 0);
    assert.equal(limiter.when("a"), 100);
  });

  test("qps Infinity never delays", () => {
    const limiter = new BucketRateLimiter<string>({ qps: Infinity, burst: 1 });
    for (let i = 0; i < 10; i++) assert.equal(limiter.when("a"), 0);
  });

  test("invalid options are rejected with errors naming the option", () => {
    assert.throws(() => new BucketRateLimiter({ qps: 0 }), { name: "RangeError", message: /qps/ });
    assert.throws(() => new BucketRateLimiter({ burst: 0 }), {
      name: "RangeError",
      message: /burst/,
    });
    assert.throws(() => new BucketRateLimiter({ burst: 1.5 }), {
      name: "RangeError",
      message: /burst/,
    });
    assert.throws(() => new BucketRateLimiter({ clock: { now: () => 0 } as never }), {
      name: "TypeError",
      message: /clock/,
    });
  });
});

describe("MaxOfRateLimiter", () => {
  test("when returns the longest delay and every limiter records the call", () => {
    const clock = new ManualClock(0);
    const exp = new ItemExponentialFailureRateLimiter<string>({ baseDelayMs: 50 });
    const bucket = new BucketRateLimiter<string>({ qps: 10, burst: 2, clock });
    const limiter = new MaxOfRateLimiter(exp, bucket);
    assert.equal(limiter.when("a"), 50); // exp 50, bucket 0
    assert.equal(limiter.when("b"), 50); // exp 50, bucket 0
    assert.equal(limiter.when("c"), 100); // exp 50, bucket 100
    assert.equal(limiter.when("a"), 200); // exp 100, bucket 200
    assert.equal(exp.numRequeues("a"), 2);
  });

  test("numRequeues is the largest count and forget forgets everywhere", () => {
    const counts = new Map<string, number>();
    const calls: string[] = [];
    const counting: RateLimiter<string> = {
      when: () => 0,
      forget: (item) => calls.push(`forget ${item}`),
      numRequeues: (item) => counts.get(item) ?? 0,
    };
    const exp = new ItemExponentialFailureRateLimiter<string>();
    const limiter = new MaxOfRateLimiter(exp, counting);
    limiter.when("a");
    assert.equal(limiter.numRequeues("a"), 1);
    counts.set("a", 7);
    assert.equal(limiter.numRequeues("a"), 7);
    limiter.forget("a");
    assert.equal(exp.numRequeues("a"), 0);
    assert.deepEqual(calls, ["forget a"]);
  });

  test("at least one valid limiter is required", () => {
    assert.throws(() => new MaxOfRateLimiter(), { name: "RangeError" });
    assert.throws(() => new MaxOfRateLimiter({} as never), {
      name: "TypeError",
      message: /limiters\[0\]/,
    });
  });
});

describe("defaultControllerRateLimiter", () => {
  test("combines 5 ms exponential backoff with a 10 qps, burst 100 bucket", () => {
    const clock = new ManualClock(0);
    const limiter = defaultControllerRateLimiter<string>(clock);
    assert.deepEqual([limiter.when("a"), limiter.when("a"), limiter.when("a")], [5, 10, 20]);
    for (let i = 0; i < 97; i++) limiter.when(`k${i}`); // 100 tokens used in total
    assert.equal(limiter.when("fresh"), 100, "the bucket dominates once the burst is spent");
    limiter.forget("a");
    assert.equal(limiter.numRequeues("a"), 0);
  });
});
