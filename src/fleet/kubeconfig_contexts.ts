/**
 * A provider of the contexts of a kubeconfig, and the connector that turns a kubeconfig's text
 * (a Secret's) into client options.
 * @module
 */
import type { KubeClient } from "../client/kube_client.ts";
import { createConfigLoader } from "../config/config_loader.ts";
import type { ConfigHost, ConnectOptions } from "../config/config_loader_options.ts";
import type { Kubeconfig, KubeconfigContext } from "../config/kubeconfig.ts";
import { checkFunction } from "../util/validate.ts";
import { describeValue } from "../util/values.ts";
import { type ClusterProvider, Engagements } from "./cluster_provider.ts";
import type { ClusterClientInit } from "./fleet_options.ts";

/** Options of {@linkcode kubeconfigContexts}. */
export interface KubeconfigContextsOptions {
  /** The kubeconfig (`parseKubeconfig` of its text, or `mergeKubeconfigs` of several). */
  kubeconfig: Kubeconfig;
  /**
   * Which contexts become clusters: their names, or a test. @default every context
   */
  contexts?: readonly string[] | ((context: KubeconfigContext) => boolean) | undefined;
  /**
   * Builds the client of one context, e.g. `(context) => loadKubeconfig({ context })` of
   * `@kinformer/kinformer/config/node`.
   */
  connect: (context: string, signal: AbortSignal) => Promise<KubeClient | ClusterClientInit>;
}

/**
 * A provider of a kubeconfig's contexts (all, or those chosen), each engaged under its
 * context's name; a cluster's client is built when it is engaged (it is `connecting` until
 * then, and retried on the backoff if that fails).
 *
 * @example
 * ```ts
 * import { Fleet, kubeconfigContexts } from "@kinformer/kinformer/fleet";
 * import { parseKubeconfig } from "@kinformer/kinformer/config";
 * import { pods } from "@kinformer/kinformer/client";
 * import { SimulatedCluster } from "@kinformer/kinformer/testing";
 * import assert from "node:assert/strict";
 * const sim = new SimulatedCluster({ autoCreateNamespaces: true });
 * const kubeconfig = parseKubeconfig(JSON.stringify({
 *   clusters: [{ name: "sim", cluster: { server: "http://sim.test" } }],
 *   contexts: [
 *     { name: "dev", context: { cluster: "sim" } },
 *     { name: "prod", context: { cluster: "sim" } },
 *   ],
 * }));
 * await using fleet = new Fleet({ resource: pods });
 * const ac = new AbortController();
 * await kubeconfigContexts({
 *   kubeconfig,
 *   contexts: ["prod"],
 *   connect: () => Promise.resolve({ server: "http://sim.test", fetch: sim.fetch }),
 * }).run(fleet, { signal: ac.signal });
 * await fleet.waitForSync();
 * assert.deepEqual(fleet.clusters(), ["prod"]);
 * ac.abort();
 * sim.close();
 * ```
 */
export function kubeconfigContexts(options: KubeconfigContextsOptions): ClusterProvider {
  if (
    typeof options !== "object" || options === null || !Array.isArray(options.kubeconfig?.contexts)
  ) {
    throw new TypeError("kubeconfigContexts needs options with a parsed `kubeconfig`");
  }
  checkFunction(options.connect, "connect");
  const choose = options.contexts;
  if (choose !== undefined && typeof choose !== "function" && !Array.isArray(choose)) {
    throw new TypeError(
      `contexts must be an array of names or a function, got ${describeValue(choose)}`,
    );
  }
  const chosen = options.kubeconfig.contexts.filter((c) =>
    choose === undefined ||
    (typeof choose === "function" ? choose(c) : (choose as readonly string[]).includes(c.name))
  );
  return {
    run: (sinks, { signal }) => {
      const engaged = new Engagements(sinks, signal);
      for (const { name } of chosen) {
        engaged.set(name, (s) => options.connect(name, s));
      }
      return Promise.resolve();
    },
  };
}

/** Where the connector's kubeconfig text is "read" from (no file is). */
const SECRET_PATH = "/kinformer/fleet/kubeconfig-from-secret";

/**
 * A connector for kubeconfig text (a Secret's): client options for its current context, loaded
 * as `loadKubeconfig` loads a file, with the runtime's `host` (e.g. `nodeHost` of
 * `@kinformer/kinformer/config/node`) building the connection. Files the kubeconfig names (a
 * CA, a token file) are read through the host.
 *
 * @example
 * ```ts
 * import { kubeconfigConnector } from "@kinformer/kinformer/fleet";
 * import assert from "node:assert/strict";
 * const connect = kubeconfigConnector({
 *   runtime: "example",
 *   readFile: () => Promise.reject(new Error("no files here")),
 *   isNotFound: () => false,
 *   env: () => undefined,
 *   pathListSeparator: ":",
 * });
 * const text = JSON.stringify({
 *   clusters: [{ name: "c", cluster: { server: "http://127.0.0.1:8080" } }],
 *   contexts: [{ name: "c", context: { cluster: "c" } }],
 *   "current-context": "c",
 * });
 * const options = await connect(text, new AbortController().signal);
 * assert.equal(options.server, "http://127.0.0.1:8080");
 * options.close();
 * ```
 */
export function kubeconfigConnector(
  host: ConfigHost,
  options: ConnectOptions = {},
): (kubeconfig: string, signal: AbortSignal) => Promise<ClusterClientInit & { close(): void }> {
  if (typeof host !== "object" || host === null) throw new TypeError("host is required");
  return (kubeconfig, signal) => {
    const loader = createConfigLoader({
      ...host,
      readFile: (path) => path === SECRET_PATH ? Promise.resolve(kubeconfig) : host.readFile(path),
    });
    return loader.loadKubeconfig({ ...options, path: SECRET_PATH, signal });
  };
}
