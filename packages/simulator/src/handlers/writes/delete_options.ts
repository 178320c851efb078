/**
 * The `DeleteOptions` of a DELETE, read as kube-apiserver reads them: from the JSON body when
 * there is one, else from the query (`propagationPolicy`, `orphanDependents`), and checked as
 * its `ValidateDeleteOptions` checks them (422 for an unknown policy or for both fields set).
 * With a body, the query is not read at all (`dryRun` and `propagationPolicy` there are
 * ignored), as on kube-apiserver.
 * @module
 */
import { describeValue, isRecord } from "@kinformer/kinformer/internal";
import type { DeletionRequest, PropagationPolicy } from "../../store/deletion.ts";
import { parseJsonBody } from "../../core/request_body.ts";
import { badRequest, fail, type FieldProblem, invalid } from "../../core/status.ts";

const POLICIES: readonly string[] = ["Foreground", "Background", "Orphan"];

/** Reads a boolean query parameter as Go's `strconv.ParseBool` (400 otherwise). */
function queryBool(query: URLSearchParams, name: string): boolean | undefined {
  const text = query.get(name);
  if (text === null) return undefined;
  if (["1", "t", "T", "TRUE", "true", "True"].includes(text)) return true;
  if (["0", "f", "F", "FALSE", "false", "False"].includes(text)) return false;
  fail(badRequest(`strconv.ParseBool: parsing ${describeValue(text)}: invalid syntax`));
}

/**
 * The deletion a DELETE asks for: `text` is its body (maybe empty), `queryDryRun` whether the
 * query asked for a dry run.
 */
export function deletionRequest(
  url: URL,
  text: string,
  maxJsonDepth: number,
  queryDryRun: boolean,
): DeletionRequest {
  let policy: unknown;
  let orphan: unknown;
  let preconditions: DeletionRequest["preconditions"];
  let dryRun = false;
  if (text.trim() !== "") {
    const body = parseJsonBody(text, maxJsonDepth);
    if (!isRecord(body)) fail(badRequest("the body of a DELETE must be a DeleteOptions object"));
    policy = body.propagationPolicy ?? undefined;
    orphan = body.orphanDependents ?? undefined;
    if (isRecord(body.preconditions)) {
      const { uid, resourceVersion } = body.preconditions;
      preconditions = {
        uid: typeof uid === "string" ? uid : undefined,
        resourceVersion: typeof resourceVersion === "string" ? resourceVersion : undefined,
      };
    }
    if (Array.isArray(body.dryRun) && body.dryRun.includes("All")) dryRun = true;
  } else {
    policy = url.searchParams.get("propagationPolicy") ?? undefined;
    orphan = queryBool(url.searchParams, "orphanDependents");
    dryRun = queryDryRun;
  }
  const problems: FieldProblem[] = [];
  if (orphan !== undefined && typeof orphan !== "boolean") {
    fail(badRequest("orphanDependents must be a boolean"));
  }
  if (orphan !== undefined && policy !== undefined) {
    problems.push({
      reason: "FieldValueInvalid",
      field: "propagationPolicy",
      message: `Invalid value: ${
        describeValue(policy)
      }: orphanDependents and deletionPropagation cannot be both set`,
    });
  }
  if (policy !== undefined && (typeof policy !== "string" || !POLICIES.includes(policy))) {
    problems.push({
      reason: "FieldValueNotSupported",
      field: "propagationPolicy",
      message: `Unsupported value: ${
        describeValue(policy)
      }: supported values: "Foreground", "Background", "Orphan", "nil"`,
    });
  }
  if (problems.length > 0) fail(invalid("DeleteOptions", "meta.k8s.io", "", problems));
  return {
    propagationPolicy: policy as PropagationPolicy | undefined,
    orphanDependents: orphan as boolean | undefined,
    preconditions,
    dryRun,
  };
}
