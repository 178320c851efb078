/**
 * A provider of the clusters whose kubeconfigs are Secrets in a hub cluster, followed by an
 * informer so clusters join and leave as the Secrets change.
 * @module
 */
import type { KubeClient } from "../client/kube_client.ts";
import { secrets } from "../client/builtin_resources.ts";
import type { KubeObject } from "../client/types.ts";
import { createInformer } from "../cache/informer.ts";
import { objectKey } from "../cache/object_key.ts";
import type { Clock } from "../util/clock.ts";
import type { OnError } from "../util/error_context.ts";
import { ErrorReporter } from "../util/error_reporter.ts";
import { checkFunction, checkOneOf } from "../util/validate.ts";
import { isRecord } from "../util/values.ts";
import { type ClusterProvider, Engagements } from "./cluster_provider.ts";
import type { ClusterClientInit } from "./fleet_options.ts";

/**
 * How the Secrets are laid out:
 * - `"cluster-api"`: Cluster API's `<cluster>-kubeconfig` Secrets, labelled
 *   `cluster.x-k8s.io/cluster-name: <cluster>`, the kubeconfig under the data key `value`; the
 *   cluster is named `<namespace>/<cluster>` (Cluster API clusters are namespaced);
 * - `"multicluster-runtime"`: multicluster-runtime's kubeconfig provider's Secrets, labelled
 *   `sigs.k8s.io/multicluster-runtime-kubeconfig: "true"`, the kubeconfig under the data key
 *   `kubeconfig`; the cluster is named as the Secret.
 */
export type KubeconfigSecretLayout = "cluster-api" | "multicluster-runtime";

/** Options of {@linkcode kubeconfigSecrets}. */
export interface KubeconfigSecretsOptions {
  /** A client of the hub cluster holding the Secrets (it needs list and watch on them). */
  client: KubeClient;
  /** Only this namespace of the hub. @default every namespace */
  namespace?: string | undefined;
  /** How the Secrets are laid out. @default "cluster-api" */
  layout?: KubeconfigSecretLayout | undefined;
  /**
   * Builds a cluster's client from its kubeconfig text: `kubeconfigConnector(host)` with the
   * runtime's config host, or your own.
   */
  connect: (kubeconfig: string, signal: AbortSignal) => Promise<KubeClient | ClusterClientInit>;
  /** Time source of the hub's informer. @default systemClock */
  clock?: Clock | undefined;
  /**
   * Told of the hub informer's errors (source `secrets informer`) and of Secrets that cannot
   * be used (source `kubeconfig secrets`, phase `credentials`, kind `config`: a kubeconfig that
   * is not base64 of UTF-8): the context's `key` is the Secret's `namespace/name`, never its
   * contents.
   * @default the default printing of every long-running object: the first error of each kind
   * at once, then at most one line per kind per minute
   */
  onError?: OnError | undefined;
}

/** Labels, data key and cluster name of each layout. */
const LAYOUTS: Record<
  KubeconfigSecretLayout,
  { labelSelector: string; key: string; name: (secret: KubeObject) => string | undefined }
> = {
  "cluster-api": {
    labelSelector: "cluster.x-k8s.io/cluster-name",
    key: "value",
    name: (secret) => {
      const cluster = secret.metadata.labels?.["cluster.x-k8s.io/cluster-name"];
      return cluster !== undefined && secret.metadata.name === `${cluster}-kubeconfig`
        ? `${secret.metadata.namespace}/${cluster}`
        : undefined;
    },
  },
  "multicluster-runtime": {
    labelSelector: "sigs.k8s.io/multicluster-runtime-kubeconfig=true",
    key: "kubeconfig",
    name: (secret) => secret.metadata.name,
  },
};

/** The kubeconfig text under `key` of a Secret's `data`, or `undefined`. */
function kubeconfigOf(secret: KubeObject, key: string): string | undefined {
  const data = (secret as { data?: unknown }).data;
  if (!isRecord(data)) return undefined;
  const value = data[key];
  if (typeof value !== "string") return undefined;
  const binary = atob(value.replace(/\s+/g, ""));
  return new TextDecoder("utf-8", { fatal: true }).decode(
    Uint8Array.from(binary, (c) => c.charCodeAt(0)),
  );
}

/**
 * A provider of the clusters whose kubeconfigs are Secrets in a hub cluster (as Cluster API and
 * multicluster-runtime keep them), followed by an informer: a Secret added engages its cluster,
 * one changed re-engages it with the new kubeconfig, one deleted (or losing its kubeconfig)
 * disengages it. `run` resolves once the hub's Secrets have been listed and engaged.
 *
 * @example
 * ```ts
 * import { Fleet, kubeconfigSecrets } from "@kinformer/kinformer/fleet";
 * import { KubeClient, pods, secrets } from "@kinformer/kinformer/client";
 * import { SimulatedCluster } from "@kinformer/kinformer/testing";
 * import assert from "node:assert/strict";
 * const hub = new SimulatedCluster({ resources: [secrets], autoCreateNamespaces: true });
 * const workload = new SimulatedCluster({ autoCreateNamespaces: true });
 * const kubeconfig = JSON.stringify({
 *   clusters: [{ name: "w", cluster: { server: "http://w.test" } }],
 *   contexts: [{ name: "w", context: { cluster: "w" } }],
 *   "current-context": "w",
 * });
 * hub.create(secrets, {
 *   metadata: { namespace: "fleet", name: "w-kubeconfig", labels: { "cluster.x-k8s.io/cluster-name": "w" } },
 *   data: { value: btoa(kubeconfig) },
 * });
 * await using fleet = new Fleet({ resource: pods });
 * const ac = new AbortController();
 * await kubeconfigSecrets({
 *   client: new KubeClient({ server: "http://hub.test", fetch: hub.fetch }),
 *   // a real program: kubeconfigConnector(nodeHost)
 *   connect: () => Promise.resolve({ server: "http://w.test", fetch: workload.fetch }),
 * }).run(fleet, { signal: ac.signal });
 * assert.deepEqual(fleet.clusters(), ["fleet/w"]);
 * ac.abort();
 * hub.close();
 * workload.close();
 * ```
 */
export function kubeconfigSecrets(options: KubeconfigSecretsOptions): ClusterProvider {
  if (typeof options !== "object" || options === null) {
    throw new TypeError("kubeconfigSecrets needs options");
  }
  checkFunction(options.connect, "connect");
  checkFunction(options.onError, "onError");
  checkOneOf(options.layout, "layout", ["cluster-api", "multicluster-runtime"]);
  const layout = LAYOUTS[options.layout ?? "cluster-api"];
  return {
    run: async (sinks, { signal }) => {
      const engaged = new Engagements(sinks, signal);
      /** The kubeconfig each engaged cluster was engaged with, by cluster name. */
      const current = new Map<string, string>();
      /** The cluster each Secret engaged, by Secret key. */
      const bySecret = new Map<string, string>();
      const reporter = new ErrorReporter({
        source: "kubeconfig secrets",
        onError: options.onError,
        clock: options.clock,
      });
      const drop = (key: string): void => {
        const name = bySecret.get(key);
        if (name === undefined) return;
        bySecret.delete(key);
        current.delete(name);
        engaged.remove(name);
      };
      const apply = (secret: KubeObject): void => {
        const key = objectKey(secret);
        const name = layout.name(secret);
        let text: string | undefined;
        try {
          text = kubeconfigOf(secret, layout.key);
        } catch {
          // No cause kept: it would hold the Secret's contents.
          reporter.report(
            new TypeError(`Secret ${key}: data.${layout.key} is not base64 of UTF-8`),
            {
              phase: "credentials",
              foreignKind: "config",
              key,
              cluster: name,
              action: "leaving its cluster out until the Secret changes",
            },
          );
        }
        if (name === undefined || name === "" || name.includes("|") || text === undefined) {
          drop(key);
          return;
        }
        if (bySecret.get(key) === name && current.get(name) === text) return;
        drop(key);
        bySecret.set(key, name);
        current.set(name, text);
        const kubeconfig = text;
        engaged.set(name, (s) => options.connect(kubeconfig, s));
      };
      const informer = createInformer(options.client, {
        resource: secrets,
        namespace: options.namespace,
        labelSelector: layout.labelSelector,
        clock: options.clock,
        onError: options.onError,
      });
      const registration = informer.addEventHandler({
        onAdd: apply,
        onUpdate: (_old, secret) => apply(secret),
        onDelete: (secret) => drop(objectKey(secret)),
      });
      informer.start({ signal });
      await registration.waitForSync({ signal });
    },
  };
}
