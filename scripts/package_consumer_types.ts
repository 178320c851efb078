// Copied into the scratch project of scripts/package_check.mjs and type-checked there by tsc
// (nodenext, strict, skipLibCheck off) once `kubernetes-types` is installed next to the package:
// the published declarations of @kinformer/kinformer/kubernetes-types resolve kubernetes-types'
// types, and the object type flows from the descriptor. (Without kubernetes-types installed, the
// same import is checked to fail with an error that names the missing package.)
import { createInformer, KubeClient, type SharedInformer } from "@kinformer/kinformer";
import { deployments, pods } from "@kinformer/kinformer/kubernetes-types";
import type { Deployment } from "kubernetes-types/apps/v1.js";
import type { Pod } from "kubernetes-types/core/v1.js";

const client = new KubeClient({ server: "http://127.0.0.1:8001" });
export const informer: SharedInformer<Deployment> = createInformer(client, {
  resource: deployments,
});
export const replicas: number[] = informer.store.list().map((d) => d.spec?.replicas ?? 1);
// @ts-expect-error a Pod type for the deployments descriptor
createInformer<Pod>(client, { resource: deployments });
export const podNames: (string | undefined)[] = createInformer(client, { resource: pods }).store
  .list().map((p: Pod) => p.metadata?.name);
