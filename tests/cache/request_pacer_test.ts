// The reflector's recovery, composed around its loop: how each request's end decides the wait
// before the next one (backoff, Retry-After, the longest delay, the pacer).
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { KubeApiError } from "../../src/client/errors.ts";
import type { Backoff } from "../../src/util/backoff.ts";
import {
  MAX_RETRY_AFTER_MS,
  PACER_BURST,
  PACER_STABLE_WATCH_MS,
  Recovery,
} from "../../src/cache/request_pacer.ts";

/** A backoff answering `first`, `first * 2`, ... (`reset` starts again), counting its calls. */
function doubling(first: number): Backoff & { resets: number } {
  let next = first;
  return {
    resets: 0,
    next() {
      const ms = next;
      next *= 2;
      return ms;
    },
    reset() {
      this.resets++;
      next = first;
    },
  };
}

const retryAfter = (seconds: number): KubeApiError =>
  new KubeApiError({ code: 503, retryAfterSeconds: seconds });

describe("Recovery", () => {
  test("what a failure owes, as a table: none, the backoff, a longer Retry-After (clamped), the longest", () => {
    const rows: [Parameters<Recovery["failed"]>[0], unknown, number][] = [
      ["none", new Error("x"), 0],
      ["backoff", new Error("x"), 100],
      ["backoff", retryAfter(3), 3_000],
      ["backoff", retryAfter(0), 100],
      ["backoff", retryAfter(3_600), MAX_RETRY_AFTER_MS],
      ["longest", retryAfter(3), MAX_RETRY_AFTER_MS],
    ];
    for (const [wait, error, owed] of rows) {
      const r = new Recovery(doubling(100), doubling(7));
      assert.equal(r.failed(wait, error), owed, `${wait} ${String(error)}`);
      // What is owed is waited once; the start after it is the pacer's (within its burst: 0).
      assert.equal(r.nextDelay(), owed);
      assert.equal(r.nextDelay(), 0);
    }
  });

  test("a custom backoff answering nonsense owes nothing (the pacer still bounds the starts)", () => {
    const nonsense: Backoff = { next: () => Number.NaN, reset() {} };
    const r = new Recovery(nonsense, doubling(7));
    assert.equal(r.failed("backoff", new Error("x")), 0);
  });

  test("the pacer: a burst of starts, then growing delays, until a watch stays open", () => {
    const r = new Recovery(doubling(100), doubling(7));
    const delays: number[] = [];
    for (let i = 0; i < PACER_BURST + 3; i++) delays.push(r.nextDelay());
    assert.deepEqual(delays, [...Array(PACER_BURST).fill(0), 7, 14, 28]);
    r.watchEnded(PACER_STABLE_WATCH_MS - 1);
    assert.equal(r.nextDelay(), 56, "a short watch restores nothing");
    r.watchEnded(PACER_STABLE_WATCH_MS);
    assert.equal(r.nextDelay(), 0, "a stable watch restores the burst");
  });

  test("a clean close: a healthy watch owes nothing, an empty short one the backoff; a completed stream continues outside the pacer", () => {
    const rows: [boolean, boolean, number, boolean][] = [
      // healthy, continuing, the delay, whether the pacer counted the start
      [true, false, 0, true],
      [false, false, 100, false],
      [true, true, 0, false],
      [false, true, 100, false],
    ];
    for (const [healthy, continuing, delay, paced] of rows) {
      const r = new Recovery(doubling(100), doubling(7));
      r.closed(healthy, continuing);
      assert.equal(r.nextDelay(), delay, `${healthy} ${continuing}`);
      // The pacer's burst has PACER_BURST starts: count what is left of it.
      let left = 0;
      while (r.nextDelay() === 0) left++;
      assert.equal(left, paced ? PACER_BURST - 1 : PACER_BURST, `${healthy} ${continuing}`);
    }
  });

  test("a working connection resets the backoff", () => {
    const backoff = doubling(100);
    const r = new Recovery(backoff, doubling(7));
    assert.equal(r.failed("backoff", new Error("x")), 100);
    assert.equal(r.failed("backoff", new Error("x")), 200);
    r.connected();
    assert.equal(backoff.resets, 1);
    assert.equal(r.failed("backoff", new Error("x")), 100);
  });
});
