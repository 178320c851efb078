/**
 * What running an exec credential plugin takes and gives: the command, the runtime's
 * {@linkcode RunCommand} that starts it, the cluster handed to it, and the credential it prints.
 * @module
 */

/**
 * A plugin to run, without a shell. The runners of the Deno, Bun and Node loaders do all of
 * it; a custom {@linkcode RunCommand} should too.
 */
export interface ExecCommand {
  /** Program: a name looked up in `PATH`, or a path. */
  command: string;
  /** Arguments. */
  args: readonly string[];
  /** Variables added to (or replacing in) the current process environment. */
  env: Readonly<Record<string, string>>;
  /**
   * `"inherit"`: the plugin reads this process's standard input (an interactive run, with a
   * terminal); `"null"`: it gets none.
   */
  stdin: "inherit" | "null";
  /** Receives the plugin's stderr as it writes it (a login prompt, a device code). */
  onStderr: (chunk: Uint8Array) => void;
  /**
   * Bytes of stdout to read: past them, stop reading, stop the plugin, and resolve with
   * what was read (longer than this, which refuses it).
   */
  maxStdoutBytes: number;
  /**
   * Aborting it stops the plugin (and, where the runtime has process groups and the run is
   * not interactive, the processes it started) and rejects with the signal's reason.
   */
  signal: AbortSignal;
}

/** What a plugin did. */
export interface ExecCommandResult {
  /** Exit code (a signal-killed process reports a non-zero code). */
  exitCode: number;
  /** Standard output, as UTF-8 text. */
  stdout: string;
  /**
   * Standard error as text, for a runner that collects it instead of streaming it to
   * `onStderr`; it is then used in the error of a failed run.
   * @default undefined
   */
  stderr?: string | undefined;
}

/**
 * Starts a plugin and resolves when it exits. Rejects when it cannot be started (a missing
 * program must be an error the host's `isNotFound` knows), and with the signal's reason when
 * `command.signal` aborts.
 *
 * @example
 * ```ts
 * import type { RunCommand } from "@kinformer/kinformer/config";
 * import assert from "node:assert/strict";
 * // A stand-in plugin for tests: prints a token, writes a line to stderr.
 * const run: RunCommand = (command) => {
 *   command.onStderr(new TextEncoder().encode("logging in...\n"));
 *   return Promise.resolve({
 *     exitCode: 0,
 *     stdout: JSON.stringify({
 *       apiVersion: "client.authentication.k8s.io/v1",
 *       kind: "ExecCredential",
 *       status: { token: "abc" },
 *     }),
 *   });
 * };
 * const seen: string[] = [];
 * const result = await run({
 *   command: "my-plugin",
 *   args: [],
 *   env: {},
 *   stdin: "null",
 *   onStderr: (chunk) => seen.push(new TextDecoder().decode(chunk)),
 *   maxStdoutBytes: 1024,
 *   signal: new AbortController().signal,
 * });
 * assert.equal(result.exitCode, 0);
 * assert.deepEqual(seen, ["logging in...\n"]);
 * ```
 */
export type RunCommand = (command: ExecCommand) => Promise<ExecCommandResult>;

/** The cluster as given to a plugin with `provideClusterInfo: true`. */
export interface ExecClusterInfo {
  /** API server URL. */
  server: string;
  /** PEM CA bundle (sent base64-encoded as `certificate-authority-data`). */
  caData?: string | undefined;
  /** `tls-server-name`. */
  tlsServerName?: string | undefined;
  /** `insecure-skip-tls-verify`. */
  insecureSkipTlsVerify?: boolean | undefined;
  /** `proxy-url`. */
  proxyUrl?: string | undefined;
  /** `disable-compression`. */
  disableCompression?: boolean | undefined;
  /** The cluster's `client.authentication.k8s.io/exec` extension (sent as `config`). */
  config?: unknown;
}

/** A credential a plugin printed. */
export interface ExecCredential {
  /** Bearer token. */
  token?: string;
  /** PEM client certificate (with `clientKeyData`). */
  clientCertificateData?: string;
  /** PEM client key. */
  clientKeyData?: string;
  /** When it expires (milliseconds since the epoch); absent: until the server refuses it. */
  expiresAt?: number;
}
