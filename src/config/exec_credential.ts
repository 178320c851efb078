/**
 * Exec credential plugins (`client.authentication.k8s.io/v1` and `v1beta1`): runs the
 * kubeconfig's `exec` command when a credential is needed, as kubectl does, and caches the
 * `ExecCredential` it prints. Portable: the process is started by a runtime's
 * {@linkcode RunCommand}.
 * @module
 */
import { abortable, onAbort } from "../util/abort.ts";
import type { Clock } from "../util/clock.ts";
import { systemClock } from "../util/clock.ts";
import { checkClock, checkFunction, checkNumber } from "../util/validate.ts";
import { base64Utf8, describeValue, messageOf } from "../util/values.ts";
import { OutputTail, parseExecOutput, redactStderr, STDOUT_LIMIT } from "./_exec_output.ts";
import type {
  ExecClusterInfo,
  ExecCommandResult,
  ExecCredential,
  RunCommand,
} from "./exec_command.ts";
import { ExecCredentialError } from "./exec_credential_error.ts";
import type { ExecCredentialErrorOptions } from "./exec_credential_error.ts";
import type { KubeconfigExec } from "./kubeconfig.ts";

/**
 * The `apiVersion`s of `ExecCredential` kinformer speaks.
 */
export const EXEC_API_VERSIONS: readonly string[] = [
  "client.authentication.k8s.io/v1",
  "client.authentication.k8s.io/v1beta1",
];

/**
 * How long a plugin may run before it is stopped (milliseconds): 5 minutes, time for a login
 * in a browser or a device code. kubectl sets none; a plugin that hangs would then hold every
 * request forever.
 */
export const DEFAULT_EXEC_TIMEOUT_MS = 300_000;

/**
 * How long a plugin that could not prompt is left alone after it failed (milliseconds):
 * 5 minutes. A plugin whose `interactiveMode` asks for a terminal (`IfAvailable`, `Always`)
 * while standard input is not one cannot ask its question; running it again on every retry of
 * an informer would print its prompt each time and fail the same way. Its failure is given to
 * every caller until then, unless a terminal appears or `invalidate()` is called; a changed
 * user configuration is another source (the loaders key sources by it) and runs at once.
 */
export const NO_TERMINAL_RETRY_MS = 300_000;

/** Options of {@linkcode ExecCredentialSource}. */
export interface ExecCredentialSourceOptions {
  /** The kubeconfig's `exec` block. */
  exec: KubeconfigExec;
  /** Runs the plugin (the runtime's process API). */
  run: RunCommand;
  /** Whether an error from `run` means the program does not exist. */
  isNotFound: (error: unknown) => boolean;
  /**
   * The kubeconfig user, for messages.
   * @default undefined
   */
  user?: string | undefined;
  /**
   * The cluster, passed to the plugin in `KUBERNETES_EXEC_INFO` when `provideClusterInfo`.
   * @default undefined
   */
  cluster?: ExecClusterInfo | undefined;
  /**
   * Decides when a credential has expired, and times the plugin's time limit.
   * @default the system clock (`Date.now` and the global timers)
   */
  clock?: Clock | undefined;
  /**
   * The plugin is stopped (with the processes it started) when it runs longer than this;
   * `Infinity` for no limit (as kubectl).
   * @default 300_000 (5 minutes)
   */
  timeoutMs?: number | undefined;
  /**
   * Receives the plugin's stderr as it writes it; the loaders pass the process's stderr, so a
   * prompt or a device code reaches the user as with kubectl. An error it throws is ignored.
   * @default discarded (the last 64 KiB are kept, redacted, for the error of a failed run)
   */
  onStderr?: ((chunk: Uint8Array) => void) | undefined;
  /**
   * Whether this process's standard input is a terminal: with `interactiveMode:
   * IfAvailable` or `Always`, the plugin then reads it (and `spec.interactive` is true).
   * @default () => false
   */
  isTerminal?: (() => boolean) | undefined;
}

/** Options of {@linkcode ExecCredentialSource.credential}. */
export interface ExecCredentialRequestOptions {
  /**
   * Gives up waiting: the call rejects with the signal's reason. When every caller waiting on
   * a run has given up, the plugin is stopped.
   * @default undefined
   */
  signal?: AbortSignal | undefined;
}

/** One run of the plugin, shared by the callers waiting on it. */
interface Run {
  readonly promise: Promise<ExecCredential>;
  readonly controller: AbortController;
  waiters: number;
}

/**
 * Runs an exec credential plugin when a credential is first needed, and caches it until its
 * `expirationTimestamp` (on the injected clock), or, without one, until
 * {@linkcode ExecCredentialSource.invalidate} (a 401). Concurrent callers share one run; a
 * failed run is not cached (the next call runs the plugin again, so callers should back off,
 * as the informer does).
 *
 * The plugin gets the current environment plus the `exec.env` entries and
 * `KUBERNETES_EXEC_INFO` (an `ExecCredential` with `spec.interactive`, and `spec.cluster` when
 * `provideClusterInfo` is set). Its stderr goes to `onStderr` as it is written. Its stdin is
 * this process's when `interactiveMode` is `IfAvailable` or `Always` and `isTerminal()` says
 * stdin is a terminal, else none; `Always` without a terminal fails (code `Interactive`), as
 * with client-go. It is stopped after `timeoutMs` (code `Timeout`), or when every caller
 * waiting on it has aborted; only the callers of that run fail.
 *
 * A plugin that could not prompt (`IfAvailable` or `Always`, and no terminal) and failed
 * (`Interactive`, or `Failed` with an exit code) is not run again on every call: callers get
 * that failure, whose message says so, for 5 minutes, or
 * until `isTerminal()` turns true or {@linkcode ExecCredentialSource.invalidate} is called.
 *
 * @example
 * ```ts
 * import { ExecCredentialSource } from "@kinformer/kinformer/config";
 * import assert from "node:assert/strict";
 * let runs = 0;
 * const source = new ExecCredentialSource({
 *   exec: { command: "my-plugin", apiVersion: "client.authentication.k8s.io/v1", interactiveMode: "Never" },
 *   isNotFound: () => false,
 *   run: () => {
 *     runs++;
 *     return Promise.resolve({
 *       exitCode: 0,
 *       stdout: JSON.stringify({
 *         apiVersion: "client.authentication.k8s.io/v1",
 *         kind: "ExecCredential",
 *         status: { token: `token-${runs}` },
 *       }),
 *     });
 *   },
 * });
 * assert.equal(runs, 0); // nothing runs until a credential is asked for
 * assert.equal(await source.token(), "token-1");
 * assert.equal(await source.token(), "token-1"); // cached: the plugin ran once
 * assert.equal(runs, 1);
 * source.invalidate();
 * assert.equal(await source.token(), "token-2");
 * ```
 */
export class ExecCredentialSource {
  readonly #exec: KubeconfigExec;
  readonly #apiVersion: string;
  readonly #mode: "Never" | "IfAvailable" | "Always";
  readonly #run: RunCommand;
  readonly #isNotFound: (error: unknown) => boolean;
  readonly #user: string | undefined;
  readonly #cluster: ExecClusterInfo | undefined;
  readonly #clock: Clock;
  readonly #timeoutMs: number;
  readonly #onStderr: ((chunk: Uint8Array) => void) | undefined;
  readonly #isTerminal: () => boolean;
  #cached: ExecCredential | undefined;
  #current: Run | undefined;
  /** The failure of a run that could not prompt, given to callers until `until`. */
  #held: { error: unknown; until: number } | undefined;
  /** Credentials that served requests whose Authorization header does not show them. */
  readonly #served = new WeakMap<Request, ExecCredential>();

  /**
   * Checks the `exec` block (command, arguments, environment, `apiVersion`,
   * `interactiveMode`); throws an {@linkcode ExecCredentialError} (`InvalidConfig`) at once,
   * naming the field but never showing its value. Runs nothing.
   */
  constructor(options: ExecCredentialSourceOptions) {
    if (typeof options !== "object" || options === null) {
      throw new TypeError(`options must be an object, got ${String(options)}`);
    }
    if (typeof options.run !== "function") throw new TypeError("options.run must be a function");
    if (typeof options.isNotFound !== "function") {
      throw new TypeError("options.isNotFound must be a function");
    }
    checkClock(options.clock, "options.clock");
    checkNumber(options.timeoutMs, "options.timeoutMs", { min: 1, allowInfinity: true });
    checkFunction(options.onStderr, "options.onStderr");
    checkFunction(options.isTerminal, "options.isTerminal");
    const exec = options.exec;
    this.#exec = exec;
    this.#user = options.user;
    this.#run = options.run;
    this.#isNotFound = options.isNotFound;
    this.#cluster = options.cluster;
    this.#clock = options.clock ?? systemClock;
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_EXEC_TIMEOUT_MS;
    this.#onStderr = options.onStderr;
    this.#isTerminal = options.isTerminal ?? (() => false);
    const checked = checkExec(exec);
    if (typeof checked === "string") throw this.#error(checked, { code: "InvalidConfig" });
    this.#apiVersion = checked.apiVersion;
    this.#mode = checked.mode;
  }

  /**
   * The current credential: the cached one while it has not expired, else a new one from the
   * plugin (one run for all concurrent callers).
   *
   * @throws {ExecCredentialError} when the plugin is missing, fails, prints no credential,
   * runs past its time limit (`Timeout`), or needs a terminal there is not (`Interactive`).
   * @throws the signal's reason when `options.signal` aborts.
   */
  credential(options: ExecCredentialRequestOptions = {}): Promise<ExecCredential> {
    const signal = options.signal;
    if (signal?.aborted) return Promise.reject(signal.reason);
    const cached = this.#cached;
    if (cached !== undefined) {
      if (cached.expiresAt === undefined || this.#clock.now() < cached.expiresAt) {
        return Promise.resolve(cached);
      }
      this.#cached = undefined;
    }
    const held = this.#held;
    if (held !== undefined) {
      if (this.#clock.now() < held.until && !this.#isTerminal()) return Promise.reject(held.error);
      this.#held = undefined;
    }
    const run = this.#current ?? this.#start();
    run.waiters++;
    return new Promise((resolve, reject) => {
      let waiting = true;
      let stopListening = (): void => {};
      const leave = (): boolean => {
        if (!waiting) return false;
        waiting = false;
        stopListening();
        if (--run.waiters === 0 && this.#current === run) {
          this.#current = undefined; // a later caller starts a new run
          run.controller.abort(
            new DOMException("every request waiting on the exec plugin gave up", "AbortError"),
          );
        }
        return true;
      };
      stopListening = onAbort(signal, () => {
        if (leave()) reject(signal?.reason);
      });
      run.promise.then(
        (credential) => {
          if (leave()) resolve(credential);
        },
        (error: unknown) => {
          if (leave()) reject(error);
        },
      );
    });
  }

  /**
   * The credential's bearer token, for `KubeClientOptions.token`; `undefined` when the plugin
   * gave a client certificate instead.
   *
   * @throws as {@linkcode ExecCredentialSource.credential}.
   */
  async token(options: ExecCredentialRequestOptions = {}): Promise<string | undefined> {
    return (await this.credential(options)).token;
  }

  /**
   * Forgets the cached credential, so that the next call runs the plugin again. Given the
   * request the server refused, it forgets only when that request carried the current
   * credential (several requests refused at once cause one new run, not several). Without a
   * request it also forgets the failure of a plugin that could not prompt.
   */
  invalidate(request?: Request): void {
    const cached = this.#cached;
    if (request === undefined) this.#held = undefined;
    if (cached === undefined || request === undefined) {
      this.#cached = undefined;
      return;
    }
    const sent = request.headers.get("authorization");
    const used = this.#served.get(request);
    if (
      used === cached ||
      (cached.token !== undefined && sent === `Bearer ${cached.token}`)
    ) {
      this.#cached = undefined;
    }
  }

  /** Records that `request` was sent with `credential`'s client certificate. */
  markServed(request: Request, credential: ExecCredential): void {
    this.#served.set(request, credential);
  }

  /** Starts a run, stopped by its time limit or when its last waiter leaves. */
  #start(): Run {
    const controller = new AbortController();
    const limited = Number.isFinite(this.#timeoutMs);
    const timer = limited && this.#clock.setTimeout(() => {
      controller.abort(
        this.#error(
          `did not finish within ${this.#timeoutMs} ms and was stopped (raise execTimeoutMs ` +
            "if logging in takes longer)",
          { code: "Timeout" },
        ),
      );
    }, this.#timeoutMs);
    const promise = this.#obtainOrHold(controller.signal).finally(() => {
      if (limited) this.#clock.clearTimeout(timer);
      if (this.#current === run) this.#current = undefined;
    });
    // The waiters take the outcome; a run nobody waits for any more must not reject unhandled.
    promise.catch(() => {});
    const run: Run = { promise, controller, waiters: 0 };
    this.#current = run;
    return run;
  }

  /**
   * A run; when it could not prompt and failed, its failure (said so in its message) is held
   * for {@linkcode NO_TERMINAL_RETRY_MS}.
   */
  async #obtainOrHold(signal: AbortSignal): Promise<ExecCredential> {
    const interactive = this.#mode !== "Never" && this.#isTerminal();
    try {
      return await this.#obtain(signal, interactive);
    } catch (error) {
      const couldNotPrompt = this.#mode !== "Never" && !interactive &&
        error instanceof ExecCredentialError && !signal.aborted &&
        (error.code === "Interactive" || (error.code === "Failed" && error.exitCode !== undefined));
      if (!couldNotPrompt) throw error;
      const minutes = NO_TERMINAL_RETRY_MS / 60_000;
      // After the plugin's stderr (which may end mid-prompt), on a line of its own.
      const why = error.code === "Interactive"
        ? ". "
        : `\nIt ran without a terminal (interactiveMode ${this.#mode}, standard input is not ` +
          "one), so it could not prompt. ";
      const held = new ExecCredentialError(
        `${error.message.trimEnd()}${why}Not run again for ${minutes} minutes, or until a ` +
          "terminal is available or the user's exec configuration changes",
        {
          code: error.code,
          command: error.command,
          user: error.user,
          exitCode: error.exitCode,
          stderr: error.stderr,
          installHint: error.installHint,
          cause: error.cause,
        },
      );
      this.#held = { error: held, until: this.#clock.now() + NO_TERMINAL_RETRY_MS };
      throw held;
    }
  }

  async #obtain(signal: AbortSignal, interactive: boolean): Promise<ExecCredential> {
    const exec = this.#exec;
    if (this.#mode === "Always" && !interactive) {
      throw this.#error(
        "has interactiveMode Always, but standard input is not a terminal, so it cannot " +
          "prompt. Run it once in a terminal to log in (if it caches its credential), or set " +
          "interactiveMode to IfAvailable or Never",
        { code: "Interactive" },
      );
    }
    const env: Record<string, string> = {};
    for (const { name, value } of exec.env ?? []) env[name] = value;
    env["KUBERNETES_EXEC_INFO"] = JSON.stringify(this.#execInfo(interactive));
    const tail = new OutputTail();
    const sink = this.#onStderr;
    let result: ExecCommandResult;
    try {
      result = await abortable(
        Promise.resolve().then(() =>
          this.#run({
            command: exec.command,
            args: exec.args ?? [],
            env,
            stdin: interactive ? "inherit" : "null",
            onStderr: (chunk) => {
              tail.add(chunk);
              try {
                sink?.(chunk);
              } catch {
                // The user's sink failing must not fail the plugin.
              }
            },
            maxStdoutBytes: STDOUT_LIMIT,
            signal,
          })
        ),
        signal,
      );
    } catch (error) {
      if (signal.aborted) throw signal.reason;
      // The runtime's spawn error carries the arguments and the environment (`spawnargs`,
      // ...): only its redacted message and code go on, as a fresh error.
      const reason = this.#redact(messageOf(error));
      const cause = Object.assign(new Error(reason), {
        code: typeof (error as { code?: unknown })?.code === "string"
          ? (error as { code: string }).code
          : undefined,
      });
      if (this.#isNotFound(error)) {
        const hint = exec.installHint?.trim();
        throw this.#error(
          `was not found (is ${describeValue(exec.command)} installed and on PATH?)` +
            (hint ? `\n${hint}` : ""),
          { code: "NotFound", installHint: exec.installHint, cause },
        );
      }
      throw this.#error(`could not be started: ${reason}`, { code: "Failed", cause });
    }
    const invalid = (why: string): ExecCredentialError =>
      this.#error(`printed no usable ExecCredential: ${why}`, { code: "InvalidOutput" });
    if (new TextEncoder().encode(result.stdout).byteLength > STDOUT_LIMIT) {
      throw invalid(`more than ${STDOUT_LIMIT} bytes of output`);
    }
    if (result.exitCode !== 0) {
      const stderr = this.#redact(`${result.stderr ?? ""}${tail.text()}`);
      throw this.#error(
        `exited with code ${result.exitCode}` + (stderr === "" ? "" : `: ${stderr}`),
        { code: "Failed", exitCode: result.exitCode, stderr },
      );
    }
    const credential = parseExecOutput(result.stdout, this.#apiVersion, invalid);
    this.#cached = credential;
    return credential;
  }

  /** The `ExecCredential` handed to the plugin in `KUBERNETES_EXEC_INFO`. */
  #execInfo(interactive: boolean): Record<string, unknown> {
    const spec: Record<string, unknown> = { interactive };
    const cluster = this.#cluster;
    if (this.#exec.provideClusterInfo === true && cluster !== undefined) {
      const info: Record<string, unknown> = { server: cluster.server };
      if (cluster.tlsServerName !== undefined) info["tls-server-name"] = cluster.tlsServerName;
      if (cluster.insecureSkipTlsVerify === true) info["insecure-skip-tls-verify"] = true;
      if (cluster.caData !== undefined) {
        info["certificate-authority-data"] = base64Utf8(cluster.caData);
      }
      if (cluster.proxyUrl !== undefined) info["proxy-url"] = cluster.proxyUrl;
      if (cluster.disableCompression === true) info["disable-compression"] = true;
      if (cluster.config !== undefined) info["config"] = cluster.config;
      spec["cluster"] = info;
    }
    return { apiVersion: this.#apiVersion, kind: "ExecCredential", spec };
  }

  /** `text` without the `env` values and the arguments (either may be a secret). */
  #redact(text: string): string {
    const secrets = [...(this.#exec.env ?? []).map((e) => e.value), ...(this.#exec.args ?? [])];
    return redactStderr(text, secrets);
  }

  #error(
    message: string,
    options: Omit<ExecCredentialErrorOptions, "command" | "user">,
  ): ExecCredentialError {
    const who = this.#user === undefined ? "" : ` of user ${describeValue(this.#user)}`;
    const command = typeof this.#exec?.command === "string" ? this.#exec.command : "";
    // A command with a NUL is refused before anything is run; it is not shown either.
    const shown = command.includes("\0") ? "<command>" : describeValue(command);
    return new ExecCredentialError(
      `exec plugin ${shown}${who} ${message}`,
      { ...options, command: command.includes("\0") ? "" : command, user: this.#user },
    );
  }
}

/**
 * Checks an `exec` block as client-go does, and what no process API accepts: returns what is
 * wrong (naming fields, never values), or the `apiVersion` and the `interactiveMode` in force.
 */
export function checkExec(
  exec: KubeconfigExec | undefined,
): string | { apiVersion: string; mode: "Never" | "IfAvailable" | "Always" } {
  const command = typeof exec?.command === "string" ? exec.command : "";
  if (exec === undefined || command === "") return "has no command";
  if (command.includes("\0")) {
    return "has a command containing a NUL character, which no process API accepts";
  }
  for (const [i, arg] of (exec.args ?? []).entries()) {
    if (typeof arg !== "string" || arg.includes("\0")) {
      return `has an argument (args[${i}]) containing a NUL character, which no process API ` +
        "accepts";
    }
  }
  for (const [i, entry] of (exec.env ?? []).entries()) {
    const { name, value } = entry ?? {};
    if (typeof name !== "string" || name === "") return `has an env entry (env[${i}]) with no name`;
    if (name.includes("\0") || name.includes("=")) {
      return `has an env entry (env[${i}]) whose name contains "=" or a NUL character`;
    }
    if (typeof value !== "string" || value.includes("\0")) {
      return `has an env value (env[${i}].value) containing a NUL character, which no ` +
        "process API accepts";
    }
  }
  const apiVersion = exec.apiVersion ?? "";
  if (apiVersion === "") return `has no apiVersion (use one of ${EXEC_API_VERSIONS.join(", ")})`;
  if (!EXEC_API_VERSIONS.includes(apiVersion)) {
    return `has apiVersion ${describeValue(apiVersion)}, which kinformer does not speak ` +
      `(use one of ${EXEC_API_VERSIONS.join(", ")})`;
  }
  // client-go defaults a v1beta1 block's interactiveMode to IfAvailable; v1 requires it.
  const mode = exec.interactiveMode ??
    (apiVersion.endsWith("/v1beta1") ? "IfAvailable" : undefined);
  if (mode === undefined) {
    return "has no interactiveMode, which client.authentication.k8s.io/v1 requires " +
      "(Never, IfAvailable or Always)";
  }
  if (mode !== "Never" && mode !== "IfAvailable" && mode !== "Always") {
    return `has interactiveMode ${describeValue(mode)}; use Never, IfAvailable or Always`;
  }
  return { apiVersion, mode };
}
