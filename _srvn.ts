import { readFileSync } from "node:fs";
import { SimulatedCluster } from "./packages/simulator/mod.ts";
import { serve } from "./packages/simulator/src/adapters/node/serve.ts";
import { pods } from "@kinformer/kinformer";
const cluster = new SimulatedCluster();
cluster.create(pods, { metadata: { namespace: "default", name: "web-1" }, spec: { containers: [{ name: "a", image: "b" }] } });
const server = await serve(cluster.fetch, { port: 0, tls: { cert: readFileSync('tests/fixtures/kubeconfig/certs/server.crt',"utf8"), key: readFileSync('tests/fixtures/kubeconfig/certs/server.key',"utf8") } });
console.log(server.url);
setInterval(() => {}, 1000);
