// Releasing one informer of a shared factory: leases are reference-counted; the last release
// stops the informer, empties its cache and makes the factory forget it.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { configmaps, pods } from "../../src/client/resource.ts";
import { SharedInformerFactory } from "../../src/cache/factory.ts";
import { closed, env, pod } from "../_informer_env.ts";

describe("SharedInformerFactory.acquire", () => {
  test("the informer lives while any lease holds it; the last release stops it and frees its cache", async () => {
    const e = env();
    e.cluster.create(pods, pod("a", "p1"));
    const factory = new SharedInformerFactory(e.client, { clock: e.clock });
    factory.start();
    const first = factory.acquire(pods);
    const second = factory.acquire(pods);
    assert.equal(first.informer, second.informer);
    const informer = first.informer;
    await informer.waitForSync();
    await e.clock.flush();
    assert.equal(e.cluster.openWatches, 1);
    await first.release();
    await first.release(); // once only: the second lease still holds it
    assert.equal(informer.health().state, "running");
    assert.deepEqual(factory.informers, [informer]);
    await second.release();
    assert.equal(informer.health().state, "stopped");
    assert.equal(informer.store.size, 0, "its cache is emptied");
    assert.deepEqual(factory.informers, []);
    assert.equal(e.cluster.openWatches, 0, "its watch is closed");
    const again = factory.acquire(pods); // a new informer
    assert.notEqual(again.informer, informer);
    await again.informer.waitForSync();
    assert.equal(again.informer.store.size, 1);
    await factory.stop();
    await closed(e);
  });

  test("an informer handed out by informerFor() is never stopped by releases", async () => {
    const e = env();
    const factory = new SharedInformerFactory(e.client, { clock: e.clock });
    const pinned = factory.informerFor(configmaps);
    factory.start();
    {
      await using lease = factory.acquire(configmaps);
      assert.equal(lease.informer, pinned);
    }
    await pinned.waitForSync();
    assert.notEqual(pinned.health().state, "stopped");
    assert.deepEqual(factory.informers, [pinned]);
    await factory.stop();
    await closed(e);
  });
});
