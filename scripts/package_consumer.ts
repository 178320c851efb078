// Copied into the scratch project of scripts/package_check.mjs and type-checked there by tsc
// (module and moduleResolution nodenext, strict, skipLibCheck off): the shipped declarations
// resolve for every entry point and are usable by a TypeScript consumer.
import { createInformer, KubeClient, type KubeObject, pods } from "@kinformer/kinformer";
import { SimulatedCluster } from "@kinformer/kinformer/testing";
import { serve } from "@kinformer/kinformer/testing/node";
import { type ClusterClientOptions, kubectlProxy } from "@kinformer/kinformer/config";
import { loadFromDefault } from "@kinformer/kinformer/config/node";
import { denoHost } from "@kinformer/kinformer/config/deno";
import { loadKubeconfig as loadOnBun } from "@kinformer/kinformer/config/bun";
import { type PrometheusMetrics, prometheusMetrics } from "@kinformer/kinformer/metrics";

export const runtimeEntries: unknown[] = [denoHost.runtime, loadOnBun, serve];
const options: ClusterClientOptions = kubectlProxy();
const client: KubeClient = new KubeClient(options);
const cluster = new SimulatedCluster();
const prom: PrometheusMetrics = prometheusMetrics({ labels: { resource: "pods" } });
const informer = createInformer<KubeObject>(
  new KubeClient({ server: "http://sim", fetch: cluster.fetch }),
  { resource: pods, metrics: prom.metrics },
);
export const pending: Promise<ClusterClientOptions> = loadFromDefault();
export { client, informer };
