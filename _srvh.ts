import { SimulatedCluster } from "@kinformer/simulator";
import { serve } from "./packages/simulator/src/adapters/node/serve.ts";
import { pods } from "@kinformer/kinformer";
const cluster = new SimulatedCluster();
cluster.create(pods, { metadata: { namespace: "default", name: "web-1" }, spec: { containers: [{ name: "a", image: "b" }] } });
const server = await serve(cluster.fetch, { port: 0 });
console.log(server.url);
setInterval(() => {}, 1000);
