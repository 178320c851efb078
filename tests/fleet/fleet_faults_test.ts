// A fleet of simulated clusters where some misbehave: one blackholed, one answering 403, one
// removed while syncing, one that goes away and comes back, one without the resource. The
// others sync and stay live throughout, and the merged view is the union of the servers.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { pods } from "../../src/client/resource.ts";
import type { KubeObject } from "../../src/client/types.ts";
import { Fleet } from "../../src/fleet/fleet.ts";
import type { FleetEvent } from "../../src/fleet/fleet_event.ts";
import type { ErrorContext } from "../../src/util/error_context.ts";
import {
  blackhole,
  clientOf,
  collect,
  link,
  ManualClock,
  notFound,
  replay,
  server,
  serverKeys,
} from "./_fleet_env.ts";

const INACTIVITY_MS = 10_000;

function setup() {
  const clock = new ManualClock();
  // Bookmarks within the idle limit, as the API server sends them (about once a minute).
  const bookmarkIntervalMs = INACTIVITY_MS / 2;
  const healthy = [
    server(clock, 5, { seed: 1, bookmarkIntervalMs }),
    server(clock, 7, { seed: 2, bookmarkIntervalMs }),
  ];
  const forbidden = server(clock, 3, { authorization: [] });
  const flakyServer = server(clock, 4, { seed: 3, bookmarkIntervalMs });
  const flaky = link(flakyServer);
  const hole = { count: 0, aborted: 0 };
  const slow = { count: 0, aborted: 0 };
  const errors: ErrorContext[] = [];
  const fleet = new Fleet<KubeObject>({
    resource: pods,
    clock,
    informerOptions: () => ({ inactivityTimeoutMs: INACTIVITY_MS, backoff: { jitter: "none" } }),
    onError: (_error, context) => void errors.push(context),
  });
  const feed = collect<FleetEvent<KubeObject>>(fleet.events());
  fleet.engage("h0", clientOf("h0", healthy[0]!.fetch));
  fleet.engage("h1", clientOf("h1", healthy[1]!.fetch));
  fleet.engage("blackholed", clientOf("blackholed", blackhole(hole)));
  fleet.engage("forbidden", clientOf("forbidden", forbidden.fetch));
  const removal = new AbortController();
  fleet.engage("removed", clientOf("removed", blackhole(slow)), { signal: removal.signal });
  fleet.engage("flaky", clientOf("flaky", flaky.fetch));
  fleet.engage("missing", clientOf("missing", notFound));
  const close = async (): Promise<void> => {
    await fleet.stop();
    await feed.done;
    for (const s of [...healthy, forbidden, flakyServer]) s.close();
    assert.equal(clock.pendingTimers, 0, "no timer left after stop");
  };
  return { clock, fleet, healthy, flaky, flakyServer, hole, slow, removal, errors, feed, close };
}

/** The union of the servers the fleet can reach, as fleet keys. */
function union(e: ReturnType<typeof setup>): string[] {
  return [
    ...serverKeys("h0", e.healthy[0]!),
    ...serverKeys("h1", e.healthy[1]!),
    ...serverKeys("flaky", e.flakyServer),
  ].sort();
}

describe("fleet: N clusters, some failing", () => {
  test("the good clusters sync at once; the others get their state; none blocks another", async () => {
    const e = setup();
    const synced = await e.fleet.waitForSync({ clusters: ["h0", "h1", "flaky"] });
    assert.deepEqual(synced.sort(), ["flaky", "h0", "h1"]);
    await e.clock.flush();
    assert.equal(e.fleet.state("forbidden"), "forbidden");
    assert.equal(e.fleet.state("missing"), "missing");
    assert.equal(e.fleet.state("blackholed"), "syncing", "a hanging cluster is still syncing");
    assert.deepEqual(e.fleet.store.listKeys().sort(), union(e));
    const health = e.fleet.health();
    const forbidden = health.clusters.find((c) => c.name === "forbidden");
    assert.equal(forbidden?.lastError?.kind, "forbidden");
    assert.match(forbidden?.reason ?? "", /^forbidden: /);
    assert.equal(health.clusters.find((c) => c.name === "missing")?.lastError?.kind, "not-found");
    assert.deepEqual(
      [...new Set(e.errors.map((c) => c.cluster))].sort(),
      ["forbidden", "missing"],
    );
    await e.close();
  });

  test("a blackholed cluster turns unreachable after the idle limit; the others stay live", async () => {
    const e = setup();
    await e.fleet.waitForSync({ clusters: ["h0", "h1", "flaky"] });
    await e.clock.advance(INACTIVITY_MS + 1);
    assert.equal(e.fleet.state("blackholed"), "unreachable");
    assert.equal(
      e.fleet.health().clusters.find((c) => c.name === "blackholed")?.lastError?.kind,
      "inactivity",
    );
    assert.ok(e.hole.aborted >= 1, "the hanging request was abandoned, not leaked");
    e.healthy[0]!.create(pods, { metadata: { namespace: "late", name: "p" } });
    await e.clock.flush();
    assert.ok(e.fleet.store.has("h0|late/p"), "a live cluster's change reaches the view");
    assert.deepEqual(e.fleet.store.listKeys().sort(), union(e));
    await e.close();
    assert.equal(e.hole.aborted, e.hole.count, "every request to the blackhole was aborted");
  });

  test("a cluster removed while syncing frees everything, and a wait naming it rejects", async () => {
    const e = setup();
    const waiting = e.fleet.waitForSync({ clusters: ["removed"] });
    await e.clock.flush();
    assert.equal(e.fleet.state("removed"), "syncing");
    e.removal.abort();
    await assert.rejects(waiting, /cluster "removed" was removed before it synced/);
    await e.clock.flush();
    assert.equal(e.fleet.state("removed"), "removed");
    assert.ok(!e.fleet.clusters().includes("removed"));
    assert.equal(e.slow.aborted, e.slow.count, "its hanging request was aborted");
    assert.equal(e.fleet.informer("removed"), undefined);
    await e.close();
  });

  test("a cluster that goes away turns unreachable, keeps its objects stale, and rejoins", async () => {
    const e = setup();
    await e.fleet.waitForSync({ clusters: ["h0", "h1", "flaky"] });
    e.flaky.down();
    await e.clock.advance(1);
    assert.equal(e.fleet.state("flaky"), "unreachable");
    const flaky = e.fleet.health().clusters.find((c) => c.name === "flaky");
    assert.equal(flaky?.stale, true);
    assert.equal(flaky?.objects, 4, "kept by the default policy");
    e.flakyServer.create(pods, { metadata: { namespace: "back", name: "p" } });
    e.healthy[1]!.create(pods, { metadata: { namespace: "live", name: "p" } });
    await e.clock.advance(5_000);
    assert.ok(e.fleet.store.has("h1|live/p"), "the others stay live meanwhile");
    assert.ok(!e.fleet.store.has("flaky|back/p"));
    e.flaky.up();
    await e.clock.advance(60_000);
    assert.equal(e.fleet.state("flaky"), "synced");
    assert.ok(e.fleet.store.has("flaky|back/p"), "it rejoined with what changed meanwhile");
    assert.deepEqual(e.fleet.store.listKeys().sort(), union(e));
    await e.close();
  });

  test("the merged event stream replays to the merged view", async () => {
    const e = setup();
    await e.fleet.waitForSync({ clusters: ["h0", "h1", "flaky"] });
    e.healthy[0]!.delete(pods, { namespace: "ns-0", name: "pod-000000" });
    e.healthy[1]!.create(pods, { metadata: { namespace: "x", name: "y" } });
    e.removal.abort();
    await e.clock.advance(INACTIVITY_MS + 1);
    assert.deepEqual(replay(e.feed.events), e.fleet.store.listKeys().sort());
    assert.deepEqual(replay(e.feed.events), union(e));
    const states = e.feed.events.filter((ev) => ev.type === "state" && ev.cluster === "blackholed")
      .map((ev) => ev.type === "state" ? ev.state : "");
    assert.deepEqual(states, ["syncing", "unreachable"]);
    await e.close();
  });
});

describe("fleet: the unreachable policy", () => {
  test("deleteAfterMs hides a failed cluster's objects after the grace, and shows them on return", async () => {
    const clock = new ManualClock();
    const a = server(clock, 2, { seed: 1, bookmarkIntervalMs: 5_000 });
    const bServer = server(clock, 3, { seed: 2, bookmarkIntervalMs: 5_000 });
    const b = link(bServer);
    await using fleet = new Fleet<KubeObject>({
      resource: pods,
      clock,
      unreachable: { deleteAfterMs: 30_000 },
      informerOptions: () => ({ backoff: { jitter: "none" } }),
    });
    const feed = collect<FleetEvent<KubeObject>>(fleet.events());
    fleet.engage("a", clientOf("a", a.fetch));
    fleet.engage("b", clientOf("b", b.fetch));
    await fleet.waitForSync();
    b.down();
    await clock.advance(29_000);
    assert.equal(fleet.store.byIndex("cluster", "b").length, 3, "kept within the grace");
    await clock.advance(2_000);
    assert.equal(fleet.store.byIndex("cluster", "b").length, 0, "hidden after it");
    assert.equal(fleet.health().clusters.find((c) => c.name === "b")?.hidden, true);
    assert.deepEqual(replay(feed.events), serverKeys("a", a).sort());
    b.up();
    await clock.advance(60_000);
    assert.equal(fleet.state("b"), "synced");
    assert.equal(fleet.store.byIndex("cluster", "b").length, 3);
    assert.deepEqual(
      replay(feed.events),
      [...serverKeys("a", a), ...serverKeys("b", bServer)].sort(),
    );
    await fleet.stop();
    await feed.done;
    a.close();
    bServer.close();
    assert.equal(clock.pendingTimers, 0);
  });
});
