/**
 * A WebSocket to a `fetch` handler in the same process, with no network: what
 * `SimulatedCluster.webSocket` opens, so WebSocket watches run on a `ManualClock` like every
 * other simulated request. It plays the handshake as the serve adapters do (the handler decides,
 * see `serving/websocket_handshake.ts`) and behaves as a browser's `WebSocket` does: a refused
 * handshake is an `error` then a `close` with code 1006 and no status; each line of the
 * accepted body is one text message; the end of the body closes with 1000, a failed body
 * (a dropped connection) with 1006, not clean.
 * @module
 */
import type { WebSocketInit, WebSocketLike } from "@kinformer/kinformer/client";
import { onAbort } from "@kinformer/kinformer/internal";
import { markInProcess } from "./cors.ts";
import { acceptedProtocol } from "../handlers/reads/websocket_handshake.ts";
import { readTextMessages } from "./websocket_messages.ts";

/** A `fetch`-style handler. */
type Handler = (request: Request) => Response | Promise<Response>;

const CONNECTING = 0;
const OPEN = 1;
const CLOSING = 2;
const CLOSED = 3;

/** A base64 key for `Sec-WebSocket-Key` (16 random bytes, as RFC 6455 asks). */
function handshakeKey(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return btoa(String.fromCharCode(...bytes));
}

/** See the module doc. */
export class InProcessWebSocket extends EventTarget implements WebSocketLike {
  /** The URL asked for (`ws:`/`wss:`). */
  readonly url: string;
  #readyState = CONNECTING;
  #protocol = "";
  /** Kept for the `WebSocket` shape: messages are always text here. */
  binaryType = "blob";
  readonly #abort = new AbortController();
  #closeSent: { code: number; reason: string } | undefined;

  constructor(url: string, init: WebSocketInit, handler: Handler) {
    super();
    this.url = url;
    const http = new URL(url);
    http.protocol = http.protocol === "wss:" ? "https:" : "http:";
    const headers = new Headers(init.headers);
    headers.set("upgrade", "websocket");
    headers.set("connection", "Upgrade");
    headers.set("sec-websocket-version", "13");
    headers.set("sec-websocket-key", handshakeKey());
    if (init.protocols.length > 0) headers.set("sec-websocket-protocol", init.protocols.join(", "));
    const request = new Request(http, { headers, signal: this.#abort.signal });
    markInProcess(request);
    const stopListening = onAbort(init.signal, () => this.close());
    this.#run(handler, request, init.protocols)
      .catch(() => this.#closed(1006, "", false, true))
      .finally(stopListening);
  }

  /** 0 connecting, 1 open, 2 closing, 3 closed. */
  get readyState(): number {
    return this.#readyState;
  }

  /** The protocol the handler echoed. */
  get protocol(): string {
    return this.#protocol;
  }

  /** Closes the socket: the handler's request is aborted and its body cancelled. */
  close(code = 1000, reason = ""): void {
    if (this.#readyState >= CLOSING) return;
    this.#readyState = CLOSING;
    this.#closeSent = { code, reason };
    this.#abort.abort(new DOMException("WebSocket closed by the client", "AbortError"));
  }

  async #run(handler: Handler, request: Request, offered: readonly string[]): Promise<void> {
    // A socket opens asynchronously: listeners added right after construction hear everything.
    await Promise.resolve();
    let response: Response;
    try {
      response = await handler(request);
    } catch {
      this.#closed(1006, "", false, true);
      return;
    }
    const accepted = acceptedProtocol(response);
    const echoed = accepted?.protocol;
    // What a browser checks: an echoed protocol it offered, and one when it offered any.
    const valid = accepted !== undefined &&
      (echoed === undefined ? offered.length === 0 : offered.includes(echoed));
    if (!valid || this.#readyState !== CONNECTING || response.body === null) {
      await response.body?.cancel().catch(() => {});
      if (this.#closeSent !== undefined) this.#closed(this.#closeSent.code, "", false, true);
      else this.#closed(1006, "", false, true);
      return;
    }
    this.#protocol = echoed ?? "";
    this.#readyState = OPEN;
    this.dispatchEvent(new Event("open"));
    const ended = await readTextMessages(response.body, (text) => {
      if (this.#readyState === OPEN) {
        this.dispatchEvent(new MessageEvent("message", { data: text }));
      }
    }, this.#abort.signal);
    const sent = this.#closeSent;
    if (sent !== undefined) this.#closed(sent.code, sent.reason, true, false);
    else if (ended === "end") this.#closed(1000, "", true, false);
    else this.#closed(1006, "", false, true);
  }

  #closed(code: number, reason: string, wasClean: boolean, error: boolean): void {
    if (this.#readyState === CLOSED) return;
    this.#readyState = CLOSED;
    if (error) this.dispatchEvent(new Event("error"));
    this.dispatchEvent(Object.assign(new Event("close"), { code, reason, wasClean }));
  }
}
