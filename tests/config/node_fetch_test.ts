// The Node transport (createNodeFetch) against real local servers: plain HTTP servers written
// here for the wire details (keep-alive, streaming, abort, proxies, compression), and the
// simulated cluster over HTTPS for TLS. node:http runs on Deno and Bun too, so this file runs on
// all three runtimes.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import net from "node:net";
import { createGzip, gzipSync } from "node:zlib";
import { createInformer } from "../../src/cache/mod.ts";
import { KubeClient, KubeNetworkError, pods } from "../../src/client/mod.ts";
import { createNodeFetch } from "../../src/adapters/node/fetch.ts";
import { RESPONSE_BYTES, responseBytes } from "../../src/watch/response_bytes.ts";
import { serve } from "../../src/adapters/node/serve.ts";
import { SimulatedCluster } from "@kinformer/simulator";
import { fixture, runtime } from "../fixtures/kubeconfig/helpers.ts";
import { httpProxy, socksProxy } from "./_proxies.ts";

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/** A node:http server on 127.0.0.1 that counts connections; closed by `close()`. */
async function httpServer(handler: Handler): Promise<{
  url: string;
  connections: () => number;
  open: () => number;
  close(): Promise<void>;
}> {
  const sockets = new Set<net.Socket>();
  let connections = 0;
  const server: Server = createServer(handler);
  server.on("connection", (socket: net.Socket) => {
    connections++;
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    connections: () => connections,
    open: () => sockets.size,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** Resolves once `check()` holds, polling on macrotask turns (bounded, no wall-clock wait). */
async function eventually(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 2000; i++) {
    if (check()) return;
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  assert.fail(`never happened: ${what}`);
}

const encoder = new TextEncoder();

/**
 * `fetch`, counting the watch bodies taken through RESPONSE_BYTES (the informer's fast path)
 * rather than `body`.
 */
function countWatchTakes(
  fetch: (request: Request) => Promise<Response>,
): { fetch: (request: Request) => Promise<Response>; taken: () => number } {
  let taken = 0;
  const spied = async (request: Request): Promise<Response> => {
    const response = await fetch(request);
    const take = (response as unknown as Record<symbol, () => unknown>)[RESPONSE_BYTES]!;
    Object.defineProperty(response, RESPONSE_BYTES, {
      value: () => {
        if (new URL(request.url).searchParams.has("watch")) taken++;
        return take();
      },
    });
    return response;
  };
  return { fetch: spied, taken: () => taken };
}

describe("createNodeFetch over HTTP", () => {
  test("sends method, headers and body, and returns status, headers and body", async () => {
    const server = await httpServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        res.writeHead(201, { "content-type": "application/json", "x-seen": req.headers["x-a"] });
        res.end(JSON.stringify({
          method: req.method,
          url: req.url,
          length: req.headers["content-length"],
          body: Buffer.concat(chunks).toString("utf8"),
        }));
      });
    });
    const transport = createNodeFetch();
    try {
      const response = await transport.fetch(
        new Request(`${server.url}/api/v1/namespaces?x=1`, {
          method: "POST",
          headers: { "x-a": "b", "content-type": "application/json" },
          body: '{"ü":1}',
        }),
      );
      assert.equal(response.status, 201);
      assert.equal(response.headers.get("x-seen"), "b");
      assert.deepEqual(await response.json(), {
        method: "POST",
        url: "/api/v1/namespaces?x=1",
        length: String(encoder.encode('{"ü":1}').byteLength),
        body: '{"ü":1}',
      });
    } finally {
      transport.close();
      await server.close();
    }
  });

  test("keeps the connection alive: sequential requests share one socket", async () => {
    const server = await httpServer((_req, res) => res.end("ok"));
    const transport = createNodeFetch();
    try {
      for (let i = 0; i < 3; i++) {
        assert.equal(await (await transport.fetch(new Request(server.url))).text(), "ok");
      }
      assert.equal(server.connections(), 1);
      assert.equal(server.open(), 1); // idle in the pool
      transport.close();
      await eventually(() => server.open() === 0, "close() ends the pooled connection");
    } finally {
      transport.close();
      await server.close();
    }
  });

  test("streams the body: a chunk arrives while the server still holds the rest", async () => {
    let finish!: () => void;
    const server = await httpServer((_req, res) => {
      res.write("first\n");
      finish = () => res.end("second\n");
    });
    const transport = createNodeFetch();
    try {
      const response = await transport.fetch(new Request(server.url));
      const reader = response.body!.getReader();
      const first = await reader.read();
      assert.equal(new TextDecoder().decode(first.value), "first\n");
      finish();
      const second = await reader.read();
      assert.equal(new TextDecoder().decode(second.value), "second\n");
      assert.equal((await reader.read()).done, true);
    } finally {
      transport.close();
      await server.close();
    }
  });

  test("aborting mid-body fails the read with the reason and closes the connection", async () => {
    const server = await httpServer((_req, res) => res.write("partial"));
    const transport = createNodeFetch();
    try {
      const controller = new AbortController();
      const response = await transport.fetch(
        new Request(server.url, { signal: controller.signal }),
      );
      const reader = response.body!.getReader();
      await reader.read();
      const pending = reader.read();
      const reason = new Error("informer stopped");
      controller.abort(reason);
      await assert.rejects(pending, (error) => error === reason);
      await eventually(() => server.open() === 0, "the server sees the connection close");
    } finally {
      transport.close();
      await server.close();
    }
  });

  test("an aborted signal rejects before anything is sent", async () => {
    const server = await httpServer((_req, res) => res.end("ok"));
    const transport = createNodeFetch();
    try {
      const reason = new Error("too late");
      await assert.rejects(
        transport.fetch(new Request(server.url, { signal: AbortSignal.abort(reason) })),
        (error) => error === reason,
      );
      assert.equal(server.connections(), 0);
    } finally {
      transport.close();
      await server.close();
    }
  });

  test("RESPONSE_BYTES hands over the socket's chunks; return() frees the connection", async () => {
    const server = await httpServer((_req, res) => {
      res.write("a\n");
      res.write("b\n");
    });
    const transport = createNodeFetch();
    try {
      const response = await transport.fetch(new Request(server.url));
      assert.equal(typeof (response as { [RESPONSE_BYTES]?: unknown })[RESPONSE_BYTES], "function");
      const bytes = responseBytes(response);
      assert.ok(bytes !== null && !(bytes instanceof ReadableStream));
      const iterator = bytes[Symbol.asyncIterator]();
      let text = "";
      while (text !== "a\nb\n") {
        const chunk = await iterator.next();
        assert.equal(chunk.done, false);
        text += new TextDecoder().decode(chunk.value);
      }
      const pending = iterator.next(); // nothing more is coming: return() must end it
      await iterator.return!();
      assert.deepEqual(await pending, { done: true, value: undefined });
      await eventually(() => server.open() === 0, "the connection is closed");
      // The Web body cannot be read any more: the bytes were taken.
      await assert.rejects(response.text(), /RESPONSE_BYTES/);
    } finally {
      transport.close();
      await server.close();
    }
  });

  test("a body read through the Web stream is no longer offered as RESPONSE_BYTES", async () => {
    const server = await httpServer((_req, res) => res.end("whole"));
    const transport = createNodeFetch();
    try {
      const response = await transport.fetch(new Request(server.url));
      const reader = response.body!.getReader();
      await reader.read();
      reader.releaseLock();
      assert.ok(responseBytes(response) instanceof ReadableStream);
    } finally {
      transport.close();
      await server.close();
    }
  });

  test("a connection that drops mid-body fails the read", async () => {
    const server = await httpServer((_req, res) => {
      res.writeHead(200, { "content-length": "100" });
      res.write("short");
      setTimeout(() => res.socket?.destroy(), 0);
    });
    const transport = createNodeFetch();
    try {
      const response = await transport.fetch(new Request(server.url));
      await assert.rejects(response.text(), TypeError);
    } finally {
      transport.close();
      await server.close();
    }
  });

  test("204 and HEAD answers have no body; gzip answers are decoded", async () => {
    const server = await httpServer((req, res) => {
      if (req.url === "/empty") {
        res.writeHead(204);
        res.end();
      } else if (req.url === "/gzip") {
        res.writeHead(200, { "content-encoding": "gzip" });
        res.end(gzipSync("compressed text"));
      } else res.end("body");
    });
    const transport = createNodeFetch();
    try {
      const empty = await transport.fetch(new Request(`${server.url}/empty`));
      assert.equal(empty.status, 204);
      assert.equal(empty.body, null);
      const head = await transport.fetch(new Request(server.url, { method: "HEAD" }));
      assert.equal(head.body, null);
      const gzip = await transport.fetch(new Request(`${server.url}/gzip`));
      assert.equal(await gzip.text(), "compressed text");
    } finally {
      transport.close();
      await server.close();
    }
  });

  test("a refused connection rejects with a TypeError naming the server", async () => {
    const server = await httpServer((_req, res) => res.end());
    const url = server.url;
    await server.close();
    const transport = createNodeFetch();
    try {
      await assert.rejects(
        transport.fetch(new Request(url)),
        (error: unknown) =>
          error instanceof TypeError && error.message.includes(url) &&
          /ECONNREFUSED/.test(error.message),
      );
    } finally {
      transport.close();
    }
  });

  test("close() ends pooled and open connections, and later calls reject", async () => {
    const server = await httpServer((req, res) => {
      if (req.url === "/watch") res.write("open");
      else res.end("ok");
    });
    const transport = createNodeFetch();
    await (await transport.fetch(new Request(server.url))).text();
    const watch = await transport.fetch(new Request(`${server.url}/watch`));
    const reader = watch.body!.getReader();
    await reader.read();
    transport.close();
    transport.close(); // idempotent
    await assert.rejects(reader.read());
    await eventually(() => server.open() === 0, "every connection is closed");
    await assert.rejects(transport.fetch(new Request(server.url)), /closed/);
    await server.close();
  });

  test("bad settings are refused up front", () => {
    assert.throws(
      () => createNodeFetch({ caData: "-----BEGIN CERTIFICATE-----", insecureSkipTlsVerify: true }),
      /insecureSkipTlsVerify and caData cannot be used together/,
    );
    assert.throws(() => createNodeFetch({ certData: "x" }), /certData and keyData/);
    assert.throws(() => createNodeFetch({ proxyUrl: "ftp://proxy" }), /proxy-url must be/);
  });

  test("a CA, certificate or key that cannot work is refused up front, not at every request", async () => {
    const garbled = "-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydA==\n-----END CERTIFICATE-----\n";
    const refused = (transport: Parameters<typeof createNodeFetch>[0], what: RegExp): void => {
      assert.throws(() => createNodeFetch(transport), (error: unknown) => {
        assert.ok(error instanceof TypeError);
        assert.match(error.message, what);
        assert.doesNotMatch(error.message, /BEGIN|bm90IGEgY2VydA/); // never the PEM itself
        return true;
      });
    };
    refused({ caData: garbled }, /^caData \(certificate-authority\) cannot be used/);
    refused({ caData: "no pem here" }, /caData \(certificate-authority\) holds no PEM/);
    const cert = await fixture("certs/client.crt");
    const key = await fixture("certs/client.key");
    refused({ certData: garbled, keyData: key }, /^certData \(client-certificate\) cannot be used/);
    refused(
      { certData: cert, keyData: await fixture("certs/second-client.key") },
      /keyData \(client-key\) is not the key of certData/,
    );
    createNodeFetch({ caData: await fixture("certs/ca.crt"), certData: cert, keyData: key })
      .close();
  });
});

describe("createNodeFetch and compression", () => {
  /** A cluster of `n` pods served over HTTP, recording each request's Accept-Encoding and the
   * answer's Content-Encoding. */
  async function recordedCluster(n: number) {
    const cluster = new SimulatedCluster();
    cluster.seed(pods, n);
    const asked: (string | null)[] = [];
    const sent: (string | null)[] = [];
    const server = await serve(async (request) => {
      asked.push(request.headers.get("accept-encoding"));
      const response = await cluster.fetch(request);
      sent.push(response.headers.get("content-encoding"));
      return response;
    });
    return {
      url: server.url,
      asked,
      sent,
      close: async () => {
        cluster.close();
        await server.close();
      },
    };
  }

  test("asks for gzip and decodes a compressed LIST as it streams", async () => {
    const cluster = await recordedCluster(1500); // well over the server's 128 KiB threshold
    const transport = createNodeFetch();
    try {
      const client = new KubeClient({ server: cluster.url, fetch: transport.fetch });
      const list = await client.list(pods);
      assert.equal(list.items.length, 1500);
      assert.deepEqual(cluster.asked, ["gzip"]);
      assert.deepEqual(cluster.sent, ["gzip"]);
    } finally {
      transport.close();
      await cluster.close();
    }
  });

  test("disableCompression asks for identity; a request's own Accept-Encoding is kept", async () => {
    const cluster = await recordedCluster(1500);
    const transport = createNodeFetch({ disableCompression: true });
    try {
      const client = new KubeClient({ server: cluster.url, fetch: transport.fetch });
      assert.equal((await client.list(pods)).items.length, 1500);
      const own = await transport.fetch(
        new Request(`${cluster.url}/api/v1/pods`, { headers: { "accept-encoding": "gzip" } }),
      );
      assert.equal(((await own.json()) as { items: unknown[] }).items.length, 1500);
      assert.deepEqual(cluster.asked, ["identity", "gzip"]);
      assert.deepEqual(cluster.sent, [null, "gzip"]);
    } finally {
      transport.close();
      await cluster.close();
    }
  });

  test("a gzip-encoded watch is decoded on the informer's fast path (RESPONSE_BYTES)", async () => {
    const list = JSON.stringify({
      kind: "PodList",
      apiVersion: "v1",
      metadata: { resourceVersion: "10" },
      items: [],
    });
    const event = (name: string, rv: number): string =>
      JSON.stringify({
        type: "ADDED",
        object: {
          kind: "Pod",
          apiVersion: "v1",
          metadata: { name, namespace: "default", resourceVersion: String(rv), uid: name },
        },
      }) + "\n";
    const server = await httpServer((req, res) => {
      if (!new URL(req.url!, "http://x").searchParams.has("watch")) {
        res.end(list);
        return;
      }
      // A proxy in front may compress a watch (kube-apiserver does not): flushed per event.
      res.writeHead(200, { "content-type": "application/json", "content-encoding": "gzip" });
      const gzip = createGzip();
      gzip.pipe(res);
      let rv = 11;
      for (const name of ["a", "b", "c"]) {
        gzip.write(event(name, rv++));
        gzip.flush();
      }
    });
    const transport = createNodeFetch();
    const spied = countWatchTakes(transport.fetch);
    const informer = createInformer(new KubeClient({ server: server.url, fetch: spied.fetch }), {
      resource: pods,
    });
    const controller = new AbortController();
    try {
      informer.start({ signal: controller.signal });
      const names: string[] = [];
      for await (const e of informer.events({ signal: controller.signal })) {
        if (e.type === "add") names.push(e.object.metadata?.name ?? "");
        if (names.length === 3) break;
      }
      assert.deepEqual(names, ["a", "b", "c"]);
      assert.equal(spied.taken(), 1, "the watch body was read through RESPONSE_BYTES");
    } finally {
      controller.abort();
      await informer.stop();
      transport.close();
      await server.close();
    }
  });
});

describe("an informer on the Node transport", () => {
  test("watches through the socket chunks, and stop() releases the watch connection", async () => {
    const cluster = new SimulatedCluster();
    const server = await serve(cluster.fetch);
    const transport = createNodeFetch();
    const spied = countWatchTakes(transport.fetch);
    let informer: ReturnType<typeof createInformer> | undefined;
    try {
      informer = createInformer(
        new KubeClient({ server: server.url, fetch: spied.fetch }),
        {
          resource: pods,
          namespace: "default",
        },
      );
      const controller = new AbortController();
      const names: string[] = [];
      informer.start({ signal: controller.signal });
      await informer.waitForSync({ signal: controller.signal });
      for (const name of ["a", "b", "c"]) {
        cluster.create(pods, { metadata: { namespace: "default", name } });
      }
      for await (const event of informer.events({ signal: controller.signal })) {
        if (event.type === "add") names.push(event.object.metadata?.name ?? "");
        if (names.length === 3) break;
      }
      assert.deepEqual(names, ["a", "b", "c"]);
      assert.equal(cluster.openWatches, 1);
      assert.equal(spied.taken(), 1, "the watch body was read through RESPONSE_BYTES");
      await informer.stop();
      await eventually(() => cluster.openWatches === 0, "the server sees the watch end");
    } finally {
      await informer?.stop();
      transport.close();
      cluster.close();
      await server.close();
    }
  });
});

describe("createNodeFetch through a proxy", () => {
  /**
   * A cluster of 2 pods served over HTTPS, and a client of it through `proxy` (the transport
   * trusts the cluster's CA); `close()` releases the transport, the cluster and the proxy.
   */
  async function httpsClusterThrough(proxy: { url: string; close(): Promise<void> }) {
    const cluster = new SimulatedCluster({ token: "t0k3n" });
    cluster.seed(pods, 2);
    const server = await serve(cluster.fetch, {
      tls: { cert: await fixture("certs/server.crt"), key: await fixture("certs/server.key") },
    });
    const transport = createNodeFetch({
      caData: await fixture("certs/ca.crt"),
      proxyUrl: proxy.url,
    });
    return {
      client: new KubeClient({ server: server.url, token: "t0k3n", fetch: transport.fetch }),
      port: new URL(server.url).port,
      close: async () => {
        transport.close();
        cluster.close();
        await server.close();
        await proxy.close();
      },
    };
  }

  test("an https server through an HTTP proxy: CONNECT with the proxy's credentials", async () => {
    const proxy = await httpProxy();
    const { client, port, close } = await httpsClusterThrough(proxy);
    try {
      assert.equal((await client.list(pods)).items.length, 2);
      assert.equal((await client.list(pods)).items.length, 2);
      const connect = `CONNECT 127.0.0.1:${port} auth=Basic ${
        Buffer.from("user:p@ss").toString("base64")
      }`;
      // Every tunnel carries the credentials, Basic-encoded. On Node one tunnel is kept alive
      // for both requests. Deno's node:http reuses it only when the socket is back in the
      // agent's pool before the second request starts, which depends on scheduling (a loaded
      // machine sees one tunnel or two): at most one per request there.
      assert.ok(proxy.seen.length >= 1, "no CONNECT reached the proxy");
      assert.deepEqual(
        proxy.seen,
        Array(runtime === "deno" ? Math.min(proxy.seen.length, 2) : 1).fill(connect),
      );
    } finally {
      await close();
    }
  });

  test("an http server through an HTTP proxy: the absolute URL is asked for", async () => {
    const proxy = await httpProxy();
    const server = await httpServer((req, res) => res.end(`hello ${req.url}`));
    const transport = createNodeFetch({ proxyUrl: proxy.url });
    try {
      const response = await transport.fetch(new Request(`${server.url}/version`));
      assert.equal(await response.text(), "hello /version");
      assert.equal(proxy.seen.length, 1);
      assert.match(proxy.seen[0]!, new RegExp(`^GET ${server.url}/version auth=Basic `));
    } finally {
      transport.close();
      await server.close();
      await proxy.close();
    }
  });

  test("an https server through a SOCKS5 proxy with user and password", async () => {
    const proxy = await socksProxy();
    const { client, port, close } = await httpsClusterThrough(proxy);
    try {
      assert.equal((await client.list(pods)).items.length, 2);
      assert.deepEqual(proxy.seen, ["auth kin:former", `connect 127.0.0.1:${port}`]);
    } finally {
      await close();
    }
  });

  test("an http server through a SOCKS5 proxy", async () => {
    const proxy = await socksProxy();
    const server = await httpServer((req, res) => res.end(`plain ${req.url}`));
    const transport = createNodeFetch({ proxyUrl: proxy.url.replace("kin:former@", "") });
    try {
      const response = await transport.fetch(new Request(`${server.url}/healthz`));
      assert.equal(await response.text(), "plain /healthz");
      assert.deepEqual(proxy.seen, [`connect 127.0.0.1:${new URL(server.url).port}`]);
    } finally {
      transport.close();
      await server.close();
      await proxy.close();
    }
  });

  test("a proxy that refuses the tunnel fails the request with what it answered", async () => {
    const proxy = await httpServer((_req, res) => res.end());
    const transport = createNodeFetch({ proxyUrl: proxy.url });
    // node:http answers CONNECT without a 'connect' listener by closing the connection.
    try {
      const client = new KubeClient({ server: "https://127.0.0.1:1", fetch: transport.fetch });
      await assert.rejects(client.request("/version"), (error: unknown) => {
        assert.ok(error instanceof KubeNetworkError);
        assert.match(error.message, /proxy http:\/\/127\.0\.0\.1:\d+\//);
        return true;
      });
    } finally {
      transport.close();
      await proxy.close();
    }
  });
});
