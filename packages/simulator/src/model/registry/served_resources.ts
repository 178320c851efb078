/**
 * What the simulated cluster knows about each resource it serves: discovery facts, the field
 * selectors the real API server supports for it, its Table columns, its schema, write behaviour,
 * and, for a resource served from another's storage (`events.k8s.io/v1` Events are core/v1
 * Events; a CRD's other versions are its storage version), how its objects convert.
 * @module
 */
import {
  type AnyResourceDescriptor,
  configmaps,
  coreEvents,
  customresourcedefinitions,
  deployments,
  eventsV1,
  leases,
  namespaces,
  pods,
} from "@kinformer/kinformer/client";
import { defineResource } from "@kinformer/kinformer/client";
import { describeValue, isRecord } from "@kinformer/kinformer/internal";
import { builtinFacts } from "../kinds/builtin_catalog.ts";
import { crdServedResources, isCustomResourceDefinition } from "../kinds/custom_resources.ts";
import { coreEventField, toCoreEvent, toEventsV1 } from "../kinds/event_conversion.ts";
import { checkEvent } from "../kinds/event_validation.ts";
import { checkCustomResourceDefinition } from "../kinds/crd_validation.ts";
import { checkPrinterColumns, type PrinterColumn } from "../tables/printer_columns.ts";
import { checkSelectableFields } from "../kinds/selectable_fields.ts";
import { BUILTIN_GROUPS, tableConvertorFor } from "../tables/table_convertors.ts";
import type { TableConvertor } from "../tables/table_convertor.ts";
import { checkLease } from "../kinds/lease_validation.ts";
import { widgets } from "../kinds/widgets.ts";
import type { ServedResource, StorageView } from "../kinds/served_resource.ts";

export type { ServedResource, StorageView } from "../kinds/served_resource.ts";

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
  /** Categories for discovery (`all`). */
  readonly categories: readonly string[];
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
  /** Whether kube-apiserver serves it itself (else it is a custom resource). */
  readonly builtin: boolean;
  /** How its objects print as Table rows (printed from their stored form). */
  readonly table: TableConvertor;
  /** A custom resource's `openAPIV3Schema`, if given. */
  readonly schema?: Record<string, unknown>;
  /** A custom resource's `additionalPrinterColumns`, if given. */
  readonly printerColumns?: readonly PrinterColumn[];
  /** Set when it is served from another resource's storage. */
  readonly view?: StorageView;
  /** Kind-specific checks of a written object (throw a Status via `fail`), if any. */
  readonly check?: (obj: Record<string, unknown>, name: string) => void;
}

/** The `group/version/resource` identity of a descriptor. */
export function resourceId(desc: AnyResourceDescriptor): string {
  return `${desc.group ?? ""}/${desc.version}/${desc.resource}`;
}

/** What {@linkcode info} needs besides the descriptor (catalog facts fill the rest). */
interface InfoOptions {
  singular?: string;
  shortNames?: readonly string[];
  categories?: readonly string[];
  statusSubresource?: boolean;
  scaleSubresource?: boolean;
  deleteReturnsObject?: boolean;
  printerColumns?: readonly PrinterColumn[];
  schema?: Record<string, unknown>;
  /** Field selector names besides metadata's (a CRD version's `selectableFields`). */
  selectableFields?: readonly string[];
  view?: StorageView;
  check?: (obj: Record<string, unknown>, name: string) => void;
}

function info(desc: AnyResourceDescriptor, o: InfoOptions = {}): ResourceInfo {
  const id = resourceId(desc);
  const group = desc.group ?? "";
  const builtin = BUILTIN_GROUPS.has(group);
  const facts = builtin ? builtinFacts(id) : undefined;
  const apiVersion = group ? `${group}/${desc.version}` : desc.version;
  const fields = ["metadata.name", ...(desc.namespaced ? ["metadata.namespace"] : [])];
  return Object.freeze({
    desc,
    apiVersion,
    listKind: `${desc.kind}List`,
    singular: o.singular ?? facts?.singular ?? desc.kind.toLowerCase(),
    shortNames: Object.freeze([...(o.shortNames ?? facts?.shortNames ?? [])]),
    categories: Object.freeze([...(o.categories ?? facts?.categories ?? [])]),
    fieldSelectors: new Set([...fields, ...(facts?.fields ?? []), ...(o.selectableFields ?? [])]),
    statusSubresource: o.statusSubresource ?? facts?.statusSubresource ?? true,
    scaleSubresource: o.scaleSubresource ?? facts?.scaleSubresource ?? false,
    deleteReturnsObject: o.deleteReturnsObject ?? facts?.deleteReturnsObject ?? !builtin,
    jsonPrefix: `{"kind":${JSON.stringify(desc.kind)},"apiVersion":${JSON.stringify(apiVersion)},`,
    id,
    builtin,
    table: tableConvertorFor(group, desc.kind, o.printerColumns),
    ...(o.schema === undefined ? {} : { schema: o.schema }),
    ...(o.printerColumns === undefined ? {} : { printerColumns: o.printerColumns }),
    ...(o.view === undefined ? {} : { view: o.view }),
    ...(o.check === undefined ? {} : { check: o.check }),
  });
}

const EVENTS_VIEW: StorageView = Object.freeze({
  storage: resourceId(coreEvents),
  served: toEventsV1,
  stored: toCoreEvent,
  storedField: coreEventField,
  check: (obj: Record<string, unknown>, name: string, create: boolean) =>
    checkEvent(obj, name, "events", create),
});

/** The resources the simulated cluster serves. */
export const SERVED_RESOURCES: readonly ResourceInfo[] = Object.freeze([
  info(pods),
  info(configmaps),
  info(namespaces),
  info(widgets, { singular: "widget", shortNames: ["wg"], statusSubresource: true }),
  info(deployments),
  info(leases, { check: checkLease }),
  info(coreEvents, { check: (obj, name) => checkEvent(obj, name, "core", true) }),
  info(eventsV1, { view: EVENTS_VIEW }),
  info(customresourcedefinitions, { check: checkCustomResourceDefinition }),
]);

function checkStrings(value: unknown, at: string): void {
  if (
    value !== undefined &&
    (!Array.isArray(value) || value.some((n) => typeof n !== "string" || n === ""))
  ) {
    throw new TypeError(`${at} must be an array of non-empty strings`);
  }
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
  checkStrings(e.shortNames, `${at}.shortNames`);
  checkStrings(e.categories, `${at}.categories`);
  if (e.schema !== undefined && !isRecord(e.schema)) {
    throw new TypeError(`${at}.schema must be an object (an openAPIV3Schema)`);
  }
  if (e.printerColumns !== undefined) checkPrinterColumns(e.printerColumns, `${at}.printerColumns`);
  if (e.selectableFields !== undefined) {
    checkSelectableFields(e.selectableFields, `${at}.selectableFields`, e.schema);
  }
  return e;
}

function entryInfo(e: ServedResource, at: string, view: StorageView | undefined): ResourceInfo {
  let desc: AnyResourceDescriptor;
  try {
    desc = defineResource(e.resource);
  } catch (err) {
    throw new TypeError(`${at}: ${(err as Error).message}`);
  }
  return info(desc, {
    ...(e.shortNames === undefined ? {} : { shortNames: e.shortNames }),
    ...(e.categories === undefined ? {} : { categories: e.categories }),
    ...(e.statusSubresource === undefined ? {} : { statusSubresource: e.statusSubresource }),
    ...(e.scaleSubresource === undefined ? {} : { scaleSubresource: e.scaleSubresource }),
    ...(e.printerColumns === undefined ? {} : { printerColumns: e.printerColumns }),
    ...(e.schema === undefined ? {} : { schema: e.schema }),
    ...(e.selectableFields === undefined ? {} : {
      selectableFields: e.selectableFields.map((f) => f.jsonPath.slice(1)),
    }),
    ...(view === undefined ? {} : { view }),
  });
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
  const add = (i: ResourceInfo, at: string) => {
    if (ids.has(i.id)) throw new TypeError(`${at}: ${i.id} is already served`);
    ids.add(i.id);
    out.push(i);
  };
  const crds = resourceId(customresourcedefinitions);
  extra.forEach((entry, i) => {
    const at = `options.resources[${i}]`;
    // Served by default now; naming it (as one had to before) is not an error.
    const desc = isRecord(entry) && isRecord(entry.resource) ? entry.resource : entry;
    if (isRecord(desc) && typeof desc.resource === "string" && resourceId(desc as never) === crds) {
      return;
    }
    if (isCustomResourceDefinition(entry)) {
      for (const version of crdServedResources(entry, at)) {
        add(entryInfo(version.resource, at, version.view), at);
      }
      return;
    }
    add(entryInfo(servedResource(entry, at), at, undefined), at);
  });
  return Object.freeze(out);
}

/**
 * The resources a stored CustomResourceDefinition (an item: no `kind`/`apiVersion` needed)
 * serves, one per served version.
 * @throws {TypeError} naming `at` and the bad field.
 */
export function crdInfos(crd: Record<string, unknown>, at: string): ResourceInfo[] {
  const object = { ...crd, apiVersion: "apiextensions.k8s.io/v1" };
  return crdServedResources(object, at).map((v) => entryInfo(v.resource, at, v.view));
}
