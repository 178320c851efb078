/**
 * The portable core of the per-runtime loaders: given a {@linkcode ConfigHost} (how to read a
 * file, read the environment and build a TLS-capable `fetch` on one runtime), it turns a
 * kubeconfig or the in-cluster environment into options for `KubeClient`.
 * @module
 */
import type { KubeClientOptions } from "../client/kube_client.ts";
import type { Clock } from "../util/clock.ts";
import { dirnameOf, resolveFrom } from "./_path.ts";
import { ClusterConfigError, KubeconfigParseError } from "./errors.ts";
import type { ExecCredentialSource } from "./exec_credential.ts";
import type { ExecCredential, RunCommand } from "./exec_credential.ts";
import { startExec, withExecCertificates } from "./_exec_connect.ts";
import { buildFetch, featuresOf } from "./_transport_build.ts";
import { loadInClusterConfig } from "./in_cluster.ts";
import { parseKubeconfig, resolveKubeconfig } from "./kubeconfig.ts";
import type { ResolvedClusterConfig } from "./kubeconfig.ts";
import { tokenFileSource } from "./token_file.ts";

/** A `fetch` taking one `Request`, as `KubeClientOptions.fetch` expects. */
export type FetchFunction = (request: Request) => Promise<Response>;

/**
 * TLS and proxy settings of a cluster connection (PEM text, not paths), as handed to
 * `createFetch`.
 *
 * @example
 * ```ts
 * import type { FetchFunction, TransportConfig } from "@kinformer/kinformer/config";
 * import assert from "node:assert/strict";
 * // A createFetch for a runtime whose fetch trusts the cluster CA already.
 * const createFetch = (tls: TransportConfig): FetchFunction => {
 *   if (tls.certData !== undefined) throw new Error("client certificates need another fetch");
 *   return (request) => fetch(request);
 * };
 * assert.equal(typeof createFetch({ caData: "-----BEGIN CERTIFICATE-----..." }), "function");
 * assert.throws(() => createFetch({ certData: "...", keyData: "..." }), /client certificates/);
 * ```
 */
export interface TransportConfig {
  /** PEM CA bundle to verify the server with. */
  caData?: string;
  /** PEM client certificate (with `keyData`). */
  certData?: string;
  /** PEM client key (with `certData`). */
  keyData?: string;
  /** Do not verify the server certificate. */
  insecureSkipTlsVerify?: boolean;
  /** Name to verify the server certificate against, instead of the URL's host. */
  tlsServerName?: string;
  /** Proxy to connect through. */
  proxyUrl?: string;
}

/** One capability a runtime's `fetch` may lack. */
export type TransportFeature =
  | "ca"
  | "clientCert"
  | "insecureSkipTlsVerify"
  | "tlsServerName"
  | "proxy";

/** A `fetch` built for a {@linkcode TransportConfig}, and how to release it. */
export interface HostFetch {
  /** Performs requests with the TLS and proxy settings applied. */
  fetch: FetchFunction;
  /** Releases the underlying HTTP client (idempotent). */
  close(): void;
}

/** How a runtime builds a `fetch` for TLS and proxy settings. */
export interface HostTransport {
  /** The settings `create` can apply. */
  supports: readonly TransportFeature[];
  /** Builds a `fetch` applying `transport` (which only holds supported settings). */
  create(transport: TransportConfig): HostFetch;
}

/** What a loader needs from a runtime. Each runtime entry point exports one. */
export interface ConfigHost {
  /** Runtime name for messages, e.g. `"Deno"`. */
  runtime: string;
  /** Reads a whole UTF-8 text file. */
  readFile(path: string): Promise<string>;
  /** Whether an error thrown by `readFile` means the file does not exist. */
  isNotFound(error: unknown): boolean;
  /** Reads an environment variable. */
  env(name: string): string | undefined;
  /** Separator of paths in `KUBECONFIG` (`":"`, or `";"` on Windows). */
  pathListSeparator: string;
  /** TLS/proxy support of the runtime's `fetch`; absent when it has none. */
  transport?: HostTransport | undefined;
  /** Runtime-specific advice added to `UnsupportedTls` errors, per setting. */
  hints?: Partial<Record<TransportFeature, string>> | undefined;
  /**
   * Runs an exec credential plugin (no shell, no terminal); absent when the runtime cannot
   * start processes, and users with an `exec` plugin are then refused (`UnsupportedAuth`).
   */
  runCommand?: RunCommand | undefined;
}

/** Where a set of client options came from. */
export type ConfigSource = "kubeconfig" | "in-cluster" | "kubectl-proxy";

/**
 * Options for `new KubeClient(...)` produced by a loader, plus what the loader learned: the
 * default namespace, the TLS settings, and `close()` to release a custom HTTP client.
 *
 * @example
 * ```ts
 * import { KubeClient } from "@kinformer/kinformer/client";
 * import { type ClusterClientOptions, kubectlProxy } from "@kinformer/kinformer/config";
 * import assert from "node:assert/strict";
 * const options: ClusterClientOptions = kubectlProxy();
 * const client = new KubeClient(options); // extra fields are ignored by KubeClient
 * assert.equal(client.server, "http://127.0.0.1:8001");
 * assert.equal(options.source, "kubectl-proxy");
 * assert.equal(options.namespace, undefined); // the proxy has no default namespace
 * options.close();
 * ```
 */
export interface ClusterClientOptions extends KubeClientOptions {
  /** Where the options came from. */
  source: ConfigSource;
  /** Default namespace of the context, or the pod's namespace; absent when none is set. */
  namespace?: string | undefined;
  /** Kubeconfig file read, for `source: "kubeconfig"`. */
  kubeconfigPath?: string | undefined;
  /** Context used, for `source: "kubeconfig"`. */
  context?: string | undefined;
  /**
   * TLS and proxy settings of the connection, also when they were applied through `fetch`
   * (to build another `fetch` from them). An exec plugin's client certificate is not in it.
   */
  transport?: TransportConfig | undefined;
  /** Releases the HTTP client built for `transport`, if any. Safe to call more than once. */
  close(): void;
}

/** Options shared by every loader. */
export interface ConnectOptions {
  /**
   * `fetch` to use as-is. It must already apply the cluster's TLS settings (CA, client
   * certificate); the loader builds none, and refuses an exec plugin that gives a client
   * certificate (it could not reach this `fetch`).
   * @default built from the TLS settings (Deno: `Deno.createHttpClient`; Bun: `fetch`'s
   * `tls`; Node: `createNodeFetch` on `node:https`); `globalThis.fetch` when there are none
   */
  fetch?: FetchFunction | undefined;
  /**
   * Builds the `fetch` from the connection's TLS settings, instead of the runtime's own
   * support. Called only when there are settings to apply, and again with the new
   * certificate each time an exec plugin gives another client certificate.
   * @default undefined
   */
  createFetch?: ((transport: TransportConfig) => FetchFunction) | undefined;
  /**
   * Connect without the TLS settings this runtime's `fetch` cannot apply, instead of
   * throwing a `ClusterConfigError` with code `UnsupportedTls`: for a CA trusted some other
   * way. A client certificate is never dropped (requests would go out unauthenticated): it
   * is refused with `UnsupportedTls` even then. Deno, Bun and Node apply every setting, so
   * this matters only for a custom {@linkcode ConfigHost}.
   * @default false
   */
  ignoreUnsupportedTls?: boolean | undefined;
  /**
   * Time source for re-reading token files and for the expiry of exec plugin credentials.
   * @default systemClock
   */
  clock?: Clock | undefined;
  /**
   * Token files are re-read at most once per this many milliseconds.
   * @default 60_000
   */
  tokenRefreshIntervalMs?: number | undefined;
  /**
   * Told when re-reading a token file fails (the cached token keeps being used).
   * @default a `console.warn`
   */
  onTokenError?: ((error: unknown) => void) | undefined;
  /**
   * Aborts loading.
   * @default undefined
   */
  signal?: AbortSignal | undefined;
}

/** Options of {@linkcode ConfigLoader.loadKubeconfig}. */
export interface LoadKubeconfigOptions extends ConnectOptions {
  /**
   * Kubeconfig file to read.
   * @default the first path in `KUBECONFIG`, else `~/.kube/config`
   */
  path?: string | undefined;
  /**
   * Context to use.
   * @default the kubeconfig's `current-context`
   */
  context?: string | undefined;
}

/** Options of {@linkcode ConfigLoader.loadInCluster}. */
export interface LoadInClusterOptions extends ConnectOptions {
  /**
   * Folder holding the service account `token`, `ca.crt` and `namespace`.
   * @default "/var/run/secrets/kubernetes.io/serviceaccount"
   */
  serviceAccountDir?: string | undefined;
}

/** Options of {@linkcode ConfigLoader.loadFromDefault}. */
export interface LoadFromDefaultOptions extends ConnectOptions {
  /**
   * Context to use when a kubeconfig is found.
   * @default the kubeconfig's `current-context`
   */
  context?: string | undefined;
  /**
   * Service account folder used when falling back to in-cluster configuration.
   * @default "/var/run/secrets/kubernetes.io/serviceaccount"
   */
  serviceAccountDir?: string | undefined;
}

/** The loaders bound to one runtime; see {@linkcode createConfigLoader}. */
export interface ConfigLoader {
  /** Reads a kubeconfig and returns client options for one of its contexts. */
  loadKubeconfig(options?: LoadKubeconfigOptions): Promise<ClusterClientOptions>;
  /** Returns client options for the pod this runs in. */
  loadInCluster(options?: LoadInClusterOptions): Promise<ClusterClientOptions>;
  /** `KUBECONFIG` (first path), else `~/.kube/config`, else in-cluster. */
  loadFromDefault(options?: LoadFromDefaultOptions): Promise<ClusterClientOptions>;
  /** The kubeconfig path `loadKubeconfig` reads by default, or `undefined` without a home. */
  defaultKubeconfigPath(): string | undefined;
}

/** Base64 of the UTF-8 bytes of `text` (`btoa` alone takes Latin-1 only). */
function base64Utf8(text: string): string {
  let binary = "";
  for (const byte of new TextEncoder().encode(text)) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/** Checks loader options up front; throws a TypeError/RangeError naming the bad option. */
function validateOptions(options: unknown): void {
  if (typeof options !== "object" || options === null) {
    throw new TypeError(`options must be an object, got ${String(options)}`);
  }
  const o = options as Record<string, unknown>;
  const show = (
    v: unknown,
  ): string => (typeof v === "function" ? "a function" : JSON.stringify(v) ?? String(v));
  for (const key of ["path", "context", "serviceAccountDir"]) {
    const v = o[key];
    if (v !== undefined && (typeof v !== "string" || v === "")) {
      throw new TypeError(`options.${key} must be a non-empty string, got ${show(v)}`);
    }
  }
  for (const key of ["fetch", "createFetch", "onTokenError"]) {
    if (o[key] !== undefined && typeof o[key] !== "function") {
      throw new TypeError(`options.${key} must be a function, got ${show(o[key])}`);
    }
  }
  if (o["ignoreUnsupportedTls"] !== undefined && typeof o["ignoreUnsupportedTls"] !== "boolean") {
    throw new TypeError(
      `options.ignoreUnsupportedTls must be a boolean, got ${show(o["ignoreUnsupportedTls"])}`,
    );
  }
  const ms = o["tokenRefreshIntervalMs"];
  if (ms !== undefined && (typeof ms !== "number" || !(ms >= 0) || !Number.isFinite(ms))) {
    throw new RangeError(
      `options.tokenRefreshIntervalMs must be a finite number >= 0, got ${show(ms)}`,
    );
  }
  const clock = o["clock"] as { now?: unknown } | null | undefined;
  if (
    clock !== undefined &&
    (typeof clock !== "object" || clock === null || typeof clock.now !== "function")
  ) {
    throw new TypeError(`options.clock must be a Clock, got ${show(clock)}`);
  }
  if (o["signal"] !== undefined && !(o["signal"] instanceof AbortSignal)) {
    throw new TypeError(`options.signal must be an AbortSignal, got ${show(o["signal"])}`);
  }
}

/** Adds the file to a config error raised while reading it. */
function withPath(error: unknown, path: string): unknown {
  if (error instanceof KubeconfigParseError && error.path === undefined) {
    return error.withPath(path);
  }
  if (error instanceof ClusterConfigError && error.path === undefined) {
    return new ClusterConfigError(`${path}: ${error.message}`, {
      code: error.code,
      path,
      subject: error.subject,
      cause: error.cause,
    });
  }
  return error;
}

/**
 * Builds the loaders for one runtime. The runtime entry points (`config/deno`, `config/bun`,
 * `config/node`) call this with their host; call it yourself to load configuration on another
 * runtime, or with stubbed files and environment in tests.
 *
 * @example
 * ```ts
 * import { createConfigLoader } from "@kinformer/kinformer/config";
 * import assert from "node:assert/strict";
 * const files: Record<string, string> = {
 *   "/home/me/.kube/config": JSON.stringify({
 *     clusters: [{ name: "dev", cluster: { server: "http://127.0.0.1:8001" } }],
 *     users: [{ name: "me", user: { token: "abc" } }],
 *     contexts: [{ name: "dev", context: { cluster: "dev", user: "me", namespace: "apps" } }],
 *     "current-context": "dev",
 *   }),
 * };
 * const env: Record<string, string> = { HOME: "/home/me" };
 * const loader = createConfigLoader({
 *   runtime: "example",
 *   readFile: async (path) => {
 *     const text = files[path];
 *     if (text === undefined) throw Object.assign(new Error(`no ${path}`), { code: "ENOENT" });
 *     return text;
 *   },
 *   isNotFound: (error) => (error as { code?: string }).code === "ENOENT",
 *   env: (name) => env[name],
 *   pathListSeparator: ":",
 * });
 * const options = await loader.loadFromDefault();
 * assert.equal(options.server, "http://127.0.0.1:8001");
 * assert.equal(options.token, "abc");
 * assert.equal(options.namespace, "apps");
 * ```
 */
export function createConfigLoader(host: ConfigHost): ConfigLoader {
  const homeDir = (): string | undefined => {
    const home = host.env("HOME") || host.env("USERPROFILE");
    if (home) return home;
    const drive = host.env("HOMEDRIVE");
    const path = host.env("HOMEPATH");
    return drive && path ? drive + path : undefined;
  };

  const defaultKubeconfigPath = (): string | undefined => {
    const list = host.env("KUBECONFIG") ?? "";
    const first = list.split(host.pathListSeparator).find((p) => p.trim() !== "");
    if (first !== undefined) return first.trim();
    const home = homeDir();
    return home === undefined ? undefined : resolveFrom(home, ".kube/config");
  };

  /** Reads a file the configuration names; "not found" becomes a clear error. */
  const readNamed = async (path: string, what: string): Promise<string> => {
    try {
      return await host.readFile(path);
    } catch (cause) {
      if (!host.isNotFound(cause)) throw cause;
      throw new ClusterConfigError(`${what} ${path} does not exist`, {
        code: "FileNotFound",
        path,
        cause,
      });
    }
  };

  const readPem = async (path: string, what: string): Promise<string> => {
    const text = await readNamed(path, what);
    if (!text.includes("-----BEGIN ")) {
      throw new ClusterConfigError(`${what} ${path} is not PEM (no "-----BEGIN" line)`, {
        code: "InvalidFile",
        path,
      });
    }
    return text;
  };

  const connect = (
    server: string,
    transport: TransportConfig,
    options: ConnectOptions,
    base: Omit<ClusterClientOptions, "server" | "close" | "fetch" | "transport">,
    exec?: { source: ExecCredentialSource; first: ExecCredential },
  ): ClusterClientOptions => {
    const https = new URL(server).protocol === "https:";
    // TLS settings mean nothing for an http:// server; a proxy still applies.
    const effective = https
      ? transport
      : (transport.proxyUrl === undefined ? {} : { proxyUrl: transport.proxyUrl });
    const result: ClusterClientOptions = { ...base, server, close: () => {} };
    if (featuresOf(effective).length > 0) result.transport = effective;
    const execCert = https && exec?.first.clientCertificateData !== undefined;
    if (options.fetch !== undefined) {
      if (execCert) {
        throw new ClusterConfigError(
          `the exec plugin of user ${JSON.stringify(base.context ?? "")} gives a client ` +
            "certificate, which cannot reach the `fetch` option: pass `createFetch` instead",
          { code: "UnsupportedTls", subject: "clientCert" },
        );
      }
      result.fetch = options.fetch;
      return result;
    }
    const plain = buildFetch(host, base.source, server, effective, options);
    if (plain !== undefined) {
      result.fetch = plain.fetch;
      result.close = plain.close;
    }
    if (exec === undefined || !https) return result;
    return withExecCertificates(
      result,
      exec.source,
      (credential) =>
        buildFetch(host, base.source, server, {
          ...effective,
          certData: credential.clientCertificateData!,
          keyData: credential.clientKeyData!,
        }, options),
      plain,
      execCert ? exec.first : undefined,
    );
  };

  const rejectAuthProvider = (resolved: ResolvedClusterConfig, path: string): void => {
    if (resolved.authProvider === undefined) return;
    throw new ClusterConfigError(
      `${path}: user ${JSON.stringify(resolved.userName ?? "")} uses the ` +
        `${JSON.stringify(resolved.authProvider.name)} auth-provider, which kinformer does not ` +
        "run (kubectl dropped auth-providers too). Use the provider's exec plugin instead " +
        "(e.g. gke-gcloud-auth-plugin, kubelogin), a token (`token` or `tokenFile` in the " +
        "kubeconfig user, e.g. from `kubectl create token <serviceaccount>`), or run " +
        "`kubectl proxy` and connect with kubectlProxy().",
      { code: "UnsupportedAuth", path, subject: resolved.userName },
    );
  };

  const impersonationHeaders = (
    resolved: ResolvedClusterConfig,
    path: string,
  ): Record<string, string> => {
    const headers: Record<string, string> = {};
    const imp = resolved.impersonate;
    if (imp === undefined) return headers;
    const repeated = imp.groups.length > 1 ||
      Object.values(imp.extra).some((values) => values.length > 1);
    if (repeated) {
      throw new ClusterConfigError(
        `${path}: user ${JSON.stringify(resolved.userName ?? "")} impersonates several groups ` +
          "or extra values, which needs repeated headers that fetch cannot send; keep one",
        { code: "UnsupportedAuth", path, subject: resolved.userName },
      );
    }
    headers["Impersonate-User"] = imp.user;
    if (imp.uid !== undefined) headers["Impersonate-Uid"] = imp.uid;
    const group = imp.groups[0];
    if (group !== undefined) headers["Impersonate-Group"] = group;
    for (const [key, values] of Object.entries(imp.extra)) {
      const value = values[0];
      if (value !== undefined) headers[`Impersonate-Extra-${encodeURIComponent(key)}`] = value;
    }
    return headers;
  };

  const fromKubeconfigText = async (
    text: string,
    path: string,
    options: LoadKubeconfigOptions,
  ): Promise<ClusterClientOptions> => {
    let resolved: ResolvedClusterConfig;
    try {
      resolved = resolveKubeconfig(parseKubeconfig(text), { context: options.context });
    } catch (error) {
      throw withPath(error, path);
    }
    rejectAuthProvider(resolved, path);
    const dir = dirnameOf(path);
    const file = (p: string): string => resolveFrom(dir, p);
    const transport: TransportConfig = {};
    const ca = resolved.caData ??
      (resolved.caFile === undefined
        ? undefined
        : await readPem(file(resolved.caFile), "certificate-authority"));
    if (ca !== undefined) transport.caData = ca;
    const cert = resolved.clientCertData ??
      (resolved.clientCertFile === undefined
        ? undefined
        : await readPem(file(resolved.clientCertFile), "client-certificate"));
    if (cert !== undefined) transport.certData = cert;
    const key = resolved.clientKeyData ??
      (resolved.clientKeyFile === undefined
        ? undefined
        : await readPem(file(resolved.clientKeyFile), "client-key"));
    if (key !== undefined) transport.keyData = key;
    if (resolved.insecureSkipTlsVerify === true) transport.insecureSkipTlsVerify = true;
    if (resolved.tlsServerName !== undefined) transport.tlsServerName = resolved.tlsServerName;
    if (resolved.proxyUrl !== undefined) transport.proxyUrl = resolved.proxyUrl;
    options.signal?.throwIfAborted();

    const base: Omit<ClusterClientOptions, "server" | "close" | "fetch" | "transport"> = {
      source: "kubeconfig",
      kubeconfigPath: path,
      context: resolved.contextName,
    };
    if (resolved.namespace !== undefined) base.namespace = resolved.namespace;
    if (resolved.token !== undefined) base.token = resolved.token;
    else if (resolved.tokenFile !== undefined) {
      const tokenPath = file(resolved.tokenFile);
      const token = tokenFileSource(tokenPath, {
        readFile: (p) => readNamed(p, "tokenFile"),
        clock: options.clock,
        refreshIntervalMs: options.tokenRefreshIntervalMs,
        onError: options.onTokenError,
      });
      await token();
      base.token = token;
    }
    const exec = await startExec(host, resolved, path, ca, options);
    if (exec !== undefined) {
      const { source } = exec;
      if (exec.first.token !== undefined) base.token = () => source.token();
      base.onUnauthorized = (request) => source.invalidate(request);
    }
    const headers = impersonationHeaders(resolved, path);
    if (resolved.username !== undefined) {
      headers["Authorization"] = `Basic ${
        base64Utf8(`${resolved.username}:${resolved.password ?? ""}`)
      }`;
    }
    if (Object.keys(headers).length > 0) base.headers = headers;
    options.signal?.throwIfAborted();
    return connect(resolved.server, transport, options, base, exec);
  };

  const loadKubeconfig = async (
    options: LoadKubeconfigOptions = {},
  ): Promise<ClusterClientOptions> => {
    validateOptions(options);
    options.signal?.throwIfAborted();
    const path = options.path ?? defaultKubeconfigPath();
    if (path === undefined) {
      throw new ClusterConfigError(
        "no kubeconfig path: pass `path`, or set KUBECONFIG or HOME",
        { code: "NoConfig" },
      );
    }
    const text = await readNamed(path, "kubeconfig");
    options.signal?.throwIfAborted();
    return fromKubeconfigText(text, path, options);
  };

  const loadInCluster = async (
    options: LoadInClusterOptions = {},
  ): Promise<ClusterClientOptions> => {
    validateOptions(options);
    const config = await loadInClusterConfig({
      readFile: (path) => host.readFile(path),
      env: (name) => host.env(name),
      isNotFound: (error) => host.isNotFound(error),
      serviceAccountDir: options.serviceAccountDir,
      clock: options.clock,
      tokenRefreshIntervalMs: options.tokenRefreshIntervalMs,
      onTokenError: options.onTokenError,
      signal: options.signal,
    });
    return connect(config.server, { caData: config.caData }, options, {
      source: "in-cluster",
      namespace: config.namespace,
      token: config.token,
    });
  };

  const loadFromDefault = async (
    options: LoadFromDefaultOptions = {},
  ): Promise<ClusterClientOptions> => {
    validateOptions(options);
    options.signal?.throwIfAborted();
    const fromEnv = (host.env("KUBECONFIG") ?? "").split(host.pathListSeparator)
      .find((p) => p.trim() !== "");
    if (fromEnv !== undefined) return loadKubeconfig({ ...options, path: fromEnv.trim() });
    const home = homeDir();
    const homeConfig = home === undefined ? undefined : resolveFrom(home, ".kube/config");
    if (homeConfig !== undefined) {
      let text: string | undefined;
      try {
        text = await host.readFile(homeConfig);
      } catch (error) {
        if (!host.isNotFound(error)) throw error;
      }
      if (text !== undefined) return fromKubeconfigText(text, homeConfig, options);
    }
    if ((host.env("KUBERNETES_SERVICE_HOST") ?? "") !== "") return loadInCluster(options);
    throw new ClusterConfigError(
      "no cluster configuration found: KUBECONFIG is not set, " +
        (homeConfig === undefined
          ? "there is no home folder (HOME), "
          : `${homeConfig} does not exist, `) +
        "and KUBERNETES_SERVICE_HOST is not set (not in a pod). Point KUBECONFIG at a " +
        "kubeconfig, or run `kubectl proxy` and use kubectlProxy().",
      { code: "NoConfig", path: homeConfig },
    );
  };

  return { loadKubeconfig, loadInCluster, loadFromDefault, defaultKubeconfigPath };
}
