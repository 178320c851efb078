/**
 * The built-in resources: ready-made descriptors for the API server's common resources. Their
 * object type is untyped (a `kind`, no type): `@kinformer/kinformer/kubernetes-types` has the
 * same descriptors typed with `kubernetes-types`.
 * @module
 */
/**
 * A descriptor that names a `kind` but no object type: the built-in descriptors of
 * `@kinformer/kinformer` (`pods` is an `UntypedResourceDescriptor<"Pod">`). It fits any object
 * type whose `kind` is `K` or any string, so `createInformer<V1Pod>(client, { resource: pods })`
 * compiles with `@kubernetes/client-node`'s `V1Pod`, while a `kubernetes-types` `Deployment`
 * for `pods` does not. Without a type argument, informers and the client give
 * {@linkcode KubeObject}.
 *
 * @example
 * ```ts
 * import { pods, type UntypedResourceDescriptor } from "@kinformer/kinformer/client";
 * import assert from "node:assert/strict";
 * const p: UntypedResourceDescriptor<"Pod"> = pods;
 * assert.equal(p.kind, "Pod");
 * ```
 */
export interface UntypedResourceDescriptor<K extends string = string> {
  /** API group, e.g. `apps`. Absent or `""` for the core group (served under `/api`). */
  readonly group?: string;
  /** API version, e.g. `v1`. */
  readonly version: string;
  /** Plural resource name as it appears in URLs, e.g. `deployments`. */
  readonly resource: string;
  /** Kind of one object, e.g. `Deployment`. */
  readonly kind: K;
  /** Whether objects belong to a namespace (`false` for cluster-scoped resources). */
  readonly namespaced: boolean;
}

function core<K extends string>(
  resource: string,
  kind: K,
  namespaced: boolean,
): UntypedResourceDescriptor<K> {
  return Object.freeze({ version: "v1", resource, kind, namespaced });
}

function grouped<K extends string>(
  group: string,
  resource: string,
  kind: K,
  namespaced: boolean,
): UntypedResourceDescriptor<K> {
  return Object.freeze({ group, version: "v1", resource, kind, namespaced });
}

/**
 * Core `v1` Pods (namespaced).
 *
 * @example
 * ```ts
 * import { pods, resourcePath } from "@kinformer/kinformer/client";
 * import assert from "node:assert/strict";
 * assert.equal(
 *   resourcePath(pods, { namespace: "default", name: "web-1" }),
 *   "/api/v1/namespaces/default/pods/web-1",
 * );
 * ```
 */
export const pods: UntypedResourceDescriptor<"Pod"> = core("pods", "Pod", true);

/**
 * Core `v1` ConfigMaps (namespaced).
 *
 * @example
 * ```ts
 * import { configmaps, resourcePath } from "@kinformer/kinformer/client";
 * import assert from "node:assert/strict";
 * assert.equal(resourcePath(configmaps), "/api/v1/configmaps");
 * ```
 */
export const configmaps: UntypedResourceDescriptor<"ConfigMap"> = core(
  "configmaps",
  "ConfigMap",
  true,
);

/**
 * Core `v1` Secrets (namespaced).
 *
 * @example
 * ```ts
 * import { secrets, resourcePath } from "@kinformer/kinformer/client";
 * import assert from "node:assert/strict";
 * assert.equal(
 *   resourcePath(secrets, { namespace: "kube-system" }),
 *   "/api/v1/namespaces/kube-system/secrets",
 * );
 * ```
 */
export const secrets: UntypedResourceDescriptor<"Secret"> = core("secrets", "Secret", true);

/**
 * Core `v1` Services (namespaced).
 *
 * @example
 * ```ts
 * import { services, resourcePath } from "@kinformer/kinformer/client";
 * import assert from "node:assert/strict";
 * assert.equal(
 *   resourcePath(services, { namespace: "default" }),
 *   "/api/v1/namespaces/default/services",
 * );
 * ```
 */
export const services: UntypedResourceDescriptor<"Service"> = core("services", "Service", true);

/**
 * Core `v1` Endpoints (namespaced).
 *
 * @example
 * ```ts
 * import { endpoints, resourcePath } from "@kinformer/kinformer/client";
 * import assert from "node:assert/strict";
 * assert.equal(
 *   resourcePath(endpoints, { namespace: "default", name: "kubernetes" }),
 *   "/api/v1/namespaces/default/endpoints/kubernetes",
 * );
 * ```
 */
export const endpoints: UntypedResourceDescriptor<"Endpoints"> = core(
  "endpoints",
  "Endpoints",
  true,
);

/**
 * Core `v1` Events (namespaced; the older core API, not `events.k8s.io`). Named `coreEvents`
 * so it is not mistaken for an informer's `events()` stream.
 *
 * @example
 * ```ts
 * import { coreEvents, resourcePath } from "@kinformer/kinformer/client";
 * import assert from "node:assert/strict";
 * assert.equal(resourcePath(coreEvents), "/api/v1/events");
 * ```
 */
export const coreEvents: UntypedResourceDescriptor<"Event"> = core("events", "Event", true);

/**
 * `events.k8s.io/v1` Events (namespaced): the newer Events API, the same stored Events as
 * {@linkcode coreEvents} in another shape. What the controller toolkit's `EventRecorder`
 * writes, and what `kubectl events` and `kubectl get events` show.
 *
 * @example
 * ```ts
 * import { eventsV1, resourcePath } from "@kinformer/kinformer/client";
 * import assert from "node:assert/strict";
 * assert.equal(
 *   resourcePath(eventsV1, { namespace: "default" }),
 *   "/apis/events.k8s.io/v1/namespaces/default/events",
 * );
 * ```
 */
export const eventsV1: UntypedResourceDescriptor<"Event"> = grouped(
  "events.k8s.io",
  "events",
  "Event",
  true,
);

/**
 * Core `v1` ServiceAccounts (namespaced).
 *
 * @example
 * ```ts
 * import { serviceaccounts, resourcePath } from "@kinformer/kinformer/client";
 * import assert from "node:assert/strict";
 * assert.equal(
 *   resourcePath(serviceaccounts, { namespace: "default", name: "default" }),
 *   "/api/v1/namespaces/default/serviceaccounts/default",
 * );
 * ```
 */
export const serviceaccounts: UntypedResourceDescriptor<"ServiceAccount"> = core(
  "serviceaccounts",
  "ServiceAccount",
  true,
);

/**
 * Core `v1` Namespaces (cluster-scoped).
 *
 * @example
 * ```ts
 * import { namespaces, resourcePath } from "@kinformer/kinformer/client";
 * import assert from "node:assert/strict";
 * assert.equal(resourcePath(namespaces, { name: "default" }), "/api/v1/namespaces/default");
 * ```
 */
export const namespaces: UntypedResourceDescriptor<"Namespace"> = core(
  "namespaces",
  "Namespace",
  false,
);

/**
 * Core `v1` Nodes (cluster-scoped).
 *
 * @example
 * ```ts
 * import { nodes, resourcePath } from "@kinformer/kinformer/client";
 * import assert from "node:assert/strict";
 * assert.equal(
 *   resourcePath(nodes, { name: "node-1", subresource: "status" }),
 *   "/api/v1/nodes/node-1/status",
 * );
 * ```
 */
export const nodes: UntypedResourceDescriptor<"Node"> = core("nodes", "Node", false);

/**
 * Core `v1` PersistentVolumes (cluster-scoped).
 *
 * @example
 * ```ts
 * import { persistentvolumes, resourcePath } from "@kinformer/kinformer/client";
 * import assert from "node:assert/strict";
 * assert.equal(resourcePath(persistentvolumes), "/api/v1/persistentvolumes");
 * ```
 */
export const persistentvolumes: UntypedResourceDescriptor<"PersistentVolume"> = core(
  "persistentvolumes",
  "PersistentVolume",
  false,
);

/**
 * Core `v1` PersistentVolumeClaims (namespaced).
 *
 * @example
 * ```ts
 * import { persistentvolumeclaims, resourcePath } from "@kinformer/kinformer/client";
 * import assert from "node:assert/strict";
 * assert.equal(
 *   resourcePath(persistentvolumeclaims, { namespace: "default" }),
 *   "/api/v1/namespaces/default/persistentvolumeclaims",
 * );
 * ```
 */
export const persistentvolumeclaims: UntypedResourceDescriptor<"PersistentVolumeClaim"> = core(
  "persistentvolumeclaims",
  "PersistentVolumeClaim",
  true,
);

/**
 * `apps/v1` Deployments (namespaced).
 *
 * @example
 * ```ts
 * import { deployments, resourcePath } from "@kinformer/kinformer/client";
 * import assert from "node:assert/strict";
 * assert.equal(
 *   resourcePath(deployments, { namespace: "default", name: "web", subresource: "scale" }),
 *   "/apis/apps/v1/namespaces/default/deployments/web/scale",
 * );
 * ```
 */
export const deployments: UntypedResourceDescriptor<"Deployment"> = grouped(
  "apps",
  "deployments",
  "Deployment",
  true,
);

/**
 * `apps/v1` StatefulSets (namespaced).
 *
 * @example
 * ```ts
 * import { statefulsets, resourcePath } from "@kinformer/kinformer/client";
 * import assert from "node:assert/strict";
 * assert.equal(
 *   resourcePath(statefulsets, { namespace: "default" }),
 *   "/apis/apps/v1/namespaces/default/statefulsets",
 * );
 * ```
 */
export const statefulsets: UntypedResourceDescriptor<"StatefulSet"> = grouped(
  "apps",
  "statefulsets",
  "StatefulSet",
  true,
);

/**
 * `apps/v1` DaemonSets (namespaced).
 *
 * @example
 * ```ts
 * import { daemonsets, resourcePath } from "@kinformer/kinformer/client";
 * import assert from "node:assert/strict";
 * assert.equal(
 *   resourcePath(daemonsets, { namespace: "kube-system" }),
 *   "/apis/apps/v1/namespaces/kube-system/daemonsets",
 * );
 * ```
 */
export const daemonsets: UntypedResourceDescriptor<"DaemonSet"> = grouped(
  "apps",
  "daemonsets",
  "DaemonSet",
  true,
);

/**
 * `apps/v1` ReplicaSets (namespaced).
 *
 * @example
 * ```ts
 * import { replicasets, resourcePath } from "@kinformer/kinformer/client";
 * import assert from "node:assert/strict";
 * assert.equal(resourcePath(replicasets), "/apis/apps/v1/replicasets");
 * ```
 */
export const replicasets: UntypedResourceDescriptor<"ReplicaSet"> = grouped(
  "apps",
  "replicasets",
  "ReplicaSet",
  true,
);

/**
 * `batch/v1` Jobs (namespaced).
 *
 * @example
 * ```ts
 * import { jobs, resourcePath } from "@kinformer/kinformer/client";
 * import assert from "node:assert/strict";
 * assert.equal(
 *   resourcePath(jobs, { namespace: "default" }),
 *   "/apis/batch/v1/namespaces/default/jobs",
 * );
 * ```
 */
export const jobs: UntypedResourceDescriptor<"Job"> = grouped("batch", "jobs", "Job", true);

/**
 * `batch/v1` CronJobs (namespaced).
 *
 * @example
 * ```ts
 * import { cronjobs, resourcePath } from "@kinformer/kinformer/client";
 * import assert from "node:assert/strict";
 * assert.equal(
 *   resourcePath(cronjobs, { namespace: "default" }),
 *   "/apis/batch/v1/namespaces/default/cronjobs",
 * );
 * ```
 */
export const cronjobs: UntypedResourceDescriptor<"CronJob"> = grouped(
  "batch",
  "cronjobs",
  "CronJob",
  true,
);

/**
 * `networking.k8s.io/v1` Ingresses (namespaced).
 *
 * @example
 * ```ts
 * import { ingresses, resourcePath } from "@kinformer/kinformer/client";
 * import assert from "node:assert/strict";
 * assert.equal(
 *   resourcePath(ingresses, { namespace: "default" }),
 *   "/apis/networking.k8s.io/v1/namespaces/default/ingresses",
 * );
 * ```
 */
export const ingresses: UntypedResourceDescriptor<"Ingress"> = grouped(
  "networking.k8s.io",
  "ingresses",
  "Ingress",
  true,
);

/**
 * `coordination.k8s.io/v1` Leases (namespaced), as used for leader election.
 *
 * @example
 * ```ts
 * import { leases, resourcePath } from "@kinformer/kinformer/client";
 * import assert from "node:assert/strict";
 * assert.equal(
 *   resourcePath(leases, { namespace: "kube-system", name: "my-controller" }),
 *   "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/my-controller",
 * );
 * ```
 */
export const leases: UntypedResourceDescriptor<"Lease"> = grouped(
  "coordination.k8s.io",
  "leases",
  "Lease",
  true,
);

/**
 * `apiextensions.k8s.io/v1` CustomResourceDefinitions (cluster-scoped).
 *
 * @example
 * ```ts
 * import { customresourcedefinitions, resourcePath } from "@kinformer/kinformer/client";
 * import assert from "node:assert/strict";
 * assert.equal(
 *   resourcePath(customresourcedefinitions),
 *   "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
 * );
 * ```
 */
export const customresourcedefinitions: UntypedResourceDescriptor<"CustomResourceDefinition"> =
  grouped(
    "apiextensions.k8s.io",
    "customresourcedefinitions",
    "CustomResourceDefinition",
    false,
  );

/** Checks the fields `resourcePath` and `resourceKey` interpolate into a path. */
