// serial: sets process environment variables, which Deno shares between the modules it runs in
// parallel, so scripts/test.mjs runs this file on its own there.
// Compression through this runtime's config loader: every transport asks for gzip (the API
// server then compresses LIST answers over 128 KiB) and decodes it, unless the kubeconfig says
// `disable-compression: true`; against the simulated cluster over HTTPS (the loader's own
// transport: Deno.createHttpClient, Bun's fetch options, the Node transport) and over HTTP.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { KubeClient, pods } from "../../src/client/mod.ts";
import { createConfigLoader } from "../../src/config/mod.ts";
import { serve } from "../../src/adapters/node/serve.ts";
import { SimulatedCluster } from "@kinformer/simulator";
import { fixture, runtime, runtimeHost, tempDir } from "../fixtures/kubeconfig/helpers.ts";
import { NO_PROXY_VARS, withEnv } from "./_proxies.ts";

const PODS = 1500; // a LIST well over the server's 128 KiB threshold

/**
 * Lists PODS pods through a kubeconfig with `cluster` fields (over HTTPS with the fixture CA,
 * or HTTP), returning what the server was asked (`Accept-Encoding`) and sent
 * (`Content-Encoding`).
 */
async function listThroughLoader(
  scheme: "https" | "http",
  cluster: Record<string, unknown>,
): Promise<{ asked: (string | null)[]; sent: (string | null)[] }> {
  const sim = new SimulatedCluster();
  sim.seed(pods, PODS);
  const asked: (string | null)[] = [];
  const sent: (string | null)[] = [];
  const server = await serve(
    async (request) => {
      asked.push(request.headers.get("accept-encoding"));
      const response = await sim.fetch(request);
      sent.push(response.headers.get("content-encoding"));
      return response;
    },
    scheme === "https"
      ? {
        tls: { cert: await fixture("certs/server.crt"), key: await fixture("certs/server.key") },
      }
      : {},
  );
  const { dir, cleanup } = await tempDir();
  try {
    const path = join(dir, "config");
    const tls = scheme === "https"
      ? { "certificate-authority-data": btoa(await fixture("certs/ca.crt")) }
      : {};
    await writeFile(
      path,
      JSON.stringify({
        clusters: [{ name: "c", cluster: { server: server.url, ...tls, ...cluster } }],
        contexts: [{ name: "c", context: { cluster: "c" } }],
        "current-context": "c",
      }),
    );
    await withEnv(NO_PROXY_VARS, async () => {
      const options = await createConfigLoader(await runtimeHost()).loadKubeconfig({ path });
      try {
        assert.equal((await new KubeClient(options).list(pods)).items.length, PODS);
      } finally {
        options.close();
      }
    });
    return { asked, sent };
  } finally {
    await cleanup();
    sim.close();
    await server.close();
  }
}

describe(`compression with the ${runtime} loader`, () => {
  for (const scheme of ["https", "http"] as const) {
    test(`${scheme}: asks for gzip, gets it and decodes it`, async () => {
      const { asked, sent } = await listThroughLoader(scheme, {});
      assert.equal(asked.length, 1);
      assert.match(asked[0] ?? "", /\bgzip\b/);
      assert.deepEqual(sent, ["gzip"]);
    });

    test(`${scheme}: disable-compression: true asks for identity`, async () => {
      const { asked, sent } = await listThroughLoader(scheme, { "disable-compression": true });
      assert.deepEqual(asked, ["identity"]);
      assert.deepEqual(sent, [null]);
    });
  }
});
