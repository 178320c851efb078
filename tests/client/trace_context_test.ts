// W3C trace context propagation: the client sends `traceparent` (and `tracestate`) when given a
// trace context, per request or for the whole client; never otherwise; bad values are refused.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { KubeClient } from "../../src/client/kube_client.ts";
import { configmaps, pods } from "../../src/client/resource.ts";
import { newTraceContext, type TraceContext } from "../../src/client/trace_context.ts";
import { SimulatedCluster } from "@kinformer/simulator";

const PARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

/** A client on a simulated cluster that records each request's trace headers. */
function recording(
  options: { traceContext?: ConstructorParameters<typeof KubeClient>[0]["traceContext"] } = {},
) {
  const cluster = new SimulatedCluster();
  const seen: string[] = [];
  const client = new KubeClient({
    server: "http://sim.test",
    ...options,
    fetch: (request) => {
      const tp = request.headers.get("traceparent");
      const ts = request.headers.get("tracestate");
      seen.push(`${new URL(request.url).pathname} ${tp ?? "-"}${ts === null ? "" : ` ${ts}`}`);
      return cluster.fetch(request);
    },
  });
  return { cluster, client, seen };
}

describe("trace context on requests", () => {
  test("no trace context: no trace headers", async () => {
    const { cluster, client, seen } = recording();
    await client.list(pods);
    assert.deepEqual(seen, ["/api/v1/pods -"]);
    cluster.close();
  });

  test("a per-request trace goes on that request only, on every verb and on watches", async () => {
    const { cluster, client, seen } = recording();
    const trace: TraceContext = { traceparent: PARENT, tracestate: "vendor=x" };
    const cm = { metadata: { namespace: "default", name: "c" } };
    await client.create(configmaps, cm, { trace });
    await client.get(configmaps, "c", { namespace: "default", trace });
    await client.list(configmaps, { trace });
    await client.patch(configmaps, "c", { data: { a: "1" } }, { namespace: "default", trace });
    const w = await client.watch(configmaps, { trace, timeoutSeconds: 1 });
    await w.body?.cancel();
    await client.delete(configmaps, "c", { namespace: "default", trace });
    await client.list(configmaps); // none
    assert.equal(seen.length, 7);
    for (const line of seen.slice(0, 6)) assert.match(line, new RegExp(` ${PARENT} vendor=x$`));
    assert.match(seen[6]!, / -$/);
    cluster.close();
  });

  test("the client's traceContext applies to requests that give none; a function is asked each time", async () => {
    let current: TraceContext | undefined = { traceparent: PARENT };
    const { cluster, client, seen } = recording({ traceContext: () => current });
    await client.list(pods);
    current = undefined;
    await client.list(pods);
    const own = newTraceContext();
    await client.list(pods, { trace: own }); // its own wins
    assert.deepEqual(seen, [
      `/api/v1/pods ${PARENT}`,
      "/api/v1/pods -",
      `/api/v1/pods ${own.traceparent}`,
    ]);
    cluster.close();
  });

  for (
    const bad of [
      "",
      "00-abc-def-01",
      `ff-${PARENT.slice(3)}`,
      `00-${"0".repeat(32)}-00f067aa0ba902b7-01`,
      PARENT.toUpperCase(),
    ]
  ) {
    test(`traceparent ${JSON.stringify(bad)} is refused with a TypeError naming the option`, async () => {
      assert.throws(
        () => new KubeClient({ server: "http://sim.test", traceContext: { traceparent: bad } }),
        /options\.traceContext\.traceparent must be a W3C traceparent/,
      );
      const { cluster, client } = recording();
      await assert.rejects(
        client.list(pods, { trace: { traceparent: bad } }),
        /options\.trace\.traceparent must be a W3C traceparent/,
      );
      cluster.close();
    });
  }
});

describe("newTraceContext", () => {
  test("a root is a new sampled trace; a child keeps the trace id and tracestate; sampled: false clears the flag", () => {
    let n = 0;
    const randomBytes = (b: Uint8Array): void => void b.fill(++n);
    const root = newTraceContext({ randomBytes });
    assert.equal(root.traceparent, `00-${"01".repeat(16)}-${"02".repeat(8)}-01`);
    const child = newTraceContext({
      parent: { traceparent: root.traceparent, tracestate: "k=v" },
      sampled: false,
      randomBytes,
    });
    assert.deepEqual(child, {
      traceparent: `00-${"01".repeat(16)}-${"03".repeat(8)}-00`,
      tracestate: "k=v",
    });
  });
});
