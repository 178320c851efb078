#!/usr/bin/env node
// Type-checks every TypeScript code block of README.md, so the examples users copy compile.
//
// Each ```ts block is written as its own module into a scratch folder inside the repository
// (so `@kinformer/kinformer` and its subpaths resolve to this checkout, as in the JSDoc
// examples) and all of them go through one `deno check` (with Deno's types: a block may use
// `Deno.serve`). A block must stand on its own: its imports, and `declare` lines for what it
// leaves to the reader. A block fenced ```ts ignore is skipped; keep that rare, and say next
// to it why it cannot compile. Errors are reported at their README.md line.
//
//   node scripts/readme_check.mjs            check README.md (npm test runs this)
import { realpathSync } from "node:fs";
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { bin, root, run } from "./_run.mjs";

/**
 * The ```ts blocks of `markdown`: `{ line, indent, code, ignored }`, line = the fence's line
 * (1-based). A fence may be indented (a block inside a list item): its indentation is stripped
 * from the block's lines, and `indent` says how much it was.
 */
export function typescriptBlocks(markdown) {
  const blocks = [];
  const lines = markdown.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const open = /^( *)```(ts|typescript)(\s+.*)?$/.exec(lines[i]);
    if (open === null) continue;
    const start = i;
    const indent = open[1].length;
    const body = [];
    for (i++; i < lines.length && !/^ *```\s*$/.test(lines[i]); i++) {
      // As CommonMark does: drop up to the fence's indentation from each line.
      const spaces = /^ */.exec(lines[i])[0].length;
      body.push(lines[i].slice(Math.min(spaces, indent)));
    }
    if (i === lines.length) throw new Error(`README.md:${start + 1}: unterminated code block`);
    blocks.push({
      line: start + 1,
      indent,
      code: body.join("\n") + "\n",
      ignored: /\bignore\b/.test(open[3] ?? ""),
    });
  }
  return blocks;
}

async function main() {
  const blocks = typescriptBlocks(await readFile(join(root, "README.md"), "utf8"));
  const checked = blocks.filter((b) => !b.ignored);
  const dir = join(root, `.readme-check-${process.pid}`);
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir);
  try {
    const files = [];
    for (const b of checked) {
      const file = join(dir, `readme_line_${b.line}.ts`);
      await writeFile(file, b.code);
      files.push(file);
    }
    if (files.length === 0) {
      console.error("README.md has no TypeScript blocks to check");
      return 1;
    }
    const r = await run(bin("deno"), ["check", "--quiet", ...files]);
    // Point errors at README.md lines: block line L, file line N is README line L + N (and the
    // column moves right by the block's indentation).
    const indents = new Map(checked.map((b) => [b.line, b.indent]));
    const out = r.out.replace(
      /\S*readme_line_(\d+)\.ts:(\d+):(\d+)/g,
      (_, block, line, column) =>
        `README.md:${Number(block) + Number(line)}:${
          Number(column) + (indents.get(Number(block)) ?? 0)
        }`,
    );
    if (out.trim() !== "") console.log(out.trimEnd());
    const ignored = blocks.length - checked.length;
    if (r.code === 0) {
      console.log(
        `README.md: ${checked.length} TypeScript blocks type-check` +
          (ignored > 0 ? ` (${ignored} marked ignore)` : ""),
      );
    }
    return r.code === 0 ? 0 : 1;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

// Run as a script; imported (tests/scripts/readme_check_test.ts), it only exports. Real paths:
// through a symlinked checkout, argv[1] and import.meta.url can name the file differently.
const script = process.argv[1];
if (script !== undefined && realpathSync(script) === realpathSync(fileURLToPath(import.meta.url))) {
  process.exitCode = await main();
}
