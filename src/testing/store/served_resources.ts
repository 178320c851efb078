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
} from "../../client/resource.ts";
import { defineResource } from "../../client/define_resource.ts";
import { describeValue } from "../../util/values.ts";
import { checkLease } from "./lease_validation.ts";
import { widgets } from "../widgets.ts";

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

/** What {@linkcode info} needs besides the descriptor. */
interface InfoOptions {
  /** Singular name for discovery. */
  singular: string;
  /** Short names for discovery. @default [] */
  shortNames?: string[];
  /** Field selectors besides `metadata.name` (and `metadata.namespace`). @default [] */
  fields?: string[];
  /** A `/status` subresource. */
  statusSubresource: boolean;
  /** A `/scale` subresource. @default false */
  scaleSubresource?: boolean;
  /** DELETE answers with the object (else a Status `Success`). */
  deleteReturnsObject: boolean;
  /** Kind-specific checks of a written object. @default undefined */
  check?: (obj: Record<string, unknown>, name: string) => void;
}

function info(desc: AnyResourceDescriptor, o: InfoOptions): ResourceInfo {
  const apiVersion = desc.group ? `${desc.group}/${desc.version}` : desc.version;
  const fields = ["metadata.name", ...(desc.namespaced ? ["metadata.namespace"] : [])];
  return Object.freeze({
    desc,
    apiVersion,
    listKind: `${desc.kind}List`,
    singular: o.singular,
    shortNames: Object.freeze(o.shortNames ?? []),
    fieldSelectors: new Set([...fields, ...(o.fields ?? [])]),
    statusSubresource: o.statusSubresource,
    scaleSubresource: o.scaleSubresource ?? false,
    deleteReturnsObject: o.deleteReturnsObject,
    jsonPrefix: `{"kind":${JSON.stringify(desc.kind)},"apiVersion":${JSON.stringify(apiVersion)},`,
    id: resourceId(desc),
    ...(o.check === undefined ? {} : { check: o.check }),
  });
}

/** The resources the simulated cluster serves. */
export const SERVED_RESOURCES: readonly ResourceInfo[] = Object.freeze([
  info(pods, {
    singular: "pod",
    shortNames: ["po"],
    fields: [
      "spec.nodeName",
      "spec.restartPolicy",
      "spec.schedulerName",
      "spec.serviceAccountName",
      "spec.hostNetwork",
      "status.phase",
      "status.podIP",
      "status.nominatedNodeName",
    ],
    statusSubresource: true,
    deleteReturnsObject: true,
  }),
  info(configmaps, {
    singular: "configmap",
    shortNames: ["cm"],
    statusSubresource: false,
    deleteReturnsObject: false,
  }),
  info(namespaces, {
    singular: "namespace",
    shortNames: ["ns"],
    fields: ["status.phase"],
    statusSubresource: true,
    deleteReturnsObject: true,
  }),
  info(widgets, {
    singular: "widget",
    shortNames: ["wg"],
    statusSubresource: true,
    deleteReturnsObject: true,
  }),
  info(deployments, {
    singular: "deployment",
    shortNames: ["deploy"],
    statusSubresource: true,
    scaleSubresource: true,
    deleteReturnsObject: false,
  }),
  info(leases, {
    singular: "lease",
    statusSubresource: false,
    deleteReturnsObject: false,
    check: checkLease,
  }),
]);

/**
 * One more resource for the simulated cluster to serve (option `resources`): a custom resource
 * as its CRD would define it, or a built-in one the cluster does not serve by default (services,
 * secrets, ...). Given as a bare descriptor, it gets a `status` subresource, no `scale`
 * subresource and no short names.
 *
 * @example
 * ```ts
 * import { defineResource, KubeClient } from "@kinformer/kinformer/client";
 * import { SimulatedCluster } from "@kinformer/kinformer/testing";
 * import assert from "node:assert/strict";
 * const services = defineResource({ version: "v1", resource: "services", kind: "Service", namespaced: true });
 * const gadgets = defineResource({
 *   group: "example.org", version: "v1alpha1", resource: "gadgets", kind: "Gadget", namespaced: false,
 * });
 * const cluster = new SimulatedCluster({
 *   resources: [services, { resource: gadgets, scaleSubresource: true, shortNames: ["gd"] }],
 * });
 * const client = new KubeClient({ server: "http://sim.test", fetch: cluster.fetch });
 * await client.create(services, { metadata: { namespace: "default", name: "web" } });
 * await client.create(gadgets, { metadata: { name: "g1" }, spec: { replicas: 2 } });
 * assert.equal((await client.list(services, { namespace: "default" })).items.length, 1);
 * assert.equal((await client.get(gadgets, "g1", { subresource: "scale" })).spec?.replicas, 2);
 * cluster.close();
 * ```
 */
export interface ServedResource {
  /** What to serve: group, version, plural name, kind, scope. */
  readonly resource: AnyResourceDescriptor;
  /**
   * Whether `/status` is a subresource: main-resource writes keep the old `status`, and
   * `metadata.generation` counts spec changes only (a CRD's `subresources.status`).
   * @default true
   */
  readonly statusSubresource?: boolean;
  /**
   * Whether `/scale` is a subresource, as an `autoscaling/v1` Scale of `spec.replicas`
   * (a CRD's `subresources.scale` with the usual paths).
   * @default false
   */
  readonly scaleSubresource?: boolean;
  /**
   * Short names for discovery, so that `kubectl get <short>` works.
   * @default []
   */
  readonly shortNames?: readonly string[];
}

function servedResource(entry: unknown, at: string): ServedResource {
  if (typeof entry !== "object" || entry === null) {
    throw new TypeError(
      `${at} must be a resource descriptor or { resource }, got ${describeValue(entry)}`,
    );
  }
  if (
    !Object.hasOwn(entry, "resource") ||
    typeof (entry as { resource: unknown }).resource === "string"
  ) {
    return { resource: entry as AnyResourceDescriptor }; // a bare descriptor
  }
  const e = entry as ServedResource;
  for (const flag of ["statusSubresource", "scaleSubresource"] as const) {
    if (e[flag] !== undefined && typeof e[flag] !== "boolean") {
      throw new TypeError(`${at}.${flag} must be a boolean, got ${describeValue(e[flag])}`);
    }
  }
  if (
    e.shortNames !== undefined &&
    (!Array.isArray(e.shortNames) || e.shortNames.some((n) => typeof n !== "string" || n === ""))
  ) {
    throw new TypeError(`${at}.shortNames must be an array of non-empty strings`);
  }
  return e;
}

/**
 * The built-in served resources plus `extra` (validated: a bad descriptor or one already served
 * is a `TypeError` naming its index).
 */
export function servedResources(extra: unknown): readonly ResourceInfo[] {
  if (extra === undefined) return SERVED_RESOURCES;
  if (!Array.isArray(extra)) {
    throw new TypeError(`options.resources must be an array, got ${describeValue(extra)}`);
  }
  const out = [...SERVED_RESOURCES];
  const ids = new Set(out.map((r) => r.id));
  extra.forEach((entry, i) => {
    const at = `options.resources[${i}]`;
    const e = servedResource(entry, at);
    let desc: AnyResourceDescriptor;
    try {
      desc = defineResource(e.resource);
    } catch (err) {
      throw new TypeError(`${at}: ${(err as Error).message}`);
    }
    const id = resourceId(desc);
    if (ids.has(id)) throw new TypeError(`${at}: ${id} is already served`);
    ids.add(id);
    out.push(info(desc, {
      singular: desc.kind.toLowerCase(),
      shortNames: [...(e.shortNames ?? [])],
      statusSubresource: e.statusSubresource ?? true,
      scaleSubresource: e.scaleSubresource ?? false,
      deleteReturnsObject: true,
    }));
  });
  return Object.freeze(out);
}
