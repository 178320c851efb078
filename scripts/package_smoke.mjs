// Copied into a scratch project that installed the packed npm tarballs (the library and the
// simulator), and run there by scripts/package_check.mjs on Node, Deno and Bun: the packages as
// users receive them, imported by name. Prints one JSON line for the checker to compare.
//
//   <runtime> smoke.mjs '<JSON array of the library's subpaths>' '<JSON array of the simulator's>'
import * as kinformer from "@kinformer/kinformer";
import { ManualClock, SimulatedCluster as Deprecated } from "@kinformer/kinformer/testing";
import { SimulatedCluster } from "@kinformer/simulator";
import { kubectlProxy, parseKubeconfig, resolveKubeconfig } from "@kinformer/kinformer/config";
import { loadKubeconfig } from "@kinformer/kinformer/config/node";
import { KubeClient as ClientFromSubpath } from "@kinformer/kinformer/client";
import { prometheusMetrics } from "@kinformer/kinformer/metrics";

const { KubeClient, createInformer, pods } = kinformer;
const rootHas = {};
for (
  const name of [
    "KubeClient",
    "KubeApiError",
    "createInformer",
    "SharedInformer",
    "pods",
    "SharedInformerFactory",
    "WorkQueue",
  ]
) {
  rootHas[name] = typeof kinformer[name];
}

const cluster = new SimulatedCluster({ clock: new ManualClock() });
cluster.create(pods, { metadata: { namespace: "default", name: "web-1" } });
cluster.create(pods, { metadata: { namespace: "default", name: "web-2" } });
const client = new KubeClient({ server: "http://sim.local", fetch: cluster.fetch });
const listed = (await client.list(pods, { namespace: "default" })).items.length;

const prom = prometheusMetrics({ health: () => informer.health() });
const informer = createInformer(client, {
  resource: pods,
  namespace: "default",
  metrics: prom.metrics,
});
informer.start();
await informer.waitForSync();
const informerKeys = informer.store.list()
  .map((p) => `${p.metadata.namespace}/${p.metadata.name}`)
  .sort();
const objectsGauge = prom.render().match(/^kinformer_objects (\d+)$/m)?.[1];
await informer.stop();
cluster.close();

const proxyServer = new ClientFromSubpath(kubectlProxy()).server;
const kubeconfigServer = resolveKubeconfig(parseKubeconfig(
  "clusters:\n- name: c\n  cluster:\n    server: https://10.0.0.1\ncontexts:\n- name: x\n  context:\n    cluster: c\ncurrent-context: x\n",
)).server;
let nodeLoaderError = "";
try {
  await loadKubeconfig({ path: "/nonexistent/kubeconfig" });
} catch (error) {
  nodeLoaderError = `${error.name}:${error.code}`;
}

// Names as the bundle left them: every exported class and function keeps its own name, and
// errors print as the class they are (esbuild renamed self-referencing classes: _KubeApiError).
const subpaths = {};
const renamed = [];
for (const subpath of JSON.parse(process.argv[2] ?? "[]")) {
  const specifier = subpath === "."
    ? "@kinformer/kinformer"
    : `@kinformer/kinformer${subpath.slice(1)}`;
  const module = await import(specifier);
  subpaths[subpath] = Object.keys(module).length;
  for (const [name, value] of Object.entries(module)) {
    if (typeof value === "function" && value.name !== name) {
      renamed.push(`${subpath} ${name}: ${value.name}`);
    }
  }
}
const apiError = new kinformer.KubeApiError({ code: 403, message: "forbidden" });
let parseError;
try {
  parseKubeconfig("clusters: [");
} catch (error) {
  parseError = error;
}
const errorNames = [apiError, parseError].map((error) =>
  `${error?.name} ${error?.constructor.name} ${String(error).split(":")[0]}`
);

const simulatorSubpaths = {};
for (const subpath of JSON.parse(process.argv[3] ?? "[]")) {
  const specifier = subpath === "."
    ? "@kinformer/simulator"
    : `@kinformer/simulator${subpath.slice(1)}`;
  const module = await import(specifier);
  simulatorSubpaths[subpath] = Object.keys(module).length;
  for (const [name, value] of Object.entries(module)) {
    if (typeof value === "function" && value.name !== name) {
      renamed.push(`simulator ${subpath} ${name}: ${value.name}`);
    }
  }
}

console.log(JSON.stringify({
  rootHas,
  listed,
  informerKeys,
  objectsGauge,
  proxyServer,
  kubeconfigServer,
  nodeLoaderError,
  subpaths,
  simulatorSubpaths,
  sameSimulator: Deprecated === SimulatedCluster,
  renamed,
  errorNames,
}));
