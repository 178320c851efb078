/**
 * The Table of a custom resource, as the API server builds it from its CRD version's
 * `additionalPrinterColumns`: `Name`, then one column per printer column, each cell the first
 * value its JSONPath selects, typed by the column's `type` (`integer` cells truncate numbers,
 * `date` cells are ages like `5m`, `string` cells print numbers, booleans and JSON as kubectl's
 * JSONPath does). A CRD version without printer columns gets `Age` (a `date` column of
 * `.metadata.creationTimestamp`).
 * @module
 */
import type { KubeObject } from "@kinformer/kinformer/client";
import { describeValue, isRecord } from "@kinformer/kinformer/internal";
import { doc } from "./_field_docs.ts";
import { humanDuration, parseTime } from "./human_duration.ts";
import { JsonPath, JsonPathError } from "./jsonpath.ts";
import { column, type ColumnDefinition, NAME, type TableConvertor } from "./table_convertor.ts";

/**
 * One of a CRD version's `additionalPrinterColumns` (option `resources`, `printerColumns`).
 *
 * @example
 * ```ts
 * import { defineResource } from "@kinformer/kinformer/client";
 * import { SimulatedCluster } from "@kinformer/simulator";
 * import assert from "node:assert/strict";
 *
 * const gadgets = defineResource({
 *   group: "example.org", version: "v1", resource: "gadgets", kind: "Gadget", namespaced: true,
 * });
 * const cluster = new SimulatedCluster({
 *   resources: [{
 *     resource: gadgets,
 *     printerColumns: [{ name: "Size", type: "integer", jsonPath: ".spec.size" }],
 *   }],
 * });
 * cluster.create(gadgets, { metadata: { namespace: "default", name: "g" }, spec: { size: 3 } });
 * const res = await cluster.fetch(new Request("http://sim.test/apis/example.org/v1/gadgets", {
 *   headers: { Accept: "application/json;as=Table;v=v1;g=meta.k8s.io" },
 * }));
 * const table = await res.json();
 * assert.deepEqual(table.columnDefinitions.map((c: { name: string }) => c.name), ["Name", "Size"]);
 * assert.deepEqual(table.rows[0].cells, ["g", 3]);
 * cluster.close();
 * ```
 */
export interface PrinterColumn {
  /** Column name (kubectl prints it upper-cased). */
  readonly name: string;
  /** `integer`, `number`, `string`, `boolean` or `date`. */
  readonly type: string;
  /** Format hint (`int32`, `date-time`, `name`, ...). @default "" */
  readonly format?: string;
  /** What the column shows. @default "Custom resource definition column (in JSONPath format): <jsonPath>" */
  readonly description?: string;
  /** 0 for a default column, more for a wide one (`-o wide`). @default 0 */
  readonly priority?: number;
  /** A simple JSONPath into the object, such as `.spec.replicas` or `.status.conditions[?(@.type=="Ready")].status`. */
  readonly jsonPath: string;
}

const TYPES = new Set(["integer", "number", "string", "boolean", "date"]);

/**
 * Checks `columns` (a CRD version's `additionalPrinterColumns`) and returns them frozen.
 * @throws {TypeError} naming `at` and the bad entry.
 */
export function checkPrinterColumns(columns: unknown, at: string): readonly PrinterColumn[] {
  if (!Array.isArray(columns)) {
    throw new TypeError(`${at} must be an array, got ${describeValue(columns)}`);
  }
  return Object.freeze(columns.map((c: unknown, i) => {
    const where = `${at}[${i}]`;
    if (!isRecord(c)) throw new TypeError(`${where} must be an object, got ${describeValue(c)}`);
    if (typeof c.name !== "string" || c.name === "") {
      throw new TypeError(`${where}.name must be a non-empty string`);
    }
    if (typeof c.type !== "string" || !TYPES.has(c.type)) {
      throw new TypeError(
        `${where}.type must be one of integer, number, string, boolean, date, got ${
          describeValue(c.type)
        }`,
      );
    }
    if (typeof c.jsonPath !== "string" || c.jsonPath === "") {
      throw new TypeError(`${where}.jsonPath must be a non-empty string`);
    }
    try {
      new JsonPath(c.jsonPath);
    } catch (e) {
      if (e instanceof JsonPathError) throw new TypeError(`${where}.jsonPath: ${e.message}`);
      throw e;
    }
    for (const key of ["format", "description"] as const) {
      if (c[key] !== undefined && typeof c[key] !== "string") {
        throw new TypeError(`${where}.${key} must be a string`);
      }
    }
    if (c.priority !== undefined && (!Number.isInteger(c.priority) || (c.priority as number) < 0)) {
      throw new TypeError(`${where}.priority must be a non-negative integer`);
    }
    return Object.freeze({ ...c }) as unknown as PrinterColumn;
  }));
}

/**
 * A float as Go's `%v` prints it (`strconv` `'g'`, shortest digits): exponent form when the
 * decimal exponent is below -4 or at least 6 (`1.5e+06`), plain digits otherwise.
 */
function goFloat(n: number): string {
  if (!Number.isFinite(n)) return n > 0 ? "+Inf" : n < 0 ? "-Inf" : "NaN";
  if (n === 0) return "0";
  const exponent = Number(n.toExponential().split("e")[1]);
  return exponent < -4 || exponent >= 6 ? goExponent(n) : String(n);
}

function goExponent(n: number): string {
  const [mantissa, exp] = n.toExponential().split("e") as [string, string];
  const sign = exp.startsWith("-") ? "-" : "+";
  const digits = exp.replace(/^[+-]/, "");
  return `${mantissa}e${sign}${digits.padStart(2, "0")}`;
}

/** JSON as Go's `json.Marshal` writes it: object keys sorted, `<`, `>`, `&` escaped. */
function goJson(value: unknown): string {
  const sorted = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(sorted);
    if (!isRecord(v)) return v;
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(v).sort()) {
      Object.defineProperty(out, key, { value: sorted(v[key]), enumerable: true, writable: true });
    }
    return out;
  };
  return JSON.stringify(sorted(value)).replace(
    /[<>&\u2028\u2029]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

/**
 * A value as kubectl's JSONPath prints it: strings as they are, integers as digits, other
 * numbers as Go prints a float, booleans, and objects and arrays as compact JSON; null for
 * `null` (nothing printable).
 */
export function jsonPathText(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (typeof value === "string") return value;
  if (typeof value === "boolean") return String(value);
  if (typeof value === "number") {
    return Number.isSafeInteger(value) ? String(value) : goFloat(value);
  }
  return goJson(value);
}

function cell(type: string, value: unknown, now: number): unknown {
  if (value === null || value === undefined) return null;
  switch (type) {
    case "string":
      return jsonPathText(value);
    case "integer":
      return typeof value === "number" && Number.isFinite(value) ? Math.trunc(value) : null;
    case "number":
      return typeof value === "number" ? value : null;
    case "boolean":
      return typeof value === "boolean" ? value : null;
    case "date": {
      if (typeof value !== "string") return null;
      const at = parseTime(value);
      return at === undefined ? "<invalid>" : humanDuration(now - at);
    }
  }
  return null;
}

/** The default printer column of a CRD version without any: its age. */
const AGE_COLUMN: PrinterColumn = Object.freeze({
  name: "Age",
  type: "date",
  description: doc("ObjectMeta.creationTimestamp"),
  jsonPath: ".metadata.creationTimestamp",
});

/** The Table convertor of a CRD version's printer columns (`Age` when there are none). */
export function printerColumnsConvertor(columns: readonly PrinterColumn[]): TableConvertor {
  const used = columns.length > 0 ? columns : [AGE_COLUMN];
  const paths = used.map((c) => new JsonPath(c.jsonPath));
  const definitions: ColumnDefinition[] = [
    NAME,
    ...used.map((c) =>
      column(
        c.name,
        c.type,
        c.description ?? `Custom resource definition column (in JSONPath format): ${c.jsonPath}`,
        { priority: c.priority ?? 0, format: c.format ?? "" },
      )
    ),
  ];
  return Object.freeze({
    columns: Object.freeze(definitions),
    row(item: KubeObject, now: number) {
      const cells: unknown[] = [item.metadata?.name ?? ""];
      used.forEach((c, i) => {
        const found = paths[i]!.find(item);
        cells.push(found.length === 0 ? null : cell(c.type, found[0], now));
      });
      return { cells };
    },
  });
}
