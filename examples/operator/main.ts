/**
 * The StaticSite operator in a pod (Deno): in-cluster config, this pod's name as its identity,
 * its namespace for the Lease and the registry, `/healthz`, `/readyz` and `/metrics` on port
 * 8080, a graceful stop on SIGTERM. See README.md.
 *
 * ```sh
 * deno run --allow-net --allow-read --allow-env --allow-sys=hostname examples/operator/main.ts
 * ```
 *
 * In a pod it uses the service account (in-cluster config); elsewhere the kubeconfig kubectl
 * uses (`KUBECONFIG`, else `~/.kube/config`): `loadFromDefault` picks.
 * @module
 */
import { KubeClient } from "@kinformer/kinformer/client";
import { loadFromDefault } from "@kinformer/kinformer/config/deno";
import { runManager } from "@kinformer/kinformer/controller/deno";
import { createOperator } from "./operator.ts";

declare const Deno: { env: { get(name: string): string | undefined }; hostname(): string };

const config = await loadFromDefault();
const identity = Deno.env.get("POD_NAME") ?? `static-site-operator-${Deno.hostname()}`;
const namespace = Deno.env.get("POD_NAMESPACE") ?? config.namespace ?? "default";
const { manager } = createOperator({ client: new KubeClient(config), namespace, identity });
const port = Number(Deno.env.get("PORT") ?? 8080);
console.log(`static-site-operator ${identity} in ${namespace}: serving :${port}`);
await runManager(manager, { port });
console.log("static-site-operator stopped");
