// EventRecorder: client-go's events library behaviour (series within the isomorphism window,
// per-object rate limit, bounded queue, background writes with retries, core/v1 fallback),
// against the simulated cluster on a ManualClock.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { EventRecorder, type EventRecorderOptions } from "../../../src/controller/mod.ts";
import { eventsV1 } from "../../../src/client/mod.ts";
import { KubeClient } from "../../../src/client/kube_client.ts";
import { coreEvents, pods } from "../../../src/client/resource.ts";
import type { KubeObject } from "../../../src/client/types.ts";
import type { ErrorContext } from "../../../src/util/error_context.ts";
import { parseMicroTime } from "../../../src/util/micro_time.ts";
import { ManualClock } from "../../../src/testing/manual_clock.ts";
import { SimulatedCluster } from "@kinformer/simulator";

const T0 = Date.UTC(2026, 5, 1, 8, 0, 0);
const MINUTE = 60_000;

interface EventV1 extends KubeObject {
  eventTime: string;
  series?: { count: number; lastObservedTime: string };
  reportingController: string;
  reportingInstance: string;
  action: string;
  reason: string;
  note: string;
  type: string;
  regarding: Record<string, string>;
  related?: Record<string, string>;
}

interface Env {
  clock: ManualClock;
  cluster: SimulatedCluster;
  client: KubeClient;
  recorder: EventRecorder;
  errors: [unknown, ErrorContext][];
  /** Controls the client's answers: return a Response to answer instead of the cluster. */
  intercept: ((request: Request) => Promise<Response> | undefined) | undefined;
  pod: KubeObject;
  close(): Promise<void>;
}

function env(
  options: Partial<EventRecorderOptions> & { servesEventsV1?: boolean } = {},
): Env {
  const clock = new ManualClock(T0);
  const { servesEventsV1 = true, ...recorderOptions } = options;
  // The simulated cluster serves both Event APIs; a server without events.k8s.io/v1 answers
  // its paths as kube-apiserver answers a group it does not serve: 404 "page not found".
  const cluster = new SimulatedCluster({ clock });
  const missing = (request: Request): Promise<Response> | undefined =>
    !servesEventsV1 && new URL(request.url).pathname.startsWith("/apis/events.k8s.io/")
      ? Promise.resolve(
        new Response("404 page not found\n", {
          status: 404,
          headers: { "content-type": "text/plain; charset=utf-8" },
        }),
      )
      : undefined;
  const e = {} as Env;
  e.intercept = undefined;
  const client = new KubeClient({
    server: "http://sim",
    clock,
    fetch: (request) => e.intercept?.(request) ?? missing(request) ?? cluster.fetch(request),
  });
  const errors: [unknown, ErrorContext][] = [];
  const recorder = new EventRecorder({
    client,
    clock,
    reportingController: "example.com/web-controller",
    reportingInstance: "web-controller-0",
    random: () => 0,
    onError: (error, context) => void errors.push([error, context]),
    ...recorderOptions,
  });
  const pod = cluster.create(pods, {
    metadata: { namespace: "default", name: "web" },
  });
  Object.assign(e, {
    clock,
    cluster,
    client,
    recorder,
    errors,
    pod,
    close: async () => {
      await recorder.stop();
      cluster.close();
    },
  });
  return e;
}

const backOff = { type: "Warning", reason: "BackOff", action: "Restart", resource: pods } as const;

function eventsOf(e: Env): EventV1[] {
  return e.cluster.list<EventV1>(eventsV1, { namespace: "default" });
}

function writes(e: Env, resource = "events"): string[] {
  return e.cluster.requests
    .filter((r) => r.path.includes(`/${resource}`) && r.method !== "GET")
    .map((r) => r.method);
}

describe("EventRecorder", () => {
  test("an event is written in the background as an events.k8s.io/v1 Event", async () => {
    const e = env();
    e.recorder.start();
    const other = e.cluster.create(pods, { metadata: { namespace: "default", name: "db" } });
    e.recorder.record(e.pod, {
      ...backOff,
      note: "restarting failed container",
      related: other,
      relatedResource: pods,
    });
    assert.equal(eventsOf(e).length, 0, "record() does not write on the caller's path");
    await e.recorder.flush();
    const [event] = eventsOf(e);
    assert.ok(event);
    assert.match(event.metadata.name!, /^web\.[0-9a-f]+$/);
    assert.equal(event.metadata.namespace, "default");
    assert.equal(parseMicroTime(event.eventTime), T0, "eventTime is a MicroTime");
    assert.equal(event.reportingController, "example.com/web-controller");
    assert.equal(event.reportingInstance, "web-controller-0");
    assert.deepEqual(
      [event.type, event.reason, event.action, event.note],
      ["Warning", "BackOff", "Restart", "restarting failed container"],
    );
    assert.deepEqual(event.regarding, {
      apiVersion: "v1",
      kind: "Pod",
      namespace: "default",
      name: "web",
      uid: e.pod.metadata.uid!,
      resourceVersion: e.pod.metadata.resourceVersion!,
    });
    assert.equal(event.related?.name, "db");
    assert.equal(event.series, undefined);
    assert.deepEqual(e.recorder.health().api, "events.k8s.io/v1");
    await e.close();
  });

  test("repeated events become one Event with a series; the count is written when the series ends", async () => {
    const e = env();
    e.recorder.start();
    for (let i = 1; i <= 10; i++) {
      e.recorder.record(e.pod, { ...backOff, note: `attempt ${i}` }); // the note is not the key
      await e.clock.advance(10_000);
    }
    await e.recorder.flush();
    let [event] = eventsOf(e);
    assert.equal(eventsOf(e).length, 1);
    assert.equal(event?.series?.count, 2, "the second occurrence makes it a series");
    assert.deepEqual(writes(e), ["POST", "PATCH"], "no write per occurrence");
    // Six minutes without an occurrence end the series: its final count is written.
    await e.clock.advance(12 * MINUTE);
    await e.recorder.flush();
    [event] = eventsOf(e);
    assert.equal(event?.series?.count, 10);
    assert.equal(event?.note, "attempt 1", "the note is immutable: the first one stays");
    assert.equal(parseMicroTime(event!.series!.lastObservedTime), T0 + 90_000);
    assert.deepEqual(writes(e), ["POST", "PATCH", "PATCH"]);
    // Outside the window, the same event is a new Event.
    e.recorder.record(e.pod, { ...backOff, note: "again" });
    await e.recorder.flush();
    assert.equal(eventsOf(e).length, 2);
    assert.deepEqual(e.errors, []);
    await e.close();
  });

  test("events differing in type, reason, action, regarding or related are different Events", async () => {
    const e = env();
    e.recorder.start();
    const db = e.cluster.create(pods, { metadata: { namespace: "default", name: "db" } });
    e.recorder.record(e.pod, backOff);
    e.recorder.record(e.pod, { ...backOff, type: "Normal" });
    e.recorder.record(e.pod, { ...backOff, reason: "Pulled" });
    e.recorder.record(e.pod, { ...backOff, action: "Pull" });
    e.recorder.record(db, backOff);
    e.recorder.record(e.pod, { ...backOff, related: db, relatedResource: pods });
    e.recorder.record(
      { apiVersion: "v1", kind: "Pod", namespace: "default", name: "web" },
      backOff,
    );
    await e.recorder.flush();
    assert.equal(eventsOf(e).length, 7);
    assert.ok(eventsOf(e).every((ev) => ev.series === undefined));
    await e.close();
  });

  test("an ongoing series is written again every 30 minutes", async () => {
    const e = env();
    e.recorder.start();
    for (let minute = 0; minute < 40; minute++) {
      e.recorder.record(e.pod, backOff);
      await e.clock.advance(MINUTE);
    }
    await e.recorder.flush();
    const [event] = eventsOf(e);
    assert.deepEqual(writes(e), ["POST", "PATCH", "PATCH"]);
    assert.equal(event?.series?.count, 30, "the refresh at 30 minutes wrote the count then");
    await e.close();
  });

  test("per object: 25 distinct writes, then one per 5 minutes; series occurrences are free", async () => {
    const e = env();
    e.recorder.start();
    const db = e.cluster.create(pods, { metadata: { namespace: "default", name: "db" } });
    for (let i = 0; i < 30; i++) e.recorder.record(e.pod, { ...backOff, reason: `Reason${i}` });
    e.recorder.record(db, backOff);
    await e.recorder.flush();
    assert.equal(eventsOf(e).filter((ev) => ev.regarding.name === "web").length, 25);
    assert.equal(eventsOf(e).filter((ev) => ev.regarding.name === "db").length, 1);
    assert.equal(e.recorder.health().rateLimited, 5);
    // A series of an already written event still counts (no token needed after the second).
    e.recorder.record(db, backOff); // second: a write (a token)
    for (let i = 0; i < 100; i++) e.recorder.record(db, backOff);
    await e.clock.advance(5 * MINUTE);
    e.recorder.record(e.pod, { ...backOff, reason: "Late" });
    await e.recorder.flush();
    assert.ok(eventsOf(e).some((ev) => ev.reason === "Late"), "a token came back after 5 min");
    await e.recorder.stop();
    const dbEvent = eventsOf(e).find((ev) => ev.regarding.name === "db");
    assert.equal(dbEvent?.series?.count, 102);
    e.cluster.close();
  });

  test("record() never waits for the API server; the queue is bounded", async () => {
    const e = env({ maxQueued: 3, concurrency: 1 });
    const hanging = new Set<() => void>();
    e.intercept = (request) =>
      new Promise<Response>((_, reject) => {
        const onAbort = () => reject(request.signal.reason);
        request.signal.addEventListener("abort", onAbort, { once: true });
        hanging.add(onAbort);
      });
    e.recorder.start();
    for (let i = 0; i < 5; i++) e.recorder.record(e.pod, { ...backOff, reason: `R${i}` });
    const h = e.recorder.health();
    assert.equal(h.inFlight, 1);
    assert.equal(h.queued, 3);
    assert.equal(h.dropped, 1);
    assert.deepEqual(e.errors.map(([, c]) => [c.phase, c.kind, c.action]), [
      ["event", "other", "dropping the write"],
    ]);
    // stop gives the queue flushTimeoutMs, then aborts the hanging writes.
    const stopping = e.recorder.stop({ flushTimeoutMs: 1_000 });
    await e.clock.advance(1_000);
    await stopping;
    assert.equal(e.recorder.health().state, "stopped");
    assert.equal(e.recorder.health().dropped, 4, "the 3 queued are dropped at the deadline");
    assert.equal(e.clock.pendingTimers, 0);
    e.cluster.close();
  });

  test("server errors and network failures are retried about every 10 s; 4xx is given up", async () => {
    const e = env({ maxTries: 3 });
    let failures = 2;
    e.intercept = (request) => {
      if (request.method !== "POST" || failures === 0) return undefined;
      failures--;
      return Promise.resolve(Response.json({ kind: "Status", code: 503 }, { status: 503 }));
    };
    e.recorder.start();
    e.recorder.record(e.pod, backOff);
    await e.clock.flush();
    assert.equal(eventsOf(e).length, 0);
    await e.clock.advance(10_000);
    await e.clock.advance(10_000);
    await e.recorder.flush();
    assert.equal(eventsOf(e).length, 1, "written on the third attempt");
    assert.deepEqual(e.errors.map(([, c]) => [c.phase, c.kind, c.retryInMs !== undefined]), [
      ["event", "server", true],
      ["event", "server", true],
    ]);
    assert.match(e.errors[0]![1].action, /^retrying the write \(attempt 1 of 3\)$/);

    e.errors.length = 0;
    e.intercept = (request) =>
      request.method === "POST"
        ? Promise.resolve(Response.json({ kind: "Status", code: 422, reason: "Invalid" }, {
          status: 422,
        }))
        : undefined;
    e.recorder.record(e.pod, { ...backOff, reason: "Refused" });
    await e.recorder.flush();
    assert.deepEqual(e.errors.map(([, c]) => [c.phase, c.kind, c.retryInMs !== undefined]), [
      ["event", "invalid", false],
    ]);
    assert.equal(e.recorder.health().failed, 1);
    e.intercept = undefined;
    await e.close();
  });

  test("a series whose Event is gone is created again", async () => {
    const e = env();
    e.recorder.start();
    e.recorder.record(e.pod, backOff);
    await e.recorder.flush();
    const [first] = eventsOf(e);
    e.cluster.delete(eventsV1, { namespace: "default", name: first!.metadata.name! });
    e.recorder.record(e.pod, backOff);
    await e.recorder.flush();
    const [again] = eventsOf(e);
    assert.equal(again?.metadata.name, first?.metadata.name);
    assert.equal(again?.series?.count, 2);
    await e.close();
  });

  test("without events.k8s.io/v1 (discovery 404), core v1 Events are written", async () => {
    const e = env({ servesEventsV1: false });
    e.recorder.start();
    for (let i = 0; i < 3; i++) {
      e.recorder.record(e.pod, { ...backOff, note: `n${i}` });
      await e.clock.advance(1_000);
    }
    await e.recorder.stop();
    assert.equal(e.recorder.health().api, "v1");
    const [event] = e.cluster.list(coreEvents, { namespace: "default" }) as (KubeObject & {
      involvedObject: Record<string, string>;
      message: string;
      count: number;
      source: { component: string };
      firstTimestamp: string;
      lastTimestamp: string;
    })[];
    assert.ok(event);
    assert.equal(event.involvedObject.name, "web");
    assert.equal(event.involvedObject.kind, "Pod");
    assert.equal(event.message, "n0");
    assert.equal(event.count, 3);
    assert.equal(event.source.component, "example.com/web-controller");
    assert.equal(event.firstTimestamp, "2026-06-01T08:00:00Z");
    assert.equal(event.lastTimestamp, "2026-06-01T08:00:02Z");
    e.cluster.close();
  });

  test("records before start wait for it; records after stop are dropped; api can be forced", async () => {
    const e = env({ api: "v1" });
    e.recorder.record(e.pod, backOff);
    assert.equal(e.recorder.health().queued, 1);
    e.recorder.start();
    await e.recorder.flush();
    assert.equal(e.cluster.list(coreEvents).length, 1);
    assert.equal(
      e.cluster.requests.some((r) => r.path === "/apis/events.k8s.io/v1"),
      false,
      "no discovery when the api is given",
    );
    await e.recorder.stop();
    e.recorder.record(e.pod, { ...backOff, reason: "Late" });
    assert.equal(e.recorder.health().dropped, 1);
    e.cluster.close();
  });

  test("bad events and options are TypeErrors; notes are cut to 1024 bytes", async () => {
    const e = env();
    assert.throws(() => e.recorder.record(e.pod, { ...backOff, type: "Error" as never }), {
      name: "TypeError",
      message: /type/,
    });
    assert.throws(() => e.recorder.record(e.pod, { ...backOff, reason: "" }), /reason/);
    assert.throws(() => e.recorder.record(e.pod, { ...backOff, action: "x".repeat(129) }), {
      name: "RangeError",
      message: /action/,
    });
    assert.throws(
      () =>
        e.recorder.record({ metadata: { name: "x" } }, {
          type: "Normal",
          reason: "R",
          action: "A",
        }),
      /resource/,
    );
    assert.throws(
      () => new EventRecorder({ client: e.client, reportingController: "not a name" }),
      /reportingController/,
    );
    assert.throws(
      () => new EventRecorder({ client: e.client, reportingController: "a.io/b", maxQueued: 0 }),
      /maxQueued/,
    );
    e.recorder.start();
    e.recorder.record(e.pod, { ...backOff, note: "é".repeat(600) });
    await e.recorder.flush();
    const note = eventsOf(e)[0]!.note;
    assert.equal(new TextEncoder().encode(note).length, 1024);
    assert.equal(note, "é".repeat(512));
    await e.close();
  });
});
