/**
 * Client options for a cluster reached through `kubectl proxy`, which handles TLS and
 * authentication (exec plugins included) itself.
 * @module
 */
import type { ClusterClientOptions } from "./config_loader_options.ts";
import { describeValue, trimEnd } from "../util/values.ts";
import { redactUrl } from "../client/http.ts";

/**
 * Where `kubectl proxy` listens by default.
 */
export const KUBECTL_PROXY_URL = "http://127.0.0.1:8001";

/**
 * Client options for `kubectl proxy` listening at `url`: no token, no TLS, the runtime's own
 * `fetch`. Works on every runtime, including Node with a kubeconfig whose CA, client
 * certificate or exec plugin kinformer cannot use directly. Throws a `TypeError` when `url`
 * is not an http(s) URL.
 *
 * @example
 * ```ts
 * import { kubectlProxy } from "@kinformer/kinformer/config";
 * import assert from "node:assert/strict";
 * // Start the proxy first: `kubectl proxy --port=8001`
 * const options = kubectlProxy();
 * assert.equal(options.server, "http://127.0.0.1:8001");
 * assert.equal(options.source, "kubectl-proxy");
 * assert.equal(kubectlProxy("http://localhost:9000/").server, "http://localhost:9000");
 * ```
 */
export function kubectlProxy(url: string = KUBECTL_PROXY_URL): ClusterClientOptions {
  let parsed: URL | undefined;
  try {
    parsed = new URL(url);
  } catch {
    parsed = undefined; // the parser's message may quote the URL, credentials and all
  }
  if (parsed === undefined || (parsed.protocol !== "http:" && parsed.protocol !== "https:")) {
    throw new TypeError(
      `kubectlProxy: url must be an http(s) URL, got ${describeValue(redactUrl(url))}`,
    );
  }
  // An "@" past the host is a password with an unencoded "/", "?" or "#".
  if (
    parsed.username !== "" || parsed.password !== "" ||
    `${parsed.pathname}${parsed.search}${parsed.hash}`.includes("@")
  ) {
    throw new TypeError("kubectlProxy: url must not carry credentials (kubectl proxy needs none)");
  }
  return { server: trimEnd(url, "/"), source: "kubectl-proxy", close: () => {} };
}
