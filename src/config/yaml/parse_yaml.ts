/**
 * A parser for the YAML subset configuration files are written in (what `kubectl config view
 * --raw` writes, what people write by hand, and JSON). No dependency; anything outside the
 * subset fails with a `YamlSyntaxError` naming the line instead of being
 * half-understood. One pass over the text, in linear time (see `_scanner.ts`). Internal: the
 * public entry point is `parseKubeconfig` (`@kinformer/kinformer/config`).
 * @module
 */
import { childPath, type ShowKey, type YamlPath } from "./_path.ts";
import { resolvePlain } from "./_scalars.ts";
import { isFlowIndicator, YamlScanner } from "./_scanner.ts";
import type { YamlMapping, YamlValue } from "./yaml_value.ts";

/** Nesting deeper than this is refused (a kubeconfig nests 5 levels). */
const MAX_DEPTH = 64;

/** Options of {@linkcode parseYaml}. */
export interface ParseYamlOptions {
  /**
   * Which mapping keys an error may show in its key path; the others show as `<key>` (in
   * broken input a secret can sit where a key is expected).
   * @default none
   */
  showKey?: ShowKey | undefined;
  /**
   * Name of the text in error messages.
   * @default "yaml"
   */
  source?: string | undefined;
  /**
   * Called for a key repeated in one mapping, with the 1-based line of the repeat; the later
   * value wins, as in a non-strict YAML decoder (kube-apiserver's, outside `Strict` field
   * validation). Without it, a repeated key is a `YamlSyntaxError`.
   * @default none
   */
  onDuplicateKey?: ((key: string, line: number) => void) | undefined;
}

/**
 * Parses YAML (or JSON) text into plain values; see `parseKubeconfigYaml` for the subset.
 *
 * @throws {YamlSyntaxError} naming the line, column and key path, never the text.
 */
export function parseYaml(text: string, options: ParseYamlOptions = {}): YamlValue {
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  if (startsLikeJson(text)) {
    try {
      return JSON.parse(text) as YamlValue;
    } catch {
      // Not JSON (a YAML flow collection, or broken): the YAML parser reads it or says where
      // it is wrong. JSON.parse's own message is not used: it can quote the text.
    }
  }
  return new Parser(
    text,
    options.showKey ?? (() => false),
    options.source,
    options.onDuplicateKey,
  ).parseDocument();
}

/** Whether the first non-whitespace character is `{` or `[`. */
function startsLikeJson(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === "{" || c === "[") return true;
    if (c !== " " && c !== "\t" && c !== "\n" && c !== "\r") return false;
  }
  return false;
}

/** Recursive descent over block and flow structure; scalars come from the scanner. */
class Parser {
  readonly #s: YamlScanner;
  readonly #onDuplicateKey: ((key: string, line: number) => void) | undefined;
  #depth = 0;

  constructor(
    text: string,
    showKey: ShowKey,
    source: string | undefined,
    onDuplicateKey: ((key: string, line: number) => void) | undefined,
  ) {
    this.#s = new YamlScanner(text, showKey, source);
    this.#onDuplicateKey = onDuplicateKey;
  }

  /** A key seen already in `mapping`: reported (the later value wins) or refused. */
  #duplicate(mapping: YamlMapping, key: string, keyPath: YamlPath | undefined): void {
    if (!Object.hasOwn(mapping, key)) return;
    if (this.#onDuplicateKey === undefined) throw this.#s.error("duplicate key", keyPath);
    this.#onDuplicateKey(key, this.#s.line + 1);
  }

  parseDocument(): YamlValue {
    if (this.#s.nextContent(undefined) < 0) return null;
    const value = this.#node(-1, undefined);
    if (this.#s.nextContent(undefined) >= 0) {
      throw this.#s.error(
        "unexpected content after the document (check the indentation)",
        undefined,
      );
    }
    return value;
  }

  /** Counts one level of nesting, refusing too many. */
  #enter(path: YamlPath | undefined): void {
    if (++this.#depth > MAX_DEPTH) {
      throw this.#s.error(`nesting deeper than ${MAX_DEPTH} levels`, path);
    }
  }

  /** Whether the cursor is at a block sequence indicator (`-` then a space or line end). */
  #atSequenceItem(): boolean {
    return this.#s.char() === "-" && this.#s.blankAt(1);
  }

  /** A block node starting at the cursor, inside a collection at `parentIndent`. */
  #node(parentIndent: number, path: YamlPath | undefined): YamlValue {
    const s = this.#s;
    if (this.#atSequenceItem()) return this.#sequence(s.column, path);
    const c = s.char();
    if (
      (c === '"' || c === "'")
        ? s.isQuotedKey()
        : isPlainStart(c, s.char(1), false) && s.isPlainKey()
    ) {
      return this.#mapping(s.column, path);
    }
    return this.#inline(parentIndent, path);
  }

  #sequence(indent: number, path: YamlPath | undefined): YamlValue[] {
    const s = this.#s;
    this.#enter(path);
    const items: YamlValue[] = [];
    for (;;) {
      s.pos++; // the `-`
      items.push(this.#valueAfterIndicator(indent, false, childPath(path, items.length)));
      const next = s.nextContent(path);
      if (next < indent) break;
      if (next > indent) {
        throw s.error("bad indentation: more than the sequence items above", path);
      }
      if (!this.#atSequenceItem()) break;
    }
    this.#depth--;
    return items;
  }

  #mapping(indent: number, path: YamlPath | undefined): YamlMapping {
    const s = this.#s;
    this.#enter(path);
    const mapping: YamlMapping = {};
    for (;;) {
      if (this.#atSequenceItem()) {
        throw s.error("a sequence item where a mapping key was expected", path);
      }
      const key = this.#blockKey(path);
      const keyPath = childPath(path, key);
      this.#duplicate(mapping, key, keyPath);
      define(mapping, key, this.#valueAfterIndicator(indent, true, keyPath));
      const next = s.nextContent(path);
      if (next < indent) break;
      if (next > indent) {
        throw s.error("bad indentation: more than the mapping entries above", path);
      }
    }
    this.#depth--;
    return mapping;
  }

  /** Reads `key:` at the cursor and returns the key, leaving the cursor after the `:`. */
  #blockKey(path: YamlPath | undefined): string {
    const s = this.#s;
    const c = s.char();
    if (c === '"' || c === "'") {
      if (!s.isQuotedKey()) throw s.error("expected a mapping entry `key: value`", path);
      const key = s.quoted(-1, path);
      s.skipWhite();
      s.pos++; // the `:`
      return key;
    }
    refuseIndicator(s, false, path, "a mapping key");
    const key = s.readPlainKey();
    if (key === undefined) throw s.error("expected a mapping entry `key: value`", path);
    return key;
  }

  /**
   * The value after `key:` or `-` (the cursor is just after the indicator): on the same line,
   * or a block on the lines below, or a sequence at the key's own indentation, or null.
   */
  #valueAfterIndicator(indent: number, afterKey: boolean, path: YamlPath): YamlValue {
    const s = this.#s;
    const afterIndicator = s.pos;
    const tab = s.skipWhite();
    const c = s.char();
    if (c === "" || c === "\n" || c === "\r" || c === "#") {
      s.pos = afterIndicator;
      s.endLine(path, "the indicator");
      const next = s.nextContent(path);
      if (next > indent) return this.#node(indent, path);
      if (afterKey && next === indent && this.#atSequenceItem()) {
        return this.#sequence(indent, path);
      }
      return null;
    }
    if (afterKey) {
      if (this.#atSequenceItem()) {
        throw s.error("a block sequence cannot start on the same line as its key", path);
      }
      return this.#inline(indent, path);
    }
    // `- ` then content: a node indented to its own column, so `- name: x` and the
    // `  user: ...` lines below it form one mapping.
    if (tab && (this.#atSequenceItem() || s.isPlainKey())) {
      throw s.error("tab characters are not allowed in indentation; use spaces", path);
    }
    return this.#node(indent, path);
  }

  /**
   * A value that is not a block collection, starting at the cursor: quoted, flow, block or
   * plain scalar. Leaves the cursor at the start of the next line.
   */
  #inline(parentIndent: number, path: YamlPath | undefined): YamlValue {
    const s = this.#s;
    const c = s.char();
    if (c === "|" || c === ">") return s.blockScalar(parentIndent, path);
    if (c === '"' || c === "'" || c === "{" || c === "[") {
      const flow = c === "{" || c === "[";
      const value = flow ? this.#flow(parentIndent, path) : s.quoted(parentIndent, path);
      s.skipWhite();
      if (s.char() === ":") {
        throw s.error(
          flow
            ? "a flow collection as a mapping key (a complex key) is not supported"
            : "a mapping key must be on one line, and cannot follow another key on its line",
          path,
        );
      }
      s.endLine(path, flow ? "a flow collection" : "a quoted value");
      return value;
    }
    refuseIndicator(s, false, path, "a plain value");
    return resolvePlain(s.plainBlock(parentIndent, path));
  }

  /** A flow collection at the cursor; its lines must be indented more than `parentIndent`. */
  #flow(parentIndent: number, path: YamlPath | undefined): YamlValue {
    const s = this.#s;
    this.#enter(path);
    const opened = s.mark();
    const isSequence = s.char() === "[";
    const close = isSequence ? "]" : "}";
    const items: YamlValue[] = [];
    const mapping: YamlMapping = {};
    s.pos++;
    for (;;) {
      s.skipFlowSpace(parentIndent, path);
      let c = s.char();
      if (c === close) break;
      if (c === "") {
        throw s.error(`a flow collection is never closed (no \`${close}\`)`, path, opened);
      }
      if (isSequence) {
        items.push(this.#flowNode(parentIndent, childPath(path, items.length)));
      } else {
        const key = this.#flowKey(parentIndent, path);
        const keyPath = childPath(path, key);
        this.#duplicate(mapping, key, keyPath);
        s.skipFlowSpace(parentIndent, path);
        let value: YamlValue = null;
        if (s.char() === ":") {
          s.pos++;
          s.skipFlowSpace(parentIndent, path);
          const v = s.char();
          if (v !== "," && v !== "}") value = this.#flowNode(parentIndent, keyPath);
        }
        define(mapping, key, value);
      }
      s.skipFlowSpace(parentIndent, path);
      c = s.char();
      if (c === ",") s.pos++;
      else if (c === close) break;
      else if (c === "") {
        throw s.error(`a flow collection is never closed (no \`${close}\`)`, path, opened);
      } else if (c === ":" && isSequence) {
        throw s.error(
          "a `key: value` pair directly inside `[...]` is not supported; use `{}`",
          path,
        );
      } else {
        throw s.error(`expected \`,\` or \`${close}\` in a flow collection`, path);
      }
    }
    s.pos++;
    this.#depth--;
    return isSequence ? items : mapping;
  }

  /** A key in a flow mapping: quoted or plain (as written). */
  #flowKey(parentIndent: number, path: YamlPath | undefined): string {
    const s = this.#s;
    const c = s.char();
    if (c === '"' || c === "'") return s.quoted(parentIndent, path);
    if (c === "{" || c === "[") {
      throw s.error("a flow collection as a mapping key (a complex key) is not supported", path);
    }
    if (c === ",") throw s.error("an empty entry in a flow mapping", path);
    refuseIndicator(s, true, path, "a mapping key");
    return s.plainFlow(parentIndent, path);
  }

  /** A node inside a flow collection. */
  #flowNode(parentIndent: number, path: YamlPath): YamlValue {
    const s = this.#s;
    const c = s.char();
    if (c === "{" || c === "[") return this.#flow(parentIndent, path);
    if (c === '"' || c === "'") return s.quoted(parentIndent, path);
    if (c === ",") throw s.error("an empty entry in a flow collection", path);
    refuseIndicator(s, true, path, "a value");
    return resolvePlain(s.plainFlow(parentIndent, path));
  }
}

/** Sets an own, enumerable property (also for keys like `__proto__`). */
function define(mapping: YamlMapping, key: string, value: YamlValue): void {
  Object.defineProperty(mapping, key, {
    value,
    enumerable: true,
    writable: true,
    configurable: true,
  });
}

/**
 * Whether `c` (followed by `next`) can start a plain scalar: not an indicator, except `-`, `?`
 * and `:` directly followed by text.
 */
function isPlainStart(c: string, next: string, flow: boolean): boolean {
  if (c === "-" || c === "?" || c === ":") {
    return !(next === "" || next === " " || next === "\t" || next === "\n" || next === "\r" ||
      (flow && isFlowIndicator(next)));
  }
  return !"&*!|>'\"%@`#,[]{}".includes(c) && c !== "";
}

/** Throws the error for an indicator that cannot start a plain scalar at the cursor. */
function refuseIndicator(
  s: YamlScanner,
  flow: boolean,
  path: YamlPath | undefined,
  what: string,
): void {
  const c = s.char();
  if (isPlainStart(c, s.char(1), flow)) return;
  switch (c) {
    case "&":
      throw s.error("anchors (`&name`) are not supported", path);
    case "*":
      throw s.error("aliases (`*name`) are not supported", path);
    case "!":
      throw s.error("tags (`!tag`) are not supported", path);
    case "?":
      throw s.error("complex mapping keys (`? `) are not supported", path);
    case "-":
      throw s.error("a block sequence inside a flow collection is not supported", path);
    case ":":
      throw s.error("a `:` with no key before it", path);
    case "|":
    case ">":
      throw s.error("a block scalar (`|`, `>`) inside a flow collection is not supported", path);
    case "%":
    case "@":
    case "`":
      throw s.error(`${what} cannot start with the reserved character \`${c}\``, path);
    default:
      throw s.error(`${what} cannot start with \`${c}\``, path);
  }
}
