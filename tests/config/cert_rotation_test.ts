// serial: sets process environment variables, which Deno shares between the modules it runs in
// parallel, so scripts/test.mjs runs this file on its own there.
// Client certificate rotation with this runtime's loader (Node: new agents; Deno: a new
// Deno.HttpClient; Bun: new per-request tls options in a FetchSession of their own): certificate
// and key FILES are read again at a request at most once a second on the injected clock (as
// client-go's cachingCertificateLoader), and at once
// after a request fails to connect or is answered 401; new connections use the new pair and the
// old connections are closed.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import process from "node:process";
import { KubeApiError, KubeClient, KubeNetworkError, pods } from "../../src/client/mod.ts";
import { type ClusterClientOptions, createConfigLoader } from "../../src/config/mod.ts";
import { CERT_REFRESH_MS } from "../../src/config/_cert_rotation.ts";
import { ManualClock } from "../../src/testing/manual_clock.ts";
import { serve } from "../../src/adapters/node/serve.ts";
import { SimulatedCluster } from "@kinformer/simulator";
import {
  fixture,
  FIXTURES,
  runtime,
  runtimeHost,
  tempDir,
} from "../fixtures/kubeconfig/helpers.ts";
import { failure } from "../_errors.ts";
import { NO_PROXY_VARS, withEnv } from "./_proxies.ts";

/** The fixture pairs: `first` (CN kinformer-user, from ca.crt), `second` (from second-ca.crt). */
const PAIRS = { first: "client", second: "second-client" } as const;

/** Writes pair `name` to `dir`/me.crt and me.key (the key first, or only one of them). */
async function install(dir: string, name: keyof typeof PAIRS, only?: "crt" | "key") {
  for (const ext of ["key", "crt"] as const) {
    if (only !== undefined && ext !== only) continue;
    await writeFile(join(dir, `me.${ext}`), await fixture(`certs/${PAIRS[name]}.${ext}`));
  }
}

/** Resolves once `check()` holds, polling on macrotask turns (bounded, no wall-clock wait). */
async function eventually(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 2000; i++) {
    if (check()) return;
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  assert.fail(`never happened: ${what}`);
}

interface Setup {
  dir: string;
  clock: ManualClock;
  errors: unknown[];
  /** How many times the certificate file was read. */
  certReads(): number;
  /** Loads a kubeconfig naming me.crt/me.key (relative paths) for `server`. */
  load(server: string): Promise<ClusterClientOptions>;
}

async function withSetup(body: (setup: Setup) => Promise<void>): Promise<void> {
  const { dir, cleanup } = await tempDir();
  const clock = new ManualClock();
  const errors: unknown[] = [];
  const opened: ClusterClientOptions[] = [];
  const host = await runtimeHost();
  let certReads = 0;
  const counting = {
    ...host,
    readFile: (path: string) => {
      if (path.endsWith("me.crt")) certReads++;
      return host.readFile(path);
    },
  };
  try {
    await withEnv(NO_PROXY_VARS, () =>
      body({
        dir,
        clock,
        errors,
        certReads: () => certReads,
        load: async (server) => {
          const path = join(dir, "config");
          await writeFile(
            path,
            JSON.stringify({
              clusters: [{
                name: "c",
                cluster: {
                  server,
                  "certificate-authority-data": btoa(await fixture("certs/ca.crt")),
                },
              }],
              users: [{
                name: "me",
                user: { "client-certificate": "me.crt", "client-key": "me.key" },
              }],
              contexts: [{ name: "c", context: { cluster: "c", user: "me" } }],
              "current-context": "c",
            }),
          );
          const options = await createConfigLoader(counting).loadKubeconfig({
            path,
            clock,
            onTokenError: (error) => errors.push(error),
          });
          opened.push(options);
          return options;
        },
      }));
  } finally {
    for (const options of opened) options.close();
    await cleanup();
  }
}

/** The simulated cluster over HTTPS, authenticating client certificates from `clientCa`. */
async function httpsCluster(clientCa: string, token?: string) {
  const cluster = new SimulatedCluster(token === undefined ? {} : { token });
  cluster.seed(pods, 2);
  const server = await serve(cluster.fetch, {
    tls: {
      cert: await fixture("certs/server.crt"),
      key: await fixture("certs/server.key"),
      clientCa,
    },
  });
  return {
    cluster,
    url: server.url,
    close: async () => {
      cluster.close();
      await server.close();
    },
  };
}

describe(`client certificate rotation with the ${runtime} loader`, () => {
  test("the files are read at most once a second, at a request; the next request after a second uses a rotated pair", async () => {
    const bothCas = (await fixture("certs/ca.crt")) + (await fixture("certs/second-ca.crt"));
    const sim = await httpsCluster(bothCas);
    try {
      await withSetup(async ({ dir, clock, load, certReads }) => {
        assert.equal(CERT_REFRESH_MS, 1000, "client-go's cachingCertificateLoader: 1 s");
        await install(dir, "first");
        const client = new KubeClient(await load(sim.url));
        const atLoad = certReads();
        await Promise.all([client.list(pods), client.list(pods), client.list(pods)]);
        assert.equal(certReads(), atLoad, "read at load; not again within the second");

        await install(dir, "second");
        await clock.advance(CERT_REFRESH_MS - 1);
        await client.list(pods);
        assert.equal(certReads(), atLoad);
        assert.equal(sim.cluster.requests.at(-1)?.user, "kinformer-user");

        await clock.advance(1);
        await Promise.all([client.list(pods), client.list(pods), client.list(pods)]);
        assert.equal(certReads(), atLoad + 1, "concurrent requests share one read");
        const users = sim.cluster.requests.slice(-3).map((r) => r.user);
        assert.deepEqual(users, Array(3).fill("kinformer-second-user"));

        // Unchanged files are read again a second later, and nothing is rebuilt.
        await clock.advance(CERT_REFRESH_MS);
        await client.list(pods);
        assert.equal(certReads(), atLoad + 2);
        assert.equal(sim.cluster.requests.at(-1)?.user, "kinformer-second-user");
      });
    } finally {
      await sim.close();
    }
  });

  test("the files are read again after the refresh interval; the old connections are closed", async () => {
    const bothCas = (await fixture("certs/ca.crt")) + (await fixture("certs/second-ca.crt"));
    const sim = await httpsCluster(bothCas);
    try {
      await withSetup(async ({ dir, clock, load }) => {
        await install(dir, "first");
        const options = await load(sim.url);
        const client = new KubeClient(options);
        await client.list(pods);
        assert.equal(sim.cluster.requests.at(-1)?.user, "kinformer-user");
        // A watch holds a connection made with the first certificate.
        const watch = await options.fetch!(
          new Request(
            `${sim.url}/api/v1/pods?watch=1&resourceVersion=${sim.cluster.resourceVersion}`,
          ),
        );
        const reader = watch.body!.getReader();
        await eventually(() => sim.cluster.openWatches === 1, "the watch is open");

        await install(dir, "second");
        await clock.advance(CERT_REFRESH_MS - 1);
        await client.list(pods);
        assert.equal(sim.cluster.requests.at(-1)?.user, "kinformer-user", "not read yet");
        assert.equal(sim.cluster.openWatches, 1);

        await clock.advance(1);
        await client.list(pods);
        assert.equal(sim.cluster.requests.at(-1)?.user, "kinformer-second-user");
        // The connection made with the old certificate is closed: the watch ends with an error.
        await assert.rejects(reader.read(), /client certificate changed|closed|abort/i);
        await eventually(() => sim.cluster.openWatches === 0, "the server sees the watch end");
      });
    } finally {
      await sim.close();
    }
  });

  test("idle keep-alive connections made with the old pair are closed too, not only open watches", async (t) => {
    const server = await connectionTrackingTlsServer();
    if (server === undefined) {
      t.skip("no `node` executable to run the TLS server");
      return;
    }
    try {
      await withSetup(async ({ dir, clock, load }) => {
        await install(dir, "first");
        const client = new KubeClient(await load(server.url));
        const ask = async () =>
          await (await client.request("/state")).json() as {
            cn: string;
            socket: number;
            open: number[];
          };
        const first = await ask();
        assert.equal(first.cn, "kinformer-user");
        assert.equal((await ask()).socket, first.socket, "the connection is kept alive");
        await install(dir, "second");
        await clock.advance(CERT_REFRESH_MS);
        const second = await ask();
        assert.equal(second.cn, "kinformer-second-user");
        assert.notEqual(second.socket, first.socket);
        let open = second.open;
        for (let i = 0; i < 200 && open.includes(first.socket); i++) {
          await new Promise((resolve) => setTimeout(resolve, 5));
          open = (await ask()).open;
        }
        assert.deepEqual(open, [second.socket], "the old pair's idle connection was closed");
      });
    } finally {
      await server.close();
    }
  });

  test("a half-written pair (new certificate, old key) keeps the old pair until both match", async () => {
    const bothCas = (await fixture("certs/ca.crt")) + (await fixture("certs/second-ca.crt"));
    const sim = await httpsCluster(bothCas);
    try {
      await withSetup(async ({ dir, clock, errors, load }) => {
        await install(dir, "first");
        const client = new KubeClient(await load(sim.url));
        await install(dir, "second", "crt");
        await clock.advance(CERT_REFRESH_MS);
        await client.list(pods);
        assert.equal(sim.cluster.requests.at(-1)?.user, "kinformer-user");
        assert.equal(errors.length, 1);
        assert.match(String(errors[0]), /not the key of certData/);
        assert.doesNotMatch(String(errors[0]), /BEGIN/);

        await install(dir, "second", "key");
        await clock.advance(CERT_REFRESH_MS);
        await client.list(pods);
        assert.equal(sim.cluster.requests.at(-1)?.user, "kinformer-second-user");
      });
    } finally {
      await sim.close();
    }
  });

  test("after a 401 the files are read again at once", async () => {
    // Only the first CA is trusted: the second pair is not authenticated (401).
    const sim = await httpsCluster(await fixture("certs/ca.crt"), "some-token");
    try {
      await withSetup(async ({ dir, load }) => {
        await install(dir, "second");
        const client = new KubeClient(await load(sim.url));
        const error = await failure(client.list(pods));
        assert.ok(error instanceof KubeApiError);
        assert.equal(error.code, 401);
        await install(dir, "first"); // rotated; no time passes
        assert.equal((await client.list(pods)).items.length, 2);
        assert.equal(sim.cluster.requests.at(-1)?.user, "kinformer-user");
      });
    } finally {
      await sim.close();
    }
  });

  test("after a failed TLS handshake the files are read again at once", async (t) => {
    const server = await strictTlsServer();
    if (server === undefined) {
      t.skip("no `node` executable to run the strict TLS server");
      return;
    }
    try {
      await withSetup(async ({ dir, load }) => {
        await install(dir, "second"); // a CA the server does not take: the handshake fails
        const client = new KubeClient(await load(server.url));
        assert.ok(await failure(client.request("/version")) instanceof KubeNetworkError);
        await install(dir, "first");
        const answer = await (await client.request("/version")).json() as { cn: string };
        assert.equal(answer.cn, "kinformer-user");
      });
    } finally {
      await server.close();
    }
  });
});

/**
 * An HTTPS server (a Node child process, the same on every runtime) that refuses, in the TLS
 * handshake, any client certificate not signed by the fixture CA; it answers `{ cn }`.
 */
function strictTlsServer(): Promise<{ url: string; close(): Promise<void> } | undefined> {
  const source = `
import https from "node:https";
import fs from "node:fs";
const dir = process.argv.at(-1);
const server = https.createServer({
  key: fs.readFileSync(dir + "/server.key"),
  cert: fs.readFileSync(dir + "/server.crt"),
  ca: fs.readFileSync(dir + "/ca.crt"),
  requestCert: true,
  rejectUnauthorized: true,
}, (req, res) => res.end(JSON.stringify({ cn: req.socket.getPeerCertificate().subject.CN })));
server.listen(0, "127.0.0.1", () => console.log(server.address().port));
process.stdin.on("end", () => server.close(() => process.exit(0)));
process.stdin.resume();
`;
  return nodeTlsServer(source);
}

/**
 * An HTTPS server (a Node child process, the same on every runtime) that takes client
 * certificates from either fixture CA, keeps idle connections open forever, and answers
 * `{ cn, socket, open }`: the client certificate's CN, this connection's number, and the numbers
 * of the connections still open.
 */
function connectionTrackingTlsServer(): Promise<
  { url: string; close(): Promise<void> } | undefined
> {
  const source = `
import https from "node:https";
import fs from "node:fs";
const dir = process.argv.at(-1);
const open = new Set();
let next = 0;
const server = https.createServer({
  key: fs.readFileSync(dir + "/server.key"),
  cert: fs.readFileSync(dir + "/server.crt"),
  ca: [fs.readFileSync(dir + "/ca.crt"), fs.readFileSync(dir + "/second-ca.crt")],
  requestCert: true,
  rejectUnauthorized: true,
  keepAliveTimeout: 0,
}, (req, res) => res.end(JSON.stringify({
  cn: req.socket.getPeerCertificate().subject.CN,
  socket: req.socket.number,
  open: [...open].map((s) => s.number),
})));
server.on("secureConnection", (socket) => {
  socket.number = ++next;
  open.add(socket);
  socket.on("close", () => open.delete(socket));
});
server.listen(0, "127.0.0.1", () => console.log(server.address().port));
process.stdin.on("end", () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
});
process.stdin.resume();
`;
  return nodeTlsServer(source);
}

/** Runs a Node HTTPS server `source` that prints its port; undefined without `node`. */
function nodeTlsServer(
  source: string,
): Promise<{ url: string; close(): Promise<void> } | undefined> {
  const node = runtime === "node" ? process.execPath : "node";
  return new Promise((resolve, reject) => {
    const child = spawn(node, ["--input-type=module", "-e", source, join(FIXTURES, "certs")], {
      stdio: ["pipe", "pipe", "inherit"],
    });
    const exited = new Promise<void>((done) => child.once("exit", () => done()));
    let out = "";
    child.once("error", (error: Error & { code?: string }) => {
      if (error.code === "ENOENT") resolve(undefined);
      else reject(error);
    });
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (chunk: string) => {
      out += chunk;
      if (!out.includes("\n")) return;
      resolve({
        url: `https://127.0.0.1:${out.trim()}`,
        close: async () => {
          child.stdin.end();
          await exited;
        },
      });
    });
  });
}
