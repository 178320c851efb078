/**
 * Kubernetes field selectors (`?fieldSelector=`): `path=value`, `path==value`, `path!=value`,
 * comma-separated (all must hold), on dotted paths such as `metadata.name` or `status.phase`.
 * @module
 */
import type { KubeObject } from "./types.ts";
import { SelectorParseError } from "./label_selector.ts";
import { describeValue } from "../util/values.ts";

/** One requirement of a field selector, e.g. `status.phase!=Running`. */
export interface FieldRequirement {
  /** Dotted path, e.g. `spec.nodeName`. */
  readonly path: string;
  /** Operator. */
  readonly operator: "=" | "==" | "!=";
  /** Value (unescaped); `""` matches an absent field. */
  readonly value: string;
}

interface CompiledField extends FieldRequirement {
  readonly segments: readonly string[];
}

/** The string the API server compares for the field at `segments` of `obj`. */
function fieldValue(obj: KubeObject, segments: readonly string[]): string {
  let v: unknown = obj;
  for (const s of segments) {
    // Own fields only: a user-supplied path must not read through the prototype chain.
    if (typeof v !== "object" || v === null || !Object.hasOwn(v, s)) return "";
    v = (v as Record<string, unknown>)[s];
  }
  switch (typeof v) {
    case "string":
      return v;
    case "number":
    case "boolean":
      return String(v);
    default:
      return "";
  }
}

/**
 * A parsed field selector. Immutable; matching reads the object's fields at each path (an
 * absent field reads as `""`, numbers and booleans as their text).
 *
 * @example
 * ```ts
 * import { parseFieldSelector } from "@kinformer/kinformer/client";
 * import assert from "node:assert/strict";
 * const s = parseFieldSelector("metadata.namespace=default,status.phase!=Succeeded");
 * const pod = (phase: string) => ({ metadata: { name: "a", namespace: "default" }, status: { phase } });
 * assert.ok(s.matches(pod("Running")));
 * assert.ok(!s.matches(pod("Succeeded")));
 * ```
 */
export class FieldSelector {
  #requirements: readonly CompiledField[];

  /** Use {@linkcode parseFieldSelector}. */
  constructor(requirements: readonly FieldRequirement[]) {
    const compiled = requirements.map((r) => ({
      path: r.path,
      operator: r.operator,
      value: r.value,
      segments: Object.freeze(r.path.split(".")),
    }));
    compiled.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    this.#requirements = Object.freeze(compiled);
  }

  /** The requirements, sorted by path. */
  get requirements(): readonly FieldRequirement[] {
    return this.#requirements;
  }

  /** True when the selector has no requirement and so matches every object. */
  isEverything(): boolean {
    return this.#requirements.length === 0;
  }

  /** Whether `obj` satisfies every requirement. */
  matches(obj: KubeObject): boolean {
    for (const r of this.#requirements) {
      const equal = fieldValue(obj, r.segments) === r.value;
      if (r.operator === "!=" ? equal : !equal) return false;
    }
    return true;
  }

  /** The canonical text form (sorted by path, values escaped), parseable again. */
  toString(): string {
    return this.#requirements
      .map((r) => `${r.path}${r.operator}${r.value.replace(/[\\,=!]/g, (c) => "\\" + c)}`)
      .join(",");
  }
}

const EVERYTHING = new FieldSelector([]);

/**
 * Parses a field selector. Values may escape `,`, `=`, `!` and `\` with a backslash; an empty
 * value (`spec.nodeName=`) matches objects where the field is absent or empty. The empty string
 * selects everything. The parser accepts any dotted path: which paths a resource supports is
 * the server's business (the simulated cluster answers 400 for unsupported ones, like a real
 * one).
 *
 * @throws {SelectorParseError} with the offending position.
 *
 * @example
 * ```ts
 * import { parseFieldSelector } from "@kinformer/kinformer/client";
 * import assert from "node:assert/strict";
 * const s = parseFieldSelector("spec.nodeName=node-1");
 * assert.ok(s.matches({ metadata: { name: "p" }, spec: { nodeName: "node-1" } }));
 * assert.equal(s.toString(), "spec.nodeName=node-1");
 * ```
 */
export function parseFieldSelector(text: string): FieldSelector {
  if (typeof text !== "string") {
    throw new TypeError(`field selector must be a string, got ${typeof text}`);
  }
  if (text.trim() === "") return EVERYTHING;
  const requirements: FieldRequirement[] = [];
  let i = 0;
  while (i <= text.length) {
    // One requirement: path (no escapes), operator, value (escapes allowed) up to an unescaped ','.
    const start = i;
    while (i < text.length && text[i] !== "=" && text[i] !== "!" && text[i] !== ",") i++;
    const path = text.slice(start, i).trim();
    let operator: "=" | "==" | "!=";
    if (text.startsWith("!=", i)) operator = "!=";
    else if (text.startsWith("==", i)) operator = "==";
    else if (text[i] === "=") operator = "=";
    else {
      throw new SelectorParseError(
        text,
        i,
        `expected '=', '==' or '!=' after field ${describeValue(path)}`,
      );
    }
    if (path === "") throw new SelectorParseError(text, start, "a field path must not be empty");
    if (!/^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/.test(path)) {
      throw new SelectorParseError(text, start, `invalid field path ${describeValue(path)}`);
    }
    i += operator.length;
    let value = "";
    while (i < text.length && text[i] !== ",") {
      const ch = text[i]!;
      if (ch === "\\") {
        const next = text[i + 1];
        if (next !== "\\" && next !== "," && next !== "=" && next !== "!") {
          throw new SelectorParseError(text, i, "invalid escape sequence in field value");
        }
        value += next;
        i += 2;
        continue;
      }
      if (ch === "=" || ch === "!") {
        throw new SelectorParseError(text, i, `unescaped '${ch}' in field value`);
      }
      value += ch;
      i++;
    }
    requirements.push({ path, operator, value: value.trim() });
    if (i >= text.length) break;
    i++; // the ','
    if (i >= text.length) throw new SelectorParseError(text, i, "expected a requirement after ','");
  }
  return new FieldSelector(requirements);
}
