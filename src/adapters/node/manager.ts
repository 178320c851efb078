/**
 * Runs a {@linkcode Manager} on Node.js: its `/healthz`, `/readyz` and `/metrics` served with
 * `node:http`, a graceful stop on SIGTERM and SIGINT, an immediate exit on a second signal.
 * Works on Deno and Bun too (through their `node:http`).
 * @module
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Manager } from "../../controller/manager/manager.ts";
import {
  type ManagerPlatform,
  runManagerOn,
  type RunManagerOptions,
} from "../../controller/manager/_run_manager.ts";
import { processSignals } from "./_process_signals.ts";

export type { RunManagerOptions } from "../../controller/manager/_run_manager.ts";

/** The path and query of an absolute-form request target (`GET http://host/metrics`). */
function pathOf(target: string): string {
  try {
    const url = new URL(target);
    return url.pathname + url.search;
  } catch {
    return "/"; // not a URL: no endpoint matches `/`
  }
}

/** Answers one request with `handler` (the endpoints read no request body). */
async function answer(
  handler: (request: Request) => Response,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  req.resume(); // a body, if any, is not needed: drain it
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (typeof value === "string") headers.set(name, value);
    else if (Array.isArray(value)) { for (const v of value) headers.append(name, v); }
  }
  // The URL is built from the request target alone: a Host header never becomes part of the
  // path (`Host: x/healthz?` would make `GET /metrics` read as `/healthz`).
  const target = req.url ?? "/";
  const path = target.startsWith("/") ? target : pathOf(target);
  const response = handler(
    new Request(`http://localhost${path}`, {
      method: req.method ?? "GET",
      headers,
    }),
  );
  const body = await response.text();
  res.writeHead(response.status, Object.fromEntries(response.headers));
  res.end(req.method === "HEAD" ? undefined : body);
}

const platform: ManagerPlatform = {
  serve(handler, { hostname, port }) {
    return new Promise((resolve, reject) => {
      const server = createServer((req, res) => {
        answer(handler, req, res).catch(() => {
          if (!res.headersSent) res.writeHead(500);
          res.end();
        });
      });
      server.once("error", reject);
      server.listen(port, hostname, () => {
        server.off("error", reject);
        const address = server.address() as AddressInfo;
        resolve({
          hostname: address.address,
          port: address.port,
          close: () =>
            new Promise<void>((done) => {
              server.close(() => done());
              // Keep-alive connections (Prometheus, probes) would hold close() open.
              (server as { closeAllConnections?: () => void }).closeAllConnections?.();
            }),
        });
      });
    });
  },
  ...processSignals,
};

/**
 * Serves the manager's endpoints with `node:http`, starts the manager, and resolves once it
 * has stopped and the server is closed. SIGTERM or SIGINT (or `options.signal`) stop it
 * gracefully: controllers stop taking keys, in-flight reconciles finish within the manager's
 * `gracefulShutdownTimeoutMs`, the lease is released, the informers stop. A second signal
 * while stopping exits with code 1. Rejects with the error that stopped the manager by itself.
 *
 * @example
 * ```ts
 * import { Manager } from "@kinformer/kinformer/controller";
 * import { runManager } from "@kinformer/kinformer/controller/node";
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
 * const ready = await fetch(`http://127.0.0.1:${port}/readyz`);
 * assert.equal(ready.status, 200);
 * await ready.body?.cancel();
 * stop.abort(); // or SIGTERM
 * await running;
 * ```
 */
export function runManager(manager: Manager, options: RunManagerOptions = {}): Promise<void> {
  return runManagerOn(platform, manager, options);
}
