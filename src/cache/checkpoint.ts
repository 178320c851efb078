/**
 * Checkpoints: where an informer was, so a later run resumes without a LIST; and the one
 * definition of an informer's identity (resource, namespace, selectors).
 * @module
 */
import { isMetadataOnly } from "../client/metadata_only.ts";
import { type AnyResourceDescriptor, resourceKey } from "../client/resource.ts";
import type { KubeObject, KubeObjectLike } from "../client/types.ts";
import { describeValue } from "../util/values.ts";

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

/** The identity recorded in a checkpoint. */
function checkpointIdentity<T extends KubeObjectLike>(cp: InformerCheckpoint<T>): string {
  return [cp.resource, cp.namespace, cp.labelSelector, cp.fieldSelector].join("|");
}

/** A checkpoint of an informer with selection `s` at `resourceVersion`. Internal. */
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
  if (objects !== undefined) cp.objects = objects;
  return cp;
}

/** Throws a `TypeError` unless `cp` is a checkpoint taken for selection `s`. Internal. */
export function checkCheckpoint<T extends KubeObjectLike>(
  cp: InformerCheckpoint<T>,
  s: InformerSelection,
): void {
  if (
    typeof cp !== "object" || cp === null || cp.version !== 1 ||
    typeof cp.resourceVersion !== "string"
  ) {
    throw new TypeError(`resumeFrom is not a kinformer checkpoint: got ${describeValue(cp)}`);
  }
  const mine = informerIdentity(s);
  const theirs = checkpointIdentity(cp);
  if (mine !== theirs) throw new TypeError(`resumeFrom was taken for ${theirs}, not ${mine}`);
}
