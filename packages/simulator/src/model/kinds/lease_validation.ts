/**
 * What the API server checks on a `coordination.k8s.io/v1` Lease: `acquireTime` and
 * `renewTime` are MicroTime (RFC 3339 with exactly six fractional digits; anything else fails
 * to decode, a 400), `leaseDurationSeconds` must be > 0 and `leaseTransitions` >= 0 (a 422).
 * @module
 */
import { parseMicroTime } from "@kinformer/kinformer/internal";
import { describeValue, isRecord } from "@kinformer/kinformer/internal";
import { badRequest, fail, type FieldProblem, invalid } from "../../core/status.ts";

/** Throws the Status a real server answers for a malformed or invalid Lease. */
export function checkLease(obj: Record<string, unknown>, name: string): void {
  const spec = obj.spec;
  if (spec === undefined || spec === null) return;
  if (!isRecord(spec)) fail(badRequest(decodeError("spec: expected an object")));
  for (const field of ["acquireTime", "renewTime"] as const) {
    const value = spec[field];
    if (value === undefined || value === null) continue;
    if (typeof value !== "string" || parseMicroTime(value) === undefined) {
      fail(badRequest(decodeError(
        `spec.${field}: ${
          describeValue(value)
        } is not a MicroTime (RFC 3339 with exactly six fractional digits, e.g. 2006-01-02T15:04:05.000000Z)`,
      )));
    }
  }
  if (spec.holderIdentity !== undefined && spec.holderIdentity !== null) {
    if (typeof spec.holderIdentity !== "string") {
      fail(badRequest(decodeError("spec.holderIdentity: expected a string")));
    }
  }
  const problems: FieldProblem[] = [];
  for (const [field, min] of [["leaseDurationSeconds", 1], ["leaseTransitions", 0]] as const) {
    const value = spec[field];
    if (value === undefined || value === null) continue;
    if (typeof value !== "number" || !Number.isInteger(value)) {
      fail(badRequest(decodeError(`spec.${field}: expected an integer`)));
    }
    if (value < min) {
      problems.push({
        reason: "FieldValueInvalid",
        field: `spec.${field}`,
        message: `Invalid value: ${value}: must be greater than ${
          min === 1 ? "0" : "or equal to 0"
        }`,
      });
    }
  }
  if (problems.length > 0) fail(invalid("Lease", "coordination.k8s.io", name, problems));
}

function decodeError(detail: string): string {
  return `Lease in version "v1" cannot be handled as a Lease: ${detail}`;
}
