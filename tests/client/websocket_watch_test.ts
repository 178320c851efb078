// Watches over a WebSocket, on the client's side: what is offered in the handshake (the token
// as a subprotocol, exactly one other protocol, an Origin), how messages become the body the
// watch decoder reads, how every way a socket can end becomes the body's end or a typed error,
// and that aborting or cancelling always closes the socket. Sockets here are scripted fakes.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import {
  BEARER_PROTOCOL_PREFIX,
  bearerProtocol,
  DEFAULT_WEBSOCKET_PROTOCOL,
} from "../../src/client/websocket_watch.ts";
import {
  fetchWebSocket,
  globalWebSocket,
  KubeApiError,
  KubeClient,
  type KubeClientOptions,
  pods,
  type WebSocketInit,
  WebSocketWatchError,
} from "../../src/client/mod.ts";
import { resolveWatchTransport } from "../../src/client/watch_transport.ts";
import { openWebSocketWatch, resolveWebSocketOptions } from "../../src/client/websocket_watch.ts";
import type { WebSocketLike } from "../../src/client/websocket_factory.ts";
import { errorKindOf as classifyError } from "../../src/util/error_kind.ts";
import { decodeWatchStream } from "../../src/watch/watch_decoder.ts";
import { WatchDecodeError } from "../../src/watch/decode_error.ts";
import { LineTooLongError } from "../../src/watch/line_splitter.ts";

/** A scripted WebSocket: the test plays the server's side. */
class FakeSocket extends EventTarget implements WebSocketLike {
  readyState = 0;
  protocol = "";
  binaryType = "blob";
  readonly closes: { code: number | undefined; reason: string | undefined }[] = [];
  readonly url: string;
  readonly init: WebSocketInit;
  constructor(url: string, init: WebSocketInit) {
    super();
    this.url = url;
    this.init = init;
  }
  open(protocol = this.init.protocols[0] ?? ""): void {
    this.readyState = 1;
    this.protocol = protocol;
    this.dispatchEvent(new Event("open"));
  }
  message(data: unknown): void {
    this.dispatchEvent(new MessageEvent("message", { data }));
  }
  serverClose(code: number, wasClean = true, reason = ""): void {
    this.readyState = 3;
    if (!wasClean) this.dispatchEvent(new Event("error"));
    this.dispatchEvent(Object.assign(new Event("close"), { code, reason, wasClean }));
  }
  close(code?: number, reason?: string): void {
    this.closes.push({ code, reason });
    if (this.readyState < 2) this.readyState = 2;
  }
}

/** A client whose WebSocket factory hands out scripted sockets (the last one is `socket()`). */
function socketClient(
  options: Omit<KubeClientOptions, "server"> & { server?: string } = {},
): { client: KubeClient; sockets: FakeSocket[]; socket(): FakeSocket } {
  const sockets: FakeSocket[] = [];
  const client = new KubeClient({
    server: "https://k8s.example:6443",
    watchTransport: "websocket",
    webSocket: (url, init) => {
      const s = new FakeSocket(url, init);
      sockets.push(s);
      return s;
    },
    fetch: () => Promise.reject(new Error("no HTTP expected")),
    ...options,
  });
  return { client, sockets, socket: () => sockets.at(-1)! };
}

/** Waits until the factory was called `n` times. */
async function sockets(s: { sockets: FakeSocket[] }, n = 1): Promise<void> {
  for (let i = 0; i < 50 && s.sockets.length < n; i++) await Promise.resolve();
  assert.equal(s.sockets.length, n, "the factory was called");
}

const ADDED =
  '{"type":"ADDED","object":{"kind":"Pod","apiVersion":"v1","metadata":{"name":"a","resourceVersion":"5"}}}';

async function text(body: ReadableStream<Uint8Array>): Promise<string> {
  return await new Response(body).text();
}

describe("WebSocket watch: the handshake offered", () => {
  test("the same URL and query over wss:, the token as a base64url subprotocol after exactly one other, an Origin and no Authorization", async () => {
    const s = socketClient({ token: "secret/token+=", headers: { authorization: "Bearer other" } });
    const watching = s.client.watch(pods, {
      namespace: "default",
      resourceVersion: "7",
      allowWatchBookmarks: true,
      timeoutSeconds: 300,
    });
    await sockets(s);
    const { url, init } = s.socket();
    assert.equal(
      url,
      "wss://k8s.example:6443/api/v1/namespaces/default/pods?watch=1&resourceVersion=7&allowWatchBookmarks=true&timeoutSeconds=300",
    );
    assert.deepEqual(init.protocols, [
      DEFAULT_WEBSOCKET_PROTOCOL,
      bearerProtocol("secret/token+="),
    ]);
    const encoded = init.protocols[1]!.slice(BEARER_PROTOCOL_PREFIX.length);
    assert.match(encoded, /^[A-Za-z0-9_-]+$/, "base64url, no padding");
    const padded = encoded.replace(/-/g, "+").replace(/_/g, "/").padEnd(
      Math.ceil(encoded.length / 4) * 4,
      "=",
    );
    assert.equal(atob(padded), "secret/token+=");
    assert.equal(init.headers["origin"], "https://k8s.example:6443");
    assert.equal(init.headers["authorization"], undefined, "the token goes as a subprotocol only");
    assert.ok(init.headers["user-agent"]?.startsWith("kinformer/"));
    s.socket().open();
    const response = await watching;
    assert.equal(response.status, 200);
    await response.body!.cancel();
    assert.deepEqual(s.socket().closes, [{ code: 1000, reason: undefined }]);
  });

  test("http: becomes ws:; without a token only the one protocol is offered; options set the origin and the protocol", async () => {
    const s = socketClient({
      server: "http://127.0.0.1:8001/k8s",
      webSocketOrigin: "http://localhost:5173",
      webSocketProtocol: "v1.example",
    });
    const watching = s.client.watch(pods, {});
    await sockets(s);
    assert.equal(s.socket().url, "ws://127.0.0.1:8001/k8s/api/v1/pods?watch=1");
    assert.deepEqual(s.socket().init.protocols, ["v1.example"]);
    assert.equal(s.socket().init.headers["origin"], "http://localhost:5173");
    s.socket().open();
    await (await watching).body!.cancel();
  });

  test("a token function is asked before every watch (rotating tokens)", async () => {
    let n = 0;
    const s = socketClient({ token: () => `t${++n}` });
    for (const expected of ["t1", "t2"]) {
      const watching = s.client.watch(pods);
      await sockets(s, Number(expected.slice(1)));
      assert.equal(s.socket().init.protocols[1], bearerProtocol(expected));
      s.socket().open();
      await (await watching).body!.cancel();
    }
  });

  test("the transport: the client's default, overridden per watch; LIST-like calls never use it", async () => {
    let http = 0;
    const s = socketClient({
      watchTransport: "http",
      fetch: () => {
        http++;
        return Promise.resolve(new Response(""));
      },
    });
    await (await s.client.watch(pods)).body?.cancel();
    assert.equal(http, 1);
    assert.equal(s.sockets.length, 0);
    const watching = s.client.watch(pods, { transport: "websocket" });
    await sockets(s);
    s.socket().open();
    await (await watching).body!.cancel();
    assert.equal(http, 1);
  });

  test("bad options are TypeErrors naming the option", async () => {
    const client = new KubeClient({ server: "http://127.0.0.1:8001" });
    await assert.rejects(
      client.watch(pods, { transport: "ws" as never }),
      /options\.transport must be one of/,
    );
    const base = { server: "http://127.0.0.1:8001" };
    assert.throws(() => new KubeClient({ ...base, webSocket: 3 as never }), /options\.webSocket/);
    assert.throws(
      () => new KubeClient({ ...base, watchTransport: "sse" as never }),
      /options\.watchTransport must be one of "http", "websocket", "auto"/,
    );
    assert.throws(
      () => new KubeClient({ ...base, webSocketOrigin: "localhost:3000" }),
      /options\.webSocketOrigin must be an origin/,
    );
    assert.throws(
      () => new KubeClient({ ...base, webSocketOrigin: "http://a.example/path" }),
      /options\.webSocketOrigin/,
    );
    assert.throws(
      () => new KubeClient({ ...base, webSocketProtocol: "a, b" }),
      /options\.webSocketProtocol/,
    );
    assert.throws(
      () => new KubeClient({ ...base, webSocketProtocol: bearerProtocol("x") }),
      /not the bearer one/,
    );
    assert.throws(
      () => resolveWebSocketOptions({ webSocketProtocol: 1 as never }, base.server),
      TypeError,
    );
  });

  test('"auto" is HTTP outside browsers and a WebSocket where navigator.userAgent says Mozilla/', () => {
    assert.equal(resolveWatchTransport("auto"), "http");
    const had = Object.getOwnPropertyDescriptor(globalThis, "navigator");
    Object.defineProperty(globalThis, "navigator", {
      value: { userAgent: "Mozilla/5.0 (X11; Linux x86_64) Chrome/140.0" },
      configurable: true,
    });
    try {
      assert.equal(resolveWatchTransport("auto"), "websocket");
    } finally {
      if (had === undefined) delete (globalThis as { navigator?: unknown }).navigator;
      else Object.defineProperty(globalThis, "navigator", had);
    }
    assert.equal(resolveWatchTransport("auto"), "http");
  });
});

describe("WebSocket watch: messages become the body", () => {
  test("each message is one line; a missing newline is added; binary messages are bytes; a normal close ends the body", async () => {
    const s = socketClient();
    const watching = s.client.watch(pods);
    await sockets(s);
    s.socket().open();
    const response = await watching;
    assert.equal(s.socket().binaryType, "arraybuffer");
    s.socket().message(ADDED + "\n");
    s.socket().message(ADDED.replace('"a"', '"b"'));
    s.socket().message(new TextEncoder().encode(ADDED.replace('"a"', '"c"')).buffer);
    s.socket().message(new TextEncoder().encode(ADDED.replace('"a"', '"d"') + "\n"));
    s.socket().serverClose(1000);
    const events = [];
    for await (const e of decodeWatchStream(response.body!)) {
      events.push(e.type === "BOOKMARK" ? "bookmark" : e.object.metadata.name);
    }
    assert.deepEqual(events, ["a", "b", "c", "d"]);
  });

  for (const [code, wasClean] of [[1000, false], [1001, true], [1005, true]] as const) {
    test(`a close ${code} (${wasClean ? "clean" : "not clean"}) is the end of the watch, not an error`, async () => {
      const s = socketClient();
      const watching = s.client.watch(pods);
      await sockets(s);
      s.socket().open();
      const response = await watching;
      s.socket().message(ADDED);
      s.socket().serverClose(code, wasClean);
      assert.equal(await text(response.body!), ADDED + "\n");
    });
  }

  test("an abnormal closure fails the body after the messages that came before it, with a typed error filed as network", async () => {
    const s = socketClient({ token: "hunter2" });
    const watching = s.client.watch(pods);
    await sockets(s);
    s.socket().open();
    const response = await watching;
    s.socket().message(ADDED);
    s.socket().message(ADDED.replace('"a"', '"b"'));
    s.socket().serverClose(1006, false);
    const seen: string[] = [];
    await assert.rejects(
      (async () => {
        for await (const e of decodeWatchStream(response.body!)) {
          if (e.type !== "BOOKMARK") seen.push(e.object.metadata.name!);
        }
      })(),
      (error: unknown) => {
        assert.ok(error instanceof WebSocketWatchError);
        assert.equal(error.phase, "stream");
        assert.equal(error.code, 1006);
        assert.equal(classifyError(error), "network");
        assert.doesNotMatch(error.message, /hunter2|aHVudGVyMg|bearer/);
        return true;
      },
    );
    assert.deepEqual(seen, ["a", "b"]);
  });

  test("close codes are filed as the existing error kinds", () => {
    const kinds: Array<[number, boolean, string]> = [
      [1006, false, "network"],
      [0, false, "network"], // Deno's report of an abnormal closure
      [1002, true, "decode"],
      [1003, true, "decode"],
      [1007, true, "decode"],
      [1009, true, "decode"],
      [1008, true, "forbidden"],
      [1011, true, "server"],
      [1012, true, "server"],
      [1013, true, "server"],
      [1014, true, "server"],
      [1015, false, "network"],
      [4000, true, "other"],
      [4000, false, "network"],
    ];
    for (const [code, wasClean, kind] of kinds) {
      const error = new WebSocketWatchError({ phase: "stream", code, wasClean });
      assert.equal(classifyError(error), kind, `code ${code}`);
    }
    assert.equal(
      classifyError(new WebSocketWatchError({ phase: "handshake", code: 1006 })),
      "network",
    );
    assert.equal(classifyError(new WebSocketWatchError({ phase: "queue" })), "network");
  });

  test("the decoder's guarantees hold: an ERROR message is a KubeApiError, garbage a WatchDecodeError, an oversized message a LineTooLongError", async () => {
    const cases: Array<[string, (error: unknown) => boolean]> = [
      [
        '{"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","status":"Failure","code":410,"reason":"Expired","message":"too old"}}',
        (e) => e instanceof KubeApiError && e.isExpired && classifyError(e) === "expired",
      ],
      ["this is not json", (e) => e instanceof WatchDecodeError && classifyError(e) === "decode"],
      [
        '{"type":"ADDED","object":{"metadata":{"name":"' + "x".repeat(2000) + '"}}}',
        (e) => e instanceof LineTooLongError,
      ],
    ];
    for (const [message, check] of cases) {
      const s = socketClient();
      const watching = s.client.watch(pods);
      await sockets(s);
      s.socket().open();
      const response = await watching;
      s.socket().message(message);
      await assert.rejects(
        (async () => {
          for await (const _ of decodeWatchStream(response.body!, { maxLineLength: 1024 })) {
            // nothing before the bad message
          }
        })(),
        check,
      );
      assert.deepEqual(
        s.socket().closes,
        [{ code: 1000, reason: undefined }],
        "closed once decoding failed",
      );
    }
  });

  test("a message that is neither text nor bytes fails the body and closes the socket", async () => {
    const s = socketClient();
    const watching = s.client.watch(pods);
    await sockets(s);
    s.socket().open();
    const response = await watching;
    s.socket().message({ size: 3 });
    await assert.rejects(text(response.body!), /not text or an ArrayBuffer/);
    assert.equal(s.socket().closes.length, 1);
  });

  test("unread messages beyond the queue limit: the socket is closed and the body fails at once (phase queue)", async () => {
    const sockets: FakeSocket[] = [];
    const settings = resolveWebSocketOptions({
      webSocket: (url, init) => {
        const s = new FakeSocket(url, init);
        sockets.push(s);
        return s;
      },
    }, "http://127.0.0.1:8001");
    const opening = openWebSocketWatch(settings, {
      url: new URL("http://127.0.0.1:8001/api/v1/pods?watch=1"),
      token: () => Promise.resolve(undefined),
      headers: new Headers(),
      signal: undefined,
      maxQueuedBytes: 1000,
    });
    for (let i = 0; i < 20 && sockets.length === 0; i++) await Promise.resolve();
    const socket = sockets[0]!;
    socket.open();
    const response = await opening;
    for (let i = 0; i < 9; i++) socket.message(ADDED); // about 900 bytes: within the limit
    assert.equal(socket.closes.length, 0);
    socket.message(ADDED);
    assert.equal(socket.closes.length, 1, "closed as soon as the limit was passed");
    await assert.rejects(text(response.body!), (error: unknown) => {
      assert.ok(error instanceof WebSocketWatchError);
      assert.equal(error.phase, "queue");
      assert.equal(classifyError(error), "network");
      return true;
    });
  });
});

describe("WebSocket watch: failures to open, aborts and cancels", () => {
  test("a refused handshake (error, then close 1006 with no status) rejects with a handshake error filed as network", async () => {
    const s = socketClient({ token: "hunter2" });
    const watching = s.client.watch(pods);
    await sockets(s);
    s.socket().serverClose(1006, false);
    await assert.rejects(watching, (error: unknown) => {
      assert.ok(error instanceof WebSocketWatchError);
      assert.equal(error.phase, "handshake");
      assert.equal(classifyError(error), "network");
      assert.match(error.message, /wss:\/\/k8s\.example:6443\/api\/v1\/pods\?watch=1/);
      assert.doesNotMatch(error.message, /hunter2|aHVudGVyMg/);
      return true;
    });
  });

  test("a factory that throws: a handshake error with the cause; a KubeApiError passes as it is", async () => {
    const boom = new Error("connect failed");
    const c1 = new KubeClient({
      server: "http://127.0.0.1:8001",
      watchTransport: "websocket",
      webSocket: () => {
        throw boom;
      },
    });
    await assert.rejects(c1.watch(pods), (error: unknown) => {
      assert.ok(error instanceof WebSocketWatchError);
      assert.equal(error.phase, "handshake");
      assert.equal(error.cause, boom);
      return true;
    });
    const refused = new KubeApiError({ code: 403 });
    const c2 = new KubeClient({
      server: "http://127.0.0.1:8001",
      watchTransport: "websocket",
      webSocket: () => Promise.reject(refused),
    });
    await assert.rejects(c2.watch(pods), (error: unknown) => error === refused);
    const c3 = new KubeClient({
      server: "http://127.0.0.1:8001",
      watchTransport: "websocket",
      webSocket: () => ({}) as WebSocketLike,
    });
    await assert.rejects(c3.watch(pods), /options\.webSocket must return a WebSocket/);
  });

  test("aborting while connecting rejects with the reason at once and closes the socket once it opens (Node's WebSocket leaks a connection closed while connecting)", async () => {
    const s = socketClient();
    const ac = new AbortController();
    const watching = s.client.watch(pods, { signal: ac.signal });
    await sockets(s);
    const reason = new Error("stop");
    ac.abort(reason);
    await assert.rejects(watching, (error: unknown) => error === reason);
    assert.deepEqual(s.socket().closes, [], "not closed while connecting");
    s.socket().open();
    assert.deepEqual(s.socket().closes, [{ code: 1000, reason: undefined }]);
    s.socket().open();
    assert.equal(s.socket().closes.length, 1, "closed once");
  });

  test("aborting while connecting, then a failed handshake: nothing is left to close", async () => {
    const s = socketClient();
    const ac = new AbortController();
    const watching = s.client.watch(pods, { signal: ac.signal });
    await sockets(s);
    ac.abort(new Error("stop"));
    await assert.rejects(watching);
    s.socket().serverClose(1006, false);
    s.socket().open();
    assert.deepEqual(s.socket().closes, []);
  });

  test("aborting an open watch fails the body with the reason and closes the socket", async () => {
    const s = socketClient();
    const ac = new AbortController();
    const watching = s.client.watch(pods, { signal: ac.signal });
    await sockets(s);
    s.socket().open();
    const response = await watching;
    s.socket().message(ADDED);
    const reason = new Error("stop");
    ac.abort(reason);
    await assert.rejects(text(response.body!), (error: unknown) => error === reason);
    assert.deepEqual(s.socket().closes, [{ code: 1000, reason: undefined }]);
    // Events after the abort change nothing.
    s.socket().message(ADDED);
    s.socket().serverClose(1000);
  });

  test("an already aborted signal opens nothing", async () => {
    const s = socketClient();
    const reason = new Error("already");
    await assert.rejects(
      s.client.watch(pods, { signal: AbortSignal.abort(reason) }),
      (e) => e === reason,
    );
    assert.equal(s.sockets.length, 0);
  });

  test("a factory that hands back an open socket (Cloudflare Workers' accept()) resolves at once", async () => {
    const client = new KubeClient({
      server: "http://127.0.0.1:8001",
      watchTransport: "websocket",
      webSocket: (url, init) => {
        const s = new FakeSocket(url, init);
        s.readyState = 1;
        // Events arrive as tasks, as from a real socket.
        setTimeout(() => {
          s.message(ADDED);
          s.serverClose(1000);
        }, 0);
        return s;
      },
    });
    assert.equal(await text((await client.watch(pods)).body!), ADDED + "\n");
  });
});

describe("WebSocket factories", () => {
  test("globalWebSocket passes { protocols, headers }, and falls back to protocols alone where that form is a SyntaxError (browsers)", () => {
    const calls: unknown[] = [];
    const had = Object.getOwnPropertyDescriptor(globalThis, "WebSocket");
    const init: WebSocketInit = {
      protocols: ["p"],
      headers: { origin: "http://o.example" },
      signal: new AbortController().signal,
    };
    const install = (browser: boolean): void => {
      Object.defineProperty(globalThis, "WebSocket", {
        configurable: true,
        writable: true,
        value: class {
          constructor(url: string, second: unknown) {
            calls.push([url, second]);
            if (browser && !Array.isArray(second)) {
              throw new DOMException(
                "The subprotocol '[object Object]' is invalid.",
                "SyntaxError",
              );
            }
          }
        },
      });
    };
    try {
      install(false);
      globalWebSocket("ws://x/", init);
      assert.deepEqual(calls, [["ws://x/", {
        protocols: ["p"],
        headers: { origin: "http://o.example" },
      }]]);
      calls.length = 0;
      install(true);
      globalWebSocket("ws://x/", init);
      assert.deepEqual(calls, [
        ["ws://x/", { protocols: ["p"], headers: { origin: "http://o.example" } }],
        ["ws://x/", ["p"]],
      ]);
      delete (globalThis as { WebSocket?: unknown }).WebSocket;
      assert.throws(() => globalWebSocket("ws://x/", init), /no global WebSocket/);
    } finally {
      if (had !== undefined) Object.defineProperty(globalThis, "WebSocket", had);
      else delete (globalThis as { WebSocket?: unknown }).WebSocket;
    }
  });

  test("fetchWebSocket upgrades with fetch, accepts the socket it gets, and throws the status of a refusal", async () => {
    const requests: Request[] = [];
    let accepted = 0;
    const socket = Object.assign(
      new FakeSocket("", { protocols: [], headers: {}, signal: new AbortController().signal }),
      {
        accept: () => {
          accepted++;
          socket.readyState = 1;
        },
      },
    );
    const factory = fetchWebSocket((request) => {
      requests.push(request);
      return Promise.resolve({ status: 101, webSocket: socket } as unknown as Response);
    });
    const client = new KubeClient({
      server: "https://k8s.example",
      token: "t0k",
      watchTransport: "websocket",
      webSocket: factory,
    });
    const response = await client.watch(pods, { resourceVersion: "3" });
    assert.equal(accepted, 1);
    const r = requests[0]!;
    assert.equal(r.url, "https://k8s.example/api/v1/pods?watch=1&resourceVersion=3");
    assert.equal(r.headers.get("upgrade"), "websocket");
    assert.equal(r.headers.get("origin"), "https://k8s.example");
    assert.equal(
      r.headers.get("sec-websocket-protocol"),
      `${DEFAULT_WEBSOCKET_PROTOCOL}, ${bearerProtocol("t0k")}`,
    );
    socket.serverClose(1000);
    assert.equal(await text(response.body!), "");

    const refusing = new KubeClient({
      server: "https://k8s.example",
      watchTransport: "websocket",
      webSocket: fetchWebSocket(() => Promise.resolve(new Response("Forbidden", { status: 403 }))),
    });
    await assert.rejects(refusing.watch(pods), (error: unknown) => {
      assert.ok(error instanceof KubeApiError);
      assert.equal(error.code, 403);
      assert.equal(classifyError(error), "forbidden");
      return true;
    });
  });
});
