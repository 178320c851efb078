/**
 * The options a LIST and a WATCH share, checked as the real API server checks its
 * `ListOptions`: label and field selectors (a bad or unsupported one is a 400), decimal
 * resource versions, and the 422 for invalid combinations; and whether an object passes them.
 * @module
 */
import { type FieldSelector, parseFieldSelector } from "@kinformer/kinformer/client";
import {
  type LabelSelector,
  parseLabelSelector,
  SelectorParseError,
} from "@kinformer/kinformer/client";
import type { ResourceInfo } from "../../model/registry/served_resources.ts";
import type { Version } from "../../store/object_version.ts";
import type { KubeObject } from "@kinformer/kinformer/client";
import {
  badRequest,
  fail,
  type FieldProblem,
  invalid,
  resourceVersionTooLarge,
} from "../../core/status.ts";
import { describeValue } from "@kinformer/kinformer/internal";

/** Label and field selector of a request. */
export interface Selectors {
  /** Label selector. */
  readonly label: LabelSelector;
  /** Field selector. */
  readonly field: FieldSelector;
}

/** Parses `labelSelector`/`fieldSelector`; a bad or unsupported one is a 400, as on a real server. */
export function parseSelectors(info: ResourceInfo, query: URLSearchParams): Selectors {
  let label: LabelSelector;
  let field: FieldSelector;
  try {
    label = parseLabelSelector(query.get("labelSelector") ?? "");
  } catch (e) {
    if (e instanceof SelectorParseError) {
      fail(badRequest(`unable to parse requirement: ${e.message}`));
    }
    throw e;
  }
  try {
    field = parseFieldSelector(query.get("fieldSelector") ?? "");
  } catch (e) {
    if (e instanceof SelectorParseError) fail(badRequest(`invalid field selector: ${e.message}`));
    throw e;
  }
  for (const r of field.requirements) {
    if (!info.fieldSelectors.has(r.path)) {
      fail(badRequest(`field label not supported: ${r.path}`));
    }
  }
  return { label, field };
}

/** The largest resourceVersion kube-apiserver parses (a uint64). */
const MAX_RESOURCE_VERSION = 18446744073709551615n;

/**
 * Parses a resourceVersion as kube-apiserver does (Go's `strconv.ParseUint`, base 10: digits
 * only, leading zeros allowed, at most 2^64-1); anything else is its 400
 * `invalid resource version: ...`. Versions beyond 2^53 come back rounded: they are larger than
 * any the simulator has handed out, so they still read as "too new".
 */
export function parseResourceVersion(text: string): number {
  let why: string | undefined;
  const digits = text.replace(/^0+(?=.)/, "");
  if (!/^[0-9]+$/.test(text)) why = "invalid syntax";
  else if (digits.length > 20 || BigInt(digits) > MAX_RESOURCE_VERSION) why = "value out of range";
  if (why !== undefined) {
    const quoted = describeValue(text);
    fail(badRequest(
      `invalid resource version: resourceVersion: Invalid value: ${quoted}: strconv.ParseUint: parsing ${quoted}: ${why}`,
    ));
  }
  return Number(text);
}

/**
 * The version a read asks for with `resourceVersion=text` ("not older than"): undefined for ""
 * and "0" (any), the API server's 400 when it does not parse, and its 504 "Too large resource
 * version" when the store (at `current`) has not reached it.
 */
export function notNewerThan(text: string, current: number): number | undefined {
  if (text === "" || text === "0") return undefined;
  const n = parseResourceVersion(text);
  if (n > current) fail(resourceVersionTooLarge(text, current));
  return n;
}

/** 422 for invalid list/watch options (the server's `ListOptions` validation). */
export function invalidOptions(problems: FieldProblem[]): never {
  fail(invalid("ListOptions", "meta.k8s.io", "", problems));
}

/** Forbidden problem helper. */
export function forbidden(field: string, message: string): FieldProblem {
  return { reason: "FieldValueForbidden", field, message: `Forbidden: ${message}` };
}

/** NotSupported problem helper. */
export function notSupported(field: string, value: string, supported: string[]): FieldProblem {
  return {
    reason: "FieldValueNotSupported",
    field,
    message: `Unsupported value: ${describeValue(value)}: supported values: ${
      supported.map((s) => JSON.stringify(s)).join(", ")
    }`,
  };
}

/**
 * Whether `v` passes the namespace and selectors (field selectors see `item`, the object as
 * served, which differs from the stored one for a resource served from another's storage).
 */
export function selected(
  v: Version,
  namespace: string | undefined,
  s: Selectors,
  item: KubeObject = v.item,
): boolean {
  if (namespace && item.metadata.namespace !== namespace) return false;
  return s.label.matches(item.metadata.labels) && s.field.matches(item);
}
