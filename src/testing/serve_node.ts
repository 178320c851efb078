/**
 * Serves a `fetch` handler (such as `SimulatedCluster.fetch`) over HTTP with `node:http`
 * (works on Node, and on Deno and Bun through their Node compatibility). The only file of the
 * package that imports `node:*`.
 * @module
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { Socket } from "node:net";
import {
  _BodyTracker,
  _closeOnce,
  _respond,
  _serveOptions,
  type FetchHandler,
  type ServedHandle,
  type ServeOptions,
} from "./_serve_common.ts";

export type { FetchHandler, ServedHandle, ServeOptions } from "./_serve_common.ts";

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

function waitForDrain(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      res.off("drain", done);
      res.off("close", done);
      resolve();
    };
    res.on("drain", done);
    res.on("close", done);
  });
}

async function handle(
  handler: FetchHandler,
  tracker: _BodyTracker,
  hostname: string,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const aborter = new AbortController();
  res.on("close", () => {
    if (!res.writableFinished) aborter.abort(new Error("client disconnected"));
  });
  const headers = new Headers();
  for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) {
    headers.append(req.rawHeaders[i]!, req.rawHeaders[i + 1]!);
  }
  const body = await readRequestBody(req);
  const init: RequestInit = { method: req.method ?? "GET", headers, signal: aborter.signal };
  if (body !== undefined) init.body = body;
  const request = new Request(`http://${req.headers.host ?? hostname}${req.url ?? "/"}`, init);
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
      if (!res.write(value)) await waitForDrain(res);
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

/**
 * Starts an HTTP server with `node:http`. Each body chunk is one socket write, so watch events
 * flush at once; backpressure waits for `drain`; a closed socket cancels the body; a failing
 * body resets the connection. `close()` ends open streams and destroys open sockets.
 *
 * @example
 * ```ts ignore
 * import { SimulatedCluster } from "@kinformer/kinformer/testing";
 * import { serve } from "@kinformer/kinformer/testing/node";
 * const cluster = new SimulatedCluster();
 * const server = await serve(cluster.fetch);
 * console.log((await fetch(`${server.url}/version`)).status); // 200
 * cluster.close();
 * await server.close();
 * ```
 */
export async function serve(handler: FetchHandler, options?: ServeOptions): Promise<ServedHandle> {
  const { hostname, port, signal } = _serveOptions(options);
  signal?.throwIfAborted();
  const tracker = new _BodyTracker();
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    handle(handler, tracker, hostname, req, res).catch((error: unknown) => {
      res.destroy(error instanceof Error ? error : new Error(String(error)));
    });
  });
  server.on("connection", (socket: Socket) => {
    socket.setNoDelay(true);
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, hostname, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const address = server.address();
  const actualPort = typeof address === "object" && address !== null ? address.port : port;
  const close = _closeOnce(signal, () =>
    new Promise((resolve) => {
      tracker.endAll();
      server.close(() => resolve());
      for (const s of sockets) s.destroy();
    }));
  return { url: `http://${hostname}:${actualPort}`, close };
}
