/**
 * The JSONPath of kubectl and of a CRD's `additionalPrinterColumns` (client-go's
 * `util/jsonpath`, one expression without the braces): `.a.b`, `['a.b']`, `..a` (recursive),
 * `[0]`, `[-1]`, `[1:3]`, `[*]`, `.*`, unions `['a','b']` and filters `[?(@.type=="Ready")]`
 * (`==`, `!=`, `<`, `>`, `<=`, `>=`, or `[?(@.x)]` for existence). Missing keys yield nothing,
 * as with `AllowMissingKeys(true)`. Only own properties are read: a path never reaches a
 * prototype.
 * @module
 */
import { describeValue, isRecord } from "@kinformer/kinformer/internal";

/** One step of a compiled path. */
type Step =
  | { kind: "field"; names: string[] }
  | { kind: "recursive"; name: string | undefined }
  | { kind: "wildcard" }
  | { kind: "index"; indexes: number[] }
  | { kind: "slice"; start: number | undefined; end: number | undefined; step: number }
  | { kind: "filter"; left: Step[]; op: string; right: unknown };

/** A JSONPath that could not be parsed. */
export class JsonPathError extends Error {
  /** The path. */
  readonly path: string;
  constructor(path: string, message: string) {
    super(`invalid JSONPath ${describeValue(path)}: ${message}`);
    this.name = "JsonPathError";
    this.path = path;
  }
}

/** A compiled JSONPath. */
export class JsonPath {
  /** The path as written. */
  readonly source: string;
  readonly #steps: Step[];

  /** Compiles `path` (`.spec.replicas`, `{.spec.replicas}` too). @throws {JsonPathError} */
  constructor(path: string) {
    this.source = path;
    let text = path.trim();
    if (text.startsWith("{") && text.endsWith("}")) text = text.slice(1, -1).trim();
    if (text.startsWith("$")) text = text.slice(1);
    this.#steps = new Parser(path, text).steps(false);
  }

  /** Every value the path selects in `data`, in document order. */
  find(data: unknown): unknown[] {
    return evaluate(this.#steps, [data]);
  }
}

class Parser {
  #at = 0;
  readonly path: string;
  readonly text: string;

  constructor(path: string, text: string) {
    this.path = path;
    this.text = text;
  }

  #fail(message: string): never {
    throw new JsonPathError(this.path, message);
  }

  #peek(s: string): boolean {
    return this.text.startsWith(s, this.#at);
  }

  #identifier(): string {
    const m = /^[^.[\]()\s=!<>,'"*@]+/.exec(this.text.slice(this.#at));
    if (m === null) this.#fail(`expected a field name at ${this.#at}`);
    this.#at += m[0].length;
    return m[0];
  }

  /** Steps until the end (or, inside a filter, until an operator or `)`). */
  steps(inFilter: boolean): Step[] {
    const steps: Step[] = [];
    while (this.#at < this.text.length) {
      if (inFilter && /^\s*(==|!=|<=|>=|<|>|\))/.test(this.text.slice(this.#at))) break;
      if (this.#peek("..")) {
        this.#at += 2;
        if (this.#peek("[")) {
          steps.push({ kind: "recursive", name: undefined });
          continue;
        }
        steps.push({
          kind: "recursive",
          name: this.#peek("*") ? (this.#at++, undefined) : this.#identifier(),
        });
      } else if (this.#peek(".")) {
        this.#at++;
        if (this.#peek("*")) {
          this.#at++;
          steps.push({ kind: "wildcard" });
        } else if (this.#at < this.text.length && !this.#peek("[")) {
          steps.push({ kind: "field", names: [this.#identifier()] });
        }
      } else if (this.#peek("[")) {
        steps.push(this.#bracket());
      } else {
        this.#fail(`unexpected ${describeValue(this.text[this.#at])} at ${this.#at}`);
      }
    }
    return steps;
  }

  #bracket(): Step {
    this.#at++; // [
    const close = (step: Step): Step => {
      while (this.#peek(" ")) this.#at++;
      if (!this.#peek("]")) this.#fail(`expected "]" at ${this.#at}`);
      this.#at++;
      return step;
    };
    if (this.#peek("?(")) {
      this.#at += 2;
      while (this.#peek(" ")) this.#at++;
      if (!this.#peek("@")) this.#fail(`a filter must start with @ at ${this.#at}`);
      this.#at++;
      const left = this.steps(true);
      while (this.#peek(" ")) this.#at++;
      let op = "exists";
      let right: unknown;
      const m = /^(==|!=|<=|>=|<|>)\s*/.exec(this.text.slice(this.#at));
      if (m !== null) {
        op = m[1]!;
        this.#at += m[0].length;
        right = this.#literal();
        while (this.#peek(" ")) this.#at++;
      }
      if (!this.#peek(")")) this.#fail(`expected ")" at ${this.#at}`);
      this.#at++;
      return close({ kind: "filter", left, op, right });
    }
    if (this.#peek("*")) {
      this.#at++;
      return close({ kind: "wildcard" });
    }
    if (this.#peek("'") || this.#peek('"')) {
      const names: string[] = [];
      for (;;) {
        names.push(this.#quoted());
        while (this.#peek(" ")) this.#at++;
        if (!this.#peek(",")) break;
        this.#at++;
        while (this.#peek(" ")) this.#at++;
      }
      return close({ kind: "field", names });
    }
    const m = /^\s*(-?\d*)\s*(?::\s*(-?\d*)\s*(?::\s*(-?\d*)\s*)?)?/.exec(
      this.text.slice(this.#at),
    );
    const inner = this.text.slice(this.#at, this.text.indexOf("]", this.#at));
    if (inner.includes(",")) {
      const indexes = inner.split(",").map((s) => s.trim());
      if (!indexes.every((s) => /^-?\d+$/.test(s))) this.#fail(`bad index list [${inner}]`);
      this.#at += inner.length;
      return close({ kind: "index", indexes: indexes.map(Number) });
    }
    if (m === null || m[0].length === 0) this.#fail(`bad subscript at ${this.#at}`);
    this.#at += m[0].length;
    const num = (s: string | undefined) => (s === undefined || s === "" ? undefined : Number(s));
    if (!m[0].includes(":")) {
      if (m[1] === "") this.#fail(`bad subscript at ${this.#at}`);
      return close({ kind: "index", indexes: [Number(m[1])] });
    }
    const step = num(m[3]) ?? 1;
    if (step === 0) this.#fail("a slice step must not be 0");
    return close({ kind: "slice", start: num(m[1]), end: num(m[2]), step });
  }

  #quoted(): string {
    const quote = this.text[this.#at]!;
    let out = "";
    for (this.#at++; this.#at < this.text.length; this.#at++) {
      const ch = this.text[this.#at]!;
      if (ch === "\\" && this.#at + 1 < this.text.length) {
        out += this.text[++this.#at];
      } else if (ch === quote) {
        this.#at++;
        return out;
      } else {
        out += ch;
      }
    }
    this.#fail("unterminated string");
  }

  #literal(): unknown {
    if (this.#peek("'") || this.#peek('"')) return this.#quoted();
    const m = /^(true|false|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)/.exec(this.text.slice(this.#at));
    if (m === null) this.#fail(`expected a literal at ${this.#at}`);
    this.#at += m[0].length;
    return m[0] === "true" ? true : m[0] === "false" ? false : Number(m[0]);
  }
}

function own(obj: Record<string, unknown>, key: string): unknown[] {
  return Object.hasOwn(obj, key) ? [obj[key]] : [];
}

function children(value: unknown): unknown[] {
  if (Array.isArray(value)) return value;
  if (isRecord(value)) return Object.keys(value).sort().map((k) => value[k]);
  return [];
}

function descendants(value: unknown, out: unknown[]): void {
  out.push(value);
  for (const child of children(value)) descendants(child, out);
}

function index(length: number, i: number): number {
  return i < 0 ? length + i : i;
}

function compare(left: unknown, op: string, right: unknown): boolean {
  if (op === "exists") return true;
  if (typeof left !== typeof right) return false;
  if (typeof left === "boolean" && op !== "==" && op !== "!=") return false;
  const l = left as string | number | boolean;
  const r = right as string | number | boolean;
  switch (op) {
    case "==":
      return l === r;
    case "!=":
      return l !== r;
    case "<":
      return l < r;
    case ">":
      return l > r;
    case "<=":
      return l <= r;
    case ">=":
      return l >= r;
  }
  return false;
}

function evaluate(steps: readonly Step[], input: unknown[]): unknown[] {
  let values = input;
  for (const step of steps) {
    const next: unknown[] = [];
    for (const value of values) {
      switch (step.kind) {
        case "field":
          if (isRecord(value)) { for (const name of step.names) next.push(...own(value, name)); }
          break;
        case "wildcard":
          next.push(...children(value));
          break;
        case "recursive": {
          const all: unknown[] = [];
          descendants(value, all);
          if (step.name === undefined) next.push(...all);
          else for (const v of all) if (isRecord(v)) next.push(...own(v, step.name));
          break;
        }
        case "index":
          if (Array.isArray(value)) {
            for (const i of step.indexes) {
              const at = index(value.length, i);
              if (at >= 0 && at < value.length) next.push(value[at]);
            }
          }
          break;
        case "slice":
          if (Array.isArray(value)) {
            const n = value.length;
            const clamp = (i: number) => Math.min(Math.max(index(n, i), 0), n);
            const start = step.start === undefined ? 0 : clamp(step.start);
            const end = step.end === undefined ? n : clamp(step.end);
            const stride = Math.abs(step.step);
            if (step.step > 0) {
              for (let i = start; i < end; i += stride) next.push(value[i]);
            } else {
              for (let i = end - 1; i >= start; i -= stride) next.push(value[i]);
            }
          }
          break;
        case "filter":
          for (const item of Array.isArray(value) ? value : [value]) {
            const lefts = evaluate(step.left, [item]);
            if (lefts.length === 1 && compare(lefts[0], step.op, step.right)) next.push(item);
          }
          break;
      }
    }
    values = next;
  }
  return values;
}
