#!/usr/bin/env node
// The benchmark results as SVG bar charts, next to bench/results/latest.md: one chart per
// scenario (bench/results/<scenario>.svg, e.g. sync.svg), plus client-node.svg, every row
// measured against @kubernetes/client-node. `npm run bench` calls writeBenchCharts (one line
// in scripts/bench.mjs) with the results it has just written to latest.json; this script
// redraws them from a latest.json without re-running anything.
//
//   node scripts/bench_charts.mjs                          from bench/results/latest.json
//   node scripts/bench_charts.mjs RESULTS.json [OUT_DIR]   from another run, or elsewhere
//
// What a chart shows: each row of the table (a scenario label, a runtime, a size N) is a bar
// of its ratio to the baseline measured in the same run, on a log scale, starting at the
// baseline line (1x): a bar to the right is a ratio above 1, to the left below 1. The colour
// says whether the row's target holds (green), is missed (red) or is informational (blue);
// the target itself is a dashed tick. The figures (result vs baseline) stand beside each bar.
// Which way is better depends on the row (the label says what is divided by what; a target
// says which way it wants to go).
//
// The charts are pure functions of latest.json (and of bench/scenarios/, for the scenario
// names), so tests/integration/svg_render_test.ts regenerates them and compares.
import { realpathSync } from "node:fs";
import { mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { root } from "./_run.mjs";
import { num, svgDocument, text, textWidth, wrap } from "./_svg.mjs";

const WIDTH = 800;
const PAD = 16;
const LABEL_W = 96; // runtime and N
const PLOT_W = 300; // the bars
const PLOT_X = PAD + 12 + LABEL_W;
const FIG_X = PLOT_X + PLOT_W + 16; // the figures beside the bars
const FIG_W = WIDTH - PAD - 12 - FIG_X;
const FIG = { size: 12 };
const LINE = 15; // line height of the figures

/** Scenario names by their `order` (the number row labels start with), from bench/scenarios. */
export async function scenarioNames(dir = join(root, "bench", "scenarios")) {
  const names = new Map();
  for (const file of (await readdir(dir)).filter((f) => f.endsWith(".ts") && !f.startsWith("_"))) {
    const orders = [...(await readFile(join(dir, file), "utf8")).matchAll(/^\s*order:\s*(\d+),/gm)];
    if (orders.length === 1) names.set(Number(orders[0][1]), file.slice(0, -3));
  }
  return names;
}

/** "0.631x" -> 0.631; undefined when the row has no positive ratio. */
function ratioOf(row) {
  const m = /^\s*(\d+(?:\.\d+)?(?:e-?\d+)?)x\s*$/.exec(String(row.ratio ?? ""));
  const r = m === null ? NaN : Number(m[1]);
  return r > 0 ? r : undefined;
}

/** The target as a ratio (">= 0.8x" -> 0.8), when it is one. */
function targetOf(row) {
  const m = /(>=|<=|<|>)\s*(\d+(?:\.\d+)?)x\b/.exec(String(row.target ?? ""));
  return m === null ? undefined : Number(m[2]);
}

const fmtN = (n) => (typeof n === "number" ? (n >= 1000 ? `${n / 1000}k` : String(n)) : n);

/** A row's name on its bar: runtime and size, as far as it has them. */
function rowName(row) {
  const parts = [row.runtime, fmtN(row.n)].filter((p) => p !== undefined && p !== "-" && p !== "");
  return parts.length > 0 ? parts.join(" ") : "all";
}

/** The scenario order a row label starts with ("2 sync time ..." -> 2) and the rest. */
function splitLabel(scenario) {
  const m = /^(\d+)\s+(.*)$/.exec(scenario);
  return m === null ? { order: undefined, label: scenario } : { order: Number(m[1]), label: m[2] };
}

/**
 * Log-scale tick values covering [lo, hi]: 1, 2, 5 x 10^k, or powers of ten only when that
 * would make more than 8 (the labels would collide).
 */
function ticks(lo, hi) {
  const all = [];
  for (let k = -4; k <= 4; k++) for (const m of [1, 2, 5]) all.push(m * 10 ** k);
  const floor = all.filter((t) => t <= lo + 1e-12).at(-1) ?? all[0];
  const ceil = all.find((t) => t >= hi - 1e-12) ?? all.at(-1);
  const within = all.filter((t) => t >= floor - 1e-12 && t <= ceil + 1e-12);
  if (within.length <= 8) return within;
  const decades = [];
  for (let k = Math.floor(Math.log10(lo) + 1e-9); k <= Math.ceil(Math.log10(hi) - 1e-9); k++) {
    decades.push(Number((10 ** k).toPrecision(1)));
  }
  return decades;
}

const tickText = (t) => `${t >= 1 ? t : Number(t.toPrecision(1))}x`;

/**
 * One chart: `{ title, subtitle, desc, panels }`, a panel per scenario label with its rows.
 * Returns the SVG text.
 */
export function chartSvg({ title, subtitle, panels }) {
  const values = panels.flatMap((p) => p.rows.flatMap((r) => [r.ratio, r.target ?? 1]));
  const marks = ticks(Math.min(1, ...values) / 1.15, Math.max(1, ...values) * 1.15);
  const lo = Math.log(marks[0]);
  const hi = Math.log(marks.at(-1));
  const x = (r) => PLOT_X + ((Math.log(r) - lo) / (hi - lo)) * PLOT_W;

  const body = [];
  let y = PAD + 20;
  body.push(text(PAD + 8, y, title, { size: 17, cls: "fg bold" }));
  y += 8;
  for (const line of wrap(subtitle, WIDTH - 2 * PAD - 16, { size: 12 })) {
    y += 17;
    body.push(text(PAD + 8, y, line, { size: 12, cls: "muted" }));
  }
  // Legend.
  y += 24;
  let lx = PAD + 8;
  const swatch = (cls, label) => {
    body.push(
      `<rect class="${cls}" x="${num(lx)}" y="${num(y - 10)}" width="12" height="12" rx="2"/>`,
    );
    body.push(text(lx + 17, y, label, { size: 12 }));
    lx += 17 + textWidth(label, { size: 12 }) + 18;
  };
  swatch("good", "target holds");
  swatch("bad", "target missed");
  swatch("info", "informational");
  body.push(
    `<line class="target" x1="${num(lx + 5)}" y1="${num(y - 11)}" x2="${num(lx + 5)}" y2="${
      num(y + 3)
    }" stroke-width="2" stroke-dasharray="3 2"/>`,
  );
  body.push(text(lx + 14, y, "target", { size: 12 }));
  lx += 14 + textWidth("target", { size: 12 }) + 18;
  body.push(
    `<line class="baseline" x1="${num(lx + 5)}" y1="${num(y - 11)}" x2="${num(lx + 5)}" y2="${
      num(y + 3)
    }" stroke-width="2"/>`,
  );
  body.push(text(lx + 14, y, "baseline, same run (1x)", { size: 12 }));

  // Axis labels above the plot.
  y += 26;
  const axis = (at) =>
    marks.map((t) => text(x(t), at, tickText(t), { size: 11, cls: "muted", anchor: "middle" }));
  body.push(...axis(y));
  body.push(text(FIG_X, y, "kinformer vs baseline", { size: 11, cls: "muted" }));
  y += 4;

  const rows = [];
  const spans = [];
  for (const panel of panels) {
    y += 20;
    const head = wrap(panel.label, WIDTH - 2 * PAD - 24, { size: 13, bold: true });
    for (const [i, line] of head.entries()) {
      body.push(text(PAD + 12, y + i * 17, line, { size: 13, cls: "fg bold" }));
    }
    y += (head.length - 1) * 17;
    if (panel.target !== undefined) {
      y += 16;
      body.push(text(PAD + 12, y, `target: ${panel.target}`, { size: 12, cls: "muted" }));
    }
    y += 8;
    const spanTop = y;
    for (const row of panel.rows) {
      // One line when it fits; else the result (ratio first), then "vs" the baseline, muted.
      const whole = `${row.ratioText}: ${row.result} vs ${row.baseline}`;
      const figures = textWidth(whole, FIG) <= FIG_W ? [whole] : [
        ...wrap(`${row.ratioText}: ${row.result}`, FIG_W, FIG),
        ...wrap(`vs ${row.baseline}`, FIG_W, FIG).map((line) => ({ line })),
      ];
      const height = Math.max(22, figures.length * LINE + 7);
      const mid = y + height / 2;
      rows.push(`<g class="row">`);
      rows.push(text(PAD + 12, mid + 4, row.name, { size: 12, cls: "fg mono" }));
      const x0 = x(1);
      const x1 = x(row.ratio);
      const bx = Math.min(x0, x1);
      const bw = Math.max(Math.abs(x1 - x0), 2);
      const cls = row.holds === true ? "good" : row.holds === false ? "bad" : "info";
      rows.push(
        `<rect class="bar ${cls}" x="${num(bx)}" y="${num(mid - 6)}" width="${
          num(bw)
        }" height="12" rx="2"/>`,
      );
      if (row.target !== undefined) {
        rows.push(
          `<line class="target" x1="${num(x(row.target))}" y1="${num(mid - 9)}" x2="${
            num(x(row.target))
          }" y2="${num(mid + 9)}" stroke-width="2" stroke-dasharray="3 2"/>`,
        );
      }
      const top = mid - ((figures.length - 1) * LINE) / 2 + 4;
      for (const [i, line] of figures.entries()) {
        const muted = typeof line !== "string";
        const content = muted ? line.line : line;
        rows.push(
          text(FIG_X, top + i * LINE, content, { size: FIG.size, cls: muted ? "muted" : "fg" }),
        );
      }
      rows.push(`</g>`);
      y += height;
    }
    spans.push([spanTop - 2, y + 2]);
  }
  const plotBottom = y + 6;
  // Grid lines and the baseline behind each panel's bars (not through its heading).
  const grid = [];
  const vline = (cls, at, from, to, width) =>
    grid.push(
      `<line class="${cls}" x1="${num(at)}" y1="${num(from)}" x2="${num(at)}" y2="${
        num(to)
      }" stroke-width="${width}"/>`,
    );
  for (const [from, to] of spans) {
    for (const t of marks) vline("edge", x(t), from, to, 1);
    vline("baseline", x(1), from, to, 1.5);
  }
  body.push(...grid, ...rows);
  y = plotBottom + 16;
  body.push(...axis(y));
  const height = y + PAD;
  return svgDocument({ width: WIDTH, height, title, desc: describe(panels), body });
}

/** The chart in words (its <desc>). */
function describe(panels) {
  return panels.map((p) =>
    `${p.label}${p.target === undefined ? "" : ` (target ${p.target})`}: ` +
    p.rows.map((r) => `${r.name} ${r.ratioText} (${r.result} vs ${r.baseline})`).join("; ")
  ).join(". ") + ".";
}

/** Rows as panels: one per label, in the order the labels first appear. */
function panelsOf(rows) {
  const panels = new Map();
  for (const row of rows) {
    const ratio = ratioOf(row);
    if (ratio === undefined) continue;
    const { label } = splitLabel(row.scenario);
    if (!panels.has(label)) panels.set(label, { label, target: undefined, rows: [] });
    const panel = panels.get(label);
    if (row.target !== undefined && !/^info\b/.test(row.target)) panel.target ??= row.target;
    panel.rows.push({
      name: rowName(row),
      ratio,
      ratioText: row.ratio,
      target: targetOf(row),
      holds: row.holds,
      result: String(row.result),
      baseline: String(row.baseline),
    });
  }
  return [...panels.values()];
}

/**
 * The charts of one bench run (latest.json's content): `[{ file, svg }]`, `file` a name in
 * bench/results/. `names` maps scenario order to name (scenarioNames()).
 */
export function benchCharts(results, names) {
  const when = String(results.date ?? "").slice(0, 10);
  const m = results.machine ?? {};
  const machine = `${m.cpus ?? "?"} x ${m.cpuModel ?? "?"}, ${m.memoryGB ?? "?"} GB, Node ${
    m.node ?? "?"
  }`;
  const runtimes = (results.settings?.runtimes ?? []).join(", ");
  const subtitle = (what) =>
    `${what} Each bar is a ratio to a baseline measured in the same run (the 1x line), on a ` +
    `log scale. npm run bench, ${when}, ${machine}; runtimes: ${runtimes}.`;
  const groups = new Map();
  for (const row of results.rows ?? []) {
    const { order } = splitLabel(String(row.scenario));
    if (order === undefined) continue;
    if (!groups.has(order)) groups.set(order, []);
    groups.get(order).push(row);
  }
  const charts = [];
  for (const [order, rows] of [...groups].sort((a, b) => a[0] - b[0])) {
    const panels = panelsOf(rows);
    if (panels.length === 0) continue;
    const name = names.get(order) ?? `scenario-${order}`;
    charts.push({
      file: `${name}.svg`,
      svg: chartSvg({
        title: `Benchmark ${order}, ${name}: kinformer against its baselines`,
        subtitle: subtitle(`bench/scenarios/${name}.ts.`),
        panels,
      }),
    });
  }
  const vsClientNode = panelsOf((results.rows ?? []).filter((r) => /client-node/.test(r.scenario)));
  if (vsClientNode.length > 0) {
    charts.push({
      file: "client-node.svg",
      svg: chartSvg({
        title: "kinformer against @kubernetes/client-node",
        subtitle: subtitle("Every row measured against client-node's informer."),
        panels: vsClientNode,
      }),
    });
  }
  return charts;
}

/**
 * Writes the charts of `results` into `dir` (bench/results/) and removes the .svg files there
 * that this run no longer draws (a scenario that was not run, or is gone). Returns the paths.
 */
export async function writeBenchCharts(results, dir = join(root, "bench", "results")) {
  const charts = benchCharts(results, await scenarioNames());
  await mkdir(dir, { recursive: true });
  const keep = new Set(charts.map((c) => c.file));
  for (const file of await readdir(dir)) {
    if (file.endsWith(".svg") && !keep.has(file)) await rm(join(dir, file));
  }
  for (const c of charts) await writeFile(join(dir, c.file), c.svg);
  return charts.map((c) => join(dir, c.file));
}

// Only its exports when imported (scripts/bench.mjs, the render test); draws when run.
const script = process.argv[1];
if (script !== undefined && realpathSync(script) === realpathSync(fileURLToPath(import.meta.url))) {
  const input = resolve(process.argv[2] ?? join(root, "bench", "results", "latest.json"));
  const out = resolve(process.argv[3] ?? join(root, "bench", "results"));
  const written = await writeBenchCharts(JSON.parse(await readFile(input, "utf8")), out);
  console.log(`wrote ${written.map((p) => relative(root, p)).join(", ")}`);
}
