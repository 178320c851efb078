/**
 * In-cluster configuration: the API server from the `KUBERNETES_SERVICE_*` variables, the
 * pod's service account token (re-read as the kubelet rotates it), CA and namespace. File
 * reading and the environment are injected, so this core runs (and is tested) anywhere.
 * @module
 */
import type { Clock } from "../util/clock.ts";
import type { OnError } from "../util/error_context.ts";
import { ClusterConfigError } from "./errors.ts";
import { describeValue, trimEnd } from "../util/values.ts";
import { type TokenFileSource, tokenFileSource } from "./token_file.ts";

/**
 * Where the kubelet mounts the service account token, CA and namespace.
 */
export const SERVICE_ACCOUNT_DIR = "/var/run/secrets/kubernetes.io/serviceaccount";

/** Options of {@linkcode loadInClusterConfig}. */
export interface InClusterConfigOptions {
  /** Reads a whole text file; rejects when it is missing. */
  readFile: (path: string) => Promise<string>;
  /** Reads an environment variable. */
  env: (name: string) => string | undefined;
  /**
   * Tells whether an error of `readFile` means "no such file" (for a clearer message).
   * @default () => false
   */
  isNotFound?: ((error: unknown) => boolean) | undefined;
  /**
   * Folder holding `token`, `ca.crt` and `namespace`.
   * @default "/var/run/secrets/kubernetes.io/serviceaccount"
   */
  serviceAccountDir?: string | undefined;
  /**
   * Time source for re-reading the token.
   * @default the system clock (`Date.now` and the global timers)
   */
  clock?: Clock | undefined;
  /**
   * The token file is re-read at most once per this many milliseconds.
   * @default 60_000
   */
  tokenRefreshIntervalMs?: number | undefined;
  /**
   * Told when re-reading the token fails (the cached token keeps being used).
   * The context is the one `ErrorContext` of kinformer (phase `credentials`); it replaces
   * the default printing.
   * @default prints as every long-running object of kinformer does: the first failure of
   * each kind at once, then at most one line per kind per minute
   */
  onTokenError?: OnError | undefined;
  /**
   * Aborts loading.
   * @default undefined
   */
  signal?: AbortSignal | undefined;
}

/** What a pod needs to reach its API server. */
export interface InClusterConfig {
  /** `https://<KUBERNETES_SERVICE_HOST>:<KUBERNETES_SERVICE_PORT>` (IPv6 in brackets). */
  server: string;
  /**
   * The service account token, re-read from its file as it rotates (at most every
   * `tokenRefreshIntervalMs`, and at once after `token.invalidate`, on a 401).
   */
  token: TokenFileSource;
  /** PEM CA bundle that signs the API server certificate (`ca.crt`). */
  caData: string;
  /** `POD_NAMESPACE`, else the pod's namespace file, else `"default"`. */
  namespace: string;
  /** Path of the token file. */
  tokenFile: string;
}

/**
 * Builds the in-cluster configuration. Throws a {@linkcode ClusterConfigError} with code
 * `NotInCluster` when `KUBERNETES_SERVICE_HOST` or `KUBERNETES_SERVICE_PORT` is unset,
 * `FileNotFound` when the token or CA is missing (no service account mounted), `InvalidFile`
 * when one is empty. The token is read once here, so problems show at start-up.
 *
 * @example
 * ```ts
 * import { loadInClusterConfig } from "@kinformer/kinformer/config";
 * import assert from "node:assert/strict";
 * const files: Record<string, string> = {
 *   "/sa/token": "eyJhbGciOi...\n",
 *   "/sa/ca.crt": "-----BEGIN CERTIFICATE-----\n...\n-----END CERTIFICATE-----\n",
 *   "/sa/namespace": "team-a",
 * };
 * const env: Record<string, string> = {
 *   KUBERNETES_SERVICE_HOST: "fd00::1",
 *   KUBERNETES_SERVICE_PORT: "443",
 * };
 * const config = await loadInClusterConfig({
 *   serviceAccountDir: "/sa",
 *   readFile: async (path) => {
 *     const text = files[path];
 *     if (text === undefined) throw new Error(`ENOENT ${path}`);
 *     return text;
 *   },
 *   env: (name) => env[name],
 * });
 * assert.equal(config.server, "https://[fd00::1]:443");
 * assert.equal(config.namespace, "team-a");
 * assert.equal(await config.token(), "eyJhbGciOi...");
 * ```
 */
export async function loadInClusterConfig(
  options: InClusterConfigOptions,
): Promise<InClusterConfig> {
  const { env, signal } = options;
  if (typeof options.readFile !== "function") {
    throw new TypeError("options.readFile must be a function (path) => Promise<string>");
  }
  if (typeof env !== "function") {
    throw new TypeError("options.env must be a function (name) => string");
  }
  signal?.throwIfAborted();
  const host = env("KUBERNETES_SERVICE_HOST") ?? "";
  const port = env("KUBERNETES_SERVICE_PORT") ?? "";
  if (host === "" || port === "") {
    throw new ClusterConfigError(
      "not running in a Kubernetes pod: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT " +
        "must be set",
      { code: "NotInCluster" },
    );
  }
  const bracketed = host.includes(":") && !host.startsWith("[") ? `[${host}]` : host;
  const server = `https://${bracketed}:${port}`;
  try {
    new URL(server);
  } catch (cause) {
    throw new ClusterConfigError(
      `KUBERNETES_SERVICE_HOST/PORT give an invalid URL ${describeValue(server)}`,
      { code: "NotInCluster", cause },
    );
  }

  const dir = trimEnd(options.serviceAccountDir ?? SERVICE_ACCOUNT_DIR, "\\/");
  const isNotFound = options.isNotFound ?? ((): boolean => false);
  const tokenFile = `${dir}/token`;
  const caFile = `${dir}/ca.crt`;
  const readRequired = async (path: string, what: string): Promise<string> => {
    try {
      return await options.readFile(path);
    } catch (cause) {
      if (!isNotFound(cause)) throw cause;
      throw new ClusterConfigError(
        `the service account ${what} ${path} does not exist ` +
          "(is automountServiceAccountToken disabled for this pod?)",
        { code: "FileNotFound", path, cause },
      );
    }
  };

  const token = tokenFileSource(tokenFile, {
    readFile: (path) => readRequired(path, "token"),
    clock: options.clock,
    refreshIntervalMs: options.tokenRefreshIntervalMs,
    onError: options.onTokenError,
  });
  await token();
  signal?.throwIfAborted();
  const caData = await readRequired(caFile, "CA");
  if (!caData.includes("-----BEGIN ")) {
    throw new ClusterConfigError(`the service account CA ${caFile} is not PEM`, {
      code: "InvalidFile",
      path: caFile,
    });
  }
  signal?.throwIfAborted();

  let namespace = env("POD_NAMESPACE")?.trim() ?? "";
  if (namespace === "") {
    try {
      namespace = (await options.readFile(`${dir}/namespace`)).trim();
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
  }
  return { server, token, caData, namespace: namespace || "default", tokenFile };
}
