/**
 * Scalar helpers of the YAML subset parser that need no cursor: resolving plain scalars
 * (YAML 1.2 core schema), double-quoted escapes, and joining the lines of a block scalar.
 * @module
 */
import type { YamlValue } from "./yaml_value.ts";

/** Resolves a plain scalar per the YAML 1.2 core schema. */
export function resolvePlain(s: string): YamlValue {
  if (s === "" || s === "~" || s === "null" || s === "Null" || s === "NULL") return null;
  if (s === "true" || s === "True" || s === "TRUE") return true;
  if (s === "false" || s === "False" || s === "FALSE") return false;
  const c = s[0] ?? "";
  // Every number starts with a digit, a sign or a dot: skip the tests for other strings. The
  // patterns are anchored and have no nested or adjacent overlapping quantifiers, so each runs
  // in time linear in the length of `s`.
  if (!(c === "-" || c === "+" || c === "." || (c >= "0" && c <= "9"))) return s;
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

const SIMPLE_ESCAPES: Readonly<Record<string, string>> = {
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

/**
 * Decodes the escape whose letter is at `text[k]` (just after a `\`): the text it stands for
 * and how many characters it used, or `undefined` for an unknown or malformed escape.
 */
export function decodeEscape(text: string, k: number): [string, number] | undefined {
  const letter = text[k] ?? "";
  if (Object.hasOwn(SIMPLE_ESCAPES, letter)) return [SIMPLE_ESCAPES[letter] ?? "", 1];
  const width = letter === "x" ? 2 : letter === "u" ? 4 : letter === "U" ? 8 : 0;
  if (width === 0) return undefined;
  let code = 0;
  for (let i = k + 1; i <= k + width; i++) {
    const digit = parseInt(text[i] ?? "", 16);
    if (Number.isNaN(digit)) return undefined;
    code = code * 16 + digit;
  }
  if (code > 0x10ffff) return undefined;
  return [String.fromCodePoint(code), 1 + width];
}

/** How a block scalar ends: `-` strips final line breaks, `+` keeps them, none keeps one. */
export type Chomping = "strip" | "clip" | "keep";

/** How to end a block scalar, for {@linkcode joinBlockScalar}. */
export interface BlockScalarEnd {
  /** Empty lines after the last non-empty line (each ended by a line break). */
  trailingEmpty: number;
  /**
   * Whether a line break follows the last non-empty line. Not when the text ends on that
   * line: then, as YAML 1.2 (`b-chomped-last`) and libyaml read it, clipping and keeping add
   * no line feed for it (the yaml package adds one).
   */
  finalBreak: boolean;
  /** `|` (true) or `>` (false). */
  literal: boolean;
  /** The chomping indicator. */
  chomping: Chomping;
}

/**
 * The value of a block scalar from its lines (indentation removed, `""` for an empty line) up
 * to its last non-empty line.
 */
export function joinBlockScalar(lines: readonly string[], end: BlockScalarEnd): string {
  const { trailingEmpty, finalBreak, literal, chomping } = end;
  if (lines.length === 0) return chomping === "keep" ? "\n".repeat(trailingEmpty) : "";
  const body = literal ? lines.join("\n") : foldLines(lines);
  if (chomping === "strip" || !finalBreak) return body;
  return chomping === "clip" ? body + "\n" : body + "\n".repeat(trailingEmpty + 1);
}

/**
 * Folds the lines of a `>` scalar: a single line break between two lines of text becomes a
 * space, each empty line between them a line feed; breaks next to a more-indented line (one
 * starting with a space or tab) are kept.
 */
function foldLines(lines: readonly string[]): string {
  const out: string[] = [];
  let previous: "none" | "text" | "spaced" = "none";
  let empty = 0;
  for (const line of lines) {
    if (line === "") {
      empty++;
      continue;
    }
    const spaced = line[0] === " " || line[0] === "\t";
    if (previous === "none") out.push("\n".repeat(empty));
    else if (previous === "text" && !spaced) out.push(empty === 0 ? " " : "\n".repeat(empty));
    else out.push("\n".repeat(empty + 1));
    out.push(line);
    previous = spaced ? "spaced" : "text";
    empty = 0;
  }
  return out.join("");
}
