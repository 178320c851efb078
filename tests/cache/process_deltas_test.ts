import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { KubeObject } from "../../src/client/types.ts";
import { processDeltas } from "../../src/cache/process_deltas.ts";
import type { Delta } from "../../src/cache/delta_fifo.ts";
import { informerIdentity, makeCheckpoint } from "../../src/cache/checkpoint.ts";
import { pods } from "../../src/client/resource.ts";

const obj = (uid: string, rv: string): KubeObject => ({
  metadata: { namespace: "a", name: "p", uid, resourceVersion: rv },
});

describe("processDeltas", () => {
  const v1 = obj("u1", "1");
  const v2 = obj("u1", "2");
  const other = obj("u2", "3");

  test("Added to an empty key caches it and tells an add (initial or not)", () => {
    assert.deepEqual(processDeltas(undefined, [{ type: "Added", object: v1 }], true), {
      cached: v1,
      events: [{ type: "add", object: v1, isInInitialList: true }],
    });
  });

  test("Updated replaces and tells an update with the old object", () => {
    const out = processDeltas(v1, [{ type: "Updated", object: v2 }], false);
    assert.equal(out.cached, v2);
    assert.deepEqual(out.events, [{ type: "update", object: v2, oldObject: v1 }]);
  });

  test("a new uid under a known key is a delete (final state unknown) then an add", () => {
    const out = processDeltas(v1, [{ type: "Replaced", object: other }], false);
    assert.equal(out.cached, other);
    assert.deepEqual(out.events, [
      { type: "delete", object: v1, finalStateUnknown: true },
      { type: "add", object: other, isInInitialList: false },
    ]);
  });

  test("a relist that finds the same uid and resourceVersion keeps the cached object, silently", () => {
    const copy = structuredClone(v1);
    const out = processDeltas(v1, [{ type: "Replaced", object: copy }], false);
    assert.equal(out.cached, v1);
    assert.deepEqual(out.events, []);
  });

  test("a tombstone delete carries the cached (last known) object", () => {
    const out = processDeltas(
      v2,
      [{ type: "Deleted", object: v1, finalStateUnknown: true }],
      false,
    );
    assert.equal(out.cached, undefined);
    assert.deepEqual(out.events, [{ type: "delete", object: v2, finalStateUnknown: true }]);
  });

  test("a watch delete for a key never cached is still told; a tombstone for it is not", () => {
    assert.deepEqual(processDeltas(undefined, [{ type: "Deleted", object: v1 }], false).events, [
      { type: "delete", object: v1, finalStateUnknown: false },
    ]);
    const tomb: Delta = { type: "Deleted", object: v1, finalStateUnknown: true };
    assert.deepEqual(processDeltas(undefined, [tomb], false).events, []);
  });

  test("Sync re-delivers the cached object as update with object === oldObject", () => {
    const out = processDeltas(v1, [{ type: "Sync", object: v1 }], false);
    assert.equal(out.cached, v1);
    assert.equal(out.events.length, 1);
    const ev = out.events[0]!;
    assert.ok(ev.type === "update" && ev.object === v1 && ev.oldObject === v1);
    assert.deepEqual(processDeltas(undefined, [{ type: "Sync", object: v1 }], false).events, []);
  });

  test("several deltas of one key apply in order", () => {
    const out = processDeltas(undefined, [
      { type: "Added", object: v1 },
      { type: "Updated", object: v2 },
      { type: "Deleted", object: v2 },
    ], false);
    assert.equal(out.cached, undefined);
    assert.deepEqual(out.events.map((e) => e.type), ["add", "update", "delete"]);
  });

  test("it is pure: inputs are left as they were", () => {
    const deltas: Delta[] = [{ type: "Updated", object: v2 }];
    const before = structuredClone({ v1, deltas });
    processDeltas(v1, deltas, false);
    assert.deepEqual({ v1, deltas }, before);
  });
});

describe("informer identity and checkpoints", () => {
  test("one identity string for the factory and for checkpoints", () => {
    const selection = { resource: pods, namespace: "a", labelSelector: "app=web" };
    assert.equal(informerIdentity(selection), "v1/pods|a|app=web|");
    const cp = makeCheckpoint(selection, "42", undefined);
    assert.deepEqual(cp, {
      version: 1,
      resource: "v1/pods",
      namespace: "a",
      labelSelector: "app=web",
      fieldSelector: "",
      resourceVersion: "42",
    });
  });
});
