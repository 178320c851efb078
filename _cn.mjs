import * as k8s from "@kubernetes/client-node";
const kc = new k8s.KubeConfig(); kc.loadFromFile(process.argv[2]);
const w = new k8s.Watch(kc);
const req = await w.watch("/api/v1/namespaces/default/pods", {}, (t, o) => console.log("event", t, o.metadata.name), (e) => console.log("done", e?.message ?? e));
setTimeout(() => { req.abort(); }, 3000);
