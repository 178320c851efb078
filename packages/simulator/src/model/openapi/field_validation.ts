/**
 * Server-side field validation (`fieldValidation=Strict|Warn|Ignore`): the fields of a written
 * object, patch or apply configuration that its schema does not declare, and the fields a JSON
 * body gives twice, found as kube-apiserver finds them and pruned as it drops them. Where a
 * schema says `x-kubernetes-preserve-unknown-fields`, anything goes.
 * @module
 */
import { describeValue, isRecord } from "@kinformer/kinformer/internal";
import { setOwn } from "../../core/own_properties.ts";
import type { Components, Schema } from "./builtin_schemas.ts";

/** The schema `schema` stands for (`allOf: [{$ref}]` and `$ref` resolved in `components`). */
function resolve(schema: Schema | undefined, components: Components): Schema | undefined {
  let s = schema;
  for (let depth = 0; s !== undefined && depth < 8; depth++) {
    const allOf = s.allOf;
    if (Array.isArray(allOf) && allOf.length > 0 && isRecord(allOf[0])) {
      s = allOf[0] as Schema;
      continue;
    }
    const $ref = s.$ref;
    if (typeof $ref === "string" && $ref.startsWith("#/components/schemas/")) {
      const name = $ref.slice("#/components/schemas/".length);
      s = Object.hasOwn(components, name) ? components[name] : undefined;
      continue;
    }
    return s;
  }
  return s;
}

/** How to walk: a whole object, or a patch (nulls delete, `$`-directives are not fields). */
export type WalkMode = "object" | "patch";

/** The unknown fields found (paths like `spec.containers[0].foo`) and the value without them. */
export interface Pruned {
  /** Paths of the fields the schema does not declare, in document order. */
  readonly unknown: readonly string[];
  /** The same fields as JSON pointers (`/spec/containers/0/foo`). */
  readonly pointers: readonly string[];
  /**
   * The unknown fields as server-side apply names them (structured-merge-diff paths: a map
   * list's item by its keys, `.spec.containers[name="app"].foo`; a set's by its value), at most
   * one per object, as its typed conversion stops at an object's first unknown field.
   */
  readonly applyPaths: readonly string[];
  /** The value with those fields removed (the input itself when there were none). */
  readonly value: unknown;
}

/** A list item as structured-merge-diff names it: by its keys, its value (sets) or its index. */
function itemElement(list: Schema, item: unknown, index: number): string {
  const type = list["x-kubernetes-list-type"];
  const keys = list["x-kubernetes-list-map-keys"];
  if (type === "map" && Array.isArray(keys) && isRecord(item)) {
    const parts = keys
      .filter((k): k is string => typeof k === "string" && Object.hasOwn(item, k))
      .map((k) => `${k}=${JSON.stringify(item[k])}`);
    if (parts.length > 0) return `[${parts.join(",")}]`;
  }
  if (type === "set" && (item === null || typeof item !== "object")) {
    return `[=${JSON.stringify(item)}]`;
  }
  return `[${index}]`;
}

function join(path: string, key: string): string {
  return path === "" ? key : `${path}.${key}`;
}

function pointer(base: string, key: string | number): string {
  return `${base}/${String(key).replace(/~/g, "~0").replace(/\//g, "~1")}`;
}

/** Finds and prunes the fields of `value` that `schema` does not declare. */
export function pruneUnknownFields(
  value: unknown,
  schema: Schema,
  components: Components,
  mode: WalkMode,
): Pruned {
  const unknown: string[] = [];
  const pointers: string[] = [];
  const applyPaths: string[] = [];
  const walk = (
    v: unknown,
    s: Schema | undefined,
    path: string,
    ptr: string,
    smd: string,
  ): unknown => {
    const r = resolve(s, components);
    if (r === undefined || v === null) return v;
    if (Array.isArray(v)) {
      const items = isRecord(r.items) ? r.items as Schema : undefined;
      if (items === undefined) return v;
      let changed = false;
      const out = v.map((item, i) => {
        const next = walk(
          item,
          items,
          `${path}[${i}]`,
          pointer(ptr, i),
          smd + itemElement(r, item, i),
        );
        if (next !== item) changed = true;
        return next;
      });
      return changed ? out : v;
    }
    if (!isRecord(v)) return v;
    const preserve = r["x-kubernetes-preserve-unknown-fields"] === true;
    const embedded = r["x-kubernetes-embedded-resource"] === true;
    const properties = isRecord(r.properties) ? r.properties as Record<string, Schema> : undefined;
    const additional = r.additionalProperties;
    const isObject = r.type === "object" || properties !== undefined || additional !== undefined;
    if (!isObject) return v;
    let out: Record<string, unknown> | undefined;
    let reported = false;
    const keys = Object.keys(v);
    keys.forEach((key, index) => {
      const child = v[key];
      let next: unknown = child;
      let drop = false;
      if (mode === "patch" && key.startsWith("$")) {
        // A strategic merge patch directive ($patch, $setElementOrder/..., $retainKeys): not a field.
      } else if (properties !== undefined && Object.hasOwn(properties, key)) {
        next = walk(child, properties[key], join(path, key), pointer(ptr, key), `${smd}.${key}`);
      } else if (embedded && (key === "apiVersion" || key === "kind")) {
        // An embedded resource's type fields.
      } else if (embedded && key === "metadata") {
        next = walk(
          child,
          {
            $ref: "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta",
          },
          join(path, key),
          pointer(ptr, key),
          `${smd}.${key}`,
        );
      } else if (isRecord(additional)) {
        next = walk(
          child,
          additional as Schema,
          join(path, key),
          pointer(ptr, key),
          `${smd}.${key}`,
        );
      } else if (additional === true || preserve) {
        // Kept as it is.
      } else {
        unknown.push(join(path, key));
        pointers.push(pointer(ptr, key));
        if (!reported) applyPaths.push(`${smd}.${key}`);
        reported = true;
        drop = true;
      }
      if (drop || next !== child) {
        out ??= Object.fromEntries(keys.slice(0, index).map((k) => [k, v[k]]));
        if (!drop) setOwn(out, key, next);
      } else if (out !== undefined) {
        setOwn(out, key, child);
      }
    });
    return out ?? v;
  };
  const pruned = walk(value, schema, "", "", "");
  return { unknown, pointers, applyPaths, value: pruned };
}

/**
 * The fields a JSON text gives more than once, as paths (`metadata.name`), in order. Invalid JSON
 * yields what was found before the error (the parser reports the error itself).
 */
export function duplicateFields(text: string): string[] {
  const found: string[] = [];
  scanFields(text, (path, duplicate) => {
    if (duplicate) found.push(path);
  });
  return found;
}

/**
 * The strict decoding errors of a JSON body (`unknown field "spec.replica"`, `duplicate field
 * "metadata.name"`), ordered as kube-apiserver orders them: for a built-in kind (`typed`) in
 * document order, a field both unknown and given twice reported once as unknown (its decoder
 * reports as it reads); for a custom resource every duplicate first, then every unknown field.
 * `unknown` are the paths {@linkcode pruneUnknownFields} found in the body `text` decodes to.
 */
export function fieldErrors(
  text: string,
  unknown: readonly string[],
  duplicates: readonly string[],
  typed: boolean,
): string[] {
  // The common case, every write: nothing to report, no second scan of the body.
  if (unknown.length === 0 && duplicates.length === 0) return [];
  const quote = describeValue;
  if (!typed || !/^\s*\{/.test(text)) {
    return [
      ...duplicates.map((p) => `duplicate field ${quote(p)}`),
      ...unknown.map((p) => `unknown field ${quote(p)}`),
    ];
  }
  const all = new Set(unknown);
  const pending = new Set(unknown);
  const out: string[] = [];
  // Whether `path` is an unknown field or inside one (its value is skipped, not decoded).
  const skipped = (path: string) => {
    if (all.has(path)) return true;
    for (let i = 0; i < path.length; i++) {
      if ((path[i] === "." || path[i] === "[") && all.has(path.slice(0, i))) return true;
    }
    return false;
  };
  scanFields(text, (path, duplicate) => {
    if (pending.delete(path)) out.push(`unknown field ${quote(path)}`);
    else if (duplicate && (all.size === 0 || !skipped(path))) {
      out.push(`duplicate field ${quote(path)}`);
    }
  });
  // Anything the scan did not meet (a body that is not valid JSON): at the end.
  for (const p of pending) out.push(`unknown field ${quote(p)}`);
  return out;
}

/** Calls `visit` for every field of a JSON text, in document order, with its path. */
function scanFields(text: string, visit: (path: string, duplicate: boolean) => void): void {
  let at = 0;
  const ws = () => {
    while (at < text.length && " \t\n\r".includes(text[at]!)) at++;
  };
  const string = (): string => {
    const start = ++at; // after the opening quote
    let escaped = false;
    while (at < text.length && text[at] !== '"') {
      if (text[at] === "\\") {
        escaped = true;
        at++;
      }
      at++;
    }
    const raw = text.slice(start, at++); // and past the closing quote
    return escaped ? JSON.parse(`"${raw}"`) as string : raw;
  };
  const value = (path: string, depth: number): void => {
    ws();
    const ch = text[at];
    if (depth > 1000) throw new RangeError("too deep");
    if (ch === "{") {
      at++;
      const seen = new Set<string>();
      for (;;) {
        ws();
        if (text[at] === "}") {
          at++;
          return;
        }
        if (text[at] !== '"') throw new SyntaxError("expected a key");
        const key = string();
        const full = join(path, key);
        visit(full, seen.has(key));
        seen.add(key);
        ws();
        if (text[at] !== ":") throw new SyntaxError("expected ':'");
        at++;
        value(full, depth + 1);
        ws();
        if (text[at] === ",") at++;
        else if (text[at] === "}") {
          at++;
          return;
        } else throw new SyntaxError("expected ',' or '}'");
      }
    }
    if (ch === "[") {
      at++;
      for (let i = 0;; i++) {
        ws();
        if (text[at] === "]") {
          at++;
          return;
        }
        value(`${path}[${i}]`, depth + 1);
        ws();
        if (text[at] === ",") at++;
        else if (text[at] === "]") {
          at++;
          return;
        } else throw new SyntaxError("expected ',' or ']'");
      }
    }
    if (ch === '"') {
      string();
      return;
    }
    const m = /^(-?\d+(\.\d+)?([eE][+-]?\d+)?|true|false|null)/.exec(text.slice(at, at + 400));
    if (m === null) throw new SyntaxError("expected a value");
    at += m[0].length;
  };
  try {
    value("", 0);
  } catch {
    // Not valid JSON: the body parser answers that.
  }
}
