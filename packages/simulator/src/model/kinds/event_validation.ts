/**
 * What the API server checks on an Event: MicroTime fields (`eventTime`,
 * `series.lastObservedTime`) must decode (a 400), and the validation of `ValidateEventCreate`:
 * every Event's namespace must agree with the object it is about and, when `eventTime` is set,
 * `reportingController`, `reportingInstance`, `action` and `reason` are required and bounded
 * (128 characters; a note/message 1024); an Event created through `events.k8s.io/v1` must
 * also have `eventTime`, a `type` of `Normal` or `Warning`, a `series` of count 2 or more, and
 * none of the `deprecated*` fields (a 422 naming the fields).
 * @module
 */
import { parseMicroTime } from "@kinformer/kinformer/internal";
import { describeValue, isRecord } from "@kinformer/kinformer/internal";
import { badRequest, fail, type FieldProblem, invalid } from "../../core/status.ts";

const LIMIT = 128;
const NOTE_LIMIT = 1024;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

function text(obj: Record<string, unknown>, key: string): string {
  const v = obj[key];
  return typeof v === "string" ? v : "";
}

function present(obj: Record<string, unknown>, key: string): boolean {
  return Object.hasOwn(obj, key) && obj[key] !== null && obj[key] !== undefined &&
    obj[key] !== "" &&
    obj[key] !== 0;
}

function checkMicroTime(value: unknown, field: string): void {
  if (value === undefined || value === null) return;
  if (typeof value !== "string" || parseMicroTime(value) === undefined) {
    fail(badRequest(
      `Event in version "v1" cannot be handled as a Event: ${field}: ${
        describeValue(value)
      } is not a MicroTime (RFC 3339 with exactly six fractional digits, e.g. 2006-01-02T15:04:05.000000Z)`,
    ));
  }
}

const required = (field: string): FieldProblem => ({
  reason: "FieldValueRequired",
  field,
  message: "Required value",
});
const invalidValue = (field: string, value: string, detail: string): FieldProblem => ({
  reason: "FieldValueInvalid",
  field,
  message: `Invalid value: ${describeValue(value)}: ${detail}`,
});

/**
 * The checks of an Event written as `version` (`core`: core/v1 field names; `events`:
 * events.k8s.io/v1 ones, with the stricter rules of that API on create). `obj` is in the
 * form it was written.
 */
export function checkEvent(
  obj: Record<string, unknown>,
  name: string,
  version: "core" | "events",
  create: boolean,
): void {
  const core = version === "core";
  const names = core
    ? { regarding: "involvedObject", controller: "reportingComponent", note: "message" }
    : { regarding: "regarding", controller: "reportingController", note: "note" };
  checkMicroTime(obj.eventTime, "eventTime");
  const series = isRecord(obj.series) ? obj.series : undefined;
  checkMicroTime(series?.lastObservedTime, "series.lastObservedTime");
  const metadata = isRecord(obj.metadata) ? obj.metadata : {};
  const namespace = typeof metadata.namespace === "string" ? metadata.namespace : "";
  const regarding = isRecord(obj[names.regarding])
    ? obj[names.regarding] as Record<string, unknown>
    : {};
  const regardingNs = text(regarding, "namespace");
  const problems: FieldProblem[] = [];
  const nsField = `${names.regarding}.namespace`;
  if (!present(obj, "eventTime")) {
    if (
      regardingNs === "" ? namespace !== "" && namespace !== "default" : namespace !== regardingNs
    ) {
      problems.push(invalidValue(nsField, regardingNs, "does not match event.namespace"));
    }
  } else {
    if (regardingNs === "" && namespace !== "default" && namespace !== "kube-system") {
      problems.push(invalidValue(nsField, regardingNs, "does not match event.namespace"));
    }
    const controller = text(obj, names.controller);
    if (controller === "") problems.push(required(names.controller));
    for (
      const [field, value] of [["reportingInstance", text(obj, "reportingInstance")], [
        "action",
        text(obj, "action"),
      ], ["reason", text(obj, "reason")]] as const
    ) {
      if (value === "") problems.push(required(field));
      if (value.length > LIMIT) {
        problems.push(invalidValue(field, "", `can have at most ${LIMIT} characters`));
      }
    }
    if (text(obj, names.note).length > NOTE_LIMIT) {
      problems.push(invalidValue(names.note, "", `can have at most ${NOTE_LIMIT} characters`));
    }
  }
  if (namespace !== "" && !DNS_SUBDOMAIN.test(namespace)) {
    problems.push(invalidValue("namespace", namespace, "must be a lowercase RFC 1123 subdomain"));
  }
  if (!core && create) {
    if (series !== undefined) {
      const count = series.count;
      if (typeof count !== "number" || count < 2) {
        problems.push(invalidValue("series.count", "", "should be at least 2"));
      }
      if (!present(series, "lastObservedTime")) problems.push(required("series.lastObservedTime"));
    }
    if (!present(obj, "eventTime")) problems.push(required("eventTime"));
    const type = text(obj, "type");
    if (type !== "Normal" && type !== "Warning") {
      problems.push(invalidValue("type", "", `has invalid value: ${type}`));
    }
    if (present(obj, "deprecatedFirstTimestamp")) {
      problems.push(invalidValue("deprecatedFirstTimestamp", "", "needs to be unset"));
    }
    if (present(obj, "deprecatedLastTimestamp")) {
      problems.push(invalidValue("deprecatedLastTimestamp", "", "needs to be unset"));
    }
    if (present(obj, "deprecatedCount")) {
      problems.push(invalidValue("deprecatedCount", "", "needs to be unset"));
    }
    const source = isRecord(obj.deprecatedSource) ? obj.deprecatedSource : {};
    if (text(source, "component") !== "" || text(source, "host") !== "") {
      problems.push(invalidValue("deprecatedSource", "", "needs to be unset"));
    }
  }
  if (problems.length > 0) {
    fail(invalid("Event", core ? "" : "events.k8s.io", name, problems));
  }
}
