// `npm start` is the first thing a new user runs: prove it works and ends with a consistent cache.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { pods } from "../../src/client/resource.ts";
import { SimulatedCluster } from "@kinformer/simulator";
import { serve } from "../../src/adapters/node/serve.ts";
import { bin, missingBinary, ROOT, runProcess, withTempDir } from "../_runtime_process.ts";

const deno = bin("deno");
const skip = missingBinary(deno, "deno");

test(
  "the demo (npm start) recovers from every scheduled fault and ends with the cache equal to the server",
  {
    skip,
    timeout: 60_000,
  },
  async () => {
    const r = await runProcess(
      deno,
      ["run", "-A", "examples/demo.ts", "--seconds", "2", "--quiet"],
      {
        cwd: ROOT,
      },
    );
    assert.equal(r.code, 0, r.output);
    assert.match(r.stdout, /simulated cluster with 150 pods/);
    assert.match(r.stdout, /cache synced in \d+ ms: 150 pods/);
    for (const fault of ["drop every open watch", "compact history", "throttle"]) {
      assert.match(r.stdout, new RegExp(`fault: ${fault}`));
    }
    assert.match(r.stdout, /cache matches the server: yes/);
  },
);

test(
  "npm start -- --kubeconfig PATH watches the cluster the kubeconfig names (token auth over TLS)",
  { skip, timeout: 60_000 },
  async () => {
    // A kubeconfig's credentials go only to https servers (as kubectl's), so serve TLS.
    const certs = join(ROOT, "tests", "fixtures", "kubeconfig", "certs");
    const cluster = new SimulatedCluster({ token: "demo-token" });
    cluster.seed(pods, 7);
    const server = await serve(cluster.fetch, {
      tls: {
        cert: await readFile(join(certs, "server.crt"), "utf8"),
        key: await readFile(join(certs, "server.key"), "utf8"),
      },
    });
    const close = async () => {
      cluster.close();
      await server.close();
    };
    try {
      await withTempDir("demo", async (dir) => {
        const path = join(dir, "kubeconfig.yaml");
        await writeFile(
          path,
          [
            "apiVersion: v1",
            "kind: Config",
            "clusters:",
            `- {name: sim, cluster: {server: "${server.url}", certificate-authority: "${
              join(certs, "ca.crt")
            }"}}`,
            "users:",
            "- {name: u, user: {token: demo-token}}",
            "contexts:",
            "- {name: sim, context: {cluster: sim, user: u}}",
            "current-context: sim",
            "",
          ].join("\n"),
        );
        const r = await runProcess(
          deno,
          ["run", "-A", "examples/demo.ts", "--kubeconfig", path, "--seconds", "1", "--quiet"],
          { cwd: ROOT },
        );
        assert.equal(r.code, 0, r.output);
        assert.match(r.stdout, new RegExp(`watching pods on ${server.url}`));
        assert.match(r.stdout, /done: \d+ events, 7 pods cached/);
        assert.ok(cluster.requests.some((q) => q.verb === "list"), "it listed the cluster");
      });
    } finally {
      await close();
    }
  },
);
