#!/usr/bin/env node
// The project's one test command: type-check (README.md's TypeScript blocks too) and lint with
// Deno, then run the same node:test suite under Deno, Bun and Node 20 (esbuild-transpiled),
// print each runtime's counts, and exit
// non-zero if any step fails or any runtime runs zero tests.
//
//   node scripts/test.mjs                 # everything
//   node scripts/test.mjs tests/a_test.ts # only these files (all three runtimes)
//   RUNTIMES=deno,node node scripts/test.mjs
import { spawn } from "node:child_process";
import { mkdir, readdir, rm, symlink } from "node:fs/promises";
import { existsSync } from "node:fs";
import { join, relative, resolve } from "node:path";

const root = resolve(import.meta.dirname, "..");
const bin = (name) => join(root, "node_modules", ".bin", name);
const runtimes = (process.env.RUNTIMES ?? "deno,bun,node").split(",").map((s) => s.trim());
const skipChecks = process.env.SKIP_CHECKS === "1";

/** Deno treats any FORCE_COLOR value as "force colour"; drop it so summaries stay parseable. */
function withoutForceColor(env) {
  const { FORCE_COLOR: _ignored, ...rest } = env;
  return rest;
}

/** Runs a command, streaming its output, and returns { code, out }. */
function run(cmd, args, { env = {}, capture = true } = {}) {
  return new Promise((done) => {
    const child = spawn(cmd, args, {
      cwd: root,
      env: { ...withoutForceColor(process.env), NO_COLOR: "1", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    const onData = (stream) => (d) => {
      if (capture) out += d;
      stream.write(d);
    };
    child.stdout.on("data", onData(process.stdout));
    child.stderr.on("data", onData(process.stderr));
    child.on("close", (code, signal) => done({ code: code ?? (signal ? 128 : 1), out }));
  });
}

/** Every `*_test.ts` below tests/ (which mirrors src/; tests/integration/ starts processes). */
async function testFiles() {
  const given = process.argv.slice(2);
  if (given.length) return given;
  const names = await readdir(join(root, "tests"), { recursive: true });
  return names.filter((n) => n.endsWith("_test.ts") && !n.startsWith("fixtures"))
    .map((n) => `tests/${n.split("\\").join("/")}`).sort();
}

const results = [];
function record(name, passed, failed, code, seconds) {
  const ok = code === 0 && failed === 0 && passed > 0;
  results.push({ name, passed, failed, ok, seconds });
}
const num = (re, text) => {
  let total = 0;
  for (const m of text.matchAll(re)) total = Number(m[1]);
  return total;
};
const elapsed = (t0) => Math.round((performance.now() - t0) / 100) / 10;

const files = await testFiles();
let checksOk = true;

if (!skipChecks) {
  const t0 = performance.now();
  const targets = ["mod.ts", "src", "tests", "examples", "bench"].filter((p) =>
    existsSync(join(root, p))
  );
  console.log(`\n=== deno check ${targets.join(" ")}`);
  const check = await run(bin("deno"), ["check", "--quiet", ...targets], { capture: false });
  console.log(`\n=== deno lint + deno fmt --check`);
  const lint = await run(bin("deno"), ["lint", "--quiet"], { capture: false });
  const fmt = await run(bin("deno"), ["fmt", "--check", "--quiet"], { capture: false });
  // Every TypeScript block of README.md must type-check too (what users copy must compile).
  console.log(`\n=== README.md TypeScript blocks (scripts/readme_check.mjs)`);
  const readme = await run(process.execPath, [join(root, "scripts", "readme_check.mjs")], {
    capture: false,
  });
  checksOk = check.code === 0 && lint.code === 0 && fmt.code === 0 && readme.code === 0;
  results.push({
    name: "deno check+lint+fmt",
    passed: checksOk ? 3 : 0,
    failed: checksOk ? 0 : 1,
    ok: checksOk,
    seconds: elapsed(t0),
  });
  // Every JSDoc @example is a test: type-checked and run (what JSR shows users must work).
  const t1 = performance.now();
  console.log(`\n=== deno test --doc (JSDoc @examples)`);
  const doc = await run(bin("deno"), ["test", "--doc", "-A", "--parallel", "mod.ts", "src/"]);
  const dm = [...doc.out.matchAll(/(?:ok|FAILED) \| (\d+) passed \| (\d+) failed/g)].at(-1);
  record(
    "deno doc examples",
    dm ? Number(dm[1]) : 0,
    dm ? Number(dm[2]) : 1,
    doc.code,
    elapsed(t1),
  );
  // The API reference: every exported symbol documented, every exported value with an @example.
  const t2 = performance.now();
  console.log(`\n=== API docs (scripts/docs.mjs --check: deno doc --lint, @examples)`);
  const apiDocs = await run(process.execPath, [join(root, "scripts", "docs.mjs"), "--check"]);
  const documented = Number(/(\d+) exported symbols: all documented/.exec(apiDocs.out)?.[1] ?? 0);
  record("API docs", documented, apiDocs.code === 0 ? 0 : 1, apiDocs.code, elapsed(t2));
}

if (runtimes.includes("deno")) {
  const t0 = performance.now();
  console.log(`\n=== deno test (${files.length} files)`);
  const r = await run(bin("deno"), [
    "test",
    "-A",
    "--no-check",
    "--parallel",
    "--v8-flags=--expose-gc", // tests that check what garbage collection releases
    ...files,
  ]);
  // "ok | 9 passed (64 steps) | 0 failed (12 steps)": describe() blocks count as tests, it() as steps.
  const m = [
    ...r.out.matchAll(
      /(?:ok|FAILED) \| (\d+) passed(?: \((\d+) steps?\))? \| (\d+) failed(?: \((\d+) steps?\))?/g,
    ),
  ].at(-1);
  const n = (i) => (m && m[i] ? Number(m[i]) : 0);
  record("deno (tests+steps)", n(1) + n(2), m ? n(3) + n(4) : 1, r.code, elapsed(t0));
}

if (runtimes.includes("bun")) {
  const t0 = performance.now();
  console.log(`\n=== bun test (${files.length} files)`);
  const r = await run(bin("bun"), ["test", "--timeout", "60000", ...files.map((f) => `./${f}`)]);
  record(
    "bun",
    num(/^\s*(\d+) pass$/gm, r.out),
    num(/^\s*(\d+) fail$/gm, r.out),
    r.code,
    elapsed(t0),
  );
}

if (runtimes.includes("node")) {
  const t0 = performance.now();
  console.log(`\n=== node ${process.version} --test (${files.length} files, esbuild-transpiled)`);
  // One folder per run (same depth as tests/, so relative URLs keep working), removed after.
  const outdir = join(root, `.node-tests-${process.pid}`);
  await rm(outdir, { recursive: true, force: true });
  await mkdir(outdir, { recursive: true });
  if (existsSync(join(root, "tests", "fixtures"))) {
    await symlink(join(root, "tests", "fixtures"), join(outdir, "fixtures"), "dir");
  }
  const esbuild = await import("esbuild");
  await esbuild.build({
    entryPoints: files.map((f) => join(root, f)),
    outdir,
    outbase: join(root, "tests"), // keep tests/<folder>/ so relative URLs resolve as in tests/
    outExtension: { ".js": ".mjs" },
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node22",
    packages: "external",
    // Examples bundled into a test must not run their own main() (Node 24 has import.meta.main).
    define: { "import.meta.main": "false" },
    sourcemap: "inline",
    logLevel: "warning",
  });
  const outs = files.map((f) =>
    join(outdir, relative(join(root, "tests"), join(root, f)).replace(/\.ts$/, ".mjs"))
  );
  const tap = join(outdir, "report.tap");
  const r = await run("node", [
    "--expose-gc",
    "--test",
    "--test-concurrency=2",
    "--test-reporter=spec",
    "--test-reporter-destination=stdout",
    "--test-reporter=tap",
    `--test-reporter-destination=${tap}`,
    ...outs,
  ]);
  const { readFile } = await import("node:fs/promises");
  const report = existsSync(tap) ? await readFile(tap, "utf8") : "";
  record(
    "node",
    num(/^# pass (\d+)$/gm, report),
    existsSync(tap) ? num(/^# fail (\d+)$/gm, report) : 1,
    r.code,
    elapsed(t0),
  );
  await rm(outdir, { recursive: true, force: true });
}

console.log("\n=== summary");
for (const r of results) {
  console.log(
    `${r.ok ? "PASS" : "FAIL"}  ${r.name.padEnd(18)} ${String(r.passed).padStart(5)} passed ${
      String(r.failed).padStart(4)
    } failed  (${r.seconds}s)`,
  );
}
const passed = results.reduce((a, r) => a + r.passed, 0);
const failed = results.reduce((a, r) => a + (r.ok ? r.failed : Math.max(1, r.failed)), 0);
console.log(`${passed} passed, ${failed} failed`);
process.exit(results.every((r) => r.ok) && results.length > 0 ? 0 : 1);
