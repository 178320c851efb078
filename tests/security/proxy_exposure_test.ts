// serial: sets process environment variables, which Deno shares between the modules it runs in
// parallel, so scripts/test.mjs runs this file on its own there.
// What a proxy from the environment gets to see (SECURITY.md "Proxies"), with this runtime's
// loader: every byte the proxy receives is recorded by a relay in front of it. Through
// HTTPS_PROXY an https server is reached with CONNECT: the proxy sees the target host and port
// and its own credentials, never the bearer token or the request. Through HTTP_PROXY an http
// server's request goes to the proxy as it is, and carries no credential from the kubeconfig.
// The cluster is named `kinformer.test` (resolves nowhere), so only the proxy can reach it.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { writeFile } from "node:fs/promises";
import net from "node:net";
import { join } from "node:path";
import { KubeClient, pods } from "../../src/client/mod.ts";
import { createConfigLoader } from "../../src/config/mod.ts";
import { SimulatedCluster } from "../../src/testing/mod.ts";
import { serve } from "../../src/adapters/node/serve.ts";
import { fixture, runtime, runtimeHost, tempDir } from "../fixtures/kubeconfig/helpers.ts";
import { httpProxy, NO_PROXY_VARS, toLoopback, withEnv } from "../config/_proxies.ts";
import { kubeconfigJson } from "./_canary.ts";

const TOKEN = "proxy-must-not-see-this-token";

/** A TCP relay to `port` on 127.0.0.1 recording every byte its clients send. */
async function recordingRelay(port: number): Promise<{
  port: number;
  received: () => string;
  close: () => Promise<void>;
}> {
  const chunks: Buffer[] = [];
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(port, "127.0.0.1");
    sockets.add(client).add(upstream);
    client.on("data", (chunk: Buffer) => chunks.push(chunk));
    client.pipe(upstream).pipe(client);
    client.on("error", () => upstream.destroy());
    upstream.on("error", () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    received: () => Buffer.concat(chunks).toString("latin1"),
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** Serves a cluster with 3 pods (HTTPS for `kinformer.test`, or HTTP), a proxy and a relay. */
async function withProxiedCluster(
  plain: boolean,
  body: (setup: { clusterPort: number; proxyUrl: string; received: () => string }) => Promise<void>,
): Promise<void> {
  const cluster = new SimulatedCluster(plain ? {} : { token: TOKEN });
  cluster.seed(pods, 3);
  const server = await serve(
    cluster.fetch,
    plain ? {} : {
      tls: {
        cert: await fixture("certs/named-server.crt"),
        key: await fixture("certs/named-server.key"),
      },
    },
  );
  const clusterPort = Number(new URL(server.url).port);
  const proxy = await httpProxy({ route: toLoopback(clusterPort) });
  const proxyPort = Number(new URL(proxy.url).port);
  const relay = await recordingRelay(proxyPort);
  try {
    await body({
      clusterPort,
      proxyUrl: proxy.url.replace(`:${proxyPort}`, `:${relay.port}`),
      received: relay.received,
    });
  } finally {
    await relay.close();
    await proxy.close();
    cluster.close();
    await server.close();
  }
}

/** Lists pods through a kubeconfig for `server` whose user has the token. */
async function listThrough(server: string): Promise<number> {
  const { dir, cleanup } = await tempDir();
  try {
    const path = join(dir, "config");
    const tls = server.startsWith("https:")
      ? { "certificate-authority-data": btoa(await fixture("certs/ca.crt")) }
      : {};
    await writeFile(path, kubeconfigJson({ server, ...tls }, { token: TOKEN }));
    const options = await createConfigLoader(await runtimeHost()).loadKubeconfig({ path });
    try {
      return (await new KubeClient(options).list(pods)).items.length;
    } finally {
      options.close();
    }
  } finally {
    await cleanup();
  }
}

describe(`what a proxy from the environment sees, with the ${runtime} loader`, () => {
  test("HTTPS_PROXY: CONNECT to the host and port with the proxy's own credentials; the token and the request stay inside TLS", async () => {
    await withProxiedCluster(false, async ({ clusterPort, proxyUrl, received }) => {
      await withEnv({ ...NO_PROXY_VARS, HTTPS_PROXY: proxyUrl }, async () => {
        assert.equal(await listThrough(`https://kinformer.test:${clusterPort}`), 3);
      });
      const seen = received();
      assert.match(seen, new RegExp(`^CONNECT kinformer\\.test:${clusterPort} HTTP/1\\.1\r\n`));
      assert.match(seen, new RegExp(`Proxy-Authorization: Basic ${btoa("user:p@ss")}\r\n`, "i"));
      assert.equal(seen.includes(TOKEN), false, "the bearer token never reaches the proxy");
      assert.equal(seen.includes(btoa(TOKEN)), false);
      assert.equal(seen.includes("/api/v1/pods"), false, "nor the request");
    });
  });

  test("HTTP_PROXY: the request to an http server goes to the proxy as it is, with no credential of the kubeconfig", async () => {
    await withProxiedCluster(true, async ({ clusterPort, proxyUrl, received }) => {
      await withEnv({ ...NO_PROXY_VARS, HTTP_PROXY: proxyUrl }, async () => {
        assert.equal(await listThrough(`http://kinformer.test:${clusterPort}`), 3);
      });
      const seen = received();
      assert.match(seen, new RegExp(`^GET http://kinformer\\.test:${clusterPort}/api/v1/pods`));
      assert.equal(seen.includes(TOKEN), false, "no kubeconfig credential over http");
      assert.equal(/^authorization:/im.test(seen), false);
    });
  });
});
