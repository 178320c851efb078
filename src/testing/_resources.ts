/**
 * What the simulated cluster knows about each resource it serves: discovery facts, the field
 * selectors the real API server supports for it, and write behaviour.
 * @module
 */
import {
  type AnyResourceDescriptor,
  configmaps,
  deployments,
  leases,
  namespaces,
  pods,
} from "../client/resource.ts";
import { checkLease } from "./_lease_rules.ts";
import { widgets } from "./widgets.ts";

/** Server-side facts of one served resource. */
export interface ResourceInfo {
  /** The descriptor. */
  readonly desc: AnyResourceDescriptor;
  /** `v1` or `group/version`. */
  readonly apiVersion: string;
  /** `PodList`, ... */
  readonly listKind: string;
  /** Singular name for discovery. */
  readonly singular: string;
  /** Short names for discovery (`po`). */
  readonly shortNames: readonly string[];
  /** Field paths a field selector may use (anything else is a 400, as on a real server). */
  readonly fieldSelectors: ReadonlySet<string>;
  /** Whether `/status` is a subresource (main-resource writes keep the old status). */
  readonly statusSubresource: boolean;
  /** Whether `/scale` is a subresource (an `autoscaling/v1` Scale of `spec.replicas`). */
  readonly scaleSubresource: boolean;
  /** Whether DELETE answers with the deleted object (else a Status `Success`). */
  readonly deleteReturnsObject: boolean;
  /** `{"kind":"Pod","apiVersion":"v1",` — the prefix put in front of an item's JSON. */
  readonly jsonPrefix: string;
  /** Stable map key: `group/version/resource`. */
  readonly id: string;
  /** Kind-specific checks of a written object (throw a Status via `fail`), if any. */
  readonly check?: (obj: Record<string, unknown>, name: string) => void;
}

/** The `group/version/resource` identity of a descriptor. */
export function resourceId(desc: AnyResourceDescriptor): string {
  return `${desc.group ?? ""}/${desc.version}/${desc.resource}`;
}

function info(
  desc: AnyResourceDescriptor,
  singular: string,
  shortNames: string[],
  extraFields: string[],
  statusSubresource: boolean,
  deleteReturnsObject: boolean,
  scaleSubresource = false,
  check?: (obj: Record<string, unknown>, name: string) => void,
): ResourceInfo {
  const apiVersion = desc.group ? `${desc.group}/${desc.version}` : desc.version;
  const fields = ["metadata.name", ...(desc.namespaced ? ["metadata.namespace"] : [])];
  return Object.freeze({
    desc,
    apiVersion,
    listKind: `${desc.kind}List`,
    singular,
    shortNames: Object.freeze(shortNames),
    fieldSelectors: new Set([...fields, ...extraFields]),
    statusSubresource,
    scaleSubresource,
    deleteReturnsObject,
    jsonPrefix: `{"kind":${JSON.stringify(desc.kind)},"apiVersion":${JSON.stringify(apiVersion)},`,
    id: resourceId(desc),
    ...(check === undefined ? {} : { check }),
  });
}

/** The resources the simulated cluster serves. */
export const SERVED_RESOURCES: readonly ResourceInfo[] = Object.freeze([
  info(
    pods,
    "pod",
    ["po"],
    [
      "spec.nodeName",
      "spec.restartPolicy",
      "spec.schedulerName",
      "spec.serviceAccountName",
      "spec.hostNetwork",
      "status.phase",
      "status.podIP",
      "status.nominatedNodeName",
    ],
    true,
    true,
  ),
  info(configmaps, "configmap", ["cm"], [], false, false),
  info(namespaces, "namespace", ["ns"], ["status.phase"], true, true),
  info(widgets, "widget", ["wg"], [], true, true),
  info(deployments, "deployment", ["deploy"], [], true, false, true),
  info(leases, "lease", [], [], false, false, false, checkLease),
]);
