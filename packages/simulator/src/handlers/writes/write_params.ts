/**
 * The query parameters of the simulated cluster's writes (`fieldManager`, `dryRun`, `force`),
 * checked as the API server checks them, and the ownership tracking they configure.
 * @module
 */
import type { KubeObject } from "@kinformer/kinformer/client";
import {
  formatManagedFields,
  parseManagedFields,
  type Scope,
  trackUpdate,
  type Writer,
} from "./managed_fields.ts";
import type { ResourceInfo } from "../../model/registry/served_resources.ts";
import { badRequest, fail, type FieldProblem, invalid } from "../../core/status.ts";
import type { FieldTracker } from "../../store/write_extras.ts";
import { describeValue } from "@kinformer/kinformer/internal";

/** Longest `fieldManager` the API server accepts. */
const MAX_FIELD_MANAGER = 128;

/** A write's parameters. */
export interface WriteParams {
  /** `fieldManager`, or the user agent's product name (as the API server derives it). */
  manager: string;
  /** `dryRun=All`. */
  dryRun: boolean;
  /** `force=true` (server-side apply only). */
  force: boolean;
}

/** The options kind a verb's parameters are validated as, in 422 answers. */
const OPTIONS_KIND = {
  create: "CreateOptions",
  update: "UpdateOptions",
  patch: "PatchOptions",
  delete: "DeleteOptions",
} as const;

/**
 * Reads and checks `fieldManager`, `dryRun` and `force` of a write: an unknown `dryRun` value is
 * a 400; a `fieldManager` over 128 characters, a missing one on an apply, or `force` on anything
 * but an apply is a 422 naming the field.
 */
export function writeParams(
  request: Request,
  verb: keyof typeof OPTIONS_KIND,
  apply: boolean,
): WriteParams {
  const query = new URL(request.url).searchParams;
  const dryRun = query.getAll("dryRun");
  for (const value of dryRun) {
    if (value !== "All") {
      fail(badRequest(`unsupported dryRun value ${describeValue(value)}: the only one is "All"`));
    }
  }
  const problems: FieldProblem[] = [];
  const given = query.get("fieldManager");
  if (given !== null && given.length > MAX_FIELD_MANAGER) {
    problems.push({
      reason: "FieldValueTooLong",
      field: "fieldManager",
      message: `Too long: may not be more than ${MAX_FIELD_MANAGER} bytes`,
    });
  }
  if (apply && (given === null || given === "")) {
    problems.push({
      reason: "FieldValueRequired",
      field: "fieldManager",
      message: "Required value: is required for apply patch",
    });
  }
  const force = query.get("force");
  if (force !== null && !apply) {
    problems.push({
      reason: "FieldValueForbidden",
      field: "force",
      message: "Forbidden: may not be specified for non-apply patch",
    });
  }
  if (problems.length > 0) fail(invalid(OPTIONS_KIND[verb], "meta.k8s.io", "", problems));
  const agent = request.headers.get("user-agent") ?? "";
  const manager = given || agent.split("/")[0]!.slice(0, MAX_FIELD_MANAGER) || "unknown";
  return { manager, dryRun: dryRun.length > 0, force: force === "true" };
}

/** The part of an object a write to `subresource` covers. */
export function scopeOf(info: ResourceInfo, subresource: string | undefined): Scope {
  if (subresource === "status") return "status";
  return info.statusSubresource ? "main" : "all";
}

/** The writer of an operation, now. */
export function writerOf(
  info: ResourceInfo,
  params: WriteParams,
  operation: "Apply" | "Update",
  subresource: string | undefined,
  time: string,
): Writer {
  return { manager: params.manager, operation, subresource, apiVersion: info.apiVersion, time };
}

/** Whether `value` is `[{}]`: the way to clear managedFields with a non-apply write. */
function isReset(value: unknown): boolean {
  return Array.isArray(value) && value.length === 1 && typeof value[0] === "object" &&
    value[0] !== null && Object.keys(value[0]).length === 0;
}

/**
 * Ownership tracking of a non-apply write. The request's own `managedFields` count when given:
 * absent or `[]` keeps the stored ones, `[{}]` clears them all, anything else replaces them
 * (before this write's changes are recorded), as on the API server.
 */
export function updateTracker(writer: Writer, scope: Scope): FieldTracker {
  return (before: KubeObject | undefined, after: KubeObject): unknown[] => {
    const sent: unknown = after.metadata.managedFields;
    if (isReset(sent)) return [];
    const base = Array.isArray(sent) && sent.length > 0 ? sent : before?.metadata.managedFields;
    return formatManagedFields(trackUpdate(parseManagedFields(base), before, after, writer, scope));
  };
}
