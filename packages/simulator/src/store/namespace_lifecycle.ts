/**
 * Namespaces as kube-apiserver keeps them: the namespaces every cluster starts with, the
 * fields its namespace strategy sets (the `kubernetes` finalizer in `spec.finalizers`, phase
 * `Active`, the `kubernetes.io/metadata.name` label), the admission of the `NamespaceLifecycle`
 * plugin (a create into a missing namespace is a 404 `namespaces "x" not found`, into a
 * terminating one a 403 with cause `NamespaceTerminating`; `default`, `kube-system` and
 * `kube-public` may not be deleted), and what the first DELETE of a namespace does to it.
 * @module
 */
import type { KubeObject } from "@kinformer/kinformer/client";
import { isRecord } from "@kinformer/kinformer/internal";
import { fail, qualifiedResource, status } from "../core/status.ts";
import type { ResourceInfo } from "../model/registry/served_resources.ts";

/** The namespaces a new cluster has. */
export const INITIAL_NAMESPACES: readonly string[] = Object.freeze([
  "default",
  "kube-node-lease",
  "kube-public",
  "kube-system",
]);

/** The namespaces the `NamespaceLifecycle` admission plugin refuses to delete. */
const IMMORTAL_NAMESPACES: ReadonlySet<string> = new Set(["default", "kube-public", "kube-system"]);

/** The finalizer the namespace controller keeps in `spec.finalizers` until a namespace is empty. */
export const NAMESPACE_FINALIZER = "kubernetes";

/** The label kube-apiserver sets on every namespace to its name. */
export const NAMESPACE_NAME_LABEL = "kubernetes.io/metadata.name";

/** Whether `info` is the core `namespaces` resource. */
export function isNamespaceResource(info: ResourceInfo): boolean {
  return info.desc.resource === "namespaces" && !info.desc.group && !info.desc.namespaced;
}

/** `spec.finalizers` of a namespace (strings only). */
export function specFinalizers(item: KubeObject): string[] {
  const spec = (item as Record<string, unknown>).spec;
  const list = isRecord(spec) ? spec.finalizers : undefined;
  return Array.isArray(list) ? list.filter((f): f is string => typeof f === "string") : [];
}

/** Whether a namespace is being terminated (`status.phase` `Terminating`, as admission reads it). */
export function isTerminating(item: KubeObject): boolean {
  const s = (item as Record<string, unknown>).status;
  return isRecord(s) && s.phase === "Terminating";
}

/** The 404 of a namespaced create into a namespace that does not exist. */
export function namespaceNotFound(namespace: string): never {
  fail(status(404, "NotFound", `namespaces "${namespace}" not found`, {
    name: namespace,
    kind: "namespaces",
  }));
}

/** The 403 of a create into a terminating namespace, with the `NamespaceTerminating` cause. */
export function namespaceTerminating(info: ResourceInfo, name: string, namespace: string): never {
  const resource = qualifiedResource(info.desc.resource, info.desc.group);
  const details: Record<string, unknown> = { name };
  if (info.desc.group) details.group = info.desc.group;
  details.kind = info.desc.resource;
  details.causes = [{
    reason: "NamespaceTerminating",
    message: `namespace ${namespace} is being terminated`,
    field: "metadata.namespace",
  }];
  fail(status(
    403,
    "Forbidden",
    `${resource} "${name}" is forbidden: unable to create new content in namespace ${namespace} because it is being terminated`,
    details,
  ));
}

/** The 403 of a DELETE of `default`, `kube-system` or `kube-public`. */
export function checkMortal(name: string): void {
  if (!IMMORTAL_NAMESPACES.has(name)) return;
  fail(
    status(
      403,
      "Forbidden",
      `namespaces "${name}" is forbidden: this namespace may not be deleted`,
      {
        name,
        kind: "namespaces",
      },
    ),
  );
}

/**
 * What the namespace strategy sets on a write: the name label always; on create the
 * `kubernetes` finalizer (added when missing) and phase `Active`; on an HTTP update the stored
 * `spec.finalizers` (only the namespace controller changes them; the control API may, as
 * kube-apiserver's `/finalize` subresource does).
 */
export function namespaceDefaults(
  item: KubeObject,
  before: KubeObject | undefined,
  writer: "http" | "control",
): void {
  const meta = item.metadata as Record<string, unknown>;
  const labels = isRecord(meta.labels) ? meta.labels : {};
  meta.labels = { ...labels, [NAMESPACE_NAME_LABEL]: item.metadata.name! };
  const obj = item as Record<string, unknown>;
  const spec = isRecord(obj.spec) ? { ...obj.spec } : {};
  if (before === undefined) {
    const finalizers = specFinalizers(item);
    if (!finalizers.includes(NAMESPACE_FINALIZER)) {
      spec.finalizers = [...finalizers, NAMESPACE_FINALIZER];
    }
    obj.spec = spec;
    if (writer === "http" || !isRecord(obj.status)) obj.status = { phase: "Active" };
  } else if (writer === "http") {
    const kept = (before as Record<string, unknown>).spec;
    if (isRecord(kept) && Object.hasOwn(kept, "finalizers")) spec.finalizers = kept.finalizers;
    else delete spec.finalizers;
    obj.spec = spec;
  }
}

/** A copy of a namespace with `status.phase` `Terminating` (what its first DELETE sets). */
export function withPhaseTerminating(item: KubeObject): KubeObject {
  const obj = { ...item } as Record<string, unknown>;
  obj.status = { ...(isRecord(obj.status) ? obj.status : {}), phase: "Terminating" };
  return obj as KubeObject;
}
