// The simulated cluster's WebSocket watch: the real API server's handshake rules (the bearer
// subprotocol authenticator, one echoed protocol, Origin required, CORS), checked on
// `cluster.fetch` directly, and the in-process WebSocket (`cluster.webSocket`) that behaves as a
// browser's does.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { bearerProtocol } from "../../../../../src/client/websocket_watch.ts";
import {
  configmaps,
  type WebSocketInit,
  type WebSocketLike,
} from "../../../../../src/client/mod.ts";
import { ManualClock } from "../../../../../src/testing/manual_clock.ts";
import { SimulatedCluster } from "../../../src/cluster/simulated_cluster.ts";

const WATCH = "http://sim.test/api/v1/namespaces/default/configmaps?watch=1";

/** A WebSocket handshake request to the cluster. */
function handshake(
  url: string,
  options: { origin?: string | null; protocols?: string[]; authorization?: string } = {},
): Request {
  const headers = new Headers({
    upgrade: "websocket",
    connection: "Upgrade",
    "sec-websocket-version": "13",
    "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ==",
  });
  const origin = options.origin === undefined ? "http://localhost:5173" : options.origin;
  if (origin !== null) headers.set("origin", origin);
  if (options.protocols !== undefined) {
    headers.set("sec-websocket-protocol", options.protocols.join(", "));
  }
  if (options.authorization !== undefined) headers.set("authorization", options.authorization);
  return new Request(url, { headers });
}

async function statusOf(response: Response): Promise<{ code: number; message: string }> {
  const body = await response.json() as { code: number; message: string };
  return { code: response.status, message: body.message };
}

function withCluster(
  options: ConstructorParameters<typeof SimulatedCluster>[0],
  fn: (cluster: SimulatedCluster) => Promise<void>,
): Promise<void> {
  const cluster = new SimulatedCluster(options);
  cluster.create(configmaps, { metadata: { namespace: "default", name: "a" } });
  return fn(cluster).finally(() => cluster.close());
}

describe("simulated cluster: the WebSocket handshake of a watch", () => {
  test("accepted: a 200 with Upgrade: websocket that echoes the one protocol left once the token's is removed", async () => {
    await withCluster({ token: "s3cret" }, async (cluster) => {
      const response = await cluster.fetch(
        handshake(WATCH, { protocols: ["base64.binary.k8s.io", bearerProtocol("s3cret")] }),
      );
      assert.equal(response.status, 200);
      assert.equal(response.headers.get("upgrade"), "websocket");
      assert.equal(response.headers.get("sec-websocket-protocol"), "base64.binary.k8s.io");
      const reader = response.body!.getReader();
      const first = new TextDecoder().decode((await reader.read()).value);
      assert.match(first, /^\{"type":"ADDED".*"name":"a"/);
      await reader.cancel();
      const recorded = cluster.requests.at(-1)!;
      assert.equal(recorded.verb, "watch");
      assert.equal(recorded.webSocket, true);
      assert.equal(cluster.openWatches, 0, "cancelling the body ends the watch");
    });
  });

  test("no protocol offered and no token needed: accepted, nothing echoed", async () => {
    await withCluster({}, async (cluster) => {
      const response = await cluster.fetch(handshake(WATCH));
      assert.equal(response.status, 200);
      assert.equal(response.headers.get("sec-websocket-protocol"), null);
      await response.body!.cancel();
    });
  });

  const refusals: Array<[string, Parameters<typeof handshake>[1], number, RegExp]> = [
    ["a wrong token", { protocols: ["p", bearerProtocol("wrong")] }, 401, /Unauthorized/],
    [
      "two bearer protocols",
      { protocols: ["p", bearerProtocol("s3cret"), bearerProtocol("s3cret")] },
      401,
      /multiple base64\.bearer\.authorization tokens/,
    ],
    [
      "a token that is not base64url",
      { protocols: ["p", "base64url.bearer.authorization.k8s.io.a+b="] },
      401,
      /invalid base64\.bearer\.authorization token encoding/,
    ],
    [
      "a token offered alone",
      { protocols: [bearerProtocol("s3cret")] },
      401,
      /missing additional subprotocol/,
    ],
    ["no credential at all", { protocols: ["p"] }, 401, /Unauthorized/],
    [
      "no Origin",
      { origin: null, protocols: ["p", bearerProtocol("s3cret")] },
      403,
      /no Origin header/,
    ],
    [
      "an origin the CORS policy does not allow",
      { origin: "https://evil.example", protocols: ["p", bearerProtocol("s3cret")] },
      403,
      /origin "https:\/\/evil\.example" is not allowed/,
    ],
    [
      "two protocols besides the token's",
      { protocols: ["a", "b", bearerProtocol("s3cret")] },
      400,
      /2 subprotocols offered/,
    ],
    [
      "a token both in Authorization and as a protocol (the header authenticates; the protocol stays)",
      { protocols: ["p", bearerProtocol("s3cret")], authorization: "Bearer s3cret" },
      400,
      /2 subprotocols offered/,
    ],
  ];
  for (const [what, options, code, message] of refusals) {
    test(`refused with ${code}: ${what}`, async () => {
      await withCluster({ token: "s3cret" }, async (cluster) => {
        const answer = await statusOf(await cluster.fetch(handshake(WATCH, options)));
        assert.equal(answer.code, code);
        assert.match(answer.message, message);
        assert.doesNotMatch(answer.message, /s3cret|czNjcmV0/, "never the token");
        assert.equal(cluster.openWatches, 0);
      });
    });
  }

  test('Origin "null" is refused by the handshake even when the CORS policy lets it through', async () => {
    await withCluster({ corsAllowedOrigins: ["null"] }, async (cluster) => {
      const answer = await statusOf(await cluster.fetch(handshake(WATCH, { origin: "null" })));
      assert.equal(answer.code, 403);
      assert.match(answer.message, /no Origin header/);
    });
  });

  test("the watch request is validated first: a too-large resource version is 504 even without an Origin", async () => {
    await withCluster({}, async (cluster) => {
      const answer = await statusOf(
        await cluster.fetch(handshake(`${WATCH}&resourceVersion=999`, { origin: null })),
      );
      assert.equal(answer.code, 504);
    });
  });

  test("the cluster's own origin on a loopback host is same-origin, allowed whatever corsAllowedOrigins says; a DNS-rebound page's is not", async () => {
    await withCluster({ corsAllowedOrigins: [] }, async (cluster) => {
      const loopback = "http://127.0.0.1:8001";
      const own = await cluster.fetch(
        handshake(`${loopback}/api/v1/namespaces/default/configmaps?watch=1`, { origin: loopback }),
      );
      assert.equal(own.status, 200);
      await own.body!.cancel();
      // A page on evil.example that DNS rebinding points at the cluster: same origin as the
      // URL it asks for, but not a loopback name.
      const rebound = "http://evil.example:8001";
      const page = await cluster.fetch(
        handshake(`${rebound}/api/v1/namespaces/default/configmaps?watch=1`, { origin: rebound }),
      );
      assert.equal(page.status, 403);
      const other = await cluster.fetch(handshake(WATCH, { origin: "http://localhost:1" }));
      assert.equal(other.status, 403);
    });
  });

  test("a handshake to anything but a watch is answered as plain HTTP (no upgrade)", async () => {
    await withCluster({}, async (cluster) => {
      const response = await cluster.fetch(
        handshake("http://sim.test/api/v1/namespaces/default/configmaps"),
      );
      assert.equal(response.status, 200);
      assert.equal(response.headers.get("upgrade"), null);
      assert.equal((await response.json() as { kind: string }).kind, "ConfigMapList");
    });
  });

  test("a watch from a compacted resource version is accepted, then one ERROR 410 message", async () => {
    await withCluster({}, async (cluster) => {
      cluster.create(configmaps, { metadata: { namespace: "default", name: "b" } });
      cluster.faults.compact();
      const response = await cluster.fetch(handshake(`${WATCH}&resourceVersion=1`));
      assert.equal(response.status, 200);
      assert.equal(response.headers.get("upgrade"), "websocket");
      const text = await response.text();
      assert.match(text, /^\{"type":"ERROR","object":\{.*"code":410\}\}\n$/);
    });
  });
});

/** Opens an in-process socket and records what it tells its listeners. */
function open(
  cluster: SimulatedCluster,
  url: string,
  protocols: string[],
  headers: Record<string, string> = { origin: "http://sim.test" },
): { socket: WebSocketLike; log: string[]; closed: Promise<void> } {
  const init: WebSocketInit = { protocols, headers, signal: new AbortController().signal };
  // The in-process factory returns its socket at once (no promise).
  const socket = cluster.webSocket(url, init) as WebSocketLike;
  const log: string[] = [];
  let done!: () => void;
  const closed = new Promise<void>((resolve) => (done = resolve));
  socket.addEventListener("open", () => log.push("open"));
  socket.addEventListener("error", () => log.push("error"));
  socket.addEventListener("message", (e) => {
    const data = (e as unknown as { data: string }).data;
    log.push(`message ${JSON.parse(data).type}${data.endsWith("\n") ? "\\n" : ""}`);
  });
  socket.addEventListener("close", (e) => {
    const c = e as unknown as { code: number; wasClean: boolean };
    log.push(`close ${c.code} ${c.wasClean ? "clean" : "abnormal"}`);
    done();
  });
  return { socket, log, closed };
}

describe("simulated cluster: the in-process WebSocket (cluster.webSocket)", () => {
  test("one message per event, each with its newline; the watch's timeout closes with 1000", async () => {
    const clock = new ManualClock();
    await withCluster({ clock }, async (cluster) => {
      const { socket, log, closed } = open(
        cluster,
        "ws://sim.test/api/v1/namespaces/default/configmaps?watch=1&timeoutSeconds=5",
        ["base64.binary.k8s.io"],
      );
      await clock.flush();
      assert.equal(socket.protocol, "base64.binary.k8s.io");
      cluster.create(configmaps, { metadata: { namespace: "default", name: "b" } });
      await clock.flush();
      await clock.advance(5_000);
      await closed;
      assert.deepEqual(log, ["open", "message ADDED\\n", "message ADDED\\n", "close 1000 clean"]);
      assert.equal(cluster.openWatches, 0);
    });
  });

  test("a refused handshake is an error, then close 1006, with no status (as in a browser)", async () => {
    await withCluster({ token: "s3cret" }, async (cluster) => {
      const { log, closed } = open(cluster, "ws://sim.test/api/v1/configmaps?watch=1", ["p"]);
      await closed;
      assert.deepEqual(log, ["error", "close 1006 abnormal"]);
    });
  });

  test("a dropped watch closes with 1006, not clean, after the messages sent before", async () => {
    const clock = new ManualClock();
    await withCluster({ clock }, async (cluster) => {
      const { log, closed } = open(
        cluster,
        "ws://sim.test/api/v1/namespaces/default/configmaps?watch=1",
        ["p"],
      );
      await clock.flush();
      cluster.faults.dropWatches();
      await closed;
      assert.deepEqual(log, ["open", "message ADDED\\n", "error", "close 1006 abnormal"]);
    });
  });

  test("closing it from the client ends the server's watch; garbage and chunking pass as messages", async () => {
    const clock = new ManualClock();
    await withCluster({ clock }, async (cluster) => {
      cluster.faults.chunkBodies({ maxChunkBytes: 3 });
      cluster.faults.corruptWatches("unknown-type");
      const { socket, log, closed } = open(
        cluster,
        "ws://sim.test/api/v1/namespaces/default/configmaps?watch=1",
        [],
      );
      for (let i = 0; i < 200 && log.length < 3; i++) await clock.flush();
      assert.equal(cluster.openWatches, 1);
      socket.close(1000);
      await closed;
      assert.deepEqual(log, ["open", "message RESIZED\\n", "message ADDED\\n", "close 1000 clean"]);
      assert.equal(cluster.openWatches, 0);
    });
  });
});
