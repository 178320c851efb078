/**
 * What kube-apiserver checks and defaults in a CustomResourceDefinition written through the
 * API, as far as the simulated cluster needs it to serve the CRD: the name is
 * `<plural>.<group>`, the group a domain with a dot, the scope `Namespaced` or `Cluster`,
 * exactly one storage version, and whatever the simulated cluster must read to serve it
 * (printer columns, names); `spec.names.singular` and `listKind` and `spec.conversion` are
 * defaulted. A bad CRD is a 422 `Invalid` Status, field by field as the real server words it.
 * @module
 */
import { describeValue, isRecord } from "@kinformer/kinformer/internal";
import { isDnsSubdomain } from "@kinformer/kinformer/internal";
import { fail, type FieldProblem, invalid } from "../../core/status.ts";
import { crdServedResources } from "./custom_resources.ts";

function required(problems: FieldProblem[], field: string): void {
  problems.push({ reason: "FieldValueRequired", field, message: "Required value" });
}

function invalidValue(problems: FieldProblem[], field: string, v: unknown, why: string): void {
  problems.push({
    reason: "FieldValueInvalid",
    field,
    message: `Invalid value: ${describeValue(v)}: ${why}`,
  });
}

/** Defaults `spec.names.singular`, `spec.names.listKind` and `spec.conversion`, in place. */
function defaults(spec: Record<string, unknown>): void {
  const names = spec.names;
  if (isRecord(names) && typeof names.kind === "string" && names.kind !== "") {
    if (names.singular === undefined || names.singular === "") {
      names.singular = names.kind.toLowerCase();
    }
    if (names.listKind === undefined || names.listKind === "") {
      names.listKind = `${names.kind}List`;
    }
  }
  if (spec.conversion === undefined) spec.conversion = { strategy: "None" };
}

/**
 * Checks (422) and defaults (in place) a CustomResourceDefinition written through the API: the
 * `check` of the `customresourcedefinitions` resource.
 */
export function checkCustomResourceDefinition(obj: Record<string, unknown>, name: string): void {
  const problems: FieldProblem[] = [];
  const spec = obj.spec;
  if (!isRecord(spec)) {
    required(problems, "spec");
  } else {
    defaults(spec);
    const group = spec.group;
    if (typeof group !== "string" || group === "") required(problems, "spec.group");
    else if (!isDnsSubdomain(group) || !group.includes(".")) {
      invalidValue(problems, "spec.group", group, "should be a domain with at least one dot");
    }
    const names = isRecord(spec.names) ? spec.names : {};
    const plural = names.plural;
    if (typeof plural !== "string" || plural === "") required(problems, "spec.names.plural");
    if (typeof names.kind !== "string" || names.kind === "") required(problems, "spec.names.kind");
    if (typeof plural === "string" && typeof group === "string" && name !== `${plural}.${group}`) {
      invalidValue(problems, "metadata.name", name, 'must be spec.names.plural+"."+spec.group');
    }
    if (spec.scope !== "Namespaced" && spec.scope !== "Cluster") {
      problems.push(
        spec.scope === undefined || spec.scope === ""
          ? {
            reason: "FieldValueRequired",
            field: "spec.scope",
            message: "Required value",
          }
          : {
            reason: "FieldValueNotSupported",
            field: "spec.scope",
            message: `Unsupported value: ${
              describeValue(spec.scope)
            }: supported values: "Cluster", "Namespaced"`,
          },
      );
    }
    const versions = spec.versions;
    if (!Array.isArray(versions) || versions.length === 0) {
      problems.push({
        reason: "FieldValueInvalid",
        field: "spec.versions",
        message: "Invalid value: must have exactly one version marked as storage version",
      });
    } else if (versions.filter((v) => isRecord(v) && v.storage === true).length !== 1) {
      problems.push({
        reason: "FieldValueInvalid",
        field: "spec.versions",
        message: "Invalid value: must have exactly one version marked as storage version",
      });
    }
    if (problems.length === 0) {
      // Whatever else the simulated cluster reads to serve it (names, printer columns, ...).
      try {
        crdServedResources({ ...obj, apiVersion: "apiextensions.k8s.io/v1" }, "");
      } catch (error) {
        if (!(error instanceof TypeError)) throw error;
        problems.push({
          reason: "FieldValueInvalid",
          field: "spec",
          message: `Invalid value: ${error.message.replace(/^[.:] ?/, "")}`,
        });
      }
    }
  }
  if (problems.length > 0) {
    fail(invalid("CustomResourceDefinition", "apiextensions.k8s.io", name, problems));
  }
}
