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
  HostFetch,
  TransportConfig,
  TransportFeature,
} from "./config_loader_options.ts";
import { ClusterConfigError } from "./errors.ts";

const FEATURE_NAMES: Record<TransportFeature, string> = {
  ca: "a custom CA (certificate-authority)",
  clientCert: "a client certificate (client-certificate/client-key)",
  insecureSkipTlsVerify: "insecure-skip-tls-verify",
  tlsServerName: "tls-server-name",
  proxy: "a proxy (proxy-url)",
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
 * runtime's own `fetch` will do). Throws `UnsupportedTls` for settings nothing applies.
 */
export function buildFetch(
  host: ConfigHost,
  source: ConfigSource,
  server: string,
  transport: TransportConfig,
  options: ConnectOptions,
): HostFetch | undefined {
  const needed = featuresOf(transport);
  if (needed.length === 0) return undefined;
  if (options.createFetch !== undefined) {
    return { fetch: options.createFetch(transport), close: () => {} };
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
  if (host.transport === undefined || featuresOf(applied).length === 0) return undefined;
  return host.transport.create(applied);
}
