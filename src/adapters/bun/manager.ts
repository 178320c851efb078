/**
 * Runs a {@linkcode Manager} on Bun: its `/healthz`, `/readyz` and `/metrics` served with
 * `Bun.serve`, a graceful stop on SIGTERM and SIGINT, an immediate exit on a second signal.
 * @module
 */
import type { Manager } from "../../controller/manager/manager.ts";
import {
  type ManagerPlatform,
  runManagerOn,
  type RunManagerOptions,
} from "../../controller/manager/_run_manager.ts";
import { processSignals } from "../node/_process_signals.ts";

export type { RunManagerOptions } from "../../controller/manager/_run_manager.ts";

interface BunServer {
  readonly port: number;
  readonly hostname: string;
  stop(closeActiveConnections?: boolean): void | Promise<void>;
}
declare const Bun: {
  serve(options: {
    hostname: string;
    port: number;
    fetch: (request: Request) => Response | Promise<Response>;
  }): BunServer;
};

const platform: ManagerPlatform = {
  serve(handler, { hostname, port }) {
    const server = Bun.serve({ hostname, port, fetch: handler });
    return Promise.resolve({
      hostname: server.hostname,
      port: server.port,
      close: async () => {
        await server.stop(true);
      },
    });
  },
  ...processSignals,
};

/**
 * Serves the manager's endpoints with `Bun.serve`, starts the manager, and resolves once it
 * has stopped and the server is closed. SIGTERM or SIGINT (or `options.signal`) stop it
 * gracefully: controllers stop taking keys, in-flight reconciles finish within the manager's
 * `gracefulShutdownTimeoutMs`, the lease is released, the informers stop. A second signal
 * while stopping exits with code 1. Rejects with the error that stopped the manager by itself.
 *
 * @example
 * ```ts ignore
 * import { Manager } from "@kinformer/kinformer/controller";
 * import { runManager } from "@kinformer/kinformer/controller/bun";
 *
 * const manager = new Manager(); // addController(...) here
 * await runManager(manager, { port: 8080 }); // until SIGTERM
 * ```
 */
export function runManager(manager: Manager, options: RunManagerOptions = {}): Promise<void> {
  return runManagerOn(platform, manager, options);
}
