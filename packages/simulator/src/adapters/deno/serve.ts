/**
 * Serves a `fetch` handler (such as `SimulatedCluster.fetch`) over HTTP or HTTPS with
 * `Deno.serve`. Deno.serve cannot ask for client certificates: for `tls.clientCa` use
 * `@kinformer/kinformer/testing/node`, which runs on Deno too.
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

interface DenoServer {
  shutdown(): Promise<void>;
  finished: Promise<void>;
}
interface DenoWebSocket {
  readonly readyState: number;
  onopen: (() => void) | null;
  onclose: (() => void) | null;
  onerror: (() => void) | null;
  send(data: string): void;
  close(code?: number): void;
}
declare const Deno: {
  upgradeWebSocket(
    request: Request,
    options?: { protocol?: string },
  ): { socket: DenoWebSocket; response: Response };
  serve(
    options: {
      hostname: string;
      port: number;
      cert?: string;
      key?: string;
      onListen: (addr: { hostname: string; port: number }) => void;
    },
    handler: (request: Request) => Response | Promise<Response>,
  ): DenoServer;
};

/**
 * A WebSocket handshake: the handler decides; a 200 with `Upgrade: websocket` is switched with
 * `Deno.upgradeWebSocket`, each line of its body one text message. Deno.serve cannot abort a
 * connection, so a failed body (a dropped connection) sends a close frame with the reserved code
 * 1006, which every client takes for a broken connection (an abnormal closure, not clean).
 */
async function upgrade(
  handler: FetchHandler,
  tracker: _BodyTracker,
  request: Request,
): Promise<Response> {
  const aborter = new AbortController();
  const init = { method: request.method, headers: request.headers, signal: aborter.signal };
  const answer = await _answerHandshake(handler, tracker, new Request(request.url, init));
  if (!answer.accepted) return answer.response;
  const body = answer.body;
  const { socket, response: switching } = Deno.upgradeWebSocket(
    request,
    answer.protocol === undefined ? {} : { protocol: answer.protocol },
  );
  let started = false;
  socket.onopen = () => {
    started = true;
    readTextMessages(body, (text) => {
      if (socket.readyState === 1) socket.send(text);
    }, aborter.signal).then((ended) => {
      if (socket.readyState !== 1) return;
      if (ended === "end") socket.close(1000);
      else if (ended === "error") socket.close(1006);
    }, () => socket.close(1011));
  };
  const gone = (): void => {
    aborter.abort(new Error("client disconnected"));
    if (!started) body.cancel().catch(() => {});
  };
  socket.onclose = gone;
  socket.onerror = gone;
  return switching;
}

/**
 * Starts an HTTP server on Deno (HTTPS with `tls`; `tls.clientCa` is refused with a
 * TypeError: Deno.serve cannot verify client certificates). Each response chunk is written as it is produced, so watch
 * events reach the client at once; `close()` also ends open streams. WebSocket handshakes go
 * to the handler; one it accepts (the simulated cluster does for a watch) is served with
 * `Deno.upgradeWebSocket`, one message per line of the body.
 *
 * @example
 * ```ts ignore
 * import { SimulatedCluster } from "@kinformer/simulator";
 * import { serve } from "@kinformer/simulator/deno";
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
  const { hostname, port, signal, tls } = _serveOptions(
    options,
    "Deno.serve cannot verify client certificates; use @kinformer/kinformer/testing/node, " +
      "which runs on Deno too",
  );
  const tracker = new _BodyTracker();
  let listening!: (addr: { hostname: string; port: number }) => void;
  const ready = new Promise<{ hostname: string; port: number }>((r) => (listening = r));
  const server = Deno.serve(
    {
      hostname,
      port,
      ...(tls === undefined ? {} : { cert: tls.cert, key: tls.key }),
      onListen: (addr) => listening(addr),
    },
    async (request) => {
      if (isWebSocketUpgrade(request)) return await upgrade(handler, tracker, request);
      // Deno's request.signal also aborts after every successful response (its legacy
      // behaviour, which it warns about when read); a client that goes away cancels the
      // response body instead, so the handler gets a request without that signal.
      const init = {
        method: request.method,
        headers: request.headers,
        body: request.body,
        duplex: "half",
      } as RequestInit;
      return tracker.wrap(await _respond(handler, new Request(request.url, init)));
    },
  );
  const addr = await ready;
  const close = _closeOnce(signal, async () => {
    tracker.endAll();
    await server.shutdown();
  });
  const scheme = tls === undefined ? "http" : "https";
  return { url: `${scheme}://${_urlHost(addr.hostname)}:${addr.port}`, close };
}
