/**
 * The character level of the YAML subset parser: a cursor over the whole text that skips
 * blank lines and comments and reads scalars (plain, quoted, block) and keys. Every method
 * moves forward through the text, and looks ahead only a bounded distance or over text it then
 * consumes, so parsing takes time linear in the size of the text; no regular expression runs
 * over unbounded input. Errors carry a line, a column and a key path, never the text itself.
 * @module
 */
import { describePath, type ShowKey, type YamlPath } from "./_path.ts";
import { type Chomping, decodeEscape, joinBlockScalar } from "./_scalars.ts";
import { YamlSyntaxError } from "./yaml_syntax_error.ts";

/** A line feed or carriage return (YAML's line breaks). */
function isBreak(c: string | undefined): boolean {
  return c === "\n" || c === "\r";
}

/** A space or tab. */
function isWhite(c: string | undefined): boolean {
  return c === " " || c === "\t";
}

/** One of the flow indicators `,[]{}`. */
export function isFlowIndicator(c: string | undefined): boolean {
  return c === "," || c === "[" || c === "]" || c === "{" || c === "}";
}

/** How a plain scalar's line scan stopped. */
type PlainStop = "end" | "colon" | "comment" | "flow";

/** Position of the cursor. */
interface Mark {
  pos: number;
  line: number;
  lineStart: number;
}

/** Cursor over a YAML text. */
export class YamlScanner {
  readonly #text: string;
  readonly #showKey: ShowKey;
  readonly #source: string | undefined;
  /** Offset of the cursor. */
  pos = 0;
  /** 0-based line of the cursor. */
  line = 0;
  /** Offset where the cursor's line starts. */
  lineStart = 0;
  #sawContent = false;
  /** End of the text a plain scan saw without whitespace (set by `#scanPlain`). */
  #plainEnd = 0;

  /** A cursor at the start of `text`; errors show the keys `showKey` allows, and `source`. */
  constructor(text: string, showKey: ShowKey, source: string | undefined) {
    this.#text = text;
    this.#showKey = showKey;
    this.#source = source;
  }

  /** 0-based column of the cursor. */
  get column(): number {
    return this.pos - this.lineStart;
  }

  /** The character `offset` after the cursor, `""` past the end. */
  char(offset = 0): string {
    return this.#text[this.pos + offset] ?? "";
  }

  /** Whether the character `offset` after the cursor is a space, tab, line break or the end. */
  blankAt(offset: number): boolean {
    const c = this.#text[this.pos + offset];
    return c === undefined || isWhite(c) || isBreak(c);
  }

  /** A parse error at the cursor (or at `at`), naming the key path but no text. */
  error(reason: string, path: YamlPath | undefined, at?: Mark): YamlSyntaxError {
    const mark = at ?? this.mark();
    return new YamlSyntaxError({
      reason,
      line: mark.line + 1,
      column: mark.pos - mark.lineStart + 1,
      key: describePath(path, this.#showKey),
      source: this.#source,
    });
  }

  /** The cursor's position, to report an error there later. */
  mark(): Mark {
    return { pos: this.pos, line: this.line, lineStart: this.lineStart };
  }

  #reset(mark: Mark): void {
    this.pos = mark.pos;
    this.line = mark.line;
    this.lineStart = mark.lineStart;
  }

  /** Consumes the line break at the cursor (`\r\n`, `\n` or `\r`). */
  #breakLine(): void {
    this.pos += this.#text[this.pos] === "\r" && this.#text[this.pos + 1] === "\n" ? 2 : 1;
    this.line++;
    this.lineStart = this.pos;
  }

  /** Moves to the line break (or end) of the cursor's line. */
  #toLineEnd(): void {
    const text = this.#text;
    while (this.pos < text.length && !isBreak(text[this.pos])) this.pos++;
  }

  /** The indentation of the cursor's line: its leading spaces (a tab is never indentation). */
  #indentation(): number {
    let p = this.lineStart;
    while (this.#text[p] === " ") p++;
    return p - this.lineStart;
  }

  /** Skips spaces and tabs; returns whether there was a tab among them. */
  skipWhite(): boolean {
    let tab = false;
    for (let c = this.#text[this.pos]; isWhite(c); c = this.#text[++this.pos]) {
      if (c === "\t") tab = true;
    }
    return tab;
  }

  /** Whether a `---` or `...` document marker starts at offset `p` (at a line start). */
  #isDocumentMarker(p: number): boolean {
    const text = this.#text;
    const c = text[p];
    if ((c !== "-" && c !== ".") || text[p + 1] !== c || text[p + 2] !== c) return false;
    const after = text[p + 3];
    return after === undefined || isWhite(after) || isBreak(after);
  }

  /**
   * Ends a line after a node: optional spaces, an optional comment (after a space), then the
   * line break, which is consumed. `what` names the node for the error.
   */
  endLine(path: YamlPath | undefined, what: string): void {
    this.skipWhite();
    if (this.char() === "#" && isWhite(this.#text[this.pos - 1])) this.#toLineEnd();
    if (this.pos < this.#text.length && !isBreak(this.char())) {
      throw this.error(`unexpected text after ${what}`, path);
    }
    if (this.pos < this.#text.length) this.#breakLine();
  }

  /**
   * Skips blank lines, comment lines and a leading `---`, stopping at the next content
   * character; returns its column, or -1 at the end of the text. Called at a line start, or
   * again at the content it stopped at (then it returns the same column).
   */
  nextContent(path: YamlPath | undefined): number {
    const text = this.#text;
    for (;;) {
      if (this.pos >= text.length) return -1;
      let p = this.pos;
      while (text[p] === " ") p++;
      const indent = p - this.lineStart;
      let tab = false;
      for (; isWhite(text[p]); p++) tab = true;
      const c = text[p];
      if (c === undefined || isBreak(c) || c === "#") {
        this.pos = p;
        this.#toLineEnd();
        if (this.pos < text.length) this.#breakLine();
        continue;
      }
      if (p === this.lineStart && this.#isDocumentMarker(p)) {
        this.pos = p;
        if (c !== "-" || this.#sawContent) {
          throw this.error("several YAML documents (`---` / `...`) are not supported", path);
        }
        this.pos += 3;
        this.#sawContent = true;
        this.endLine(path, "`---` (start the document on the next line)");
        continue;
      }
      this.pos = p;
      if (c === "%" && p === this.lineStart && !this.#sawContent) {
        throw this.error("YAML directives (`%YAML`, `%TAG`) are not supported", path);
      }
      if (tab) throw this.error("tab characters are not allowed in indentation; use spaces", path);
      this.#sawContent = true;
      return indent;
    }
  }

  /**
   * Scans one line of a plain scalar from the cursor, up to a comment, the line's end, a `:`
   * followed by a space (or, in `flow` context, by a flow indicator) or, in flow context, a
   * flow indicator. Leaves the cursor there and `#plainEnd` at the end of the text without
   * trailing whitespace. Each whitespace run is walked once, so this is linear.
   */
  #scanPlain(flow: boolean): PlainStop {
    const text = this.#text;
    let end = this.pos;
    for (;;) {
      const c = text[this.pos];
      if (c === undefined || isBreak(c)) break;
      if (isWhite(c)) {
        let q = this.pos + 1;
        while (isWhite(text[q])) q++;
        if (text[q] === "#") {
          this.pos = q;
          this.#plainEnd = end;
          return "comment";
        }
        this.pos = q;
        continue;
      }
      if (c === ":") {
        const next = text[this.pos + 1];
        if (
          next === undefined || isWhite(next) || isBreak(next) || (flow && isFlowIndicator(next))
        ) {
          this.#plainEnd = end;
          return "colon";
        }
      } else if (flow && isFlowIndicator(c)) {
        this.#plainEnd = end;
        return "flow";
      }
      end = ++this.pos;
    }
    this.#plainEnd = end;
    return "end";
  }

  /**
   * If the cursor's line is a plain `key: ...` entry, returns the key (without trailing
   * whitespace) and leaves the cursor just after the `:`; otherwise returns `undefined` and
   * does not move.
   */
  readPlainKey(): string | undefined {
    const start = this.mark();
    const stop = this.#scanPlain(false);
    if (stop !== "colon") {
      this.#reset(start);
      return undefined;
    }
    const key = this.#text.slice(start.pos, this.#plainEnd);
    this.pos++;
    return key;
  }

  /**
   * Whether a quoted scalar starting at the cursor closes on this line and is followed by
   * `:` and a space: a quoted mapping key. Does not move the cursor.
   */
  isQuotedKey(): boolean {
    const text = this.#text;
    const quote = text[this.pos];
    let p = this.pos + 1;
    for (;;) {
      const c = text[p];
      if (c === undefined || isBreak(c)) return false;
      if (quote === '"' && c === "\\") {
        if (p + 1 >= text.length || isBreak(text[p + 1])) return false;
        p += 2;
      } else if (c === quote && quote === "'" && text[p + 1] === "'") p += 2;
      else if (c === quote) break;
      else p++;
    }
    p++;
    while (isWhite(text[p])) p++;
    if (text[p] !== ":") return false;
    const after = text[p + 1];
    return after === undefined || isWhite(after) || isBreak(after);
  }

  /**
   * Whether the cursor's line starts a `key: value` entry, for a plain key. Does not move.
   */
  isPlainKey(): boolean {
    const start = this.mark();
    const stop = this.#scanPlain(false);
    this.#reset(start);
    return stop === "colon";
  }

  /**
   * A plain scalar in block context; continuation lines must be indented more than
   * `parentIndent`. Leaves the cursor at the start of the line after it.
   */
  plainBlock(parentIndent: number, path: YamlPath | undefined): string {
    const text = this.#text;
    const parts: string[] = [];
    for (;;) {
      const start = this.pos;
      const stop = this.#scanPlain(false);
      if (stop === "colon") {
        throw this.error(
          "a `: ` inside a plain value (quote the value, or fix the indentation)",
          path,
        );
      }
      parts.push(text.slice(start, this.#plainEnd));
      if (stop === "comment") this.#toLineEnd();
      if (this.pos >= text.length) break;
      this.#breakLine();
      if (stop === "comment") break;
      // Skip empty lines; a following line indented past the parent continues the value.
      let empty = 0;
      let p = this.pos;
      for (;;) {
        while (isWhite(text[p])) p++;
        if (!isBreak(text[p])) break;
        this.pos = p;
        this.#breakLine();
        empty++;
        p = this.pos;
      }
      let indent = 0;
      while (text[this.pos + indent] === " ") indent++;
      const c = text[p];
      if (
        c === undefined || c === "#" || indent <= parentIndent ||
        (p === this.pos && this.#isDocumentMarker(p))
      ) break;
      this.pos = p;
      parts.push(empty === 0 ? " " : "\n".repeat(empty));
    }
    return parts.join("");
  }

  /**
   * A plain scalar inside a flow collection, possibly over several lines (indented more than
   * `parentIndent`). Leaves the cursor at what ended it (an indicator, a comment, a line break).
   */
  plainFlow(parentIndent: number, path: YamlPath | undefined): string {
    const text = this.#text;
    const parts: string[] = [];
    for (;;) {
      const start = this.pos;
      const stop = this.#scanPlain(true);
      parts.push(text.slice(start, this.#plainEnd));
      if (stop !== "end" || this.pos >= text.length) break;
      const lineEnd = this.mark();
      const empty = this.#breakEmptyLines();
      const c = this.char();
      if (
        c === "" || c === "#" || isFlowIndicator(c) ||
        (c === ":" && (this.blankAt(1) || isFlowIndicator(this.char(1)))) ||
        (this.pos === this.lineStart && this.#isDocumentMarker(this.pos))
      ) {
        this.#reset(lineEnd);
        break;
      }
      if (this.#indentation() <= parentIndent) {
        throw this.error("bad indentation: a flow collection's lines must be indented more", path);
      }
      parts.push(empty === 0 ? " " : "\n".repeat(empty));
    }
    return parts.join("");
  }

  /**
   * Skips whitespace, line breaks and comments inside a flow collection. Lines must be
   * indented more than `parentIndent`, except one starting with the closing bracket.
   */
  skipFlowSpace(parentIndent: number, path: YamlPath | undefined): void {
    const text = this.#text;
    let crossed = false;
    for (;;) {
      const c = text[this.pos];
      if (isWhite(c)) this.pos++;
      else if (isBreak(c)) {
        this.#breakLine();
        crossed = true;
      } else if (c === "#" && (this.pos === this.lineStart || isWhite(text[this.pos - 1]))) {
        this.#toLineEnd();
      } else {
        if (c === undefined || !crossed) return;
        if (this.#indentation() <= parentIndent && c !== "]" && c !== "}") {
          throw this.error(
            "bad indentation: a flow collection's lines must be indented more",
            path,
          );
        }
        if (this.pos === this.lineStart && this.#isDocumentMarker(this.pos)) {
          throw this.error("a document marker inside a flow collection", path);
        }
        return;
      }
    }
  }

  /**
   * A single- or double-quoted scalar starting at the cursor, folded over lines (indented more
   * than `parentIndent`) until it closes. Leaves the cursor after the closing quote.
   */
  quoted(parentIndent: number, path: YamlPath | undefined): string {
    const text = this.#text;
    const opened = this.mark();
    const quote = text[this.pos];
    const parts: string[] = [];
    let segment = ++this.pos;
    for (;;) {
      const c = text[this.pos];
      if (c === undefined) throw this.error("a quoted value is never closed", path, opened);
      if (c === quote) {
        if (quote === "'" && text[this.pos + 1] === "'") {
          parts.push(text.slice(segment, this.pos + 1));
          this.pos += 2;
          segment = this.pos;
          continue;
        }
        parts.push(text.slice(segment, this.pos++));
        return parts.join("");
      }
      if (c === "\\" && quote === '"') {
        parts.push(text.slice(segment, this.pos));
        if (isBreak(text[this.pos + 1])) {
          // An escaped line break joins the lines with nothing; empty lines after it count.
          this.pos++;
          parts.push("\n".repeat(this.#foldBreaks(parentIndent, path, opened)));
        } else {
          const escape = decodeEscape(text, this.pos + 1);
          if (escape === undefined) {
            throw this.error("an unknown or malformed escape in a double-quoted value", path);
          }
          parts.push(escape[0]);
          this.pos += 1 + escape[1];
        }
        segment = this.pos;
        continue;
      }
      if (isBreak(c)) {
        let end = this.pos;
        while (end > segment && isWhite(text[end - 1])) end--;
        parts.push(text.slice(segment, end));
        const empty = this.#foldBreaks(parentIndent, path, opened);
        parts.push(empty === 0 ? " " : "\n".repeat(empty));
        segment = this.pos;
        continue;
      }
      this.pos++;
    }
  }

  /**
   * At a line break: consumes it, the empty lines after it and the next line's leading
   * whitespace; returns the number of empty lines.
   */
  #breakEmptyLines(): number {
    this.#breakLine();
    let empty = 0;
    for (;;) {
      this.skipWhite();
      if (!isBreak(this.char())) break;
      this.#breakLine();
      empty++;
    }
    return empty;
  }

  /**
   * Inside a quoted scalar, at a line break: consumes it, the empty lines after it and the
   * next line's leading whitespace; returns the number of empty lines.
   */
  #foldBreaks(parentIndent: number, path: YamlPath | undefined, opened: Mark): number {
    const empty = this.#breakEmptyLines();
    if (this.pos >= this.#text.length) {
      throw this.error("a quoted value is never closed", path, opened);
    }
    if (this.pos === this.lineStart && this.#isDocumentMarker(this.pos)) {
      throw this.error("a document marker inside a quoted value", path);
    }
    if (this.#indentation() <= parentIndent) {
      throw this.error("bad indentation: a quoted value's lines must be indented more", path);
    }
    return empty;
  }

  /**
   * A block scalar (`|` or `>`, with optional chomping `-`/`+` and indentation digit) whose
   * header is at the cursor, inside a collection at `parentIndent`. Leaves the cursor at the
   * start of the first line after it.
   */
  blockScalar(parentIndent: number, path: YamlPath | undefined): string {
    const text = this.#text;
    const header = this.mark();
    const literal = text[this.pos++] === "|";
    let chomping: Chomping = "clip";
    let explicit = 0;
    for (let k = 0; k < 2; k++) {
      const c = this.char();
      if ((c === "-" || c === "+") && chomping === "clip") chomping = c === "-" ? "strip" : "keep";
      else if (c >= "1" && c <= "9" && explicit === 0) explicit = Number(c);
      else break;
      this.pos++;
    }
    if (!this.blankAt(0)) {
      throw this.error(
        "a block scalar header is `|` or `>`, then optionally `-` or `+` and a digit 1-9",
        path,
      );
    }
    this.endLine(path, "a block scalar header");
    let indent = explicit > 0 ? Math.max(parentIndent, 0) + explicit : -1;
    if (indent < 0) {
      // The first non-empty line sets the indentation; empty lines before it may not be longer.
      let longestEmpty = 0;
      for (let p = this.pos;;) {
        let q = p;
        while (text[q] === " ") q++;
        if (q < text.length && !isBreak(text[q])) {
          indent = q - p;
          break;
        }
        longestEmpty = Math.max(longestEmpty, q - p);
        if (q >= text.length) break;
        p = q + (text[q] === "\r" && text[q + 1] === "\n" ? 2 : 1);
      }
      if (indent > parentIndent && longestEmpty > indent) {
        throw this.error(
          "a block scalar's leading empty line is longer than its text",
          path,
          header,
        );
      }
      if (indent <= parentIndent) indent = Math.max(longestEmpty, parentIndent + 1);
    }
    const lines: string[] = [];
    let empty = 0;
    let finalBreak = false;
    while (this.pos < text.length) {
      let q = this.pos;
      while (text[q] === " " && q - this.pos < indent) q++;
      const lineEnd = q >= text.length || isBreak(text[q]);
      if (q - this.pos < indent && !lineEnd) {
        if (text[q] === "\t" && q - this.pos > parentIndent) {
          this.pos = q;
          throw this.error("a tab where a block scalar's indentation is expected", path);
        }
        break;
      }
      if (indent === 0 && this.#isDocumentMarker(q)) break;
      this.pos = q;
      this.#toLineEnd();
      if (this.pos === q) {
        if (this.pos < text.length) empty++; // a last line without a line break adds none
      } else {
        for (; empty > 0; empty--) lines.push("");
        lines.push(text.slice(q, this.pos));
        finalBreak = this.pos < text.length;
      }
      if (this.pos < text.length) this.#breakLine();
    }
    return joinBlockScalar(lines, { trailingEmpty: empty, finalBreak, literal, chomping });
  }
}
