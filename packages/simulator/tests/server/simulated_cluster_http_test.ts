import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { configmaps, pods } from "../../../../src/client/resource.ts";
import type { KubeList, Status } from "../../../../src/client/types.ts";
import { ManualClock } from "../../../../src/testing/manual_clock.ts";
import { SimulatedCluster } from "../../src/cluster/simulated_cluster.ts";
import { adapters, LineReader, summarize } from "../../../../tests/_serve.ts";

const TOKEN = "s3cr3t";
const auth = { Authorization: `Bearer ${TOKEN}` };

/** Lets the event loop turn until `done()` or a turn limit (no wall-clock waiting). */
async function until(clock: ManualClock, done: () => boolean, turns = 500): Promise<void> {
  for (let i = 0; i < turns && !done(); i++) await clock.flush(1);
  assert.ok(done(), "condition not reached");
}

for (const adapter of await adapters()) {
  describe(`SimulatedCluster over HTTP (${adapter.name})`, () => {
    async function setup(): Promise<{
      c: SimulatedCluster;
      clock: ManualClock;
      url: string;
      close: () => Promise<void>;
    }> {
      const clock = new ManualClock();
      const c = new SimulatedCluster({ clock, token: TOKEN });
      const server = await adapter.serve(c.fetch, { hostname: "127.0.0.1", port: 0 });
      return {
        c,
        clock,
        url: server.url,
        close: async () => {
          c.close();
          await server.close();
        },
      };
    }

    test("requests without the bearer token get a 401 Unauthorized Status", async () => {
      const { url, close } = await setup();
      for (const headers of [{}, { Authorization: "Bearer wrong" }]) {
        const res = await fetch(`${url}/api/v1/pods`, { headers });
        assert.equal(res.status, 401);
        assert.deepEqual(await res.json(), {
          kind: "Status",
          apiVersion: "v1",
          metadata: {},
          status: "Failure",
          message: "Unauthorized",
          reason: "Unauthorized",
          details: {},
          code: 401,
        });
      }
      const ok = await fetch(`${url}/api/v1/pods`, { headers: auth });
      assert.equal(ok.status, 200);
      assert.equal(((await ok.json()) as KubeList).kind, "PodList");
      await close();
    });

    test("unknown paths are a 404 NotFound Status", async () => {
      const { url, close } = await setup();
      for (const path of ["/api/v1/nodes", "/apis/batch/v1/jobs", "/openapi/v2", "/nope"]) {
        const res = await fetch(`${url}${path}`, { headers: auth });
        assert.equal(res.status, 404, path);
        const s = await res.json() as Status;
        assert.equal(s.reason, "NotFound");
        assert.equal(s.message, "the server could not find the requested resource");
      }
      await close();
    });

    test("discovery documents describe the served resources", async () => {
      const { url, close } = await setup();
      const json = async (path: string): Promise<Record<string, unknown>> => {
        const res = await fetch(`${url}${path}`, { headers: auth });
        assert.equal(res.status, 200, path);
        assert.equal(res.headers.get("content-type"), "application/json");
        return await res.json() as Record<string, unknown>;
      };
      assert.equal((await json("/version")).major, "1");
      assert.deepEqual((await json("/api")).versions, ["v1"]);
      const groups = (await json("/apis")).groups as Array<{ name: string }>;
      // Built-in groups in kube-apiserver's order, then custom resources' groups.
      assert.deepEqual(groups.map((g) => g.name), [
        "apps",
        "events.k8s.io",
        "authentication.k8s.io",
        "authorization.k8s.io",
        "apiextensions.k8s.io",
        "coordination.k8s.io",
        "example.com",
      ]);
      const core = (await json("/api/v1")).resources as Array<
        { name: string; shortNames?: string[]; namespaced: boolean }
      >;
      const byName = new Map(core.map((r) => [r.name, r]));
      assert.deepEqual(byName.get("pods")?.shortNames, ["po"]);
      assert.deepEqual(byName.get("configmaps")?.shortNames, ["cm"]);
      assert.equal(byName.get("namespaces")?.namespaced, false);
      assert.ok(byName.has("pods/status"));
      const custom = await json("/apis/example.com/v1");
      assert.equal(custom.groupVersion, "example.com/v1");
      assert.deepEqual((custom.resources as Array<{ kind: string }>)[0]!.kind, "Widget");
      const apps = (await json("/apis/apps/v1")).resources as Array<
        { name: string; kind: string; group?: string; version?: string }
      >;
      assert.deepEqual(apps.map((r) => r.name), [
        "deployments",
        "deployments/status",
        "deployments/scale",
      ]);
      assert.deepEqual(
        [apps[2]!.group, apps[2]!.version, apps[2]!.kind],
        ["autoscaling", "v1", "Scale"],
      );
      await close();
    });

    test("CORS: preflight without a token; a loopback page may read the answers", async () => {
      const { url, close } = await setup();
      const origin = "http://127.0.0.1:5173";
      const pre = await fetch(`${url}/api/v1/pods`, {
        method: "OPTIONS",
        headers: {
          Origin: origin,
          "Access-Control-Request-Method": "GET",
          "Access-Control-Request-Headers": "authorization",
        },
      });
      assert.equal(pre.status, 204);
      assert.equal(pre.headers.get("access-control-allow-origin"), origin);
      assert.match(pre.headers.get("access-control-allow-headers")!, /authorization/i);
      assert.match(pre.headers.get("access-control-allow-methods")!, /GET/);
      await pre.body?.cancel();
      const res = await fetch(`${url}/api/v1/pods`, { headers: { ...auth, Origin: origin } });
      assert.equal(res.headers.get("access-control-allow-origin"), origin);
      assert.match(res.headers.get("access-control-expose-headers")!, /Retry-After/);
      await res.body?.cancel();
      const denied = await fetch(`${url}/api/v1/pods`, { headers: { Origin: origin } });
      assert.equal(denied.status, 401);
      assert.equal(denied.headers.get("access-control-allow-origin"), origin, "401 is readable");
      await denied.body?.cancel();
      await close();
    });

    test("a 429 is plain text with Retry-After", async () => {
      const { c, url, close } = await setup();
      c.faults.failNext(1, { status: 429, retryAfterSeconds: 7 });
      const res = await fetch(`${url}/api/v1/pods`, { headers: auth });
      assert.equal(res.status, 429);
      assert.equal(res.headers.get("retry-after"), "7");
      assert.equal(await res.text(), "Too many requests, please try again later.\n");
      await close();
    });

    test("POST and GET round-trip an object over HTTP", async () => {
      const { c, url, close } = await setup();
      const res = await fetch(`${url}/api/v1/namespaces/default/configmaps`, {
        method: "POST",
        headers: { ...auth, "Content-Type": "application/json" },
        body: JSON.stringify({ metadata: { name: "a" }, data: { text: "grüß 🚀" } }),
      });
      assert.equal(res.status, 201);
      await res.body?.cancel();
      assert.deepEqual(c.get(configmaps, { namespace: "default", name: "a" })?.data, {
        text: "grüß 🚀",
      });
      await close();
    });

    test("watch events are streamed as they happen, one JSON line each", async () => {
      const { c, url, close } = await setup();
      c.create(pods, { metadata: { name: "p0", namespace: "default" } });
      const res = await fetch(`${url}/api/v1/pods?watch=1`, { headers: auth });
      assert.equal(res.status, 200);
      assert.equal(res.headers.get("content-type"), "application/json");
      const r = new LineReader(res.body!);
      assert.deepEqual(summarize(await r.events(1)), ["ADDED p0"]);
      for (let i = 1; i <= 3; i++) {
        c.create(pods, { metadata: { name: `p${i}`, namespace: "default" } });
        assert.deepEqual(summarize(await r.events(1)), [`ADDED p${i}`]);
      }
      await r.cancel();
      await close();
    });

    test("chunked delivery split mid-UTF-8 arrives intact", async () => {
      const { c, url, close } = await setup();
      c.create(configmaps, {
        metadata: { name: "u0", namespace: "default" },
        data: { t: "Überwachung 監視 🚀" },
      });
      c.faults.chunkBodies({ maxChunkBytes: 2 });
      const res = await fetch(`${url}/api/v1/configmaps?watch=1`, { headers: auth });
      const r = new LineReader(res.body!);
      c.create(configmaps, {
        metadata: { name: "u1", namespace: "default" },
        data: { t: "ÄÖÜ ✓" },
      });
      const events = await r.events(2);
      assert.deepEqual(summarize(events), ["ADDED u0", "ADDED u1"]);
      assert.equal((events[0]!.object as { data?: { t?: string } }).data?.t, "Überwachung 監視 🚀");
      await r.cancel();
      await close();
    });

    test("a dropped watch is a network error on the client, not a clean end", async () => {
      const { c, url, close } = await setup();
      c.create(pods, { metadata: { name: "p0", namespace: "default" } });
      const res = await fetch(`${url}/api/v1/pods?watch=1`, { headers: auth });
      const r = new LineReader(res.body!);
      assert.deepEqual(summarize(await r.events(1)), ["ADDED p0"]);
      c.faults.dropWatches();
      await assert.rejects(r.event());
      await close();
    });

    test("stall: the request gets no answer until resume", async () => {
      const { c, clock, url, close } = await setup();
      c.faults.stall();
      let answered = false;
      const pending = fetch(`${url}/api/v1/pods`, { headers: auth }).then((res) => {
        answered = true;
        return res;
      });
      await until(clock, () => c.requests.length === 1);
      await clock.flush(10);
      assert.equal(answered, false);
      c.faults.resume();
      const res = await pending;
      assert.equal(res.status, 200);
      await res.body?.cancel();
      await close();
    });

    test("a client that disconnects is removed from the open watches", async () => {
      const { c, clock, url, close } = await setup();
      c.create(pods, { metadata: { name: "p0", namespace: "default" } });
      const ac = new AbortController();
      const res = await fetch(`${url}/api/v1/pods?watch=1`, { headers: auth, signal: ac.signal });
      const r = new LineReader(res.body!);
      await r.events(1);
      assert.equal(c.openWatches, 1);
      ac.abort();
      await r.event().catch(() => undefined);
      await until(clock, () => c.openWatches === 0);
      await close();
    });

    test("closing the server ends open watch streams", async () => {
      const { c, url, close } = await setup();
      c.create(pods, { metadata: { name: "p0", namespace: "default" } });
      const res = await fetch(`${url}/api/v1/pods?watch=1`, { headers: auth });
      const r = new LineReader(res.body!);
      await r.events(1);
      await close();
      // Either a clean end or a reset: the stream must finish rather than hang.
      await r.rest().catch(() => []);
      assert.equal(c.openWatches, 0);
    });
  });
}
