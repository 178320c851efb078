#!/usr/bin/env node
// Builds the npm package into dist/:
//   dist/<entry>.js (+ .map)   one ESM file per public entry point, shared code in dist/_chunks/
//                              (esbuild: bundle, splitting, es2022, not minified)
//   dist/types/**.d.ts (+ .map) declarations (tsc --emitDeclarationOnly), `.ts` specifiers -> `.js`
//   dist/kinformer.min.js      mod.ts as one minified file (size printed raw and gzipped)
// and, building into dist/, the HTML API reference into docs/api/ (scripts/docs.mjs).
//
// Source maps: the package ships its TypeScript sources (mod.ts, src/: what JSR publishes), so
// the maps point at them instead of embedding them (`sourcesContent: false`): declaration maps
// take "go to definition" to the .ts source, the JS maps take stack traces and debuggers there.
// Every map is written as if dist/ sat next to mod.ts and src/, wherever it is built.
//
// Entry points are deno.json's `exports`, the one list of the package's subpaths: the npm
// package's `exports`, `main` and `types` are generated from it. Building into dist/ writes them
// into package.json when they differ (tests/integration/npm_package_test.ts fails while they do). Outputs of
// portable entries are checked for `node:*` imports: only the runtime adapters excluded in
// scripts/tsconfig.portable.json may have them.
//
//   node scripts/build.mjs                        build into dist/ and docs/api/, update package.json
//                                                 (and tsconfig.json's paths)
//   node scripts/build.mjs --outdir <dir>         build into <dir> only (a staged package's dist/)
//   node scripts/build.mjs --print-package-fields print the generated package.json fields (JSON)
//   node scripts/build.mjs --package packages/simulator [...]   the same for the simulator package
//
// Both packages import each other by name (`@kinformer/*`): esbuild leaves those imports to the
// installed package, and tsc resolves them to their sources (tsconfig.json's `paths`) to
// type the declarations, which keep the names; declarations tsc emits for the other package's
// files are dropped.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { dirname, join, posix, relative, resolve, sep } from "node:path";
import { gzipSync } from "node:zlib";
import { LIBRARY, MINIFIED_LIBRARY } from "./esbuild_options.mjs";

const repo = resolve(import.meta.dirname, "..");
const packageFlag = process.argv.indexOf("--package");
/** The package being built: the library (the repository root) or packages/simulator. */
const root = packageFlag > 0 ? resolve(repo, process.argv[packageFlag + 1]) : repo;
const isLibrary = root === repo;
const outdirFlag = process.argv.indexOf("--outdir");
const outdirGiven = outdirFlag > 0 && process.argv[outdirFlag + 1] !== undefined;
const dist = outdirGiven ? resolve(process.argv[outdirFlag + 1]) : join(root, "dist");

/** `{ subpath, source, out }` for every entry point of deno.json's `exports`. */
async function entryPoints() {
  const deno = JSON.parse(await readFile(join(root, "deno.json"), "utf8"));
  const exports = typeof deno.exports === "string" ? { ".": deno.exports } : deno.exports;
  return Object.entries(exports).map(([subpath, source]) => ({
    subpath,
    source: source.replace(/^\.\//, ""),
    out: subpath === "." ? "mod" : subpath.replace(/^\.\//, ""),
  }));
}

/**
 * The export condition that resolves the package's own name to its TypeScript sources (which
 * the package ships): `node --conditions=kinformer-source` and `bun --conditions=...` run the
 * examples of a checkout, written as user code (`import ... from "@kinformer/kinformer"`),
 * against `src/` without a build; Deno resolves the name through deno.json by itself.
 */
const SOURCE_CONDITION = "kinformer-source";

/**
 * The package.json fields generated from the entry points: `exports` (a `types`, a
 * {@link SOURCE_CONDITION} and a `default` condition per subpath, plus `./package.json`),
 * `main` and `types`. Everything else in package.json is written by hand.
 */
function packageFields(entries) {
  const exports = {};
  for (const e of entries) {
    exports[e.subpath] = {
      types: `./dist/types/${e.source.replace(/\.ts$/, ".d.ts")}`,
      [SOURCE_CONDITION]: `./${e.source}`,
      default: `./dist/${e.out}.js`,
    };
  }
  exports["./package.json"] = "./package.json";
  const main = entries.find((e) => e.subpath === ".");
  return {
    exports,
    ...(main === undefined ? {} : {
      main: `./dist/${main.out}.js`,
      types: `./dist/types/${main.source.replace(/\.ts$/, ".d.ts")}`,
    }),
  };
}

/** Glob (`**` any path, `*` within one folder) to RegExp over repository-relative paths with `/`. */
function globToRegExp(glob) {
  const escaped = glob.replace(/[.+^${}()|[\]\\]/g, "\\$&").replace(
    /\*\*|\*/g,
    (star) => star === "**" ? ".*" : "[^/]*",
  );
  return new RegExp(`^${escaped}$`);
}

/** Source files allowed to import `node:*`: the portability guard's exclude list. */
async function runtimeAdapters() {
  const config = JSON.parse(
    await readFile(join(repo, "scripts", "tsconfig.portable.json"), "utf8"),
  );
  // The exclude list is relative to the repository; esbuild's paths to the package.
  const inPackage = relative(repo, root).split(sep).join("/");
  return (config.exclude ?? []).map((p) => p.replace(/^(\.\.\/)+/, ""))
    .filter((p) => inPackage === "" || p.startsWith(`${inPackage}/`))
    .map((p) => globToRegExp(inPackage === "" ? p : p.slice(inPackage.length + 1)));
}

function run(cmd, args) {
  return new Promise((done, fail) => {
    const child = spawn(cmd, args, { cwd: repo, stdio: "inherit" });
    child.once("error", fail);
    child.once("close", (code) => (code === 0 ? done() : fail(new Error(`${cmd} exited ${code}`))));
  });
}

async function* walk(dir) {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* walk(path);
    else yield path;
  }
}

/** Rewrites relative `.ts` specifiers in emitted declarations to `.js`. */
async function rewriteDeclarationSpecifiers(dir) {
  const specifier = /(\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)(["'])(\.{1,2}\/[^"'\n]*?)\.ts\2/g;
  let files = 0;
  for await (const path of walk(dir)) {
    if (!path.endsWith(".d.ts")) continue;
    const text = await readFile(path, "utf8");
    const rewritten = text.replace(
      specifier,
      (_, head, quote, stem) => `${head}${quote}${stem}.js${quote}`,
    );
    if (rewritten !== text) await writeFile(path, rewritten);
    files++;
  }
  return files;
}

/**
 * Rewrites the `sources` of every map under `dir` (esbuild's and tsc's, relative to where they
 * were written) as if `dir` were the package's dist/, next to mod.ts and src/; fails on a source
 * outside the files the package ships.
 */
async function relocateSourceMaps(dir) {
  let count = 0;
  for await (const path of walk(dir)) {
    if (!path.endsWith(".map")) continue;
    const map = JSON.parse(await readFile(path, "utf8"));
    const shipped = join(root, "dist", relative(dir, path));
    map.sources = map.sources.map((source) => {
      const file = resolve(dirname(path), map.sourceRoot ?? "", source);
      const inRepo = relative(root, file).split(sep).join("/");
      if (inRepo !== "mod.ts" && !inRepo.startsWith("src/")) {
        throw new Error(`${relative(dir, path)}: source ${source} is not shipped`);
      }
      return relative(dirname(shipped), join(root, inRepo)).split(sep).join("/");
    });
    delete map.sourceRoot;
    await writeFile(path, JSON.stringify(map));
    count++;
  }
  return count;
}

/**
 * Fails when an output reachable from a portable entry imports `node:*` (directly or through a
 * shared chunk). Adapters (per-runtime entries) may.
 */
function checkPortableOutputs(metafile, entries, adapters) {
  const outputs = metafile.outputs;
  const isAdapter = (source) => adapters.some((re) => re.test(source));
  const problems = [];
  for (const [outPath, output] of Object.entries(outputs)) {
    if (output.entryPoint === undefined) continue;
    const source = output.entryPoint.split(sep).join("/");
    if (isAdapter(source)) continue;
    const seen = new Set();
    const stack = [outPath];
    while (stack.length > 0) {
      const current = stack.pop();
      if (seen.has(current)) continue;
      seen.add(current);
      for (const imp of outputs[current]?.imports ?? []) {
        if (imp.external && imp.path.startsWith("node:")) {
          problems.push(`${source} -> ${current} imports ${imp.path}`);
        } else if (!imp.external) stack.push(imp.path);
      }
    }
  }
  if (problems.length > 0) {
    throw new Error(`portable entry points reach node:* modules:\n  ${problems.join("\n  ")}`);
  }
  return entries.filter((e) => !isAdapter(e.source)).length;
}

/**
 * Moves this package's declarations (and their maps) from `emitted`, which mirrors the
 * repository, to `types`, and deletes the rest (the other package's). Map sources are made
 * absolute first, so that they still resolve after the move (relocateSourceMaps then writes
 * them relative to where the package ships them).
 */
async function keepPackageDeclarations(emitted, types) {
  for await (const path of walk(emitted)) {
    if (!path.endsWith(".map")) continue;
    const map = JSON.parse(await readFile(path, "utf8"));
    map.sources = map.sources.map((source) => resolve(dirname(path), map.sourceRoot ?? "", source));
    delete map.sourceRoot;
    await writeFile(path, JSON.stringify(map));
  }
  const mine = join(emitted, relative(repo, root));
  await rm(types, { recursive: true, force: true });
  await rename(mine, types);
  await rm(join(types, "packages"), { recursive: true, force: true }); // the library's: the others
  await rm(emitted, { recursive: true, force: true });
}

/**
 * Writes tsconfig.json's `paths` (how Bun, tsc and editors resolve both packages' names to
 * their sources) from both deno.json files' `exports`, when they differ.
 */
async function writeWorkspacePaths() {
  const paths = {};
  for (
    const [dir, name] of [["", "@kinformer/kinformer"], [
      "packages/simulator",
      "@kinformer/simulator",
    ]]
  ) {
    const config = JSON.parse(await readFile(join(repo, dir, "deno.json"), "utf8"));
    for (const [subpath, source] of Object.entries(config.exports)) {
      paths[`${name}${subpath.slice(1)}`] = [`./${posix.join(dir, source)}`];
    }
  }
  const file = join(repo, "tsconfig.json");
  const tsconfig = JSON.parse(await readFile(file, "utf8"));
  if (JSON.stringify(tsconfig.compilerOptions.paths) === JSON.stringify(paths)) return;
  tsconfig.compilerOptions.paths = paths;
  await writeFile(file, JSON.stringify(tsconfig, null, 2) + "\n");
  console.log("\nupdated tsconfig.json's paths from the deno.json files");
}

/** Writes the generated fields into package.json (same key order, the rest untouched). */
async function writePackageFields(fields) {
  const path = join(root, "package.json");
  const text = await readFile(path, "utf8");
  const pkg = JSON.parse(text);
  const stale = Object.keys(fields).filter((k) =>
    JSON.stringify(pkg[k]) !== JSON.stringify(fields[k])
  );
  if (stale.length === 0) return;
  for (const key of stale) pkg[key] = fields[key];
  await writeFile(path, JSON.stringify(pkg, null, 2) + "\n");
  console.log(`\nupdated package.json from deno.json: ${stale.join(", ")}`);
}

function kib(bytes) {
  return `${(bytes / 1024).toFixed(1)} KiB`;
}

const entries = await entryPoints();

if (process.argv.includes("--print-package-fields")) {
  console.log(JSON.stringify(packageFields(entries), null, 2));
  process.exit(0);
}

const started = performance.now();
const esbuild = await import("esbuild");
const missing = entries.filter((e) => !existsSync(join(root, e.source)));
if (missing.length > 0) {
  throw new Error(
    `entry points missing: ${missing.map((e) => `${e.subpath} (${e.source})`).join(", ")}`,
  );
}
await rm(dist, { recursive: true, force: true });
await mkdir(dist, { recursive: true });

// 1. One ESM file per entry point, shared code split into chunks.
const split = await esbuild.build({
  ...LIBRARY,
  absWorkingDir: root,
  entryPoints: entries.map((e) => ({ in: e.source, out: e.out })),
  outdir: dist,
  chunkNames: "_chunks/[name]-[hash]",
  splitting: true,
  minify: false,
  sourcemap: true,
  sourcesContent: false,
  metafile: true,
  legalComments: "inline",
});
const portable = checkPortableOutputs(split.metafile, entries, await runtimeAdapters());

// 2. The whole library as one minified file.
const minPath = join(dist, "kinformer.min.js");
const mainEntry = isLibrary ? entries.find((e) => e.subpath === ".") : undefined;
if (mainEntry !== undefined) {
  await esbuild.build({
    ...MINIFIED_LIBRARY,
    absWorkingDir: root,
    entryPoints: [mainEntry.source],
    outfile: minPath,
  });
}

// 3. Declarations: emitted for the whole program (both packages' sources, see above) into a
// scratch folder, of which this package's part becomes dist/types/.
const tsc = join(repo, "node_modules", ".bin", process.platform === "win32" ? "tsc.cmd" : "tsc");
const emitted = join(dist, ".types-emitted");
const config = isLibrary ? "tsconfig.build.json" : "tsconfig.build.simulator.json";
await run(tsc, ["-p", join("scripts", config), "--outDir", emitted]);
await keepPackageDeclarations(emitted, join(dist, "types"));
const declarations = await rewriteDeclarationSpecifiers(join(dist, "types"));
const maps = await relocateSourceMaps(dist);
for (const e of entries) {
  const dts = join(dist, "types", e.source.replace(/\.ts$/, ".d.ts"));
  if (!existsSync(dts)) throw new Error(`no declarations for ${e.subpath}: ${dts}`);
}

// Report.
const shown = (path) => (path.startsWith(root + sep) ? relative(root, path) : path);
console.log(
  `\nbuilt ${entries.length} entry points into ${shown(dist)}/ ` +
    `(${portable} portable, checked for node:* imports; ${declarations} .d.ts files; ` +
    `${maps} source maps)`,
);
for (const e of entries) {
  const file = join(dist, `${e.out}.js`);
  console.log(
    `  ${e.subpath.padEnd(16)} ${`${e.out}.js`.padEnd(28)} ${kib((await stat(file)).size)}`,
  );
}
const chunkDir = join(dist, "_chunks");
if (existsSync(chunkDir)) {
  let total = 0;
  let count = 0;
  for await (const path of walk(chunkDir)) {
    if (!path.endsWith(".js")) continue;
    total += (await stat(path)).size;
    count++;
  }
  console.log(`  ${"(shared)".padEnd(16)} ${`_chunks/ (${count} files)`.padEnd(28)} ${kib(total)}`);
}
if (mainEntry !== undefined) {
  const min = await readFile(minPath);
  const gz = gzipSync(min, { level: 9 });
  console.log(
    `\n${shown(minPath)}: ${min.length} bytes raw (${kib(min.length)}), ` +
      `${gz.length} bytes gzipped (${kib(gz.length)})`,
  );
}
if (!outdirGiven) {
  await writePackageFields(packageFields(entries));
  await writeWorkspacePaths();
  if (isLibrary) await run(process.execPath, [join("scripts", "docs.mjs"), "--html"]);
}
console.log(`done in ${((performance.now() - started) / 1000).toFixed(1)} s`);
