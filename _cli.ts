import { KubeClient, pods } from "@kinformer/kinformer/client";
import { createInformer } from "@kinformer/kinformer/cache";
const url = process.argv[2]!;
const client = new KubeClient({ server: url });
const informer = createInformer(client, { resource: pods });
const t0 = Date.now();
setTimeout(async () => {
  await client.create(pods, { metadata: { namespace: "default", name: "p-" + Date.now() }, spec: { containers: [{ name: "a", image: "b" }] } }).catch(e => console.log("create err", e.message));
}, 1500);
setTimeout(() => informer.stop(), 4000);
informer.start(); for await (const ev of informer.events()) console.log(Date.now()-t0, ev.type, (ev as any).object?.metadata?.name ?? (ev as any).error?.message ?? "");
