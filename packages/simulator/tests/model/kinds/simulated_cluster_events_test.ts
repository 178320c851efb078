// Events: events.k8s.io/v1 and core/v1 are one stored resource, converted per request as on
// kube-apiserver, with the API server's checks.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { coreEvents, eventsV1 } from "../../../../../src/client/resource.ts";
import type { KubeObject, Status } from "../../../../../src/client/types.ts";
import { ManualClock } from "../../../../../src/testing/manual_clock.ts";
import { SimulatedCluster } from "../../../src/cluster/simulated_cluster.ts";

const V1 = "/apis/events.k8s.io/v1/namespaces/default/events";
const CORE = "/api/v1/namespaces/default/events";

function event(name: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    apiVersion: "events.k8s.io/v1",
    kind: "Event",
    metadata: { name, namespace: "default" },
    eventTime: "2026-11-26T03:04:05.123456Z",
    reportingController: "example.com/ctl",
    reportingInstance: "ctl-0",
    action: "Reconcile",
    reason: "Synced",
    type: "Normal",
    regarding: { kind: "Deployment", namespace: "default", name: "web", apiVersion: "apps/v1" },
    note: "all good",
    ...extra,
  };
}

function setup() {
  const c = new SimulatedCluster({ clock: new ManualClock() });
  const send = async (method: string, path: string, body?: unknown, type = "application/json") => {
    const res = await c.fetch(
      new Request(`http://sim.test${path}`, {
        method,
        ...(body === undefined ? {} : {
          body: typeof body === "string" ? body : JSON.stringify(body),
          headers: { "Content-Type": type },
        }),
      }),
    );
    return { status: res.status, body: await res.json() as Record<string, unknown> };
  };
  return { c, send };
}

describe("SimulatedCluster Events", () => {
  test("an events.k8s.io/v1 Event is a core/v1 Event too, field by field", async () => {
    const { c, send } = setup();
    const created = await send("POST", V1, event("e1"));
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assert.equal(created.body.apiVersion, "events.k8s.io/v1");
    assert.equal(created.body.note, "all good");
    const core = await send("GET", `${CORE}/e1`);
    assert.equal(core.status, 200);
    assert.equal(core.body.apiVersion, "v1");
    assert.deepEqual(core.body.involvedObject, {
      kind: "Deployment",
      namespace: "default",
      name: "web",
      apiVersion: "apps/v1",
    });
    assert.equal(core.body.message, "all good");
    assert.equal(core.body.reportingComponent, "example.com/ctl");
    assert.equal(core.body.reportingInstance, "ctl-0");
    assert.equal(core.body.eventTime, "2026-11-26T03:04:05.123456Z");
    assert.equal(Object.hasOwn(core.body, "note"), false);
    assert.equal(
      (core.body.metadata as { uid: string }).uid,
      (created.body.metadata as { uid: string }).uid,
    );
    // The other way: a core Event read through events.k8s.io/v1.
    c.create(coreEvents, {
      metadata: { name: "legacy", namespace: "default" },
      involvedObject: { kind: "Pod", name: "p", namespace: "default" },
      reason: "Pulled",
      message: "pulled",
      source: { component: "kubelet" },
      count: 3,
      type: "Normal",
    } as KubeObject);
    const view = await send("GET", `${V1}/legacy`);
    assert.equal(view.body.kind, "Event");
    assert.deepEqual(view.body.regarding, { kind: "Pod", name: "p", namespace: "default" });
    assert.equal(view.body.note, "pulled");
    assert.deepEqual(view.body.deprecatedSource, { component: "kubelet" });
    assert.equal(view.body.deprecatedCount, 3);
    const list = await send("GET", V1);
    assert.equal(list.body.kind, "EventList");
    assert.equal(list.body.apiVersion, "events.k8s.io/v1");
    assert.deepEqual((list.body.items as KubeObject[]).map((e) => e.metadata.name), [
      "e1",
      "legacy",
    ]);
    assert.deepEqual(c.list(eventsV1).map((e) => (e as Record<string, unknown>).note), [
      "all good",
      "pulled",
    ]);
    c.close();
  });

  test("events.k8s.io/v1 checks: eventTime, type, series, no deprecated fields, MicroTime", async () => {
    const { c, send } = setup();
    const invalid = async (extra: Record<string, unknown>) => {
      const res = await send("POST", V1, event("bad", extra));
      return { code: res.status, message: (res.body as unknown as Status).message };
    };
    assert.deepEqual(await invalid({ eventTime: undefined }), {
      code: 422,
      message: 'Event.events.k8s.io "bad" is invalid: eventTime: Required value',
    });
    assert.deepEqual(await invalid({ type: "Info" }), {
      code: 422,
      message:
        'Event.events.k8s.io "bad" is invalid: type: Invalid value: "": has invalid value: Info',
    });
    assert.match(
      (await invalid({
        deprecatedCount: 2,
        series: { count: 1, lastObservedTime: "2026-11-26T03:04:06.000000Z" },
      }))
        .message!,
      /series\.count: Invalid value: "": should be at least 2, .*deprecatedCount: Invalid value: "": needs to be unset/,
    );
    assert.match((await invalid({ action: "" })).message!, /action: Required value/);
    assert.deepEqual((await invalid({ eventTime: "2026-11-26T03:04:05.123Z" })).code, 400);
    // core/v1: the looser rules of the old API (its namespace must match the object's).
    const core = await send("POST", CORE, {
      metadata: { name: "x" },
      involvedObject: { kind: "Pod", name: "p", namespace: "other" },
      reason: "R",
    });
    assert.equal(core.status, 422);
    assert.match(
      (core.body as unknown as Status).message!,
      /involvedObject\.namespace: Invalid value: "other": does not match event\.namespace/,
    );
    c.close();
  });

  test("patches, JSON patches and applies through events.k8s.io/v1 reach the stored Event", async () => {
    const { c, send } = setup();
    await send("POST", V1, event("e1"));
    const series = await send(
      "PATCH",
      `${V1}/e1`,
      { series: { count: 2, lastObservedTime: "2026-11-26T03:05:00.000000Z" }, note: "again" },
      "application/merge-patch+json",
    );
    assert.equal(series.status, 200, JSON.stringify(series.body));
    assert.equal(series.body.note, "again");
    const stored = c.get(coreEvents, { namespace: "default", name: "e1" }) as Record<
      string,
      unknown
    >;
    assert.deepEqual(stored.series, { count: 2, lastObservedTime: "2026-11-26T03:05:00.000000Z" });
    assert.equal(stored.message, "again");
    const json = await send(
      "PATCH",
      `${V1}/e1`,
      [{ op: "replace", path: "/note", value: "third" }],
      "application/json-patch+json",
    );
    assert.equal(json.status, 200, JSON.stringify(json.body));
    assert.equal(
      (c.get(coreEvents, { namespace: "default", name: "e1" }) as Record<string, unknown>).message,
      "third",
    );
    const applied = await send(
      "PATCH",
      `${V1}/e2?fieldManager=recorder`,
      event("e2"),
      "application/apply-patch+yaml",
    );
    assert.equal(applied.status, 201, JSON.stringify(applied.body));
    assert.equal(
      (c.get(coreEvents, { namespace: "default", name: "e2" }) as Record<string, unknown>).message,
      "all good",
    );
    const del = await send("DELETE", `${V1}/e2`);
    assert.equal(del.status, 200);
    assert.equal(c.get(eventsV1, { namespace: "default", name: "e2" }), undefined);
    c.close();
  });

  test("field selectors in each API's terms, and a watch of one API sees writes through the other", async () => {
    const { c, send } = setup();
    await send("POST", V1, event("e1"));
    await send(
      "POST",
      V1,
      event("e2", { regarding: { kind: "Pod", namespace: "default", name: "p" } }),
    );
    const names = (body: Record<string, unknown>) =>
      (body.items as KubeObject[]).map((e) => e.metadata.name);
    assert.deepEqual(names((await send("GET", `${V1}?fieldSelector=regarding.name%3Dweb`)).body), [
      "e1",
    ]);
    assert.deepEqual(
      names(
        (await send("GET", `${CORE}?fieldSelector=involvedObject.kind%3DPod,reason%3DSynced`)).body,
      ),
      ["e2"],
    );
    assert.equal((await send("GET", `${CORE}?fieldSelector=regarding.name%3Dweb`)).status, 400);
    const watch = await c.fetch(
      new Request(`http://sim.test${V1}?watch=1&resourceVersion=${c.resourceVersion}`),
    );
    const reader = watch.body!.pipeThrough(new TextDecoderStream()).getReader();
    c.create(coreEvents, {
      metadata: { name: "legacy", namespace: "default" },
      involvedObject: { kind: "Pod", name: "p", namespace: "default" },
      message: "from the old API",
    } as KubeObject);
    const line = JSON.parse((await reader.read()).value!) as {
      type: string;
      object: Record<string, unknown>;
    };
    assert.equal(line.type, "ADDED");
    assert.equal(line.object.apiVersion, "events.k8s.io/v1");
    assert.equal(line.object.note, "from the old API");
    await reader.cancel();
    c.close();
  });
});
