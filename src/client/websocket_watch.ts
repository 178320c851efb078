/**
 * Watches over a WebSocket: the same URL and query as a chunked HTTP watch, with `ws:`/`wss:`,
 * each message one watch event. What the API server does, and so what this module does:
 *
 * - **Framing.** kube-apiserver serves a watch handshake with `golang.org/x/net/websocket`
 *   (not the `channel.k8s.io` multiplexing of exec, attach and port-forward, where each message
 *   starts with a channel byte, nor the `base64.channel.k8s.io` variant). For JSON it writes
 *   one text message per event: the event's JSON followed by a newline; the subprotocol has no
 *   influence on that. Binary messages (other serializations) are taken as the same bytes.
 * - **Authentication without headers.** A browser cannot set `Authorization` on a WebSocket, so
 *   the token travels as the subprotocol `base64url.bearer.authorization.k8s.io.<token>` (the
 *   token's UTF-8 bytes in base64url without padding). The server's bearer-protocol
 *   authenticator refuses (401) more than one such protocol, a bad encoding, or a token offered
 *   without any other protocol; once the token is accepted it removes that protocol.
 * - **One other subprotocol.** The handshake then echoes the one remaining offered protocol.
 *   With two or more it answers 400; with none it echoes none, and a browser that offered one
 *   fails the connection. So exactly one other protocol is offered,
 *   `base64.binary.k8s.io` unless `webSocketProtocol` says otherwise.
 * - **Origin.** The handshake is refused (403) without an `Origin` header (or with `null`).
 *   Browsers send the page's; the `WebSocket` of Node (22+), Deno and Bun sends none unless
 *   given one, which the default factory does (the API server's own origin, or
 *   `webSocketOrigin`). kube-apiserver checks only that an Origin is present:
 *   `--cors-allowed-origins` adds CORS headers to HTTP answers but refuses nothing, and a
 *   WebSocket is not subject to CORS, so any page holding a token can watch with it.
 * - **A failed handshake is opaque.** A standard `WebSocket` does not show the HTTP status of a
 *   refused upgrade (401, 403, 404, 410, 504...): it fires `error`, then `close` with 1006. That
 *   becomes a {@linkcode WebSocketWatchError} with `phase: "handshake"`, which the reflector
 *   files as `network` and retries on its backoff, its request pacer bounding the rate. LISTs
 *   still go over HTTP with their real statuses, so a bad token or a missing permission shows
 *   there. A factory that can see the status (e.g. `fetchWebSocket` on Cloudflare
 *   Workers) throws the {@linkcode KubeApiError} instead.
 * - **No back-pressure.** A standard `WebSocket` cannot be paused: messages arrive whether or
 *   not they are read. Unread ones are queued, up to 64 MiB;
 *   beyond that the client closes the socket and the body fails with a
 *   {@linkcode WebSocketWatchError} (`phase: "queue"`); the reflector watches again from the
 *   last event it applied, so nothing is lost. A browser holds each whole message in memory
 *   before delivering it; `maxLineLength` is checked on it then.
 * @module
 */
import { abortable, linkedController, onAbort } from "../util/abort.ts";
import { checkFunction, checkOneOf, checkSignal, checkString } from "../util/validate.ts";
import { base64Utf8, describeValue } from "../util/values.ts";
import { KubeApiError } from "./errors.ts";
import { WATCH_TRANSPORTS, type WatchTransport } from "./watch_transport.ts";
import {
  globalWebSocket,
  type SocketEvent,
  type WebSocketFactory,
  type WebSocketLike,
} from "./websocket_factory.ts";
import { WebSocketWatchError } from "./websocket_watch_error.ts";

/**
 * The prefix of the subprotocol that carries a bearer token (kube-apiserver's
 * `k8s.io/apiserver/pkg/authentication/request/websocket`).
 */
export const BEARER_PROTOCOL_PREFIX = "base64url.bearer.authorization.k8s.io.";

/**
 * The subprotocol offered next to the bearer one when `webSocketProtocol` is not set (the one
 * Kubernetes dashboards offer for watches). The watch handler only echoes it: messages are JSON
 * text whatever it says.
 */
export const DEFAULT_WEBSOCKET_PROTOCOL = "base64.binary.k8s.io";

/**
 * Bytes of unread messages a WebSocket watch queues before it gives up on its reader (64 MiB):
 * four times the default `maxLineLength`, so one large object never trips it.
 */
export const WEBSOCKET_QUEUE_LIMIT: number = 64 * 1024 * 1024;

/**
 * The subprotocol that carries `token`: {@linkcode BEARER_PROTOCOL_PREFIX} and the token's
 * UTF-8 bytes in base64url without padding.
 */
export function bearerProtocol(token: string): string {
  const base64url = base64Utf8(token).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  return BEARER_PROTOCOL_PREFIX + base64url;
}

/** The WebSocket options of `KubeClient` (its options extend these). */
export interface WebSocketClientOptions {
  /**
   * How `watch()` reaches the server when its own `transport` option is not given (the
   * informer's `transport` option passes through to it). See {@linkcode WatchTransport}.
   * @default "http"
   */
  watchTransport?: WatchTransport | undefined;
  /**
   * Opens the WebSockets of watches over WebSocket.
   * @default globalWebSocket (the runtime's `WebSocket`)
   */
  webSocket?: WebSocketFactory | undefined;
  /**
   * The `Origin` header of a WebSocket watch's handshake, where the runtime can send one (Node
   * 22+, Deno, Bun; a browser sends its page's origin instead). The API server refuses a
   * handshake without one.
   * @default the server URL's origin
   */
  webSocketOrigin?: string | undefined;
  /**
   * The one subprotocol offered besides the bearer token's, which the server echoes.
   * @default "base64.binary.k8s.io"
   */
  webSocketProtocol?: string | undefined;
}

/** Validated WebSocket options of a client. Internal. */
export interface WebSocketSettings {
  readonly transport: WatchTransport | undefined;
  readonly factory: WebSocketFactory;
  readonly origin: string;
  readonly protocol: string;
}

/** Protocol token characters (RFC 6455 section 4.1: a subprotocol is an RFC 7230 token). */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** Validates the WebSocket options of a client whose server URL is `server`. Internal. */
export function resolveWebSocketOptions(
  options: WebSocketClientOptions,
  server: string,
): WebSocketSettings {
  checkOneOf(options.watchTransport, "options.watchTransport", WATCH_TRANSPORTS);
  checkFunction(options.webSocket, "options.webSocket");
  checkString(options.webSocketOrigin, "options.webSocketOrigin");
  checkString(options.webSocketProtocol, "options.webSocketProtocol");
  const protocol = options.webSocketProtocol ?? DEFAULT_WEBSOCKET_PROTOCOL;
  if (!TOKEN.test(protocol) || protocol.startsWith(BEARER_PROTOCOL_PREFIX)) {
    throw new TypeError(
      `options.webSocketProtocol must be a subprotocol name (an HTTP token, not the bearer one), got ${
        describeValue(protocol)
      }`,
    );
  }
  let origin = new URL(server).origin;
  if (options.webSocketOrigin !== undefined) {
    let parsed: URL | undefined;
    try {
      parsed = new URL(options.webSocketOrigin);
    } catch {
      // reported below
    }
    if (
      parsed === undefined || parsed.origin === "null" || parsed.origin !== options.webSocketOrigin
    ) {
      throw new TypeError(
        `options.webSocketOrigin must be an origin such as "https://app.example", got ${
          describeValue(options.webSocketOrigin)
        }`,
      );
    }
    origin = parsed.origin;
  }
  return {
    transport: options.watchTransport,
    factory: options.webSocket ?? globalWebSocket,
    origin,
    protocol,
  };
}

/** One WebSocket watch to open. Internal. */
export interface WebSocketWatchRequest {
  /** The watch URL (`http:`/`https:`, with its query); the scheme becomes `ws:`/`wss:`. */
  url: URL;
  /** Resolves the bearer token (undefined: none), once the request is valid. */
  token: () => Promise<string | undefined>;
  /** The client's headers (`Authorization` is left out: the token goes as a subprotocol). */
  headers: Headers;
  /** Abandons the watch: while connecting, and afterwards (the body fails with the reason). */
  signal: AbortSignal | undefined;
  /** Bytes of unread messages tolerated. @default WEBSOCKET_QUEUE_LIMIT */
  maxQueuedBytes?: number | undefined;
}

/**
 * Opens a watch over a WebSocket and resolves, once it is open, with a `Response` whose body is
 * the messages as newline-delimited bytes (a newline is added to a message that does not end
 * with one), so the watch decoder reads it exactly as a chunked HTTP watch. A normal close ends
 * the body; anything else fails it, after the messages already received, with a
 * {@linkcode WebSocketWatchError}. Cancelling the body, or aborting `signal`, closes the socket.
 * Internal: `KubeClient.watch` with `transport: "websocket"`.
 */
export async function openWebSocketWatch(
  settings: WebSocketSettings,
  request: WebSocketWatchRequest,
): Promise<Response> {
  const { signal } = request;
  checkSignal(signal, "options.signal");
  if (signal?.aborted) throw signal.reason;
  const token = await request.token();
  const url = new URL(request.url);
  url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
  const label = `WebSocket ${url.origin}${url.pathname}${url.search}`;
  const headers: Record<string, string> = {};
  request.headers.forEach((value, name) => {
    if (name !== "authorization") headers[name] = value;
  });
  headers["origin"] = settings.origin;
  const protocols = [settings.protocol];
  if (token !== undefined) protocols.push(bearerProtocol(token));
  const { controller: connecting, release } = linkedController(signal);
  let socket: WebSocketLike;
  try {
    socket = await abortable(
      Promise.resolve().then(() =>
        settings.factory(url.href, { protocols, headers, signal: connecting.signal })
      ),
      signal,
      (late) => closeQuietly(late),
    );
  } catch (error) {
    release();
    if (signal?.aborted) throw signal.reason;
    if (error instanceof KubeApiError) throw error;
    throw new WebSocketWatchError({
      phase: "handshake",
      request: label,
      detail: "the WebSocket factory failed",
      cause: error,
    });
  }
  release();
  if (typeof socket?.addEventListener !== "function" || typeof socket.close !== "function") {
    throw new TypeError(
      `options.webSocket must return a WebSocket, got ${describeValue(socket)}`,
    );
  }
  return await new SocketWatch(socket, label, signal, request.maxQueuedBytes).opened;
}

/**
 * Closes a socket nobody will use, ignoring a socket that refuses. A socket still connecting is
 * closed once it opens, not at once: Node's `WebSocket` (undici) closed while connecting fails
 * the handshake on its side but leaves the connection it may already have upgraded open, with
 * no close frame and no end, so the server's watch would never end. A handshake that fails
 * instead leaves nothing to close.
 */
function closeQuietly(socket: WebSocketLike): void {
  if (socket.readyState === CONNECTING) {
    const onOpen = (): void => {
      done();
      closeQuietly(socket);
    };
    const done = (): void => {
      socket.removeEventListener("open", onOpen);
      socket.removeEventListener("close", done);
    };
    socket.addEventListener("open", onOpen);
    socket.addEventListener("close", done);
    return;
  }
  try {
    socket.close(1000);
  } catch {
    // Already closing, or a socket that refuses: either way nobody reads it any more.
  }
}

const CONNECTING = 0;
const OPEN = 1;
const NEWLINE = new Uint8Array([0x0a]);
const encoder = new TextEncoder();

/** One open (or opening) WebSocket watch: the handshake's promise and the body it feeds. */
class SocketWatch {
  readonly opened: Promise<Response>;
  readonly #socket: WebSocketLike;
  readonly #label: string;
  readonly #signal: AbortSignal | undefined;
  readonly #maxQueued: number;
  /** Stops listening for the signal's abort. */
  #unlisten: () => void = noop;
  #resolve!: (response: Response) => void;
  #reject!: (error: unknown) => void;
  #controller!: ReadableStreamDefaultController<Uint8Array>;
  #open = false;
  /** The body is over (ended, failed or cancelled): events are ignored from here on. */
  #done = false;
  /** A failure to report once the queued messages have been read. */
  #failure: { error: unknown } | undefined;

  constructor(
    socket: WebSocketLike,
    label: string,
    signal: AbortSignal | undefined,
    maxQueued = WEBSOCKET_QUEUE_LIMIT,
  ) {
    this.#socket = socket;
    this.#label = label;
    this.#signal = signal;
    this.#maxQueued = maxQueued;
    this.opened = new Promise<Response>((resolve, reject) => {
      this.#resolve = resolve;
      this.#reject = reject;
    });
    try {
      socket.binaryType = "arraybuffer";
    } catch {
      // A socket that only delivers text.
    }
    socket.addEventListener("open", this.#onOpen);
    socket.addEventListener("message", this.#onMessage);
    socket.addEventListener("close", this.#onClose);
    socket.addEventListener("error", this.#onError);
    this.#unlisten = onAbort(signal, this.#onAbort);
    if (signal?.aborted) return;
    if (socket.readyState === OPEN) this.#onOpen();
    else if (socket.readyState > OPEN) {
      this.#finish();
      this.#reject(
        new WebSocketWatchError({
          phase: "handshake",
          request: label,
          detail: "the WebSocket factory returned a closed socket",
        }),
      );
    }
  }

  readonly #onOpen = (): void => {
    if (this.#open || this.#done) return;
    this.#open = true;
    const body = new ReadableStream<Uint8Array>({
      start: (controller) => {
        this.#controller = controller;
      },
      pull: (controller) => {
        // Reached only once the queue is empty: a failure waits for the messages before it.
        const failure = this.#failure;
        if (failure !== undefined) {
          this.#failure = undefined;
          controller.error(failure.error);
        }
      },
      cancel: () => {
        this.#finish();
        closeQuietly(this.#socket);
      },
    }, new ByteLengthQueuingStrategy({ highWaterMark: 0 }));
    this.#resolve(
      new Response(body, { status: 200, headers: { "content-type": "application/json" } }),
    );
  };

  readonly #onMessage = (event: SocketEvent): void => {
    if (!this.#open || this.#done) return;
    const data = (event as { data?: unknown }).data;
    let bytes: Uint8Array;
    if (typeof data === "string") bytes = encoder.encode(data);
    else if (data instanceof ArrayBuffer) bytes = new Uint8Array(data);
    else if (ArrayBuffer.isView(data)) {
      bytes = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
    } else {
      this.#fail(
        new WebSocketWatchError({
          phase: "stream",
          request: this.#label,
          detail: `a message arrived as ${
            describeValue(data)
          }, not text or an ArrayBuffer (binaryType must be "arraybuffer")`,
        }),
        true,
      );
      closeQuietly(this.#socket);
      return;
    }
    const controller = this.#controller;
    if (bytes.byteLength > 0) controller.enqueue(bytes);
    if (bytes.byteLength === 0 || bytes[bytes.byteLength - 1] !== 0x0a) {
      controller.enqueue(NEWLINE);
    }
    if (-(controller.desiredSize ?? 0) > this.#maxQueued) {
      this.#fail(
        new WebSocketWatchError({
          phase: "queue",
          request: this.#label,
          detail: `more than ${this.#maxQueued} bytes unread`,
        }),
        true,
      );
      closeQuietly(this.#socket);
    }
  };

  readonly #onClose = (event: SocketEvent): void => {
    const { code, reason, wasClean } = event as {
      code?: unknown;
      reason?: unknown;
      wasClean?: unknown;
    };
    if (!this.#open) {
      this.#finish();
      this.#reject(
        new WebSocketWatchError({
          phase: "handshake",
          request: this.#label,
          code: typeof code === "number" ? code : undefined,
          reason: typeof reason === "string" ? reason : undefined,
          wasClean: wasClean === true,
        }),
      );
      return;
    }
    if (this.#done) return;
    // A close frame saying "normal" or "going away" (or a clean close without a code) ends the
    // watch, as the end of a chunked response does.
    if (code === 1000 || code === 1001 || (code === 1005 && wasClean === true)) {
      this.#finish();
      this.#controller.close();
      return;
    }
    this.#fail(
      new WebSocketWatchError({
        phase: "stream",
        request: this.#label,
        code: typeof code === "number" ? code : undefined,
        reason: typeof reason === "string" ? reason : undefined,
        wasClean: wasClean === true,
      }),
      false,
    );
  };

  /** `error` comes before `close`, which carries what is known: nothing to do here. */
  readonly #onError = (): void => {};

  readonly #onAbort = (): void => {
    const reason = this.#signal?.reason;
    closeQuietly(this.#socket);
    if (!this.#open) {
      this.#finish();
      this.#reject(reason);
    } else if (!this.#done) this.#fail(reason, true);
  };

  /**
   * Fails the body: at once (dropping unread messages) when `now`, else after the messages
   * already queued.
   */
  #fail(error: unknown, now: boolean): void {
    const controller = this.#controller;
    this.#finish();
    if (now || (controller.desiredSize ?? 0) >= 0) controller.error(error);
    else this.#failure = { error };
  }

  /** Stops listening: the body is over. */
  #finish(): void {
    if (this.#done) return;
    this.#done = true;
    const socket = this.#socket;
    socket.removeEventListener("open", this.#onOpen);
    socket.removeEventListener("message", this.#onMessage);
    socket.removeEventListener("close", this.#onClose);
    socket.removeEventListener("error", this.#onError);
    this.#unlisten();
  }
}

function noop(): void {}
