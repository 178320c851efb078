// The simulated cluster's WebSocket watch over real sockets, through every serve adapter this
// runtime has (Deno.serve, Bun.serve, node:http): the handshake's statuses as a raw client sees
// them, this runtime's own WebSocket under KubeClient, and an informer recovering from drops,
// stalls, garbage and expired history. The informer's timers run on a manual clock; the network
// is real, so conditions are awaited with a bound (never a fixed sleep).
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { connect, type Socket } from "node:net";
import { readFile } from "node:fs/promises";
import { connect as tlsConnect } from "node:tls";
import { bearerProtocol } from "../../../../src/client/websocket_watch.ts";
import { configmaps, KubeClient, pods, WebSocketWatchError } from "../../../../src/client/mod.ts";
import { createInformer } from "../../../../src/cache/informer.ts";
import { errorKindOf as classifyError } from "../../../../src/util/error_kind.ts";
import { decodeWatchStream } from "../../../../src/watch/watch_decoder.ts";
import { ManualClock } from "../../../../src/testing/manual_clock.ts";
import { SimulatedCluster } from "../../src/cluster/simulated_cluster.ts";
import { serve as serveNode } from "../../src/adapters/node/serve.ts";
import { adapters, runtime } from "../../../../tests/_serve.ts";
import { eventually } from "../../../../tests/_runtime_process.ts";
import { pod, seeded } from "../../../../tests/_informer_env.ts";

const TOKEN = "s3cr3t";
const KEY = "dGhlIHNhbXBsZSBub25jZQ==";

/** Sends a WebSocket handshake on a raw connection; resolves with the answer's head. */
function rawHandshake(
  socket: Socket,
  path: string,
  host: string,
  extra: Record<string, string>,
): Promise<{ status: number; head: string; rest: Uint8Array }> {
  const lines = [
    `GET ${path} HTTP/1.1`,
    `Host: ${host}`,
    "Upgrade: websocket",
    "Connection: Upgrade",
    `Sec-WebSocket-Key: ${KEY}`,
    "Sec-WebSocket-Version: 13",
    ...Object.entries(extra).map(([k, v]) => `${k}: ${v}`),
  ];
  socket.write(lines.join("\r\n") + "\r\n\r\n");
  return new Promise((resolve, reject) => {
    let buffer = new Uint8Array(0);
    const onData = (chunk: Uint8Array): void => {
      const joined = new Uint8Array(buffer.byteLength + chunk.byteLength);
      joined.set(buffer);
      joined.set(chunk, buffer.byteLength);
      buffer = joined;
      const text = new TextDecoder("latin1").decode(buffer);
      const end = text.indexOf("\r\n\r\n");
      if (end === -1) return;
      socket.off("data", onData);
      resolve({
        status: Number(text.slice(9, 12)),
        head: text.slice(0, end),
        rest: buffer.subarray(end + 4),
      });
    };
    socket.on("data", onData);
    socket.on("error", reject);
  });
}

async function rawConnect(url: string): Promise<Socket> {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  await new Promise<void>((resolve, reject) => {
    socket.once("connect", resolve);
    socket.once("error", reject);
  });
  return socket;
}

/** Reads server frames from `socket` (after the handshake), with `first` bytes already read. */
function frameReader(
  socket: Socket,
  first: Uint8Array,
): () => Promise<{ fin: boolean; opcode: number; payload: Uint8Array }> {
  let buffer = first;
  let wake: (() => void) | undefined;
  socket.on("data", (chunk: Uint8Array) => {
    const joined = new Uint8Array(buffer.byteLength + chunk.byteLength);
    joined.set(buffer);
    joined.set(chunk, buffer.byteLength);
    buffer = joined;
    wake?.();
  });
  return async () => {
    for (;;) {
      if (buffer.byteLength >= 2) {
        let length = buffer[1]! & 0x7f;
        let head = 2;
        if (length === 126) {
          length = (buffer[2]! << 8) | buffer[3]!;
          head = 4;
        } else if (length === 127) {
          length = Number(new DataView(buffer.buffer, buffer.byteOffset + 2, 8).getBigUint64(0));
          head = 10;
        }
        if (buffer.byteLength >= head + length) {
          const frame = {
            fin: (buffer[0]! & 0x80) !== 0,
            opcode: buffer[0]! & 0x0f,
            payload: buffer.slice(head, head + length),
          };
          buffer = buffer.slice(head + length);
          return frame;
        }
      }
      await new Promise<void>((resolve) => (wake = resolve));
    }
  };
}

/** A masked client frame. */
function masked(opcode: number, payload: Uint8Array, mask = true): Uint8Array {
  const out = new Uint8Array(2 + (mask ? 4 : 0) + payload.byteLength);
  out[0] = 0x80 | opcode;
  out[1] = (mask ? 0x80 : 0) | payload.byteLength;
  if (mask) out.set([1, 2, 3, 4], 2);
  for (let i = 0; i < payload.byteLength; i++) {
    out[(mask ? 6 : 2) + i] = mask ? payload[i]! ^ [1, 2, 3, 4][i & 3]! : payload[i]!;
  }
  return out;
}

for (const adapter of await adapters()) {
  describe(`WebSocket watch over ${adapter.name}`, () => {
    async function setup(clock?: ManualClock): Promise<{
      cluster: SimulatedCluster;
      url: string;
      client: KubeClient;
      close(): Promise<void>;
    }> {
      const cluster = new SimulatedCluster({ token: TOKEN, autoCreateNamespaces: true });
      cluster.create(configmaps, { metadata: { namespace: "default", name: "a" } });
      const server = await adapter.serve(cluster.fetch, { hostname: "127.0.0.1", port: 0 });
      const client = new KubeClient({
        server: server.url,
        token: TOKEN,
        watchTransport: "websocket",
        ...(clock === undefined ? {} : { clock }),
      });
      return {
        cluster,
        url: server.url,
        client,
        close: async () => {
          cluster.close();
          await server.close();
        },
      };
    }

    test("the handshake's answers: 101 echoing the one protocol; 401, 403 and 400 as the API server gives them", async () => {
      const { url, close } = await setup();
      const host = new URL(url).host;
      const path = "/api/v1/namespaces/default/configmaps?watch=1";
      const cases: Array<[Record<string, string>, number]> = [
        [{ Origin: url, "Sec-WebSocket-Protocol": `p, ${bearerProtocol(TOKEN)}` }, 101],
        [{ Origin: url, "Sec-WebSocket-Protocol": `p, ${bearerProtocol("wrong")}` }, 401],
        [{ Origin: url, "Sec-WebSocket-Protocol": bearerProtocol(TOKEN) }, 401],
        [{ "Sec-WebSocket-Protocol": `p, ${bearerProtocol(TOKEN)}` }, 403],
        [{
          Origin: "https://evil.example",
          "Sec-WebSocket-Protocol": `p, ${bearerProtocol(TOKEN)}`,
        }, 403],
        [{ Origin: url, "Sec-WebSocket-Protocol": `p, q, ${bearerProtocol(TOKEN)}` }, 400],
      ];
      try {
        for (const [headers, status] of cases) {
          const socket = await rawConnect(url);
          try {
            const answer = await rawHandshake(socket, path, host, headers);
            assert.equal(answer.status, status, `${JSON.stringify(headers)}\n${answer.head}`);
            if (status === 101) assert.match(answer.head, /\r\nsec-websocket-protocol: p(\r\n|$)/i);
            else assert.doesNotMatch(answer.head, /sec-websocket-accept/i);
          } finally {
            socket.destroy();
          }
        }
        const socket = await rawConnect(url);
        try {
          const old = await rawHandshake(socket, path, host, {
            Origin: url,
            "Sec-WebSocket-Version": "8",
          });
          assert.equal(old.status, 400, old.head);
        } finally {
          socket.destroy();
        }
      } finally {
        await close();
      }
    });

    test(`KubeClient over ${runtime}'s own WebSocket: one event per message; a drop fails the body with an abnormal closure filed as network`, async () => {
      const { cluster, client, close } = await setup();
      try {
        const response = await client.watch(configmaps, { namespace: "default" });
        assert.equal(cluster.requests.at(-1)?.webSocket, true);
        const names: string[] = [];
        const reading = (async () => {
          for await (const event of decodeWatchStream(response.body!)) {
            if (event.type !== "BOOKMARK") {
              names.push(`${event.type} ${event.object.metadata.name}`);
            }
          }
        })();
        await eventually(() => names.length === 1, "the initial ADDED");
        cluster.create(configmaps, {
          metadata: { namespace: "default", name: "b" },
          data: { t: "ü€😀".repeat(50) },
        });
        await eventually(() => names.length === 2, "the live ADDED");
        cluster.faults.dropWatches();
        await assert.rejects(reading, (error: unknown) => {
          assert.ok(error instanceof WebSocketWatchError, String(error));
          assert.equal(error.phase, "stream");
          assert.equal(error.wasClean, false);
          assert.equal(classifyError(error), "network");
          return true;
        });
        assert.deepEqual(names, ["ADDED a", "ADDED b"]);
        await eventually(() => cluster.openWatches === 0, "the server's watch ended");
      } finally {
        await close();
      }
    });

    test("an informer recovers over it: drop, stall (inactivity), garbage twice (relist), expired history (relist)", async () => {
      const clock = new ManualClock();
      const { cluster, client, close } = await setup();
      const errors: string[] = [];
      const informer = createInformer(client, {
        resource: pods,
        clock,
        random: seeded(3),
        inactivityTimeoutMs: 30_000,
        onError: (_error, context) => errors.push(context.kind),
      });
      /** Advances the informer's clock until `done()`, letting real I/O happen in between. */
      const until = async (done: () => boolean, what: string): Promise<void> => {
        for (let i = 0; i < 200 && !done(); i++) {
          await clock.advance(500);
          await new Promise((resolve) => setTimeout(resolve, 5));
        }
        assert.ok(done(), `${what} (errors: ${errors.join(", ")})`);
      };
      const watches = () =>
        cluster.requests.filter((r) => r.verb === "watch" && r.webSocket).length;
      const lists = () => cluster.requests.filter((r) => r.verb === "list").length;
      try {
        cluster.create(pods, pod("a", "p1"));
        informer.start();
        await until(() => informer.hasSynced() && cluster.openWatches === 1, "synced and watching");

        cluster.faults.dropWatches();
        cluster.create(pods, pod("a", "p2"));
        await until(() => informer.store.size === 2, "the event after the drop");
        assert.deepEqual(errors, ["network"]);

        await until(() => cluster.openWatches === 1, "watching again");
        cluster.faults.stall();
        await until(() => errors.includes("inactivity"), "the stalled watch is cut");
        cluster.faults.resume();
        cluster.create(pods, pod("a", "p3"));
        await until(() => informer.store.size === 3, "the event after the stall");

        const listsBefore = lists();
        cluster.faults.corruptWatches("malformed", { times: 2 });
        cluster.faults.dropWatches();
        await until(() => lists() === listsBefore + 1, "a relist after the second decode failure");
        assert.equal(errors.filter((k) => k === "decode").length, 2);

        await until(() => cluster.openWatches === 1, "watching after the relist");
        cluster.faults.dropWatches();
        cluster.create(pods, pod("a", "p4"));
        cluster.faults.compact();
        await until(
          () => errors.includes("expired") && informer.store.size === 4,
          "relisted after 410",
        );
        assert.equal(lists(), listsBefore + 2);
        assert.ok(watches() >= 6, `${watches()} watches, every one a WebSocket`);
        assert.equal(cluster.requests.filter((r) => r.verb === "watch" && !r.webSocket).length, 0);
        assert.deepEqual(
          [...new Set(errors)].sort(),
          ["decode", "expired", "inactivity", "network"],
        );
      } finally {
        try {
          await informer.stop();
          await eventually(() => cluster.openWatches === 0, "stop() closed the socket");
        } finally {
          // Even when the check above fails: a server left listening keeps the process alive.
          await close();
        }
      }
    });
  });
}

describe("WebSocket watch over node:http: frames", () => {
  async function opened(): Promise<{
    cluster: SimulatedCluster;
    socket: Socket;
    next: ReturnType<typeof frameReader>;
    close(): Promise<void>;
  }> {
    const cluster = new SimulatedCluster();
    cluster.create(configmaps, { metadata: { namespace: "default", name: "a" } });
    const server = await serveNode(cluster.fetch);
    const socket = await rawConnect(server.url);
    const answer = await rawHandshake(
      socket,
      "/api/v1/namespaces/default/configmaps?watch=1",
      new URL(server.url).host,
      { Origin: server.url },
    );
    assert.equal(answer.status, 101);
    return {
      cluster,
      socket,
      next: frameReader(socket, answer.rest),
      close: async () => {
        socket.destroy();
        cluster.close();
        await server.close();
      },
    };
  }

  test("text frames; a ping is ponged; a close is answered and ends the server's watch", async () => {
    const { cluster, socket, next, close } = await opened();
    try {
      const first = await next();
      assert.equal(first.opcode, 0x1);
      assert.equal(first.fin, true);
      assert.match(new TextDecoder().decode(first.payload), /^\{"type":"ADDED".*\}\n$/);
      socket.write(masked(0x9, new Uint8Array([7, 7])));
      const pong = await next();
      assert.deepEqual([pong.opcode, ...pong.payload], [0xa, 7, 7]);
      socket.write(masked(0x8, new Uint8Array([0x03, 0xe8])));
      const closeFrame = await next();
      assert.deepEqual([closeFrame.opcode, ...closeFrame.payload], [0x8, 0x03, 0xe8]);
      await eventually(() => cluster.openWatches === 0, "the watch ended");
    } finally {
      await close();
    }
  });

  test("the chunking fault shows as fragments (TEXT without FIN, then continuations)", async () => {
    const { cluster, next, close } = await opened();
    try {
      await next();
      cluster.faults.chunkBodies({ maxChunkBytes: 16 });
      cluster.create(configmaps, { metadata: { namespace: "default", name: "b" } });
      const parts: Array<{ fin: boolean; opcode: number; payload: Uint8Array }> = [];
      for (let f = await next();; f = await next()) {
        parts.push(f);
        if (f.fin) break;
      }
      assert.ok(parts.length > 2, `${parts.length} fragments`);
      assert.deepEqual(parts.map((p) => p.opcode), [0x1, ...parts.slice(1).map(() => 0x0)]);
      const text = new TextDecoder().decode(new Uint8Array(parts.flatMap((p) => [...p.payload])));
      assert.match(text, /^\{"type":"ADDED".*"name":"b".*\}\n$/);
    } finally {
      await close();
    }
  });

  test("an unmasked client frame is a protocol error: close 1002", async () => {
    const { socket, next, close } = await opened();
    try {
      await next();
      socket.write(masked(0x1, new Uint8Array([1]), false));
      const frame = await next();
      assert.deepEqual([frame.opcode, ...frame.payload], [0x8, 0x03, 0xea]);
    } finally {
      await close();
    }
  });

  test("over HTTPS (wss): the same handshake through node:tls", async () => {
    const fixture = (name: string) =>
      readFile(
        new URL(`../../../../tests/fixtures/kubeconfig/certs/${name}`, import.meta.url),
        "utf8",
      );
    const cluster = new SimulatedCluster();
    const server = await serveNode(cluster.fetch, {
      tls: { cert: await fixture("server.crt"), key: await fixture("server.key") },
    });
    const { hostname, port, host } = new URL(server.url);
    const socket = tlsConnect({ host: hostname, port: Number(port), ca: await fixture("ca.crt") });
    try {
      await new Promise<void>((resolve, reject) => {
        socket.once("secureConnect", resolve);
        socket.once("error", reject);
      });
      const answer = await rawHandshake(
        socket as unknown as Socket,
        "/api/v1/configmaps?watch=1",
        host,
        {
          Origin: server.url,
        },
      );
      assert.equal(answer.status, 101, answer.head);
      assert.equal(cluster.requests.at(-1)?.webSocket, true);
    } finally {
      socket.destroy();
      cluster.close();
      await server.close();
    }
  });
});
