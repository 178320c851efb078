// The fleet inventory example (examples/fleet_inventory.ts) on simulated clusters and a
// ManualClock: its lines match the servers, and its controller's list of failed pods follows
// the fleet, including a cluster that leaves.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { pods } from "../../src/client/resource.ts";
import { fleetKey } from "../../src/fleet/cluster_key.ts";
import { staticClusters } from "../../src/fleet/cluster_provider.ts";
import { render, startInventory } from "../../examples/fleet_inventory.ts";
import { clientOf, ManualClock, server } from "./_fleet_env.ts";

const phaseOf = (pod: unknown): string | undefined =>
  (pod as { status?: { phase?: string } }).status?.phase;

describe("example: fleet inventory", () => {
  test("lists every cluster's pods and the fleet's failed pods, live", async () => {
    const clock = new ManualClock();
    const eu = server(clock, 30, { seed: 1 });
    const us = server(clock, 20, { seed: 2 });
    const locked = server(clock, 5, { authorization: [] });
    const stop = new AbortController();
    const inventory = startInventory({
      provider: staticClusters({
        eu: clientOf("eu", eu.fetch),
        us: clientOf("us", us.fetch),
        locked: clientOf("locked", locked.fetch),
      }),
      signal: stop.signal,
      clock,
    });
    await inventory.fleet.waitForSync({ settle: true });
    await clock.flush();
    assert.deepEqual(inventory.lines(), [
      { cluster: "eu", state: "synced", pods: 30, stale: false },
      { cluster: "us", state: "synced", pods: 20, stale: false },
      { cluster: "locked", state: "forbidden", pods: 0, stale: true },
    ]);
    const failedOn = (name: string, s: typeof eu) =>
      s.list(pods).filter((p) => phaseOf(p) === "Failed").map((p) => fleetKey(name, p));
    const expected = [...failedOn("eu", eu), ...failedOn("us", us)].sort();
    assert.ok(expected.length > 0, "the fixtures include failed pods");
    assert.deepEqual([...inventory.failed].sort(), expected);
    assert.equal(inventory.fleet.store.list()[0]?.["spec" as never], undefined, "specs dropped");
    assert.match(render(inventory), /^locked +forbidden +0 pods \(stale\)$/m);

    // A failed pod of eu is replaced by a running one; us leaves the fleet.
    const [first] = failedOn("eu", eu);
    const name = first!.split("/")[1]!;
    const namespace = first!.slice(3).split("/")[0]!;
    eu.delete(pods, { namespace, name });
    await inventory.fleet.disengage("us");
    await clock.flush();
    assert.deepEqual([...inventory.failed].sort(), failedOn("eu", eu).sort());
    stop.abort();
    await inventory.done;
    for (const s of [eu, us, locked]) s.close();
    assert.equal(clock.pendingTimers, 0);
  });
});
