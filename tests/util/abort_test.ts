import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { abortable, linkedController, onAbort } from "../../src/util/abort.ts";

/** An AbortController whose signal counts its "abort" listeners. */
function countedParent(): { parent: AbortController; listeners: () => number } {
  const parent = new AbortController();
  const signal = parent.signal;
  let count = 0;
  const add = signal.addEventListener.bind(signal);
  const remove = signal.removeEventListener.bind(signal);
  type Args = Parameters<AbortSignal["addEventListener"]>;
  signal.addEventListener = ((...args: Args): void => {
    if (args[0] === "abort") count++;
    add(...args);
  }) as AbortSignal["addEventListener"];
  signal.removeEventListener = ((...args: Args): void => {
    if (args[0] === "abort") count--;
    remove(...args);
  }) as AbortSignal["removeEventListener"];
  return { parent, listeners: () => count };
}

/** A promise and the functions that settle it. */
function deferred<T>(): {
  promise: Promise<T>;
  resolve: (value: T) => void;
  reject: (error: unknown) => void;
} {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

describe("linkedController", () => {
  test("without a parent it is a plain controller, and release does nothing", () => {
    const { controller, release } = linkedController(undefined);
    assert.equal(controller.signal.aborted, false);
    release();
    controller.abort("own");
    assert.equal(controller.signal.reason, "own");
  });

  test("aborts with the parent's reason when the parent aborts", () => {
    const parent = new AbortController();
    const { controller } = linkedController(parent.signal);
    assert.equal(controller.signal.aborted, false);
    const reason = new Error("stop");
    parent.abort(reason);
    assert.equal(controller.signal.aborted, true);
    assert.equal(controller.signal.reason, reason);
  });

  test("is aborted at once when the parent already is, and adds no listener", () => {
    const { parent, listeners } = countedParent();
    parent.abort("before");
    const { controller } = linkedController(parent.signal);
    assert.equal(controller.signal.reason, "before");
    assert.equal(listeners(), 0);
  });

  test("aborting the child leaves the parent alone", () => {
    const parent = new AbortController();
    const { controller } = linkedController(parent.signal);
    controller.abort("child only");
    assert.equal(parent.signal.aborted, false);
  });

  test("release removes the listener: the parent aborting later no longer reaches it", () => {
    const { parent, listeners } = countedParent();
    const { controller, release } = linkedController(parent.signal);
    assert.equal(listeners(), 1);
    release();
    assert.equal(listeners(), 0);
    parent.abort("late");
    assert.equal(controller.signal.aborted, false);
  });
});

describe("abortable", () => {
  test("without a signal it returns the promise itself", () => {
    const promise = Promise.resolve(1);
    assert.equal(abortable(promise, undefined), promise);
  });

  test("settles like the promise when the signal does not abort, and unhooks", async () => {
    const { parent, listeners } = countedParent();
    assert.equal(await abortable(Promise.resolve("value"), parent.signal), "value");
    assert.equal(listeners(), 0);
    const failure = new Error("failed");
    await assert.rejects(abortable(Promise.reject(failure), parent.signal), failure);
    assert.equal(listeners(), 0);
  });

  test("rejects with the reason as soon as the signal aborts; a late value goes to `late`", async () => {
    const parent = new AbortController();
    const work = deferred<string>();
    const late: string[] = [];
    const result = abortable(work.promise, parent.signal, (value) => late.push(value));
    const reason = new Error("cancelled");
    parent.abort(reason);
    await assert.rejects(result, reason);
    work.resolve("too late");
    await work.promise;
    assert.deepEqual(late, ["too late"]);
  });

  test("a rejection after the abort is dropped: the result stays the abort", async () => {
    const parent = new AbortController();
    const work = deferred<string>();
    const result = abortable(work.promise, parent.signal);
    parent.abort("aborted");
    work.reject(new Error("noticed the abort"));
    await assert.rejects(result, (error) => error === "aborted");
  });

  test("an already aborted signal rejects at once, whatever the promise does", async () => {
    const parent = new AbortController();
    parent.abort("already");
    const work = deferred<number>();
    const late: number[] = [];
    const result = abortable(work.promise, parent.signal, (value) => late.push(value));
    await assert.rejects(result, (error) => error === "already");
    work.resolve(7);
    await work.promise;
    assert.deepEqual(late, [7]);
  });
});

describe("onAbort", () => {
  test("calls the listener once on abort and stops listening when asked", () => {
    const { parent, listeners } = countedParent();
    let calls = 0;
    const stop = onAbort(parent.signal, () => void calls++);
    assert.equal(listeners(), 1);
    parent.abort();
    parent.abort();
    assert.equal(calls, 1);
    const again = countedParent();
    const release = onAbort(again.parent.signal, () => void calls++);
    release();
    assert.equal(again.listeners(), 0, "released");
    again.parent.abort();
    assert.equal(calls, 1);
    stop(); // after the abort: harmless
  });

  test("an aborted signal calls at once and adds no listener; no signal never calls", () => {
    const { parent, listeners } = countedParent();
    parent.abort();
    let calls = 0;
    onAbort(parent.signal, () => void calls++)();
    assert.equal(calls, 1);
    assert.equal(listeners(), 0);
    onAbort(undefined, () => void calls++)();
    assert.equal(calls, 1);
  });
});
