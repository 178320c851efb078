/**
 * What the three runtime adapters share (no runtime APIs here): option checks (`tls` too), a tracker of
 * open response bodies, so `close()` can end streams (open watches) that would otherwise keep a
 * server from shutting down, the run-once `close()` itself, and the answer to a WebSocket
 * handshake.
 * @module
 */

import { requireNonEmptyString, requireNumber } from "@kinformer/kinformer/internal";
import { serveTls, type ServeTlsOptions } from "./_serve_tls.ts";
import { acceptedProtocol } from "../handlers/reads/websocket_handshake.ts";
import { messageOf } from "@kinformer/kinformer/internal";
import { onAbort } from "@kinformer/kinformer/internal";

/** A `fetch`-style request handler, e.g. `cluster.fetch`. */
export type FetchHandler = (request: Request) => Response | Promise<Response>;

/** Options of the `serve` functions of the runtime adapters. */
export interface ServeOptions {
  /**
   * Interface to listen on.
   * @default "127.0.0.1"
   */
  hostname?: string;
  /**
   * Port; `0` picks a free one (read it from the returned `url`).
   * @default 0
   */
  port?: number;
  /**
   * Closes the server when aborted.
   * @default undefined
   */
  signal?: AbortSignal;
  /**
   * Serve HTTPS with this certificate; `clientCa` also authenticates client certificates.
   * @default undefined (plain HTTP)
   */
  tls?: ServeTlsOptions;
}

/** A running server. */
export interface ServedHandle {
  /** Base URL, e.g. `http://127.0.0.1:41234` (`https://` with `tls`). */
  readonly url: string;
  /** Stops listening, ends every open response stream and resolves when the server is down. */
  close(): Promise<void>;
}

/**
 * Validated options: `hostname`, `port`, then `tls` ({@linkcode serveTls}); `clientCaRefused`,
 * where the adapter cannot verify client certificates, is the TypeError's reason for a
 * `tls.clientCa`. Throws the signal's reason when it has aborted already.
 */
export function _serveOptions(
  options: ServeOptions | undefined,
  clientCaRefused?: string,
): {
  hostname: string;
  port: number;
  signal: AbortSignal | undefined;
  tls: ServeTlsOptions | undefined;
} {
  const hostname = options?.hostname ?? "127.0.0.1";
  const port = options?.port ?? 0;
  requireNonEmptyString(hostname, "options.hostname");
  requireNumber(port, "options.port", { min: 0, max: 65535, integer: true });
  const tls = serveTls(options?.tls);
  if (tls?.clientCa !== undefined && clientCaRefused !== undefined) {
    throw new TypeError(`options.tls.clientCa: ${clientCaRefused}`);
  }
  const signal = options?.signal;
  signal?.throwIfAborted();
  return { hostname, port, signal, tls };
}

/** `hostname` as it stands in a URL: an IPv6 address in brackets. */
export function _urlHost(hostname: string): string {
  return hostname.includes(":") ? `[${hostname}]` : hostname;
}

/**
 * Why a client's opening handshake is malformed (a wrong version or a missing key), as an
 * HTTP answer; undefined when it is fine.
 */
export function badHandshake(headers: Headers): Response | undefined {
  if (headers.get("sec-websocket-version")?.trim() !== "13") {
    return new Response("unsupported WebSocket version (13 is)\n", {
      status: 400,
      headers: { "Sec-WebSocket-Version": "13", "Content-Type": "text/plain" },
    });
  }
  const key = headers.get("sec-websocket-key")?.trim() ?? "";
  let bytes = 0;
  try {
    bytes = atob(key).length;
  } catch {
    bytes = 0;
  }
  if (bytes !== 16) {
    return new Response("missing or malformed Sec-WebSocket-Key\n", {
      status: 400,
      headers: { "Content-Type": "text/plain" },
    });
  }
  return undefined;
}

/**
 * What became of a WebSocket handshake an adapter received: refused (`response` is the HTTP
 * answer to send), or accepted, with the protocol to echo and the body whose lines are the
 * messages.
 */
export type _HandshakeAnswer =
  | { readonly accepted: false; readonly response: Response }
  | {
    readonly accepted: true;
    readonly protocol: string | undefined;
    readonly body: ReadableStream<Uint8Array>;
  };

/**
 * A WebSocket handshake, as every adapter answers it: a malformed one (wrong version, no key) is
 * a 400; otherwise `handler` decides (its answer tracked like any other), and a 200 with
 * `Upgrade: websocket` and a body accepts it.
 */
export async function _answerHandshake(
  handler: FetchHandler,
  tracker: _BodyTracker,
  request: Request,
): Promise<_HandshakeAnswer> {
  const malformed = badHandshake(request.headers);
  if (malformed !== undefined) return { accepted: false, response: malformed };
  const response = tracker.wrap(await _respond(handler, request));
  const accepted = acceptedProtocol(response);
  if (accepted === undefined || response.body === null) return { accepted: false, response };
  return { accepted: true, protocol: accepted.protocol, body: response.body };
}

/**
 * The `close` of a {@linkcode ServedHandle}: the first call, or `signal` aborting, runs
 * `shutdown`; every call returns that same promise.
 */
export function _closeOnce(
  signal: AbortSignal | undefined,
  shutdown: () => Promise<void>,
): () => Promise<void> {
  let closing: Promise<void> | undefined;
  let stopListening = (): void => {};
  const close = (): Promise<void> => {
    stopListening();
    closing ??= shutdown();
    return closing;
  };
  stopListening = onAbort(signal, () => void close());
  return close;
}

/** Tracks response bodies in flight so they can all be ended at shutdown. */
export class _BodyTracker {
  #open = new Set<() => void>();

  /** Number of bodies still streaming. */
  get size(): number {
    return this.#open.size;
  }

  /** Returns `response` with its body wrapped so {@linkcode _BodyTracker.endAll} can end it. */
  wrap(response: Response): Response {
    const body = response.body;
    if (body === null) return response;
    const reader = body.getReader();
    let end: (() => void) | undefined;
    const stream = new ReadableStream<Uint8Array>({
      start: (controller) => {
        end = () => {
          this.#open.delete(end!);
          try {
            controller.close();
          } catch {
            // Already closed or errored: the body is over either way.
          }
          reader.cancel().catch(() => {
            // Cancelling a source that already failed: its error was reported to the reader.
          });
        };
        this.#open.add(end);
      },
      pull: async (controller) => {
        try {
          const { done, value } = await reader.read();
          if (!this.#open.has(end!)) return;
          if (done) {
            this.#open.delete(end!);
            controller.close();
          } else {
            controller.enqueue(value);
          }
        } catch (error) {
          if (!this.#open.has(end!)) return;
          this.#open.delete(end!);
          controller.error(error);
        }
      },
      cancel: (reason) => {
        this.#open.delete(end!);
        return reader.cancel(reason);
      },
    }, { highWaterMark: 0 });
    return new Response(stream, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  }

  /** Ends every tracked body cleanly. */
  endAll(): void {
    for (const end of [...this.#open]) end();
  }
}

/** Runs `handler`, turning a thrown error into a 500 (or a 499 when the client left). */
export async function _respond(handler: FetchHandler, request: Request): Promise<Response> {
  try {
    return await handler(request);
  } catch (error) {
    if (request.signal.aborted) return new Response(null, { status: 499 });
    return new Response(
      `handler failed: ${messageOf(error)}\n`,
      {
        status: 500,
        headers: { "Content-Type": "text/plain; charset=utf-8" },
      },
    );
  }
}
