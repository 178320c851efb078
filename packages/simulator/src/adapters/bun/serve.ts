/**
 * Serves a `fetch` handler (such as `SimulatedCluster.fetch`) over HTTP or HTTPS with
 * `Bun.serve`. Bun.serve does not show the handler client certificates: for `tls.clientCa`
 * use `@kinformer/kinformer/testing/node`, which runs on Bun too.
 * @module
 */
import {
  _answerHandshake,
  _BodyTracker,
  _closeOnce,
  _respond,
  _serveOptions,
  _urlHost,
  type FetchHandler,
  type ServedHandle,
  type ServeOptions,
} from "../_serve_common.ts";
import { isWebSocketUpgrade } from "../../handlers/reads/websocket_handshake.ts";
import { readTextMessages } from "../../server/websocket_messages.ts";

export type { FetchHandler, ServedHandle, ServeOptions } from "../_serve_common.ts";
export type { ServeTlsOptions } from "../_serve_tls.ts";

interface BunServer {
  readonly port: number;
  readonly hostname: string;
  stop(closeActiveConnections?: boolean): Promise<void> | void;
  upgrade(request: Request, options: { headers: Record<string, string>; data: Session }): boolean;
}
interface BunWebSocket {
  readonly data: Session;
  readonly readyState: number;
  send(data: string): number;
  close(code?: number): void;
  terminate(): void;
}
declare const Bun: {
  serve(options: {
    hostname: string;
    port: number;
    idleTimeout: number;
    tls?: { cert: string; key: string };
    fetch: (
      request: Request,
      server: BunServer,
    ) => Response | undefined | Promise<Response | undefined>;
    websocket: {
      open(ws: BunWebSocket): void;
      message(ws: BunWebSocket, message: unknown): void;
      close(ws: BunWebSocket): void;
      drain(ws: BunWebSocket): void;
    };
  }): BunServer;
};

/** One accepted WebSocket: the body whose lines it sends. */
interface Session {
  readonly body: ReadableStream<Uint8Array>;
  readonly aborter: AbortController;
  /** Resolves a send held by back-pressure. */
  drained: (() => void) | undefined;
  started: boolean;
}

/** Sends each line of the session's body as a text message (see {@linkcode serve}). */
function pump(ws: BunWebSocket): void {
  const session = ws.data;
  session.started = true;
  readTextMessages(session.body, (text) => {
    if (ws.readyState !== 1) return undefined;
    // -1: queued behind back-pressure; wait for drain before reading on.
    if (ws.send(text) !== -1) return undefined;
    return new Promise<void>((resolve) => (session.drained = resolve));
  }, session.aborter.signal).then((ended) => {
    if (ws.readyState !== 1) return;
    if (ended === "end") ws.close(1000);
    else if (ended === "error") ws.terminate();
  }, () => ws.terminate());
}

const websocket = {
  open: pump,
  message(): void {
    // A watch client sends nothing; the API server ignores what it might.
  },
  close(ws: BunWebSocket): void {
    const session = ws.data;
    session.aborter.abort(new Error("client disconnected"));
    session.drained?.();
    if (!session.started) session.body.cancel().catch(() => {});
  },
  drain(ws: BunWebSocket): void {
    const drained = ws.data.drained;
    ws.data.drained = undefined;
    drained?.();
  },
};

/** A WebSocket handshake: the handler decides; see {@linkcode serve}. */
async function upgrade(
  handler: FetchHandler,
  tracker: _BodyTracker,
  request: Request,
  server: BunServer,
): Promise<Response | undefined> {
  const aborter = new AbortController();
  const init = { method: request.method, headers: request.headers, signal: aborter.signal };
  const answer = await _answerHandshake(handler, tracker, new Request(request.url, init));
  if (!answer.accepted) return answer.response;
  const headers: Record<string, string> = answer.protocol === undefined
    ? {}
    : { "Sec-WebSocket-Protocol": answer.protocol };
  const session: Session = { body: answer.body, aborter, drained: undefined, started: false };
  if (server.upgrade(request, { headers, data: session })) return undefined;
  await answer.body.cancel().catch(() => {});
  return new Response("not a WebSocket handshake\n", { status: 400 });
}

/**
 * Starts an HTTP server on Bun (HTTPS with `tls`; `tls.clientCa` is refused with a
 * TypeError), idle timeout off, so quiet watches stay open. `close()` ends
 * open streams and active connections. WebSocket handshakes go to the handler; one it accepts
 * (the simulated cluster does for a watch) is upgraded with `server.upgrade`, one message per
 * line of the body; a failed body (a dropped connection) terminates the socket (1006).
 *
 * Caveat: Bun.serve (1.x) holds back the end of the response head until the body's first
 * chunk (oven-sh/bun#33660), so a client's `fetch()` of a watch that has no event to send yet
 * does not resolve until the first event. Watches with initial events, lists and everything
 * else are unaffected. For watches from a resourceVersion, prefer `@kinformer/kinformer/testing/node`, which runs
 * on Bun through its Node compatibility and sends the head at once.
 *
 * @example
 * ```ts ignore
 * import { SimulatedCluster } from "@kinformer/simulator";
 * import { serve } from "@kinformer/simulator/bun";
 * import assert from "node:assert/strict";
 * const cluster = new SimulatedCluster();
 * const server = await serve(cluster.fetch);
 * const response = await fetch(`${server.url}/version`);
 * assert.equal(response.status, 200);
 * assert.match(await response.text(), /"gitVersion":"v1\.\d+/);
 * cluster.close();
 * await server.close();
 * ```
 */
export function serve(handler: FetchHandler, options?: ServeOptions): Promise<ServedHandle> {
  const { hostname, port, signal, tls } = _serveOptions(
    options,
    "Bun.serve does not show client certificates to the handler; use " +
      "@kinformer/kinformer/testing/node, which runs on Bun too",
  );
  const tracker = new _BodyTracker();
  const server = Bun.serve({
    hostname,
    port,
    idleTimeout: 0,
    ...(tls === undefined ? {} : { tls: { cert: tls.cert, key: tls.key } }),
    fetch: async (request, server) => {
      if (isWebSocketUpgrade(request)) return await upgrade(handler, tracker, request, server);
      return tracker.wrap(await _respond(handler, request));
    },
    websocket,
  });
  const close = _closeOnce(signal, async () => {
    tracker.endAll();
    await server.stop(true);
  });
  const scheme = tls === undefined ? "http" : "https";
  return Promise.resolve({ url: `${scheme}://${_urlHost(hostname)}:${server.port}`, close });
}
