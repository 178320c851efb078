// A Worker watching over a WebSocket in workerd: fetchWebSocket upgrades with fetch (sending the
// Origin the API server requires, which Workers' WebSocket cannot), against a simulated cluster
// served by this process over node:http.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { SimulatedCluster } from "@kinformer/simulator";
import { serve } from "../../src/adapters/node/serve.ts";
import { runtime } from "../_serve.ts";
import { bin, bundle, eventually, missingBinary, withTempDir } from "../_runtime_process.ts";
import { startWorkerd, type Workerd, workerdConfig } from "../_runtime_workerd.ts";
import type { WebSocketReport } from "./_workerd_websocket_worker.ts";

const skip = missingBinary(bin("workerd"), "workerd");
if (skip !== undefined) console.log(`workerd_websocket_test: skipped: ${skip}`);

describe(`Cloudflare Workers in workerd: watches over WebSockets (test process: ${runtime})`, () => {
  test(
    "an informer's watch goes over a WebSocket opened with fetchWebSocket; a refused handshake shows its status",
    { skip, timeout: 20_000 },
    async () => {
      await withTempDir("workerd-ws", async (dir) => {
        const cluster = new SimulatedCluster({ token: "w0rker" });
        const server = await serve(cluster.fetch);
        let workerd: Workerd | undefined;
        try {
          await bundle(
            "tests/integration/_workerd_websocket_worker.ts",
            join(dir, "worker.js"),
            "neutral",
          );
          workerd = await startWorkerd(
            dir,
            workerdConfig([{
              name: "main",
              module: "worker.js",
              bindings: [
                { name: "KUBE_SERVER", text: server.url },
                { name: "KUBE_TOKEN", text: "w0rker" },
              ],
            }]),
          );
          const response = await fetch(`${workerd.url}/?create=2`);
          const text = await response.text();
          assert.equal(response.status, 200, `${text}\n${workerd.child.output}`);
          const report = JSON.parse(text) as WebSocketReport;
          assert.deepEqual(report.errors, [], workerd.child.output);
          assert.equal(report.synced, true);
          assert.deepEqual(report.live, ["add w-0", "add w-1"]);
          assert.equal(report.refused, 401, "fetchWebSocket sees the handshake's status");
          const watches = cluster.requests.filter((r) => r.verb === "watch");
          assert.equal(watches.length, 2);
          assert.ok(watches.every((r) => r.webSocket === true));
          await eventually(() => cluster.openWatches === 0, "the Worker's watch is closed");
        } finally {
          await workerd?.close();
          cluster.close();
          await server.close();
        }
      });
    },
  );
});
