/**
 * What a DELETE does to an object's metadata in kube-apiserver: the garbage collector's
 * finalizers chosen by the propagation policy (`orphan` for Orphan, `foregroundDeletion` for
 * Foreground, neither for Background; without a policy the object's own finalizers, then the
 * resource's default), and the `deletionTimestamp` of a deletion that has to wait for them.
 * @module
 */
import type { KubeObject } from "@kinformer/kinformer/client";
import { setOwn } from "../core/own_properties.ts";
import type { ResourceInfo } from "../model/registry/served_resources.ts";

/** How a deletion treats the object's dependents. */
export type PropagationPolicy = "Background" | "Foreground" | "Orphan";

/** The finalizer of an Orphan deletion: dependents lose their owner reference first. */
export const ORPHAN_FINALIZER = "orphan";
/** The finalizer of a Foreground deletion: blocking dependents go first. */
export const FOREGROUND_FINALIZER = "foregroundDeletion";

/** The options of one deletion (a DELETE's `DeleteOptions`, or the garbage collector's). */
export interface DeletionRequest {
  /** `propagationPolicy`. @default undefined (the object's finalizers, else the resource's default) */
  readonly propagationPolicy?: PropagationPolicy | undefined;
  /** The deprecated `orphanDependents` (never together with `propagationPolicy`). */
  readonly orphanDependents?: boolean | undefined;
  /** Delete only this uid and/or resourceVersion (409 Conflict otherwise). */
  readonly preconditions?:
    | { uid?: string | undefined; resourceVersion?: string | undefined }
    | undefined;
  /** Change nothing; answer what would happen. */
  readonly dryRun?: boolean | undefined;
}

/**
 * Resources whose default is to orphan dependents, for compatibility, as kube-apiserver keeps
 * them: replication controllers, `batch/v1` jobs, and the pre-`apps/v1` workload versions.
 */
const ORPHAN_BY_DEFAULT: ReadonlySet<string> = new Set([
  "/v1/replicationcontrollers",
  "batch/v1/jobs",
  "batch/v1beta1/cronjobs",
  ...["deployments", "replicasets", "daemonsets", "statefulsets"].flatMap((r) => [
    `extensions/v1beta1/${r}`,
    `apps/v1beta1/${r}`,
    `apps/v1beta2/${r}`,
  ]),
]);

/** The policy a deletion of `info` without one uses (when the object has no GC finalizer). */
export function defaultPolicy(info: ResourceInfo): PropagationPolicy {
  return ORPHAN_BY_DEFAULT.has(info.id) ? "Orphan" : "Background";
}

/** `metadata.finalizers` (strings only). */
export function finalizersOf(item: KubeObject): string[] {
  const list = item.metadata.finalizers;
  return Array.isArray(list) ? list.filter((f): f is string => typeof f === "string") : [];
}

/**
 * The finalizers an object has after a deletion asks for `request`: the others as they were,
 * then `orphan` and/or `foregroundDeletion` as the policy wants them.
 */
export function finalizersAfterDelete(
  info: ResourceInfo,
  current: readonly string[],
  request: DeletionRequest,
): string[] {
  const has = (f: string) => current.includes(f);
  let orphan: boolean;
  let foreground: boolean;
  if (request.orphanDependents !== undefined) {
    orphan = request.orphanDependents;
    foreground = false;
  } else if (request.propagationPolicy !== undefined) {
    orphan = request.propagationPolicy === "Orphan";
    foreground = request.propagationPolicy === "Foreground";
  } else if (has(ORPHAN_FINALIZER) || has(FOREGROUND_FINALIZER)) {
    orphan = has(ORPHAN_FINALIZER);
    foreground = !orphan && has(FOREGROUND_FINALIZER);
  } else {
    orphan = defaultPolicy(info) === "Orphan";
    foreground = false;
  }
  const out = current.filter((f) => f !== ORPHAN_FINALIZER && f !== FOREGROUND_FINALIZER);
  if (orphan) out.push(ORPHAN_FINALIZER);
  if (foreground) out.push(FOREGROUND_FINALIZER);
  return out;
}

/** Whether two finalizer lists hold the same set. */
export function sameFinalizers(a: readonly string[], b: readonly string[]): boolean {
  const set = new Set(a);
  const other = new Set(b);
  return set.size === other.size && [...set].every((f) => other.has(f));
}

/**
 * A copy of `meta` with `finalizers` (none: the field goes), in the API server's field order
 * (after `ownerReferences`, before `managedFields`).
 */
export function withFinalizers(
  meta: object,
  finalizers: readonly string[],
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  let placed = finalizers.length === 0;
  for (const [k, v] of Object.entries(meta as Record<string, unknown>)) {
    if (k === "finalizers") {
      if (!placed) out.finalizers = [...finalizers];
      placed = true;
      continue;
    }
    if (k === "managedFields" && !placed) {
      out.finalizers = [...finalizers];
      placed = true;
    }
    setOwn(out, k, v);
  }
  if (!placed) out.finalizers = [...finalizers];
  return out;
}

/**
 * A copy of `item` marked as being deleted at `now` (`deletionTimestamp`, and
 * `deletionGracePeriodSeconds: 0` unless `gracePeriod` is false, as for namespaces), with
 * `finalizers`, its `generation` bumped the first time. A `deletionTimestamp` it has already is
 * kept.
 */
export function markDeleting(
  item: KubeObject,
  now: string,
  finalizers: readonly string[],
  gracePeriod = true,
): KubeObject {
  const meta: Record<string, unknown> = {};
  const stamped = item.metadata.deletionTimestamp !== undefined;
  for (const [k, v] of Object.entries(withFinalizers(item.metadata, finalizers))) {
    setOwn(meta, k, v);
    if (k === "creationTimestamp" && !stamped) {
      meta.deletionTimestamp = now;
      if (gracePeriod) meta.deletionGracePeriodSeconds = 0;
    }
  }
  if (meta.deletionTimestamp === undefined) meta.deletionTimestamp = now;
  // As kube-apiserver's markAsDeleting: the first mark bumps a generation above 0, so
  // controllers that filter on generation see the deletion.
  const generation = item.metadata.generation;
  if (!stamped && typeof generation === "number" && generation > 0) {
    meta.generation = generation + 1;
  }
  return { ...item, metadata: meta } as KubeObject;
}
