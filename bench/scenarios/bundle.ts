/**
 * Scenario 6: the size of mod.ts bundled and minified (with the options scripts/build.mjs uses
 * for dist/kinformer.min.js), against the parts of @kubernetes/client-node an informer needs.
 * @module
 */
import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { MINIFIED_LIBRARY } from "../../scripts/esbuild_options.mjs";
import { fmtKB, fmtX } from "../_format.ts";
import type { Scenario } from "../_scenario.ts";

/** Raw and gzipped (level 9) size of a file. */
async function sizes(path: string): Promise<{ min: number; gzip: number }> {
  const bytes = await readFile(path);
  return { min: bytes.length, gzip: gzipSync(bytes, { level: 9 }).length };
}

export default {
  name: "bundle",
  order: 6,
  async alone(ctx) {
    ctx.log("bundle sizes");
    const ours = join(ctx.tmp, "kinformer.min.js");
    await ctx.esbuild.build({
      ...MINIFIED_LIBRARY,
      absWorkingDir: ctx.root,
      entryPoints: ["mod.ts"],
      outfile: ours,
    });
    const theirsEntry = join(ctx.tmp, "client_node_entry.mjs");
    await writeFile(
      theirsEntry,
      'export { CoreV1Api, KubeConfig, makeInformer } from "@kubernetes/client-node";\n',
    );
    const theirs = join(ctx.tmp, "client-node.min.js");
    await ctx.esbuild.build({
      absWorkingDir: ctx.root,
      entryPoints: [theirsEntry],
      outfile: theirs,
      bundle: true,
      format: "esm",
      platform: "node",
      target: "es2022",
      minify: true,
      legalComments: "none",
      logLevel: "error",
    });
    const k = await sizes(ours);
    const c = await sizes(theirs);
    const dist = join(ctx.root, "dist", "kinformer.min.js");
    const built = existsSync(dist) ? await sizes(dist) : undefined;
    ctx.raw.bundle!.push({ kinformer: k, distKinformer: built, clientNode: c });
    ctx.row({
      scenario: "6 bundle size (min / gzip), mod.ts",
      runtime: "-",
      n: "-",
      result: `${fmtKB(k.min)} / ${fmtKB(k.gzip)}`,
      baseline: `client-node informer: ${fmtKB(c.min)} / ${fmtKB(c.gzip)}`,
      ratio: fmtX(k.gzip / c.gzip),
      target: "info",
    });
    if (built !== undefined && built.min !== k.min) {
      ctx.row({
        scenario: "6 bundle size, dist/kinformer.min.js (scripts/build.mjs)",
        runtime: "-",
        n: "-",
        result: `${fmtKB(built.min)} / ${fmtKB(built.gzip)}`,
        baseline: "-",
        ratio: "-",
        target: "info",
      });
    }
  },
} satisfies Scenario;
