// A discovery-driven factory: informers start for resources as they appear (a CRD installed,
// matching the filter) and stop when they go, polling discovery on the injected clock, or at
// once when it follows CRDs.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { customresourcedefinitions } from "../../src/client/builtin_resources.ts";
import {
  DEFAULT_DISCOVERY_INTERVAL_MS,
  DiscoveryInformerFactory,
} from "../../src/cache/discovery_informer_factory.ts";
import type { DiscoveredResource } from "../../src/client/discovery.ts";
import { closed, env } from "../_informer_env.ts";
import { gadget, gadgetCrd, gadgets } from "./_gadgets.ts";

const demoOnly = (r: DiscoveredResource): boolean => r.group === "demo.io";

describe("DiscoveryInformerFactory", () => {
  test("starts an informer when a matching CRD is installed and stops it when the CRD goes", async () => {
    const e = env();
    const seen: string[] = [];
    const factory = new DiscoveryInformerFactory(e.client, {
      clock: e.clock,
      filter: demoOnly,
      onAdded: (r) => void seen.push(`added ${r.resource}`),
      onRemoved: (r) => void seen.push(`removed ${r.resource}`),
      onError: (error, ctx) => e.errors.push({ kind: ctx.kind, error }),
    });
    factory.start();
    await e.clock.flush();
    assert.deepEqual([...factory.informers.keys()], []);
    const discoveryReads = () => e.cluster.requests.filter((r) => r.verb === "discovery").length;
    assert.equal(discoveryReads(), 2, "one aggregated read: /api and /apis");

    e.cluster.create(customresourcedefinitions, gadgetCrd());
    await e.clock.flush();
    e.cluster.create(gadgets, gadget("g1"));
    await e.clock.advance(DEFAULT_DISCOVERY_INTERVAL_MS);
    assert.deepEqual(seen, ["added gadgets"]);
    const informer = factory.informers.get("demo.io/v1/gadgets")!;
    await informer.waitForSync();
    assert.deepEqual(informer.store.list().map((g) => g.metadata.name), ["g1"]);
    assert.equal(discoveryReads(), 4);

    e.cluster.delete(customresourcedefinitions, { name: "gadgets.demo.io" });
    await e.clock.advance(DEFAULT_DISCOVERY_INTERVAL_MS);
    assert.deepEqual(seen, ["added gadgets", "removed gadgets"]);
    assert.equal(informer.health().state, "stopped");
    assert.equal(factory.informers.size, 0);
    await factory.stop();
    e.errors.splice(0); // the informer may have seen the 404 before the poll stopped it
    await closed(e);
  });

  test("with followCrds, a CRD's resource is followed at once, without waiting for the poll", async () => {
    const e = env();
    const factory = new DiscoveryInformerFactory(e.client, {
      clock: e.clock,
      filter: demoOnly,
      followCrds: true,
      onError: (error, ctx) => e.errors.push({ kind: ctx.kind, error }),
    });
    factory.start();
    await e.clock.flush();
    e.cluster.create(customresourcedefinitions, gadgetCrd());
    await e.clock.flush();
    assert.deepEqual([...factory.informers.keys()], ["demo.io/v1/gadgets"]);
    e.cluster.delete(customresourcedefinitions, { name: "gadgets.demo.io" });
    await e.clock.flush();
    assert.deepEqual([...factory.informers.keys()], []);
    await factory.stop();
    e.errors.splice(0);
    await closed(e);
  });

  test("a failed discovery read is reported and keeps the informers; the next poll retries", async () => {
    const e = env();
    e.cluster.create(customresourcedefinitions, gadgetCrd());
    await e.clock.flush();
    const factory = new DiscoveryInformerFactory(e.client, {
      clock: e.clock,
      filter: demoOnly,
      onError: (error, ctx) => e.errors.push({ kind: `${ctx.phase}:${ctx.kind}`, error }),
    });
    factory.start();
    await e.clock.flush();
    assert.equal(factory.informers.size, 1);
    e.cluster.faults.failNext(1, { verb: "discovery", status: 500 });
    await e.clock.advance(DEFAULT_DISCOVERY_INTERVAL_MS);
    assert.deepEqual(e.errors.map((x) => x.kind), ["request:server"]);
    assert.equal(factory.informers.size, 1, "kept");
    await e.clock.advance(DEFAULT_DISCOVERY_INTERVAL_MS);
    assert.equal(e.errors.length, 1);
    await factory.stop();
    await closed(e);
  });
});
