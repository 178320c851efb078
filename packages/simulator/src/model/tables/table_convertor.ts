/**
 * What turns objects into the rows of a server-side Table: the column definitions and, per
 * object, the cells (and the row conditions some kinds set), as kube-apiserver's table
 * convertors do. Printers always produce the wide columns too (priority 1); clients hide them
 * unless asked (`kubectl -o wide`).
 * @module
 */
import type { KubeObject } from "@kinformer/kinformer/client";
import { doc } from "./_field_docs.ts";
import { parseTime, since } from "./human_duration.ts";

/** One column of a Table (`meta.k8s.io/v1` `TableColumnDefinition`). */
export interface ColumnDefinition {
  /** Human-readable name (kubectl prints it upper-cased). */
  readonly name: string;
  /** OpenAPI type of the cells: `string`, `integer`, `number`, `boolean`, `date`. */
  readonly type: string;
  /** Format hint: `name` for the object name column, else usually `""`. */
  readonly format: string;
  /** What the column shows. */
  readonly description: string;
  /** 0 for the default columns, more for the wide ones. */
  readonly priority: number;
}

/** A condition of a row (`Completed` for pods that ran to the end). */
export interface RowCondition {
  /** `Completed`. */
  readonly type: string;
  /** `True`. */
  readonly status: string;
  /** Why. */
  readonly reason: string;
  /** What it means. */
  readonly message: string;
}

/** The printed form of one object. */
export interface PrintedRow {
  /** One value per column: a string, a number, a boolean or null. */
  readonly cells: readonly unknown[];
  /** Row conditions, if any. */
  readonly conditions?: readonly RowCondition[];
}

/** Columns plus a printer. */
export interface TableConvertor {
  /** The column definitions, default ones first. */
  readonly columns: readonly ColumnDefinition[];
  /** The row of `item` (a stored object, without kind/apiVersion) at time `now` (ms). */
  row(item: KubeObject, now: number): PrintedRow;
}

/** A convertor of `columns` whose rows are the cells `row` gives (no row conditions). */
export function convertor(
  columns: TableConvertor["columns"],
  row: (item: KubeObject, now: number) => readonly unknown[],
): TableConvertor {
  return Object.freeze({
    columns: Object.freeze(columns),
    row: (item: KubeObject, now: number): PrintedRow => ({ cells: row(item, now) }),
  });
}

/** A column definition. */
export function column(
  name: string,
  type: string,
  description: string,
  options?: { priority?: number; format?: string },
): ColumnDefinition {
  return Object.freeze({
    name,
    type,
    format: options?.format ?? "",
    description,
    priority: options?.priority ?? 0,
  });
}

/** A wide column (priority 1). */
export function wide(name: string, type: string, description: string): ColumnDefinition {
  return column(name, type, description, { priority: 1 });
}

/** The `Name` column every printer starts with. */
export const NAME: ColumnDefinition = column("Name", "string", doc("ObjectMeta.name"), {
  format: "name",
});

/** The `Age` column (a string cell, `5m`). */
export const AGE: ColumnDefinition = column("Age", "string", doc("ObjectMeta.creationTimestamp"));

/** The `Containers` column of workloads. */
export const CONTAINERS: ColumnDefinition = wide(
  "Containers",
  "string",
  "Names of each container in the template.",
);

/** The `Images` column of workloads. */
export const IMAGES: ColumnDefinition = wide(
  "Images",
  "string",
  "Images referenced by each container in the template.",
);

/** The name and age of an object: the first and (usually) a later cell of every row. */
export function nameAndAge(item: KubeObject, now: number): [string, string] {
  return [item.metadata?.name ?? "", since(item.metadata?.creationTimestamp, now)];
}

/**
 * The convertor kube-apiserver uses for built-in kinds without a printer: `Name` and
 * `Created At` (a `date` column whose cells are RFC 3339 times).
 */
export const DEFAULT_CONVERTOR: TableConvertor = Object.freeze({
  columns: Object.freeze([
    NAME,
    column("Created At", "date", doc("ObjectMeta.creationTimestamp")),
  ]),
  row(item: KubeObject): PrintedRow {
    const at = parseTime(item.metadata?.creationTimestamp);
    // Go's zero time when absent; RFC 3339 in UTC, whole seconds.
    const created = at === undefined
      ? "0001-01-01T00:00:00Z"
      : `${new Date(at).toISOString().slice(0, 19)}Z`;
    return { cells: [item.metadata?.name ?? "", created] };
  },
});
