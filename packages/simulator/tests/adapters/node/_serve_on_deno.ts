// Run by serve_keep_alive_test.ts under Deno: the Node adapter serving a simulated cluster over
// HTTPS (the test certificates), pods default/web-1 and default/web-2; prints `READY <url>` and
// serves until killed.
import { readFile } from "node:fs/promises";
import { pods } from "../../../../../src/client/mod.ts";
import { SimulatedCluster } from "../../../mod.ts";
import { serve } from "../../../src/adapters/node/serve.ts";

const certs = new URL("../../../../../tests/fixtures/kubeconfig/certs/", import.meta.url);
const pem = (name: string): Promise<string> => readFile(new URL(name, certs), "utf8");
const cluster = new SimulatedCluster();
cluster.create(pods, { metadata: { namespace: "default", name: "web-1" } });
const server = await serve(cluster.fetch, {
  tls: { cert: await pem("server.crt"), key: await pem("server.key") },
});
console.log(`READY ${server.url} ${cluster.resourceVersion}`);
// The watch the test opens from the list's version replays this one as ADDED.
cluster.create(pods, { metadata: { namespace: "default", name: "web-2" } });
