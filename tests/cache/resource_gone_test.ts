// A resource that goes away (a CRD deleted: 404 on list and watch): the informer reports it once
// (kind not-found), says so in health(), retries at a bounded rate, and recovers when the CRD is
// created again.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { customresourcedefinitions } from "../../src/client/builtin_resources.ts";
import { closed, env } from "../_informer_env.ts";
import { gadget, gadgetCrd, gadgets } from "./_gadgets.ts";

describe("an informer whose resource goes away", () => {
  test("reports not-found once, shows it in health(), retries at a bounded rate, recovers when the CRD returns", async () => {
    const e = env();
    e.cluster.create(customresourcedefinitions, gadgetCrd());
    await e.clock.flush();
    e.cluster.create(gadgets, gadget("g1"));
    const relists: string[] = [];
    const inf = e.informer({
      resource: gadgets,
      metrics: { onRelist: (reason) => void relists.push(reason) },
    });
    inf.start();
    await inf.waitForSync();
    assert.equal(inf.health().resource, "served");

    await e.clock.flush(); // watching
    e.cluster.delete(customresourcedefinitions, { name: "gadgets.demo.io" });
    await e.clock.flush();
    assert.equal(inf.store.size, 0, "the CRD's deletion deleted its objects first");
    e.cluster.clearRequests();
    const tenMinutes = 10 * 60_000;
    for (let t = 0; t < tenMinutes; t += 5_000) await e.clock.advance(5_000);
    assert.deepEqual(e.errors.map((x) => x.kind), ["not-found"], "reported once");
    const health = inf.health();
    assert.equal(health.resource, "not-found");
    assert.equal(health.errors["not-found"], 1);
    const requests = e.cluster.requests.filter((r) => r.path.startsWith("/apis/demo.io/")).length;
    assert.ok(requests <= tenMinutes / 30_000 + 6, `${requests} requests in ten minutes`);
    assert.ok(requests >= 10, `still retrying: ${requests} requests`);

    e.cluster.create(customresourcedefinitions, gadgetCrd());
    await e.clock.flush();
    e.cluster.create(gadgets, gadget("g2"));
    for (let t = 0; t < 60 && inf.health().resource !== "served"; t++) {
      await e.clock.advance(1_000);
    }
    await e.clock.flush();
    assert.equal(inf.health().resource, "served");
    assert.deepEqual(inf.store.list().map((g) => g.metadata.name), ["g2"]);
    e.cluster.create(gadgets, gadget("g3")); // watching again
    await e.clock.flush();
    assert.deepEqual(inf.store.list().map((g) => g.metadata.name).sort(), ["g2", "g3"]);
    assert.deepEqual(e.errors.map((x) => x.kind), ["not-found"]);
    assert.deepEqual(relists, ["not-found"], "the relist is counted with its reason");
    await closed(e);
  });

  test("a resource gone from the start: reported once, then the informer syncs when it appears", async () => {
    const e = env();
    const inf = e.informer({ resource: gadgets });
    inf.start();
    for (let t = 0; t < 120; t++) await e.clock.advance(1_000);
    assert.deepEqual(e.errors.map((x) => x.kind), ["not-found"]);
    assert.equal(inf.health().resource, "not-found");
    assert.equal(inf.hasSynced(), false);
    e.cluster.create(customresourcedefinitions, gadgetCrd());
    await e.clock.flush();
    e.cluster.create(gadgets, gadget("g1"));
    for (let t = 0; t < 60 && !inf.hasSynced(); t++) await e.clock.advance(1_000);
    assert.equal(inf.hasSynced(), true);
    assert.deepEqual(inf.store.list().map((g) => g.metadata.name), ["g1"]);
    await closed(e);
  });
  test("a 404 after a different error is reported again (the resource is still gone, and the other error said nothing of it)", async () => {
    // The simulated cluster answers 404 before its armed faults: a proxy in front fails once.
    let failOnce = false;
    const e = env({
      fetch: (cluster) => (request) => {
        if (!failOnce) return cluster.fetch(request);
        failOnce = false;
        return Promise.resolve(new Response("upstream down", { status: 500 }));
      },
    });
    const inf = e.informer({ resource: gadgets });
    inf.start();
    for (let t = 0; t < 120; t++) await e.clock.advance(1_000);
    assert.deepEqual(e.errors.map((x) => x.kind), ["not-found"]);
    failOnce = true;
    for (let t = 0; t < 120; t++) await e.clock.advance(1_000);
    assert.deepEqual(e.errors.map((x) => x.kind), ["not-found", "server", "not-found"]);
    assert.equal(inf.health().resource, "not-found");
    await closed(e);
  });
});
