/**
 * Connect through a kubeconfig whose user gets its credentials from an exec plugin, the way
 * EKS (`aws eks get-token`), GKE (`gke-gcloud-auth-plugin`) and AKS (`kubelogin`) users do,
 * with no package besides kinformer, on Deno, Bun or Node.
 *
 * ```sh
 * deno run -A examples/exec_plugin.ts     # or: bun --conditions=kinformer-source examples/exec_plugin.ts
 * node --conditions=kinformer-source examples/exec_plugin.ts   # Node 22.18+ / 24 run .ts as is
 * # Your own cluster (any kubeconfig: exec plugin, client certificate, token, CA, proxy):
 * node --conditions=kinformer-source examples/exec_plugin.ts --kubeconfig ~/.kube/config --namespace default --seconds 10
 * ```
 *
 * Without `--kubeconfig` it builds the whole chain on this machine: the simulated cluster
 * served over HTTPS (the repository's throwaway test certificates; it refuses requests without
 * the token), and a kubeconfig naming that server, its CA, and an exec plugin,
 * `examples/exec_plugin/demo-plugin.sh`, which prints the token as an `ExecCredential`.
 * Loading runs nothing: the informer's first request runs the plugin (its stderr goes to
 * yours as it writes it, as with kubectl), its token is cached for the process (until its
 * `expirationTimestamp`, or a 401), and the informer lists, watches and prints a pod created
 * after the sync.
 *
 * Flags: `--kubeconfig PATH`, `--context NAME`, `--namespace NS` (default: the context's,
 * else all), `--seconds S` (with `--kubeconfig`: how long to watch, default 10).
 * @module
 */
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { createInformer, KubeClient, pods } from "@kinformer/kinformer";
import type { ClusterClientOptions, LoadKubeconfigOptions } from "@kinformer/kinformer/config";
import { SimulatedCluster } from "@kinformer/kinformer/testing";
import { serve } from "@kinformer/kinformer/testing/node";

const HERE = dirname(fileURLToPath(import.meta.url));
const CERTS = join(HERE, "..", "tests", "fixtures", "kubeconfig", "certs");

/** The runtime's loader: in your project, import the one for your runtime directly. */
async function loadKubeconfig(options: LoadKubeconfigOptions): Promise<ClusterClientOptions> {
  if ("Deno" in globalThis) {
    return (await import("@kinformer/kinformer/config/deno")).loadKubeconfig(options);
  }
  if ("Bun" in globalThis) {
    return (await import("@kinformer/kinformer/config/bun")).loadKubeconfig(options);
  }
  return (await import("@kinformer/kinformer/config/node")).loadKubeconfig(options);
}

function flag(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

const runtime = "Deno" in globalThis
  ? "Deno"
  : "Bun" in globalThis
  ? "Bun"
  : `Node ${process.version}`;

/** The demo: a simulated cluster over HTTPS, and a kubeconfig with an exec plugin for it. */
async function demo(): Promise<
  { path: string; cluster: SimulatedCluster; close(): Promise<void> }
> {
  const token = `demo-${Math.random().toString(36).slice(2)}`;
  const cluster = new SimulatedCluster({ token });
  cluster.create(pods, { metadata: { namespace: "default", name: "web-1" } });
  cluster.create(pods, { metadata: { namespace: "default", name: "web-2" } });
  const server = await serve(cluster.fetch, {
    tls: {
      cert: await readFile(join(CERTS, "server.crt"), "utf8"),
      key: await readFile(join(CERTS, "server.key"), "utf8"),
    },
  });
  const dir = await mkdtemp(join(tmpdir(), "kinformer-exec-example-"));
  const path = join(dir, "kubeconfig");
  // What `aws eks update-kubeconfig` writes, give or take the names.
  await writeFile(
    path,
    [
      "apiVersion: v1",
      "kind: Config",
      "clusters:",
      "- cluster:",
      `    server: ${server.url}`,
      `    certificate-authority: ${join(CERTS, "ca.crt")}`,
      "  name: demo",
      "users:",
      "- name: demo-user",
      "  user:",
      "    exec:",
      "      apiVersion: client.authentication.k8s.io/v1",
      `      command: ${join(HERE, "exec_plugin", "demo-plugin.sh")}`,
      "      args:",
      "      - get-token",
      "      env:",
      "      - name: DEMO_TOKEN",
      `        value: ${token}`,
      "      interactiveMode: Never",
      "      provideClusterInfo: true",
      "      installHint: the demo plugin ships with kinformer's examples",
      "contexts:",
      "- context:",
      "    cluster: demo",
      "    user: demo-user",
      "    namespace: default",
      "  name: demo",
      "current-context: demo",
      "",
    ].join("\n"),
  );
  return {
    path,
    cluster,
    close: async () => {
      cluster.close();
      await server.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

const given = flag("kubeconfig");
const setup = given === undefined ? await demo() : undefined;
const options = await loadKubeconfig({
  path: given ?? setup!.path,
  ...(flag("context") === undefined ? {} : { context: flag("context") }),
});
const namespace = flag("namespace") ?? options.namespace;
console.log(`kinformer on ${runtime}: ${options.server} (context ${options.context})`);

const informer = createInformer(new KubeClient(options), {
  resource: pods,
  ...(namespace === undefined ? {} : { namespace }),
});
const controller = new AbortController();
const seconds = Number(flag("seconds") ?? "10");
const timer = given === undefined
  ? undefined
  : setTimeout(() => controller.abort(), seconds * 1000);
let exitCode = 1;
try {
  informer.start({ signal: controller.signal });
  for await (const event of informer.events({ signal: controller.signal })) {
    if (event.type === "synced") {
      console.log(
        `synced: ${informer.store.list().length} pods in ${namespace ?? "all namespaces"}`,
      );
      exitCode = 0;
      setup?.cluster.create(pods, { metadata: { namespace: "default", name: "added-after-sync" } });
    } else if (event.type !== "add" || !event.isInInitialList) {
      const { namespace: ns, name } = event.object.metadata;
      console.log(`${event.type} ${ns}/${name}`);
      if (setup !== undefined) break; // the demo stops after the pod it created
    }
  }
} catch (error) {
  if (!controller.signal.aborted) throw error;
} finally {
  clearTimeout(timer);
  controller.abort();
  await informer.stop();
  options.close();
  await setup?.close();
}
if (exitCode !== 0) console.error("the informer never synced");
process.exit(exitCode);
