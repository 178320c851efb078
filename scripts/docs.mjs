#!/usr/bin/env node
// The API reference, from the JSDoc of every entry point in deno.json's `exports` (--check: of
// packages/simulator/deno.json's too).
//
//   node scripts/docs.mjs --check         `deno doc --lint` (every exported symbol documented,
//                                         explicit types, no private types), every exported
//                                         function, class and constant has an @example
//                                         (npm test runs this; the examples run as doc tests),
//                                         and the root module exports at most ROOT_LIMIT names
//                                         (tests/mod_test.ts pins the exact list)
//   node scripts/docs.mjs --html [dir]    HTML reference into dir (default docs/api/; npm run build)
//
// The same JSDoc is what JSR shows at https://jsr.io/@kinformer/kinformer/doc.
//
// The reference links the guides (docs/*.md) through the module docs: mod.ts's lists every
// guide, each src/<layer>/mod.ts's the guides that use its symbols, as a "Guides" list of
// https://github.com/kinformer/kinformer/blob/main/docs/<guide>.md links just before `@module`
// (docs/CONTRIBUTING-docs.md). scripts/docs_check.mjs checks those lists (reported until the
// guides exist); --html says how many guides the reference it wrote links.
import { existsSync } from "node:fs";
import { mkdir, readFile, rm } from "node:fs/promises";
import { join, relative, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { bin, root, run } from "./_run.mjs";
import { apiModules, entryPoints as apiEntryPoints, REPO_BLOB } from "./_api.mjs";

const deno = bin("deno");

/** The subpath of the helpers shared with packages/simulator: no public API, no reference. */
const INTERNAL = "internal";

/** Most names the root module (`mod.ts`) may export: what most programs need, nothing more. */
const ROOT_LIMIT = 60;

/** Kinds of declarations that must carry an @example: values users call or read. */
const NEEDS_EXAMPLE = new Set(["function", "class", "variable", "enum", "namespace"]);

/**
 * The library's documented entry points: all of deno.json's `exports` but `./internal` (the
 * helpers shared with packages/simulator, not a public API; its module doc says so).
 */
async function entryPoints() {
  return (await apiEntryPoints()).filter((e) => e.subpath !== INTERNAL).map((e) => e.file);
}

/** The simulator's entry points (packages/simulator/deno.json's `exports`), from the root. */
async function simulatorEntryPoints() {
  const dir = join("packages", "simulator");
  const config = JSON.parse(await readFile(join(root, dir, "deno.json"), "utf8"));
  return Object.values(config.exports).map((file) => join(dir, file));
}

/** How many guides (docs_check.mjs's definition) the root module doc links, and which not. */
async function guidesLinked() {
  const { CONTRIBUTOR_DOCS, markdownFiles } = await import("./docs_check.mjs");
  const guides = (await markdownFiles()).filter((f) =>
    f.startsWith("docs/") && !CONTRIBUTOR_DOCS.has(f)
  );
  const rootDoc = (await apiModules()).find((m) => m.subpath === "").moduleDoc;
  return { guides, unlinked: guides.filter((g) => !rootDoc.includes(`${REPO_BLOB}${g}`)) };
}

/** Exported values without an @example, as `kind name (file:line)`. */
function missingExamples(doc) {
  const missing = new Set();
  for (const { symbols } of Object.values(doc.nodes)) {
    for (const symbol of symbols) {
      for (const decl of symbol.declarations) {
        if (!NEEDS_EXAMPLE.has(decl.kind)) continue;
        if ((decl.jsDoc?.tags ?? []).some((t) => t.kind === "example")) continue;
        const where = relative(root, new URL(decl.location.filename).pathname);
        missing.add(`${decl.kind} ${symbol.name} (${where}:${decl.location.line})`);
      }
    }
  }
  return [...missing].sort();
}

/**
 * Names of the types an entry point takes from an optional types-only package and references
 * in its public API: `/kubernetes-types` types its descriptors with `kubernetes-types`' `Pod`,
 * ... Those cannot be "public" here without re-exporting the whole package, so `deno doc
 * --lint`'s `private-type-ref` errors naming them are expected; every other error counts.
 */
async function externalTypeNames() {
  const names = new Set();
  const source = await readFile(join(root, "src", "kubernetes_types", "mod.ts"), "utf8");
  for (const m of source.matchAll(/import type \{([^}]*)\} from "kubernetes-types\/[^"]+";/g)) {
    for (const part of m[1].split(",")) {
      for (const name of part.trim().split(/\s+as\s+/)) if (name) names.add(name);
    }
  }
  return names;
}

/**
 * `deno doc --lint` on every entry point; errors are printed, expected ones dropped: references
 * to `kubernetes-types` (above) and to the names of `alsoPublic` (another package's public
 * types, which deno doc cannot tell from private ones: the simulator's API uses the library's
 * `ResourceDescriptor`, `KubeObject`, ...).
 */
async function lintDocs(entries, alsoPublic = new Set()) {
  const lint = await run(deno, ["doc", "--lint", ...entries]);
  const external = new Set([...await externalTypeNames(), ...alsoPublic]);
  const blocks = lint.out.split(/\n(?=error\[)/).filter((b) => b.startsWith("error["));
  const unexpected = blocks.filter((b) => {
    const m = /^error\[private-type-ref\]: public type '[^']+' references private type '([^']+)'/
      .exec(b);
    return m === null || !external.has(m[1]);
  });
  for (const b of unexpected) console.error(b.replace(/\nerror: Found \d+ .*$/s, ""));
  if (lint.code !== 0 && blocks.length === 0) console.error(lint.out);
  return lint.code === 0 || (blocks.length > 0 && unexpected.length === 0);
}

/** The checks of one package's entry points; the root module limit for the library only. */
async function checkPackage(entries, rootModule, alsoPublic) {
  const linted = await lintDocs(entries, alsoPublic);
  const json = await run(deno, ["doc", "--json", ...entries]);
  process.stderr.write(json.stderr);
  if (json.code !== 0) return 1;
  const doc = JSON.parse(json.stdout);
  if (doc.version !== 2 || typeof doc.nodes !== "object") {
    console.error(`deno doc --json: unknown format version ${doc.version}`);
    return 1;
  }
  const missing = missingExamples(doc);
  const symbols = Object.values(doc.nodes).reduce((n, m) => n + m.symbols.length, 0);
  let rootOk = true;
  if (rootModule !== undefined) {
    const rootNode = doc.nodes[pathToFileURL(join(root, rootModule)).href];
    const rootCount = rootNode?.symbols.length;
    rootOk = rootCount !== undefined && rootCount <= ROOT_LIMIT;
    if (!rootOk) {
      console.error(
        rootCount === undefined
          ? `deno doc --json: nothing for ${rootModule}`
          : `the root module exports ${rootCount} names, more than ${ROOT_LIMIT}: ` +
            "put new names on the subpath of their layer (src/<layer>/mod.ts)",
      );
    } else console.log(`the root module exports ${rootCount} names (at most ${ROOT_LIMIT})`);
  }
  if (missing.length > 0) {
    console.error(`exported values without an @example:\n  ${missing.join("\n  ")}`);
  } else {
    console.log(`${entries.length} entry points, ${symbols} exported symbols: all documented`);
  }
  return linted && missing.length === 0 && rootOk ? 0 : 1;
}

/** Both packages: the library (deno.json) and the simulator (packages/simulator/deno.json). */
async function check() {
  const library = await checkPackage(await entryPoints(), "mod.ts");
  console.log("@kinformer/simulator:");
  const libraryNames = new Set(
    (await apiModules()).filter((m) => m.subpath !== INTERNAL).flatMap((
      m,
    ) => [...m.symbols.keys()]),
  );
  const simulator = await checkPackage(await simulatorEntryPoints(), undefined, libraryNames);
  return library || simulator;
}

async function html(dir) {
  const entries = await entryPoints();
  const out = resolve(root, dir);
  await rm(out, { recursive: true, force: true });
  await mkdir(out, { recursive: true });
  const r = await run(deno, [
    "doc",
    "--html",
    "--name=@kinformer/kinformer",
    `--output=${out}`,
    ...entries,
  ], { echo: true });
  if (r.code === 0 && !existsSync(join(out, "index.html"))) {
    console.error(`deno doc --html wrote no ${join(out, "index.html")}`);
    return 1;
  }
  if (r.code === 0) {
    const { guides, unlinked } = await guidesLinked();
    console.log(
      `the reference links ${guides.length - unlinked.length} of ${guides.length} guides` +
        (unlinked.length > 0 ? ` (not yet: ${unlinked.join(", ")}; see mod.ts's Guides list)` : ""),
    );
  }
  return r.code ?? 1;
}

const args = process.argv.slice(2);
if (args[0] === "--check") process.exitCode = await check();
else if (args[0] === "--html") process.exitCode = await html(args[1] ?? join("docs", "api"));
else {
  console.error("usage: node scripts/docs.mjs --check | --html [dir]");
  process.exitCode = 2;
}
