// The fleet's contract on healthy clusters: keys, indexes, the sync wait, engagement and
// disengagement, per-cluster options and checkpoints, health and metrics.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { pods } from "../../src/client/resource.ts";
import type { KubeObject } from "../../src/client/types.ts";
import { fleetKey, splitFleetKey } from "../../src/fleet/cluster_key.ts";
import { failureOf } from "../../src/fleet/cluster_state.ts";
import { Fleet } from "../../src/fleet/fleet.ts";
import type { FleetEvent } from "../../src/fleet/fleet_event.ts";
import { fleetMetrics } from "../../src/fleet/fleet_metrics.ts";
import { CLUSTER_INDEX, CLUSTER_NAMESPACE_INDEX } from "../../src/fleet/fleet_store.ts";
import { blackhole, clientOf, collect, ManualClock, replay, server } from "./_fleet_env.ts";

const pod = (namespace: string, name: string, app = "web") => ({
  metadata: { namespace, name, labels: { app } },
});

describe("fleet keys", () => {
  test("a fleet key is cluster|namespace/name, or cluster|name when cluster-scoped", () => {
    assert.equal(fleetKey("a", pod("ns", "p")), "a|ns/p");
    assert.equal(fleetKey("a", { metadata: { name: "node-1" } }), "a|node-1");
    assert.deepEqual(splitFleetKey("a|node-1"), {
      cluster: "a",
      key: "node-1",
      namespace: "",
      name: "node-1",
    });
    assert.throws(() => fleetKey("a|b", pod("ns", "p")), /without "\|"/);
    assert.throws(() => splitFleetKey("ns/p"), /not a fleet key/);
  });

  test("errors are filed into failure states by their kind", () => {
    assert.equal(failureOf("forbidden"), "forbidden");
    assert.equal(failureOf("unauthorized"), "forbidden");
    assert.equal(failureOf("not-found"), "missing");
    assert.equal(failureOf("network"), "unreachable");
    assert.equal(failureOf("inactivity"), "unreachable");
    assert.equal(failureOf("expired"), undefined, "a relist is no failure");
    assert.equal(failureOf("handler"), undefined);
  });
});

describe("the merged view", () => {
  async function twoClusters(indexers = {}) {
    const clock = new ManualClock();
    const a = server(clock, 0);
    const b = server(clock, 0);
    a.create(pods, pod("web", "api"));
    a.create(pods, pod("db", "pg", "db"));
    b.create(pods, pod("web", "api"));
    const fleet = new Fleet<KubeObject>({
      resource: pods,
      clock,
      indexers: { app: (p) => [p.metadata.labels?.["app"] ?? ""], ...indexers },
    });
    fleet.engage("a", clientOf("a", a.fetch));
    fleet.engage("b", clientOf("b", b.fetch));
    await fleet.waitForSync();
    const close = async () => {
      await fleet.stop();
      a.close();
      b.close();
      assert.equal(clock.pendingTimers, 0);
    };
    return { clock, a, b, fleet, close };
  }

  test("indexes by cluster, by cluster and namespace, by namespace and user indexes span the fleet", async () => {
    const { fleet, close } = await twoClusters();
    const names = (objects: KubeObject[]) => objects.map((o) => o.metadata.name).sort();
    assert.deepEqual(fleet.store.listKeys().sort(), ["a|db/pg", "a|web/api", "b|web/api"]);
    assert.deepEqual(names(fleet.store.byIndex(CLUSTER_INDEX, "a")), ["api", "pg"]);
    assert.deepEqual(fleet.store.indexKeys(CLUSTER_NAMESPACE_INDEX, "a|web"), ["a|web/api"]);
    assert.deepEqual(fleet.store.indexKeys("namespace", "web").sort(), ["a|web/api", "b|web/api"]);
    assert.deepEqual(fleet.store.indexKeys("app", "db"), ["a|db/pg"]);
    assert.deepEqual(fleet.store.listIndexFuncValues(CLUSTER_INDEX).sort(), ["a", "b"]);
    assert.deepEqual(
      fleet.store.listIndexFuncValues(CLUSTER_NAMESPACE_INDEX).sort(),
      ["a|db", "a|web", "b|web"],
    );
    assert.equal(fleet.store.get("b|web/api")?.metadata.name, "api");
    assert.equal(fleet.store.get("web/api"), undefined, "a plain key is no fleet key");
    assert.throws(() => fleet.store.byIndex("nope", "x"), /unknown index "nope"/);
    assert.throws(() => fleet.store.addIndexers({ cluster: () => [] }), /built in/);
    assert.equal(fleet.lister.list({ labelSelector: "app=web" }).length, 2);
    assert.equal(fleet.lister.namespace("db").length, 1);
    assert.equal(fleet.lister.cluster("b").get("web/api")?.metadata.name, "api");
    assert.equal(fleet.lister.cluster("zz").list().length, 0);
    await close();
  });

  test("an index added later applies to every current and future cluster", async () => {
    const { clock, fleet, close } = await twoClusters();
    fleet.store.addIndexers({ name: (p) => [p.metadata.name ?? ""] });
    assert.deepEqual(fleet.store.indexKeys("name", "api").sort(), ["a|web/api", "b|web/api"]);
    const c = server(clock, 0);
    c.create(pods, pod("web", "api"));
    fleet.engage("c", clientOf("c", c.fetch));
    await fleet.waitForSync({ clusters: ["c"] });
    assert.deepEqual(fleet.store.indexKeys("name", "api").sort(), [
      "a|web/api",
      "b|web/api",
      "c|web/api",
    ]);
    await close();
    c.close();
  });

  test("a throwing index function is reported and leaves the other objects in", async () => {
    const clock = new ManualClock();
    const a = server(clock, 0);
    a.create(pods, pod("web", "ok"));
    a.create(pods, { metadata: { namespace: "web", name: "bad", labels: { broken: "yes" } } });
    const errors: string[] = [];
    await using fleet = new Fleet<KubeObject>({
      resource: pods,
      clock,
      indexers: {
        strict: (p) => {
          if (p.metadata.labels?.["broken"]) throw new Error("cannot index a broken pod");
          return [""];
        },
      },
      onError: (error, { kind, cluster }) => errors.push(`${cluster} ${kind} ${String(error)}`),
    });
    const feed = collect<FleetEvent<KubeObject>>(fleet.events());
    fleet.engage("a", clientOf("a", a.fetch));
    await fleet.waitForSync();
    assert.deepEqual(fleet.store.listKeys(), ["a|web/ok"]);
    assert.deepEqual(errors, ["a handler Error: cannot index a broken pod"]);
    assert.equal(fleet.state("a"), "synced", "a handler error is no cluster failure");
    // Fixed: the pod comes into the view, and the stream says so with an add.
    a.update(pods, { metadata: { namespace: "web", name: "bad", labels: { broken: "" } } });
    await clock.flush();
    assert.deepEqual(fleet.store.listKeys().sort(), ["a|web/bad", "a|web/ok"]);
    assert.deepEqual(replay(feed.events), ["a|web/bad", "a|web/ok"]);
    assert.ok(feed.events.some((ev) => ev.type === "add" && ev.object.metadata.name === "bad"));
    await fleet.stop();
    await feed.done;
    a.close();
  });

  test("disengaging frees the cluster's part and tells the event stream", async () => {
    const { clock, a, fleet, close } = await twoClusters();
    const feed = collect<FleetEvent<KubeObject>>(fleet.events());
    await fleet.disengage("a");
    a.create(pods, pod("web", "late"));
    await clock.flush();
    assert.deepEqual(fleet.store.listKeys(), ["b|web/api"]);
    assert.equal(fleet.informer("a"), undefined);
    await close();
    await feed.done;
    assert.deepEqual(replay(feed.events), []);
    const last = feed.events.filter((ev) => ev.cluster === "a").at(-1);
    assert.deepEqual(last, { type: "state", cluster: "a", state: "removed", reason: "disengaged" });
  });

  test("a consumer that falls maxBacklog live events behind is ended with an error", async () => {
    const { clock, a, fleet, close } = await twoClusters();
    const events = fleet.events({ maxBacklog: 2 });
    for (let i = 0; i < 5; i++) await events.next(); // the replay: 3 adds, 2 synced
    for (let i = 0; i < 3; i++) a.create(pods, pod("burst", `p${i}`));
    await clock.flush();
    await assert.rejects(events.next(), /fell 2 events behind \(maxBacklog\)/);
    assert.equal((await events.next()).done, true);
    // Starting over gives the current view.
    const again = fleet.events();
    const keys: string[] = [];
    for (let i = 0; i < 8; i++) { // 6 adds, 2 synced
      const { value } = await again.next();
      if (value?.type === "add") keys.push(fleetKey(value.cluster, value.object));
    }
    await again.return!();
    assert.equal(keys.length, 6);
    assert.throws(() => fleet.events({ maxBacklog: 0 }), /maxBacklog/);
    await close();
  });

  test("engaging a name again replaces the cluster", async () => {
    const { clock, fleet, close } = await twoClusters();
    const other = server(clock, 0);
    other.create(pods, pod("x", "y"));
    fleet.engage("a", clientOf("a", other.fetch));
    await fleet.waitForSync();
    assert.deepEqual(fleet.store.listKeys().sort(), ["a|x/y", "b|web/api"]);
    await close();
    other.close();
  });
});

describe("connectors", () => {
  test("a connector's connections are closed on disengage, also when it answers after it", async () => {
    const clock = new ManualClock();
    const a = server(clock, 1);
    const closed: string[] = [];
    await using fleet = new Fleet<KubeObject>({ resource: pods, clock });
    fleet.engage(
      "a",
      () => Promise.resolve({ server: "http://a", fetch: a.fetch, close: () => closed.push("a") }),
    );
    assert.equal(fleet.state("a"), "connecting");
    await fleet.waitForSync();
    await fleet.disengage("a");
    assert.deepEqual(closed, ["a"]);
    let answer: (options: { server: string; close(): void }) => void = () => {};
    fleet.engage("late", () => new Promise((resolve) => (answer = resolve)));
    await fleet.disengage("late");
    answer({ server: "http://late", close: () => closed.push("late") });
    await clock.flush();
    assert.deepEqual(closed, ["a", "late"], "a late answer is closed at once");
    assert.equal(fleet.informer("late"), undefined);
    a.close();
  });
});

describe("the sync wait", () => {
  test("min counts synced clusters; settle counts failed ones as done; neither waits for a hung cluster", async () => {
    const clock = new ManualClock();
    const a = server(clock, 1);
    const b = server(clock, 1, { authorization: [] });
    const hole = { count: 0, aborted: 0 };
    await using fleet = new Fleet<KubeObject>({ resource: pods, clock });
    fleet.engage("a", clientOf("a", a.fetch));
    fleet.engage("b", clientOf("b", b.fetch));
    fleet.engage("hung", clientOf("hung", blackhole(hole)));
    assert.deepEqual(await fleet.waitForSync({ min: 1 }), ["a"]);
    assert.deepEqual(await fleet.waitForSync({ clusters: ["a", "b"], settle: true }), ["a"]);
    const ac = new AbortController();
    const all = fleet.waitForSync({ signal: ac.signal });
    await clock.flush();
    ac.abort(new DOMException("gave up", "TimeoutError"));
    await assert.rejects(all, (error: Error) => {
      // What it waited for, where those clusters stand, and their last error as the cause.
      assert.equal(error.name, "TimeoutError");
      assert.match(
        error.message,
        /^fleet pods: clusters b \(forbidden\), hung \(syncing\) not synced after 0 ms: last error .*403 Forbidden/,
      );
      assert.equal((error.cause as { code?: unknown }).code, 403);
      return true;
    });
    const some = new AbortController();
    const three = fleet.waitForSync({ min: 3, signal: some.signal });
    some.abort(new DOMException("gave up", "TimeoutError"));
    await assert.rejects(
      three,
      /^TimeoutError: fleet pods: 1 of the 3 clusters wanted synced \(b \(forbidden\), hung \(syncing\)\) after 0 ms/,
    );
    assert.throws(() => fleet.waitForSync({ min: -1 }), /options\.min/);
    assert.throws(() => fleet.waitForSync({ min: 1, clusters: [] }), /exclude each other/);
    const later = fleet.waitForSync({ clusters: ["later"] });
    const c = server(clock, 2);
    fleet.engage("later", clientOf("later", c.fetch));
    assert.ok((await later).includes("later"), "a name engaged after the wait began");
    await fleet.stop();
    for (const s of [a, b, c]) s.close();
  });
});

describe("the sync deadline", () => {
  test("syncTimeoutMs turns a cluster that has not synced unreachable, so a settle wait ends", async () => {
    const clock = new ManualClock();
    const a = server(clock, 1);
    const hole = { count: 0, aborted: 0 };
    await using fleet = new Fleet<KubeObject>({ resource: pods, clock, syncTimeoutMs: 5_000 });
    fleet.engage("a", clientOf("a", a.fetch));
    fleet.engage("hung", clientOf("hung", blackhole(hole)));
    let settled: string[] | undefined;
    const wait = fleet.waitForSync({ settle: true }).then((names) => (settled = names));
    await clock.advance(4_999);
    assert.equal(settled, undefined);
    await clock.advance(1);
    await wait;
    assert.deepEqual(settled, ["a"]);
    const hung = fleet.health().clusters.find((c) => c.name === "hung");
    assert.equal(hung?.state, "unreachable");
    assert.equal(hung?.reason, "inactivity: not synced 5000 ms after it was engaged");
    assert.equal(fleet.state("a"), "synced", "a cluster that synced in time is left alone");
    await fleet.stop();
    assert.equal(clock.pendingTimers, 0);
    a.close();
  });
});

describe("per-cluster options", () => {
  test("a transform per cluster, and a throwing one never fails its cluster", async () => {
    const clock = new ManualClock();
    const a = server(clock, 0);
    const b = server(clock, 0);
    a.create(pods, pod("web", "api"));
    b.create(pods, pod("web", "api"));
    const errors: string[] = [];
    await using fleet = new Fleet<KubeObject>({
      resource: pods,
      clock,
      informerOptions: (cluster) => ({
        transform: (p) => {
          if (cluster === "b") throw new Error("cannot shape");
          return { ...p, metadata: { ...p.metadata, annotations: { from: cluster } } };
        },
      }),
      onError: (error, { kind, cluster }) => errors.push(`${cluster} ${kind} ${String(error)}`),
    });
    fleet.engage("a", clientOf("a", a.fetch));
    fleet.engage("b", clientOf("b", b.fetch));
    await fleet.waitForSync();
    assert.equal(fleet.store.get("a|web/api")?.metadata.annotations?.["from"], "a");
    assert.equal(fleet.store.get("b|web/api"), undefined, "the object the transform refused");
    assert.deepEqual(errors, ["b transform Error: cannot shape"]);
    assert.equal(fleet.state("b"), "synced");
    a.close();
    b.close();
  });

  test("checkpoints per cluster resume each cluster with no LIST", async () => {
    const clock = new ManualClock();
    const a = server(clock, 3);
    const first = new Fleet<KubeObject>({ resource: pods, clock });
    first.engage("a", clientOf("a", a.fetch));
    await first.waitForSync();
    const saved = JSON.parse(JSON.stringify(first.checkpoints({ includeObjects: true })));
    await first.stop();
    a.clearRequests();
    await using second = new Fleet<KubeObject>({ resource: pods, clock });
    second.engage("a", clientOf("a", a.fetch), { informer: { resumeFrom: saved["a"] } });
    await second.waitForSync();
    assert.equal(second.store.size, 3);
    assert.equal(a.requests.filter((r) => r.verb === "list").length, 0);
    a.close();
  });
});

describe("health and metrics", () => {
  test("health counts states; metrics show one series per cluster and state", async () => {
    const clock = new ManualClock();
    const a = server(clock, 2);
    const b = server(clock, 1, { authorization: [] });
    await using fleet = new Fleet<KubeObject>({ resource: pods, clock });
    fleet.engage("a", clientOf("a", a.fetch));
    fleet.engage("b", clientOf("b", b.fetch));
    await fleet.waitForSync({ settle: true });
    const h = fleet.health();
    assert.deepEqual(h.states, { synced: 1, forbidden: 1 });
    assert.equal(h.objects, 2);
    const text = fleetMetrics(() => fleet.health()).render();
    assert.match(text, /^kinformer_fleet_cluster_state\{cluster="b",state="forbidden"\} 1$/m);
    assert.match(text, /^kinformer_fleet_cluster_stale\{cluster="b"\} 1$/m);
    assert.match(text, /^kinformer_fleet_clusters\{state="missing"\} 0$/m);
    assert.match(
      text,
      /^kinformer_fleet_cluster_last_error_timestamp_seconds\{cluster="b",kind="forbidden"\} /m,
    );
    const response = fleetMetrics(() => fleet.health()).handler(new Request("http://x/metrics"));
    assert.equal(response.status, 200);
    a.close();
    b.close();
  });
});
