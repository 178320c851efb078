/**
 * Resource descriptors (group, version, plural, kind, scope, and the type of their objects) and
 * the URL paths built from them.
 * @module
 */

import { isPathSegmentName } from "../util/dns_names.ts";
import type { KubeObject, KubeObjectLike } from "./types.ts";
import { describeValue } from "../util/values.ts";

// The built-in descriptors, for the modules that take every descriptor from here (the client's
// mod.ts lists them by name for the public surface).
export * from "./builtin_resources.ts";

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

function checkDescriptor(resource: AnyResourceDescriptor): void {
  if (typeof resource !== "object" || resource === null) {
    throw new TypeError(`resource must be a ResourceDescriptor, got ${String(resource)}`);
  }
  if (typeof resource.version !== "string" || resource.version === "") {
    throw new TypeError(
      `resource.version must be a non-empty string, got ${describeValue(resource.version)}`,
    );
  }
  if (typeof resource.resource !== "string" || resource.resource === "") {
    throw new TypeError(
      `resource.resource must be a non-empty string, got ${describeValue(resource.resource)}`,
    );
  }
  if (resource.group !== undefined && typeof resource.group !== "string") {
    throw new TypeError(`resource.group must be a string, got ${describeValue(resource.group)}`);
  }
}

/**
 * Percent-encodes one path segment. `.` and `..` are refused because URL parsing would
 * silently turn them into "this folder" and "parent folder"; a `/` or `%`, which no
 * Kubernetes name holds, too, as client-go refuses them (`IsValidPathSegmentName`): a proxy
 * that decodes `%2F` before routing could otherwise read `a/../../b` as a climb.
 */
function segment(option: string, value: string): string {
  if (typeof value !== "string") {
    throw new TypeError(`${option} must be a string, got ${describeValue(value)}`);
  }
  if (!isPathSegmentName(value)) {
    throw new TypeError(
      value === "." || value === ".."
        ? `${option} must not be ${describeValue(value)}`
        : `${option} must not contain "/" or "%", got ${describeValue(value)}`,
    );
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
 * without `namespace`, or when a segment is `.` or `..` or holds a `/` or `%`.
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
        }, got ${describeValue(namespace)}`,
      );
    }
    path += `/namespaces/${segment("options.namespace", namespace)}`;
  }
  path += `/${segment("resource.resource", resource.resource)}`;
  if (name === "") {
    if (subresource !== "") {
      throw new TypeError(
        `options.name is required with options.subresource ${describeValue(subresource)}`,
      );
    }
    return path;
  }
  if (resource.namespaced && namespace === "") {
    throw new TypeError(
      `options.namespace is required to address ${resourceKey(resource)} ${
        describeValue(name)
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
 */
export function resourceKey(resource: AnyResourceDescriptor): string {
  checkDescriptor(resource);
  return resource.group
    ? `${resource.group}/${resource.version}/${resource.resource}`
    : `${resource.version}/${resource.resource}`;
}
