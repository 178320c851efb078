/**
 * The built-in resource descriptors typed with the object types of
 * [`kubernetes-types`](https://www.npmjs.com/package/kubernetes-types): `pods` is a
 * `ResourceDescriptor<Pod>`, so informers, listers, handlers, `runController` and the client
 * know their objects are Pods. They are the very same objects as the untyped descriptors of
 * `@kinformer/kinformer` (one shared informer per resource either way); only their type differs.
 *
 * `kubernetes-types` is a types-only package (no JavaScript) and an optional peer dependency:
 * install it (`npm install --save-dev kubernetes-types`) to use this module. Nothing else in
 * kinformer needs it, and this module has no run-time dependency: its imports of
 * `kubernetes-types` are `import type`, erased from the JavaScript.
 *
 * @example
 * ```ts
 * import { createInformer, KubeClient } from "@kinformer/kinformer";
 * import { deployments } from "@kinformer/kinformer/kubernetes-types";
 * import { SimulatedCluster } from "@kinformer/kinformer/testing";
 * import assert from "node:assert/strict";
 *
 * const cluster = new SimulatedCluster();
 * const client = new KubeClient({ server: "http://sim", fetch: cluster.fetch });
 * const informer = createInformer(client, { resource: deployments }); // SharedInformer<Deployment>
 * const replicas: number[] = informer.store.list().map((d) => d.spec?.replicas ?? 1);
 * assert.deepEqual(replicas, []);
 * cluster.close();
 * ```
 * @module
 */
import type {
  ConfigMap,
  Endpoints,
  Event as CoreEvent,
  Namespace,
  Node,
  PersistentVolume,
  PersistentVolumeClaim,
  Pod,
  Secret,
  Service,
  ServiceAccount,
} from "kubernetes-types/core/v1.js";
import type { DaemonSet, Deployment, ReplicaSet, StatefulSet } from "kubernetes-types/apps/v1.js";
import type { CronJob, Job } from "kubernetes-types/batch/v1.js";
import type { Ingress } from "kubernetes-types/networking/v1.js";
import type { Lease } from "kubernetes-types/coordination/v1.js";
import type { CustomResourceDefinition } from "kubernetes-types/apiextensions/v1.js";
import type { ResourceDescriptor } from "../client/resource.ts";
import * as untyped from "../client/resource.ts";

/**
 * `v1` Pod objects, typed `Pod` from `kubernetes-types/core/v1`.
 *
 * @example
 * ```ts
 * import { pods } from "@kinformer/kinformer/kubernetes-types";
 * import assert from "node:assert/strict";
 * assert.equal(pods.kind, "Pod");
 * ```
 */
export const pods: ResourceDescriptor<Pod> = untyped.pods;

/**
 * `v1` ConfigMap objects, typed `ConfigMap` from `kubernetes-types/core/v1`.
 *
 * @example
 * ```ts
 * import { configmaps } from "@kinformer/kinformer/kubernetes-types";
 * import assert from "node:assert/strict";
 * assert.equal(configmaps.kind, "ConfigMap");
 * ```
 */
export const configmaps: ResourceDescriptor<ConfigMap> = untyped.configmaps;

/**
 * `v1` Secret objects, typed `Secret` from `kubernetes-types/core/v1`.
 *
 * @example
 * ```ts
 * import { secrets } from "@kinformer/kinformer/kubernetes-types";
 * import assert from "node:assert/strict";
 * assert.equal(secrets.kind, "Secret");
 * ```
 */
export const secrets: ResourceDescriptor<Secret> = untyped.secrets;

/**
 * `v1` Service objects, typed `Service` from `kubernetes-types/core/v1`.
 *
 * @example
 * ```ts
 * import { services } from "@kinformer/kinformer/kubernetes-types";
 * import assert from "node:assert/strict";
 * assert.equal(services.kind, "Service");
 * ```
 */
export const services: ResourceDescriptor<Service> = untyped.services;

/**
 * `v1` Endpoints objects, typed `Endpoints` from `kubernetes-types/core/v1`.
 *
 * @example
 * ```ts
 * import { endpoints } from "@kinformer/kinformer/kubernetes-types";
 * import assert from "node:assert/strict";
 * assert.equal(endpoints.kind, "Endpoints");
 * ```
 */
export const endpoints: ResourceDescriptor<Endpoints> = untyped.endpoints;

/**
 * `v1` Event objects, typed `Event` from `kubernetes-types/core/v1`.
 *
 * @example
 * ```ts
 * import { coreEvents } from "@kinformer/kinformer/kubernetes-types";
 * import assert from "node:assert/strict";
 * assert.equal(coreEvents.kind, "Event");
 * ```
 */
export const coreEvents: ResourceDescriptor<CoreEvent> = untyped.coreEvents;

/**
 * `v1` ServiceAccount objects, typed `ServiceAccount` from `kubernetes-types/core/v1`.
 *
 * @example
 * ```ts
 * import { serviceaccounts } from "@kinformer/kinformer/kubernetes-types";
 * import assert from "node:assert/strict";
 * assert.equal(serviceaccounts.kind, "ServiceAccount");
 * ```
 */
export const serviceaccounts: ResourceDescriptor<ServiceAccount> = untyped.serviceaccounts;

/**
 * `v1` Namespace objects, typed `Namespace` from `kubernetes-types/core/v1`.
 *
 * @example
 * ```ts
 * import { namespaces } from "@kinformer/kinformer/kubernetes-types";
 * import assert from "node:assert/strict";
 * assert.equal(namespaces.kind, "Namespace");
 * ```
 */
export const namespaces: ResourceDescriptor<Namespace> = untyped.namespaces;

/**
 * `v1` Node objects, typed `Node` from `kubernetes-types/core/v1`.
 *
 * @example
 * ```ts
 * import { nodes } from "@kinformer/kinformer/kubernetes-types";
 * import assert from "node:assert/strict";
 * assert.equal(nodes.kind, "Node");
 * ```
 */
export const nodes: ResourceDescriptor<Node> = untyped.nodes;

/**
 * `v1` PersistentVolume objects, typed `PersistentVolume` from `kubernetes-types/core/v1`.
 *
 * @example
 * ```ts
 * import { persistentvolumes } from "@kinformer/kinformer/kubernetes-types";
 * import assert from "node:assert/strict";
 * assert.equal(persistentvolumes.kind, "PersistentVolume");
 * ```
 */
export const persistentvolumes: ResourceDescriptor<PersistentVolume> = untyped.persistentvolumes;

/**
 * `v1` PersistentVolumeClaim objects, typed `PersistentVolumeClaim` from `kubernetes-types/core/v1`.
 *
 * @example
 * ```ts
 * import { persistentvolumeclaims } from "@kinformer/kinformer/kubernetes-types";
 * import assert from "node:assert/strict";
 * assert.equal(persistentvolumeclaims.kind, "PersistentVolumeClaim");
 * ```
 */
export const persistentvolumeclaims: ResourceDescriptor<PersistentVolumeClaim> =
  untyped.persistentvolumeclaims;

/**
 * `apps/v1` Deployment objects, typed `Deployment` from `kubernetes-types/apps/v1`.
 *
 * @example
 * ```ts
 * import { deployments } from "@kinformer/kinformer/kubernetes-types";
 * import assert from "node:assert/strict";
 * assert.equal(deployments.kind, "Deployment");
 * ```
 */
export const deployments: ResourceDescriptor<Deployment> = untyped.deployments;

/**
 * `apps/v1` StatefulSet objects, typed `StatefulSet` from `kubernetes-types/apps/v1`.
 *
 * @example
 * ```ts
 * import { statefulsets } from "@kinformer/kinformer/kubernetes-types";
 * import assert from "node:assert/strict";
 * assert.equal(statefulsets.kind, "StatefulSet");
 * ```
 */
export const statefulsets: ResourceDescriptor<StatefulSet> = untyped.statefulsets;

/**
 * `apps/v1` DaemonSet objects, typed `DaemonSet` from `kubernetes-types/apps/v1`.
 *
 * @example
 * ```ts
 * import { daemonsets } from "@kinformer/kinformer/kubernetes-types";
 * import assert from "node:assert/strict";
 * assert.equal(daemonsets.kind, "DaemonSet");
 * ```
 */
export const daemonsets: ResourceDescriptor<DaemonSet> = untyped.daemonsets;

/**
 * `apps/v1` ReplicaSet objects, typed `ReplicaSet` from `kubernetes-types/apps/v1`.
 *
 * @example
 * ```ts
 * import { replicasets } from "@kinformer/kinformer/kubernetes-types";
 * import assert from "node:assert/strict";
 * assert.equal(replicasets.kind, "ReplicaSet");
 * ```
 */
export const replicasets: ResourceDescriptor<ReplicaSet> = untyped.replicasets;

/**
 * `batch/v1` Job objects, typed `Job` from `kubernetes-types/batch/v1`.
 *
 * @example
 * ```ts
 * import { jobs } from "@kinformer/kinformer/kubernetes-types";
 * import assert from "node:assert/strict";
 * assert.equal(jobs.kind, "Job");
 * ```
 */
export const jobs: ResourceDescriptor<Job> = untyped.jobs;

/**
 * `batch/v1` CronJob objects, typed `CronJob` from `kubernetes-types/batch/v1`.
 *
 * @example
 * ```ts
 * import { cronjobs } from "@kinformer/kinformer/kubernetes-types";
 * import assert from "node:assert/strict";
 * assert.equal(cronjobs.kind, "CronJob");
 * ```
 */
export const cronjobs: ResourceDescriptor<CronJob> = untyped.cronjobs;

/**
 * `networking.k8s.io/v1` Ingress objects, typed `Ingress` from `kubernetes-types/networking/v1`.
 *
 * @example
 * ```ts
 * import { ingresses } from "@kinformer/kinformer/kubernetes-types";
 * import assert from "node:assert/strict";
 * assert.equal(ingresses.kind, "Ingress");
 * ```
 */
export const ingresses: ResourceDescriptor<Ingress> = untyped.ingresses;

/**
 * `coordination.k8s.io/v1` Lease objects, typed `Lease` from `kubernetes-types/coordination/v1`.
 *
 * @example
 * ```ts
 * import { leases } from "@kinformer/kinformer/kubernetes-types";
 * import assert from "node:assert/strict";
 * assert.equal(leases.kind, "Lease");
 * ```
 */
export const leases: ResourceDescriptor<Lease> = untyped.leases;

/**
 * `apiextensions.k8s.io/v1` CustomResourceDefinition objects, typed `CustomResourceDefinition` from `kubernetes-types/apiextensions/v1`.
 *
 * @example
 * ```ts
 * import { customresourcedefinitions } from "@kinformer/kinformer/kubernetes-types";
 * import assert from "node:assert/strict";
 * assert.equal(customresourcedefinitions.kind, "CustomResourceDefinition");
 * ```
 */
export const customresourcedefinitions: ResourceDescriptor<CustomResourceDefinition> =
  untyped.customresourcedefinitions;
