// The work queues' lifecycle (stop, stop({ drain }), the states, disposal) and how a throwing
// metrics hook is reported (onError, phase "callback"; printed without one).
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { DelayingQueue, RateLimitingQueue, WorkQueue } from "../../src/queue/mod.ts";
import type { ErrorContext } from "../../src/util/error_context.ts";
import { captureConsole } from "../_console.ts";
import { ManualClock } from "../../src/testing/manual_clock.ts";

async function settle(): Promise<void> {
  for (let i = 0; i < 10; i++) await Promise.resolve();
}

describe("work queue lifecycle", () => {
  test("stop() refuses adds, wakes waiting gets, lets queued items out, and is idempotent", async () => {
    const queue = new WorkQueue<string>();
    const waiting = queue.get();
    await queue.stop();
    assert.deepEqual(await waiting, { shutdown: true });
    const again = new WorkQueue<string>();
    again.add("a");
    await again.stop();
    await again.stop();
    again.add("b");
    assert.deepEqual(await again.get(), { shutdown: false, item: "a" });
    assert.deepEqual(await again.get(), { shutdown: true });
    assert.equal(again.shuttingDown, true);
  });

  test("stop({ drain: true }) resolves once the items workers hold are done", async () => {
    const queue = new WorkQueue<string>();
    queue.add("a");
    const next = await queue.get();
    assert.equal(next.shutdown, false);
    let drained = false;
    const stopping = queue.stop({ drain: true }).then(() => (drained = true));
    await settle();
    assert.equal(drained, false);
    queue.done("a");
    await stopping;
    assert.equal(drained, true);
  });

  test("stop({ drain: true, signal }) rejects with the signal's reason; the queue stays stopped", async () => {
    const queue = new WorkQueue<string>();
    queue.add("a");
    await queue.get();
    const abort = new AbortController();
    const reason = new Error("enough");
    const stopping = queue.stop({ drain: true, signal: abort.signal });
    abort.abort(reason);
    await assert.rejects(stopping, (e) => e === reason);
    assert.equal(queue.shuttingDown, true);
  });

  test("state: running from the start, stopping while items are left or held, then stopped", async () => {
    const queue = new DelayingQueue<string>({ clock: new ManualClock(0) });
    assert.equal(queue.state, "running");
    queue.addAfter("later", 1_000);
    queue.add("a");
    void queue.stop();
    assert.equal(queue.shuttingDown, true);
    assert.equal(queue.delayedLen, 0, "the delaying queue's override runs");
    assert.equal(queue.state, "stopping", "an item is still queued");
    await queue.get();
    assert.equal(queue.state, "stopping", "an item is still held");
    queue.done("a");
    assert.equal(queue.state, "stopped");
    const empty = new WorkQueue<string>();
    await empty.stop();
    assert.equal(empty.state, "stopped");
  });

  test("a delaying queue's stop clears its timer at once", async () => {
    const clock = new ManualClock(0);
    const queue = new RateLimitingQueue<string>({ clock });
    queue.addAfter("a", 5_000);
    assert.equal(clock.pendingTimers, 1);
    await queue.stop();
    assert.equal(clock.pendingTimers, 0);
  });

  test("await using stops the queue", async () => {
    let queue: WorkQueue<string> | undefined;
    {
      // What `await using` does at the block's end (Node 22 has the symbol, not the syntax).
      const q = new WorkQueue<string>();
      try {
        queue = q;
        q.add("a");
      } finally {
        await q[Symbol.asyncDispose]();
      }
    }
    assert.equal(queue.shuttingDown, true);
  });

  test("a throwing metrics hook goes to onError (phase callback, detail the hook); the queue goes on", async () => {
    const errors: [unknown, ErrorContext][] = [];
    const boom = new Error("hook failed");
    const queue = new DelayingQueue<string>({
      clock: new ManualClock(0),
      metrics: {
        onAdd: () => {
          throw boom;
        },
        onRetry: () => {
          throw boom;
        },
      },
      onError: (error, context) => void errors.push([error, context]),
    });
    queue.add("a");
    queue.addAfter("b", 0);
    assert.deepEqual(errors.map(([e, c]) => [e === boom, c.kind, c.phase, c.detail]), [
      [true, "handler", "callback", "onAdd"],
      [true, "handler", "callback", "onRetry"],
      [true, "handler", "callback", "onAdd"],
    ]);
    assert.equal(errors[0]?.[1].source, "work queue");
    assert.equal(queue.len, 2, "both items are queued despite the throwing hooks");
    await queue.stop();
  });

  test("without onError, a throwing hook is printed once, not once per item", async () => {
    const printed = captureConsole();
    try {
      const queue = new WorkQueue<string>({
        name: "pods",
        clock: new ManualClock(0),
        metrics: {
          onAdd: () => {
            throw new Error("hook failed");
          },
        },
      });
      for (let i = 0; i < 100; i++) queue.add(`item-${i}`);
      assert.equal(queue.len, 100);
      assert.deepEqual(printed.lines, [
        "error work queue pods (onAdd): callback threw: hook failed; going on",
      ]);
      await queue.stop();
    } finally {
      printed.restore();
    }
  });
});
