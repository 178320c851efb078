/**
 * The portable core of the per-runtime loaders: given a {@linkcode ConfigHost} (how to read a
 * file, read the environment, build a TLS-capable `fetch` and run a program on one runtime),
 * it turns the kubeconfig files (merged as kubectl merges a `KUBECONFIG` list) or the
 * in-cluster environment into options for `KubeClient`.
 * @module
 */
import { execSource, withExecCredentials } from "./_exec_connect.ts";
import { type HeaderLine, withHeaderLines } from "./_header_lines.ts";
import {
  defaultKubeconfigPaths,
  isEmptyKubeconfig,
  kubeconfigEnvPaths,
  type KubeconfigFiles,
  readKubeconfigFiles,
  withPath,
} from "./_kubeconfig_files.ts";
import { buildFetch, checkProxyUrl, envProxyFor, featuresOf } from "./_transport_build.ts";
import { rotatingClientCertificate } from "./_cert_rotation.ts";
import { systemClock } from "../util/clock.ts";
import {
  basicAuthorization,
  impersonationLines,
  joinedHeaders,
  rejectAuthProvider,
} from "./_user_auth.ts";
import { ClusterConfigError } from "./errors.ts";
import type { ExecCredentialSource } from "./exec_credential.ts";
import { checkExec } from "./exec_credential.ts";
import { ExecCredentialError } from "./exec_credential_error.ts";
import { loadInClusterConfig } from "./in_cluster.ts";
import { resolveKubeconfig } from "./resolve_kubeconfig.ts";
import type { ResolvedClusterConfig } from "./resolve_kubeconfig.ts";
import { tokenFileSource } from "./token_file.ts";
import {
  checkBoolean,
  checkClock,
  checkFunction,
  checkNonEmptyString,
  checkNumber,
  checkOptionsObject,
  checkSignal,
} from "../util/validate.ts";
import type {
  ClusterClientOptions,
  ConfigHost,
  ConfigLoader,
  ConfigWarning,
  ConnectOptions,
  FetchFunction,
  LoadFromDefaultOptions,
  LoadInClusterOptions,
  LoadKubeconfigOptions,
  TransportConfig,
} from "./config_loader_options.ts";
import { describeValue } from "../util/values.ts";

/** Checks loader options up front; throws a TypeError/RangeError naming the bad option. */
function validateOptions(options: unknown, where: string): void {
  // The loaders default a missing argument to {}: `undefined` never reaches here.
  checkOptionsObject(options, where);
  const o = options as Record<string, unknown>;
  for (const key of ["path", "context", "serviceAccountDir"]) {
    checkNonEmptyString(o[key], `options.${key}`);
  }
  for (const key of ["fetch", "createFetch", "onTokenError", "onWarning", "execStderr"]) {
    checkFunction(o[key], `options.${key}`);
  }
  checkBoolean(o["ignoreUnsupportedTls"], "options.ignoreUnsupportedTls");
  checkNumber(o["tokenRefreshIntervalMs"], "options.tokenRefreshIntervalMs", { min: 0 });
  checkNumber(o["execTimeoutMs"], "options.execTimeoutMs", { min: 1, allowInfinity: true });
  checkClock(o["clock"], "options.clock");
  checkSignal(o["signal"], "options.signal");
}

/** The client options of a load before the connection is built. */
type BaseOptions = Omit<ClusterClientOptions, "server" | "close" | "fetch" | "transport">;

/** What the connection needs besides the TLS settings. */
interface ConnectExtras {
  /** The user's exec plugin, when it gives the credentials. */
  exec?: { source: ExecCredentialSource; user: string } | undefined;
  /** Header lines that repeat a name (impersonated groups, extra values). */
  lines?: readonly HeaderLine[] | undefined;
  /** Reads the client certificate and key files again (they rotate; see _cert_rotation.ts). */
  readCertFiles?: (() => Promise<{ certData: string; keyData: string }>) | undefined;
}

/** Most distinct warnings the default `onWarning` remembers (to print each once). */
const WARNED_MAX = 100;

/** The credentials of a user that an `http://` server does not get, by their kubeconfig names. */
function credentialsOf(resolved: ResolvedClusterConfig): string[] {
  const out: string[] = [];
  if (resolved.token !== undefined) out.push("token");
  else if (resolved.tokenFile !== undefined) out.push("tokenFile");
  if (resolved.username !== undefined) out.push("basic auth");
  if (resolved.clientCertData !== undefined || resolved.clientCertFile !== undefined) {
    out.push("client certificate");
  }
  if (resolved.exec !== undefined) out.push("exec plugin");
  if (resolved.authProvider !== undefined) out.push("auth-provider");
  return out;
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
 *     clusters: [{ name: "dev", cluster: { server: "https://127.0.0.1:6443" } }],
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
 * assert.equal(options.server, "https://127.0.0.1:6443");
 * assert.equal(options.token, "abc");
 * assert.equal(options.namespace, "apps");
 * ```
 */
export function createConfigLoader(host: ConfigHost): ConfigLoader {
  const warned = new Set<string>();
  /** `options.onWarning`, else one console.warn line per distinct warning of this loader. */
  const warn = (options: ConnectOptions, warning: ConfigWarning): void => {
    if (options.onWarning !== undefined) {
      options.onWarning(warning);
      return;
    }
    if (warned.has(warning.message)) return;
    if (warned.size >= WARNED_MAX) warned.clear();
    warned.add(warning.message);
    console.warn(`kinformer: ${warning.message}`);
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
    base: BaseOptions,
    extras: ConnectExtras = {},
  ): ClusterClientOptions => {
    const https = new URL(server).protocol === "https:";
    // TLS settings mean nothing for an http:// server; a proxy and compression still apply.
    const effective: TransportConfig = https ? { ...transport } : {};
    if (!https && transport.proxyUrl !== undefined) effective.proxyUrl = transport.proxyUrl;
    if (!https && transport.disableCompression) effective.disableCompression = true;
    // A kubeconfig proxy-url wins over the environment (as in client-go). A `fetch` of the
    // caller's own does its own proxying.
    const envProxy = effective.proxyUrl === undefined && options.fetch === undefined
      ? envProxyFor(server, host.env)
      : undefined;
    if (envProxy !== undefined) effective.proxyUrl = envProxy;
    const result: ClusterClientOptions = { ...base, server, close: () => {} };
    if (featuresOf(effective).length > 0) result.transport = effective;
    const given = options.fetch;
    if (
      host.readsGzipMembers === true && given === undefined && options.createFetch === undefined
    ) {
      result.watchListCompression = true;
    }
    const lines = extras.lines;
    const readCertFiles = extras.readCertFiles;
    let plain = given === undefined
      ? (https && readCertFiles !== undefined
        ? rotatingClientCertificate({
          transport: effective,
          read: readCertFiles,
          build: (settings) => buildFetch(host, base.source, server, settings, options),
          clock: options.clock ?? systemClock,
          onError: options.onTokenError,
        })
        : buildFetch(host, base.source, server, effective, options))
      : undefined;
    // Repeated header lines need a transport that can send them (the runtime's fetch joins
    // them): the host's, even with no TLS setting to apply.
    if (plain === undefined && given === undefined && lines !== undefined) {
      plain = host.transport?.create(effective);
    }
    if (given !== undefined) result.fetch = given;
    else if (plain !== undefined) {
      result.fetch = plain.fetch;
      result.close = plain.close;
    }
    if (extras.exec !== undefined) {
      const { source, user } = extras.exec;
      withExecCredentials(
        result,
        source,
        (credential) =>
          buildFetch(host, base.source, server, {
            ...effective,
            certData: credential.clientCertificateData!,
            keyData: credential.clientKeyData!,
          }, options),
        plain,
        given,
        user,
      );
    }
    if (lines !== undefined) {
      const inner: FetchFunction = result.fetch ?? ((request) => globalThis.fetch(request));
      result.fetch = (request) => inner(withHeaderLines(request, lines));
    }
    return result;
  };

  const fromKubeconfig = async (
    files: KubeconfigFiles,
    options: LoadKubeconfigOptions,
  ): Promise<ClusterClientOptions> => {
    const first = files.paths[0] ?? "kubeconfig";
    let resolved: ResolvedClusterConfig;
    try {
      resolved = resolveKubeconfig(files.config, { context: options.context });
    } catch (error) {
      const context = options.context ?? files.config.currentContext;
      throw withPath(error, files.origins.contexts.get(context ?? "") ?? first);
    }
    const contextFile = files.origins.contexts.get(resolved.contextName) ?? first;
    const userFile = files.origins.users.get(resolved.userName ?? "") ?? contextFile;
    const clusterFile = files.origins.clusters.get(resolved.clusterName) ?? contextFile;
    const base: BaseOptions = {
      source: "kubeconfig",
      kubeconfigPath: contextFile,
      kubeconfigPaths: files.paths,
      context: resolved.contextName,
    };
    if (resolved.namespace !== undefined) base.namespace = resolved.namespace;
    const extras: ConnectExtras = {};
    const lines = impersonationLines(resolved, userFile);
    if (lines.length > 0) {
      base.headers = joinedHeaders(lines);
      const names = new Set(lines.map(([name]) => name.toLowerCase()));
      if (names.size < lines.length) extras.lines = lines;
    }
    const transport: TransportConfig = {};
    if (resolved.proxyUrl !== undefined) {
      transport.proxyUrl = checkProxyUrl(resolved.proxyUrl, "proxy-url", {
        code: "InvalidKubeconfig",
        subject: `clusters[${resolved.clusterName}].cluster.proxy-url`,
        path: clusterFile,
      });
    }
    if (resolved.disableCompression === true) transport.disableCompression = true;
    // As clientcmd does: the cluster's TLS settings and the user's credentials are applied
    // only when the server is https, so no credential goes out in clear text.
    if (new URL(resolved.server).protocol !== "https:") {
      const credentials = resolved.userName === undefined ? [] : credentialsOf(resolved);
      if (credentials.length > 0) {
        warn(options, {
          code: "CredentialsNotSent",
          message: `kubeconfig user ${describeValue(resolved.userName)} (${userFile}): ` +
            `${credentials.join(", ")} not sent: the server of cluster ` +
            `${describeValue(resolved.clusterName)} is http://, and credentials go only over ` +
            "https (as kubectl); requests go out anonymous",
          user: resolved.userName!,
          cluster: resolved.clusterName,
          path: userFile,
          credentials,
        });
      }
      options.signal?.throwIfAborted();
      return connect(resolved.server, transport, options, base, extras);
    }
    if (resolved.userName !== undefined) rejectAuthProvider(resolved, userFile);
    const ca = resolved.caData ??
      (resolved.caFile === undefined
        ? undefined
        : await readPem(resolved.caFile, "certificate-authority").catch((error: unknown) => {
          throw withPath(error, clusterFile);
        }));
    if (ca !== undefined) transport.caData = ca;
    if (resolved.insecureSkipTlsVerify === true) transport.insecureSkipTlsVerify = true;
    if (resolved.tlsServerName !== undefined) transport.tlsServerName = resolved.tlsServerName;
    if (resolved.userName !== undefined) {
      // Certificate and key FILES are read again as they rotate (see _cert_rotation.ts).
      const readPair = async (): Promise<{ certData: string; keyData: string }> => ({
        certData: resolved.clientCertData ??
          await readPem(resolved.clientCertFile!, "client-certificate"),
        keyData: resolved.clientKeyData ?? await readPem(resolved.clientKeyFile!, "client-key"),
      });
      const certFiles = resolved.clientCertFile !== undefined ||
        resolved.clientKeyFile !== undefined;
      const pair = resolved.clientCertData !== undefined || certFiles
        ? await readPair()
        : undefined;
      const cert = pair?.certData;
      if (cert !== undefined) transport.certData = cert;
      const key = pair?.keyData;
      if (key !== undefined) transport.keyData = key;
      if (certFiles) extras.readCertFiles = readPair;
      if (resolved.token !== undefined) base.token = resolved.token;
      else if (resolved.tokenFile !== undefined) {
        const token = tokenFileSource(resolved.tokenFile, {
          readFile: (p) => readNamed(p, "tokenFile"),
          clock: options.clock,
          refreshIntervalMs: options.tokenRefreshIntervalMs,
          onError: options.onTokenError,
        });
        await token();
        base.token = token;
        base.onUnauthorized = (request) => token.invalidate(request);
      }
      if (resolved.username !== undefined) {
        base.headers = {
          ...base.headers,
          Authorization: basicAuthorization(resolved.username, resolved.password ?? ""),
        };
      }
      if (resolved.exec !== undefined) {
        const source = userExec(resolved, ca, userFile, options, cert !== undefined);
        if (source !== undefined) {
          base.token = (request) => source.token(request);
          base.onUnauthorized = (request) => source.invalidate(request);
          extras.exec = { source, user: resolved.userName };
        }
      }
    }
    options.signal?.throwIfAborted();
    return connect(resolved.server, transport, options, base, extras);
  };

  /**
   * The exec plugin source of the user, or `undefined` when a token, basic auth or a client
   * certificate wins over it, as in client-go (the plugin is then not run, but its block
   * must still be valid, as kubectl's validation requires).
   */
  const userExec = (
    resolved: ResolvedClusterConfig,
    ca: string | undefined,
    where: string,
    options: LoadKubeconfigOptions,
    hasCert: boolean,
  ): ExecCredentialSource | undefined => {
    const exec = resolved.exec!;
    const other = resolved.token !== undefined || resolved.tokenFile !== undefined ||
      resolved.username !== undefined || hasCert;
    if (!other) return execSource(host, resolved, exec, ca, where, options);
    const checked = checkExec(exec);
    if (typeof checked === "string") {
      throw new ExecCredentialError(
        `exec plugin of user ${describeValue(resolved.userName ?? "")} ${checked}`,
        { code: "InvalidConfig", command: exec.command.includes("\0") ? "" : exec.command },
      );
    }
    return undefined;
  };

  const loadKubeconfig = async (
    options: LoadKubeconfigOptions = {},
  ): Promise<ClusterClientOptions> => {
    validateOptions(options, "loadKubeconfig");
    options.signal?.throwIfAborted();
    const explicit = options.path !== undefined;
    const paths = explicit ? [options.path!] : defaultKubeconfigPaths(host);
    if (paths.length === 0) {
      throw new ClusterConfigError(
        "no kubeconfig path: pass `path`, or set KUBECONFIG or HOME",
        { code: "NoConfig" },
      );
    }
    const files = await readKubeconfigFiles(host, paths, explicit, options.signal);
    if (files.paths.length === 0) {
      throw new ClusterConfigError(
        paths.length === 1
          ? `kubeconfig ${paths[0]} does not exist`
          : `none of the kubeconfig files in KUBECONFIG exist (${paths.join(", ")})`,
        { code: "FileNotFound", path: paths[0] },
      );
    }
    options.signal?.throwIfAborted();
    return fromKubeconfig(files, options);
  };

  const loadInCluster = async (
    options: LoadInClusterOptions = {},
  ): Promise<ClusterClientOptions> => {
    validateOptions(options, "loadInCluster");
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
    const token = config.token;
    return connect(config.server, { caData: config.caData }, options, {
      source: "in-cluster",
      namespace: config.namespace,
      token,
      onUnauthorized: (request) => token.invalidate(request),
    });
  };

  const loadFromDefault = async (
    options: LoadFromDefaultOptions = {},
  ): Promise<ClusterClientOptions> => {
    validateOptions(options, "loadFromDefault");
    options.signal?.throwIfAborted();
    const paths = defaultKubeconfigPaths(host);
    const files = await readKubeconfigFiles(host, paths, false, options.signal);
    // As client-go: an absent or empty configuration falls back to in-cluster.
    if (files.paths.length > 0 && !isEmptyKubeconfig(files.config)) {
      return fromKubeconfig(files, options);
    }
    if ((host.env("KUBERNETES_SERVICE_HOST") ?? "") !== "") return loadInCluster(options);
    const fromEnv = kubeconfigEnvPaths(host) !== undefined;
    const what = paths.length === 0
      ? "there is no home folder (HOME), "
      : files.paths.length > 0
      ? `${files.paths.join(", ")} ${files.paths.length === 1 ? "holds" : "hold"} no ` +
        "configuration, "
      : fromEnv
      ? `none of the files in KUBECONFIG exist (${paths.join(", ")}), `
      : `${paths[0]} does not exist, `;
    throw new ClusterConfigError(
      `no cluster configuration found: ${fromEnv ? "" : "KUBECONFIG is not set, "}${what}` +
        "and KUBERNETES_SERVICE_HOST is not set (not in a pod). Point KUBECONFIG at a " +
        "kubeconfig, or run `kubectl proxy` and use kubectlProxy().",
      { code: "NoConfig", path: paths[0] },
    );
  };

  return {
    loadKubeconfig,
    loadInCluster,
    loadFromDefault,
    defaultKubeconfigPath: () => defaultKubeconfigPaths(host)[0],
    defaultKubeconfigPaths: () => defaultKubeconfigPaths(host),
  };
}
