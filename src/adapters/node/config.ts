/**
 * Cluster configuration loading on Node: files through `node:fs/promises`, the environment
 * through `process.env`, TLS and proxies through {@linkcode createNodeFetch} (a `fetch` on
 * `node:http`/`node:https`: Node's global `fetch` takes no CA, client certificate or proxy),
 * and exec credential plugins through `node:child_process`. No extra package is needed: a
 * kind or minikube kubeconfig, an in-cluster service account, and EKS, GKE or AKS users with
 * their exec plugins (`aws eks get-token`, `gke-gcloud-auth-plugin`, `kubelogin`) all work.
 *
 * @example
 * ```ts
 * import { KubeClient } from "@kinformer/kinformer/client";
 * import { loadFromDefault } from "@kinformer/kinformer/config/node";
 * import assert from "node:assert/strict";
 * try {
 *   const options = await loadFromDefault();
 *   const client = new KubeClient(options);
 *   assert.ok(options.source === "kubeconfig" || options.source === "in-cluster");
 *   assert.equal(typeof client.server, "string");
 *   options.close(); // releases the pooled connections when you are done
 * } catch (error) {
 *   // No kubeconfig and not in a pod (or a broken kubeconfig): the error says what to fix.
 *   assert.ok(error instanceof Error);
 * }
 * ```
 * @module
 */
import { readFile } from "node:fs/promises";
import process from "node:process";
import { createConfigLoader } from "../../config/config_loader.ts";
import { EVERY_TRANSPORT_FEATURE } from "../_transport_features.ts";
import { processHostParts } from "./_process_host.ts";
import { createNodeFetch } from "./fetch.ts";
import { envFlag, proxyVariablesSet } from "../../util/env.ts";
import type {
  ClusterClientOptions,
  ConfigHost,
  LoadFromDefaultOptions,
  LoadInClusterOptions,
  LoadKubeconfigOptions,
} from "../../config/config_loader_options.ts";

export { createNodeFetch } from "./fetch.ts";

/**
 * The Node {@linkcode ConfigHost}: pass it to `createConfigLoader` with parts replaced.
 *
 * @example
 * ```ts
 * import { createConfigLoader } from "@kinformer/kinformer/config";
 * import { nodeHost } from "@kinformer/kinformer/config/node";
 * import assert from "node:assert/strict";
 * const loader = createConfigLoader({ ...nodeHost, env: () => undefined });
 * assert.equal(loader.defaultKubeconfigPath(), undefined); // no KUBECONFIG, no HOME
 * ```
 */
export const nodeHost: ConfigHost = {
  runtime: "Node",
  readFile: (path) => readFile(path, "utf8"),
  ...processHostParts,
  // Node's fetch and node:zlib (createNodeFetch) read every gzip member of a body.
  readsGzipMembers: true,
  transport: {
    supports: EVERY_TRANSPORT_FEATURE,
    create: createNodeFetch,
    // Node's global fetch takes proxies from the environment only when asked to.
    readsProxyEnv: () =>
      (envFlag("NODE_USE_ENV_PROXY") || process.execArgv.includes("--use-env-proxy")) &&
      proxyVariablesSet(),
  },
};

const loader = createConfigLoader(nodeHost);

/**
 * Reads a kubeconfig (`path`, else the files of `KUBECONFIG` merged as kubectl merges them,
 * else `~/.kube/config`) and
 * returns options for `new KubeClient(...)`, with a `fetch` carrying the cluster's TLS and
 * proxy settings (and an exec plugin's credential). Call `close()` on the result when done.
 *
 * @example
 * ```ts
 * import { loadKubeconfig } from "@kinformer/kinformer/config/node";
 * import { rm, writeFile } from "node:fs/promises";
 * import { tmpdir } from "node:os";
 * import { join } from "node:path";
 * import assert from "node:assert/strict";
 * const path = join(tmpdir(), `kubeconfig-${Date.now()}.json`);
 * await writeFile(path, JSON.stringify({
 *   clusters: [{ name: "local", cluster: { server: "http://127.0.0.1:8001" } }],
 *   contexts: [{ name: "local", context: { cluster: "local", namespace: "apps" } }],
 *   "current-context": "local",
 * }));
 * const options = await loadKubeconfig({ path });
 * assert.equal(options.server, "http://127.0.0.1:8001");
 * assert.equal(options.namespace, "apps");
 * options.close();
 * await rm(path);
 * ```
 */
export function loadKubeconfig(options?: LoadKubeconfigOptions): Promise<ClusterClientOptions> {
  return loader.loadKubeconfig(options);
}

/**
 * Options for the pod this runs in: service account token (re-read as it rotates), CA and
 * namespace from `/var/run/secrets/kubernetes.io/serviceaccount`, server from
 * `KUBERNETES_SERVICE_HOST`/`_PORT`. The CA is applied by {@linkcode createNodeFetch}.
 *
 * @example
 * ```ts
 * import { ClusterConfigError } from "@kinformer/kinformer/config";
 * import { loadInCluster } from "@kinformer/kinformer/config/node";
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
 * import { loadFromDefault } from "@kinformer/kinformer/config/node";
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
