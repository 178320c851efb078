/**
 * Custom resources given to the simulated cluster as their `CustomResourceDefinition`
 * (`apiextensions.k8s.io/v1`, the object of the CRD's manifest): the group, names, scope and,
 * per served version, the subresources, printer columns, schema and selectable fields. Every served version is
 * served; the storage version holds the objects and the others are views of it that differ in
 * `apiVersion` only (the CRD conversion strategy `None`).
 * @module
 */
import type { KubeObject } from "@kinformer/kinformer/client";
import { describeValue, isRecord } from "@kinformer/kinformer/internal";
import type { ServedResource, StorageView } from "./served_resource.ts";
import { checkPrinterColumns } from "../tables/printer_columns.ts";
import { checkSelectableFields } from "./selectable_fields.ts";

/**
 * A CustomResourceDefinition (`apiextensions.k8s.io/v1`), as in a CRD's manifest: the simulated
 * cluster serves its served versions (option `resources`). Checked when the cluster is made.
 *
 * @example
 * ```ts
 * import { defineResource, KubeClient } from "@kinformer/kinformer/client";
 * import { SimulatedCluster } from "@kinformer/simulator";
 * import assert from "node:assert/strict";
 *
 * const crd = {
 *   apiVersion: "apiextensions.k8s.io/v1",
 *   kind: "CustomResourceDefinition",
 *   metadata: { name: "gadgets.example.org" },
 *   spec: {
 *     group: "example.org",
 *     names: { plural: "gadgets", kind: "Gadget", shortNames: ["gd"] },
 *     scope: "Namespaced",
 *     versions: [{ name: "v1", served: true, storage: true, subresources: { status: {} } }],
 *   },
 * };
 * const cluster = new SimulatedCluster({ resources: [crd] });
 * const gadgets = defineResource({
 *   group: "example.org", version: "v1", resource: "gadgets", kind: "Gadget", namespaced: true,
 * });
 * const client = new KubeClient({ server: "http://sim.test", fetch: cluster.fetch });
 * await client.create(gadgets, { metadata: { namespace: "default", name: "g" } });
 * assert.equal(cluster.list(gadgets).length, 1);
 * cluster.close();
 * ```
 */
export interface CustomResourceDefinitionObject {
  /** `apiextensions.k8s.io/v1`. */
  readonly apiVersion: string;
  /** `CustomResourceDefinition`. */
  readonly kind: string;
  /** Its metadata (`name`: `<plural>.<group>`). */
  readonly metadata?: { readonly name?: string };
  /** `group`, `names`, `scope`, `versions` (with `schema`, `subresources`, `additionalPrinterColumns`). */
  readonly spec: object;
}

/** Whether `value` is a CustomResourceDefinition object (its `kind` says so). */
export function isCustomResourceDefinition(value: unknown): value is Record<string, unknown> {
  // The `customresourcedefinitions` descriptor has this kind too, and a `resource`: it is served.
  return isRecord(value) && value.kind === "CustomResourceDefinition" &&
    typeof value.resource !== "string";
}

/** One served version of a CRD: what to serve, and how it converts when not the storage one. */
export interface CrdVersion {
  /** The version as a served resource. */
  readonly resource: ServedResource;
  /** For a version other than the storage version: how its objects convert. */
  readonly view?: StorageView;
}

function text(obj: Record<string, unknown>, key: string, at: string): string {
  const v = obj[key];
  if (typeof v !== "string" || v === "") {
    throw new TypeError(`${at}.${key} must be a non-empty string, got ${describeValue(v)}`);
  }
  return v;
}

function strings(obj: Record<string, unknown>, key: string, at: string): string[] | undefined {
  const v = obj[key];
  if (v === undefined) return undefined;
  if (!Array.isArray(v) || v.some((s) => typeof s !== "string" || s === "")) {
    throw new TypeError(`${at}.${key} must be an array of non-empty strings`);
  }
  return v as string[];
}

/**
 * The served versions of `crd` (a CustomResourceDefinition object), checked.
 * @throws {TypeError} naming `at` and the bad field.
 */
export function crdServedResources(crd: Record<string, unknown>, at: string): CrdVersion[] {
  if (crd.apiVersion !== "apiextensions.k8s.io/v1") {
    throw new TypeError(
      `${at}: a CustomResourceDefinition must be apiextensions.k8s.io/v1, got ${
        describeValue(crd.apiVersion)
      }`,
    );
  }
  const spec = crd.spec;
  if (!isRecord(spec)) throw new TypeError(`${at}.spec must be an object`);
  const group = text(spec, "group", `${at}.spec`);
  const names = spec.names;
  if (!isRecord(names)) throw new TypeError(`${at}.spec.names must be an object`);
  const plural = text(names, "plural", `${at}.spec.names`);
  const kind = text(names, "kind", `${at}.spec.names`);
  const shortNames = strings(names, "shortNames", `${at}.spec.names`);
  const categories = strings(names, "categories", `${at}.spec.names`);
  const singular = names.singular;
  if (singular !== undefined && typeof singular !== "string") {
    throw new TypeError(`${at}.spec.names.singular must be a string`);
  }
  if (spec.scope !== "Namespaced" && spec.scope !== "Cluster") {
    throw new TypeError(
      `${at}.spec.scope must be "Namespaced" or "Cluster", got ${describeValue(spec.scope)}`,
    );
  }
  const versions = spec.versions;
  if (!Array.isArray(versions) || versions.length === 0) {
    throw new TypeError(`${at}.spec.versions must be a non-empty array`);
  }
  const storage = versions.filter((v) => isRecord(v) && v.storage === true);
  if (storage.length !== 1) {
    throw new TypeError(`${at}.spec.versions must have exactly one storage version`);
  }
  const storageVersion = (storage[0] as Record<string, unknown>).name;
  const storageApiVersion = `${group}/${String(storageVersion)}`;
  const out: CrdVersion[] = [];
  versions.forEach((v: unknown, i) => {
    const where = `${at}.spec.versions[${i}]`;
    if (!isRecord(v)) throw new TypeError(`${where} must be an object`);
    const version = text(v, "name", where);
    if (v.served !== true) {
      if (version === storageVersion) {
        throw new TypeError(
          `${where}: the storage version must be served by the simulated cluster`,
        );
      }
      return;
    }
    const subresources = isRecord(v.subresources) ? v.subresources : {};
    const schema = isRecord(v.schema) && isRecord(v.schema.openAPIV3Schema)
      ? v.schema.openAPIV3Schema
      : undefined;
    const resource: ServedResource = {
      resource: { group, version, resource: plural, kind, namespaced: spec.scope === "Namespaced" },
      statusSubresource: isRecord(subresources.status),
      scaleSubresource: isRecord(subresources.scale),
      shortNames: shortNames ?? [],
      categories: categories ?? [],
      ...(v.additionalPrinterColumns === undefined ? {} : {
        printerColumns: checkPrinterColumns(
          v.additionalPrinterColumns,
          `${where}.additionalPrinterColumns`,
        ),
      }),
      ...(schema === undefined ? {} : { schema }),
      ...(v.selectableFields === undefined ? {} : {
        selectableFields: checkSelectableFields(
          v.selectableFields,
          `${where}.selectableFields`,
          schema,
        ).map((name) => ({ jsonPath: `.${name}` })),
      }),
    };
    const view: StorageView | undefined = version === storageVersion ? undefined : {
      storage: `${group}/${storageVersion}/${plural}`,
      served: (item: KubeObject) => item,
      stored: (obj: Record<string, unknown>) =>
        Object.hasOwn(obj, "apiVersion") ? { ...obj, apiVersion: storageApiVersion } : obj,
      storedField: (name: string) => name,
    };
    out.push(view === undefined ? { resource } : { resource, view });
  });
  return out;
}
