import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { explainAbort, Waiters, type WaitState } from "../../src/util/wait_for.ts";

describe("Waiters: the one waiter helper", () => {
  test("resolves when the check says done, rejects with the failure when it says failed", async () => {
    const waiters = new Waiters();
    let state: WaitState = "pending";
    const done = waiters.wait(() => state, { failure: () => new Error("failed") });
    assert.equal(waiters.size, 1);
    waiters.wake();
    assert.equal(waiters.size, 1, "still pending");
    state = "done";
    waiters.wake();
    await done;
    assert.equal(waiters.size, 0);
    state = "failed";
    await assert.rejects(
      waiters.wait(() => state, { failure: () => new Error("failed") }),
      /failed/,
    );
  });

  test("an abort rejects with the signal's reason, or with what `aborted` makes of it, and releases the waiter", async () => {
    const waiters = new Waiters();
    const ac = new AbortController();
    const plain = waiters.wait(() => "pending", { failure: () => "x", signal: ac.signal });
    const explained = waiters.wait(() => "pending", {
      failure: () => "x",
      signal: ac.signal,
      aborted: (reason) => new Error("explained", { cause: reason }),
    });
    const reason = new Error("stop");
    ac.abort(reason);
    await assert.rejects(plain, (error) => error === reason);
    await assert.rejects(
      explained,
      (error: Error) => error.message === "explained" && error.cause === reason,
    );
    assert.equal(waiters.size, 0);
    await assert.rejects(
      waiters.wait(() => "pending", { failure: () => "x", signal: ac.signal }),
      (error) => error === reason,
      "an aborted signal rejects at once",
    );
  });
});

describe("explainAbort: a wait cut short, in words", () => {
  test("says what was awaited for how long, keeps the reason's name and carries the last error as cause", () => {
    const last = new Error("Kubernetes API error 403 Forbidden: pods is forbidden");
    const error = explainAbort(new DOMException("timed out", "TimeoutError"), {
      what: "pods informer not synced",
      waitedMs: 30_000,
      lastError: last,
    });
    assert.equal(error.name, "TimeoutError");
    assert.equal(
      error.message,
      "pods informer not synced after 30 s: last error Kubernetes API error 403 Forbidden: pods is forbidden",
    );
    assert.equal(error.cause, last);
  });

  test("without a last error it gives the reason's message, and the cause is the reason", () => {
    const reason = new DOMException("aborted", "AbortError");
    const error = explainAbort(reason, { what: "pods informer not synced", waitedMs: 1_500 });
    assert.equal(error.name, "AbortError");
    assert.equal(error.message, "pods informer not synced after 1.5 s (aborted)");
    assert.equal(error.cause, reason);
  });
});
