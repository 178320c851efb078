// The npm packages: package.json's generated fields agree with deno.json (on every runtime),
// tsconfig.json maps both packages' names to their sources, and
// scripts/package_check.mjs passes: one build and one `npm pack`, then the tarball's contents,
// publint, @arethetypeswrong/cli, an offline install into a scratch project, the smoke script
// on Node, Deno and Bun, require() from CommonJS and a tsc consumer (run under Node only).
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import process from "node:process";
import { runtime } from "../_serve.ts";
import { ROOT, runProcess } from "../_runtime_process.ts";

/** deno.json's `exports` map: the package's entry points. */
async function denoExports(): Promise<Record<string, string>> {
  const deno = JSON.parse(await readFile(join(ROOT, "deno.json"), "utf8")) as {
    exports: Record<string, string>;
  };
  return deno.exports;
}

describe("package.json", () => {
  test("exports name the same entry points as deno.json, each built from its source", async () => {
    const deno = await denoExports();
    const pkg = JSON.parse(await readFile(join(ROOT, "package.json"), "utf8")) as {
      exports: Record<string, { types: string; default: string } | string>;
      main: string;
      types: string;
    };
    assert.deepEqual(
      Object.keys(pkg.exports).sort(),
      [...Object.keys(deno), "./package.json"].sort(),
      "package.json and deno.json export different subpaths",
    );
    for (const [subpath, source] of Object.entries(deno)) {
      const entry = pkg.exports[subpath];
      assert.ok(typeof entry === "object", `${subpath}: conditions expected`);
      const out = subpath === "." ? "mod" : subpath.slice(2);
      assert.equal(entry.default, `./dist/${out}.js`, subpath);
      // Under `--conditions=kinformer-source` the name resolves to the shipped source: the
      // examples of a checkout import the package by name (scripts/test.mjs passes it).
      assert.equal(
        (entry as Record<string, string>)["kinformer-source"],
        source,
        `${subpath}: kinformer-source`,
      );
      assert.equal(
        entry.types,
        `./dist/types/${source.slice(2).replace(/\.ts$/, ".d.ts")}`,
        subpath,
      );
    }
    assert.equal(pkg.main, (pkg.exports["."] as { default: string }).default);
    assert.equal(pkg.types, (pkg.exports["."] as { types: string }).types);
  });

  test("one subpath style: lowercase segments, a runtime adapter as <module>/<runtime>", async () => {
    const runtimes = new Set(["deno", "bun", "node"]);
    for (const subpath of Object.keys(await denoExports())) {
      if (subpath === ".") continue;
      const segments = subpath.slice(2).split("/");
      // Hyphens join words that name something outside (`kubernetes-types`, the package).
      assert.ok(
        segments.every((s) => /^[a-z]+(-[a-z]+)*$/.test(s)),
        `${subpath}: lowercase words only`,
      );
      assert.ok(segments.length <= 2, `${subpath}: at most <module>/<runtime>`);
      if (segments.length === 2) assert.ok(runtimes.has(segments[1]!), `${subpath}: not a runtime`);
    }
  });
});

describe("the workspace", () => {
  test("tsconfig.json's paths name every subpath of both packages, each at its source", async () => {
    // Bun, tsc and editors resolve `@kinformer/kinformer/...` and `@kinformer/simulator/...`
    // with these paths; Deno reads the deno.json files, Node scripts/_workspace.mjs.
    const read = async (file: string) => JSON.parse(await readFile(join(ROOT, file), "utf8"));
    const expected: Record<string, string[]> = {};
    for (
      const [dir, name] of [[".", "@kinformer/kinformer"], [
        "packages/simulator",
        "@kinformer/simulator",
      ]]
    ) {
      const { exports } = await read(join(dir!, "deno.json")) as {
        exports: Record<string, string>;
      };
      for (const [subpath, source] of Object.entries(exports)) {
        expected[`${name}${subpath.slice(1)}`] = [`./${join(dir!, source)}`];
      }
    }
    const { compilerOptions } = await read("tsconfig.json") as {
      compilerOptions: { paths: Record<string, string[]> };
    };
    assert.deepEqual(compilerOptions.paths, expected, "stale: `npm run build` rewrites them");
  });
});

describe("npm package", () => {
  const skip = runtime === "node"
    ? undefined
    : `the npm artifact is runtime-independent; it is packed once, under Node (this is ${runtime})`;
  if (skip !== undefined) console.log(`npm_package_test: skipped: ${skip}`);

  test("the packed tarball lints clean, installs offline and works on Node, Deno and Bun", {
    skip,
    timeout: 120_000,
  }, async () => {
    const check = await runProcess(process.execPath, [join(ROOT, "scripts", "package_check.mjs")], {
      killAfterMs: 120_000,
    });
    console.log(check.output.trimEnd());
    assert.equal(check.code, 0, `scripts/package_check.mjs failed:\n${check.output}`);
    assert.match(check.stdout, /^package check: ok/m);
  });
});
