import { describe, test } from "node:test";
import assert from "node:assert/strict";
import {
  type InformerEventHandlerLike,
  type InformerLike,
  type InformerRegistrationLike,
  type ReconcileContext,
  runController,
  type RunControllerOptions,
} from "../../../src/controller/mod.ts";
import { RateLimitingQueue } from "../../../src/queue/mod.ts";
import { ManualClock } from "../../../src/testing/manual_clock.ts";
import { sleep } from "../../../src/util/clock.ts";

type Obj = { metadata: { namespace?: string; name?: string; labels?: Record<string, string> } };

function obj(namespace: string | undefined, name: string): Obj {
  return { metadata: namespace === undefined ? { name } : { namespace, name } };
}

/** An informer stand-in: events are emitted by hand, `synced` flips when the test says. */
class FakeInformer implements InformerLike<Obj> {
  readonly handlers = new Set<InformerEventHandlerLike<Obj>>();
  synced = false;
  startedWith: AbortSignal | undefined;
  removed = 0;
  readonly initial: Obj[];
  constructor(initial: Obj[] = []) {
    this.initial = initial;
  }

  addEventHandler(handler: InformerEventHandlerLike<Obj>): InformerRegistrationLike {
    this.handlers.add(handler);
    for (const o of this.initial) handler.onAdd?.(o, true);
    return {
      hasSynced: () => this.synced,
      remove: () => {
        this.handlers.delete(handler);
        this.removed++;
      },
    };
  }

  start(options?: { signal?: AbortSignal | undefined }): void {
    this.startedWith = options?.signal;
  }

  add(o: Obj): void {
    for (const h of this.handlers) h.onAdd?.(o, false);
  }
  update(oldObj: Obj, newObj: Obj): void {
    for (const h of this.handlers) h.onUpdate?.(oldObj, newObj);
  }
  delete(o: Obj): void {
    for (const h of this.handlers) h.onDelete?.(o, false);
  }
}

/** A fake informer that has already synced, holding `initial`. */
function syncedInformer(initial: Obj[] = []): FakeInformer {
  const informer = new FakeInformer(initial);
  informer.synced = true;
  return informer;
}

/** Runs a controller on its own abort signal; `stop()` aborts it and waits until it has ended. */
function start(options: Omit<RunControllerOptions<Obj>, "signal">): { stop(): Promise<void> } {
  const abort = new AbortController();
  const run = runController({ ...options, signal: abort.signal });
  return {
    stop: async () => {
      abort.abort();
      await run;
    },
  };
}

/** A promise with its resolve function. */
function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

/** Tracks whether a promise has settled, without awaiting it. */
function track(promise: Promise<void>): { settled: () => boolean; promise: Promise<void> } {
  let settled = false;
  const p = promise.then(() => {
    settled = true;
  });
  return { settled: () => settled, promise: p };
}

describe("runController", () => {
  test("waits until every handler registration has synced before reconciling", async () => {
    const clock = new ManualClock(0);
    const a = new FakeInformer([obj("default", "a")]);
    const b = new FakeInformer([obj("default", "b")]);
    a.synced = true;
    const reconciled: string[] = [];
    const controller = start({
      informers: [a, b],
      clock,
      reconcile: (key) => {
        reconciled.push(key);
      },
    });
    await clock.advance(1000);
    assert.deepEqual(reconciled, [], "b has not synced yet");
    assert.ok(clock.pendingTimers <= 1, "polls with one timer, no busy loop");
    assert.equal(a.startedWith?.aborted, false, "informers are started");
    b.synced = true;
    await clock.advance(100);
    assert.deepEqual(reconciled, ["default/a", "default/b"]);
    await controller.stop();
    assert.equal(clock.pendingTimers, 0);
  });

  test("uses a registration's waitForSync instead of polling when it has one", async () => {
    const clock = new ManualClock(0);
    const synced = deferred();
    let syncSignal: AbortSignal | undefined;
    const informer: InformerLike<Obj> = {
      addEventHandler(handler) {
        handler.onAdd?.(obj("ns", "x"), true);
        let done = false;
        void synced.promise.then(() => {
          done = true;
        });
        return {
          hasSynced: () => done,
          remove: () => {},
          waitForSync: (options) => {
            syncSignal = options?.signal;
            return synced.promise;
          },
        };
      },
    };
    const reconciled: string[] = [];
    const controller = start({
      informers: [informer],
      clock,
      reconcile: (key) => {
        reconciled.push(key);
      },
    });
    await clock.flush();
    assert.equal(clock.pendingTimers, 0, "no polling timer");
    assert.equal(syncSignal?.aborted, false);
    assert.deepEqual(reconciled, []);
    synced.resolve();
    await clock.flush();
    assert.deepEqual(reconciled, ["ns/x"]);
    await controller.stop();
  });

  test("add, update and delete events enqueue namespace/name keys, deduplicated", async () => {
    const clock = new ManualClock(0);
    const informer = syncedInformer();
    const gate = deferred();
    const reconciled: string[] = [];
    const controller = start({
      informers: [informer],
      clock,
      reconcile: async (key) => {
        reconciled.push(key);
        await gate.promise;
      },
    });
    await clock.flush();
    informer.add(obj("default", "first")); // taken at once, then the worker is busy
    informer.add(obj("default", "web"));
    informer.update(obj("default", "web"), obj("default", "web"));
    informer.add(obj(undefined, "node-1")); // cluster-scoped
    informer.delete(obj("kube-system", "dns"));
    informer.add(obj("default", "web"));
    gate.resolve();
    await clock.flush();
    assert.deepEqual(reconciled, ["default/first", "default/web", "node-1", "kube-system/dns"]);
    await controller.stop();
  });

  test("keyFor can map one object to several keys, and to none", async () => {
    const clock = new ManualClock(0);
    const informer = syncedInformer();
    const reconciled: string[] = [];
    const controller = start({
      informers: [informer],
      clock,
      keyFor: (o) => {
        const owner = o.metadata.labels?.["owner"];
        return owner === undefined ? undefined : [owner, `audit/${owner}`];
      },
      reconcile: (key) => {
        reconciled.push(key);
      },
    });
    await clock.flush();
    informer.add(obj("default", "orphan"));
    informer.add({
      metadata: { namespace: "default", name: "p", labels: { owner: "default/rs" } },
    });
    await clock.flush();
    assert.deepEqual(reconciled, ["default/rs", "audit/default/rs"]);
    await controller.stop();
  });

  test("an object without a name is reported to onError without a key", async () => {
    const clock = new ManualClock(0);
    const informer = syncedInformer();
    const errors: [unknown, string | undefined][] = [];
    const controller = start({
      informers: [informer],
      clock,
      onError: (error, { key }) => errors.push([error, key]),
      reconcile: () => {},
    });
    await clock.flush();
    informer.add({ metadata: {} });
    assert.equal(errors.length, 1);
    assert.ok(errors[0]?.[0] instanceof TypeError);
    assert.equal(errors[0]?.[1], undefined);
    await controller.stop();
  });

  test("a failing reconcile is retried with exponential backoff and reported", async () => {
    const clock = new ManualClock(0);
    const informer = syncedInformer([obj("default", "web")]);
    const attempts: { at: number; numRequeues: number }[] = [];
    const errors: [unknown, string | undefined][] = [];
    const boom = new Error("apply failed");
    const controller = start({
      informers: [informer],
      clock,
      onError: (error, { key }) => errors.push([error, key]),
      reconcile: (_key, ctx) => {
        attempts.push({ at: clock.now(), numRequeues: ctx.numRequeues });
        if (attempts.length <= 3) throw boom;
      },
    });
    await clock.advance(100);
    assert.deepEqual(attempts.map((a) => a.at), [0, 5, 15, 35]);
    assert.deepEqual(attempts.map((a) => a.numRequeues), [0, 1, 2, 3]);
    assert.deepEqual(errors, [[boom, "default/web"], [boom, "default/web"], [
      boom,
      "default/web",
    ]]);
    informer.add(obj("default", "web"));
    await clock.flush();
    assert.equal(attempts.at(-1)?.numRequeues, 0, "success forgot the backoff");
    await controller.stop();
    assert.equal(clock.pendingTimers, 0);
  });

  test("a failed reconcile's report says when the key is tried again", async () => {
    const clock = new ManualClock(0);
    const informer = syncedInformer([obj("default", "web")]);
    const reports: { retryInMs: number | undefined; action: string }[] = [];
    let attempts = 0;
    const controller = start({
      informers: [informer],
      clock,
      onError: (_error, { retryInMs, action }) => reports.push({ retryInMs, action }),
      reconcile: () => {
        if (++attempts <= 3) throw new Error("apply failed");
        // An invalid result is retried through the rate limiter too, and says when.
        if (attempts === 4) return { requeueAfterMs: Number.NaN };
      },
    });
    await clock.advance(100);
    assert.equal(attempts, 5);
    assert.deepEqual(
      reports,
      [5, 10, 20, 40].map((retryInMs) => ({
        retryInMs,
        action: "retrying the key with backoff",
      })),
    );
    await controller.stop();
  });

  test("requeueAfterMs reconciles the key again after that delay", async () => {
    const clock = new ManualClock(0);
    const informer = syncedInformer([obj("default", "web")]);
    const times: number[] = [];
    const controller = start({
      informers: [informer],
      clock,
      reconcile: () => {
        times.push(clock.now());
        return { requeueAfterMs: 30_000 };
      },
    });
    await clock.advance(90_000);
    assert.deepEqual(times, [0, 30_000, 60_000, 90_000]);
    assert.equal(clock.pendingTimers, 1, "the next re-check is scheduled");
    await controller.stop();
    assert.equal(clock.pendingTimers, 0, "shutdown clears the scheduled re-check");
  });

  test("an invalid requeueAfterMs is reported and retried with backoff", async () => {
    const clock = new ManualClock(0);
    const informer = syncedInformer([obj("default", "web")]);
    const errors: unknown[] = [];
    let calls = 0;
    const controller = start({
      informers: [informer],
      clock,
      onError: (error) => errors.push(error),
      reconcile: () => (++calls === 1 ? { requeueAfterMs: -1 } : undefined),
    });
    await clock.advance(5);
    assert.equal(calls, 2);
    assert.equal(errors.length, 1);
    assert.ok(errors[0] instanceof RangeError);
    await controller.stop();
  });

  test("workers: 2 reconciles at most two keys at once", async () => {
    const clock = new ManualClock(0);
    const keys = ["a", "b", "c", "d", "e"];
    const informer = syncedInformer(keys.map((k) => obj("default", k)));
    let running = 0;
    let maxRunning = 0;
    const finished: [string, number][] = [];
    const controller = start({
      informers: [informer],
      clock,
      workers: 2,
      reconcile: async (key, { signal }) => {
        running++;
        maxRunning = Math.max(maxRunning, running);
        try {
          await sleep(1000, { clock, signal });
          finished.push([key, clock.now()]);
        } finally {
          running--;
        }
      },
    });
    await clock.advance(3000);
    assert.equal(maxRunning, 2);
    assert.deepEqual(finished, [
      ["default/a", 1000],
      ["default/b", 1000],
      ["default/c", 2000],
      ["default/d", 2000],
      ["default/e", 3000],
    ]);
    await controller.stop();
    assert.equal(clock.pendingTimers, 0);
  });

  test("a key updated while it is reconciled is reconciled again afterwards, never twice at once", async () => {
    const clock = new ManualClock(0);
    const informer = syncedInformer([obj("default", "web")]);
    let running = 0;
    let maxRunning = 0;
    let calls = 0;
    const controller = start({
      informers: [informer],
      clock,
      workers: 3,
      reconcile: async (_key, { signal }) => {
        calls++;
        running++;
        maxRunning = Math.max(maxRunning, running);
        try {
          await sleep(100, { clock, signal });
        } finally {
          running--;
        }
      },
    });
    await clock.advance(10);
    informer.update(obj("default", "web"), obj("default", "web"));
    informer.update(obj("default", "web"), obj("default", "web"));
    await clock.advance(300);
    assert.equal(maxRunning, 1);
    assert.equal(calls, 2);
    await controller.stop();
  });

  test("abort lets in-flight reconciles finish, removes handlers, shuts the queue down, leaves no timers", async () => {
    const clock = new ManualClock(0);
    const informer = syncedInformer([obj("default", "a"), obj("default", "b")]);
    const queue = new RateLimitingQueue<string>({ clock });
    const gate = deferred();
    const contexts: ReconcileContext[] = [];
    const stop = new AbortController();
    const run = track(runController({
      informers: [informer],
      queue,
      clock,
      signal: stop.signal,
      reconcile: async (_key, ctx) => {
        contexts.push(ctx);
        await gate.promise; // ignores the signal on purpose
      },
    }));
    await clock.flush();
    assert.equal(contexts.length, 1);
    queue.addAfter("default/later", 60_000);
    stop.abort();
    await clock.flush();
    assert.equal(run.settled(), false, "waits for the in-flight reconcile");
    assert.equal(contexts[0]?.signal.aborted, true, "the in-flight reconcile is told to stop");
    assert.equal(informer.startedWith?.aborted, true, "the informers are stopped");
    gate.resolve();
    await run.promise;
    assert.equal(contexts.length, 1, "no new key is taken after abort");
    assert.equal(informer.handlers.size, 0);
    assert.equal(informer.removed, 1);
    assert.equal(queue.shuttingDown, true);
    assert.equal(clock.pendingTimers, 0);
  });

  test("a reconcile that stops early on abort is neither retried nor reported", async () => {
    const clock = new ManualClock(0);
    const informer = syncedInformer([obj("default", "a")]);
    const errors: unknown[] = [];
    const controller = start({
      informers: [informer],
      clock,
      onError: (e) => errors.push(e),
      reconcile: (_key, { signal }) => sleep(60_000, { clock, signal }),
    });
    await clock.flush();
    await controller.stop();
    assert.deepEqual(errors, []);
    assert.equal(clock.pendingTimers, 0);
  });

  test("abort while waiting for sync resolves without reconciling and leaves no timers", async () => {
    const clock = new ManualClock(0);
    const informer = new FakeInformer([obj("default", "a")]);
    let calls = 0;
    const controller = start({
      informers: [informer],
      clock,
      reconcile: () => {
        calls++;
      },
    });
    await clock.advance(250);
    await controller.stop();
    assert.equal(calls, 0);
    assert.equal(informer.handlers.size, 0);
    assert.equal(clock.pendingTimers, 0);
  });

  test("an already aborted signal resolves after cleaning up", async () => {
    const clock = new ManualClock(0);
    const informer = new FakeInformer([obj("default", "a")]);
    let calls = 0;
    await runController({
      informers: [informer],
      clock,
      signal: AbortSignal.abort(),
      reconcile: () => {
        calls++;
      },
    });
    assert.equal(calls, 0);
    assert.equal(informer.handlers.size, 0);
    assert.equal(clock.pendingTimers, 0);
  });

  test("an onError that throws stops the controller and rejects with its error", async () => {
    const clock = new ManualClock(0);
    const informer = syncedInformer([obj("default", "a")]);
    const fatal = new Error("onError is broken");
    const run = runController({
      informers: [informer],
      clock,
      signal: new AbortController().signal,
      onError: () => {
        throw fatal;
      },
      reconcile: () => {
        throw new Error("reconcile failed");
      },
    });
    await assert.rejects(run, (e) => e === fatal);
    assert.equal(informer.handlers.size, 0);
    assert.equal(clock.pendingTimers, 0);
  });

  test("an informer whose start rejects stops the controller with that error", async () => {
    const clock = new ManualClock(0);
    const failure = new Error("cannot list");
    const informer: InformerLike<Obj> = {
      addEventHandler: () => ({ hasSynced: () => false, remove: () => {} }),
      start: () => Promise.reject(failure),
    };
    await assert.rejects(
      runController({
        informers: [informer],
        clock,
        signal: new AbortController().signal,
        reconcile: () => {},
      }),
      (e) => e === failure,
    );
    assert.equal(clock.pendingTimers, 0);
  });

  test("startInformers: false leaves starting to the caller", async () => {
    const clock = new ManualClock(0);
    const informer = syncedInformer();
    const controller = start({
      informers: [informer],
      clock,
      startInformers: false,
      reconcile: () => {},
    });
    await clock.flush();
    assert.equal(informer.startedWith, undefined);
    await controller.stop();
  });

  test("invalid options are rejected with errors naming the option", async () => {
    const signal = new AbortController().signal;
    const base = { informers: [] as InformerLike<Obj>[], signal, reconcile: () => {} };
    await assert.rejects(runController({ ...base, workers: 0 }), {
      name: "RangeError",
      message: /workers/,
    });
    await assert.rejects(runController({ ...base, workers: 1.5 }), {
      name: "RangeError",
      message: /workers/,
    });
    await assert.rejects(runController({ ...base, signal: undefined as never }), {
      name: "TypeError",
      message: /signal/,
    });
    await assert.rejects(runController({ ...base, reconcile: undefined as never }), {
      name: "TypeError",
      message: /reconcile/,
    });
    await assert.rejects(runController({ ...base, informers: [{} as never] }), {
      name: "TypeError",
      message: /informers\[0\]/,
    });
    await assert.rejects(runController({ ...base, syncPollIntervalMs: 0 }), {
      name: "RangeError",
      message: /syncPollIntervalMs/,
    });
  });
});
