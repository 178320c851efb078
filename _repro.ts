import { SimulatedCluster } from "@kinformer/simulator";
import { serve } from "./packages/simulator/src/adapters/node/serve.ts";
import { pods } from "@kinformer/kinformer";
const cluster = new SimulatedCluster();
cluster.seed(pods, 2);
const server = await serve(cluster.fetch, { port: 0 });
console.log(server.url);
const ac = new AbortController();
const res = await fetch(`${server.url}/api/v1/namespaces/ns-0/pods?watch=1&resourceVersion=0`, { signal: ac.signal });
console.log(res.status);
const reader = res.body!.getReader();
const t = setTimeout(()=>cluster.create(pods, { metadata: { namespace: "ns-0", name: "x" } }), 300);
for (let i = 0; i < 2; i++) { const r = await reader.read(); console.log("chunk", r.done, r.value?.length); }
ac.abort();
await server.close(); cluster.close();
