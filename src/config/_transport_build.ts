/**
 * Building a `fetch` for a connection's TLS and proxy settings (internal): which settings a
 * {@linkcode TransportConfig} asks for, and the `UnsupportedTls` error for those a runtime
 * cannot apply (a client certificate is never dropped).
 * @module
 */
import type {
  ConfigHost,
  ConfigSource,
  ConnectOptions,
  FetchFunction,
  HostFetch,
  TransportConfig,
  TransportFeature,
} from "./config_loader_options.ts";
import { ClusterConfigError } from "./errors.ts";
import type { ClusterConfigErrorCode } from "./errors.ts";
import { type EnvReader, proxyFromEnv } from "./_proxy_from_env.ts";
import { parseProxyUrl } from "./_proxy_url.ts";

const FEATURE_NAMES: Record<TransportFeature, string> = {
  ca: "a custom CA (certificate-authority)",
  clientCert: "a client certificate (client-certificate/client-key)",
  insecureSkipTlsVerify: "insecure-skip-tls-verify",
  tlsServerName: "tls-server-name",
  proxy: "a proxy (proxy-url, or HTTPS_PROXY/HTTP_PROXY)",
  disableCompression: "disable-compression",
};

/** The settings of `transport` that are set. */
export function featuresOf(transport: TransportConfig): TransportFeature[] {
  const features: TransportFeature[] = [];
  if (transport.caData !== undefined) features.push("ca");
  if (transport.certData !== undefined || transport.keyData !== undefined) {
    features.push("clientCert");
  }
  if (transport.insecureSkipTlsVerify === true) features.push("insecureSkipTlsVerify");
  if (transport.tlsServerName !== undefined) features.push("tlsServerName");
  if (transport.proxyUrl !== undefined) features.push("proxy");
  if (transport.disableCompression === true) features.push("disableCompression");
  return features;
}

/** `transport` without the settings in `drop`. */
function without(transport: TransportConfig, drop: TransportFeature[]): TransportConfig {
  const out: TransportConfig = { ...transport };
  for (const feature of drop) {
    switch (feature) {
      case "ca":
        delete out.caData;
        break;
      case "clientCert":
        delete out.certData;
        delete out.keyData;
        break;
      case "insecureSkipTlsVerify":
        delete out.insecureSkipTlsVerify;
        break;
      case "tlsServerName":
        delete out.tlsServerName;
        break;
      case "proxy":
        delete out.proxyUrl;
        break;
      case "disableCompression":
        delete out.disableCompression;
        break;
    }
  }
  return out;
}

/** The `UnsupportedTls` error for settings the runtime cannot apply. */
function unsupportedTls(
  host: ConfigHost,
  source: ConfigSource,
  server: string,
  missing: TransportFeature[],
  options: ConnectOptions,
): ClusterConfigError {
  const hints = missing.map((f) => host.hints?.[f]).filter((h) => h !== undefined);
  const dropsCert = missing.includes("clientCert") && options.ignoreUnsupportedTls === true;
  return new ClusterConfigError(
    `the ${source} configuration for ${server} needs ` +
      `${missing.map((f) => FEATURE_NAMES[f]).join(", ")}, which ${host.runtime}'s fetch ` +
      `cannot apply. ${[...new Set(hints)].join(" ")}${hints.length > 0 ? " " : ""}` +
      "Pass `fetch` or `createFetch` built for these settings, or run `kubectl proxy` and " +
      "connect with kubectlProxy()" +
      (dropsCert
        ? ". ignoreUnsupportedTls never drops a client certificate: requests would go out " +
          "unauthenticated."
        : ", or pass `ignoreUnsupportedTls: true` to connect without them."),
    { code: "UnsupportedTls", subject: missing.join(",") },
  );
}

/**
 * A `fetch` applying `transport`: `createFetch`'s, else the host's, else undefined (the
 * runtime's own `fetch` will do: no setting to apply, and it takes no proxy from the
 * environment). Throws `UnsupportedTls` for settings nothing applies.
 */
export function buildFetch(
  host: ConfigHost,
  source: ConfigSource,
  server: string,
  transport: TransportConfig,
  options: ConnectOptions,
): HostFetch | undefined {
  const needed = featuresOf(transport);
  // The runtime's fetch would follow HTTPS_PROXY/NO_PROXY by its own rules: build one that
  // does what the loader decided (transport.proxyUrl, or a direct connection).
  const envProxies = host.transport?.readsProxyEnv?.() === true;
  if (needed.length === 0 && !envProxies) return undefined;
  if (options.createFetch !== undefined) {
    return needed.length === 0
      ? undefined
      : { fetch: options.createFetch(transport), close: () => {} };
  }
  const supported = host.transport?.supports ?? [];
  const missing = needed.filter((f) => !supported.includes(f));
  if (
    missing.length > 0 &&
    (options.ignoreUnsupportedTls !== true || missing.includes("clientCert"))
  ) {
    throw unsupportedTls(host, source, server, missing, options);
  }
  const applied = without(transport, missing);
  if (host.transport === undefined || (featuresOf(applied).length === 0 && !envProxies)) {
    return undefined;
  }
  return host.transport.create(applied);
}

/**
 * Checks a proxy URL when the configuration is loaded (so that a proxy no request can use
 * fails the load, not every request): a {@linkcode ClusterConfigError} with `code` naming
 * `what` (`proxy-url`, `HTTPS_PROXY`, ...) and never the URL's credentials.
 */
export function checkProxyUrl(
  text: string,
  what: string,
  error: { code: ClusterConfigErrorCode; subject: string; path?: string | undefined },
): string {
  try {
    parseProxyUrl(text, what);
  } catch (cause) {
    const message = (cause as Error).message;
    throw new ClusterConfigError(
      error.path === undefined ? message : `${error.path}: ${message}`,
      error,
    );
  }
  return text;
}

/**
 * The proxy the environment gives `server` (`HTTPS_PROXY`/`HTTP_PROXY` minus `NO_PROXY` and
 * loopback, by Go's rules), checked; undefined for a direct connection. A variable the host
 * may not read counts as unset.
 */
export function envProxyFor(server: string, env: EnvReader): string | undefined {
  const read: EnvReader = (name) => {
    try {
      return env(name);
    } catch {
      return undefined;
    }
  };
  const found = proxyFromEnv(new URL(server), read);
  if (found === undefined) return undefined;
  return checkProxyUrl(found.url.href, found.variable, {
    code: "UnsupportedTls",
    subject: found.variable,
  });
}

/**
 * `fetch` sending `Accept-Encoding: identity` on requests that do not set the header
 * (`disable-compression`; a runtime's `fetch` asks for gzip by itself otherwise).
 */
export function withoutCompression(fetch: FetchFunction): FetchFunction {
  return (request) => {
    if (request.headers.has("accept-encoding")) return fetch(request);
    const headers = new Headers(request.headers);
    headers.set("accept-encoding", "identity");
    return fetch(new Request(request, { headers }));
  };
}
