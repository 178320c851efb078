/**
 * Runs a {@linkcode Manager} on Deno: its `/healthz`, `/readyz` and `/metrics` served with
 * `Deno.serve`, a graceful stop on SIGTERM and SIGINT (`Deno.addSignalListener`), an immediate
 * exit on a second signal. Needs `--allow-net` (and nothing else).
 * @module
 */
import type { Manager } from "../../controller/manager/manager.ts";
import {
  type ManagerPlatform,
  runManagerOn,
  type RunManagerOptions,
} from "../../controller/manager/_run_manager.ts";

export type { RunManagerOptions } from "../../controller/manager/_run_manager.ts";

interface DenoServer {
  shutdown(): Promise<void>;
  finished: Promise<void>;
}
declare const Deno: {
  serve(
    options: {
      hostname: string;
      port: number;
      onListen: (addr: { hostname: string; port: number }) => void;
    },
    handler: (request: Request) => Response | Promise<Response>,
  ): DenoServer;
  addSignalListener(signal: string, handler: () => void): void;
  removeSignalListener(signal: string, handler: () => void): void;
  exit(code: number): never;
};

const platform: ManagerPlatform = {
  serve(handler, { hostname, port }) {
    return new Promise((resolve) => {
      const server = Deno.serve({
        hostname,
        port,
        onListen: (addr) =>
          resolve({
            hostname: addr.hostname,
            port: addr.port,
            close: async () => {
              await server.shutdown();
              await server.finished;
            },
          }),
      }, handler);
    });
  },
  onSignal(signal, listener) {
    Deno.addSignalListener(signal, listener);
    return () => Deno.removeSignalListener(signal, listener);
  },
  exit(code) {
    Deno.exit(code);
  },
};

/**
 * Serves the manager's endpoints with `Deno.serve`, starts the manager, and resolves once it
 * has stopped and the server is closed. SIGTERM or SIGINT (or `options.signal`) stop it
 * gracefully: controllers stop taking keys, in-flight reconciles finish within the manager's
 * `gracefulShutdownTimeoutMs`, the lease is released, the informers stop. A second signal
 * while stopping exits with code 1. Rejects with the error that stopped the manager by itself.
 *
 * @example
 * ```ts
 * import { Manager } from "@kinformer/kinformer/controller";
 * import { runManager } from "@kinformer/kinformer/controller/deno";
 * import assert from "node:assert/strict";
 *
 * const manager = new Manager(); // addController(...) here
 * const stop = new AbortController();
 * const listening = Promise.withResolvers<number>();
 * const running = runManager(manager, {
 *   hostname: "127.0.0.1", port: 0, signals: [], signal: stop.signal,
 *   onListen: (address) => listening.resolve(address.port),
 * });
 * const port = await listening.promise;
 * await manager.waitForSync();
 * const live = await fetch(`http://127.0.0.1:${port}/healthz`);
 * assert.equal(await live.text(), "ok");
 * stop.abort(); // or SIGTERM
 * await running;
 * ```
 */
export function runManager(manager: Manager, options: RunManagerOptions = {}): Promise<void> {
  return runManagerOn(platform, manager, options);
}
