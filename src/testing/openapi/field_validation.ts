/**
 * Server-side field validation (`fieldValidation=Strict|Warn|Ignore`): the fields of a written
 * object, patch or apply configuration that its schema does not declare, and the fields a JSON
 * body gives twice, found as kube-apiserver finds them and pruned as it drops them. Where a
 * schema says `x-kubernetes-preserve-unknown-fields`, anything goes.
 * @module
 */
import { isRecord } from "../../util/values.ts";
import { setOwn } from "../store/own_properties.ts";
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
  /** The value with those fields removed (the input itself when there were none). */
  readonly value: unknown;
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
  const walk = (v: unknown, s: Schema | undefined, path: string, ptr: string): unknown => {
    const r = resolve(s, components);
    if (r === undefined || v === null) return v;
    if (Array.isArray(v)) {
      const items = isRecord(r.items) ? r.items as Schema : undefined;
      if (items === undefined) return v;
      let changed = false;
      const out = v.map((item, i) => {
        const next = walk(item, items, `${path}[${i}]`, pointer(ptr, i));
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
    const keys = Object.keys(v);
    keys.forEach((key, index) => {
      const child = v[key];
      let next: unknown = child;
      let drop = false;
      if (mode === "patch" && key.startsWith("$")) {
        // A strategic merge patch directive ($patch, $setElementOrder/..., $retainKeys): not a field.
      } else if (properties !== undefined && Object.hasOwn(properties, key)) {
        next = walk(child, properties[key], join(path, key), pointer(ptr, key));
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
        );
      } else if (isRecord(additional)) {
        next = walk(child, additional as Schema, join(path, key), pointer(ptr, key));
      } else if (additional === true || preserve) {
        // Kept as it is.
      } else {
        unknown.push(join(path, key));
        pointers.push(pointer(ptr, key));
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
  const pruned = walk(value, schema, "", "");
  return { unknown, pointers, value: pruned };
}

/**
 * The fields a JSON text gives more than once, as paths (`metadata.name`), in order. Invalid JSON
 * yields what was found before the error (the parser reports the error itself).
 */
export function duplicateFields(text: string): string[] {
  const found: string[] = [];
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
        if (seen.has(key)) found.push(full);
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
  return found;
}
