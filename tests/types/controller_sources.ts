// Compile-time tests (type-checked by `deno check`, never run): runController's owns() and
// watches() sources keep each informer's object type for their mapping, and update predicates
// take the controller's object type.
import type { Deployment } from "kubernetes-types/apps/v1.js";
import type { ConfigMap, Secret } from "kubernetes-types/core/v1.js";
import { createInformer, KubeClient } from "../../mod.ts";
import {
  generationChanged,
  labelsChanged,
  owns,
  runController,
  type UpdatePredicate,
  watches,
} from "../../src/controller/mod.ts";
import { configmaps, deployments, secrets } from "../../src/kubernetes_types/mod.ts";

declare const client: KubeClient;
declare const signal: AbortSignal;

const deploymentInformer = createInformer(client, { resource: deployments });
const configMapInformer = createInformer(client, { resource: configmaps });
const secretInformer = createInformer(client, { resource: secrets });

const replicasChanged: UpdatePredicate<Deployment> = (a, b) =>
  a.spec?.replicas !== b.spec?.replicas;

await runController({
  informers: [deploymentInformer],
  signal,
  updatePredicates: [generationChanged, labelsChanged, replicasChanged],
  sources: [
    owns(configMapInformer, deployments, {
      updatePredicates: [(a: ConfigMap, b: ConfigMap) => a.data?.mode !== b.data?.mode],
    }),
    // secret: Secret, inferred from the informer
    watches(secretInformer, (secret) => secret.metadata?.labels?.deployment),
  ],
  reconcile: (key) => void key,
});

// @ts-expect-error the map of a Secret informer takes Secrets, not Deployments
watches(secretInformer, (d: Deployment) => d.spec?.template.metadata?.name);
const numbers = {
  addEventHandler: (_h: { onAdd?(o: number, initial: boolean): void }) => ({
    hasSynced: () => true,
    remove: () => {},
  }),
};
// @ts-expect-error owns() takes an informer of Kubernetes objects, not of numbers
owns(numbers, deployments);
await runController({
  // @ts-expect-error the predicate (below) takes Secrets: an informer of Deployments does not fit
  informers: [deploymentInformer],
  signal,
  updatePredicates: [(a: Secret, b: Secret) => a.type !== b.type],
  reconcile: () => {},
});
export const sources = [watches(secretInformer, (s: Secret) => s.metadata?.name)];
