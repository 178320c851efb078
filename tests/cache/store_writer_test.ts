import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { KubeObject } from "../../src/client/types.ts";
import { Indexer } from "../../src/cache/indexer.ts";
import type { InformerEvent } from "../../src/cache/informer_event.ts";
import { StoreWriter } from "../../src/cache/store_writer.ts";
import type { WatcherEvent } from "../../src/cache/watcher_event.ts";

const pod = (
  name: string,
  rv: string,
  uid = name,
  labels?: Record<string, string>,
): KubeObject => ({
  metadata: { namespace: "ns", name, uid, resourceVersion: rv, ...(labels ? { labels } : {}) },
});

const text = (ev: InformerEvent): string => {
  switch (ev.type) {
    case "add":
      return `add ${ev.object.metadata.name}${ev.isInInitialList ? " (initial)" : ""}`;
    case "update":
      return `${ev.object === ev.oldObject ? "resync" : "update"} ${ev.object.metadata.name}`;
    case "delete":
      return `delete ${ev.object.metadata.name}${ev.finalStateUnknown ? " (unknown)" : ""}`;
    case "synced":
      return "synced";
  }
};

function writer(indexer = new Indexer()) {
  const told: string[] = [];
  const errors: [unknown, string][] = [];
  const w = new StoreWriter({
    store: indexer,
    onEvent: (ev) => void told.push(text(ev)),
    onError: (error, context) => void errors.push([error, context.key ?? ""]),
  });
  const list = (rv: string, ...objects: KubeObject[]): void => {
    const steps: WatcherEvent[] = [{ type: "init" }];
    for (const object of objects) steps.push({ type: "init-apply", object });
    steps.push({ type: "init-done", resourceVersion: rv });
    for (const step of steps) w.write(step);
  };
  return { w, told, errors, list, indexer };
}

describe("StoreWriter", () => {
  test("a first list is told as initial adds, then synced once", () => {
    const { w, told, list } = writer();
    assert.equal(w.synced, false);
    list("5", pod("a", "1"), pod("b", "2"));
    assert.deepEqual(told, ["add a (initial)", "add b (initial)", "synced"]);
    assert.equal(w.synced, true);
  });

  test("apply adds or updates, delete deletes with the last state; a bookmark changes nothing", () => {
    const { w, told, list, indexer } = writer();
    list("5", pod("a", "1"));
    told.length = 0;
    w.write({ type: "apply", object: pod("b", "6"), resourceVersion: "6" });
    w.write({ type: "apply", object: pod("a", "7"), resourceVersion: "7" });
    w.write({ type: "bookmark", resourceVersion: "8" });
    w.write({ type: "delete", object: pod("b", "9"), resourceVersion: "9" });
    assert.deepEqual(told, ["add b", "update a", "delete b"]);
    assert.deepEqual(indexer.listKeys(), ["ns/a"]);
  });

  test("a watch event goes straight to the store: a new uid under a known name is a delete then an add; an unknown key's delete is told", () => {
    const { w, told, list, indexer } = writer();
    list("5", pod("a", "1"));
    told.length = 0;
    const again = pod("a", "6", "a-2");
    w.write({ type: "apply", object: again, resourceVersion: "6" });
    assert.equal(indexer.get("ns/a"), again); // at once, before the next turn
    w.write({ type: "delete", object: pod("z", "7"), resourceVersion: "7" });
    assert.deepEqual(told, ["delete a (unknown)", "add a", "delete z"]);
    assert.deepEqual(indexer.listKeys(), ["ns/a"]);
  });

  test("a watch event before any list (a resumed consumer) is an initial add, then synced", () => {
    const { w, told } = writer();
    w.write({ type: "apply", object: pod("a", "6"), resourceVersion: "6" });
    w.write({ type: "apply", object: pod("b", "7"), resourceVersion: "7" });
    assert.deepEqual(told, ["add a (initial)", "synced", "add b"]);
    assert.equal(w.synced, true);
  });

  test("a relist tells only the difference: changed, new, gone (final state unknown)", () => {
    const { told, list } = writer();
    list("5", pod("a", "1"), pod("b", "2"), pod("c", "3"));
    told.length = 0;
    list("9", pod("a", "1"), pod("b", "8"), pod("d", "9"));
    assert.deepEqual(told, ["update b", "add d", "delete c (unknown)"]);
  });

  test("a relist that hands back the cached object itself tells nothing for it; a new uid under a known name is a delete then an add", () => {
    const { told, list, indexer } = writer();
    const a = pod("a", "1");
    list("5", a, pod("b", "2"));
    told.length = 0;
    list("9", a, pod("b", "2", "b2"));
    assert.deepEqual(told, ["delete b (unknown)", "add b"]);
    assert.equal(indexer.get("ns/a"), a);
    assert.equal(indexer.get("ns/b")?.metadata.uid, "b2");
  });

  test("a list that holds a key twice tells that key's changes together, at its first place (as a DeltaFIFO groups them)", () => {
    const { told, list, indexer } = writer();
    list("5", pod("a", "1"), pod("b", "2"), pod("a", "3"));
    assert.deepEqual(told, ["add a (initial)", "update a", "add b (initial)", "synced"]);
    assert.equal(indexer.get("ns/a")?.metadata.resourceVersion, "3");
  });

  test("seed fills the store silently and counts as synced; the next list tells the difference", () => {
    const { w, told, list, indexer } = writer();
    w.seed([pod("a", "1"), pod("b", "2")]);
    assert.equal(w.synced, true);
    assert.equal(indexer.size, 2);
    assert.deepEqual(told, []);
    list("5", pod("a", "1"));
    assert.deepEqual(told, ["delete b (unknown)"]);
  });

  test("resync re-delivers every stored object as an update to itself", () => {
    const { w, told, list } = writer();
    list("5", pod("a", "1"));
    told.length = 0;
    w.resync();
    assert.deepEqual(told, ["resync a"]);
  });

  test("a store that throws for one key (an index function) leaves that key as it was; the others go on", () => {
    const boom = new Error("index broke");
    const indexer = new Indexer<KubeObject>({
      app: (o) => {
        if (o.metadata.labels?.app === "bad") throw boom;
        return [o.metadata.labels?.app ?? ""];
      },
    });
    const { told, errors, list } = writer(indexer);
    list(
      "5",
      pod("a", "1", "a", { app: "web" }),
      pod("b", "2", "b", { app: "bad" }),
      pod("c", "3"),
    );
    assert.deepEqual(told, ["add a (initial)", "add c (initial)", "synced"]);
    assert.deepEqual(errors, [[boom, "ns/b"]]);
    assert.deepEqual(indexer.listKeys().sort(), ["ns/a", "ns/c"]);
  });

  test("without onError, a throwing store is printed once, naming the key, never swallowed", async () => {
    const { captureConsole } = await import("../_console.ts");
    const printed = captureConsole();
    try {
      const boom = new Error("store broke");
      const w = new StoreWriter<KubeObject>({
        store: {
          get: () => undefined,
          listKeys: () => [],
          set: () => {
            throw boom;
          },
          delete: () => {},
        },
      });
      w.write({ type: "apply", object: pod("a", "1"), resourceVersion: "1" });
      w.write({ type: "apply", object: pod("b", "1"), resourceVersion: "2" });
      assert.deepEqual(printed.lines, [
        "error store writer (ns/a): handler threw: store broke; keeping the key's cached object",
      ]);
    } finally {
      printed.restore();
    }
  });
  test("an update through an Indexer reads the replaced object once (in compact mode, one decode per event)", () => {
    let decodes = 0;
    const indexer = new Indexer<KubeObject>({}, {
      codec: {
        encode: (object) => JSON.stringify(object),
        decode: (stored) => {
          decodes++;
          return JSON.parse(stored as string) as KubeObject;
        },
        forget: () => {},
        bytes: () => 0,
      },
    });
    const updates: [KubeObject, KubeObject][] = [];
    const w = new StoreWriter({
      store: indexer,
      onEvent: (ev) => void (ev.type === "update" && updates.push([ev.oldObject, ev.object])),
    });
    w.write({ type: "apply", object: pod("a", "1"), resourceVersion: "1" });
    decodes = 0;
    w.write({ type: "apply", object: pod("a", "2"), resourceVersion: "2" });
    assert.equal(decodes, 1);
    assert.deepEqual(updates, [[pod("a", "1"), pod("a", "2")]]);
  });

  test("any other store is read before it is written: the update carries what it held", () => {
    const held = new Map<string, KubeObject>();
    const told: string[] = [];
    const w = new StoreWriter<KubeObject>({
      store: {
        get: (key) => held.get(key),
        listKeys: () => [...held.keys()],
        set: (object, key) => void held.set(key, object),
        delete: (key) => held.delete(key),
      },
      onEvent: (ev) =>
        void told.push(
          ev.type === "update" ? `update ${ev.oldObject.metadata.resourceVersion}` : ev.type,
        ),
    });
    w.write({ type: "apply", object: pod("a", "1"), resourceVersion: "1" });
    w.write({ type: "apply", object: pod("a", "2"), resourceVersion: "2" });
    assert.deepEqual(told, ["add", "synced", "update 1"]);
    assert.equal(held.get("ns/a")?.metadata.resourceVersion, "2");
  });
});
