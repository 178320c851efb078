/**
 * The Kubernetes object shapes kinformer reads: only the fields the machinery needs are typed;
 * everything else passes through untouched.
 * @module
 */

/** Owner reference of an object (`metadata.ownerReferences[]`). */
export interface OwnerReference {
  /** API version of the owner. */
  apiVersion: string;
  /** Kind of the owner. */
  kind: string;
  /** Name of the owner. */
  name: string;
  /** UID of the owner. */
  uid: string;
  /** Whether the owner is the managing controller. */
  controller?: boolean;
  /** Whether the owner blocks deletion. */
  blockOwnerDeletion?: boolean;
}

/**
 * One entry of `metadata.managedFields`: the fields one manager owns, from one kind of
 * operation (`Apply` for server-side apply, `Update` for every other write).
 *
 * @example
 * ```ts
 * import type { ManagedFieldsEntry } from "@kinformer/kinformer/client";
 * import assert from "node:assert/strict";
 * const entry: ManagedFieldsEntry = {
 *   manager: "my-controller", operation: "Apply", apiVersion: "v1", time: "2026-01-01T00:00:00Z",
 *   fieldsType: "FieldsV1", fieldsV1: { "f:data": { "f:mode": {} } },
 * };
 * assert.equal(entry.manager, "my-controller");
 * ```
 */
export interface ManagedFieldsEntry {
  /** Name of the manager (a write's `fieldManager`). */
  manager?: string;
  /** `Apply` or `Update`. */
  operation?: string;
  /** API version of the fields. */
  apiVersion?: string;
  /** RFC 3339 time of the last change of this entry. */
  time?: string;
  /** Always `FieldsV1`. */
  fieldsType?: string;
  /** The owned fields as a trie of `f:<name>` keys (leaves are `{}`). */
  fieldsV1?: Record<string, unknown>;
  /** The subresource written (`status`, `scale`), absent for the object itself. */
  subresource?: string;
}

/**
 * Standard object metadata (`metadata`).
 *
 * @example
 * ```ts
 * import type { ObjectMeta } from "@kinformer/kinformer/client";
 * import assert from "node:assert/strict";
 * const meta: ObjectMeta = { name: "web-1", namespace: "default", labels: { app: "web" } };
 * assert.equal(meta.name, "web-1");
 * ```
 */
export interface ObjectMeta {
  /** Object name, unique within a namespace. */
  name?: string;
  /** Prefix the server uses to generate a name. */
  generateName?: string;
  /** Namespace; absent for cluster-scoped objects. */
  namespace?: string;
  /** Server-assigned unique id; changes when an object is deleted and re-created. */
  uid?: string;
  /** Opaque version string of this object. */
  resourceVersion?: string;
  /** Sequence number of spec changes. */
  generation?: number;
  /** RFC 3339 creation time. */
  creationTimestamp?: string;
  /** RFC 3339 time at which deletion was requested. */
  deletionTimestamp?: string;
  /** Labels. */
  labels?: Record<string, string>;
  /** Annotations. */
  annotations?: Record<string, string>;
  /** Owners of this object. */
  ownerReferences?: OwnerReference[];
  /** Finalizers. */
  finalizers?: string[];
  /** Which manager owns which fields (server-side apply); often stripped with a `transform`. */
  managedFields?: ManagedFieldsEntry[];
}

/**
 * The owner reference fields kinformer reads (`metadata.ownerReferences[]`), loose enough for
 * the types of `kubernetes-types` and `@kubernetes/client-node`.
 */
export interface OwnerReferenceLike {
  /** API version of the owner. */
  readonly apiVersion: string;
  /** Kind of the owner. */
  readonly kind: string;
  /** Name of the owner. */
  readonly name: string;
  /** UID of the owner. */
  readonly uid: string;
  /** Whether the owner is the managing controller. */
  readonly controller?: boolean | undefined;
}

/**
 * The metadata fields kinformer reads, loose enough for the types of `kubernetes-types` and
 * `@kubernetes/client-node` (which types timestamps as `Date`: they are not read here).
 */
export interface ObjectMetaLike {
  /** Object name. */
  readonly name?: string | undefined;
  /** Namespace; absent for cluster-scoped objects. */
  readonly namespace?: string | undefined;
  /** Server-assigned unique id. */
  readonly uid?: string | undefined;
  /** Opaque version string of this object. */
  readonly resourceVersion?: string | undefined;
  /** Sequence number of spec changes. */
  readonly generation?: number | undefined;
  /** Labels. */
  readonly labels?: { readonly [key: string]: string } | undefined;
  /** Annotations. */
  readonly annotations?: { readonly [key: string]: string } | undefined;
  /** Owners of this object. */
  readonly ownerReferences?: readonly OwnerReferenceLike[] | undefined;
}

/**
 * The least an object type must have for kinformer to cache and key it: what every
 * Kubernetes object type has. This is the constraint of kinformer's type parameters, so
 * `Pod` from `kubernetes-types`, `V1Pod` from `@kubernetes/client-node`, a
 * {@linkcode CustomObject} or your own interface all fit without a cast.
 *
 * @example
 * ```ts
 * import type { KubeObjectLike } from "@kinformer/kinformer/client";
 * import assert from "node:assert/strict";
 * interface Widget { apiVersion?: string; kind?: "Widget"; metadata?: { name?: string }; spec?: { size: number } }
 * const widget: Widget = { kind: "Widget", metadata: { name: "w1" }, spec: { size: 3 } };
 * const fits: KubeObjectLike = widget; // no cast, no index signature needed
 * assert.equal(fits.metadata?.name, "w1");
 * ```
 */
export interface KubeObjectLike {
  /** API group and version. */
  readonly apiVersion?: string | undefined;
  /** Kind. */
  readonly kind?: string | undefined;
  /** Object metadata (always present on objects the server sends). */
  readonly metadata?: ObjectMetaLike | undefined;
}

/**
 * A custom resource's object type from the types of its `spec` and `status`, with the
 * metadata kinformer knows; pair it with {@linkcode defineResource}.
 *
 * @example
 * ```ts
 * import { type CustomObject, defineResource } from "@kinformer/kinformer/client";
 * import assert from "node:assert/strict";
 * type Widget = CustomObject<{ size: number }, { ready?: boolean }>;
 * const widgets = defineResource<Widget>({
 *   group: "example.com", version: "v1", resource: "widgets", kind: "Widget", namespaced: true,
 * });
 * const w: Widget = { metadata: { name: "w1" }, spec: { size: 3 } };
 * assert.equal(widgets.kind, "Widget");
 * assert.equal(w.spec?.size, 3);
 * ```
 */
export interface CustomObject<Spec = unknown, Status = unknown> {
  /** API group and version, e.g. `example.com/v1`. Absent on items inside a list. */
  apiVersion?: string;
  /** Kind, e.g. `Widget`. Absent on items inside a list. */
  kind?: string;
  /** Object metadata. */
  metadata: ObjectMeta;
  /** Desired state. */
  spec?: Spec;
  /** Observed state (written through the `status` subresource when the CRD has one). */
  status?: Status;
}

/**
 * Any Kubernetes object: `apiVersion`, `kind`, `metadata`, plus whatever else it carries.
 * The object type of a descriptor that carries none.
 *
 * @example
 * ```ts
 * import type { KubeObject } from "@kinformer/kinformer/client";
 * import assert from "node:assert/strict";
 * const cm: KubeObject = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "a" }, data: {} };
 * assert.equal(cm.metadata.name, "a");
 * assert.deepEqual(cm.data, {}); // any other field is `unknown`: narrow it before use
 * ```
 */
export interface KubeObject {
  /** API group and version, e.g. `v1` or `apps/v1`. Absent on items inside a list. */
  apiVersion?: string;
  /** Kind, e.g. `Pod`. Absent on items inside a list. */
  kind?: string;
  /** Object metadata. */
  metadata: ObjectMeta;
  /** Every other field (`spec`, `status`, `data`, ...). */
  [field: string]: unknown;
}

/**
 * The `autoscaling/v1` `Scale` object of a resource's `scale` subresource (`spec.replicas`
 * maps to the object's own, e.g. a Deployment's `spec.replicas`).
 *
 * @example
 * ```ts
 * import type { Scale } from "@kinformer/kinformer/client";
 * import assert from "node:assert/strict";
 * const scale: Scale = { metadata: { name: "web", namespace: "default" }, spec: { replicas: 3 } };
 * assert.equal(scale.spec?.replicas, 3);
 * ```
 */
export interface Scale {
  /** `autoscaling/v1`. */
  apiVersion?: string;
  /** `Scale`. */
  kind?: string;
  /** The scaled object's metadata (name, namespace, uid, resourceVersion). */
  metadata: ObjectMeta;
  /** Desired replicas. */
  spec?: { replicas?: number };
  /** Observed replicas and the label selector of the pods. */
  status?: { replicas: number; selector?: string };
}

/** List metadata (`metadata` of a list). */
export interface ListMeta {
  /** The resource version at which the list was served. Same on every page. */
  resourceVersion?: string;
  /** Token for the next page; absent or empty on the last page. */
  continue?: string;
  /** Approximate count of items after this page (absent with selectors). */
  remainingItemCount?: number;
}

/**
 * A list response (`PodList`, ...).
 *
 * @example
 * ```ts
 * import type { KubeList, KubeObject } from "@kinformer/kinformer/client";
 * import assert from "node:assert/strict";
 * const list: KubeList<KubeObject> = { kind: "PodList", apiVersion: "v1", metadata: {}, items: [] };
 * assert.equal(list.items.length, 0);
 * ```
 */
export interface KubeList<T extends KubeObjectLike = KubeObject> {
  /** Kind, e.g. `PodList`. */
  kind?: string;
  /** API version. */
  apiVersion?: string;
  /** List metadata. */
  metadata: ListMeta;
  /** Items (without `kind`/`apiVersion`). */
  items: T[];
}

/** One cause inside `Status.details.causes`. */
export interface StatusCause {
  /**
   * Machine-readable cause, e.g. `ResourceVersionTooLarge`. On the wire the cause's type
   * travels under the JSON key `reason`.
   */
  reason?: string;
  /** Older spelling some tools use for {@linkcode StatusCause.reason}. */
  type?: string;
  /** Human-readable message. */
  message?: string;
  /** Field the cause refers to. */
  field?: string;
}

/** `Status.details`. */
export interface StatusDetails {
  /** Name of the object concerned. */
  name?: string;
  /** Group of the object concerned. */
  group?: string;
  /** Kind of the object concerned. */
  kind?: string;
  /** UID of the object concerned. */
  uid?: string;
  /** Causes. */
  causes?: StatusCause[];
  /** Seconds the client should wait before retrying. */
  retryAfterSeconds?: number;
}

/**
 * The Kubernetes `Status` object returned with errors (and inside watch ERROR events).
 *
 * @example
 * ```ts
 * import type { Status } from "@kinformer/kinformer/client";
 * import assert from "node:assert/strict";
 * const s: Status = { kind: "Status", apiVersion: "v1", status: "Failure", code: 410, reason: "Expired", message: "too old" };
 * assert.equal(s.reason, "Expired");
 * ```
 */
export interface Status {
  /** Always `Status`. */
  kind: "Status";
  /** Usually `v1`. */
  apiVersion?: string;
  /** List metadata (unused by kinformer). */
  metadata?: ListMeta;
  /** `Success` or `Failure`. */
  status?: "Success" | "Failure";
  /** Human-readable description. */
  message?: string;
  /** Machine-readable reason, e.g. `NotFound`, `Expired`, `Gone`, `Invalid`. */
  reason?: string;
  /** Extra details. */
  details?: StatusDetails;
  /** HTTP status code. */
  code?: number;
}

/**
 * True when `value` is a Kubernetes `Status` object (`kind: "Status"`), e.g. to tell the
 * answer of a delete (a Status or the object still being deleted) apart.
 *
 * @example
 * ```ts
 * import { isStatus } from "@kinformer/kinformer/client";
 * import assert from "node:assert/strict";
 * assert.ok(isStatus({ kind: "Status", status: "Success", code: 200 }));
 * assert.ok(!isStatus({ kind: "Pod", metadata: { name: "web-1" } }));
 * ```
 */
export function isStatus(value: unknown): value is Status {
  return typeof value === "object" && value !== null && !Array.isArray(value) &&
    (value as { kind?: unknown }).kind === "Status";
}
