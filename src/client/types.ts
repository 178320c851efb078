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
 * Standard object metadata (`metadata`).
 *
 * @example
 * ```ts
 * import type { ObjectMeta } from "@kinformer/kinformer/client";
 * const meta: ObjectMeta = { name: "web-1", namespace: "default", labels: { app: "web" } };
 * console.log(meta.name);
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
  /** Server-side apply bookkeeping; often stripped with a `transform`. */
  managedFields?: unknown[];
}

/**
 * Any Kubernetes object: `apiVersion`, `kind`, `metadata`, plus whatever else it carries.
 *
 * @example
 * ```ts
 * import type { KubeObject } from "@kinformer/kinformer/client";
 * const cm: KubeObject = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "a" }, data: {} };
 * console.log(cm.metadata.name);
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
 * const list: KubeList<KubeObject> = { kind: "PodList", apiVersion: "v1", metadata: {}, items: [] };
 * console.log(list.items.length);
 * ```
 */
export interface KubeList<T extends KubeObject = KubeObject> {
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
 * const s: Status = { kind: "Status", apiVersion: "v1", status: "Failure", code: 410, reason: "Expired", message: "too old" };
 * console.log(s.reason);
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
 * console.log(isStatus({ kind: "Status", status: "Success", code: 200 })); // true
 * console.log(isStatus({ kind: "Pod", metadata: { name: "web-1" } })); // false
 * ```
 */
export function isStatus(value: unknown): value is Status {
  return typeof value === "object" && value !== null && !Array.isArray(value) &&
    (value as { kind?: unknown }).kind === "Status";
}
