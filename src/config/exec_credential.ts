/**
 * Exec credential plugins (`client.authentication.k8s.io/v1` and `v1beta1`): runs the
 * kubeconfig's `exec` command and caches the `ExecCredential` it prints. Portable: the process
 * is started by a runtime's {@linkcode RunCommand}.
 * @module
 */
import type { Clock } from "../util/clock.ts";
import { systemClock } from "../util/clock.ts";
import { base64Utf8, describeValue, isRecord, messageOf, truncate } from "../util/values.ts";
import { ExecCredentialError } from "./exec_credential_error.ts";
import type { ExecCredentialErrorOptions } from "./exec_credential_error.ts";
import type { KubeconfigExec } from "./kubeconfig.ts";

/**
 * The `apiVersion`s of `ExecCredential` kinformer speaks.
 *
 * @example
 * ```ts
 * import { EXEC_API_VERSIONS } from "@kinformer/kinformer/config";
 * import assert from "node:assert/strict";
 * assert.ok(EXEC_API_VERSIONS.includes("client.authentication.k8s.io/v1"));
 * ```
 */
export const EXEC_API_VERSIONS: readonly string[] = [
  "client.authentication.k8s.io/v1",
  "client.authentication.k8s.io/v1beta1",
];

/** A command to run, without a shell. */
export interface ExecCommand {
  /** Program: a name looked up in `PATH`, or a path. */
  command: string;
  /** Arguments. */
  args: readonly string[];
  /** Variables added to (or replacing in) the current process environment. */
  env: Readonly<Record<string, string>>;
}

/** What a command did. */
export interface ExecCommandResult {
  /** Exit code (a signal-killed process reports a non-zero code). */
  exitCode: number;
  /** Standard output, as UTF-8 text. */
  stdout: string;
  /** Standard error, as UTF-8 text. */
  stderr: string;
}

/**
 * Starts `command` with stdin closed (no terminal) and resolves when it exits. Rejects when
 * it cannot be started; a missing program must be an error the host's `isNotFound` knows.
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
   * Decides when a credential has expired.
   * @default systemClock
   */
  clock?: Clock | undefined;
}

/** Longest stderr text kept in an error. */
const STDERR_LIMIT = 500;
/** Longest stdout read as a credential. Internal. */
export const STDOUT_LIMIT = 1024 * 1024;

/**
 * Runs an exec credential plugin and caches its credential until `expirationTimestamp` (on the
 * injected clock), or, without one, until {@linkcode ExecCredentialSource.invalidate} (a 401).
 * Concurrent callers share one run; a failed run is not cached (the next call runs the plugin
 * again, so callers should back off, as the informer does).
 *
 * The plugin gets the current environment plus the `exec.env` entries and
 * `KUBERNETES_EXEC_INFO` (an `ExecCredential` with `spec.interactive: false`, and
 * `spec.cluster` when `provideClusterInfo` is set); no terminal, stdin closed. So
 * `interactiveMode: Never` and `IfAvailable` behave the same, and `Always` is refused.
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
 *       stderr: "",
 *       stdout: JSON.stringify({
 *         apiVersion: "client.authentication.k8s.io/v1",
 *         kind: "ExecCredential",
 *         status: { token: `token-${runs}` },
 *       }),
 *     });
 *   },
 * });
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
  readonly #run: RunCommand;
  readonly #isNotFound: (error: unknown) => boolean;
  readonly #user: string | undefined;
  readonly #cluster: ExecClusterInfo | undefined;
  readonly #clock: Clock;
  #cached: ExecCredential | undefined;
  #pending: Promise<ExecCredential> | undefined;
  /** Credentials that served requests whose Authorization header does not show them. */
  readonly #served = new WeakMap<Request, ExecCredential>();

  /**
   * Checks the `exec` block (command, `apiVersion`, `interactiveMode`); throws an
   * {@linkcode ExecCredentialError} (`InvalidConfig` or `Interactive`) at once. Runs nothing.
   */
  constructor(options: ExecCredentialSourceOptions) {
    if (typeof options !== "object" || options === null) {
      throw new TypeError(`options must be an object, got ${String(options)}`);
    }
    if (typeof options.run !== "function") throw new TypeError("options.run must be a function");
    if (typeof options.isNotFound !== "function") {
      throw new TypeError("options.isNotFound must be a function");
    }
    const exec = options.exec;
    this.#exec = exec;
    this.#user = options.user;
    this.#run = options.run;
    this.#isNotFound = options.isNotFound;
    this.#cluster = options.cluster;
    this.#clock = options.clock ?? systemClock;
    const command = typeof exec?.command === "string" ? exec.command : "";
    const fail = (message: string, code: "InvalidConfig" | "Interactive" = "InvalidConfig") =>
      this.#error(message, { code });
    if (command === "") throw fail("has no command");
    const apiVersion = exec.apiVersion ?? "";
    if (apiVersion === "") {
      throw fail(`has no apiVersion (use one of ${EXEC_API_VERSIONS.join(", ")})`);
    }
    if (!EXEC_API_VERSIONS.includes(apiVersion)) {
      throw fail(
        `has apiVersion ${JSON.stringify(apiVersion)}, which kinformer does not speak ` +
          `(use one of ${EXEC_API_VERSIONS.join(", ")})`,
      );
    }
    this.#apiVersion = apiVersion;
    const mode = exec.interactiveMode ??
      (apiVersion.endsWith("/v1beta1") ? "IfAvailable" : undefined);
    if (mode === undefined) {
      throw fail(
        "has no interactiveMode, which client.authentication.k8s.io/v1 requires " +
          "(Never, IfAvailable or Always)",
      );
    }
    if (mode !== "Never" && mode !== "IfAvailable" && mode !== "Always") {
      throw fail(
        `has interactiveMode ${JSON.stringify(mode)}; use Never, IfAvailable or Always`,
      );
    }
    if (mode === "Always") {
      throw fail(
        "has interactiveMode Always: it needs a terminal, and kinformer runs plugins without " +
          "one. Log in with the plugin first (if it caches its credential) and set " +
          "interactiveMode to IfAvailable or Never",
        "Interactive",
      );
    }
  }

  /**
   * The current credential: the cached one while it has not expired, else a new one from the
   * plugin (one run for all concurrent callers).
   *
   * @throws {ExecCredentialError} when the plugin is missing, fails or prints no credential.
   */
  credential(): Promise<ExecCredential> {
    const cached = this.#cached;
    if (cached !== undefined) {
      if (cached.expiresAt === undefined || this.#clock.now() < cached.expiresAt) {
        return Promise.resolve(cached);
      }
      this.#cached = undefined;
    }
    this.#pending ??= this.#obtain().finally(() => {
      this.#pending = undefined;
    });
    return this.#pending;
  }

  /**
   * The credential's bearer token, for `KubeClientOptions.token`.
   *
   * @throws {ExecCredentialError} (`InvalidOutput`) when the plugin gave a client certificate
   * only.
   */
  async token(): Promise<string> {
    const credential = await this.credential();
    if (credential.token === undefined) {
      throw this.#error("gave no token this time, only a client certificate", {
        code: "InvalidOutput",
      });
    }
    return credential.token;
  }

  /**
   * Forgets the cached credential, so that the next call runs the plugin again. Given the
   * request the server refused, it forgets only when that request carried the current
   * credential (several requests refused at once cause one new run, not several).
   */
  invalidate(request?: Request): void {
    const cached = this.#cached;
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

  async #obtain(): Promise<ExecCredential> {
    const exec = this.#exec;
    const env: Record<string, string> = {};
    for (const { name, value } of exec.env ?? []) {
      if (name !== "") env[name] = value;
    }
    env["KUBERNETES_EXEC_INFO"] = JSON.stringify(this.#execInfo());
    let result: ExecCommandResult;
    try {
      result = await this.#run({ command: exec.command, args: exec.args ?? [], env });
    } catch (error) {
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
          `was not found (is ${JSON.stringify(exec.command)} installed and on PATH?)` +
            (hint ? `\n${hint}` : ""),
          { code: "NotFound", installHint: exec.installHint, cause },
        );
      }
      throw this.#error(`could not be started: ${reason}`, { code: "Failed", cause });
    }
    if (result.exitCode !== 0) {
      const stderr = this.#redact(result.stderr);
      throw this.#error(
        `exited with code ${result.exitCode}` + (stderr === "" ? "" : `: ${stderr}`),
        { code: "Failed", exitCode: result.exitCode, stderr },
      );
    }
    const credential = this.#parse(result.stdout);
    this.#cached = credential;
    return credential;
  }

  /** The `ExecCredential` handed to the plugin in `KUBERNETES_EXEC_INFO`. */
  #execInfo(): Record<string, unknown> {
    const spec: Record<string, unknown> = { interactive: false };
    const cluster = this.#cluster;
    if (this.#exec.provideClusterInfo === true && cluster !== undefined) {
      const info: Record<string, unknown> = { server: cluster.server };
      if (cluster.tlsServerName !== undefined) info["tls-server-name"] = cluster.tlsServerName;
      if (cluster.insecureSkipTlsVerify === true) info["insecure-skip-tls-verify"] = true;
      if (cluster.caData !== undefined) {
        info["certificate-authority-data"] = base64Utf8(cluster.caData);
      }
      if (cluster.proxyUrl !== undefined) info["proxy-url"] = cluster.proxyUrl;
      spec["cluster"] = info;
    }
    return { apiVersion: this.#apiVersion, kind: "ExecCredential", spec };
  }

  /** Reads the printed `ExecCredential`; never puts any of the output in an error. */
  #parse(stdout: string): ExecCredential {
    const invalid = (why: string): ExecCredentialError =>
      this.#error(`printed no usable ExecCredential: ${why}`, { code: "InvalidOutput" });
    if (stdout.length > STDOUT_LIMIT) throw invalid(`more than ${STDOUT_LIMIT} bytes of output`);
    let parsed: unknown;
    try {
      parsed = JSON.parse(stdout);
    } catch {
      throw invalid(`its output is not JSON (${stdout.length} characters on stdout)`);
    }
    if (!isRecord(parsed)) throw invalid("its output is not a JSON object");
    const apiVersion = own(parsed, "apiVersion");
    if (apiVersion !== this.#apiVersion) {
      throw invalid(
        `apiVersion is ${describe(apiVersion)}, but the kubeconfig asked for ` +
          JSON.stringify(this.#apiVersion),
      );
    }
    const kind = own(parsed, "kind");
    if (kind !== "ExecCredential") throw invalid(`kind is ${describe(kind)}, not "ExecCredential"`);
    const status = own(parsed, "status");
    if (!isRecord(status)) throw invalid("it has no status");
    const text = (key: string): string | undefined => {
      const value = own(status, key);
      if (value === undefined || value === null || value === "") return undefined;
      if (typeof value !== "string") throw invalid(`status.${key} is not a string`);
      return value;
    };
    const credential: ExecCredential = {};
    const token = text("token");
    const cert = text("clientCertificateData");
    const key = text("clientKeyData");
    if (token !== undefined) {
      if (/[\r\n\0]/.test(token)) throw invalid("status.token contains a line break");
      credential.token = token;
    }
    if ((cert === undefined) !== (key === undefined)) {
      throw invalid(
        cert === undefined
          ? "status.clientKeyData comes without clientCertificateData"
          : "status.clientCertificateData comes without clientKeyData",
      );
    }
    if (cert !== undefined && key !== undefined) {
      if (!cert.includes("-----BEGIN ") || !key.includes("-----BEGIN ")) {
        throw invalid("status.clientCertificateData and clientKeyData must be PEM");
      }
      credential.clientCertificateData = cert;
      credential.clientKeyData = key;
    }
    if (credential.token === undefined && credential.clientCertificateData === undefined) {
      throw invalid("status has neither a token nor clientCertificateData and clientKeyData");
    }
    const expiration = text("expirationTimestamp");
    if (expiration !== undefined) {
      const at = Date.parse(expiration);
      if (!/^\d{4}-\d{2}-\d{2}T/.test(expiration) || Number.isNaN(at)) {
        throw invalid(`status.expirationTimestamp ${JSON.stringify(expiration)} is not RFC 3339`);
      }
      credential.expiresAt = at;
    }
    return credential;
  }

  /**
   * Stderr fit for an error message: the `exec.env` values, JWTs, bearer tokens, PEM blocks
   * and long base64/hex runs replaced by `<redacted>`, cut to {@linkcode STDERR_LIMIT}.
   */
  #redact(text: string): string {
    let out = text;
    for (const { value } of this.#exec.env ?? []) {
      if (value.length >= 4) out = out.split(value).join("<redacted>");
    }
    out = out
      .replace(/-----BEGIN [^-]+-----[\s\S]*?(-----END [^-]+-----|$)/g, "<redacted>")
      .replace(/\beyJ[\w-]*\.[\w-]*\.?[\w-]*/g, "<redacted>")
      .replace(/\b(bearer|token|password|secret|key)(["':= ]+)[^\s"',;]+/gi, "$1$2<redacted>")
      .replace(/[A-Za-z0-9+/_-]{32,}={0,2}/g, "<redacted>")
      .trim();
    if (out.length > STDERR_LIMIT) out = `${truncate(out, STDERR_LIMIT)}... (cut)`;
    return out;
  }

  #error(
    message: string,
    options: Omit<ExecCredentialErrorOptions, "command" | "user">,
  ): ExecCredentialError {
    const who = this.#user === undefined ? "" : ` of user ${JSON.stringify(this.#user)}`;
    return new ExecCredentialError(
      `exec plugin ${JSON.stringify(this.#exec?.command ?? "")}${who} ${message}`,
      { ...options, command: this.#exec?.command ?? "", user: this.#user },
    );
  }
}

function own(record: Record<string, unknown>, key: string): unknown {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}

function describe(value: unknown): string {
  return value === undefined ? "missing" : describeValue(value);
}
