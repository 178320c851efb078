/**
 * The portable core of the per-runtime loaders: given a {@linkcode ConfigHost} (how to read a
 * file, read the environment and build a TLS-capable `fetch` on one runtime), it turns a
 * kubeconfig or the in-cluster environment into options for `KubeClient`.
 * @module
 */
import { dirnameOf, resolveFrom } from "./_path.ts";
import { ClusterConfigError, KubeconfigParseError } from "./errors.ts";
import type { ExecCredentialSource } from "./exec_credential.ts";
import type { ExecCredential } from "./exec_credential.ts";
import { startExec, withExecCertificates } from "./_exec_connect.ts";
import { buildFetch, checkProxyUrl, envProxyFor, featuresOf } from "./_transport_build.ts";
import { rotatingClientCertificate } from "./_cert_rotation.ts";
import { systemClock } from "../util/clock.ts";
import { loadInClusterConfig } from "./in_cluster.ts";
import { parseKubeconfig, resolveKubeconfig } from "./kubeconfig.ts";
import type { ResolvedClusterConfig } from "./kubeconfig.ts";
import { tokenFileSource } from "./token_file.ts";
import { basicAuthorization, impersonationHeaders, rejectAuthProvider } from "./_user_auth.ts";
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
  ConnectOptions,
  LoadFromDefaultOptions,
  LoadInClusterOptions,
  LoadKubeconfigOptions,
  TransportConfig,
} from "./config_loader_options.ts";

/** Checks loader options up front; throws a TypeError/RangeError naming the bad option. */
function validateOptions(options: unknown, where: string): void {
  // The loaders default a missing argument to {}: `undefined` never reaches here.
  checkOptionsObject(options, where);
  const o = options as Record<string, unknown>;
  for (const key of ["path", "context", "serviceAccountDir"]) {
    checkNonEmptyString(o[key], `options.${key}`);
  }
  for (const key of ["fetch", "createFetch", "onTokenError"]) {
    checkFunction(o[key], `options.${key}`);
  }
  checkBoolean(o["ignoreUnsupportedTls"], "options.ignoreUnsupportedTls");
  checkNumber(o["tokenRefreshIntervalMs"], "options.tokenRefreshIntervalMs", { min: 0 });
  checkClock(o["clock"], "options.clock");
  checkSignal(o["signal"], "options.signal");
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
    readCertFiles?: () => Promise<{ certData: string; keyData: string }>,
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
    const plain = https && readCertFiles !== undefined
      ? rotatingClientCertificate({
        transport: effective,
        read: readCertFiles,
        build: (settings) => buildFetch(host, base.source, server, settings, options),
        clock: options.clock ?? systemClock,
        onError: options.onTokenError,
      })
      : buildFetch(host, base.source, server, effective, options);
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
    // Certificate and key FILES are read again as they rotate (see _cert_rotation.ts).
    const readPair = async (): Promise<{ certData: string; keyData: string }> => ({
      certData: resolved.clientCertData ??
        await readPem(file(resolved.clientCertFile!), "client-certificate"),
      keyData: resolved.clientKeyData ?? await readPem(file(resolved.clientKeyFile!), "client-key"),
    });
    const certFiles = resolved.clientCertFile !== undefined || resolved.clientKeyFile !== undefined;
    const pair = resolved.clientCertData !== undefined || certFiles ? await readPair() : undefined;
    const cert = pair?.certData;
    if (cert !== undefined) transport.certData = cert;
    const key = pair?.keyData;
    if (key !== undefined) transport.keyData = key;
    if (resolved.insecureSkipTlsVerify === true) transport.insecureSkipTlsVerify = true;
    if (resolved.tlsServerName !== undefined) transport.tlsServerName = resolved.tlsServerName;
    if (resolved.proxyUrl !== undefined) {
      transport.proxyUrl = checkProxyUrl(resolved.proxyUrl, "proxy-url", {
        code: "InvalidKubeconfig",
        subject: `clusters[${resolved.clusterName}].cluster.proxy-url`,
        path,
      });
    }
    if (resolved.disableCompression === true) transport.disableCompression = true;
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
      headers["Authorization"] = basicAuthorization(resolved.username, resolved.password ?? "");
    }
    if (Object.keys(headers).length > 0) base.headers = headers;
    options.signal?.throwIfAborted();
    return connect(
      resolved.server,
      transport,
      options,
      base,
      exec,
      certFiles ? readPair : undefined,
    );
  };

  const loadKubeconfig = async (
    options: LoadKubeconfigOptions = {},
  ): Promise<ClusterClientOptions> => {
    validateOptions(options, "loadKubeconfig");
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
    return connect(config.server, { caData: config.caData }, options, {
      source: "in-cluster",
      namespace: config.namespace,
      token: config.token,
    });
  };

  const loadFromDefault = async (
    options: LoadFromDefaultOptions = {},
  ): Promise<ClusterClientOptions> => {
    validateOptions(options, "loadFromDefault");
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
