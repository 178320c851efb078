/**
 * Kubernetes label selectors: the text form used in `?labelSelector=` (parsed and validated as
 * the API server does) and the object form used in specs (`matchLabels` / `matchExpressions`).
 * Also home of {@linkcode SelectorParseError}, shared with field selectors.
 * @module
 */
import type { ErrorKind } from "../util/error_kind.ts";
import { labelKeyProblem, labelValueProblem } from "./_label_syntax.ts";
import { describeValue } from "../util/values.ts";

/**
 * A label or field selector could not be parsed or is invalid.
 *
 * @example
 * ```ts
 * import { parseLabelSelector, SelectorParseError } from "@kinformer/kinformer/client";
 * import assert from "node:assert/strict";
 * assert.throws(() => parseLabelSelector("app in (web"), (error) => {
 *   assert.ok(error instanceof SelectorParseError);
 *   assert.equal(error.position, 11);
 *   assert.match(error.message, /at position 11: expected ',' or '\)', found end of input/);
 *   return true;
 * });
 * ```
 */
export class SelectorParseError extends Error {
  /** The error class name. */
  override name = "SelectorParseError";
  /** Always `"invalid"`. */
  readonly kind: ErrorKind = "invalid";
  /** The selector text (for the object form: its rendering as text, as far as it got). */
  readonly selector: string;
  /** Zero-based character offset of the problem in `selector`; `-1` for the object form. */
  readonly position: number;

  /** Builds the error; `problem` says what is wrong, the message adds where. */
  constructor(selector: string, position: number, problem: string) {
    super(
      position >= 0
        ? `invalid selector ${describeValue(selector)} at position ${position}: ${problem}`
        : `invalid selector ${describeValue(selector)}: ${problem}`,
    );
    this.selector = selector;
    this.position = position;
  }
}

/** Operators of a label requirement. `exists` is `key`, `!` is `!key`. */
export type LabelOperator = "=" | "==" | "!=" | "in" | "notin" | "exists" | "!" | ">" | "<";

/** One requirement of a label selector, e.g. `tier in (web,api)`. */
export interface LabelRequirement {
  /** Label key, e.g. `app.kubernetes.io/name`. */
  readonly key: string;
  /** Operator. */
  readonly operator: LabelOperator;
  /** Values, sorted (one for `=`, `==`, `!=`, `>`, `<`; none for `exists` and `!`). */
  readonly values: readonly string[];
}

const INTEGER_RE = /^-?[0-9]+$/;

interface CompiledRequirement extends LabelRequirement {
  readonly set: ReadonlySet<string> | undefined;
  readonly number: number;
}

function compile(key: string, operator: LabelOperator, values: string[]): CompiledRequirement {
  const sorted = [...new Set(values)].sort();
  return {
    key,
    operator,
    values: Object.freeze(sorted),
    set: operator === "in" || operator === "notin" ? new Set(sorted) : undefined,
    number: operator === ">" || operator === "<" ? Number(sorted[0]) : 0,
  };
}

/**
 * A parsed label selector: a conjunction of requirements. Immutable and cheap to match, so a
 * cache can test thousands of objects with it.
 *
 * @example
 * ```ts
 * import { parseLabelSelector } from "@kinformer/kinformer/client";
 * import assert from "node:assert/strict";
 * const selector = parseLabelSelector("app=web,tier in (api, frontend),!canary");
 * assert.ok(selector.matches({ app: "web", tier: "api" }));
 * assert.ok(!selector.matches({ app: "web", tier: "api", canary: "1" }));
 * assert.equal(selector.toString(), "app=web,!canary,tier in (api,frontend)");
 * ```
 */
export class LabelSelector {
  #requirements: readonly CompiledRequirement[];

  /** Use {@linkcode parseLabelSelector} or {@linkcode labelSelectorFromObject}. */
  constructor(requirements: readonly LabelRequirement[]) {
    const compiled = requirements.map((r) => compile(r.key, r.operator, [...r.values]));
    compiled.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    this.#requirements = Object.freeze(compiled);
  }

  /** The requirements, sorted by key. */
  get requirements(): readonly LabelRequirement[] {
    return this.#requirements;
  }

  /** True when the selector has no requirement and so matches every object. */
  isEverything(): boolean {
    return this.#requirements.length === 0;
  }

  /** Whether an object with these labels (absent = no labels) satisfies every requirement. */
  matches(labels?: Readonly<Record<string, string>>): boolean {
    for (const r of this.#requirements) {
      const has = labels !== undefined && Object.hasOwn(labels, r.key);
      const value = has ? labels[r.key] : undefined;
      switch (r.operator) {
        case "=":
        case "==":
          if (value !== r.values[0]) return false;
          break;
        case "!=":
          if (value === r.values[0]) return false;
          break;
        case "in":
          if (value === undefined || !r.set!.has(value)) return false;
          break;
        case "notin":
          if (value !== undefined && r.set!.has(value)) return false;
          break;
        case "exists":
          if (!has) return false;
          break;
        case "!":
          if (has) return false;
          break;
        case ">":
        case "<": {
          if (value === undefined || !INTEGER_RE.test(value)) return false;
          const n = Number(value);
          if (r.operator === ">" ? !(n > r.number) : !(n < r.number)) return false;
          break;
        }
      }
    }
    return true;
  }

  /** The canonical text form (requirements sorted by key), parseable again. */
  toString(): string {
    return this.#requirements.map((r) => {
      switch (r.operator) {
        case "exists":
          return r.key;
        case "!":
          return `!${r.key}`;
        case "in":
        case "notin":
          return `${r.key} ${r.operator} (${r.values.join(",")})`;
        default:
          return `${r.key}${r.operator}${r.values[0]}`;
      }
    }).join(",");
  }
}

const EVERYTHING = new LabelSelector([]);

/** Characters that end an identifier in the selector lexer. */
function isSpecial(ch: string): boolean {
  return ch === "=" || ch === "!" || ch === "(" || ch === ")" || ch === "," || ch === "<" ||
    ch === ">" || ch === " " || ch === "\t" || ch === "\n" || ch === "\r";
}

type TokenKind = "id" | "=" | "==" | "!=" | "!" | "(" | ")" | "," | ">" | "<" | "end";
interface Token {
  kind: TokenKind;
  text: string;
  position: number;
}

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const ch = text[i]!;
    if (ch === " " || ch === "\t" || ch === "\n" || ch === "\r") {
      i++;
      continue;
    }
    if (ch === "=") {
      if (text[i + 1] === "=") {
        tokens.push({ kind: "==", text: "==", position: i });
        i += 2;
      } else {
        tokens.push({ kind: "=", text: "=", position: i });
        i++;
      }
      continue;
    }
    if (ch === "!") {
      if (text[i + 1] === "=") {
        tokens.push({ kind: "!=", text: "!=", position: i });
        i += 2;
      } else {
        tokens.push({ kind: "!", text: "!", position: i });
        i++;
      }
      continue;
    }
    if (ch === "(" || ch === ")" || ch === "," || ch === ">" || ch === "<") {
      tokens.push({ kind: ch, text: ch, position: i });
      i++;
      continue;
    }
    const start = i;
    while (i < text.length && !isSpecial(text[i]!)) i++;
    tokens.push({ kind: "id", text: text.slice(start, i), position: start });
  }
  tokens.push({ kind: "end", text: "", position: text.length });
  return tokens;
}

/**
 * Parses the text form of a label selector (`?labelSelector=`), with the API server's grammar
 * and validation: `k=v`, `k==v`, `k!=v`, `k in (a,b)`, `k notin (a,b)`, `k`, `!k`, `k>1`,
 * `k<1`, comma-separated (all must hold). Keys are qualified names (`prefix/name`, name at
 * most 63 characters), values at most 63 characters. The empty string selects everything.
 *
 * @throws {SelectorParseError} with the offending position.
 *
 * @example
 * ```ts
 * import { parseLabelSelector } from "@kinformer/kinformer/client";
 * import assert from "node:assert/strict";
 * const s = parseLabelSelector("environment in (prod, qa), tier != frontend");
 * assert.ok(s.matches({ environment: "qa", tier: "backend" }));
 * assert.ok(parseLabelSelector("").isEverything());
 * ```
 */
export function parseLabelSelector(text: string): LabelSelector {
  if (typeof text !== "string") {
    throw new TypeError(`label selector must be a string, got ${typeof text}`);
  }
  const tokens = tokenize(text);
  if (tokens.length === 1) return EVERYTHING;
  let p = 0;
  const fail = (token: Token, problem: string): never => {
    throw new SelectorParseError(text, token.position, problem);
  };
  const describe = (
    t: Token,
  ): string => (t.kind === "end" ? "end of input" : describeValue(t.text));
  const checkKey = (t: Token): string => {
    const problem = labelKeyProblem(t.text);
    if (problem !== undefined) fail(t, problem);
    return t.text;
  };
  const checkValue = (t: Token): string => {
    const problem = labelValueProblem(t.text);
    if (problem !== undefined) fail(t, problem);
    return t.text;
  };
  const requirements: LabelRequirement[] = [];
  for (;;) {
    let t = tokens[p++]!;
    if (t.kind === "!") {
      const keyToken = tokens[p++]!;
      if (keyToken.kind !== "id") {
        fail(keyToken, `expected a label key after '!', found ${describe(keyToken)}`);
      }
      requirements.push({ key: checkKey(keyToken), operator: "!", values: [] });
    } else if (t.kind === "id") {
      const key = checkKey(t);
      const op = tokens[p]!;
      if (op.kind === "," || op.kind === "end") {
        requirements.push({ key, operator: "exists", values: [] });
      } else if (op.kind === "=" || op.kind === "==" || op.kind === "!=") {
        p++;
        const v = tokens[p]!;
        if (v.kind === "id") {
          p++;
          requirements.push({ key, operator: op.kind, values: [checkValue(v)] });
        } else if (v.kind === "," || v.kind === "end") {
          requirements.push({ key, operator: op.kind, values: [""] });
        } else {
          fail(v, `expected a value after '${op.text}', found ${describe(v)}`);
        }
      } else if (op.kind === ">" || op.kind === "<") {
        p++;
        const v = tokens[p++]!;
        if (v.kind !== "id" || !INTEGER_RE.test(v.text)) {
          fail(v, `expected an integer after '${op.text}', found ${describe(v)}`);
        }
        requirements.push({ key, operator: op.kind, values: [v.text] });
      } else if (op.kind === "id" && (op.text === "in" || op.text === "notin")) {
        p++;
        const open = tokens[p++]!;
        if (open.kind !== "(") {
          fail(open, `expected '(' after '${op.text}', found ${describe(open)}`);
        }
        const values: string[] = [];
        for (;;) {
          const v = tokens[p]!;
          if (v.kind === "id") {
            values.push(checkValue(v));
            p++;
          } else if (v.kind === "," || v.kind === ")") {
            // An empty element, as in `(a,,b)` or `(a,)`: the API server reads it as "".
            values.push("");
          } else {
            fail(v, `expected a value or ')', found ${describe(v)}`);
          }
          const sep = tokens[p++]!;
          if (sep.kind === ")") break;
          if (sep.kind !== ",") fail(sep, `expected ',' or ')', found ${describe(sep)}`);
        }
        if (values.length === 1 && values[0] === "" && tokens[p - 2]!.kind === "(") {
          fail(tokens[p - 1]!, `the values of '${op.text}' must not be empty`);
        }
        requirements.push({ key, operator: op.text, values });
      } else {
        fail(
          op,
          `expected an operator (=, ==, !=, in, notin, >, <), ',' or end after key ${
            describeValue(key)
          }, found ${describe(op)}`,
        );
      }
    } else {
      fail(t, `expected a label key or '!', found ${describe(t)}`);
    }
    t = tokens[p++]!;
    if (t.kind === "end") break;
    if (t.kind !== ",") fail(t, `expected ',' or end of input, found ${describe(t)}`);
    if (tokens[p]!.kind === "end") fail(tokens[p]!, "expected a requirement after ','");
  }
  return new LabelSelector(requirements);
}

/** A `matchExpressions` entry of a `LabelSelector` object. */
export interface LabelSelectorRequirementObject {
  /** Label key. */
  key: string;
  /** `In`, `NotIn`, `Exists` or `DoesNotExist`. */
  operator: "In" | "NotIn" | "Exists" | "DoesNotExist";
  /** Values (non-empty for `In`/`NotIn`, absent or empty otherwise). */
  values?: string[];
}

/** The object form of a label selector, as found in `spec.selector` of workloads. */
export interface LabelSelectorObject {
  /** Exact label matches. */
  matchLabels?: Record<string, string>;
  /** Set-based requirements. */
  matchExpressions?: LabelSelectorRequirementObject[];
}

/**
 * Builds a selector from the object form (`{ matchLabels, matchExpressions }`), validating it
 * as the API server does. An empty object selects everything.
 *
 * @throws {SelectorParseError} (with `position` -1) for an invalid key, value or operator.
 *
 * @example
 * ```ts
 * import { labelSelectorFromObject } from "@kinformer/kinformer/client";
 * import assert from "node:assert/strict";
 * const s = labelSelectorFromObject({
 *   matchLabels: { app: "web" },
 *   matchExpressions: [{ key: "tier", operator: "In", values: ["api"] }],
 * });
 * assert.equal(s.toString(), "app=web,tier in (api)");
 * assert.ok(s.matches({ app: "web", tier: "api" }));
 * ```
 */
export function labelSelectorFromObject(selector: LabelSelectorObject): LabelSelector {
  if (typeof selector !== "object" || selector === null) {
    throw new TypeError(`label selector object must be an object, got ${String(selector)}`);
  }
  const requirements: LabelRequirement[] = [];
  const text = (): string => new LabelSelector(requirements).toString();
  const fail = (problem: string): never => {
    throw new SelectorParseError(text(), -1, problem);
  };
  for (const [key, value] of Object.entries(selector.matchLabels ?? {})) {
    const problem = labelKeyProblem(key) ??
      (typeof value === "string" ? labelValueProblem(value) : "matchLabels values must be strings");
    if (problem !== undefined) fail(problem);
    requirements.push({ key, operator: "=", values: [value] });
  }
  for (const expr of selector.matchExpressions ?? []) {
    const keyProblem = labelKeyProblem(String(expr?.key ?? ""));
    if (keyProblem !== undefined) fail(keyProblem);
    const values = expr.values ?? [];
    for (const v of values) {
      const problem = typeof v === "string" ? labelValueProblem(v) : "values must be strings";
      if (problem !== undefined) fail(problem);
    }
    switch (expr.operator) {
      case "In":
      case "NotIn":
        if (values.length === 0) {
          fail(
            `matchExpressions for key ${
              describeValue(expr.key)
            }: operator ${expr.operator} needs values`,
          );
        }
        requirements.push({
          key: expr.key,
          operator: expr.operator === "In" ? "in" : "notin",
          values,
        });
        break;
      case "Exists":
      case "DoesNotExist":
        if (values.length > 0) {
          fail(
            `matchExpressions for key ${
              describeValue(expr.key)
            }: operator ${expr.operator} takes no values`,
          );
        }
        requirements.push({
          key: expr.key,
          operator: expr.operator === "Exists" ? "exists" : "!",
          values: [],
        });
        break;
      default:
        fail(
          `matchExpressions for key ${describeValue(expr.key)}: unknown operator ${
            describeValue(expr.operator)
          }`,
        );
    }
  }
  return requirements.length === 0 ? EVERYTHING : new LabelSelector(requirements);
}
