// Read-your-writes: an informer resolves waitForResourceVersion(rv) once its cache has seen that
// resource version, ordering versions as KEP-5504 allows, and says clearly when it cannot.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { configmaps, pods } from "../../src/client/resource.ts";
import { ResourceVersionNotComparableError } from "../../src/client/compare_resource_version.ts";
import { closed, env, pod } from "../_informer_env.ts";

/** Whether a promise has settled, and how. */
function track(p: Promise<void>): { state: () => string } {
  let state = "pending";
  p.then(() => (state = "resolved"), (e: unknown) => (state = `rejected: ${String(e)}`));
  return { state: () => state };
}

describe("SharedInformer.waitForResourceVersion", () => {
  test("resolves once the cache has seen a write, and the store then shows it", async () => {
    const e = env();
    const inf = e.informer({ resource: pods });
    inf.start();
    await inf.waitForSync();
    e.cluster.faults.stall(); // the watch is slow to deliver the write
    const written = e.cluster.create(pods, pod("a", "p1"));
    const rv = written.metadata.resourceVersion!;
    const waiting = inf.waitForResourceVersion(rv);
    const state = track(waiting);
    await e.clock.flush();
    assert.equal(state.state(), "pending");
    assert.equal(inf.store.get("a/p1"), undefined, "the cache has not seen it yet");
    e.cluster.faults.resume();
    await waiting;
    assert.equal(inf.store.get("a/p1")?.metadata.resourceVersion, rv);
    await inf.waitForResourceVersion(rv); // an older or equal version: at once
    await closed(e);
  });

  test("waits for the first list before it resolves", async () => {
    const e = env();
    const written = e.cluster.create(pods, pod("a", "p1"));
    const inf = e.informer({ resource: pods });
    const waiting = track(inf.waitForResourceVersion(written.metadata.resourceVersion!));
    await e.clock.flush();
    assert.equal(waiting.state(), "pending", "not started: nothing seen");
    inf.start();
    await inf.waitForSync();
    await e.clock.flush();
    assert.equal(waiting.state(), "resolved");
    await closed(e);
  });

  test("a version the write never reaches waits; aborting the signal rejects with its reason", async () => {
    const e = env();
    const inf = e.informer({ resource: pods });
    inf.start();
    await inf.waitForSync();
    const ac = new AbortController();
    const waiting = inf.waitForResourceVersion("999999", { signal: ac.signal });
    const state = track(waiting);
    await e.clock.flush();
    assert.equal(state.state(), "pending");
    ac.abort(new Error("gave up"));
    await assert.rejects(waiting, /gave up/);
    await closed(e);
  });

  test("stopping the informer rejects a waiter with an Error that says so", async () => {
    const e = env();
    const inf = e.informer({ resource: pods });
    inf.start();
    await inf.waitForSync();
    const waiting = inf.waitForResourceVersion("999999");
    await inf.stop();
    await assert.rejects(waiting, /informer stopped before it saw resource version 999999/);
    await closed(e);
  });

  for (const bad of ["", "0", "007", "abc"]) {
    test(`${JSON.stringify(bad)} is refused with a ResourceVersionNotComparableError`, async () => {
      const e = env();
      const inf = e.informer({ resource: configmaps });
      await assert.rejects(inf.waitForResourceVersion(bad), ResourceVersionNotComparableError);
      await closed(e);
    });
  }

  test("a server whose resource versions are not integers: a typed error once the cache syncs", async () => {
    // An aggregated API server may send opaque versions: its lists say "v-abc".
    const e = env({
      fetch: (cluster) => async (request) => {
        const response = await cluster.fetch(request);
        if (new URL(request.url).searchParams.has("watch") || !response.ok) return response;
        const list = await response.json();
        list.metadata.resourceVersion = "v-abc";
        return Response.json(list);
      },
    });
    const inf = e.informer({ resource: configmaps });
    inf.start();
    const waiting = inf.waitForResourceVersion("5");
    await inf.waitForSync();
    await assert.rejects(waiting, (error: unknown) => {
      assert.ok(error instanceof ResourceVersionNotComparableError);
      assert.equal(error.resourceVersion, "v-abc");
      assert.match(error.message, /server's resource version "v-abc"/);
      return true;
    });
    await inf.stop();
    e.errors.length = 0; // its watches from "v-abc" were refused: not what this test is about
    await closed(e);
  });
});
