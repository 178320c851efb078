/**
 * JSON patch (RFC 6902) for the simulated cluster's PATCH (`application/json-patch+json`).
 *
 * Patches are hostile input: paths are walked through own properties only (a pointer through
 * `__proto__`, `constructor` or `prototype` that the document does not hold as data is a 422),
 * and keys are written as own data properties, so a `__proto__` key is data, never a prototype.
 * @module
 */
import { isRecord } from "../../util/values.ts";
import { getOwn, setOwn } from "../store/own_properties.ts";
import { fail, status } from "../serving/status.ts";

function patchError(message: string): never {
  fail(status(422, "Invalid", message));
}

function parsePointer(path: unknown): string[] {
  if (typeof path !== "string" || (path !== "" && !path.startsWith("/"))) {
    patchError(`invalid JSON pointer ${JSON.stringify(path)}`);
  }
  if (path === "") return [];
  return path.slice(1).split("/").map((s) => s.replace(/~1/g, "/").replace(/~0/g, "~"));
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
  for (const t of tokens.slice(0, -1)) {
    cur = child(cur, t);
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
    else parent.splice(i, 0, value);
  } else if (isRecord(parent)) {
    if (replace && !Object.hasOwn(parent, last)) patchError(`path not found: /${tokens.join("/")}`);
    setOwn(parent, last, value);
  } else {
    patchError(`path not found: /${tokens.join("/")}`);
  }
  return doc;
}

/** Applies a JSON patch (array of operations) to a copy of `target`. */
export function jsonPatch(target: unknown, operations: unknown): unknown {
  if (!Array.isArray(operations)) patchError("a JSON patch must be an array of operations");
  let doc = JSON.parse(JSON.stringify(target)) as unknown;
  for (const op of operations) {
    if (!isRecord(op)) patchError("a JSON patch operation must be an object");
    const path = parsePointer(op.path);
    const copy = (v: unknown): unknown => JSON.parse(JSON.stringify(v)) as unknown;
    switch (op.op) {
      case "add":
        doc = addAt(doc, path, copy(op.value), false);
        break;
      case "replace":
        doc = addAt(doc, path, copy(op.value), true);
        break;
      case "remove":
        removeAt(doc, path);
        break;
      case "move": {
        const value = removeAt(doc, parsePointer(op.from));
        doc = addAt(doc, path, value, false);
        break;
      }
      case "copy":
        doc = addAt(doc, path, copy(getAt(doc, parsePointer(op.from))), false);
        break;
      case "test":
        if (JSON.stringify(getAt(doc, path)) !== JSON.stringify(op.value)) {
          patchError(`test operation failed at ${String(op.path)}`);
        }
        break;
      default:
        patchError(`unknown JSON patch operation ${JSON.stringify(op.op)}`);
    }
  }
  return doc;
}
