#!/usr/bin/env node
// `npm run release:check`: everything a release needs, short of publishing (docs/releasing.md
// says what to do before and after). Runs every step even after a failure, then prints the
// checklist; exits non-zero if any step failed.
//
//   1. versions: package.json and deno.json agree; CHANGELOG.md has a section for the version
//   2. build: scripts/build.mjs into dist/ (+ docs/api/); package.json's generated fields were
//      already up to date (the build did not have to change them)
//   3. API docs: scripts/docs.mjs --check, and docs/api/ has a page per entry point
//   4. npm package: scripts/package_check.mjs (one pack; publint, attw, the tarball installed into
//      a scratch project and run on Node, Deno and Bun, tsc consumer)
//   5. JSR: deno publish --dry-run
// The working tree should be clean for a release; a dirty tree is reported, not failed (so the
// check can run while preparing the release commit).
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { bin, root, run } from "./_run.mjs";

const started = performance.now();
const results = [];

/** Runs one step; a step returns a note or throws. */
async function step(name, fn) {
  console.log(`\n=== ${name}`);
  const t0 = performance.now();
  try {
    const note = await fn();
    results.push({ name, ok: true, note, seconds: (performance.now() - t0) / 1000 });
  } catch (error) {
    const note = error instanceof Error ? error.message : String(error);
    console.error(`FAILED: ${note}`);
    results.push({ name, ok: false, note, seconds: (performance.now() - t0) / 1000 });
  }
}

async function mustRun(what, cmd, args) {
  const r = await run(cmd, args, { echo: true });
  if (r.code !== 0) throw new Error(`${what} exited ${r.code}`);
  return r.out;
}

const readJson = async (file) => JSON.parse(await readFile(join(root, file), "utf8"));

await step("versions and changelog", async () => {
  const pkg = await readJson("package.json");
  const deno = await readJson("deno.json");
  if (pkg.name !== deno.name) throw new Error(`names differ: ${pkg.name} / ${deno.name}`);
  if (pkg.version !== deno.version) {
    throw new Error(`versions differ: package.json ${pkg.version}, deno.json ${deno.version}`);
  }
  const changelog = await readFile(join(root, "CHANGELOG.md"), "utf8");
  const heading = new RegExp(`^## ${pkg.version.replace(/\./g, "\\.")}(\\s|$)`, "m");
  if (!heading.test(changelog)) throw new Error(`CHANGELOG.md has no "## ${pkg.version}" section`);
  const unreleased = /^## Unreleased\s*\n([\s\S]*?)(?=^## )/m.exec(changelog)?.[1].trim();
  return `${pkg.name}@${pkg.version}` +
    (unreleased ? "; CHANGELOG.md still has Unreleased entries (move them under a version)" : "");
});

await step("build (dist/, docs/api/, package.json fields)", async () => {
  const before = await readFile(join(root, "package.json"), "utf8");
  await mustRun("scripts/build.mjs", process.execPath, [join(root, "scripts", "build.mjs")]);
  const after = await readFile(join(root, "package.json"), "utf8");
  if (before !== after) {
    throw new Error("package.json's generated fields were stale (the build updated them: commit)");
  }
});

await step("API docs", async () => {
  await mustRun("scripts/docs.mjs --check", process.execPath, [
    join(root, "scripts", "docs.mjs"),
    "--check",
  ]);
  const deno = await readJson("deno.json");
  const missing = Object.keys(deno.exports)
    .map((subpath) => join("docs", "api", subpath, "index.html"))
    .filter((page) => !existsSync(join(root, page)));
  if (missing.length > 0) throw new Error(`no page: ${missing.join(", ")}`);
  return `docs/api/index.html and ${Object.keys(deno.exports).length} entry point pages`;
});

await step("npm package (pack, publint, attw, install on node/deno/bun, tsc)", async () => {
  const out = await mustRun("scripts/package_check.mjs", process.execPath, [
    join(root, "scripts", "package_check.mjs"),
    "--runtimes",
    "node,deno,bun",
  ]);
  return /^\s+(\S+\.tgz: .*)$/m.exec(out)?.[1];
});

await step("JSR (deno publish --dry-run)", async () => {
  const out = await mustRun("deno publish --dry-run", bin("deno"), [
    "publish",
    "--dry-run",
    "--allow-dirty",
  ]);
  const files = (out.match(/^\s+file:\/\//gm) ?? []).length;
  return `${files} files`;
});

const status = await run("git", ["status", "--porcelain"]);
const dirty = status.code === 0 && status.out.trim() !== "";

console.log("\n=== release checklist");
for (const r of results) {
  console.log(
    `${r.ok ? "[x]" : "[ ]"} ${r.name} (${r.seconds.toFixed(1)} s)${r.note ? `: ${r.note}` : ""}`,
  );
}
if (dirty) {
  console.log("note: the working tree has uncommitted changes (release from a clean tree)");
}
const failed = results.filter((r) => !r.ok).length;
console.log(
  `${failed === 0 ? "ready" : `${failed} step(s) failed`} ` +
    `(${((performance.now() - started) / 1000).toFixed(1)} s)`,
);
process.exitCode = failed === 0 ? 0 : 1;
