// metav1.Condition helpers: apimachinery's SetStatusCondition semantics, validation, and a
// status write through the status subresource on the simulated cluster.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import {
  type Condition,
  findCondition,
  hasCondition,
  removeCondition,
  setCondition,
  updateWithRetry,
} from "../../../src/controller/mod.ts";
import { KubeClient } from "../../../src/client/kube_client.ts";
import { ManualClock } from "../../../src/testing/manual_clock.ts";
import { SimulatedCluster } from "@kinformer/simulator";
import { widgets } from "@kinformer/simulator";

const T0 = Date.UTC(2026, 4, 1, 12, 0, 0, 750);

describe("conditions", () => {
  test("a new condition is appended with lastTransitionTime now, in whole seconds", () => {
    const clock = new ManualClock(T0);
    const before: Condition[] = [];
    const after = setCondition(before, { type: "Ready", status: "False", reason: "Progressing" }, {
      clock,
    });
    assert.deepEqual(before, [], "the input is not changed");
    assert.deepEqual(after, [{
      type: "Ready",
      status: "False",
      lastTransitionTime: "2026-05-01T12:00:00Z",
      reason: "Progressing",
      message: "",
    }]);
  });

  test("lastTransitionTime changes only when the status changes", async () => {
    const clock = new ManualClock(T0);
    let list = setCondition(undefined, { type: "Ready", status: "False", reason: "A" }, { clock });
    await clock.advance(90_000);
    list = setCondition(list, { type: "Ready", status: "False", reason: "B", message: "m" }, {
      clock,
    });
    assert.equal(findCondition(list, "Ready")?.lastTransitionTime, "2026-05-01T12:00:00Z");
    assert.equal(findCondition(list, "Ready")?.reason, "B");
    assert.equal(findCondition(list, "Ready")?.message, "m");
    list = setCondition(list, { type: "Ready", status: "True", reason: "Ok" }, { clock });
    assert.equal(findCondition(list, "Ready")?.lastTransitionTime, "2026-05-01T12:01:30Z");
    // A given lastTransitionTime is used for a status change, and ignored otherwise.
    list = setCondition(list, {
      type: "Ready",
      status: "True",
      reason: "Ok",
      lastTransitionTime: "2000-01-01T00:00:00Z",
    }, { clock });
    assert.equal(findCondition(list, "Ready")?.lastTransitionTime, "2026-05-01T12:01:30Z");
    list = setCondition(list, {
      type: "Ready",
      status: "Unknown",
      reason: "Lost",
      lastTransitionTime: "2000-01-01T00:00:00Z",
    }, { clock });
    assert.equal(findCondition(list, "Ready")?.lastTransitionTime, "2000-01-01T00:00:00Z");
  });

  test("observedGeneration is set as given, and removed when left out", () => {
    const clock = new ManualClock(T0);
    let list = setCondition([], {
      type: "Ready",
      status: "True",
      reason: "Ok",
      observedGeneration: 4,
    }, { clock });
    assert.equal(findCondition(list, "Ready")?.observedGeneration, 4);
    list = setCondition(list, { type: "Ready", status: "True", reason: "Ok" }, { clock });
    assert.equal("observedGeneration" in findCondition(list, "Ready")!, false);
  });

  test("an unchanged condition returns the same array; other conditions keep their place", () => {
    const clock = new ManualClock(T0);
    let list = setCondition([], { type: "Ready", status: "True", reason: "Ok" }, { clock });
    list = setCondition(list, { type: "Degraded", status: "False", reason: "AsExpected" }, {
      clock,
    });
    const same = setCondition(list, { type: "Ready", status: "True", reason: "Ok" }, { clock });
    assert.equal(same, list);
    const changed = setCondition(list, { type: "Degraded", status: "True", reason: "Broken" }, {
      clock,
    });
    assert.notEqual(changed, list);
    assert.deepEqual(changed.map((c) => c.type), ["Ready", "Degraded"]);
    assert.equal(list[1]?.status, "False", "the old list is untouched");
  });

  test("find, remove and hasCondition", () => {
    const clock = new ManualClock(T0);
    const list = setCondition([], { type: "example.com/Synced", status: "True", reason: "Ok" }, {
      clock,
    });
    assert.equal(hasCondition(list, "example.com/Synced", "True"), true);
    assert.equal(hasCondition(list, "example.com/Synced", "False"), false);
    assert.equal(hasCondition(undefined, "Ready", "True"), false);
    assert.equal(findCondition(undefined, "Ready"), undefined);
    assert.deepEqual(removeCondition(list, "example.com/Synced"), []);
    assert.equal(removeCondition(list, "Ready"), list);
    assert.deepEqual(removeCondition(undefined, "Ready"), []);
  });

  test("what the API server would refuse is a TypeError naming the field", () => {
    const bad = [
      [{ type: "", status: "True", reason: "Ok" }, /type/],
      [{ type: "not a name", status: "True", reason: "Ok" }, /type/],
      [{ type: "UPPER.example.com/Ready", status: "True", reason: "Ok" }, /type/],
      [{ type: "Ready", status: "true", reason: "Ok" }, /status/],
      [{ type: "Ready", status: "True", reason: "" }, /reason/],
      [{ type: "Ready", status: "True", reason: "has space" }, /reason/],
      [{ type: "Ready", status: "True", reason: "Ok", message: 3 }, /message/],
      [
        { type: "Ready", status: "True", reason: "Ok", observedGeneration: -1 },
        /observedGeneration/,
      ],
    ] as const;
    for (const [input, message] of bad) {
      assert.throws(() => setCondition([], input as never), { message }, JSON.stringify(input));
    }
  });

  test("conditions written through the status subresource leave the spec alone", async () => {
    const clock = new ManualClock(T0);
    const cluster = new SimulatedCluster({ clock });
    const client = new KubeClient({ server: "http://sim", fetch: cluster.fetch });
    cluster.create(widgets, { metadata: { namespace: "default", name: "w1" }, spec: { size: 1 } });
    const written = await updateWithRetry(client, {
      resource: widgets,
      namespace: "default",
      name: "w1",
      subresource: "status",
      mutate: (w) => {
        w.spec = { size: 99 }; // ignored by the status subresource
        const conditions = (w.status?.conditions ?? []) as Condition[];
        w.status = {
          ...w.status,
          conditions: setCondition(conditions, {
            type: "Ready",
            status: "True",
            reason: "Available",
            observedGeneration: w.metadata.generation,
          }, { clock }),
        };
      },
    });
    const stored = cluster.get(widgets, { namespace: "default", name: "w1" })!;
    assert.equal(stored.spec?.size, 1);
    const conditions = stored.status?.conditions as Condition[];
    assert.equal(conditions[0]?.status, "True");
    assert.equal(conditions[0]?.observedGeneration, 1);
    assert.equal(written.metadata.resourceVersion, stored.metadata.resourceVersion);
    cluster.close();
  });
});
