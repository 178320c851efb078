/**
 * Cluster configuration loading on Node: files through `node:fs/promises`, the environment
 * through `process.env`.
 *
 * Node's global `fetch` cannot take a CA, a client certificate or a proxy per request, so a
 * configuration that needs one of them is refused with a `ClusterConfigError` (code
 * `UnsupportedTls`) unless you pass a `fetch` (or `createFetch`) that applies them, e.g. with
 * the undici package (not a dependency of kinformer):
 *
 * ```ts ignore
 * import { Agent, fetch as undiciFetch } from "undici";
 * import { loadFromDefault } from "@kinformer/kinformer/config/node";
 * const options = await loadFromDefault({
 *   createFetch: (tls) => {
 *     const dispatcher = new Agent({
 *       connect: {
 *         ca: tls.caData,
 *         cert: tls.certData,
 *         key: tls.keyData,
 *         rejectUnauthorized: tls.insecureSkipTlsVerify !== true,
 *         servername: tls.tlsServerName,
 *       },
 *     });
 *     return (request) => undiciFetch(request, { dispatcher }) as unknown as Promise<Response>;
 *   },
 * });
 * ```
 *
 * Or run `kubectl proxy` and use `kubectlProxy()`, or pass `ignoreUnsupportedTls: true` when
 * the CA is trusted some other way (`NODE_EXTRA_CA_CERTS=ca.crt`).
 *
 * @example
 * ```ts
 * import { ClusterConfigError } from "@kinformer/kinformer/config";
 * import { loadFromDefault } from "@kinformer/kinformer/config/node";
 * try {
 *   const options = await loadFromDefault();
 *   console.log(options.source, options.server, options.namespace);
 * } catch (error) {
 *   if (!(error instanceof ClusterConfigError)) throw error;
 *   console.log(error.code, error.message); // e.g. "UnsupportedTls": pass a fetch
 * }
 * ```
 * @module
 */
import { readFile } from "node:fs/promises";
import process from "node:process";
import { createConfigLoader } from "./config_loader.ts";
import type {
  ClusterClientOptions,
  ConfigHost,
  LoadFromDefaultOptions,
  LoadInClusterOptions,
  LoadKubeconfigOptions,
} from "./config_loader.ts";

const NODE_HINT = "Node's fetch takes no per-request TLS or proxy options: pass " +
  "`createFetch: (tls) => ...` returning e.g. undici's fetch with " +
  "`dispatcher: new Agent({ connect: { ca: tls.caData, cert: tls.certData, key: tls.keyData } })`.";

/**
 * The Node {@linkcode ConfigHost}: pass it to `createConfigLoader` with parts replaced. It
 * has no `transport`: Node's `fetch` cannot apply TLS settings.
 *
 * @example
 * ```ts
 * import { createConfigLoader } from "@kinformer/kinformer/config";
 * import { nodeHost } from "@kinformer/kinformer/config/node";
 * const loader = createConfigLoader({ ...nodeHost, env: () => undefined });
 * console.log(loader.defaultKubeconfigPath()); // undefined: no HOME in this environment
 * ```
 */
export const nodeHost: ConfigHost = {
  runtime: "Node",
  readFile: (path) => readFile(path, "utf8"),
  isNotFound: (error) => (error as { code?: unknown } | null)?.code === "ENOENT",
  env: (name) => process.env[name],
  pathListSeparator: process.platform === "win32" ? ";" : ":",
  hints: {
    ca: NODE_HINT,
    clientCert: NODE_HINT,
    insecureSkipTlsVerify: NODE_HINT,
    tlsServerName: NODE_HINT,
    proxy: NODE_HINT,
  },
};

const loader = createConfigLoader(nodeHost);

/**
 * Reads a kubeconfig (`path`, else the first path in `KUBECONFIG`, else `~/.kube/config`) and
 * returns options for `new KubeClient(...)`. A CA, client certificate or proxy in it needs a
 * `fetch`/`createFetch` option (see the module documentation); the settings are returned in
 * `transport` either way.
 *
 * @example
 * ```ts
 * import { loadKubeconfig } from "@kinformer/kinformer/config/node";
 * import { rm, writeFile } from "node:fs/promises";
 * import { tmpdir } from "node:os";
 * import { join } from "node:path";
 * const path = join(tmpdir(), `kubeconfig-${Date.now()}.json`);
 * await writeFile(path, JSON.stringify({
 *   clusters: [{ name: "local", cluster: { server: "http://127.0.0.1:8001" } }],
 *   contexts: [{ name: "local", context: { cluster: "local", namespace: "apps" } }],
 *   "current-context": "local",
 * }));
 * const options = await loadKubeconfig({ path });
 * console.log(options.server, options.namespace); // http://127.0.0.1:8001 apps
 * await rm(path);
 * ```
 */
export function loadKubeconfig(options?: LoadKubeconfigOptions): Promise<ClusterClientOptions> {
  return loader.loadKubeconfig(options);
}

/**
 * Options for the pod this runs in. The cluster CA must reach `fetch`: pass `createFetch`,
 * or start Node with `NODE_EXTRA_CA_CERTS=/var/run/secrets/kubernetes.io/serviceaccount/ca.crt`
 * and pass `ignoreUnsupportedTls: true`.
 *
 * @example
 * ```ts
 * import { ClusterConfigError } from "@kinformer/kinformer/config";
 * import { loadInCluster } from "@kinformer/kinformer/config/node";
 * try {
 *   const options = await loadInCluster({ ignoreUnsupportedTls: true });
 *   console.log("in a pod of namespace", options.namespace);
 * } catch (error) {
 *   if (!(error instanceof ClusterConfigError)) throw error;
 *   console.log(error.code); // "NotInCluster" outside a pod
 * }
 * ```
 */
export function loadInCluster(options?: LoadInClusterOptions): Promise<ClusterClientOptions> {
  return loader.loadInCluster(options);
}

/**
 * The usual lookup: the first path in `KUBECONFIG`, else `~/.kube/config`, else in-cluster.
 *
 * @example
 * ```ts
 * import { loadFromDefault } from "@kinformer/kinformer/config/node";
 * const options = await loadFromDefault().catch((error: Error) => error);
 * console.log(options instanceof Error ? options.message : options.server);
 * ```
 */
export function loadFromDefault(options?: LoadFromDefaultOptions): Promise<ClusterClientOptions> {
  return loader.loadFromDefault(options);
}
