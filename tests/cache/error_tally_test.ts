// The informer remembers its errors for health(): a count per kind and the last one.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { ErrorTally } from "../../src/cache/error_tally.ts";
import { ManualClock } from "../../src/testing/manual_clock.ts";

describe("ErrorTally", () => {
  test("counts errors per kind and keeps the last one with its message and time", async () => {
    const clock = new ManualClock(1_000);
    const tally = new ErrorTally(clock);
    assert.deepEqual(tally.counts(0), {});
    assert.equal(tally.last, undefined);
    tally.record(new Error("connection refused"), "network");
    await clock.advance(500);
    const forbidden = new Error("pods is forbidden");
    tally.record(forbidden, "forbidden");
    tally.record(new Error("reset"), "network");
    assert.deepEqual(tally.counts(0), { network: 2, forbidden: 1 });
    assert.deepEqual(tally.last, { kind: "network", message: "reset", at: 1_500 });
    tally.record(forbidden, "forbidden");
    assert.equal(tally.lastValue, forbidden);
  });

  test("adds drift checks to the counts only when there were any, on a copy", () => {
    const tally = new ErrorTally(new ManualClock());
    tally.record("boom", "decode");
    assert.deepEqual(tally.counts(0), { decode: 1 });
    const counts = tally.counts(2);
    assert.deepEqual(counts, { decode: 1, drift: 2 });
    counts.decode = 99;
    assert.deepEqual(tally.counts(0), { decode: 1 });
  });
});
