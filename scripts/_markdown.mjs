// What the docs check reads in a Markdown file, without a Markdown library: fenced code blocks,
// headings and the anchors GitHub gives them, links, and inline code spans. Pure functions of
// the text (tests/scripts/docs_check_test.ts), with 1-based line numbers for error messages.
//
// The subset read is GitHub-flavoured Markdown as this project writes it: fences of ``` or ~~~
// (indented inside list items too), ATX and setext headings, inline and reference links,
// images, `<a href>`/`<img src>` and explicit `id`/`name` anchors in inline HTML. Text inside
// fenced blocks, HTML comments and code spans is never read as a heading or a link.

/**
 * An inline code span: a run of backticks (not preceded by one), then text that does not
 * cross a blank line (a span stays within its paragraph), then a run of the same length.
 */
const CODE_SPAN = /(?<!`)(`+)((?:(?!\n[ \t]*\n)[\s\S])*?[^`])\1(?!`)/g;

/** Languages whose blocks are TypeScript. */
const TYPESCRIPT = new Set(["ts", "typescript"]);

/** Words a TypeScript fence may carry after its language (anything else is a typo: an error). */
const TS_MODES = new Set(["run", "ignore"]);

/**
 * Every fenced code block of `markdown`: `{ line, endLine, indent, lang, info, code }`, `line`
 * being the opening fence's line and `endLine` the closing one's (1-based), `lang` the info
 * string's first word (lower case, "" when none) and `info` the words after it. A fence may be
 * indented (a block inside a list item): up to its indentation is stripped from each line, as
 * CommonMark does. A block closes at a fence of the same character at least as long; one left
 * open is an error naming `file` and the opening line.
 */
export function fencedBlocks(markdown, file = "markdown") {
  const blocks = [];
  const lines = markdown.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const open = /^( *)(`{3,}|~{3,})(.*)$/.exec(lines[i]);
    if (open === null) continue;
    const [, spaces, fence, infoText] = open;
    if (fence[0] === "`" && infoText.includes("`")) continue; // an inline code span, not a fence
    const start = i;
    const indent = spaces.length;
    const [lang = "", ...info] = infoText.trim().split(/\s+/).filter(Boolean);
    const close = new RegExp(`^ *${fence[0] === "`" ? "`" : "~"}{${fence.length},}\\s*$`);
    const body = [];
    for (i++; i < lines.length && !close.test(lines[i]); i++) {
      const lead = /^ */.exec(lines[i])[0].length;
      body.push(lines[i].slice(Math.min(lead, indent)));
    }
    if (i === lines.length) throw new Error(`${file}:${start + 1}: unterminated code block`);
    blocks.push({
      line: start + 1,
      endLine: i + 1,
      indent,
      lang: lang.toLowerCase(),
      info,
      code: body.length === 0 ? "" : body.join("\n") + "\n",
    });
  }
  return blocks;
}

/**
 * The TypeScript blocks (```ts / ```typescript) of `markdown`: `{ line, indent, code, mode }`,
 * `mode` being "check" (type-checked), "run" (type-checked and run: ```ts run) or "ignore"
 * (```ts ignore: skipped). Any other word after the language is an error, so a typo never
 * silently turns a block off.
 */
export function typescriptBlocks(markdown, file = "markdown") {
  const blocks = [];
  for (const b of fencedBlocks(markdown, file)) {
    if (!TYPESCRIPT.has(b.lang)) continue;
    const unknown = b.info.filter((w) => !TS_MODES.has(w));
    if (unknown.length > 0 || b.info.length > 1) {
      throw new Error(
        `${file}:${b.line}: a TypeScript fence takes one of "run" or "ignore" after its ` +
          `language, got "${b.info.join(" ")}"`,
      );
    }
    blocks.push({ line: b.line, indent: b.indent, code: b.code, mode: b.info[0] ?? "check" });
  }
  return blocks;
}

/**
 * `markdown` with every fenced block and HTML comment blanked (their lines kept, emptied), so
 * line numbers still match: the text in which headings and links are read.
 */
export function proseOf(markdown, file = "markdown") {
  const lines = markdown.split("\n");
  for (const b of fencedBlocks(markdown, file)) {
    for (let i = b.line - 1; i < b.endLine; i++) lines[i] = "";
  }
  // HTML comments, over several lines too: every character but the newlines goes.
  return lines.join("\n").replace(/<!--[\s\S]*?-->/g, (c) => c.replace(/[^\n]/g, " "));
}

/**
 * `text` with the content of every inline code span replaced by spaces (same length, so
 * offsets still hold): what links are read from. A span opens with a run of backticks and
 * closes at the next run of the same length.
 */
export function withoutCodeSpans(text) {
  return text.replace(CODE_SPAN, (m) => " ".repeat(m.length));
}

/** Inline code spans of `prose`: `{ line, code }`, the code trimmed as CommonMark does. */
export function codeSpans(prose) {
  const spans = [];
  for (const m of prose.matchAll(CODE_SPAN)) {
    const raw = m[2].replace(/\n/g, " ");
    const code = /^ .* $/.test(raw) && raw.trim() !== "" ? raw.slice(1, -1) : raw;
    spans.push({ line: lineAt(prose, m.index), code });
  }
  return spans;
}

/** The 1-based line of offset `index` in `text`. */
function lineAt(text, index) {
  let line = 1;
  for (let i = text.indexOf("\n"); i !== -1 && i < index; i = text.indexOf("\n", i + 1)) line++;
  return line;
}

const ENTITIES = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: " " };

/**
 * The text GitHub renders for a heading's Markdown (what its anchor is made from): code spans
 * keep their content, links and images their text, HTML tags and emphasis markers go.
 */
export function headingText(markdown) {
  const codes = [];
  let text = markdown.replace(CODE_SPAN, (_, __, code) => {
    codes.push(code.trim());
    return `\uE000${codes.length - 1}\uE000`;
  });
  text = text
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1") // [text](url), ![alt](src)
    .replace(/!?\[([^\]]*)\]\[[^\]]*\]/g, "$1") // [text][ref]
    .replace(/<[^>]+>/g, "") // inline HTML
    .replace(
      /&(#\d+|[a-z]+);/g,
      (m, name) =>
        name.startsWith("#") ? String.fromCodePoint(Number(name.slice(1))) : ENTITIES[name] ?? m,
    )
    .replace(/(\*\*|__)(?=\S)([\s\S]*?\S)\1/g, "$2") // strong
    .replace(/(^|[^\w*])([*_])(?=\S)([\s\S]*?\S)\2(?![\w*])/g, "$1$3"); // emphasis
  return text.replace(/\uE000(\d+)\uE000/g, (_, i) => codes[Number(i)]).trim();
}

/**
 * GitHub's heading anchors (the rules of its `github-slugger`): lower case; every character
 * that is not a letter, a mark, a number, a connector (`_`), a hyphen or a space removed;
 * spaces become hyphens (not collapsed). A repeated slug gets `-1`, `-2`, ... in order, the
 * counter kept per original slug. Make one per document.
 */
export class Slugger {
  #seen = new Map();

  /** The anchor of the next heading whose rendered text is `text`. */
  slug(text) {
    const base = text.toLowerCase().replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, "").replace(
      / /g,
      "-",
    );
    let slug = base;
    while (this.#seen.has(slug)) {
      const n = this.#seen.get(base) + 1;
      this.#seen.set(base, n);
      slug = `${base}-${n}`;
    }
    this.#seen.set(slug, 0);
    return slug;
  }
}

/**
 * The anchors a link may name in `markdown`: `{ anchor, line }` for each heading (ATX `#` and
 * setext `===`/`---`, slugged as GitHub does) and each explicit `id="..."`/`name="..."` of
 * inline HTML (`<a id="x"></a>`).
 */
export function anchorsOf(markdown, file = "markdown") {
  const prose = proseOf(markdown, file);
  const lines = prose.split("\n");
  const slugger = new Slugger();
  const anchors = [];
  for (let i = 0; i < lines.length; i++) {
    const atx = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/.exec(lines[i]);
    const setext = i + 1 < lines.length && lines[i].trim() !== "" &&
      !/^ {0,3}([-*_>#|]|\d+[.)] )/.test(lines[i]) && /^ {0,3}(=+|-+)[ \t]*$/.test(lines[i + 1]);
    if (atx !== null) {
      anchors.push({ anchor: slugger.slug(headingText(atx[2] ?? "")), line: i + 1 });
    } else if (setext) {
      anchors.push({ anchor: slugger.slug(headingText(lines[i].trim())), line: i + 1 });
      i++;
    }
    for (const m of withoutCodeSpans(lines[i]).matchAll(/<[a-z][^>]*?\s(?:id|name)="([^"]+)"/gi)) {
      anchors.push({ anchor: m[1], line: i + 1 });
    }
  }
  return anchors;
}

/**
 * Every link destination of `markdown`: `{ target, line, kind }`, kind being "inline"
 * (`[text](target)`, `![alt](target)`), "definition" (`[label]: target`), "html"
 * (`<a href>`, `<img src>`) or "reference" (`[text][label]` whose label has no definition:
 * target is the label, and the link is broken). Angle brackets around a target are removed;
 * titles are dropped. Fenced blocks, HTML comments and code spans are skipped.
 */
export function linksOf(markdown, file = "markdown") {
  const text = withoutCodeSpans(proseOf(markdown, file));
  const links = [];
  const add = (target, index, kind) => links.push({ target, line: lineAt(text, index), kind });
  const definitions = new Set();
  for (const m of text.matchAll(/^ {0,3}\[([^\]\n]+)\]:[ \t]*(<[^>\n]*>|\S+)/gm)) {
    definitions.add(normalizeLabel(m[1]));
    add(unbracket(m[2]), m.index, "definition");
  }
  // A destination: <...>, or text without spaces where parentheses nest one level.
  const inline =
    /\]\(\s*(<[^>\n]*>|[^\s()]*(?:\([^\s()]*\)[^\s()]*)*)(?:\s+(?:"[^"\n]*"|'[^'\n]*'|\([^)\n]*\)))?\s*\)/g;
  for (const m of text.matchAll(inline)) add(unbracket(m[1]), m.index, "inline");
  for (const m of text.matchAll(/<(?:a|img)\s[^>]*?\b(?:href|src)="([^"]*)"/gi)) {
    add(m[1], m.index, "html");
  }
  for (const m of text.matchAll(/\[([^\]\n]+)\]\[([^\]\n]*)\]/g)) {
    const label = normalizeLabel(m[2] === "" ? m[1] : m[2]);
    if (!definitions.has(label)) add(label, m.index, "reference");
  }
  return links.sort((a, b) => a.line - b.line);
}

const unbracket = (target) => /^<.*>$/.test(target) ? target.slice(1, -1) : target;
const normalizeLabel = (label) => label.trim().replace(/\s+/g, " ").toLowerCase();
