// Limits that keep one bad request from hurting a test server: body size (413), JSON depth
// (400), objects that could not be served again (refused before they are stored), and a bounded
// request log.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { KubeApiError } from "../../../../src/client/errors.ts";
import { configmaps, pods } from "../../../../src/client/resource.ts";
import type { KubeObject } from "../../../../src/client/types.ts";
import { SimulatedCluster } from "../../src/cluster/simulated_cluster.ts";
import { adapters } from "../../../../tests/_serve.ts";

const MiB = 1024 * 1024;

/** `{"x":{"x":...1...}}` as text, `depth` objects deep. */
function deepText(depth: number): string {
  return '{"x":'.repeat(depth) + "1" + "}".repeat(depth);
}

/** The same as an object, built without recursion. */
function deepObject(depth: number): Record<string, unknown> {
  let o: Record<string, unknown> = { x: 1 };
  for (let i = 1; i < depth; i++) o = { x: o };
  return o;
}

/** A ConfigMap create body of exactly `bytes` bytes (padded with spaces, which JSON allows). */
function bodyOfSize(name: string, bytes: number): string {
  const json = JSON.stringify({ metadata: { name }, data: { k: "v" } });
  assert.ok(json.length <= bytes);
  return json + " ".repeat(bytes - json.length);
}

async function call(
  c: SimulatedCluster,
  method: string,
  path: string,
  body: BodyInit,
  contentType = "application/json",
): Promise<{ status: number; json: Record<string, unknown> }> {
  const init: RequestInit & { duplex?: string } = {
    method,
    body,
    headers: { "Content-Type": contentType },
  };
  if (body instanceof ReadableStream) init.duplex = "half";
  const res = await c.fetch(new Request(`http://sim${path}`, init));
  return { status: res.status, json: await res.json() as Record<string, unknown> };
}

function listStatus(c: SimulatedCluster, path = "/api/v1/pods"): Promise<number> {
  return c.fetch(new Request(`http://sim${path}`)).then(async (res) => {
    await res.body?.cancel();
    return res.status;
  });
}

const CM = "/api/v1/namespaces/default/configmaps";

describe("SimulatedCluster request limits", () => {
  test("a body over 3 MiB gets 413 RequestEntityTooLarge; 3 MiB exactly is served", async () => {
    const c = new SimulatedCluster();
    const over = await call(c, "POST", CM, bodyOfSize("big", 3 * MiB + 1));
    assert.equal(over.status, 413);
    assert.equal(over.json.reason, "RequestEntityTooLarge");
    assert.equal(over.json.message, "Request entity too large: limit is 3145728");
    assert.equal(c.get(configmaps, { namespace: "default", name: "big" }), undefined);
    const exact = await call(c, "POST", CM, bodyOfSize("fits", 3 * MiB));
    assert.equal(exact.status, 201);
    c.close();
  });

  test("maxRequestBodyBytes applies to every verb with a body, streamed or not", async () => {
    const c = new SimulatedCluster({ maxRequestBodyBytes: 100 });
    c.create(configmaps, { metadata: { name: "a", namespace: "default" } });
    const big = bodyOfSize("a", 101);
    const chunked = (): ReadableStream<Uint8Array> => {
      const bytes = new TextEncoder().encode(big);
      let sent = 0;
      return new ReadableStream({
        pull(controller) {
          if (sent >= bytes.length) return controller.close();
          controller.enqueue(bytes.subarray(sent, sent + 10));
          sent += 10;
        },
      });
    };
    for (
      const [method, path, body, type] of [
        ["POST", CM, big, "application/json"],
        ["POST", CM, chunked(), "application/json"],
        ["PUT", `${CM}/a`, big, "application/json"],
        ["PATCH", `${CM}/a`, big, "application/merge-patch+json"],
        ["DELETE", `${CM}/a`, big, "application/json"],
      ] as const
    ) {
      const res = await call(c, method, path, body, type);
      assert.equal(res.status, 413, `${method} ${path}`);
      assert.equal(res.json.message, "Request entity too large: limit is 100");
    }
    assert.ok(c.get(configmaps, { namespace: "default", name: "a" }), "still there");
    c.close();
  });

  test("a number JSON cannot carry (1e999 parses as Infinity) gets 400, never stored as null", async () => {
    const c = new SimulatedCluster();
    c.create(configmaps, { metadata: { name: "m", namespace: "default" } });
    const bodies: [string, string, string, string?][] = [
      [
        "POST",
        "/api/v1/namespaces/default/configmaps",
        '{"metadata":{"name":"n","generation":1e999}}',
      ],
      [
        "PUT",
        "/api/v1/namespaces/default/configmaps/m",
        '{"metadata":{"name":"m","generation":-1e999}}',
      ],
      [
        "PATCH",
        "/api/v1/namespaces/default/configmaps/m",
        '{"metadata":{"generation":1e999}}',
        "application/merge-patch+json",
      ],
    ];
    for (const [method, path, body, type] of bodies) {
      const res = await call(c, method, path, body, type);
      assert.equal(res.status, 400, `${method} ${body}`);
      assert.match(String(res.json.message), /out of range/);
    }
    assert.equal(c.get(configmaps, { namespace: "default", name: "n" }), undefined);
    assert.equal(await listStatus(c), 200);
    c.close();
  });

  test("JSON nested deeper than maxJsonDepth (default 1000) gets 400", async () => {
    const c = new SimulatedCluster();
    c.create(pods, { metadata: { name: "p", namespace: "default" } });
    const pod = (depth: number) =>
      // Nested where a pod's schema accepts anything (affinity terms), so nothing is pruned.
      `{"metadata":{"name":"d${depth}"},"spec":{"affinity":{"nodeAffinity":${
        deepText(depth - 3)
      }}}}`;
    const ok = await call(c, "POST", "/api/v1/namespaces/default/pods", pod(1000));
    assert.equal(ok.status, 201);
    for (const depth of [1001, 10_000]) {
      const res = await call(c, "POST", "/api/v1/namespaces/default/pods", pod(depth));
      assert.equal(res.status, 400, String(depth));
      assert.equal(res.json.reason, "BadRequest");
      assert.match(String(res.json.message), /nested deeper than 1000/);
    }
    // Past kube-apiserver's decoder limit (10,000), its own error, before anything is parsed.
    const past = await call(c, "POST", "/api/v1/namespaces/default/pods", pod(100_000));
    assert.equal(past.status, 400);
    assert.match(String(past.json.message), /exceeded max depth/);
    const merge = await call(
      c,
      "PATCH",
      "/api/v1/namespaces/default/pods/p",
      `{"spec":{"affinity":{"nodeAffinity":${deepText(998)}}}}`,
      "application/merge-patch+json",
    );
    assert.equal(merge.status, 400);
    const jsonPatch = await call(
      c,
      "PATCH",
      "/api/v1/namespaces/default/pods/p",
      `[{"op":"add","path":"/spec","value":{"affinity":{"nodeAffinity":${deepText(998)}}}}]`,
      "application/json-patch+json",
    );
    assert.equal(jsonPatch.status, 400);
    assert.equal(await listStatus(c), 200);
    c.close();
  });

  test("an object too deep to serve is refused before it is stored, whatever wrote it", async () => {
    const c = new SimulatedCluster({ maxJsonDepth: 50 });
    const rv = c.resourceVersion;
    const refused = (fn: () => unknown, what: string): void => {
      assert.throws(fn, (e: unknown) => {
        assert.ok(e instanceof KubeApiError, `${what}: ${String(e)}`);
        assert.equal(e.code, 400, what);
        return true;
      });
    };
    refused(
      () =>
        c.create(pods, {
          metadata: { name: "deep", namespace: "default" },
          spec: deepObject(100_000),
        }),
      "create",
    );
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    refused(
      () => c.create(pods, { metadata: { name: "cyclic", namespace: "default" }, spec: cyclic }),
      "cyclic",
    );
    refused(
      () =>
        c.seed(
          pods,
          1,
          () => ({ metadata: { name: "seeded", namespace: "default" }, spec: deepObject(100) }),
        ),
      "seed",
    );
    refused(
      () =>
        c.seed(
          pods,
          1,
          () => ({
            metadata: { name: "big", namespace: "default" },
            spec: { n: 1n },
          } as KubeObject),
        ),
      "bigint",
    );
    assert.equal(c.resourceVersion, rv, "nothing was committed");
    assert.deepEqual(c.list(pods), []);

    // A JSON patch of a valid body can still build a deeper object: the store checks the result.
    // (Nested where a pod's schema accepts anything, affinity terms, so nothing is pruned.)
    c.create(pods, {
      metadata: { name: "p", namespace: "default" },
      spec: { affinity: { nodeAffinity: deepObject(38) } },
    });
    const path = "/affinity/nodeAffinity" + "/x".repeat(37);
    const res = await call(
      c,
      "PATCH",
      "/api/v1/namespaces/default/pods/p",
      JSON.stringify([{ op: "add", path: `/spec${path}`, value: deepObject(40) }]),
      "application/json-patch+json",
    );
    assert.equal(res.status, 400);
    assert.equal(await listStatus(c), 200);
    const watch = await c.fetch(new Request("http://sim/api/v1/pods?watch=1&resourceVersion=0"));
    assert.equal(watch.status, 200);
    await watch.body?.cancel();
    c.close();
  });

  test("a maxJsonDepth beyond the call stack still refuses what it cannot check", () => {
    const c = new SimulatedCluster({ maxJsonDepth: 100_000_000 });
    assert.throws(
      () =>
        c.create(pods, {
          metadata: { name: "deep", namespace: "default" },
          spec: deepObject(1_000_000),
        }),
      (e: unknown) => e instanceof KubeApiError && e.code === 400 && /call stack/.test(e.message),
    );
    assert.deepEqual(c.list(pods), []);
    c.close();
  });

  test("the request log keeps the last requestLogLimit requests", async () => {
    const c = new SimulatedCluster({ requestLogLimit: 3 });
    for (let i = 0; i < 5; i++) await listStatus(c, `/api/v1/pods?limit=${i + 1}`);
    assert.deepEqual(c.requests.map((r) => r.query.limit), ["3", "4", "5"]);
    c.clearRequests();
    assert.deepEqual(c.requests, []);
    await listStatus(c);
    assert.equal(c.requests.length, 1);
    c.close();
    const none = new SimulatedCluster({ requestLogLimit: 0 });
    await listStatus(none);
    assert.deepEqual(none.requests, []);
    none.close();
  });

  test("the request log holds 10000 requests by default", async () => {
    const c = new SimulatedCluster();
    for (let i = 0; i < 10_005; i++) await listStatus(c, `/api/v1/pods?limit=${i + 1}`);
    const log = c.requests;
    assert.equal(log.length, 10_000);
    assert.equal(log[0]!.query.limit, "6");
    assert.equal(log.at(-1)!.query.limit, "10005");
    c.close();
  });

  test("limit options are checked up front", () => {
    for (
      const [option, bad] of [
        ["maxRequestBodyBytes", 0],
        ["maxRequestBodyBytes", 1.5],
        ["maxJsonDepth", 0],
        ["maxJsonDepth", "10"],
        ["requestLogLimit", -1],
        ["requestLogLimit", Infinity],
      ] as const
    ) {
      assert.throws(
        () => new SimulatedCluster({ [option]: bad }),
        // A value of the wrong kind is a TypeError, one out of range a RangeError.
        (e: unknown) =>
          (typeof bad === "string" ? e instanceof TypeError : e instanceof RangeError) &&
          (e as Error).message.includes(`options.${option}`),
        `${option}: ${String(bad)}`,
      );
    }
  });
});

for (const adapter of await adapters()) {
  describe(`SimulatedCluster request limits over HTTP (${adapter.name})`, () => {
    test("a body over maxRequestBodyBytes gets 413 over HTTP; the server keeps serving", async () => {
      const c = new SimulatedCluster({ maxRequestBodyBytes: 1024 });
      const server = await adapter.serve(c.fetch, { hostname: "127.0.0.1", port: 0 });
      try {
        const post = (body: string) =>
          fetch(`${server.url}${CM}`, {
            method: "POST",
            headers: { "Content-Type": "application/json" },
            body,
          });
        const over = await post(bodyOfSize("big", 1025));
        assert.equal(over.status, 413);
        assert.equal((await over.json() as { reason: string }).reason, "RequestEntityTooLarge");
        const fits = await post(bodyOfSize("fits", 1024));
        assert.equal(fits.status, 201);
        await fits.body?.cancel();
        const deep = await post(`{"metadata":{"name":"deep"},"data":${deepText(600)}}`);
        assert.equal(deep.status, 413, "the depth check never sees a body over the size limit");
        await deep.body?.cancel();
      } finally {
        c.close();
        await server.close();
      }
    });
  });
}
