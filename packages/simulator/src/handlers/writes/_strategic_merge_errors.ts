/**
 * The errors of the simulated cluster's strategic merge patch, with the codes and words
 * kube-apiserver gives them (400 and 422 for those it maps, 500 without a reason for the rest),
 * and Go's formatting of values in them.
 * @module
 */
import type { Status } from "@kinformer/kinformer/client";
import { isRecord } from "@kinformer/kinformer/internal";
import { fail, status } from "../../core/status.ts";

/** 400, for the errors the API server answers as a bad request. */
export function badRequest(message: string): never {
  fail(status(400, "BadRequest", message));
}

/** 422 with the API server's generic words (what it answers for these patch errors). */
export function unprocessable(): never {
  fail(status(422, "Invalid", "the server rejected our request due to an error in our request"));
}

/** 500 without a reason: how the API server answers patch errors it does not map. */
export function internal(message: string): never {
  const s: Status = {
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Failure",
    message,
    code: 500,
  };
  fail(s);
}

/** A value as Go's `%v` prints it (`map[a:1 b:[x y]]`), for the API server's error messages. */
export function goFormat(value: unknown): string {
  if (value === null || value === undefined) return "<nil>";
  if (Array.isArray(value)) return `[${value.map(goFormat).join(" ")}]`;
  if (isRecord(value)) {
    return `map[${Object.keys(value).sort().map((k) => `${k}:${goFormat(value[k])}`).join(" ")}]`;
  }
  return String(value);
}

/** Go's reflect type name of a JSON value, as the patch errors name it. */
export function goType(value: unknown): string {
  if (value === null || value === undefined) return "<nil>";
  if (Array.isArray(value)) return "[]interface {}";
  if (isRecord(value)) return "map[string]interface {}";
  if (typeof value === "number") return Number.isInteger(value) ? "int64" : "float64";
  return typeof value === "boolean" ? "bool" : "string";
}

export function badArgType(expected: string, actual: unknown): never {
  internal(`expected a ${expected}, but received a ${goType(actual)}`);
}

export function noMergeKey(item: unknown, key: string): never {
  internal(`map: ${goFormat(item)} does not contain declared merge key: ${key}`);
}

export function badPatchType(directive: unknown, map: Record<string, unknown>): never {
  internal(`unknown patch type: ${goFormat(directive)} in map: ${goFormat(map)}`);
}
