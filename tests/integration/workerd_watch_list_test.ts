// Compressed streaming lists (kube-apiserver 1.37, one gzip member per flush) in workerd: a
// Worker's fetch reads every member, and sends `Accept-Encoding: identity` when asked to; an
// informer with `initialList: "stream"` syncs through KubeClient, which asks for identity.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { pods } from "../../src/client/resource.ts";
import { SimulatedCluster } from "@kinformer/simulator";
import type { ServedHandle } from "@kinformer/simulator/node";
import { runtime, serveHandler } from "../_serve.ts";
import { bin, bundle, missingBinary, withTempDir } from "../_runtime_process.ts";
import { startWorkerd, type Workerd, workerdConfig } from "../_runtime_workerd.ts";
import type { RawRead, SyncReport } from "./_workerd_watch_list_worker.ts";

const skip = missingBinary(bin("workerd"), "workerd");
if (skip !== undefined) console.log(`workerd_watch_list_test: skipped: ${skip}`);

const PODS = 30;

async function getJson<T>(url: string): Promise<T> {
  const response = await fetch(url);
  const text = await response.text();
  assert.equal(response.status, 200, `${url} answered ${response.status}: ${text}`);
  return JSON.parse(text) as T;
}

describe(`compressed streaming lists in workerd (test process: ${runtime})`, () => {
  test("a Worker's fetch and KubeClient read a 1.37 streaming list", {
    skip,
    timeout: 30_000,
  }, async () => {
    await withTempDir("workerd-watch-list", async (dir) => {
      const cluster = new SimulatedCluster();
      cluster.seed(pods, PODS);
      const encodings: Array<{ asked: string | null; answered: string | null }> = [];
      let api: ServedHandle | undefined;
      let workerd: Workerd | undefined;
      try {
        api = await serveHandler(async (request) => {
          const response = await cluster.fetch(request);
          if (new URL(request.url).searchParams.get("sendInitialEvents") === "true") {
            encodings.push({
              asked: request.headers.get("accept-encoding"),
              answered: response.headers.get("content-encoding"),
            });
          }
          return response;
        });
        await bundle(
          "tests/integration/_workerd_watch_list_worker.ts",
          join(dir, "worker.js"),
          "neutral",
        );
        workerd = await startWorkerd(
          dir,
          workerdConfig([{
            name: "main",
            module: "worker.js",
            bindings: [{ name: "KUBE_SERVER", text: api.url }],
          }]),
        );

        // workerd's fetch reads every member of a gzipped streaming list...
        const gzip = await getJson<RawRead>(`${workerd.url}/raw?encoding=gzip`);
        assert.deepEqual(encodings.at(-1), { asked: "gzip", answered: "gzip" });
        assert.deepEqual(gzip, { contentEncoding: "gzip", lines: PODS + 1, complete: true });
        // ...and sends an identity a Worker asks for.
        const identity = await getJson<RawRead>(`${workerd.url}/raw?encoding=identity`);
        assert.deepEqual(encodings.at(-1), { asked: "identity", answered: null });
        assert.deepEqual(identity, { contentEncoding: null, lines: PODS + 1, complete: true });

        // KubeClient asks for identity: the informer streams its list whole, with no LIST.
        const before = cluster.requests.length;
        const sync = await getJson<SyncReport>(`${workerd.url}/sync`);
        assert.deepEqual(sync, { size: PODS, errors: [] });
        assert.deepEqual(encodings.at(-1), { asked: "identity", answered: null });
        assert.deepEqual(cluster.requests.slice(before).map((r) => r.verb), ["watch"]);
      } finally {
        await workerd?.close();
        cluster.close();
        await api?.close();
      }
    });
  });
});
