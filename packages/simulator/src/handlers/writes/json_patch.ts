/**
 * JSON patch (RFC 6902) for the simulated cluster's PATCH (`application/json-patch+json`),
 * bounded as kube-apiserver bounds it since CVE-2019-1002100: at most 10,000 operations (413),
 * and the bytes `copy` operations add at most `maxCopyBytes` (the request-size limit, 422 past
 * it). The simulator also bounds the work of one patch (items moved, values compared and
 * copied) by the sizes of the document, the patch and the bytes copied, so that no sequence of
 * operations takes more than linear time: a patch that would do more is refused with 422.
 *
 * Patches are hostile input: paths are walked through own properties only (a pointer through
 * `__proto__`, `constructor` or `prototype` that the document does not hold as data is a 422),
 * and keys are written as own data properties, so a `__proto__` key is data, never a prototype.
 * @module
 */
import { describeValue, isRecord } from "@kinformer/kinformer/internal";
import { getOwn, setOwn } from "../../core/own_properties.ts";
import { fail, status } from "../../core/status.ts";
import { sameJson } from "./field_set.ts";
import { metered, spend, WorkMeter } from "./work_meter.ts";
import { utf8Length } from "./_utf8_length.ts";

/** The most operations kube-apiserver accepts in one JSON patch. */
export const MAX_JSON_PATCH_OPERATIONS = 10_000;

/**
 * Work one patch may do per byte of document and patch: generous for any sensible patch
 * (which stays under 5), small enough that 10,000 inserts at the head of a long list are
 * refused after a fraction of a second.
 */
const WORK_PER_BYTE = 16;
/** Work every patch may do whatever its size. */
const BASE_WORK = 100_000;

/** Limits of one JSON patch. */
export interface JsonPatchLimits {
  /** The most bytes `copy` operations may add (kube-apiserver: its request-size limit). */
  readonly maxCopyBytes: number;
}

function patchError(message: string): never {
  fail(status(422, "Invalid", message));
}

function parsePointer(path: unknown): string[] {
  if (typeof path !== "string" || (path !== "" && !path.startsWith("/"))) {
    patchError(`invalid JSON pointer ${describeValue(path)}`);
  }
  if (path === "") return [];
  const tokens = path.slice(1).split("/").map((s) => s.replace(/~1/g, "/").replace(/~0/g, "~"));
  spend(tokens.length);
  return tokens;
}

/** The array index a pointer token names (digits, no leading zero), or -1. */
function arrayIndex(token: string): number {
  return /^(0|[1-9][0-9]*)$/.test(token) ? Number(token) : -1;
}

/** The own child `token` of `node` (an array element or an object member), or undefined. */
function child(node: unknown, token: string): unknown {
  if (Array.isArray(node)) return node[arrayIndex(token)];
  if (isRecord(node)) return getOwn(node, token);
  return undefined;
}

function resolveParent(doc: unknown, tokens: string[]): { parent: unknown; last: string } {
  let cur = doc;
  for (let i = 0; i < tokens.length - 1; i++) {
    cur = child(cur, tokens[i]!);
    if (cur === undefined) patchError(`path not found: /${tokens.join("/")}`);
  }
  return { parent: cur, last: tokens[tokens.length - 1]! };
}

function getAt(doc: unknown, tokens: string[]): unknown {
  let cur = doc;
  for (const t of tokens) {
    cur = child(cur, t);
    if (cur === undefined) return undefined;
  }
  return cur;
}

function removeAt(doc: unknown, tokens: string[]): unknown {
  const { parent, last } = resolveParent(doc, tokens);
  if (Array.isArray(parent)) {
    const i = arrayIndex(last);
    if (i < 0 || i >= parent.length) {
      patchError(`index out of range: ${last}`);
    }
    spend(parent.length - i); // the items after it move
    return parent.splice(i, 1)[0];
  }
  if (!isRecord(parent) || !Object.hasOwn(parent, last)) {
    patchError(`path not found: /${tokens.join("/")}`);
  }
  const v = parent[last];
  delete parent[last];
  return v;
}

function addAt(doc: unknown, tokens: string[], value: unknown, replace: boolean): unknown {
  if (tokens.length === 0) return value;
  const { parent, last } = resolveParent(doc, tokens);
  if (Array.isArray(parent)) {
    const i = last === "-" ? parent.length : arrayIndex(last);
    if (i < 0 || i > parent.length - (replace ? 1 : 0)) {
      patchError(`index out of range: ${last}`);
    }
    if (replace) parent[i] = value;
    else {
      spend(parent.length - i); // the items after it move
      parent.splice(i, 0, value);
    }
  } else if (isRecord(parent)) {
    if (replace && !Object.hasOwn(parent, last)) patchError(`path not found: /${tokens.join("/")}`);
    setOwn(parent, last, value);
  } else {
    patchError(`path not found: /${tokens.join("/")}`);
  }
  return doc;
}

/** A copy of a JSON value and its size in bytes (the size spent as work). */
function copyOf(value: unknown): { copy: unknown; bytes: number } {
  if (value === undefined) return { copy: undefined, bytes: 0 };
  const text = JSON.stringify(value);
  const bytes = utf8Length(text);
  spend(text.length);
  return { copy: JSON.parse(text), bytes };
}

/**
 * Applies a JSON patch (an array of operations) to a copy of `target`; 413 for more than
 * 10,000 operations, 422 for a failing operation, copies past `limits.maxCopyBytes`, or more
 * work than the sizes of `target` and the patch allow.
 */
export function jsonPatch(target: unknown, operations: unknown, limits: JsonPatchLimits): unknown {
  if (!Array.isArray(operations)) patchError("a JSON patch must be an array of operations");
  if (operations.length > MAX_JSON_PATCH_OPERATIONS) {
    fail(status(
      413,
      "RequestEntityTooLarge",
      `Request entity too large: The allowed maximum operations in a JSON patch is ${MAX_JSON_PATCH_OPERATIONS}, got ${operations.length}`,
    ));
  }
  const targetText = JSON.stringify(target);
  const size = targetText.length + JSON.stringify(operations).length;
  const budget = new WorkMeter(WORK_PER_BYTE * size + BASE_WORK, (units, limit) =>
    patchError(
      `the JSON patch does more work than the simulator allows for a patch of its size (more than ${limit} steps, at ${units})`,
    ));
  return metered(budget, () => {
    let doc = JSON.parse(targetText) as unknown;
    let copied = 0;
    for (const op of operations) {
      spend();
      if (!isRecord(op)) patchError("a JSON patch operation must be an object");
      const path = parsePointer(op.path);
      switch (op.op) {
        case "add":
        case "replace":
          if (!Object.hasOwn(op, "value")) patchError(`missing value in ${op.op} operation`);
          doc = addAt(doc, path, copyOf(op.value).copy, op.op === "replace");
          break;
        case "remove":
          removeAt(doc, path);
          break;
        case "move": {
          const value = removeAt(doc, parsePointer(op.from));
          doc = addAt(doc, path, value, false);
          break;
        }
        case "copy": {
          const from = getAt(doc, parsePointer(op.from));
          if (from === undefined) patchError(`path not found: ${String(op.from)}`);
          const { copy, bytes } = copyOf(from);
          copied += bytes;
          // Copied bytes are bounded by `maxCopyBytes`; the document grows by them, and so
          // may the work on it.
          budget.raise(WORK_PER_BYTE * bytes);
          if (copied > limits.maxCopyBytes) {
            patchError(
              `Unable to complete the copy, the accumulated size increase of copy is ${copied}, exceeding the limit ${limits.maxCopyBytes}`,
            );
          }
          doc = addAt(doc, path, copy, false);
          break;
        }
        case "test":
          if (!sameJson(getAt(doc, path), op.value)) {
            patchError(`test operation failed at ${String(op.path)}`);
          }
          break;
        default:
          patchError(`unknown JSON patch operation ${describeValue(op.op)}`);
      }
    }
    return doc;
  });
}
