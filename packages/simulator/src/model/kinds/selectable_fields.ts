/**
 * A custom resource's `selectableFields` (apiextensions.k8s.io/v1, a CRD version's
 * `selectableFields[].jsonPath`; beta in Kubernetes 1.31, GA in 1.32): the fields a field
 * selector may name besides `metadata.name` and `metadata.namespace`, checked as the API server
 * checks them when the CRD is written. Internal.
 * @module
 */
import { describeValue, isRecord } from "@kinformer/kinformer/internal";

/** kube-apiserver allows at most this many selectable fields per CRD version. */
export const MAX_SELECTABLE_FIELDS = 8;

/** One selectable field, as in a CRD version. */
export interface SelectableField {
  /** A simple JSON path into the object, e.g. `.spec.color` (no array notation). */
  readonly jsonPath: string;
}

/** A simple JSON path: `.a.b.c`, no array notation, no empty segment. */
const SIMPLE_PATH = /^(\.[^.[\]\s]+)+$/;

/**
 * `value` checked as a CRD version's `selectableFields` (against `schema`, its
 * `openAPIV3Schema`, when there is one): the field selector names they add (`spec.color`).
 * @throws {TypeError} naming `at` and what is wrong.
 */
export function checkSelectableFields(
  value: unknown,
  at: string,
  schema: Record<string, unknown> | undefined,
): string[] {
  if (!Array.isArray(value)) {
    throw new TypeError(`${at} must be an array of { jsonPath }, got ${describeValue(value)}`);
  }
  if (value.length > MAX_SELECTABLE_FIELDS) {
    throw new TypeError(`${at}: must have at most ${MAX_SELECTABLE_FIELDS} items`);
  }
  const names: string[] = [];
  value.forEach((field: unknown, i) => {
    const where = `${at}[${i}].jsonPath`;
    const path = isRecord(field) ? field.jsonPath : undefined;
    if (typeof path !== "string" || path === "") {
      throw new TypeError(`${where} must be a non-empty string, got ${describeValue(path)}`);
    }
    if (!SIMPLE_PATH.test(path)) {
      throw new TypeError(
        `${where}: ${describeValue(path)} is not a simple JSON path such as .spec.color ` +
          "(no array notation)",
      );
    }
    const segments = path.slice(1).split(".");
    if (segments[0] === "metadata") {
      throw new TypeError(`${where}: ${describeValue(path)} must not point to metadata fields`);
    }
    if (schema !== undefined) checkInSchema(segments, schema, where, path);
    const name = segments.join(".");
    if (names.includes(name)) {
      throw new TypeError(`${where}: ${describeValue(path)} is a duplicate`);
    }
    names.push(name);
  });
  return names;
}

/** The field at `segments` must be a string, boolean or integer in `schema`. */
function checkInSchema(
  segments: readonly string[],
  schema: Record<string, unknown>,
  where: string,
  path: string,
): void {
  let node: Record<string, unknown> = schema;
  for (const segment of segments) {
    const properties = node.properties;
    const next = isRecord(properties) ? properties[segment] : undefined;
    if (!isRecord(next)) {
      // Below a field that keeps unknown fields there is nothing to check against.
      if (node["x-kubernetes-preserve-unknown-fields"] === true) return;
      throw new TypeError(`${where}: ${describeValue(path)} is not a field of the schema`);
    }
    node = next;
  }
  if (!["string", "boolean", "integer"].includes(node.type as string)) {
    throw new TypeError(
      `${where}: ${describeValue(path)} must point to a field of type string, boolean or ` +
        `integer, got ${describeValue(node.type)}`,
    );
  }
}
