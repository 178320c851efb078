/**
 * Serves a `fetch` handler (such as `SimulatedCluster.fetch`) over HTTP or HTTPS with
 * `Bun.serve`. Bun.serve does not show the handler client certificates: for `tls.clientCa`
 * use `serve-node`, which runs on Bun too.
 * @module
 */
import {
  _BodyTracker,
  _closeOnce,
  _respond,
  _serveOptions,
  type FetchHandler,
  type ServedHandle,
  type ServeOptions,
} from "./_serve_common.ts";
import { _serveTls } from "./_serve_tls.ts";

export type { FetchHandler, ServedHandle, ServeOptions } from "./_serve_common.ts";
export type { ServeTlsOptions } from "./_serve_tls.ts";

interface BunServer {
  readonly port: number;
  readonly hostname: string;
  stop(closeActiveConnections?: boolean): Promise<void> | void;
}
declare const Bun: {
  serve(options: {
    hostname: string;
    port: number;
    idleTimeout: number;
    tls?: { cert: string; key: string };
    fetch: (request: Request) => Response | Promise<Response>;
  }): BunServer;
};

/**
 * Starts an HTTP server on Bun (HTTPS with `tls`; `tls.clientCa` is refused with a
 * TypeError), idle timeout off, so quiet watches stay open. `close()` ends
 * open streams and active connections.
 *
 * Caveat: Bun.serve (1.x) holds back the end of the response head until the body's first
 * chunk (oven-sh/bun#33660), so a client's `fetch()` of a watch that has no event to send yet
 * does not resolve until the first event. Watches with initial events, lists and everything
 * else are unaffected. For watches from a resourceVersion, prefer `serve_node.ts`, which runs
 * on Bun through its Node compatibility and sends the head at once.
 *
 * @example
 * ```ts ignore
 * import { SimulatedCluster } from "@kinformer/kinformer/testing";
 * import { serve } from "@kinformer/kinformer/testing/bun";
 * const cluster = new SimulatedCluster();
 * const server = await serve(cluster.fetch);
 * console.log((await fetch(`${server.url}/version`)).status); // 200
 * cluster.close();
 * await server.close();
 * ```
 */
export function serve(handler: FetchHandler, options?: ServeOptions): Promise<ServedHandle> {
  const { hostname, port, signal } = _serveOptions(options);
  const tls = _serveTls(options?.tls);
  if (tls?.clientCa !== undefined) {
    throw new TypeError(
      "options.tls.clientCa: Bun.serve does not show client certificates to the handler; " +
        "use @kinformer/kinformer/testing/serve-node, which runs on Bun too",
    );
  }
  signal?.throwIfAborted();
  const tracker = new _BodyTracker();
  const server = Bun.serve({
    hostname,
    port,
    idleTimeout: 0,
    ...(tls === undefined ? {} : { tls: { cert: tls.cert, key: tls.key } }),
    fetch: async (request) => tracker.wrap(await _respond(handler, request)),
  });
  const close = _closeOnce(signal, async () => {
    tracker.endAll();
    await server.stop(true);
  });
  const host = hostname.includes(":") ? `[${hostname}]` : hostname;
  const scheme = tls === undefined ? "http" : "https";
  return Promise.resolve({ url: `${scheme}://${host}:${server.port}`, close });
}
