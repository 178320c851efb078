import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { KubeObject } from "../../src/client/types.ts";
import type { InformerEvent } from "../../src/cache/informer_event.ts";
import { Listener } from "../../src/cache/listener.ts";
import { seededRandom as seeded } from "../../src/testing/seeded_random.ts";

function pod(name: string, rv: string, uid = `uid-${name}`): KubeObject {
  return { metadata: { namespace: "ns", name, resourceVersion: rv, uid } };
}

const add = (object: KubeObject, isInInitialList = false): InformerEvent => ({
  type: "add",
  object,
  isInInitialList,
});
const update = (oldObject: KubeObject, object: KubeObject): InformerEvent => ({
  type: "update",
  object,
  oldObject,
});
const del = (object: KubeObject, finalStateUnknown = false): InformerEvent => ({
  type: "delete",
  object,
  finalStateUnknown,
});

/** Takes every waiting event. */
function takeAll(listener: Listener): InformerEvent[] {
  const out: InformerEvent[] = [];
  for (let ev = listener.shift(); ev !== undefined; ev = listener.shift()) out.push(ev);
  return out;
}

/** `type name@rv` per event (`old>new` for updates), for compact assertions. */
function show(events: InformerEvent[]): string[] {
  return events.map((ev) => {
    switch (ev.type) {
      case "add":
        return `add ${ev.object.metadata.name}@${ev.object.metadata.resourceVersion}${
          ev.isInInitialList ? " initial" : ""
        }`;
      case "update":
        return `update ${ev.object.metadata.name}@${ev.oldObject.metadata.resourceVersion}>${ev.object.metadata.resourceVersion}`;
      case "delete":
        return `delete ${ev.object.metadata.name}@${ev.object.metadata.resourceVersion}${
          ev.finalStateUnknown ? " unknown" : ""
        }`;
      case "synced":
        return "synced";
    }
  });
}

/** Whether `promise` has settled after the pending microtasks ran. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  void promise.then(() => (done = true));
  for (let i = 0; i < 5; i++) await Promise.resolve();
  return done;
}

describe("Listener (grow)", () => {
  test("keeps every event in order, however many wait, and reports backlog and high water", () => {
    const listener = new Listener("grow", 0);
    const n = 5000;
    let rv = 0;
    let prev = pod("a", String(++rv));
    listener.push(add(prev));
    for (let i = 1; i < n; i++) {
      const next = pod("a", String(++rv));
      listener.push(update(prev, next));
      prev = next;
    }
    assert.equal(listener.backlog, n);
    assert.equal(listener.highWater, n);
    assert.ok(listener.capacity >= n);
    const events = takeAll(listener);
    assert.equal(events.length, n);
    assert.equal(events[0]!.type, "add");
    events.forEach((ev, i) => {
      assert.equal((ev as { object: KubeObject }).object.metadata.resourceVersion, String(i + 1));
    });
    assert.equal(listener.backlog, 0);
    assert.equal(listener.highWater, n, "high water is the largest backlog seen");
  });

  test("never merges: add, update and delete of one key all arrive", () => {
    const listener = new Listener("grow", 0);
    const v1 = pod("a", "1");
    const v2 = pod("a", "2");
    listener.push(add(v1));
    listener.push(update(v1, v2));
    listener.push(del(v2));
    assert.deepEqual(show(takeAll(listener)), ["add a@1", "update a@1>2", "delete a@2"]);
  });

  test("the synced marker sets synced only when the consumer takes it", () => {
    const listener = new Listener("grow", 0);
    listener.push(add(pod("a", "1"), true));
    listener.push({ type: "synced" });
    assert.equal(listener.syncQueued, true);
    assert.equal(listener.synced, false);
    assert.equal(listener.shift()?.type, "add");
    assert.equal(listener.synced, false);
    assert.equal(listener.shift()?.type, "synced");
    assert.equal(listener.synced, true);
  });
});

describe("Listener (coalesce)", () => {
  test("add then update merges into one add with the latest object, keeping isInInitialList", () => {
    const listener = new Listener("coalesce", 0);
    const v1 = pod("a", "1");
    const v2 = pod("a", "2");
    const v3 = pod("a", "3");
    listener.push(add(v1, true));
    listener.push(update(v1, v2));
    listener.push(update(v2, v3));
    assert.equal(listener.backlog, 1);
    const [ev] = takeAll(listener);
    assert.deepEqual(ev, { type: "add", object: v3, isInInitialList: true });
  });

  test("update then update merges into one update from the FIRST old object to the latest", () => {
    const listener = new Listener("coalesce", 0);
    const v1 = pod("a", "1");
    const v2 = pod("a", "2");
    const v3 = pod("a", "3");
    const v4 = pod("a", "4");
    listener.push(update(v1, v2));
    listener.push(update(v2, v3));
    listener.push(update(v3, v4));
    const events = takeAll(listener);
    assert.equal(events.length, 1);
    assert.deepEqual(events[0], { type: "update", object: v4, oldObject: v1 });
  });

  test("add then delete delivers nothing", () => {
    const listener = new Listener("coalesce", 0);
    const v1 = pod("a", "1");
    const v2 = pod("a", "2");
    listener.push(add(v1));
    listener.push(update(v1, v2));
    listener.push(del(v2));
    assert.equal(listener.backlog, 0);
    assert.equal(listener.shift(), undefined);
  });

  test("update then delete merges into the delete", () => {
    const listener = new Listener("coalesce", 0);
    const v1 = pod("a", "1");
    const v2 = pod("a", "2");
    listener.push(update(v1, v2));
    listener.push(del(v2, true));
    assert.deepEqual(takeAll(listener), [del(v2, true)]);
  });

  test("delete then add are both kept, in order (a re-created object)", () => {
    const listener = new Listener("coalesce", 0);
    const old = pod("a", "1", "uid-1");
    const fresh = pod("a", "2", "uid-2");
    const fresher = pod("a", "3", "uid-2");
    listener.push(del(old));
    listener.push(add(fresh));
    listener.push(update(fresh, fresher));
    assert.deepEqual(show(takeAll(listener)), ["delete a@1", "add a@3"]);
  });

  test("delete, add, delete leaves just the first delete", () => {
    const listener = new Listener("coalesce", 0);
    listener.push(del(pod("a", "1", "uid-1")));
    listener.push(add(pod("a", "2", "uid-2")));
    listener.push(del(pod("a", "2", "uid-2")));
    listener.push(add(pod("a", "3", "uid-3")));
    assert.deepEqual(show(takeAll(listener)), ["delete a@1", "add a@3"]);
  });

  test("a merged event keeps the place of the key's first pending event", () => {
    const listener = new Listener("coalesce", 0);
    const a1 = pod("a", "1");
    const b1 = pod("b", "2");
    listener.push(add(a1));
    listener.push(add(b1));
    listener.push(update(a1, pod("a", "3")));
    assert.deepEqual(show(takeAll(listener)), ["add a@3", "add b@2"]);
  });

  test("events taken by the consumer are never merged into: a later change arrives on its own", () => {
    const listener = new Listener("coalesce", 0);
    const v1 = pod("a", "1");
    const v2 = pod("a", "2");
    listener.push(add(v1));
    assert.equal(listener.shift()?.type, "add");
    listener.push(update(v1, v2));
    listener.push(del(v2));
    assert.deepEqual(show(takeAll(listener)), ["delete a@2"]);
  });

  test("the synced marker is never merged and sets synced when shifted", () => {
    const listener = new Listener("coalesce", 0);
    listener.push({ type: "synced" });
    listener.push({ type: "synced" });
    assert.equal(listener.syncQueued, true);
    assert.equal(listener.backlog, 2);
    assert.equal(listener.synced, false);
    assert.equal(listener.shift()?.type, "synced");
    assert.equal(listener.synced, true);
  });

  test("the initial population and its synced marker arrive in order", () => {
    const listener = new Listener("coalesce", 0);
    const a1 = pod("a", "1");
    listener.push(add(a1, true));
    listener.push(add(pod("b", "1"), true));
    listener.push({ type: "synced" });
    listener.push(add(pod("c", "5")));
    listener.push(update(a1, pod("a", "6")));
    const events = show(takeAll(listener));
    assert.deepEqual(events, ["add a@6 initial", "add b@1 initial", "synced", "add c@5"]);
    assert.equal(listener.synced, true);
  });

  for (const consumer of ["stalled", "slow"] as const) {
    test(`memory stays bounded by the number of keys and replay yields the final state (${consumer} consumer)`, () => {
      const keys = 100;
      const events = 100_000;
      const random = seeded(consumer === "stalled" ? 1 : 2);
      const listener = new Listener("coalesce", 0);
      // The producer's truth, and the consumer's view rebuilt from delivered events.
      const truth = new Map<string, KubeObject>();
      const view = new Map<string, KubeObject>();
      let rv = 0;
      let generation = 0;
      let maxBacklog = 0;
      let maxCapacity = 0;
      const consume = (ev: InformerEvent): void => {
        assert.notEqual(ev.type, "synced");
        if (ev.type === "synced") return;
        const key = `ns/${ev.object.metadata.name}`;
        switch (ev.type) {
          case "add":
            assert.equal(view.has(key), false, `add for ${key} the consumer already holds`);
            view.set(key, ev.object);
            break;
          case "update":
            assert.equal(view.get(key), ev.oldObject, `update for ${key} from a state never seen`);
            view.set(key, ev.object);
            break;
          case "delete":
            assert.equal(view.has(key), true, `delete for ${key} the consumer never held`);
            view.delete(key);
            break;
        }
      };
      for (let i = 0; i < events; i++) {
        const name = `p${Math.floor(random() * keys)}`;
        const key = `ns/${name}`;
        const current = truth.get(key);
        if (current === undefined) {
          const object = pod(name, String(++rv), `uid-${++generation}`);
          truth.set(key, object);
          listener.push(add(object));
        } else if (random() < 0.7) {
          const object = pod(name, String(++rv), current.metadata.uid);
          truth.set(key, object);
          listener.push(update(current, object));
        } else {
          truth.delete(key);
          listener.push(del(current));
        }
        maxBacklog = Math.max(maxBacklog, listener.backlog);
        maxCapacity = Math.max(maxCapacity, listener.capacity);
        if (consumer === "slow" && random() < 0.3) {
          const ev = listener.shift();
          if (ev !== undefined) consume(ev);
        }
      }
      assert.ok(maxBacklog <= 2 * keys, `backlog reached ${maxBacklog} for ${keys} keys`);
      assert.ok(listener.highWater <= 2 * keys, `high water ${listener.highWater}`);
      assert.ok(maxCapacity <= 8 * keys, `capacity reached ${maxCapacity} for ${keys} keys`);
      for (const ev of takeAll(listener)) consume(ev);
      assert.equal(listener.backlog, 0);
      assert.deepEqual(new Map([...view].sort()), new Map([...truth].sort()));
    });
  }
});

describe("Listener wake-ups and close", () => {
  test("wait resolves at once when an event is waiting", async () => {
    const listener = new Listener("grow", 0);
    listener.push(add(pod("a", "1")));
    assert.equal(await settled(listener.wait()), true);
  });

  test("wait resolves when an event is pushed, not before", async () => {
    const listener = new Listener("grow", 0);
    const waiting = listener.wait();
    assert.equal(await settled(waiting), false);
    listener.push(add(pod("a", "1")));
    assert.equal(await settled(waiting), true);
  });

  test("every concurrent waiter wakes on the next push", async () => {
    const listener = new Listener("coalesce", 0);
    const first = listener.wait();
    const second = listener.wait();
    listener.push(add(pod("a", "1")));
    assert.equal(await settled(first), true);
    assert.equal(await settled(second), true);
  });

  test("wait resolves on close, and at once when already closed", async () => {
    const listener = new Listener("grow", 0);
    const waiting = listener.wait();
    listener.close();
    assert.equal(await settled(waiting), true);
    assert.equal(await settled(listener.wait()), true);
  });

  test("onWake calls back once when the next event arrives", async () => {
    const listener = new Listener("grow", 0);
    let calls = 0;
    listener.onWake(() => calls++);
    await settled(Promise.resolve());
    assert.equal(calls, 0);
    listener.push(add(pod("a", "1")));
    listener.push(add(pod("b", "1")));
    await settled(Promise.resolve());
    assert.equal(calls, 1);
  });

  test("close drops the backlog and ignores later pushes", () => {
    const listener = new Listener("coalesce", 0);
    listener.push(add(pod("a", "1")));
    listener.push({ type: "synced" });
    listener.close();
    assert.equal(listener.closed, true);
    assert.equal(listener.backlog, 0);
    assert.equal(listener.shift(), undefined);
    listener.push(add(pod("b", "1")));
    assert.equal(listener.backlog, 0);
    assert.equal(listener.shift(), undefined);
  });

  test("a listener keeps its policy and resync period", () => {
    const listener = new Listener("coalesce", 30_000);
    assert.equal(listener.policy, "coalesce");
    assert.equal(listener.resyncPeriodMs, 30_000);
    assert.equal(listener.nextResyncAt, Infinity);
    assert.equal(listener.synced, false);
    assert.equal(listener.syncQueued, false);
  });
});
