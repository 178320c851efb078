/**
 * `kinformer-sim`: starts a simulated cluster on HTTPS, writes a context for it into a
 * kubeconfig, keeps a status line, and undoes it all when stopped. Everything a runtime does
 * (serving, files, environment, output) comes in through a {@linkcode CommandHost}, so this
 * runs, and is tested, the same on Deno, Bun and Node; the adapters (`adapters/*\/cli_host.ts`)
 * make the hosts.
 * @module
 */
import type { Clock } from "@kinformer/kinformer/cache";
import { pods } from "@kinformer/kinformer/client";
import { messageOf, systemClock } from "@kinformer/kinformer/internal";
import { SimulatedCluster } from "../cluster/simulated_cluster.ts";
import { createCertificates } from "./certificates.ts";
import {
  type CommandOptions,
  CommandUsageError,
  parseCommandArgs,
  USAGE,
} from "./command_options.ts";
import { FIXTURE_SETS } from "./fixture_sets.ts";
import { addContext, removeContext } from "./kubeconfig_entry.ts";
import { applyManifests, parseManifests } from "./manifests.ts";

/** A running HTTP(S) server, as the serve adapters return it. */
export interface CommandServer {
  /** Base URL, `https://host:port`. */
  readonly url: string;
  /** Stops it; resolves when it is down. */
  close(): Promise<void>;
}

/** What the command needs from its runtime. */
export interface CommandHost {
  /** Serves `handler` over HTTPS (one of the serve adapters). */
  serve(
    handler: (request: Request) => Promise<Response>,
    options: { hostname: string; port: number; tls: { cert: string; key: string } },
  ): Promise<CommandServer>;
  /** The text of a file, or undefined when it does not exist. */
  readTextFile(path: string): Promise<string | undefined>;
  /** Writes a file readable by its owner only, creating its folder. */
  writeTextFile(path: string, text: string): Promise<void>;
  /** Deletes a file; a missing one is fine. */
  removeFile(path: string): Promise<void>;
  /** Names of the files in a folder. */
  listFiles(dir: string): Promise<string[]>;
  /** An environment variable. */
  env(name: string): string | undefined;
  /** The user's home folder (for `~/.kube/config`). */
  homeDir: string | undefined;
  /** Separator of `KUBECONFIG`'s paths (`:`, or `;` on Windows). */
  pathListSeparator: string;
  /** Writes to standard output. */
  out(text: string): void;
  /** Writes to standard error. */
  err(text: string): void;
  /** Whether standard output is a terminal (one status line updated in place). */
  isTerminal: boolean;
  /**
   * Time for the cluster, the status line and the periodic faults.
   * @default the system clock
   */
  clock?: Clock;
}

/** Calls `fn` every `ms` on `clock` until the returned function is called. */
function every(clock: Clock, ms: number, fn: () => void): () => void {
  let timer = clock.setTimeout(function tick() {
    timer = clock.setTimeout(tick, ms);
    fn();
  }, ms);
  return () => clock.clearTimeout(timer);
}

/** Counts of a running simulator. */
export interface SimulatorStatus {
  /** Objects stored. */
  objects: number;
  /** Watches open. */
  watches: number;
  /** Requests served since start. */
  requests: number;
}

/** A simulator {@linkcode startSimulator} started. */
export interface RunningSimulator {
  /** The cluster (to drive it from code). */
  readonly cluster: SimulatedCluster;
  /** `https://host:port`. */
  readonly url: string;
  /** The kubeconfig the context was written into. */
  readonly kubeconfig: string;
  /** The CA certificate file, next to the kubeconfig. */
  readonly caFile: string;
  /** The context's name. */
  readonly context: string;
  /** Whether the kubeconfig file was created (not merged into). */
  readonly created: boolean;
  /** Counts now. */
  status(): SimulatorStatus;
  /** Stops serving and takes the context out of the kubeconfig again (idempotent). */
  stop(): Promise<void>;
}

/** The folder of `path` (`.` for a bare name). */
function folderOf(path: string): string {
  const at = Math.max(path.lastIndexOf("/"), path.lastIndexOf("\\"));
  return at < 0 ? "." : at === 0 ? path.slice(0, 1) : path.slice(0, at);
}

/** Where the context goes: `--kubeconfig`, else `$KUBECONFIG`'s first path, else `~/.kube/config`. */
export function kubeconfigPath(options: CommandOptions, host: CommandHost): string {
  if (options.kubeconfig !== undefined) return options.kubeconfig;
  const first = host.env("KUBECONFIG")?.split(host.pathListSeparator).find((p) => p !== "");
  if (first !== undefined) return first;
  if (host.homeDir === undefined) {
    throw new CommandUsageError(
      "no home folder to put .kube/config in: name one with --kubeconfig",
    );
  }
  return `${host.homeDir}/.kube/config`;
}

/**
 * Starts the simulator `options` describe: a {@linkcode SimulatedCluster} with the fixture set
 * and manifests, a CA and server certificate made now, served over HTTPS by `host.serve`, its
 * CA written next to the kubeconfig and a context for it merged into the kubeconfig (created
 * when missing) and made current. On failure everything started is undone before it throws.
 *
 * @example
 * ```ts
 * import { type CommandHost, parseCommandArgs, startSimulator } from "@kinformer/simulator/command";
 * import assert from "node:assert/strict";
 * const files = new Map<string, string>(); // a host in memory: nothing listens
 * const host: CommandHost = {
 *   serve: () => Promise.resolve({ url: "https://127.0.0.1:6443", close: () => Promise.resolve() }),
 *   readTextFile: (path) => Promise.resolve(files.get(path)),
 *   writeTextFile: (path, text) => Promise.resolve(void files.set(path, text)),
 *   removeFile: (path) => Promise.resolve(void files.delete(path)),
 *   listFiles: () => Promise.resolve([]),
 *   env: () => undefined,
 *   homeDir: "/home/me",
 *   pathListSeparator: ":",
 *   out: () => {},
 *   err: () => {},
 *   isTerminal: false,
 * };
 * const options = parseCommandArgs(["--kubeconfig", "/tmp/sim/config"]);
 * assert.ok(options !== "help");
 * const sim = await startSimulator(options, host);
 * assert.match(files.get("/tmp/sim/config")!, /^current-context: "kinformer-sim"$/m);
 * assert.equal(sim.status().objects, sim.cluster.objectCount);
 * await sim.stop();
 * assert.equal(files.size, 0); // the kubeconfig it created and the CA file are gone
 * ```
 */
export async function startSimulator(
  options: CommandOptions,
  host: CommandHost,
): Promise<RunningSimulator> {
  const fill = FIXTURE_SETS[options.fixtures];
  if (fill === undefined || !Object.hasOwn(FIXTURE_SETS, options.fixtures)) {
    throw new CommandUsageError(
      `--fixtures: no set ${JSON.stringify(options.fixtures)} (${
        Object.keys(FIXTURE_SETS).join(", ")
      })`,
    );
  }
  const path = kubeconfigPath(options, host);
  const manifests = [];
  if (options.manifests !== undefined) {
    const names = (await host.listFiles(options.manifests))
      .filter((n) => /\.(ya?ml|json)$/i.test(n))
      .sort();
    for (const name of names) {
      const file = `${options.manifests}/${name}`;
      manifests.push(...parseManifests(file, (await host.readTextFile(file)) ?? ""));
    }
  }
  const token = crypto.randomUUID();
  const clock = host.clock ?? systemClock;
  let requests = 0;
  const cluster = new SimulatedCluster({
    clock,
    token,
    ...(options.seed === undefined ? {} : { seed: options.seed }),
    requestLogLimit: 100,
    logRequests: () => void requests++,
  });
  const undo: (() => Promise<void> | void)[] = [() => cluster.close()];
  const timers: (() => void)[] = [];
  const stopAll = async (): Promise<void> => {
    for (const stopTimer of timers) stopTimer();
    for (const step of undo.reverse()) await step();
  };
  try {
    fill(cluster);
    await applyManifests(cluster.fetch, manifests, {
      headers: { Authorization: `Bearer ${token}` },
      retryDelay: () => new Promise((resolve) => clock.setTimeout(resolve, 100)),
    });
    requests = 0;
    const hosts = [...new Set([options.host, "localhost", "127.0.0.1", "::1"])]
      .filter((h) => h !== "0.0.0.0" && h !== "::");
    const certs = await createCertificates({ hosts });
    const server = await host.serve(cluster.fetch, {
      hostname: options.host,
      port: options.port,
      tls: { cert: certs.cert, key: certs.key },
    });
    undo.push(async () => {
      cluster.close(); // open watches end cleanly first
      await server.close();
    });
    const url = server.url.replace(/\/\/(0\.0\.0\.0|\[::\])(?=:)/, "//127.0.0.1");
    const caFile = `${folderOf(path)}/${options.context}-ca.crt`;
    await host.writeTextFile(caFile, certs.caCert);
    undo.push(() => host.removeFile(caFile));
    const before = await host.readTextFile(path);
    const added = addContext(before, path, {
      name: options.context,
      server: url,
      caCert: certs.caCert,
      token,
      namespace: "default",
    });
    await host.writeTextFile(path, added.text);
    undo.push(async () => {
      const now = await host.readTextFile(path);
      if (now === undefined) return;
      const removed = removeContext(now, path, options.context, added.previous);
      if (removed.empty && before === undefined) await host.removeFile(path);
      else await host.writeTextFile(path, removed.text);
    });
    if (options.churn > 0) {
      cluster.startChurn({ resource: pods, ratePerSecond: options.churn, namespaces: ["default"] });
    }
    if (options.chunkBytes > 0) cluster.faults.chunkBodies({ maxChunkBytes: options.chunkBytes });
    if (options.dropWatchesEvery > 0) {
      timers.push(
        every(clock, options.dropWatchesEvery * 1000, () => cluster.faults.dropWatches()),
      );
    }
    if (options.compactEvery > 0) {
      timers.push(every(clock, options.compactEvery * 1000, () => cluster.faults.compact()));
    }
    let stopping: Promise<void> | undefined;
    return {
      cluster,
      url,
      kubeconfig: path,
      caFile,
      context: options.context,
      created: before === undefined,
      status: () => ({ objects: cluster.objectCount, watches: cluster.openWatches, requests }),
      stop: () => (stopping ??= stopAll()),
    };
  } catch (error) {
    await stopAll().catch(() => {
      // The first failure is the one to report.
    });
    throw error;
  }
}

/**
 * One status line.
 *
 * @example
 * ```ts
 * import { formatStatus } from "@kinformer/simulator/command";
 * import assert from "node:assert/strict";
 * const line = formatStatus({ objects: 3, watches: 1, requests: 40 }, 4.5);
 * assert.equal(line, "3 objects · 1 watch · 4.5 requests/s");
 * ```
 */
export function formatStatus(status: SimulatorStatus, requestsPerSecond: number): string {
  const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? "" : "s"}`;
  return `${plural(status.objects, "object")} · ${
    plural(status.watches, "watch")
      .replace(/watchs$/, "watches")
  } · ${requestsPerSecond.toFixed(1)} requests/s`;
}

/**
 * The whole command: reads `args`, starts the simulator, prints where it is and how to use it,
 * a status line (updated in place each second on a terminal, else a line each
 * `--status-every` seconds) until `stop` aborts (Ctrl-C, SIGTERM), then stops it and takes
 * its context out of the kubeconfig. Resolves with the exit code: 0, 1 when it could not start,
 * 2 for wrong arguments.
 *
 * @example
 * ```ts
 * import { type CommandHost, runCommand } from "@kinformer/simulator/command";
 * import assert from "node:assert/strict";
 * let printed = "";
 * const host: CommandHost = {
 *   serve: () => Promise.reject(new Error("--help serves nothing")),
 *   readTextFile: () => Promise.resolve(undefined),
 *   writeTextFile: () => Promise.resolve(),
 *   removeFile: () => Promise.resolve(),
 *   listFiles: () => Promise.resolve([]),
 *   env: () => undefined,
 *   homeDir: "/home/me",
 *   pathListSeparator: ":",
 *   out: (text) => void (printed += text),
 *   err: (text) => void (printed += text),
 *   isTerminal: false,
 * };
 * assert.equal(await runCommand(["--help"], host, AbortSignal.abort()), 0);
 * assert.match(printed, /--kubeconfig PATH/);
 * assert.equal(await runCommand(["--port", "x"], host, AbortSignal.abort()), 2);
 * ```
 */
export async function runCommand(
  args: readonly string[],
  host: CommandHost,
  stop: AbortSignal,
): Promise<number> {
  let sim: RunningSimulator;
  try {
    const options = parseCommandArgs(args);
    if (options === "help") {
      host.out(USAGE);
      return 0;
    }
    sim = await startSimulator(options, host);
    const inKubeconfigEnv = host.env("KUBECONFIG")?.split(host.pathListSeparator)
      .includes(sim.kubeconfig) ?? false;
    const defaultPath = host.homeDir !== undefined &&
      sim.kubeconfig === `${host.homeDir}/.kube/config`;
    const using = inKubeconfigEnv || (defaultPath && host.env("KUBECONFIG") === undefined)
      ? ""
      : `  export KUBECONFIG=${sim.kubeconfig}   (to make it kubectl's default)\n`;
    host.out(
      `kinformer-sim serving ${sim.url}\n` +
        `  context ${sim.context} (current) in ${sim.kubeconfig}` +
        `${sim.created ? " (new file)" : ""}\n` +
        `  CA certificate ${sim.caFile}\n` + using +
        `  try: kubectl --kubeconfig ${sim.kubeconfig} get pods\n` +
        `  Ctrl-C stops it and takes the context out of the kubeconfig again\n`,
    );
    if (stop.aborted) {
      await sim.stop();
      return 0;
    }
    const clock = host.clock ?? systemClock;
    const period = host.isTerminal ? 1 : options.statusEvery;
    let last = { at: clock.now(), requests: 0 };
    const stopTicking = every(clock, period * 1000, () => {
      const status = sim.status();
      const now = clock.now();
      const rate = (status.requests - last.requests) / Math.max((now - last.at) / 1000, 0.001);
      last = { at: now, requests: status.requests };
      const line = formatStatus(status, rate);
      host.out(host.isTerminal ? `\r\x1b[2K${line}` : `${line}\n`);
    });
    await new Promise<void>((resolve) =>
      stop.addEventListener("abort", () => resolve(), { once: true })
    );
    stopTicking();
    if (host.isTerminal) host.out("\n");
    await sim.stop();
    host.out(`kinformer-sim stopped; context ${sim.context} taken out of ${sim.kubeconfig}\n`);
    return 0;
  } catch (error) {
    host.err(`kinformer-sim: ${messageOf(error)}\n`);
    if (error instanceof CommandUsageError) return 2;
    return 1;
  }
}
