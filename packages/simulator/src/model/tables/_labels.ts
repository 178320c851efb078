/**
 * Labels and label selectors as kube-apiserver's printers write them (`labels.FormatLabels`,
 * `LabelSelectorAsSelector(...).String()`, `metav1.FormatLabelSelector`). Internal.
 * @module
 */
import { isRecord } from "@kinformer/kinformer/internal";
import { list, stringMap } from "./_fields.ts";

/** `k1=v1,k2=v2` sorted by key, `<none>` when empty. */
export function formatLabels(obj: unknown, ...path: string[]): string {
  const entries = stringMap(obj, ...path);
  return entries.length === 0 ? "<none>" : entries.map(([k, v]) => `${k}=${v}`).join(",");
}

const OPERATORS: Readonly<Record<string, string>> = {
  In: " in ",
  NotIn: " notin ",
  Exists: "",
  DoesNotExist: "",
};

/**
 * The selector text of a `LabelSelector` (requirements sorted by key; `""` for an absent or
 * empty one), or undefined when it is malformed (an unknown operator, values where none or
 * none where some are needed).
 */
export function selectorText(selector: unknown): string | undefined {
  if (!isRecord(selector)) return "";
  const requirements: Array<[string, string]> = [];
  for (const [key, value] of stringMap(selector, "matchLabels")) {
    requirements.push([key, `${key}=${value}`]);
  }
  for (const expr of list(selector, "matchExpressions")) {
    if (!isRecord(expr) || typeof expr.key !== "string" || typeof expr.operator !== "string") {
      return undefined;
    }
    const op = expr.operator;
    if (!Object.hasOwn(OPERATORS, op)) return undefined;
    const values = (Array.isArray(expr.values) ? expr.values : []).filter((v) =>
      typeof v === "string"
    ) as string[];
    if (op === "Exists" || op === "DoesNotExist") {
      if (values.length > 0) return undefined;
      requirements.push([expr.key, op === "Exists" ? expr.key : `!${expr.key}`]);
      continue;
    }
    if (values.length === 0) return undefined;
    const text = values.length === 1 ? values[0] : [...values].sort().join(",");
    requirements.push([expr.key, `${expr.key}${OPERATORS[op]}(${text})`]);
  }
  requirements.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  return requirements.map((r) => r[1]).join(",");
}

/** `metav1.FormatLabelSelector`: the selector text, `<none>` when empty, `<error>` when bad. */
export function formatLabelSelector(selector: unknown): string {
  const text = selectorText(selector);
  return text === undefined ? "<error>" : text === "" ? "<none>" : text;
}
