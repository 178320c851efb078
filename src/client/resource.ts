/**
 * Resource descriptors (group, version, plural, kind, scope, and the type of their objects) and
 * the URL paths built from them.
 * @module
 */

import type { KubeObject, KubeObjectLike } from "./types.ts";

/**
 * The `kind` an object type declares: `"Pod"` for `kubernetes-types`' `Pod` (whose `kind` is
 * the literal `"Pod"`), `string` for types whose `kind` is any string (`@kubernetes/client-node`'s
 * models, {@linkcode KubeObject}). A typed descriptor's `kind` must be it.
 */
export type ObjectKind<T> = [T] extends [{ readonly kind?: infer K }]
  ? [Exclude<K, undefined>] extends [string]
    ? string extends Exclude<K, undefined> ? string : Exclude<K, undefined>
  : string
  : string;

/**
 * What the client needs to know about a resource type to build its URLs: the API group and
 * version, the plural resource name used in paths, the kind (for `PodList` and friends) and
 * whether objects live in a namespace.
 *
 * The type parameter `T` is the type of the resource's objects. It is carried by the type only
 * (nothing is stored), so `createInformer`, the factory, listers, handlers, `runController` and
 * every `KubeClient` method infer their object type from the descriptor. Declare one with
 * {@linkcode defineResource}; typed descriptors of the built-in resources come with
 * `@kinformer/kinformer/kubernetes-types`. A descriptor written without a type (an object
 * literal, or the built-in descriptors of `@kinformer/kinformer`, typed
 * {@linkcode UntypedResourceDescriptor}) fits any object type of the same `kind`, and gives
 * {@linkcode KubeObject} when nothing else names one.
 *
 * @example
 * ```ts
 * import { type ResourceDescriptor, resourcePath } from "@kinformer/kinformer/client";
 * import assert from "node:assert/strict";
 * const widgets: ResourceDescriptor = {
 *   group: "example.com",
 *   version: "v1alpha1",
 *   resource: "widgets",
 *   kind: "Widget",
 *   namespaced: true,
 * };
 * assert.equal(
 *   resourcePath(widgets, { namespace: "default" }),
 *   "/apis/example.com/v1alpha1/namespaces/default/widgets",
 * );
 * ```
 */
export interface ResourceDescriptor<T extends KubeObjectLike = KubeObject> {
  /** API group, e.g. `apps`. Absent or `""` for the core group (served under `/api`). */
  readonly group?: string;
  /** API version, e.g. `v1`. */
  readonly version: string;
  /** Plural resource name as it appears in URLs, e.g. `deployments`. */
  readonly resource: string;
  /** Kind of one object, e.g. `Deployment`; the list kind is this plus `List`. */
  readonly kind: ObjectKind<T>;
  /** Whether objects belong to a namespace (`false` for cluster-scoped resources). */
  readonly namespaced: boolean;
  /**
   * The object type, for the type checker only: never set. (A `~` name, as Standard Schema's
   * `~standard`, sorts it last in completions and marks it as not for use.)
   */
  readonly "~objectType"?: T;
}

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

/**
 * Any descriptor, typed or not: what functions that only build paths accept.
 *
 * @example
 * ```ts
 * import { type AnyResourceDescriptor, pods } from "@kinformer/kinformer/client";
 * import assert from "node:assert/strict";
 * const all: AnyResourceDescriptor[] = [pods];
 * assert.equal(all.length, 1);
 * ```
 */
export type AnyResourceDescriptor = ResourceDescriptor<KubeObjectLike>;

/**
 * The object type a descriptor carries: `ObjectOf<typeof widgets>`. {@linkcode KubeObject} for a
 * descriptor that carries none.
 *
 * @example
 * ```ts
 * import { type CustomObject, defineResource, type ObjectOf } from "@kinformer/kinformer/client";
 * import assert from "node:assert/strict";
 * const widgets = defineResource<CustomObject<{ size: number }>>({
 *   group: "example.com", version: "v1", resource: "widgets", kind: "Widget", namespaced: true,
 * });
 * type Widget = ObjectOf<typeof widgets>;
 * const w: Widget = { metadata: { name: "w1" }, spec: { size: 1 } };
 * assert.equal(w.spec?.size, 1);
 * ```
 */
export type ObjectOf<D> = D extends { readonly "~objectType"?: infer T }
  ? unknown extends T ? KubeObject : T
  : KubeObject;

/** Options of {@linkcode resourcePath}. */
export interface ResourcePathOptions {
  /**
   * Namespace of the objects. Only for namespaced resources; absent or `""` addresses every
   * namespace (a cluster-wide list or watch).
   * @default undefined
   */
  namespace?: string | undefined;
  /**
   * Name of one object. Absent or `""` addresses the collection.
   * @default undefined
   */
  name?: string | undefined;
  /**
   * Subresource of the named object, e.g. `status` or `scale`. Needs `name`.
   * @default undefined
   */
  subresource?: string | undefined;
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
function checkDescriptor(resource: AnyResourceDescriptor): void {
  if (typeof resource !== "object" || resource === null) {
    throw new TypeError(`resource must be a ResourceDescriptor, got ${String(resource)}`);
  }
  if (typeof resource.version !== "string" || resource.version === "") {
    throw new TypeError(
      `resource.version must be a non-empty string, got ${JSON.stringify(resource.version)}`,
    );
  }
  if (typeof resource.resource !== "string" || resource.resource === "") {
    throw new TypeError(
      `resource.resource must be a non-empty string, got ${JSON.stringify(resource.resource)}`,
    );
  }
  if (resource.group !== undefined && typeof resource.group !== "string") {
    throw new TypeError(`resource.group must be a string, got ${JSON.stringify(resource.group)}`);
  }
}

/**
 * Percent-encodes one path segment. `.` and `..` are refused because URL parsing would
 * silently turn them into "this folder" and "parent folder".
 */
function segment(option: string, value: string): string {
  if (typeof value !== "string") {
    throw new TypeError(`${option} must be a string, got ${JSON.stringify(value)}`);
  }
  if (value === "." || value === "..") {
    throw new TypeError(`${option} must not be ${JSON.stringify(value)}`);
  }
  return encodeURIComponent(value);
}

/**
 * Builds the URL path of a collection, an object or an object's subresource:
 * `/api/v1/...` for the core group, `/apis/{group}/{version}/...` for named groups. The
 * namespace segment is added only for namespaced resources with a non-empty `namespace`;
 * without one the path addresses every namespace. Every segment is percent-encoded.
 *
 * @throws {TypeError} when `namespace` is given for a cluster-scoped resource, when
 * `subresource` is given without `name`, when `name` is given for a namespaced resource
 * without `namespace`, or when a segment is `.` or `..`.
 *
 * @example
 * ```ts
 * import { deployments, nodes, pods, resourcePath } from "@kinformer/kinformer/client";
 * import assert from "node:assert/strict";
 * assert.equal(resourcePath(pods), "/api/v1/pods");
 * assert.equal(
 *   resourcePath(pods, { namespace: "default", name: "web-1", subresource: "log" }),
 *   "/api/v1/namespaces/default/pods/web-1/log",
 * );
 * assert.equal(
 *   resourcePath(deployments, { namespace: "prod" }),
 *   "/apis/apps/v1/namespaces/prod/deployments",
 * );
 * assert.equal(resourcePath(nodes, { name: "node-1" }), "/api/v1/nodes/node-1");
 * ```
 */
export function resourcePath(
  resource: AnyResourceDescriptor,
  options?: ResourcePathOptions,
): string {
  checkDescriptor(resource);
  const namespace = options?.namespace ?? "";
  const name = options?.name ?? "";
  const subresource = options?.subresource ?? "";
  let path = resource.group
    ? `/apis/${segment("resource.group", resource.group)}/${
      segment("resource.version", resource.version)
    }`
    : `/api/${segment("resource.version", resource.version)}`;
  if (namespace !== "") {
    if (!resource.namespaced) {
      throw new TypeError(
        `options.namespace must not be set for the cluster-scoped resource ${
          resourceKey(resource)
        }, got ${JSON.stringify(namespace)}`,
      );
    }
    path += `/namespaces/${segment("options.namespace", namespace)}`;
  }
  path += `/${segment("resource.resource", resource.resource)}`;
  if (name === "") {
    if (subresource !== "") {
      throw new TypeError(
        `options.name is required with options.subresource ${JSON.stringify(subresource)}`,
      );
    }
    return path;
  }
  if (resource.namespaced && namespace === "") {
    throw new TypeError(
      `options.namespace is required to address ${resourceKey(resource)} ${
        JSON.stringify(name)
      }: the resource is namespaced`,
    );
  }
  path += `/${segment("options.name", name)}`;
  if (subresource !== "") path += `/${segment("options.subresource", subresource)}`;
  return path;
}

/**
 * A stable identity string for a resource type: `{group}/{version}/{resource}`, or
 * `{version}/{resource}` for the core group. Useful as a map key (e.g. one shared informer
 * per resource).
 *
 * @example
 * ```ts
 * import { deployments, pods, resourceKey } from "@kinformer/kinformer/client";
 * import assert from "node:assert/strict";
 * assert.equal(resourceKey(deployments), "apps/v1/deployments");
 * assert.equal(resourceKey(pods), "v1/pods");
 * ```
 */
export function resourceKey(resource: AnyResourceDescriptor): string {
  checkDescriptor(resource);
  return resource.group
    ? `${resource.group}/${resource.version}/${resource.resource}`
    : `${resource.version}/${resource.resource}`;
}
