// Tracing a reconcile: with `tracing`, each reconcile gets its own trace context, and the
// requests it sends with `{ trace: ctx.trace }` carry it as their parent (`traceparent`).
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { KubeClient } from "../../../src/client/kube_client.ts";
import { configmaps } from "../../../src/client/resource.ts";
import { createInformer } from "../../../src/cache/informer.ts";
import { runController } from "../../../src/controller/reconcile/run_controller.ts";
import type { ReconcileContext } from "../../../src/controller/reconcile/controller_options.ts";
import { SimulatedCluster } from "@kinformer/simulator";

/** Runs a configmaps controller until `keys` were reconciled; returns what each request carried. */
async function reconcileAll(
  tracing: Parameters<typeof runController>[0]["tracing"],
  keys: string[],
): Promise<{ traces: (string | undefined)[]; sent: string[] }> {
  const cluster = new SimulatedCluster();
  for (const key of keys) {
    const [namespace = "", name = ""] = key.split("/");
    cluster.create(configmaps, { metadata: { namespace, name } });
  }
  const sent: string[] = [];
  const client = new KubeClient({
    server: "http://sim.test",
    fetch: (request) => {
      if (new URL(request.url).pathname.includes("/configmaps/")) {
        sent.push(request.headers.get("traceparent") ?? "-");
      }
      return cluster.fetch(request);
    },
  });
  const informer = createInformer(client, { resource: configmaps });
  const traces: (string | undefined)[] = [];
  const abort = new AbortController();
  const run = runController({
    informers: [informer],
    tracing,
    signal: abort.signal,
    reconcile: async (key: string, ctx: ReconcileContext) => {
      traces.push(ctx.trace?.traceparent);
      const [namespace, name] = key.split("/");
      await client.get(configmaps, name!, { namespace, trace: ctx.trace });
      if (traces.length === keys.length) abort.abort();
    },
  });
  await run;
  cluster.close();
  return { traces, sent };
}

describe("controller tracing", () => {
  test("each reconcile is the root of a new trace and the parent of its requests", async () => {
    const { traces, sent } = await reconcileAll(true, ["default/a", "default/b"]);
    assert.equal(traces.length, 2);
    for (const t of traces) assert.match(t!, /^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    assert.notEqual(traces[0]!.slice(3, 35), traces[1]!.slice(3, 35), "a trace per reconcile");
    assert.deepEqual(sent, traces, "each request carries its reconcile's context");
  });

  test("without the option a reconcile has no trace context and requests carry none", async () => {
    const { traces, sent } = await reconcileAll(undefined, ["default/a"]);
    assert.deepEqual(traces, [undefined]);
    assert.deepEqual(sent, ["-"]);
  });

  test("a bad tracing option is refused before anything starts", async () => {
    await assert.rejects(
      async () =>
        await runController({
          informers: [],
          reconcile: () => {},
          tracing: "yes" as never,
          signal: AbortSignal.abort(),
        }),
      /tracing must be a boolean or newTraceContext options/,
    );
  });
});
