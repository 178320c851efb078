/**
 * Cluster configuration loading on Deno: kubeconfig and in-cluster files through
 * `Deno.readTextFile`, the environment through `Deno.env`, a CA, client certificate and proxy
 * applied through `Deno.createHttpClient`, and exec credential plugins run with
 * `Deno.Command`. `tls-server-name` and `insecure-skip-tls-verify`, which
 * `Deno.createHttpClient` cannot apply, go through `createNodeFetch` (`node:https`, which
 * Deno runs), and so does every connection while proxy variables are set (`HTTPS_PROXY`,
 * `NO_PROXY`, ...): Deno's client applies them by rules other than kubectl's (it proxies
 * loopback, ignores ports in `NO_PROXY`, and lets `NO_PROXY` bypass a kubeconfig `proxy-url`),
 * so the loader decides with kubectl's rules and `node:https` does what it decided (this needs
 * env access to those variables: without it the loader cannot see them, while Deno's client
 * still applies them its own way). Needs `--allow-read`, `--allow-env` and `--allow-net`, and
 * `--allow-run` for exec plugins.
 *
 * @example
 * ```ts
 * import { KubeClient } from "@kinformer/kinformer/client";
 * import { loadFromDefault } from "@kinformer/kinformer/config/deno";
 * import assert from "node:assert/strict";
 * try {
 *   const options = await loadFromDefault();
 *   const client = new KubeClient(options);
 *   assert.ok(options.source === "kubeconfig" || options.source === "in-cluster");
 *   assert.equal(typeof client.server, "string");
 *   options.close();
 * } catch (error) {
 *   // No kubeconfig and not in a pod (or a broken kubeconfig): the error says what to fix.
 *   assert.ok(error instanceof Error);
 * }
 * ```
 * @module
 */
import { createConfigLoader } from "../../config/config_loader.ts";
import { EVERY_TRANSPORT_FEATURE } from "../_transport_features.ts";
import { runDenoCommand } from "./_run_command.ts";
import { withRepeatedHeaderLines } from "../node/_header_lines_fetch.ts";
import { createNodeFetch } from "../node/fetch.ts";
import { withoutCompression } from "../../config/_transport_build.ts";
import { parseProxyUrl } from "../../config/_proxy_url.ts";
import { checkTlsMaterial } from "../node/_tls.ts";
import { noProxySet, proxyVariablesSet } from "../../util/env.ts";
import type {
  ClusterClientOptions,
  ConfigHost,
  FetchFunction,
  HostFetch,
  LoadFromDefaultOptions,
  LoadInClusterOptions,
  LoadKubeconfigOptions,
  TransportConfig,
} from "../../config/config_loader_options.ts";

/** The part of the `Deno` namespace this file uses. */
interface DenoApi {
  readTextFile(path: string): Promise<string>;
  env: { get(name: string): string | undefined };
  build: { os: string };
  errors: { NotFound: abstract new (...args: never[]) => Error };
  stdin: { isTerminal(): boolean };
  stderr: { writeSync(bytes: Uint8Array): number };
  createHttpClient(options: {
    caCerts?: string[];
    cert?: string;
    key?: string;
    proxy?: { url: string };
  }): { close(): void };
}

function deno(): DenoApi {
  const api = (globalThis as unknown as { Deno?: DenoApi }).Deno;
  if (api === undefined) {
    throw new TypeError(
      "@kinformer/kinformer/config/deno runs on Deno only; use config/node or config/bun",
    );
  }
  return api;
}

/**
 * Builds a `fetch` that uses a `Deno.HttpClient` with the CA, client certificate and proxy;
 * the `node:https` transport instead with `tls-server-name` or `insecure-skip-tls-verify`,
 * which it cannot apply, and when proxy variables in the environment would make Deno's client
 * do other than what the loader decided (`transport.proxyUrl`, or a direct connection).
 */
function createDenoFetch(transport: TransportConfig): HostFetch {
  checkTlsMaterial(transport); // clearer messages than Deno.createHttpClient's own checks
  const options: Parameters<DenoApi["createHttpClient"]>[0] = {};
  if (transport.caData !== undefined) options.caCerts = [transport.caData];
  if (transport.certData !== undefined) options.cert = transport.certData;
  if (transport.keyData !== undefined) options.key = transport.keyData;
  // As the URL parser reads it (percent-encoded): Deno's client refuses a raw space or other
  // character in the user name or password that Node, Bun and Go take.
  if (transport.proxyUrl !== undefined) {
    options.proxy = { url: parseProxyUrl(transport.proxyUrl).href };
  }
  // Deno checks the CA, certificate and key here: a bad one fails the load, not every request
  // (node:tls on Deno does not check them).
  const client = deno().createHttpClient(options);
  const envDisagrees = transport.proxyUrl === undefined ? proxyVariablesSet() : noProxySet();
  if (
    transport.tlsServerName !== undefined || transport.insecureSkipTlsVerify === true ||
    envDisagrees
  ) {
    client.close();
    return createNodeFetch(transport);
  }
  let closed = false;
  const viaClient: FetchFunction = (request) => fetch(request, { client } as RequestInit);
  return {
    fetch: transport.disableCompression === true ? withoutCompression(viaClient) : viaClient,
    close: () => {
      if (closed) return;
      closed = true;
      client.close();
    },
  };
}

/**
 * The Deno {@linkcode ConfigHost}: pass it to `createConfigLoader` with parts replaced (a
 * stubbed `env`, say).
 *
 * @example
 * ```ts
 * import { createConfigLoader } from "@kinformer/kinformer/config";
 * import { denoHost } from "@kinformer/kinformer/config/deno";
 * import assert from "node:assert/strict";
 * const loader = createConfigLoader({ ...denoHost, env: () => undefined });
 * assert.equal(loader.defaultKubeconfigPath(), undefined); // no KUBECONFIG, no HOME
 * ```
 */
export const denoHost: ConfigHost = {
  runtime: "Deno",
  readFile: (path) => deno().readTextFile(path),
  isNotFound: (error) => error instanceof deno().errors.NotFound,
  env: (name) => deno().env.get(name),
  get pathListSeparator(): string {
    return deno().build.os === "windows" ? ";" : ":";
  },
  transport: {
    supports: EVERY_TRANSPORT_FEATURE,
    create: (transport) => withRepeatedHeaderLines(createDenoFetch(transport), transport),
    readsProxyEnv: proxyVariablesSet,
  },
  runCommand: runDenoCommand,
  stdinIsTerminal: () => deno().stdin.isTerminal(),
  writeStderr: (chunk) => writeAll(chunk),
};

/** Writes all of `chunk` to standard error (a plugin's prompt or device code). */
function writeAll(chunk: Uint8Array): void {
  let rest = chunk;
  while (rest.byteLength > 0) rest = rest.subarray(deno().stderr.writeSync(rest));
}

const loader = createConfigLoader(denoHost);

/**
 * Reads a kubeconfig (`path`, else the files of `KUBECONFIG` merged as kubectl merges them,
 * else `~/.kube/config`) and
 * returns options for `new KubeClient(...)`, with a `fetch` carrying the cluster's CA and
 * client certificate. Call `close()` on the result when done with the client.
 *
 * @example
 * ```ts
 * import { loadKubeconfig } from "@kinformer/kinformer/config/deno";
 * import assert from "node:assert/strict";
 * const path = await Deno.makeTempFile({ suffix: ".yaml" });
 * await Deno.writeTextFile(path, [
 *   "apiVersion: v1",
 *   "kind: Config",
 *   "clusters:",
 *   "- cluster:",
 *   "    server: http://127.0.0.1:8001",
 *   "  name: local",
 *   "contexts:",
 *   "- context:",
 *   "    cluster: local",
 *   "    namespace: apps",
 *   "  name: local",
 *   "current-context: local",
 * ].join("\n"));
 * const options = await loadKubeconfig({ path });
 * assert.equal(options.server, "http://127.0.0.1:8001");
 * assert.equal(options.namespace, "apps");
 * options.close();
 * await Deno.remove(path);
 * ```
 */
export function loadKubeconfig(options?: LoadKubeconfigOptions): Promise<ClusterClientOptions> {
  return loader.loadKubeconfig(options);
}

/**
 * Options for the pod this runs in: service account token (re-read as it rotates), CA and
 * namespace from `/var/run/secrets/kubernetes.io/serviceaccount`, server from
 * `KUBERNETES_SERVICE_HOST`/`_PORT`.
 *
 * @example
 * ```ts
 * import { ClusterConfigError } from "@kinformer/kinformer/config";
 * import { loadInCluster } from "@kinformer/kinformer/config/deno";
 * import assert from "node:assert/strict";
 * try {
 *   const options = await loadInCluster();
 *   assert.equal(options.source, "in-cluster");
 *   options.close();
 * } catch (error) {
 *   // Outside a pod: code "NotInCluster"; a pod without a service account token: "FileNotFound".
 *   assert.ok(error instanceof ClusterConfigError);
 * }
 * ```
 */
export function loadInCluster(options?: LoadInClusterOptions): Promise<ClusterClientOptions> {
  return loader.loadInCluster(options);
}

/**
 * The usual lookup, as client-go's: the files of `KUBECONFIG` (merged), else `~/.kube/config`,
 * else in-cluster.
 *
 * @example
 * ```ts
 * import { loadFromDefault } from "@kinformer/kinformer/config/deno";
 * import assert from "node:assert/strict";
 * const options = await loadFromDefault().catch((error: Error) => error);
 * if (options instanceof Error) {
 *   // Neither KUBECONFIG, ~/.kube/config nor a pod here: the message says what to set up.
 *   assert.match(options.message, /\S/);
 * } else {
 *   assert.equal(typeof options.server, "string");
 *   options.close();
 * }
 * ```
 */
export function loadFromDefault(options?: LoadFromDefaultOptions): Promise<ClusterClientOptions> {
  return loader.loadFromDefault(options);
}
