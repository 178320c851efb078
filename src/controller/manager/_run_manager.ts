/**
 * What `runManager` does on every runtime, given that runtime's HTTP server and signal
 * handling: serve the manager's endpoints, start it, stop it gracefully on the first
 * termination signal (exit at once on a second), close the server. Runtime-free; the
 * `manager_<runtime>.ts` files supply the platform. Internal.
 * @module
 */
import {
  checkBoolean,
  checkFunction,
  checkNumber,
  checkOptionsObject,
  checkSignal,
  checkString,
} from "../../util/validate.ts";
import { onAbort } from "../../util/abort.ts";
import { describeValue } from "../../util/values.ts";
import type { Manager } from "./manager.ts";

/** Options of `runManager` (`@kinformer/kinformer/controller/deno`, `/bun`, `/node`). */
export interface RunManagerOptions {
  /**
   * Port of `/healthz`, `/readyz` and `/metrics` (`0`: any free port, see `onListen`).
   * @default 8080
   */
  port?: number | undefined;
  /** Address to listen on. @default "0.0.0.0" */
  hostname?: string | undefined;
  /**
   * Process signals that stop the manager gracefully; a second one while it stops exits the
   * process at once with code 1 (as controller-runtime's signal handler does). `[]` installs
   * none (stop through `signal`).
   * @default ["SIGTERM", "SIGINT"]
   */
  signals?: readonly ("SIGTERM" | "SIGINT" | "SIGHUP" | "SIGQUIT")[] | undefined;
  /** Also stops the manager when it aborts. @default undefined */
  signal?: AbortSignal | undefined;
  /** Told the address once the server listens. @default undefined */
  onListen?: ((address: { hostname: string; port: number }) => void) | undefined;
  /**
   * Exit at once (code 1) on a second signal while stopping.
   * @default true
   */
  exitOnSecondSignal?: boolean | undefined;
}

/** A listening server. */
export interface ServedEndpoints {
  /** Bound host. */
  readonly hostname: string;
  /** Bound port. */
  readonly port: number;
  /** Stops listening and closes every connection. */
  close(): Promise<void>;
}

/** What a runtime supplies. */
export interface ManagerPlatform {
  /** Serves `handler` on `hostname:port`; resolves once listening. */
  serve(
    handler: (request: Request) => Response,
    options: { hostname: string; port: number },
  ): Promise<ServedEndpoints>;
  /** Calls `listener` on each `signal`; returns the function that removes it. */
  onSignal(signal: string, listener: () => void): () => void;
  /** Ends the process now. */
  exit(code: number): void;
}

/**
 * Serves `manager.fetch`, starts the manager, and resolves once it has stopped (after a
 * termination signal, `options.signal`, or by itself) and the server is closed; rejects with
 * the error that stopped the manager by itself.
 */
export async function runManagerOn(
  platform: ManagerPlatform,
  manager: Manager,
  options: RunManagerOptions = {},
): Promise<void> {
  checkOptionsObject(options, "runManager");
  checkNumber(options.port, "port", { min: 0, max: 65535, integer: true });
  checkString(options.hostname, "hostname");
  checkSignal(options.signal, "signal");
  checkFunction(options.onListen, "onListen");
  checkBoolean(options.exitOnSecondSignal, "exitOnSecondSignal");
  const signals = options.signals ?? ["SIGTERM", "SIGINT"];
  if (!Array.isArray(signals) || signals.some((s) => typeof s !== "string")) {
    throw new TypeError(`signals must be an array of signal names, got ${describeValue(signals)}`);
  }
  if (typeof manager?.fetch !== "function" || typeof manager.start !== "function") {
    throw new TypeError(`manager must be a Manager, got ${describeValue(manager)}`);
  }
  const server = await platform.serve(manager.fetch, {
    hostname: options.hostname ?? "0.0.0.0",
    port: options.port ?? 8080,
  });
  const stop = new AbortController();
  const removers: (() => void)[] = [];
  try {
    options.onListen?.({ hostname: server.hostname, port: server.port });
    for (const name of signals) {
      removers.push(platform.onSignal(name, () => {
        if (!stop.signal.aborted) stop.abort(new Error(`received ${name}`));
        else if (options.exitOnSecondSignal ?? true) platform.exit(1);
      }));
    }
    removers.push(onAbort(options.signal, () => stop.abort(options.signal?.reason)));
    removers.push(onAbort(stop.signal, () => void manager.stop()));
    manager.start();
    await manager.whenStopped();
  } finally {
    for (const remove of removers) remove();
    await server.close();
  }
}
