#!/usr/bin/env node
// `npm run release:check`: everything a release of both packages (the library at the root,
// @kinformer/simulator in packages/simulator/) needs, short of publishing (docs/releasing.md
// says what to do before and after). Runs every step even after a failure, then prints the
// checklist; exits non-zero if any step failed.
//
//   1. versions: package.json and deno.json agree, in each package; each CHANGELOG.md has a
//      section for its package's version; the simulator's peer range admits the library's version
//   2. build: scripts/build.mjs into dist/ (+ docs/api/) for each package; the package.json
//      files' generated fields were already up to date (the build did not have to change them)
//   3. API docs: scripts/docs.mjs --check, and docs/api/ has a page per entry point
//   4. npm package: scripts/package_check.mjs (one pack; publint, attw, the tarball installed into
//      a scratch project and run on Node, Deno and Bun, tsc consumer)
//   5. JSR: deno publish --dry-run, in each package's folder
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

/** The two packages: the folder of each, relative to the repository. */
const PACKAGES = [".", "packages/simulator"];

/** One package's names, versions and CHANGELOG.md; a note, or throws. */
async function versions(dir) {
  const pkg = await readJson(join(dir, "package.json"));
  const deno = await readJson(join(dir, "deno.json"));
  if (pkg.name !== deno.name) throw new Error(`names differ: ${pkg.name} / ${deno.name}`);
  if (pkg.version !== deno.version) {
    throw new Error(
      `${pkg.name}: versions differ: package.json ${pkg.version}, deno.json ${deno.version}`,
    );
  }
  const file = join(dir, "CHANGELOG.md");
  const changelog = await readFile(join(root, file), "utf8");
  const heading = new RegExp(`^## ${pkg.version.replace(/\./g, "\\.")}(\\s|$)`, "m");
  if (!heading.test(changelog)) throw new Error(`${file} has no "## ${pkg.version}" section`);
  const unreleased = /^## Unreleased\s*\n([\s\S]*?)(?=^## |(?![\s\S]))/m.exec(changelog)?.[1]
    .trim();
  return `${pkg.name}@${pkg.version}` +
    (unreleased ? `; ${file} still has Unreleased entries (move them under a version)` : "");
}

await step("versions and changelogs", async () => {
  const notes = [];
  const problems = [];
  for (const dir of PACKAGES) {
    try {
      notes.push(await versions(dir));
    } catch (error) {
      problems.push(error instanceof Error ? error.message : String(error));
    }
  }
  // The simulator imports the library's subpaths (./internal too): its peer range must admit
  // the library's version (a caret range on the same major.minor, as npm writes them).
  const library = await readJson("package.json");
  const simulator = await readJson("packages/simulator/package.json");
  const range = simulator.peerDependencies?.["@kinformer/kinformer"] ?? "";
  const [major, minor] = library.version.split(".");
  if (!range.startsWith(`^${major}.${minor}.`)) {
    problems.push(
      `@kinformer/simulator's peer range ${range} does not admit @kinformer/kinformer@` +
        `${library.version} (write ^${library.version})`,
    );
  }
  if (problems.length > 0) throw new Error(problems.join("; "));
  return notes.join("; ");
});

await step("build (dist/, docs/api/, package.json fields), both packages", async () => {
  for (const dir of PACKAGES) {
    const before = await readFile(join(root, dir, "package.json"), "utf8");
    await mustRun(`scripts/build.mjs (${dir})`, process.execPath, [
      join(root, "scripts", "build.mjs"),
      ...(dir === "." ? [] : ["--package", dir]),
    ]);
    const after = await readFile(join(root, dir, "package.json"), "utf8");
    if (before !== after) {
      throw new Error(
        `${
          join(dir, "package.json")
        }'s generated fields were stale (the build updated them: commit)`,
      );
    }
  }
});

await step("API docs", async () => {
  await mustRun("scripts/docs.mjs --check", process.execPath, [
    join(root, "scripts", "docs.mjs"),
    "--check",
  ]);
  const deno = await readJson("deno.json");
  // ./internal is no public API: scripts/docs.mjs leaves it out of the reference.
  const documented = Object.keys(deno.exports).filter((subpath) => subpath !== "./internal");
  const missing = documented
    .map((subpath) => join("docs", "api", subpath, "index.html"))
    .filter((page) => !existsSync(join(root, page)));
  if (missing.length > 0) throw new Error(`no page: ${missing.join(", ")}`);
  return `docs/api/index.html and ${documented.length} entry point pages`;
});

await step("npm packages (pack, publint, attw, install on node/deno/bun, tsc)", async () => {
  const out = await mustRun("scripts/package_check.mjs", process.execPath, [
    join(root, "scripts", "package_check.mjs"),
    "--runtimes",
    "node,deno,bun",
  ]);
  return [...out.matchAll(/^\s+(\S+\.tgz: .*)$/gm)].map((m) => m[1]).join("; ");
});

await step("JSR (deno publish --dry-run), both packages", async () => {
  const notes = [];
  for (const dir of PACKAGES) {
    const r = await run(bin("deno"), ["publish", "--dry-run", "--allow-dirty"], {
      cwd: join(root, dir),
      echo: true,
    });
    if (r.code !== 0) throw new Error(`deno publish --dry-run in ${dir} exited ${r.code}`);
    notes.push(`${dir}: ${(r.out.match(/^\s+file:\/\//gm) ?? []).length} files`);
  }
  return notes.join(", ");
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
