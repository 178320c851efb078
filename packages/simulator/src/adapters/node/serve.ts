/**
 * Serves a `fetch` handler (such as `SimulatedCluster.fetch`) over HTTP or HTTPS with
 * `node:http` and `node:tls` (works on Node, and on Deno and Bun through their Node
 * compatibility; on Deno, HTTPS is `node:https`, whose connections stay usable for a second
 * request, where a `node:tls` socket handed to `node:http` served one request only). With `tls.clientCa` it authenticates client certificates: the handler sees
 * the request as the certificate's CN (`RecordedRequest.user` in the simulated cluster).
 * @module
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { createServer as createHttpsServer } from "node:https";
import { createServer as createTlsServer, type TLSSocket } from "node:tls";
import { setClientCertUser } from "../../server/client_cert_user.ts";
import {
  drained,
  httpAnswer,
  type RawSocket,
  serveSession,
  switchingProtocols,
} from "./_websocket_server.ts";
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

export type { FetchHandler, ServedHandle, ServeOptions } from "../_serve_common.ts";
export type { ServeTlsOptions } from "../_serve_tls.ts";

async function readRequestBody(req: IncomingMessage): Promise<Uint8Array<ArrayBuffer> | undefined> {
  if (req.method === "GET" || req.method === "HEAD") return undefined;
  const chunks: Uint8Array[] = [];
  for await (const chunk of req) chunks.push(chunk as Uint8Array);
  if (chunks.length === 0) return undefined;
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.byteLength, 0));
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.byteLength;
  }
  return out;
}

/** The CN of the client certificate `socket` verified, if it did. */
function clientCertUser(socket: Socket): string | undefined {
  const tlsSocket = socket as Partial<TLSSocket>;
  if (tlsSocket.authorized !== true || typeof tlsSocket.getPeerCertificate !== "function") {
    return undefined;
  }
  const cn = tlsSocket.getPeerCertificate().subject?.CN;
  const name = Array.isArray(cn) ? cn[0] : cn;
  return typeof name === "string" && name !== "" ? name : undefined;
}

async function handle(
  handler: FetchHandler,
  tracker: _BodyTracker,
  scheme: "http" | "https",
  authority: string,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const aborter = new AbortController();
  res.on("close", () => {
    if (!res.writableFinished) aborter.abort(new Error("client disconnected"));
  });
  const headers = headersOf(req);
  const body = await readRequestBody(req);
  const init: RequestInit = { method: req.method ?? "GET", headers, signal: aborter.signal };
  if (body !== undefined) init.body = body;
  const request = new Request(
    `${scheme}://${req.headers.host ?? authority}${req.url ?? "/"}`,
    init,
  );
  const user = clientCertUser(req.socket);
  if (user !== undefined) setClientCertUser(request, user);
  const response = tracker.wrap(await _respond(handler, request));
  const out: Record<string, string | string[]> = {};
  response.headers.forEach((value, name) => {
    out[name] = value;
  });
  res.writeHead(response.status, response.statusText || undefined, out);
  if (response.body === null) {
    res.end();
    return;
  }
  res.flushHeaders();
  const reader = response.body.getReader();
  const onClose = (): void => {
    reader.cancel(new Error("client disconnected")).catch(() => {
      // The body already failed; that failure is handled below.
    });
  };
  res.on("close", onClose);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (res.destroyed) break;
      if (!res.write(value)) await drained(res);
    }
    res.end();
  } catch (error) {
    // The body failed (a dropped connection, simulated or real): reset the connection so the
    // client sees a network error rather than a clean end.
    res.destroy(error instanceof Error ? error : new Error(String(error)));
  } finally {
    res.off("close", onClose);
  }
}

function headersOf(req: IncomingMessage): Headers {
  const headers = new Headers();
  for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) {
    headers.append(req.rawHeaders[i]!, req.rawHeaders[i + 1]!);
  }
  return headers;
}

/**
 * A WebSocket handshake (`upgrade` event): the handler decides, as for any request; a 200 with
 * `Upgrade: websocket` is switched to a WebSocket whose messages are the body's lines (see
 * `_websocket_server.ts`), anything else is written as the HTTP answer and the socket closed.
 */
async function upgrade(
  handler: FetchHandler,
  tracker: _BodyTracker,
  scheme: "http" | "https",
  authority: string,
  req: IncomingMessage,
  socket: Socket,
  head: Uint8Array,
): Promise<void> {
  const aborter = new AbortController();
  socket.on("close", () => aborter.abort(new Error("client disconnected")));
  socket.on("error", () => aborter.abort(new Error("client connection failed")));
  const headers = headersOf(req);
  const request = new Request(`${scheme}://${req.headers.host ?? authority}${req.url ?? "/"}`, {
    method: req.method ?? "GET",
    headers,
    signal: aborter.signal,
  });
  const user = clientCertUser(req.socket);
  if (user !== undefined) setClientCertUser(request, user);
  const answer = await _answerHandshake(handler, tracker, request);
  if (socket.destroyed) {
    await (answer.accepted ? answer.body : answer.response.body)?.cancel().catch(() => {});
    return;
  }
  if (!answer.accepted) {
    socket.end(await httpAnswer(answer.response));
    return;
  }
  socket.write(await switchingProtocols(headers.get("sec-websocket-key")!, answer.protocol));
  await serveSession(socket as unknown as RawSocket, answer.body, head, aborter);
}

/**
 * Starts an HTTP server with `node:http`, or an HTTPS one with `tls` (a `node:tls` server
 * handing its connections to `node:http`, so client certificates can be read on Bun too).
 * Each body chunk is one socket write, so watch events flush at once; backpressure waits for
 * `drain`; a closed socket cancels the body; a failing body resets the connection. `close()`
 * ends open streams and destroys open sockets.
 *
 * WebSocket handshakes (`Upgrade: websocket`) go to the handler too; when it accepts one (the
 * simulated cluster does for a watch, with the real API server's rules), this adapter speaks
 * RFC 6455 itself (no dependency): each line of the body is one text message (fragmented where
 * a body chunk ends mid-line), the end of the body closes with 1000, a failed body (a dropped
 * connection) destroys the socket (the client sees 1006).
 *
 * @example
 * ```ts ignore
 * import { SimulatedCluster } from "@kinformer/simulator";
 * import { serve } from "@kinformer/simulator/node";
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
export async function serve(handler: FetchHandler, options?: ServeOptions): Promise<ServedHandle> {
  const { hostname, port, signal, tls } = _serveOptions(options);
  const tracker = new _BodyTracker();
  const sockets = new Set<Socket>();
  const track = (socket: Socket): void => {
    socket.setNoDelay(true);
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  };
  const host = _urlHost(hostname);
  const scheme = tls === undefined ? "http" : "https";
  let authority = host;
  const serveRequest = (req: IncomingMessage, res: ServerResponse): void => {
    handle(handler, tracker, scheme, authority, req, res).catch((error: unknown) => {
      res.destroy(error instanceof Error ? error : new Error(String(error)));
    });
  };
  const tlsOptions = tls === undefined ? undefined : {
    cert: tls.cert,
    key: tls.key,
    ALPNProtocols: ["http/1.1"],
    ...(tls.clientCa === undefined
      ? {}
      : { ca: tls.clientCa, requestCert: true, rejectUnauthorized: false }),
  };
  // Deno's node:http serves a socket a node:tls server hands it for one request only (the
  // next request on that kept-alive connection is reset): there, HTTPS is node:https itself.
  const server = tlsOptions !== undefined && "Deno" in globalThis
    ? createHttpsServer(tlsOptions, serveRequest)
    : createServer(serveRequest);
  server.on("upgrade", (req: IncomingMessage, socket: Socket, head: Uint8Array) => {
    upgrade(handler, tracker, scheme, authority, req, socket, head).catch(() => socket.destroy());
  });
  const listener = tlsOptions === undefined || "Deno" in globalThis
    ? server
    : createTlsServer(tlsOptions, (socket) => server.emit("connection", socket));
  // The TLS server's connections are raw TCP sockets until the handshake; track both.
  listener.on("connection", track);
  if (tls !== undefined) {
    listener.on("secureConnection", track);
    // A failed handshake (a client that does not trust us) is the client's problem.
    listener.on("tlsClientError", (_error: Error, socket: Socket) => socket.destroy());
  }
  await new Promise<void>((resolve, reject) => {
    listener.once("error", reject);
    listener.listen(port, hostname, () => {
      listener.off("error", reject);
      resolve();
    });
  });
  const address = listener.address();
  const actualPort = typeof address === "object" && address !== null ? address.port : port;
  authority = `${host}:${actualPort}`;
  const close = _closeOnce(signal, () =>
    new Promise((resolve) => {
      tracker.endAll();
      let pending = listener === server ? 1 : 2;
      const done = (): void => {
        if (--pending === 0) resolve();
      };
      listener.close(() => done());
      if (listener !== server) server.close(() => done());
      for (const s of sockets) s.destroy();
    }));
  return { url: `${scheme}://${authority}`, close };
}
