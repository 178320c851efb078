import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { metadataOnly } from "../../src/client/metadata_only.ts";
import { KubeApiError } from "../../src/client/errors.ts";
import { KubeClient } from "../../src/client/kube_client.ts";
import type { ListOptions } from "../../src/client/request_options.ts";
import type { KubeList, KubeObjectLike } from "../../src/client/types.ts";
import { pods } from "../../src/client/resource.ts";
import { SharedInformerFactory } from "../../src/cache/factory.ts";
import { createInformer } from "../../src/cache/informer.ts";
import { decodeWatchStream } from "../../src/watch/watch_decoder.ts";
import { closed, env, pod } from "../_informer_env.ts";

const LIST_ACCEPT = "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1";
const ONE_ACCEPT = "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1";

describe("the simulated cluster serves PartialObjectMetadata", () => {
  test("LIST, GET and WATCH in both forms, chosen by Accept", async () => {
    const e = env();
    e.cluster.create(pods, pod("a", "p1", { app: "web" }));
    const get = (path: string, accept: string) =>
      e.cluster.fetch(new Request(`http://sim${path}`, { headers: { accept } }));
    const list = await (await get("/api/v1/pods", LIST_ACCEPT)).json();
    assert.equal(list.kind, "PartialObjectMetadataList");
    assert.equal(list.apiVersion, "meta.k8s.io/v1");
    assert.ok(list.metadata.resourceVersion);
    assert.deepEqual(Object.keys(list.items[0]).sort(), ["apiVersion", "kind", "metadata"]);
    assert.equal(list.items[0].kind, "PartialObjectMetadata");
    assert.equal(list.items[0].metadata.labels.app, "web");
    const one = await (await get("/api/v1/namespaces/a/pods/p1", ONE_ACCEPT)).json();
    assert.equal(one.kind, "PartialObjectMetadata");
    assert.equal(one.spec, undefined);
    const whole = await (await get("/api/v1/namespaces/a/pods/p1", "application/json")).json();
    assert.equal(whole.kind, "Pod");
    assert.ok(whole.spec);
    // kubectl's default asks for a Table first: the server answers one (kubectl_tables_test.ts).
    const table = await get(
      "/api/v1/pods",
      "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json",
    );
    assert.equal((await table.json()).kind, "Table");
    // A transformation the server does not offer is skipped for the next range...
    const fallback = await get(
      "/api/v1/pods",
      "application/json;as=Table;v=v2;g=meta.k8s.io,application/json",
    );
    assert.equal((await fallback.json()).kind, "PodList");
    // ...and with nothing acceptable: 406.
    const refused = await get("/api/v1/pods", "application/json;as=Table;v=v2;g=meta.k8s.io");
    assert.equal(refused.status, 406);
    // WATCH: events carry PartialObjectMetadata.
    const ac = new AbortController();
    const res = await e.cluster.fetch(
      new Request(
        `http://sim/api/v1/pods?watch=1&resourceVersion=${list.metadata.resourceVersion}`,
        {
          headers: { accept: ONE_ACCEPT },
          signal: ac.signal,
        },
      ),
    );
    const events = decodeWatchStream(res.body!, { signal: ac.signal });
    e.cluster.create(pods, pod("a", "p2"));
    const ev = (await events.next()).value!;
    assert.equal(ev.type, "ADDED");
    assert.ok(ev.type !== "BOOKMARK" && ev.object.kind === "PartialObjectMetadata");
    assert.equal((ev.object as { spec?: unknown }).spec, undefined);
    ac.abort();
    await events.return?.();
    await closed(e);
  });
});

describe("metadata-only informers (metadataOnly(descriptor))", () => {
  test("cache only metadata, list and watch alike; the client asks with Accept", async () => {
    const e = env();
    e.cluster.create(pods, pod("a", "p1", { app: "web" }));
    const inf = e.informer({ resource: metadataOnly(pods) });
    inf.start();
    await inf.waitForSync();
    const accepts = e.cluster.requests.map((r) => `${r.verb}`);
    assert.deepEqual(accepts.slice(0, 1), ["list"]);
    const cached = inf.store.get("a/p1")!;
    assert.deepEqual(Object.keys(cached).sort(), ["apiVersion", "kind", "metadata"]);
    assert.equal(cached.metadata.labels?.app, "web");
    e.cluster.create(pods, pod("a", "p2"));
    await e.clock.flush();
    assert.equal(inf.store.get("a/p2")?.kind, "PartialObjectMetadata");
    assert.equal(inf.lister.list({ labelSelector: "app=web" }).length, 1);
    await closed(e);
  });

  test("a server that ignores the Accept header still gives metadata-only objects", async () => {
    const e = env({
      fetch: (c) => (req) => {
        const headers = new Headers(req.headers);
        headers.set("accept", "application/json"); // a proxy or an aggregated API that cannot
        return c.fetch(new Request(req, { headers }));
      },
    });
    e.cluster.create(pods, pod("a", "p1"));
    const inf = e.informer({ resource: metadataOnly(pods) });
    inf.start();
    await inf.waitForSync();
    e.cluster.create(pods, pod("a", "p2"));
    await e.clock.flush();
    for (const o of inf.store.list()) {
      assert.deepEqual(Object.keys(o).sort(), ["apiVersion", "kind", "metadata"]);
      assert.equal(o.kind, "PartialObjectMetadata");
    }
    assert.equal(inf.store.size, 2);
    await closed(e);
  });

  test("the factory keeps a metadata informer apart from the full one; checkpoints too", async () => {
    const e = env();
    e.cluster.create(pods, pod("a", "p1"));
    const factory = new SharedInformerFactory(e.client, { clock: e.clock });
    const full = factory.informerFor(pods);
    const meta = factory.informerFor(metadataOnly(pods));
    assert.notEqual(full as unknown, meta as unknown);
    assert.equal(factory.informerFor(metadataOnly(pods)), meta);
    factory.start();
    await factory.waitForSync();
    assert.ok(full.store.get("a/p1")?.spec);
    assert.equal((meta.store.get("a/p1") as { spec?: unknown }).spec, undefined);
    const cp = meta.checkpoint();
    assert.equal(cp.resource, "v1/pods#metadata");
    // A metadata checkpoint does not resume a full informer: refused, and that informer lists.
    const other = createInformer(e.client, { resource: pods, resumeFrom: cp });
    assert.equal(other.health().lastError?.kind, "checkpoint");
    assert.equal(other.store.size, 0);
    await other.stop();
    await factory.stop();
    await closed(e);
  });

  test("client.get and client.list of a metadata descriptor return PartialObjectMetadata", async () => {
    const e = env();
    e.cluster.create(pods, pod("a", "p1"));
    const m = await e.client.get(metadataOnly(pods), "p1", { namespace: "a" });
    assert.equal(m.kind, "PartialObjectMetadata");
    const list = await e.client.list(metadataOnly(pods));
    assert.equal(list.items[0]?.kind, "PartialObjectMetadata");
    await assert.rejects(
      e.client.get(metadataOnly(pods), "nope", { namespace: "a" }),
      (error: unknown) => error instanceof KubeApiError && error.code === 404,
    );
    await closed(e);
  });

  test("a client whose list hands the informer whole objects without kind: the informer still cuts them down", async () => {
    const e = env();
    e.cluster.create(pods, pod("a", "p1"));
    // A client (a wrapper, a mock) whose list answers with whole pods, as a LIST's items come.
    class WholeLists extends KubeClient {
      override list<T extends KubeObjectLike>(
        _r: unknown,
        options?: ListOptions,
      ): Promise<KubeList<T>> {
        return super.list(pods, options) as unknown as Promise<KubeList<T>>;
      }
    }
    const client = new WholeLists({ server: "http://sim.test", fetch: e.cluster.fetch });
    const inf = createInformer(client, { resource: metadataOnly(pods), clock: e.clock });
    inf.start();
    await inf.waitForSync();
    const [o] = inf.store.list();
    assert.deepEqual(Object.keys(o!).sort(), ["apiVersion", "kind", "metadata"]);
    assert.equal(o!.kind, "PartialObjectMetadata");
    await inf.stop();
    await closed(e);
  });

  test("client.get and client.list cut whole objects down when the server ignores Accept", async () => {
    const e = env({
      fetch: (c) => (req) => {
        const headers = new Headers(req.headers);
        headers.set("accept", "application/json"); // a proxy that drops the Accept header
        return c.fetch(new Request(req, { headers }));
      },
    });
    e.cluster.create(pods, pod("a", "p1", { app: "web" }));
    const one = await e.client.get(metadataOnly(pods), "p1", { namespace: "a" });
    assert.deepEqual(Object.keys(one).sort(), ["apiVersion", "kind", "metadata"]);
    assert.equal(one.kind, "PartialObjectMetadata");
    assert.equal(one.metadata.labels?.app, "web");
    const list = await e.client.list(metadataOnly(pods));
    assert.equal(list.kind, "PartialObjectMetadataList");
    assert.ok(list.metadata.resourceVersion);
    assert.deepEqual(Object.keys(list.items[0]!).sort(), ["apiVersion", "kind", "metadata"]);
    assert.equal(list.items[0]!.kind, "PartialObjectMetadata");
    assert.equal(list.items[0]!.metadata.name, "p1");
    await closed(e);
  });

  test("a server that refuses metadata-only (406) is unsupported: retried once a minute, saying why", async () => {
    let lists = 0;
    const e = env({
      fetch: (c) => (req) => {
        if (!(req.headers.get("accept") ?? "").includes("as=PartialObjectMetadata")) {
          return c.fetch(req);
        }
        lists++;
        return Promise.resolve(
          Response.json(
            {
              kind: "Status",
              apiVersion: "v1",
              status: "Failure",
              code: 406,
              reason: "NotAcceptable",
              message: "only the following media types are accepted: application/json",
            },
            { status: 406 },
          ),
        );
      },
    });
    e.cluster.create(pods, pod("a", "p1"));
    const contexts: { kind: string; retryInMs?: number | undefined }[] = [];
    const inf = e.informer({
      resource: metadataOnly(pods),
      onError: (error, context) => {
        e.errors.push({ kind: context.kind, error });
        contexts.push(context);
      },
    });
    inf.start();
    for (let i = 0; i < 10; i++) await e.clock.advance(60_000);
    assert.equal(inf.hasSynced(), false);
    assert.ok(lists >= 9 && lists <= 11, `${lists} requests in 10 minutes`);
    assert.ok(contexts.every((c) => c.kind === "unsupported" && c.retryInMs === 60_000));
    const health = inf.health();
    assert.equal(health.errors.unsupported, lists);
    assert.equal(health.lastError?.kind, "unsupported");
    assert.match(health.lastError!.message, /cannot succeed as configured/);
    await closed(e);
  });
});
