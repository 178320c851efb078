/**
 * Serves a `fetch` handler (such as `SimulatedCluster.fetch`) over HTTP with `Bun.serve`.
 * The only file of the package that touches the `Bun` namespace.
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

export type { FetchHandler, ServedHandle, ServeOptions } from "./_serve_common.ts";

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
    fetch: (request: Request) => Response | Promise<Response>;
  }): BunServer;
};

/**
 * Starts an HTTP server on Bun (idle timeout off, so quiet watches stay open). `close()` ends
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
  signal?.throwIfAborted();
  const tracker = new _BodyTracker();
  const server = Bun.serve({
    hostname,
    port,
    idleTimeout: 0,
    fetch: async (request) => tracker.wrap(await _respond(handler, request)),
  });
  const close = _closeOnce(signal, async () => {
    tracker.endAll();
    await server.stop(true);
  });
  return Promise.resolve({ url: `http://${hostname}:${server.port}`, close });
}
