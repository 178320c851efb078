/**
 * Checkpoints: where an informer was, so a later run resumes without a LIST; and the one
 * definition of an informer's identity (resource, namespace, selectors).
 * @module
 */
import { isMetadataOnly } from "../client/metadata_only.ts";
import { type AnyResourceDescriptor, resourceKey } from "../client/resource.ts";
import type { KubeObject, KubeObjectLike } from "../client/types.ts";
import { describeKind } from "../util/values.ts";

/**
 * A small JSON-serializable snapshot of an informer: where it was (resource version), what it
 * watched, and optionally the cached objects (after `transform`). Pass it back as `resumeFrom`.
 */
export interface InformerCheckpoint<T extends KubeObjectLike = KubeObject> {
  /** Format version. */
  version: 1;
  /** Identity of the resource (`group/version/resource`). */
  resource: string;
  /** Namespace watched, `""` for all. */
  namespace: string;
  /** Label selector watched. */
  labelSelector: string;
  /** Field selector watched. */
  fieldSelector: string;
  /** The resource version the cache was at. */
  resourceVersion: string;
  /** The cached objects, when asked for. */
  objects?: T[];
}

/** What identifies an informer: its resource, namespace and selectors. */
export interface InformerSelection {
  resource: AnyResourceDescriptor;
  namespace?: string | undefined;
  labelSelector?: string | undefined;
  fieldSelector?: string | undefined;
}

/**
 * An informer's identity as one string, `group/version/resource|namespace|labels|fields`: the
 * factory shares one informer per identity, and a checkpoint only resumes the same one.
 * Internal.
 */
export function informerIdentity(s: InformerSelection): string {
  return [
    resourceIdentity(s.resource),
    s.namespace ?? "",
    s.labelSelector ?? "",
    s.fieldSelector ?? "",
  ].join("|");
}

/** `group/version/resource`, with `#metadata` for a metadata-only descriptor. */
function resourceIdentity(resource: InformerSelection["resource"]): string {
  return resourceKey(resource) + (isMetadataOnly(resource) ? "#metadata" : "");
}

/**
 * The `apiVersion` and `kind` of the objects of `resource` (`meta.k8s.io/v1`
 * `PartialObjectMetadata` for a metadata-only descriptor). Internal.
 */
export function typeMetaOf(resource: AnyResourceDescriptor): { apiVersion: string; kind: string } {
  if (isMetadataOnly(resource)) {
    return { apiVersion: "meta.k8s.io/v1", kind: "PartialObjectMetadata" };
  }
  const r = resource as { group?: string; version: string; kind: string };
  return { apiVersion: r.group ? `${r.group}/${r.version}` : r.version, kind: r.kind };
}

/**
 * A checkpoint of an informer with selection `s` at `resourceVersion`. Objects without an
 * `apiVersion` or `kind` (a transform may return objects without them) get the informer's, so
 * that a resume can check every object's kind. Internal.
 */
export function makeCheckpoint<T extends KubeObjectLike>(
  s: InformerSelection,
  resourceVersion: string,
  objects: T[] | undefined,
): InformerCheckpoint<T> {
  const cp: InformerCheckpoint<T> = {
    version: 1,
    resource: resourceIdentity(s.resource),
    namespace: s.namespace ?? "",
    labelSelector: s.labelSelector ?? "",
    fieldSelector: s.fieldSelector ?? "",
    resourceVersion,
  };
  if (objects !== undefined) {
    const { apiVersion, kind } = typeMetaOf(s.resource);
    cp.objects = objects.map((o) => {
      if (o.apiVersion !== undefined && o.kind !== undefined) return o;
      // apiVersion and kind first (the key order of a served object); an own `kind: undefined`
      // of `o` must not stay.
      const typed = { apiVersion, kind, ...o };
      typed.apiVersion ??= apiVersion;
      typed.kind ??= kind;
      return typed;
    });
  }
  return cp;
}

/**
 * What is wrong with the fields of `cp` (a value read back from storage: anything) for an
 * informer with selection `s`, or undefined when it is a checkpoint taken for that selection.
 * The message says what, never the value. Internal.
 */
export function checkpointHeaderProblem(
  cp: unknown,
  s: InformerSelection,
): { problem: "malformed" | "resource" | "namespace" | "selector"; detail: string } | undefined {
  if (typeof cp !== "object" || cp === null || Array.isArray(cp)) {
    return { problem: "malformed", detail: `is ${describeKind(cp)}, not a kinformer checkpoint` };
  }
  const c = cp as Record<string, unknown>;
  if (c.version !== 1) {
    return { problem: "malformed", detail: "is not a kinformer checkpoint of format version 1" };
  }
  for (const field of ["resource", "namespace", "labelSelector", "fieldSelector"] as const) {
    if (typeof c[field] !== "string") {
      return { problem: "malformed", detail: `has a ${field} that is ${describeKind(c[field])}` };
    }
  }
  if (typeof c.resourceVersion !== "string") {
    return {
      problem: "malformed",
      detail: `has a resourceVersion that is ${describeKind(c.resourceVersion)}`,
    };
  }
  if (c.resource !== resourceIdentity(s.resource)) {
    return { problem: "resource", detail: "was taken for another resource than the informer's" };
  }
  if (c.namespace !== (s.namespace ?? "")) {
    return { problem: "namespace", detail: "was taken for another namespace than the informer's" };
  }
  if (c.labelSelector !== (s.labelSelector ?? "") || c.fieldSelector !== (s.fieldSelector ?? "")) {
    return { problem: "selector", detail: "was taken with other selectors than the informer's" };
  }
  return undefined;
}
