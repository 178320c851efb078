// The cluster a ```ts run block of the docs runs against (scripts/docs_check.mjs starts one per
// block, so every block sees the same fresh state): the simulated API server over loopback
// HTTP with a bearer token, and a kubeconfig for it, so `loadFromDefault()` finds it through
// KUBECONFIG as it would find a real cluster.
//
//   deno run -A scripts/_docs_cluster.ts KUBECONFIG_PATH
//
// Writes the kubeconfig (context "simulated", namespace "default", a random token), prints
// `READY <url>` and serves until its standard input closes. What it holds (guides may rely on
// it; change it here and in docs/CONTRIBUTING-docs.md together):
//   namespaces default and kube-system;
//   pods default/web-1 and default/web-2 (label app=web), default/api-1 (label app=api);
//   configmap default/settings (data: mode=demo).
import { configmaps, namespaces, pods } from "../src/client/builtin_resources.ts";
import { serve } from "../src/adapters/deno/serve.ts";
import { SimulatedCluster } from "../src/testing/simulated_cluster.ts";

declare const Deno: {
  args: string[];
  stdin: { readable: ReadableStream<Uint8Array> };
  writeTextFile(path: string, data: string): Promise<void>;
};

const path = Deno.args[0];
if (path === undefined) throw new TypeError("usage: _docs_cluster.ts KUBECONFIG_PATH");

const token = crypto.randomUUID();
const cluster = new SimulatedCluster({ token });
for (const name of ["default", "kube-system"]) cluster.create(namespaces, { metadata: { name } });
const containers = [{ name: "app", image: "registry.example/app:1.0" }];
for (const [name, app] of [["web-1", "web"], ["web-2", "web"], ["api-1", "api"]] as const) {
  cluster.create(pods, {
    metadata: { namespace: "default", name, labels: { app } },
    spec: { containers },
  });
}
cluster.create(configmaps, {
  metadata: { namespace: "default", name: "settings" },
  data: { mode: "demo" },
});

const server = await serve(cluster.fetch);
const kubeconfig = {
  apiVersion: "v1",
  kind: "Config",
  clusters: [{ name: "simulated", cluster: { server: server.url } }],
  users: [{ name: "docs", user: { token } }],
  contexts: [{
    name: "simulated",
    context: { cluster: "simulated", user: "docs", namespace: "default" },
  }],
  "current-context": "simulated",
};
await Deno.writeTextFile(path, JSON.stringify(kubeconfig, null, 2) + "\n");
console.log(`READY ${server.url}`);

// Until the docs check closes our standard input (or exits).
for await (const _ of Deno.stdin.readable) { /* nothing is read */ }
await server.close();
cluster.close();
