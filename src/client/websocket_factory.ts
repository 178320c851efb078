/**
 * Opening the WebSocket of a watch: the part of a `WebSocket` a watch uses, the factory that
 * opens one (injectable, like `fetch`), the portable default ({@linkcode globalWebSocket}) and
 * one for Cloudflare Workers ({@linkcode fetchWebSocket}).
 * @module
 */
import { checkFunction } from "../util/validate.ts";
import { redactUrl } from "./http.ts";
import { apiErrorOf } from "./response_body.ts";

/**
 * The part of a `WebSocket` a watch uses: the standard `WebSocket` of browsers, Deno, Bun and
 * Node 22+ fits, and so does any object that behaves like it.
 */
export interface WebSocketLike {
  /** 0 connecting, 1 open, 2 closing, 3 closed. */
  readonly readyState: number;
  /** The subprotocol the server chose. */
  readonly protocol: string;
  /** Set to `"arraybuffer"` so binary messages arrive as `ArrayBuffer`s. */
  binaryType: string;
  /**
   * Listens for `open`, `message` (`data`), `error` and `close` (`code`, `reason`, `wasClean`).
   * (The event is typed structurally so that every runtime's `Event` type fits.)
   */
  addEventListener(type: string, listener: (event: SocketEvent) => void): void;
  /** Stops listening. */
  removeEventListener(type: string, listener: (event: SocketEvent) => void): void;
  /** Closes the socket. */
  close(code?: number, reason?: string): void;
}

/** An event of a {@linkcode WebSocketLike}, as far as a watch reads it. */
export interface SocketEvent {
  /** `open`, `message`, `error` or `close`. */
  readonly type: string;
}

/** What a {@linkcode WebSocketFactory} is asked to open. */
export interface WebSocketInit {
  /**
   * Subprotocols to offer, in order: the one the server echoes, then the bearer token's when the
   * client has a token.
   */
  protocols: string[];
  /**
   * Headers for the handshake where the runtime can send them (not in a browser, which sends
   * its own `Origin` and refuses others): `Origin`, `User-Agent`, `Accept` and the client's
   * `headers` option.
   */
  headers: Record<string, string>;
  /** Aborted when the watch is abandoned while connecting. */
  signal: AbortSignal;
}

/**
 * Opens a WebSocket to `url` (`ws:` or `wss:`). It may return the socket connecting (as
 * `new WebSocket` does) or already open; a promise for it is fine too. An error it throws or
 * rejects with fails the watch: a {@linkcode KubeApiError} as it is (a factory that can see the
 * handshake's HTTP status), anything else as a {@linkcode WebSocketWatchError} (`handshake`).
 */
export type WebSocketFactory = (
  url: string,
  init: WebSocketInit,
) => WebSocketLike | Promise<WebSocketLike>;

/** The standard `WebSocket` constructor, as far as {@linkcode globalWebSocket} uses it. */
type WebSocketConstructor = new (
  url: string,
  protocols?: string[] | { protocols: string[]; headers: Record<string, string> },
) => WebSocketLike;

/**
 * The default {@linkcode WebSocketFactory}: the global `WebSocket`. It passes
 * `{ protocols, headers }`, which Node 22+ (undici), Deno and Bun take and which sends `Origin`;
 * a browser's `WebSocket` refuses that form with a `SyntaxError` (it takes only protocols, and
 * sends the page's origin itself), and then the socket is opened with the protocols alone.
 *
 * @throws {TypeError} when the runtime has no global `WebSocket` (Node before 22): pass
 * `webSocket` to the client.
 *
 * @example
 * ```ts
 * import { globalWebSocket, KubeClient, type WebSocketFactory } from "@kinformer/kinformer/client";
 * import assert from "node:assert/strict";
 * // A factory that adds a header (where the runtime can send one), then does what the default does.
 * const traced: WebSocketFactory = (url, init) =>
 *   globalWebSocket(url, { ...init, headers: { ...init.headers, "x-trace-id": "42" } });
 * const client = new KubeClient({ server: "http://127.0.0.1:8001", webSocket: traced });
 * assert.equal(client.server, "http://127.0.0.1:8001");
 * ```
 */
export const globalWebSocket: WebSocketFactory = (url, init): WebSocketLike => {
  const Ctor = (globalThis as { WebSocket?: WebSocketConstructor }).WebSocket;
  if (typeof Ctor !== "function") {
    throw new TypeError(
      "this runtime has no global WebSocket (browsers, Deno, Bun and Node 22+ have one): " +
        "pass options.webSocket to KubeClient, or watch over HTTP",
    );
  }
  if (Object.keys(init.headers).length > 0) {
    try {
      return new Ctor(url, { protocols: init.protocols, headers: init.headers });
    } catch (error) {
      // A browser: the object is taken for a protocol name "[object Object]".
      if (!(error instanceof Error) || error.name !== "SyntaxError") throw error;
    }
  }
  return new Ctor(url, init.protocols);
};

/** The part of a Cloudflare Workers upgrade answer {@linkcode fetchWebSocket} uses. */
interface UpgradeResponse {
  status: number;
  webSocket?: (WebSocketLike & { accept(): void }) | null;
}

/**
 * A {@linkcode WebSocketFactory} for Cloudflare Workers, whose `WebSocket` cannot send the
 * `Origin` header the API server requires: it upgrades with `fetch` (`Upgrade: websocket`,
 * `Origin`, the protocols), accepts the socket it gets back and returns it open. Unlike a
 * standard `WebSocket` it sees a refused handshake's HTTP status and throws it as a
 * {@linkcode KubeApiError} (401, 403, 410, 504...), which the reflector files like the same
 * answer over HTTP.
 *
 * @example
 * ```ts
 * import { fetchWebSocket, KubeApiError, KubeClient, pods } from "@kinformer/kinformer/client";
 * import assert from "node:assert/strict";
 * // What a Workers API server answers a refused upgrade with:
 * const refuse = () => Promise.resolve(new Response("Unauthorized", { status: 401 }));
 * const client = new KubeClient({
 *   server: "https://k8s.example",
 *   token: "t",
 *   webSocket: fetchWebSocket(refuse),
 *   watchTransport: "websocket",
 * });
 * await assert.rejects(
 *   client.watch(pods),
 *   (error) => error instanceof KubeApiError && error.code === 401,
 * );
 * ```
 */
export function fetchWebSocket(
  fetch: (request: Request) => Promise<Response> = (request) => globalThis.fetch(request),
): WebSocketFactory {
  checkFunction(fetch, "fetch");
  return async (url, init) => {
    const headers = new Headers(init.headers);
    headers.set("upgrade", "websocket");
    headers.set("sec-websocket-protocol", init.protocols.join(", "));
    const httpUrl = url.replace(/^ws(s?):/i, "http$1:");
    const response = await fetch(new Request(httpUrl, { headers, signal: init.signal })) as
      & Response
      & UpgradeResponse;
    const socket = response.webSocket;
    if (response.status !== 101 || socket === undefined || socket === null) {
      // The refusal as an HTTP answer's: its Status (or a snippet), Retry-After, a bounded read.
      throw await apiErrorOf(response, `GET ${redactUrl(httpUrl)}`, init.signal, Date.now());
    }
    socket.accept();
    return socket;
  };
}
