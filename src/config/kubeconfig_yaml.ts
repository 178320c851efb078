/**
 * A parser for the subset of YAML that kubeconfig files use (what `kubectl config view --raw`
 * writes), and for JSON kubeconfigs. No dependency; anything outside the subset fails with a
 * {@linkcode KubeconfigParseError} naming the line instead of being half-understood.
 * @module
 */
import { KubeconfigParseError } from "./errors.ts";

/** A parsed YAML (or JSON) value: what `JSON.parse` would give for the same document. */
export type YamlValue = null | boolean | number | string | YamlValue[] | YamlMapping;

/** A YAML mapping with string keys. */
export interface YamlMapping {
  /** Value of a key. */
  [key: string]: YamlValue;
}

/** Nesting deeper than this is refused (a kubeconfig nests 5 levels). */
const MAX_DEPTH = 64;

/**
 * Parses a kubeconfig's YAML (or JSON) text into plain values.
 *
 * Supported: block mappings; block sequences, indented or at the level of their key (`- name:
 * x`); plain, single-quoted and double-quoted scalars, including ones folded over several
 * lines; `null`/`~`, booleans and numbers (YAML 1.2 core schema); the empty flow collections
 * `{}` and `[]`; comments; one leading `---`; a whole document in JSON. Refused with a
 * {@linkcode KubeconfigParseError}: anchors and aliases, tags, several documents, directives,
 * block scalars (`|`, `>`), flow collections with content inside YAML, complex keys, duplicate
 * keys and tab characters outside quoted strings and comments.
 *
 * @example
 * ```ts
 * import { parseKubeconfigYaml } from "@kinformer/kinformer/config";
 * const value = parseKubeconfigYaml([
 *   "clusters:",
 *   "- cluster:",
 *   "    server: https://127.0.0.1:6443 # local",
 *   "    insecure-skip-tls-verify: true",
 *   "  name: 'dev'",
 *   "preferences: {}",
 * ].join("\n"));
 * console.log(JSON.stringify(value));
 * // {"clusters":[{"cluster":{"server":"https://127.0.0.1:6443","insecure-skip-tls-verify":true},"name":"dev"}],"preferences":{}}
 * ```
 */
export function parseKubeconfigYaml(text: string): YamlValue {
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  const firstChar = /\S/.exec(text)?.[0];
  if (firstChar === "{" || firstChar === "[") {
    const trimmed = text.trim();
    if (trimmed.length < 256) {
      const only = trimmed.replace(/\s+#[^\n]*$/, "");
      if (only === "{}" || only === "[]") return only === "{}" ? {} : [];
    }
    return parseJson(text);
  }
  return new BlockParser(text).parseDocument();
}

/** Parses a JSON kubeconfig, reporting the line of a syntax error when the engine says it. */
function parseJson(text: string): YamlValue {
  try {
    return JSON.parse(text) as YamlValue;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const lines = text.split(/\r\n|\n|\r/);
    let line = lines.findIndex((l) => /\S/.test(l)) + 1;
    const lineMatch = /line (\d+)/.exec(message);
    const posMatch = /position (\d+)/.exec(message);
    if (lineMatch?.[1] !== undefined) line = Number(lineMatch[1]);
    else if (posMatch?.[1] !== undefined) {
      line = text.slice(0, Number(posMatch[1])).split(/\r\n|\n|\r/).length;
    }
    throw new KubeconfigParseError({
      reason: `invalid JSON (a document starting with "{" or "[" is read as JSON; ` +
        `flow collections with content are not supported in YAML): ${message}`,
      line,
      lineText: redactSecret(lines[line - 1] ?? ""),
      cause: error,
    });
  }
}

/** Key and the text after its `:` on a mapping line. */
interface KeySplit {
  key: string;
  after: string;
}

/** Line-oriented recursive-descent parser for block YAML. */
class BlockParser {
  readonly #lines: string[];
  /** Indentation of each line, overridden for the content after a `- ` indicator. */
  readonly #indents: number[];
  /** Content of each line after its indentation (or after a `- ` indicator). */
  readonly #rests: string[];
  /** Index of the next line not yet consumed. */
  #pos = 0;
  #sawContent = false;
  #depth = 0;

  constructor(text: string) {
    this.#lines = text.split(/\r\n|\n|\r/);
    this.#indents = [];
    this.#rests = [];
    for (const line of this.#lines) {
      const indent = /^ */.exec(line)?.[0].length ?? 0;
      this.#indents.push(indent);
      this.#rests.push(line.slice(indent));
    }
  }

  parseDocument(): YamlValue {
    const first = this.#nextStructural();
    if (first === undefined) return null;
    const value = this.#parseNode(this.#indent(first), -1);
    const extra = this.#nextStructural();
    if (extra !== undefined) {
      throw this.#error(extra, "unexpected content (check the indentation)");
    }
    return value;
  }

  #indent(i: number): number {
    return this.#indents[i] ?? 0;
  }

  #rest(i: number): string {
    return this.#rests[i] ?? "";
  }

  #error(i: number, reason: string): KubeconfigParseError {
    return new KubeconfigParseError({
      reason,
      line: i + 1,
      lineText: redactSecret(this.#lines[i] ?? ""),
    });
  }

  /**
   * Index of the next line with content (skipping blank and comment lines, a leading `---`),
   * without consuming it; `undefined` at the end of the text.
   */
  #nextStructural(): number | undefined {
    for (; this.#pos < this.#lines.length; this.#pos++) {
      const i = this.#pos;
      const line = this.#lines[i] ?? "";
      const rest = this.#rest(i);
      const trimmed = rest.replace(/^[ \t]+/, "");
      if (trimmed === "" || trimmed.startsWith("#")) continue;
      if (this.#indent(i) === 0 && /^(?:---|\.\.\.)(?:[ \t]|$)/.test(line)) {
        if (line.startsWith("---") && !this.#sawContent && /^---[ \t]*(?:#.*)?$/.test(line)) {
          this.#sawContent = true;
          continue;
        }
        throw this.#error(i, "several YAML documents (`---` / `...`) are not supported");
      }
      if (this.#indent(i) === 0 && line.startsWith("%")) {
        throw this.#error(i, "YAML directives (`%YAML`, `%TAG`) are not supported");
      }
      if (rest.startsWith("\t")) {
        throw this.#error(i, "tab characters are not allowed in indentation; use spaces");
      }
      this.#sawContent = true;
      return i;
    }
    return undefined;
  }

  /** Parses the block node whose first line is the next structural line, at `indent`. */
  #parseNode(indent: number, parentIndent: number): YamlValue {
    if (++this.#depth > MAX_DEPTH) {
      throw this.#error(this.#pos, `nesting deeper than ${MAX_DEPTH} levels`);
    }
    try {
      const i = this.#pos;
      const rest = this.#rest(i);
      if (isSequenceItem(rest)) return this.#parseSequence(indent);
      if (this.#splitKey(i) !== undefined) return this.#parseMapping(indent);
      this.#pos = i + 1;
      return this.#parseInlineValue(rest, i, parentIndent);
    } finally {
      this.#depth--;
    }
  }

  #parseSequence(indent: number): YamlValue[] {
    const items: YamlValue[] = [];
    for (;;) {
      const i = this.#nextStructural();
      if (i === undefined || this.#indent(i) < indent) break;
      const rest = this.#rest(i);
      if (this.#indent(i) > indent) {
        throw this.#error(i, "bad indentation: more than the sequence items above");
      }
      if (!isSequenceItem(rest)) break;
      const after = rest.slice(1);
      const content = after.replace(/^ +/, "");
      if (content.startsWith("\t")) {
        throw this.#error(i, "tab characters are not allowed in indentation; use spaces");
      }
      if (content === "" || content.startsWith("#")) {
        // `-` alone: the item is the block below it, or null.
        this.#pos = i + 1;
        items.push(this.#parseBlockValue(indent, false));
        continue;
      }
      // Re-read the content after `- ` as a node indented to its own column, so
      // `- name: x` followed by `  user: ...` forms one mapping.
      this.#indents[i] = indent + 1 + (after.length - content.length);
      this.#rests[i] = content;
      items.push(this.#parseNode(this.#indent(i), indent));
    }
    return items;
  }

  #parseMapping(indent: number): YamlMapping {
    const mapping: YamlMapping = {};
    const seen = new Set<string>();
    for (;;) {
      const i = this.#nextStructural();
      if (i === undefined || this.#indent(i) < indent) break;
      if (this.#indent(i) > indent) {
        throw this.#error(i, "bad indentation: more than the mapping entries above");
      }
      const rest = this.#rest(i);
      if (isSequenceItem(rest)) {
        throw this.#error(i, "a sequence item where a mapping key was expected");
      }
      const split = this.#splitKey(i);
      if (split === undefined) {
        throw this.#error(i, "expected a mapping entry `key: value`");
      }
      if (seen.has(split.key)) throw this.#error(i, `duplicate key ${JSON.stringify(split.key)}`);
      seen.add(split.key);
      this.#pos = i + 1;
      const after = split.after.replace(/^[ \t]+/, "");
      const value = after === "" || after.startsWith("#")
        ? this.#parseBlockValue(indent, true)
        : this.#parseInlineValue(after, i, indent);
      Object.defineProperty(mapping, split.key, {
        value,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return mapping;
  }

  /**
   * The value of a key (or `-`) with nothing after it on its line: a more indented block, a
   * sequence at the key's own indentation (`key:` then `- x`), or null.
   */
  #parseBlockValue(indent: number, allowIndentless: boolean): YamlValue {
    const j = this.#nextStructural();
    if (j === undefined) return null;
    if (this.#indent(j) > indent) return this.#parseNode(this.#indent(j), indent);
    if (allowIndentless && this.#indent(j) === indent && isSequenceItem(this.#rest(j))) {
      return this.#parseSequence(indent);
    }
    return null;
  }

  /** Splits a mapping line into key and the rest after `:`, or `undefined` if it is none. */
  #splitKey(i: number): KeySplit | undefined {
    const rest = this.#rest(i);
    const first = rest[0] ?? "";
    if (first === "'" || first === '"') {
      let scan: QuotedScan;
      try {
        scan = scanQuoted(rest, 1, first);
      } catch (reason) {
        if (typeof reason === "string") return undefined;
        throw reason;
      }
      if (scan.end < 0) return undefined;
      const tail = rest.slice(scan.end);
      const m = /^[ \t]*:(?=[ \t]|$)/.exec(tail);
      if (m === null) return undefined;
      return { key: scan.value, after: tail.slice(m[0].length) };
    }
    if (first === "?" && /^\?(?:[ \t]|$)/.test(rest)) {
      throw this.#error(i, "complex mapping keys (`? `) are not supported");
    }
    const colon = /:(?:[ \t]|$)/.exec(rest);
    if (colon === null) return undefined;
    const comment = /[ \t]#/.exec(rest);
    if (comment !== null && comment.index < colon.index) return undefined;
    const key = rest.slice(0, colon.index).replace(/[ \t]+$/, "");
    if (key === "") throw this.#error(i, "empty mapping key");
    this.#checkPlainStart(key, i);
    if (key.includes("\t")) throw this.#error(i, "tab characters are not allowed outside quotes");
    return { key, after: rest.slice(colon.index + 1) };
  }

  /** Refuses the YAML indicators the subset leaves out, at the start of a plain scalar. */
  #checkPlainStart(text: string, i: number): void {
    const c = text[0];
    switch (c) {
      case "&":
        throw this.#error(i, "anchors (`&name`) are not supported");
      case "*":
        throw this.#error(i, "aliases (`*name`) are not supported");
      case "!":
        throw this.#error(i, "tags (`!tag`) are not supported");
      case "|":
      case ">":
        throw this.#error(
          i,
          `block scalars (\`${c}\`) are not supported; write the value as a quoted string`,
        );
      case "{":
      case "[":
        throw this.#error(i, "flow collections with content are not supported; use block style");
      case "%":
      case "@":
      case "`":
        throw this.#error(i, `a plain value cannot start with the reserved character "${c}"`);
      case "}":
      case "]":
      case ",":
        throw this.#error(i, `a plain value cannot start with "${c}"`);
    }
  }

  /**
   * A value that starts on line `i` after a key or `- ` (`text`), possibly continued on the
   * following lines indented more than `parentIndent`.
   */
  #parseInlineValue(text: string, i: number, parentIndent: number): YamlValue {
    const c = text[0];
    if (c === "'" || c === '"') return this.#parseQuoted(text, i);
    if (c === "{" || c === "[") {
      const stripped = text.replace(/[ \t]+#.*$/, "").replace(/[ \t]+$/, "");
      if (/^\{[ \t]*\}$/.test(stripped)) return {};
      if (/^\[[ \t]*\]$/.test(stripped)) return [];
    }
    if (c === "-" && /^-(?:[ \t]|$)/.test(text)) {
      throw this.#error(i, "a block sequence cannot start on the same line as its key");
    }
    this.#checkPlainStart(text, i);
    return resolvePlain(this.#parsePlain(text, i, parentIndent));
  }

  /** A plain scalar: the first line's text plus folded continuation lines. */
  #parsePlain(text: string, i: number, parentIndent: number): string {
    const first = this.#plainLine(text, i);
    let value = first.text;
    if (first.commented) return value;
    let blank = 0;
    for (let j = this.#pos; j < this.#lines.length; j++) {
      const line = this.#lines[j] ?? "";
      if (/^[ \t]*$/.test(line)) {
        blank++;
        continue;
      }
      const indent = this.#indent(j);
      const rest = this.#rest(j);
      if (indent <= parentIndent || rest.startsWith("#")) break;
      if (rest.startsWith("\t")) {
        throw this.#error(j, "tab characters are not allowed in indentation; use spaces");
      }
      const part = this.#plainLine(rest, j);
      value += blank === 0 ? " " + part.text : "\n".repeat(blank) + part.text;
      blank = 0;
      this.#pos = j + 1;
      if (part.commented) break;
    }
    return value;
  }

  /** One line of a plain scalar: its text up to a comment, refusing `: ` and tabs. */
  #plainLine(text: string, i: number): { text: string; commented: boolean } {
    const comment = /[ \t]#/.exec(text);
    const body = (comment === null ? text : text.slice(0, comment.index)).replace(/[ \t]+$/, "");
    if (/:(?:[ \t]|$)/.test(body)) {
      throw this.#error(i, "a `: ` inside a plain value (quote the value, or fix the indentation)");
    }
    if (body.includes("\t")) throw this.#error(i, "tab characters are not allowed outside quotes");
    return { text: body, commented: comment !== null };
  }

  /** A quoted scalar starting at `text[0]` on line `i`, folded over lines until it closes. */
  #parseQuoted(text: string, i: number): string {
    const parts: string[] = [];
    let lineText = text;
    let j = i;
    let pendingBlank = 0;
    let joinWith: "" | " " | undefined;
    const quote = text[0] ?? '"';
    let from = 1;
    for (;;) {
      let scan: QuotedScan;
      try {
        scan = scanQuoted(lineText, from, quote);
      } catch (reason) {
        throw this.#error(j, String(reason));
      }
      if (joinWith !== undefined) {
        parts.push(pendingBlank > 0 ? "\n".repeat(pendingBlank) : joinWith);
      }
      parts.push(scan.value);
      if (scan.end >= 0) {
        const tail = lineText.slice(scan.end);
        if (!/^(?:[ \t]+(?:#.*)?)?$/.test(tail)) {
          throw this.#error(j, "unexpected text after a quoted value");
        }
        this.#pos = j + 1;
        return parts.join("");
      }
      joinWith = scan.escapedBreak ? "" : " ";
      pendingBlank = 0;
      for (;;) {
        j++;
        if (j >= this.#lines.length) {
          throw this.#error(i, "quoted value is never closed");
        }
        const next = this.#lines[j] ?? "";
        if (!scan.escapedBreak && /^[ \t]*$/.test(next)) {
          pendingBlank++;
          continue;
        }
        lineText = next.replace(/^[ \t]+/, "");
        break;
      }
      from = 0;
    }
  }
}

/** Result of scanning a quoted scalar on one line. */
interface QuotedScan {
  /** The unescaped text seen on this line (trailing spaces trimmed if it continues). */
  value: string;
  /** Index just after the closing quote, or -1 when the value continues on the next line. */
  end: number;
  /** The line ended with `\` inside double quotes: join the next line without a space. */
  escapedBreak: boolean;
}

/** Keys whose values are credentials: an error shows the key but not the value. */
const SECRET_KEY =
  /^(\s*(?:-\s+)?(["']?)(?:token|password|client-key-data|id-token|refresh-token|access-token|client-secret)\2\s*:).+$/;

/** The line with the value of a credential key replaced, so errors never print secrets. */
function redactSecret(line: string): string {
  const m = SECRET_KEY.exec(line);
  return m?.[1] === undefined ? line : `${m[1]} <redacted>`;
}

/** `true` for a line that is a block sequence item (`-` followed by a space or the end). */
function isSequenceItem(rest: string): boolean {
  return rest === "-" || rest.startsWith("- ") || rest.startsWith("-\t");
}

/**
 * Scans one line of a scalar quoted with `quote`, from index `from` (just after the opening
 * quote, or 0 on a continuation line). Throws a plain string reason on a bad escape.
 */
function scanQuoted(line: string, from: number, quote: string): QuotedScan {
  let k = from;
  let out = "";
  let keep = 0; // length of `out` that trimming must not eat (escaped characters)
  while (k < line.length) {
    const ch = line[k] ?? "";
    if (ch === quote) {
      if (quote === "'" && line[k + 1] === "'") {
        out += "'";
        keep = out.length;
        k += 2;
        continue;
      }
      return { value: out, end: k + 1, escapedBreak: false };
    }
    if (quote === '"' && ch === "\\") {
      if (k + 1 >= line.length) {
        return { value: out, end: -1, escapedBreak: true };
      }
      const [decoded, used] = decodeEscape(line, k + 1);
      out += decoded;
      keep = out.length;
      k += 1 + used;
      continue;
    }
    out += ch;
    k++;
  }
  const trimmed = out.slice(0, keep) + out.slice(keep).replace(/[ \t]+$/, "");
  return { value: trimmed, end: -1, escapedBreak: false };
}

const SIMPLE_ESCAPES: Record<string, string> = {
  "0": "\0",
  "a": "\x07",
  "b": "\b",
  "t": "\t",
  "\t": "\t",
  "n": "\n",
  "v": "\v",
  "f": "\f",
  "r": "\r",
  "e": "\x1b",
  " ": " ",
  '"': '"',
  "/": "/",
  "\\": "\\",
  "N": "\u0085",
  "_": "\u00a0",
  "L": "\u2028",
  "P": "\u2029",
};

/** Decodes the escape whose letter is at `line[k]`; returns the text and characters used. */
function decodeEscape(line: string, k: number): [string, number] {
  const letter = line[k] ?? "";
  const simple = SIMPLE_ESCAPES[letter];
  if (simple !== undefined) return [simple, 1];
  const width = letter === "x" ? 2 : letter === "u" ? 4 : letter === "U" ? 8 : 0;
  if (width === 0) throw `unknown escape "\\${letter}" in a double-quoted value`;
  const hex = line.slice(k + 1, k + 1 + width);
  if (!new RegExp(`^[0-9a-fA-F]{${width}}$`).test(hex)) {
    throw `bad escape "\\${letter}${hex}" in a double-quoted value`;
  }
  const code = parseInt(hex, 16);
  if (code > 0x10ffff) throw `bad escape "\\${letter}${hex}" in a double-quoted value`;
  return [String.fromCodePoint(code), 1 + width];
}

/** Resolves a plain scalar per the YAML 1.2 core schema. */
function resolvePlain(s: string): YamlValue {
  if (s === "" || s === "~" || s === "null" || s === "Null" || s === "NULL") return null;
  if (s === "true" || s === "True" || s === "TRUE") return true;
  if (s === "false" || s === "False" || s === "FALSE") return false;
  if (/^[-+]?[0-9]+$/.test(s)) return safeInteger(Number(s), s);
  if (/^0o[0-7]+$/.test(s)) return safeInteger(parseInt(s.slice(2), 8), s);
  if (/^0x[0-9a-fA-F]+$/.test(s)) return safeInteger(parseInt(s.slice(2), 16), s);
  if (/^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$/.test(s)) return Number(s);
  if (/^[-+]?\.(?:inf|Inf|INF)$/.test(s)) return s.startsWith("-") ? -Infinity : Infinity;
  if (/^\.(?:nan|NaN|NAN)$/.test(s)) return NaN;
  return s;
}

/** An integer beyond 2^53 stays a string, so no digit of (say) a numeric token is lost. */
function safeInteger(n: number, source: string): number | string {
  return Number.isSafeInteger(n) ? n : source;
}
