// The project's pictures (docs/architecture.svg from scripts/architecture_svg.mjs, the bench
// charts bench/results/*.svg from scripts/bench_charts.mjs): the committed files are what their
// generators write today, and each really renders in headless Chromium (Debian's
// /usr/bin/chromium, driven by playwright-core), in light and in dark mode: a screenshot that is
// not blank, the expected text in the DOM, no text outside the viewBox, inside its box, or on
// top of other text, and text (and bars) that stand out from what is behind them.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { DIAGRAM } from "../../scripts/architecture_svg.mjs";
import { scenarioNames } from "../../scripts/bench_charts.mjs";
import { bin, ROOT, runProcess, withTempDir } from "../_runtime_process.ts";
import { browserSkipReason, launchChromium, type PageLike } from "./_browser.ts";

const skip = browserSkipReason();
if (skip !== undefined) console.log(`svg_render_test: rendering skipped: ${skip}`);

const NODE = existsSync(bin("node")) ? bin("node") : "node";
const RESULTS = join(ROOT, "bench", "results");

/** The committed pictures, as repository paths. */
async function committedSvgs(): Promise<string[]> {
  const charts = (await readdir(RESULTS)).filter((f) => f.endsWith(".svg")).sort();
  return ["docs/architecture.svg", ...charts.map((f) => `bench/results/${f}`)];
}

/** Text each picture must show: the diagram's stages and files, each chart's rows and ratios. */
async function expectedText(): Promise<Map<string, string[]>> {
  const expected = new Map<string, string[]>();
  expected.set(
    "docs/architecture.svg",
    DIAGRAM.layers.flatMap((
      l: { folder: string; stages: { title: string; files: string[] }[] },
    ) => [
      l.folder,
      ...l.stages.flatMap((s) => [s.title, ...s.files]),
    ]),
  );
  const results = JSON.parse(await readFile(join(RESULTS, "latest.json"), "utf8"));
  const names: Map<number, string> = await scenarioNames();
  for (const row of results.rows as { scenario: string; ratio: string }[]) {
    if (!/^\d+(\.\d+)?x$/.test(row.ratio)) continue;
    const order = Number(/^(\d+) /.exec(row.scenario)?.[1]);
    const files = [`${names.get(order) ?? `scenario-${order}`}.svg`];
    if (/client-node/.test(row.scenario)) files.push("client-node.svg");
    for (const file of files) {
      const path = `bench/results/${file}`;
      expected.set(path, [...(expected.get(path) ?? []), `${row.ratio}:`]);
    }
  }
  return expected;
}

/** What the page reports about the SVG it shows (see MEASURE). */
interface Measured {
  width: number;
  height: number;
  background: string;
  text: string;
  texts: number;
  problems: string[];
}

// Runs in the page (an SVG document). Every <text> must lie inside the viewBox (4 px in from
// its edges), inside the rect of the `g.box` it belongs to, and clear of every other <text>
// (1 px of slack for anti-aliased edges); each text's fill must have a contrast of at least
// 4.5:1 against the shape under its centre, each `rect.bar` at least 3:1 against the
// background (WCAG 1.4.3 and 1.4.11).
const MEASURE = `(() => {
  const svg = document.documentElement;
  const [, , width, height] = svg.getAttribute("viewBox").split(/\\s+/).map(Number);
  const problems = [];
  const rgb = (c) => (c.match(/[\\d.]+/g) || []).slice(0, 3).map(Number);
  const lum = (c) => {
    const [r, g, b] = rgb(c).map((v) => {
      v /= 255;
      return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  };
  const contrast = (a, b) => {
    const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p);
    return (x + 0.05) / (y + 0.05);
  };
  const fill = (el) => getComputedStyle(el).fill;
  const background = fill(svg.querySelector("rect.bg"));
  const texts = [...svg.querySelectorAll("text")];
  const boxes = texts.map((t) => t.getBBox());
  texts.forEach((t, i) => {
    const b = boxes[i];
    const name = JSON.stringify(t.textContent);
    if (b.width === 0 || b.height === 0) problems.push(name + " has no size");
    if (b.x < 4 || b.y < 4 || b.x + b.width > width - 4 || b.y + b.height > height - 4) {
      problems.push(name + " leaves the viewBox: " + [b.x, b.y, b.width, b.height].map(Math.round));
    }
    const box = t.closest("g.box");
    if (box) {
      const r = box.querySelector("rect").getBBox();
      if (b.x < r.x || b.y < r.y || b.x + b.width > r.x + r.width || b.y + b.height > r.y + r.height) {
        problems.push(name + " leaves its box");
      }
    }
    for (let j = i + 1; j < texts.length; j++) {
      const o = boxes[j];
      const w = Math.min(b.x + b.width, o.x + o.width) - Math.max(b.x, o.x);
      const h = Math.min(b.y + b.height, o.y + o.height) - Math.max(b.y, o.y);
      if (w > 1 && h > 1) problems.push(name + " overlaps " + JSON.stringify(texts[j].textContent));
    }
    const under = document.elementsFromPoint(b.x + b.width / 2, b.y + b.height / 2)
      .find((e) => e.tagName === "rect");
    const behind = under ? fill(under) : background;
    const c = contrast(fill(t), behind);
    if (c < 4.5) problems.push(name + " has contrast " + c.toFixed(2) + " on " + behind);
  });
  for (const bar of svg.querySelectorAll("rect.bar")) {
    const c = contrast(fill(bar), background);
    if (c < 3) problems.push("a bar has contrast " + c.toFixed(2) + " on the background");
  }
  return { width, height, background, text: svg.textContent, texts: texts.length, problems };
})()`;

/** Runs in the page: how many pixels of a PNG (base64) differ from its commonest colour. */
const inkOf = (png: string) =>
  `(async () => {
  const blob = await (await fetch("data:image/png;base64,${png}")).blob();
  const image = await createImageBitmap(blob);
  const canvas = new OffscreenCanvas(image.width, image.height);
  const context = canvas.getContext("2d");
  context.drawImage(image, 0, 0);
  const data = context.getImageData(0, 0, image.width, image.height).data;
  const counts = new Map();
  for (let i = 0; i < data.length; i += 4) {
    const key = (data[i] << 16) | (data[i + 1] << 8) | data[i + 2];
    counts.set(key, (counts.get(key) || 0) + 1);
  }
  const commonest = Math.max(...counts.values());
  return { pixels: data.length / 4, ink: data.length / 4 - commonest, colours: counts.size };
})()`;

/** The parts of playwright's `Page` this test uses beyond `PageLike`. */
interface ScreenshotPage extends PageLike {
  emulateMedia(options: { colorScheme: "light" | "dark" }): Promise<void>;
  setViewportSize(size: { width: number; height: number }): Promise<void>;
  screenshot(): Promise<Uint8Array>;
}

const toBase64 = (bytes: Uint8Array): string => {
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(binary);
};

describe("SVG pictures", () => {
  test("the committed SVGs are what their generators write from today's sources", {
    timeout: 60_000,
  }, async () => {
    await withTempDir("svg", async (dir) => {
      const arch = await runProcess(NODE, [
        join(ROOT, "scripts", "architecture_svg.mjs"),
        join(dir, "architecture.svg"),
      ]);
      assert.equal(arch.code, 0, arch.output);
      const charts = await runProcess(NODE, [
        join(ROOT, "scripts", "bench_charts.mjs"),
        join(RESULTS, "latest.json"),
        join(dir, "bench"),
      ]);
      assert.equal(charts.code, 0, charts.output);
      // Compared whole, but reported by name (a diff of two SVGs says nothing useful).
      assert.ok(
        await readFile(join(dir, "architecture.svg"), "utf8") ===
          await readFile(join(ROOT, "docs", "architecture.svg"), "utf8"),
        "docs/architecture.svg is out of date: run node scripts/architecture_svg.mjs",
      );
      const drawn = (await readdir(join(dir, "bench"))).sort();
      const committed = (await readdir(RESULTS)).filter((f) => f.endsWith(".svg")).sort();
      const redraw = "run node scripts/bench_charts.mjs";
      assert.deepEqual(
        committed,
        drawn,
        `bench/results/*.svg are not the charts of latest.json: ${redraw}`,
      );
      assert.ok(drawn.length >= 2, `charts drawn: ${drawn.join(", ")}`);
      for (const file of drawn) {
        assert.ok(
          await readFile(join(RESULTS, file), "utf8") ===
            await readFile(join(dir, "bench", file), "utf8"),
          `bench/results/${file} is out of date: ${redraw}`,
        );
      }
    });
  });

  test("each SVG renders in headless Chromium, in light and dark mode, with its text readable", {
    skip,
    timeout: 120_000,
  }, async () => {
    const expected = await expectedText();
    await withTempDir("svg-render", async (dir) => {
      const context = await launchChromium(join(dir, "profile"));
      try {
        const page = await context.newPage() as ScreenshotPage;
        const errors: string[] = [];
        page.on("pageerror", (error) => errors.push(error.message));
        for (const path of await committedSvgs()) {
          await page.goto(pathToFileURL(join(ROOT, path)).href);
          const backgrounds = new Set<string>();
          for (const colorScheme of ["light", "dark"] as const) {
            await page.emulateMedia({ colorScheme });
            const m = await page.evaluate<Measured>(MEASURE);
            const where = `${path} (${colorScheme})`;
            assert.deepEqual(m.problems, [], where);
            assert.ok(m.texts > 5, `${where}: ${m.texts} text elements`);
            for (const want of expected.get(path) ?? []) {
              assert.ok(m.text.includes(want), `${where} does not show ${JSON.stringify(want)}`);
            }
            backgrounds.add(m.background);
            // The viewport is the picture (a full-page screenshot of an SVG document hangs).
            await page.setViewportSize({ width: Math.ceil(m.width), height: Math.ceil(m.height) });
            const shot = await page.screenshot();
            const ink = await page.evaluate<{ pixels: number; ink: number; colours: number }>(
              inkOf(toBase64(shot)),
            );
            assert.ok(
              ink.pixels >= m.width * m.height && ink.ink / ink.pixels > 0.01 && ink.colours > 16,
              `${where}: the screenshot looks blank: ${JSON.stringify(ink)}`,
            );
          }
          assert.equal(backgrounds.size, 2, `${path}: dark mode changes the background`);
          assert.ok((expected.get(path)?.length ?? 0) > 0 || path.includes("bundle"), path);
        }
        assert.deepEqual(errors, []);
      } finally {
        await context.close();
      }
    });
  });
});
