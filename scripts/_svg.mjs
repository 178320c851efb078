// Hand-written SVG for the project's pictures (docs/architecture.svg, the bench charts): the
// document shell (accessible: role, <title>, <desc>), one palette that follows the reader's
// light or dark mode, text width estimates for layout, and escaping. No dependency.
//
// Colours: every picture paints its own background (class `bg`), so its text stays readable
// whatever the page around it; `@media (prefers-color-scheme: dark)` switches to the dark
// palette. The palettes are GitHub's (Primer) light and dark colours; text on them has a
// contrast of at least 4.5:1 (tests/integration/svg_render_test.ts measures it).

/** `text` safe inside an SVG element or attribute. */
export function esc(text) {
  return String(text).replace(
    /[&<>"']/g,
    (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c],
  );
}

/** A number for an attribute: at most one decimal, no "-0". */
export const num = (n) => String(Math.round(n * 10) / 10 + 0);

export const SANS = "system-ui, -apple-system, 'Segoe UI', Helvetica, Arial, sans-serif";
export const MONO = "ui-monospace, SFMono-Regular, Menlo, Consolas, 'DejaVu Sans Mono', monospace";

// Advance widths (1/1000 em) of DejaVu Sans, the widest of the usual sans-serif fonts (Linux's
// default; Helvetica, Arial and Segoe UI are narrower), so an estimate made with them is an
// upper bound on most readers' screens.
const WIDTHS = {
  " ": 318,
  "!": 397,
  '"': 460,
  "#": 838,
  "$": 636,
  "%": 950,
  "&": 780,
  "'": 275,
  "(": 390,
  ")": 390,
  "*": 500,
  "+": 838,
  ",": 318,
  "-": 361,
  ".": 318,
  "/": 337,
  ":": 337,
  ";": 337,
  "<": 838,
  "=": 838,
  ">": 838,
  "?": 531,
  "@": 1000,
  "[": 390,
  "\\": 337,
  "]": 390,
  "^": 838,
  "_": 500,
  "`": 500,
  "{": 636,
  "|": 337,
  "}": 636,
  "~": 838,
  "×": 838,
  "→": 838,
  "≥": 838,
  "≤": 838,
  "·": 318,
  "—": 1000,
  "–": 500,
};
const LOWER = [
  613,
  635,
  550,
  635,
  615,
  352,
  635,
  634,
  278,
  278,
  579,
  278,
  974,
  634,
  612,
  635,
  635,
  411,
  521,
  392,
  634,
  592,
  818,
  592,
  592,
  525,
];
const UPPER = [
  684,
  686,
  698,
  770,
  632,
  575,
  775,
  752,
  295,
  295,
  656,
  557,
  863,
  748,
  787,
  603,
  787,
  695,
  635,
  611,
  732,
  684,
  989,
  685,
  611,
  685,
];

/** Estimated width in px of `text` at `size` px: sans-serif (bold when asked) or monospace. */
export function textWidth(text, { size, bold = false, mono = false }) {
  if (mono) return [...text].length * 0.602 * size;
  let units = 0;
  for (const c of text) {
    const code = c.charCodeAt(0);
    if (code >= 97 && code <= 122) units += LOWER[code - 97];
    else if (code >= 65 && code <= 90) units += UPPER[code - 65];
    else if (code >= 48 && code <= 57) units += 636;
    else units += WIDTHS[c] ?? 1000;
  }
  return (units / 1000) * size * (bold ? 1.12 : 1);
}

/**
 * `text` broken at spaces into lines no wider than `width` px (a word wider than that gets a
 * line of its own; the caller sees it with textWidth).
 */
export function wrap(text, width, font) {
  const lines = [];
  let line = "";
  for (const word of text.split(/\s+/).filter(Boolean)) {
    const next = line === "" ? word : `${line} ${word}`;
    if (line !== "" && textWidth(next, font) > width) {
      lines.push(line);
      line = word;
    } else {
      line = next;
    }
  }
  if (line !== "") lines.push(line);
  return lines;
}

/** The palette: class names and their light and dark colours. */
const PALETTE = {
  bg: ["fill", "#ffffff", "#0d1117"],
  fg: ["fill", "#1f2328", "#f0f6fc"],
  muted: ["fill", "#59636e", "#9198a1"],
  panel: ["fill", "#f6f8fa", "#151b23"],
  band: ["fill", "#eef1f4", "#1b222c"],
  edge: ["stroke", "#d1d9e0", "#3d444d"],
  line: ["stroke", "#59636e", "#9198a1"],
  head: ["fill", "#59636e", "#9198a1"],
  accent: ["fill", "#0969da", "#4493f8"],
  good: ["fill", "#1a7f37", "#3fb950"],
  bad: ["fill", "#cf222e", "#f85149"],
  info: ["fill", "#0969da", "#4493f8"],
  target: ["stroke", "#9a6700", "#d29922"],
  baseline: ["stroke", "#1f2328", "#f0f6fc"],
};

function style() {
  const rules = (i) =>
    Object.entries(PALETTE).map(([name, [prop, ...colours]]) => `.${name}{${prop}:${colours[i]}}`)
      .join("");
  return `<style>svg{color-scheme:light dark}text{font-family:${SANS}}.mono{font-family:${MONO}}` +
    `.bold{font-weight:700}.italic{font-style:italic}${rules(0)}` +
    `@media (prefers-color-scheme: dark){${rules(1)}}</style>`;
}

/**
 * A whole SVG document of `width` x `height` with its accessible name (`title`) and
 * description (`desc`), a painted background, and `body` (SVG markup) on top.
 */
export function svgDocument({ width, height, title, desc, body }) {
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${num(width)}" height="${num(height)}" ` +
    `viewBox="0 0 ${num(width)} ${num(height)}" role="img" aria-labelledby="title desc">`,
    `<title id="title">${esc(title)}</title>`,
    `<desc id="desc">${esc(desc)}</desc>`,
    style(),
    `<rect class="bg" width="${num(width)}" height="${num(height)}" rx="8"/>`,
    ...body,
    "</svg>",
    "",
  ].join("\n");
}

/** One `<text>` element. */
export function text(x, y, content, { size = 13, cls = "fg", anchor = "start", extra = "" } = {}) {
  const a = anchor === "start" ? "" : ` text-anchor="${anchor}"`;
  return `<text x="${num(x)}" y="${num(y)}" font-size="${size}" class="${cls}"${a}${extra}>` +
    `${esc(content)}</text>`;
}
