import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { WorkQueue, type WorkQueueGetResult } from "../../src/queue/mod.ts";
import { ManualClock } from "../../src/testing/manual_clock.ts";

/** Lets pending promise callbacks run (no time passes). */
async function settle(): Promise<void> {
  for (let i = 0; i < 10; i++) await Promise.resolve();
}

/** Takes the next item, failing the test if the queue reports shutdown. */
async function take<T>(queue: WorkQueue<T>): Promise<T> {
  const next = await queue.get();
  assert.equal(next.shutdown, false, "expected an item, got shutdown");
  return (next as { item: T }).item;
}

/** Starts a get and records its result when it settles. */
function pendingGet<T>(queue: WorkQueue<T>, signal?: AbortSignal): {
  result: () => WorkQueueGetResult<T> | undefined;
  error: () => unknown;
  promise: Promise<void>;
} {
  let result: WorkQueueGetResult<T> | undefined;
  let error: unknown;
  const promise = queue.get(signal === undefined ? {} : { signal }).then(
    (r) => {
      result = r;
    },
    (e: unknown) => {
      error = e;
    },
  );
  return { result: () => result, error: () => error, promise };
}

describe("WorkQueue", () => {
  test("adding an item that is already pending does nothing", async () => {
    const queue = new WorkQueue<string>();
    queue.add("a");
    queue.add("a");
    queue.add("b");
    queue.add("a");
    assert.equal(queue.len, 2);
    assert.equal(await take(queue), "a");
    assert.equal(await take(queue), "b");
    assert.equal(queue.len, 0);
    assert.equal(queue.metrics().adds, 2);
  });

  test("items are handed out first-in first-out", async () => {
    const queue = new WorkQueue<string>();
    for (const key of ["c", "a", "b"]) queue.add(key);
    const order = [await take(queue), await take(queue), await take(queue)];
    assert.deepEqual(order, ["c", "a", "b"]);
  });

  test("order holds across ring buffer growth and wrap-around", async () => {
    const queue = new WorkQueue<number>();
    const out: number[] = [];
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < 1000; i++) queue.add(round * 1000 + i);
      for (let i = 0; i < 700; i++) {
        const item = await take(queue);
        out.push(item);
        queue.done(item);
      }
    }
    while (queue.len > 0) out.push(await take(queue));
    assert.deepEqual(out, Array.from({ length: 3000 }, (_, i) => i));
  });

  test("items are compared by identity, so equal-looking objects are distinct", () => {
    const queue = new WorkQueue<{ key: string }>();
    const one = { key: "a" };
    queue.add(one);
    queue.add({ key: "a" });
    queue.add(one);
    assert.equal(queue.len, 2);
  });

  test("an item held by a worker is never handed to a second worker", async () => {
    const queue = new WorkQueue<string>();
    queue.add("a");
    assert.equal(await take(queue), "a");
    queue.add("a");
    assert.equal(queue.len, 0, "re-added item waits while it is processed");
    const second = pendingGet(queue);
    await settle();
    assert.equal(second.result(), undefined, "second worker must not get the held item");
    queue.done("a");
    await second.promise;
    assert.deepEqual(second.result(), { shutdown: false, item: "a" });
  });

  test("an item added several times during processing is re-queued once on done", async () => {
    const queue = new WorkQueue<string>();
    queue.add("a");
    await take(queue);
    queue.add("a");
    queue.add("a");
    queue.add("b");
    queue.done("a");
    assert.equal(queue.len, 2);
    assert.deepEqual([await take(queue), await take(queue)], ["b", "a"]);
    queue.done("a");
    queue.done("b");
    assert.equal(queue.len, 0);
  });

  test("done for an item that was not added during processing does not re-queue it", async () => {
    const queue = new WorkQueue<string>();
    queue.add("a");
    await take(queue);
    queue.done("a");
    queue.done("a"); // a second done is harmless
    assert.equal(queue.len, 0);
    assert.equal(queue.metrics().inFlight, 0);
  });

  test("get waits for an add and serves waiting workers oldest first", async () => {
    const queue = new WorkQueue<string>();
    const first = pendingGet(queue);
    const second = pendingGet(queue);
    await settle();
    assert.equal(first.result(), undefined);
    queue.add("a");
    await settle();
    assert.deepEqual(first.result(), { shutdown: false, item: "a" });
    assert.equal(second.result(), undefined);
    queue.add("b");
    await second.promise;
    assert.deepEqual(second.result(), { shutdown: false, item: "b" });
  });

  test("a waiting get wakes with shutdown: true when the queue shuts down", async () => {
    const queue = new WorkQueue<string>();
    const waiting = [pendingGet(queue), pendingGet(queue)];
    await settle();
    void queue.stop();
    await Promise.all(waiting.map((w) => w.promise));
    for (const w of waiting) assert.deepEqual(w.result(), { shutdown: true });
    assert.equal(queue.shuttingDown, true);
  });

  test("after stop, add is ignored and queued items can still be taken", async () => {
    const queue = new WorkQueue<string>();
    queue.add("a");
    void queue.stop();
    void queue.stop(); // idempotent
    queue.add("b");
    assert.equal(queue.len, 1);
    assert.deepEqual(await queue.get(), { shutdown: false, item: "a" });
    assert.deepEqual(await queue.get(), { shutdown: true });
  });

  test("stop({ drain: true }) resolves only after every in-flight item is done", async () => {
    const queue = new WorkQueue<string>();
    queue.add("a");
    queue.add("b");
    await take(queue);
    await take(queue);
    let drained = false;
    const drain = queue.stop({ drain: true }).then(() => {
      drained = true;
    });
    await settle();
    assert.equal(queue.shuttingDown, true);
    queue.done("a");
    await settle();
    assert.equal(drained, false, "b is still in flight");
    queue.done("b");
    await drain;
    assert.equal(drained, true);
  });

  test("stop({ drain: true }) resolves at once when nothing is in flight", async () => {
    const queue = new WorkQueue<string>();
    queue.add("queued-but-not-taken");
    await queue.stop({ drain: true });
    assert.equal(queue.len, 1);
  });

  test("stop({ drain: true }) rejects with the signal's reason and keeps the queue shut down", async () => {
    const queue = new WorkQueue<string>();
    queue.add("a");
    await take(queue);
    const controller = new AbortController();
    const drain = queue.stop({ drain: true, signal: controller.signal });
    const reason = new Error("gave up waiting");
    controller.abort(reason);
    await assert.rejects(drain, (e) => e === reason);
    assert.equal(queue.shuttingDown, true);
    queue.done("a");
  });

  test("an aborted get rejects with the signal's reason and does not consume an item", async () => {
    const queue = new WorkQueue<string>();
    const controller = new AbortController();
    const waiting = pendingGet(queue, controller.signal);
    const other = pendingGet(queue);
    await settle();
    const reason = new Error("stop");
    controller.abort(reason);
    await waiting.promise;
    assert.equal(waiting.error(), reason);
    queue.add("a");
    await other.promise;
    assert.deepEqual(other.result(), { shutdown: false, item: "a" });
    await assert.rejects(queue.get({ signal: controller.signal }), (e) => e === reason);
  });

  test("async iteration yields ready items until the queue is shut down and empty", async () => {
    const queue = new WorkQueue<string>();
    queue.add("a");
    queue.add("b");
    const seen: string[] = [];
    const loop = (async () => {
      for await (const key of queue) {
        seen.push(key);
        queue.done(key);
      }
    })();
    await settle();
    assert.deepEqual(seen, ["a", "b"]);
    queue.add("c");
    await settle();
    void queue.stop();
    await loop;
    assert.deepEqual(seen, ["a", "b", "c"]);
  });

  test("items() throws the signal's reason when it aborts", async () => {
    const queue = new WorkQueue<string>();
    const controller = new AbortController();
    const reason = new Error("stop");
    const loop = (async () => {
      for await (const key of queue.items({ signal: controller.signal })) queue.done(key);
    })();
    await settle();
    controller.abort(reason);
    await assert.rejects(loop, (e) => e === reason);
  });

  test("asyncDispose shuts the queue down and drains in-flight items", async () => {
    const queue = new WorkQueue<string>();
    queue.add("a");
    await take(queue);
    let disposed = false;
    const dispose = queue[Symbol.asyncDispose]().then(() => {
      disposed = true;
    });
    await settle();
    assert.equal(disposed, false);
    queue.done("a");
    await dispose;
    assert.equal(queue.shuttingDown, true);
  });

  test("metrics report depth, adds, latency, work duration and the longest running item", async () => {
    const clock = new ManualClock(0);
    const queue = new WorkQueue<string>({ clock, name: "pods" });
    queue.add("a");
    queue.add("b");
    await clock.advance(30);
    await take(queue); // a waited 30 ms
    await clock.advance(10);
    await take(queue); // b waited 40 ms
    await clock.advance(5);
    let m = queue.metrics();
    assert.equal(m.name, "pods");
    assert.equal(m.depth, 0);
    assert.equal(m.inFlight, 2);
    assert.equal(m.adds, 2);
    assert.deepEqual(m.queueLatency, { count: 2, totalMs: 70, maxMs: 40 });
    assert.equal(m.longestRunningProcessorMs, 15);
    assert.equal(m.unfinishedWorkMs, 15 + 5);
    queue.done("a");
    m = queue.metrics();
    assert.deepEqual(m.workDuration, { count: 1, totalMs: 15, maxMs: 15 });
    assert.equal(m.longestRunningProcessorMs, 5);
    queue.done("b");
    assert.equal(queue.metrics().longestRunningProcessorMs, 0);
    assert.equal(clock.pendingTimers, 0);
  });

  test("metric hooks are called with the item, latency and duration", async () => {
    const clock = new ManualClock(0);
    const calls: string[] = [];
    const queue = new WorkQueue<string>({
      clock,
      metrics: {
        onAdd: (item) => calls.push(`add ${item}`),
        onGet: (latencyMs, item) => calls.push(`get ${item} ${latencyMs}`),
        onDone: (durationMs, item) => calls.push(`done ${item} ${durationMs}`),
      },
    });
    queue.add("a");
    queue.add("a");
    await clock.advance(7);
    await take(queue);
    await clock.advance(3);
    queue.done("a");
    assert.deepEqual(calls, ["add a", "get a 7", "done a 3"]);
  });

  test("invalid options are rejected with errors naming the option", () => {
    assert.throws(() => new WorkQueue({ name: 3 as unknown as string }), {
      name: "TypeError",
      message: /name/,
    });
    assert.throws(() => new WorkQueue({ clock: {} as never }), {
      name: "TypeError",
      message: /clock/,
    });
    assert.throws(() => new WorkQueue({ metrics: { onGet: 1 as never } }), {
      name: "TypeError",
      message: /metrics\.onGet/,
    });
  });
});
