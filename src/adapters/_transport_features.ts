/**
 * What every runtime's config host can apply: each one's transport (its own `fetch` where that
 * can, `createNodeFetch` for the rest) takes every TLS, proxy and compression setting.
 * Internal; no runtime APIs here.
 * @module
 */
import type { TransportFeature } from "../config/config_loader_options.ts";

/** Every {@linkcode TransportFeature}: the `transport.supports` of each runtime's host. */
export const EVERY_TRANSPORT_FEATURE: readonly TransportFeature[] = [
  "ca",
  "clientCert",
  "insecureSkipTlsVerify",
  "tlsServerName",
  "proxy",
  "disableCompression",
];
