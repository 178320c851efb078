import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { type BackoffOptions, exponentialBackoff } from "../../src/util/backoff.ts";
import { ManualClock } from "../../src/testing/manual_clock.ts";
import { seededRandom as seeded } from "../../src/testing/seeded_random.ts";

/** A random source that replays `values` in a loop. */
function replay(...values: number[]): () => number {
  let i = 0;
  return () => values[i++ % values.length]!;
}

describe("exponentialBackoff", () => {
  test("defaults are client-go's: 800 ms doubling to a 30 s cap (jitter none)", () => {
    const clock = new ManualClock();
    const backoff = exponentialBackoff(clock, { jitter: "none" });
    const delays = Array.from({ length: 10 }, () => backoff.next());
    assert.deepEqual(delays, [800, 1600, 3200, 6400, 12800, 25600, 30000, 30000, 30000, 30000]);
  });

  test("the default jitter is 1: every delay lies in [d, 2d)", () => {
    const clock = new ManualClock();
    const backoff = exponentialBackoff(clock, { random: seeded(7) });
    const bases = [800, 1600, 3200, 6400, 12800, 25600, 30000, 30000];
    for (const d of bases) {
      const delay = backoff.next();
      assert.ok(delay >= d && delay < 2 * d, `${delay} not in [${d}, ${2 * d})`);
    }
  });

  test("jitter 1 spans the whole range [d, 2d) at the random source's extremes", () => {
    const lowest = exponentialBackoff(new ManualClock(), { jitter: 1, random: () => 0 });
    assert.equal(lowest.next(), 800);
    const highest = exponentialBackoff(new ManualClock(), {
      jitter: 1,
      random: () => 0.999999,
    });
    const delay = highest.next();
    assert.ok(delay < 1600 && delay >= 1599, String(delay));
  });

  test("a fractional jitter j keeps delays in [d, d * (1 + j))", () => {
    const backoff = exponentialBackoff(new ManualClock(), { jitter: 0.25, random: seeded(3) });
    for (const d of [800, 1600, 3200]) {
      const delay = backoff.next();
      assert.ok(delay >= d && delay < d * 1.25, `${delay} not in [${d}, ${d * 1.25})`);
    }
  });

  test('jitter "full" picks each delay in [0, d]', () => {
    const random = seeded(11);
    for (let run = 0; run < 50; run++) {
      const backoff = exponentialBackoff(new ManualClock(), { jitter: "full", random });
      for (const d of [800, 1600, 3200, 6400, 12800, 25600, 30000]) {
        const delay = backoff.next();
        assert.ok(delay >= 0 && delay <= d, `${delay} not in [0, ${d}]`);
      }
    }
    const zero = exponentialBackoff(new ManualClock(), { jitter: "full", random: () => 0 });
    assert.equal(zero.next(), 0);
  });

  test("the growth happens before jitter: jitter never compounds into later delays", () => {
    const backoff = exponentialBackoff(new ManualClock(), { random: replay(0.999, 0, 0) });
    assert.ok(backoff.next() >= 1590);
    assert.equal(backoff.next(), 1600);
    assert.equal(backoff.next(), 3200);
  });

  test("custom initial, factor and cap", () => {
    const backoff = exponentialBackoff(new ManualClock(), {
      initialMs: 100,
      factor: 3,
      maxMs: 1000,
      jitter: "none",
    });
    assert.deepEqual([1, 2, 3, 4, 5].map(() => backoff.next()), [100, 300, 900, 1000, 1000]);
  });

  test("reset() starts again from the initial delay", () => {
    const backoff = exponentialBackoff(new ManualClock(), { jitter: "none" });
    backoff.next();
    backoff.next();
    backoff.next();
    backoff.reset();
    assert.equal(backoff.next(), 800);
    assert.equal(backoff.next(), 1600);
  });

  test("after resetAfterMs without a failure the next delay starts from the initial one", async () => {
    const clock = new ManualClock();
    const backoff = exponentialBackoff(clock, { jitter: "none", resetAfterMs: 120_000 });
    assert.equal(backoff.next(), 800);
    assert.equal(backoff.next(), 1600);
    await clock.advance(119_999);
    assert.equal(backoff.next(), 3200, "quiet period too short: keep growing");
    await clock.advance(120_000);
    assert.equal(backoff.next(), 800, "quiet for resetAfterMs: start over");
    assert.equal(backoff.next(), 1600);
  });

  test("failures closer together than resetAfterMs keep growing up to the cap", async () => {
    const clock = new ManualClock();
    const backoff = exponentialBackoff(clock, {
      jitter: "none",
      resetAfterMs: 1000,
      initialMs: 10,
      maxMs: 80,
    });
    const delays: number[] = [];
    for (let i = 0; i < 6; i++) {
      delays.push(backoff.next());
      await clock.advance(999);
    }
    assert.deepEqual(delays, [10, 20, 40, 80, 80, 80]);
  });

  test("options are validated up front, naming the option and the bad value", () => {
    const clock = new ManualClock();
    const cases: [BackoffOptions, RegExp, ErrorConstructor][] = [
      [{ initialMs: -1 }, /initialMs.*-1/, RangeError],
      [{ initialMs: Number.NaN }, /initialMs.*NaN/, RangeError],
      [{ initialMs: Infinity, maxMs: Infinity }, /initialMs.*Infinity/, RangeError],
      [{ factor: 0.5 }, /factor.*0\.5/, RangeError],
      [{ factor: Number.NaN }, /factor.*NaN/, RangeError],
      [{ maxMs: 100 }, /maxMs.*100/, RangeError],
      [{ maxMs: Infinity }, /maxMs.*Infinity/, RangeError],
      [{ jitter: -1 }, /jitter.*-1/, RangeError],
      [{ jitter: Number.NaN }, /jitter.*NaN/, RangeError],
      [{ resetAfterMs: -5 }, /resetAfterMs.*-5/, RangeError],
      [{ initialMs: "800" as unknown as number }, /initialMs.*"800"/, TypeError],
      [{ jitter: "half" as unknown as number }, /jitter.*"half"/, TypeError],
      [{ random: 0.5 as unknown as () => number }, /random/, TypeError],
    ];
    for (const [options, message, type] of cases) {
      assert.throws(() => exponentialBackoff(clock, options), (error: unknown) => {
        assert.ok(error instanceof type, `${JSON.stringify(options)}: ${error}`);
        assert.match((error as Error).message, message);
        return true;
      });
    }
  });

  test("edge values are accepted: zero initial delay, factor 1, no reset", () => {
    const clock = new ManualClock();
    const zero = exponentialBackoff(clock, { initialMs: 0, maxMs: 0, jitter: "none" });
    assert.deepEqual([zero.next(), zero.next()], [0, 0]);
    const flat = exponentialBackoff(clock, { initialMs: 5, factor: 1, jitter: "none" });
    assert.deepEqual([flat.next(), flat.next()], [5, 5]);
    const never = exponentialBackoff(clock, { resetAfterMs: Infinity, jitter: "none" });
    assert.equal(never.next(), 800);
  });
});
