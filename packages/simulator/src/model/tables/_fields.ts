/**
 * Reading fields of stored objects for Table cells: own properties only, and a wrong type reads
 * as absent (a printer never throws on a malformed object; the server's typed decoding would
 * have zeroed such a field). Internal.
 * @module
 */
import { isRecord } from "@kinformer/kinformer/internal";

/** The value at `path` (own properties only), or undefined. */
export function at(obj: unknown, ...path: string[]): unknown {
  let v = obj;
  for (const key of path) {
    if (!isRecord(v) || !Object.hasOwn(v, key)) return undefined;
    v = v[key];
  }
  return v;
}

/** The string at `path`, or `""` (a Go zero value). */
export function str(obj: unknown, ...path: string[]): string {
  const v = at(obj, ...path);
  return typeof v === "string" ? v : "";
}

/** The integer at `path`, or `0`. */
export function int(obj: unknown, ...path: string[]): number {
  const v = at(obj, ...path);
  return typeof v === "number" && Number.isFinite(v) ? Math.trunc(v) : 0;
}

/** The integer at `path`, or undefined when absent (a pointer field). */
export function optionalInt(obj: unknown, ...path: string[]): number | undefined {
  const v = at(obj, ...path);
  return typeof v === "number" && Number.isFinite(v) ? Math.trunc(v) : undefined;
}

/** The array at `path`, or `[]`. */
export function list(obj: unknown, ...path: string[]): readonly unknown[] {
  const v = at(obj, ...path);
  return Array.isArray(v) ? v : [];
}

/** The object at `path`, or undefined. */
export function record(obj: unknown, ...path: string[]): Record<string, unknown> | undefined {
  const v = at(obj, ...path);
  return isRecord(v) ? v : undefined;
}

/** The own entries of a string map at `path` (non-string values skipped), sorted by key. */
export function stringMap(obj: unknown, ...path: string[]): Array<[string, string]> {
  const m = record(obj, ...path);
  if (m === undefined) return [];
  const out: Array<[string, string]> = [];
  for (const key of Object.keys(m)) {
    const v = m[key];
    if (typeof v === "string") out.push([key, v]);
  }
  return out.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
}

/** Number of own keys of the object at `path` (0 when absent). */
export function size(obj: unknown, ...path: string[]): number {
  const m = record(obj, ...path);
  return m === undefined ? 0 : Object.keys(m).length;
}
