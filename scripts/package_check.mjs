#!/usr/bin/env node
// Checks the npm packages as users receive them (the library and packages/simulator, each from
// one build and one `npm pack`):
//   1. stage: scripts/build.mjs into <tmp>/package/dist, package.json as it is, README.md,
//      LICENSE and the other `files` entries (mod.ts, src/, CHANGELOG.md); `npm pack` it
//   2. contents: every `exports` target, LICENSE, no tests/bench/examples/scripts; every source
//      map points at a file in the tarball and embeds none
//   3. publint (every message counts, suggestions too) and @arethetypeswrong/cli (profile
//      esm-only: the package is ESM only, so CommonJS `require` and TypeScript's removed node10
//      resolution are out of scope) on the tarball
//   4. `npm install <both tarballs> --offline` into a scratch project; scripts/package_smoke.mjs
//      run there on each runtime (every subpath of both deno.json files imported by name, the
//      simulator through its own name and through the library's deprecated ./testing, every
//      export's name as written); README's first example as printed (Node 24, and 22 when
//      .tmp/node22 has it, Deno, Bun); `require()` of the
//      package from CommonJS on Node (require(esm)); scripts/package_consumer.ts type-checked
//      by tsc (nodenext)
//
//   node scripts/package_check.mjs                     all of it, smoke on node, deno and bun
//   node scripts/package_check.mjs --runtimes node     smoke on these runtimes only
//   node scripts/package_check.mjs --keep              keep the scratch folder (prints where)
//
// tests/integration/npm_package_test.ts runs it (npm test); scripts/release_check.mjs too.
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, join, posix } from "node:path";
import { bin, root, run } from "./_run.mjs";
import { typescriptBlocks } from "./_markdown.mjs";

const flag = (name) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const runtimes = (flag("runtimes") ?? "node,deno,bun").split(",").map((s) => s.trim());
const keep = process.argv.includes("--keep");

const started = performance.now();
const seconds = (t0) => ((performance.now() - t0) / 1000).toFixed(1);

/**
 * `run`, failing with the command's output unless it exits 0. The packages run as installed:
 * without the resolution hook the repository's tests run under (scripts/_run.mjs WORKSPACE_ENV).
 */
const INSTALLED = { npm_config_update_notifier: "false", NODE_OPTIONS: "", BUN_OPTIONS: "" };
async function ok(what, cmd, args, cwd, env) {
  const t0 = performance.now();
  const r = await run(cmd, args, { cwd, env: { ...INSTALLED, ...env } });
  assert.equal(r.code, 0, `${what} failed (exit ${r.code}):\n${r.stdout}\n${r.stderr}`);
  console.log(`  ok  ${what} (${seconds(t0)} s)`);
  return r;
}

const pkg = JSON.parse(await readFile(join(root, "package.json"), "utf8"));
const deno = JSON.parse(await readFile(join(root, "deno.json"), "utf8"));
const subpaths = Object.keys(deno.exports);
const simulatorDir = join(root, "packages", "simulator");
const simulatorPkg = JSON.parse(await readFile(join(simulatorDir, "package.json"), "utf8"));
const simulatorDeno = JSON.parse(await readFile(join(simulatorDir, "deno.json"), "utf8"));
const simulatorSubpaths = Object.keys(simulatorDeno.exports);

/** Every file a value of `exports` names (conditions flattened). */
function exportTargets(value) {
  if (typeof value === "string") return [value.replace(/^\.\//, "")];
  return Object.values(value).flatMap(exportTargets);
}

/** The first TypeScript block under README's "An informer in ten lines". */
async function readmeFirstExample() {
  const readme = await readFile(join(root, "README.md"), "utf8");
  const heading = readme.split("\n").findIndex((l) => l.startsWith("## An informer in ten lines"));
  const block = typescriptBlocks(readme, "README.md").find((b) => b.line > heading + 1);
  assert.ok(block !== undefined, "README.md: no TypeScript block under its first example heading");
  return block.code;
}

/** What the smoke script must print on every runtime. */
function checkSmoke(runtime, stdout) {
  const report = JSON.parse(stdout.trim().split("\n").at(-1) ?? "{}");
  const where = `smoke on ${runtime}`;
  assert.deepEqual(report.rootHas, {
    KubeClient: "function",
    KubeApiError: "function",
    createInformer: "function",
    SharedInformer: "function",
    pods: "object",
    SharedInformerFactory: "function",
    WorkQueue: "undefined", // on /queue only: the root is the 1.0 list (mod.ts)
  }, where);
  assert.equal(report.listed, 2, where);
  assert.deepEqual(report.informerKeys, ["default/web-1", "default/web-2"], where);
  assert.equal(report.objectsGauge, "2", `${where}: kinformer_objects`);
  assert.equal(report.proxyServer, "http://127.0.0.1:8001", where);
  assert.equal(report.kubeconfigServer, "https://10.0.0.1", where);
  assert.equal(report.nodeLoaderError, "ClusterConfigError:FileNotFound", where);
  assert.deepEqual(Object.keys(report.subpaths), subpaths, `${where}: every deno.json subpath`);
  for (const [subpath, count] of Object.entries(report.subpaths)) {
    assert.ok(count > 0, `${where}: ${subpath} exports nothing`);
  }
  assert.deepEqual(
    Object.keys(report.simulatorSubpaths),
    simulatorSubpaths,
    `${where}: every packages/simulator/deno.json subpath`,
  );
  for (const [subpath, count] of Object.entries(report.simulatorSubpaths)) {
    assert.ok(count > 0, `${where}: @kinformer/simulator ${subpath} exports nothing`);
  }
  assert.equal(report.sameSimulator, true, `${where}: ./testing re-exports @kinformer/simulator`);
  assert.deepEqual(report.renamed, [], `${where}: exports whose name the bundler changed`);
  assert.deepEqual(report.errorNames, [
    "KubeApiError KubeApiError KubeApiError",
    "KubeconfigParseError KubeconfigParseError KubeconfigParseError",
  ], `${where}: error.name, constructor.name and String(error)`);
}

const smokeArgs = [JSON.stringify(subpaths), JSON.stringify(simulatorSubpaths)];
const SMOKE_COMMANDS = {
  node: () => [process.execPath, ["smoke.mjs", ...smokeArgs]],
  deno: () => [bin("deno"), ["run", "-A", "--no-lock", "smoke.mjs", ...smokeArgs]],
  bun: () => [bin("bun"), ["smoke.mjs", ...smokeArgs]],
};

/**
 * Builds, stages and packs one package (`dir`: the repository root or packages/simulator), and
 * checks the tarball: contents, source maps, publint, attw. Resolves the tarball's path.
 */
async function checkTarball(name, dir, pkg, buildArgs) {
  // 1. Stage and pack.
  console.log(`${name}:`);
  const stage = join(tmp, basename(dir) === "simulator" ? "simulator" : "package");
  await mkdir(stage);
  await ok("build", process.execPath, [
    join(root, "scripts", "build.mjs"),
    ...buildArgs,
    "--outdir",
    join(stage, "dist"),
  ], root);
  await writeFile(join(stage, "package.json"), JSON.stringify(pkg, null, 2) + "\n");
  for (const entry of ["README.md", "LICENSE", ...pkg.files.filter((f) => f !== "dist")]) {
    assert.ok(existsSync(join(dir, entry)), `${entry} (listed in package.json files) is missing`);
    await cp(join(dir, entry), join(stage, entry), { recursive: true });
  }
  const packed = await ok("npm pack", "npm", [
    "pack",
    "--json",
    "--ignore-scripts",
    "--pack-destination",
    tmp,
  ], stage);
  const [info] = JSON.parse(packed.stdout);
  const tarball = join(tmp, info.filename);
  const files = new Set(info.files.map((f) => f.path));
  const kb = (bytes) => `${(bytes / 1024).toFixed(0)} KiB`;
  console.log(
    `      ${info.filename}: ${kb(info.size)} packed, ${kb(info.unpackedSize)} unpacked, ` +
      `${files.size} files`,
  );

  // 2. Contents.
  for (const expected of ["package.json", "README.md", "LICENSE", "CHANGELOG.md", "mod.ts"]) {
    assert.ok(files.has(expected), `${expected} is not in the tarball`);
  }
  for (const target of exportTargets(pkg.exports)) {
    assert.ok(files.has(target), `exports target ${target} is not in the tarball`);
  }
  const leaked = [...files].filter((f) =>
    /^(tests|bench|examples|scripts|docs)\//.test(f) || /_test\.ts$/.test(f)
  );
  assert.deepEqual(leaked, [], "files that are not part of the package");
  let maps = 0;
  for (const file of files) {
    if (!file.endsWith(".map")) continue;
    const map = JSON.parse(await readFile(join(stage, file), "utf8"));
    assert.equal(map.sourcesContent, undefined, `${file} embeds its sources`);
    for (const source of map.sources) {
      const target = posix.normalize(posix.join(posix.dirname(file), source));
      assert.ok(files.has(target), `${file} points at ${source}, not in the tarball`);
    }
    maps++;
  }
  assert.ok(maps > 0, "no source maps in the tarball");
  console.log(`  ok  contents (${maps} source maps, each pointing at a shipped source)`);

  // 3. Linters, on the tarball.
  const t3 = performance.now();
  const { publint } = await import("publint");
  const { formatMessage } = await import("publint/utils");
  const bytes = await readFile(tarball);
  const lint = await publint({
    pack: { tarball: bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length) },
    level: "suggestion",
    strict: true,
  });
  const messages = lint.messages.map((m) => `${m.type}: ${formatMessage(m, lint.pkg)}`);
  assert.deepEqual(messages, [], "publint found problems");
  console.log(`  ok  publint (${seconds(t3)} s)`);
  await ok("attw --profile esm-only", bin("attw"), [
    tarball,
    "--profile",
    "esm-only",
    "--format",
    "table-flipped",
    "--no-color",
  ], tmp);
  return tarball;
}

const tmp = await mkdtemp(join(tmpdir(), "kinformer-package-"));
try {
  console.log(`package check (${tmp})`);
  const library = await checkTarball("@kinformer/kinformer", root, pkg, []);
  const simulator = await checkTarball("@kinformer/simulator", simulatorDir, simulatorPkg, [
    "--package",
    join("packages", "simulator"),
  ]);

  // 4. Installed into a scratch project, on each runtime.
  const app = join(tmp, "app");
  await mkdir(app);
  await writeFile(
    join(app, "package.json"),
    JSON.stringify({ name: "scratch", private: true, type: "module" }),
  );
  await ok("npm install <both tarballs> --offline", "npm", [
    "install",
    library,
    simulator,
    "--offline",
    "--no-audit",
    "--no-fund",
    "--ignore-scripts",
  ], app);
  await cp(join(root, "scripts", "package_smoke.mjs"), join(app, "smoke.mjs"));
  for (const runtime of runtimes) {
    const command = SMOKE_COMMANDS[runtime];
    assert.ok(command !== undefined, `unknown runtime ${runtime}`);
    const [cmd, args] = command();
    checkSmoke(runtime, (await ok(`smoke on ${runtime}`, cmd, args, app)).stdout);
  }
  // README's first example, as printed, where the package is installed: on Node 24, on Node 22
  // when .tmp/node22 has it (scripts/test.mjs installs it for RUNTIMES=node22), Deno and Bun.
  await writeFile(join(app, "first.ts"), await readmeFirstExample());
  const node22 = join(root, ".tmp", "node22", "node_modules", ".bin", "node");
  const firstCommands = {
    node: [[bin("node"), ["first.ts"]], ...(existsSync(node22) ? [[node22, ["first.ts"]]] : [])],
    deno: [[bin("deno"), ["run", "--no-lock", "first.ts"]]],
    bun: [[bin("bun"), ["first.ts"]]],
  };
  for (const runtime of runtimes) {
    for (const [cmd, args] of firstCommands[runtime]) {
      const version = cmd.includes("node22") ? " 22" : runtime === "node" ? " 24" : "";
      const r = await ok(`README's first example on ${runtime}${version}`, cmd, args, app);
      assert.equal(r.stdout.trim(), "add web-1", `README's first example on ${runtime}${version}`);
    }
  }
  if (runtimes.includes("node")) {
    await writeFile(
      join(app, "require.cjs"),
      'const k = require("@kinformer/kinformer");\n' +
        'console.log(typeof k.createInformer, typeof require("@kinformer/kinformer/testing").SimulatedCluster);\n',
    );
    const r = await ok("require() from CommonJS on Node", process.execPath, [
      "--no-warnings",
      "require.cjs",
    ], app);
    assert.equal(r.stdout.trim(), "function function", "require(esm)");
  }
  await cp(join(root, "scripts", "package_consumer.ts"), join(app, "consumer.ts"));
  await writeFile(
    join(app, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: {
        target: "ES2022",
        module: "nodenext",
        moduleResolution: "nodenext",
        // Disposable/AsyncDisposable (`await using`) come from ESNext.Disposable or @types/node.
        lib: ["ES2022", "ESNext.Disposable", "DOM", "DOM.Iterable"],
        types: [],
        strict: true,
        noEmit: true,
        skipLibCheck: false,
      },
      files: ["consumer.ts"],
    }),
  );
  await ok("tsc on a TypeScript consumer (nodenext)", bin("tsc"), [
    "-p",
    join(app, "tsconfig.json"),
  ], app);

  // The typed descriptors of /kubernetes-types: kubernetes-types is an optional peer dependency.
  // Without it (as installed so far) only that subpath's types are missing, and tsc says which
  // package to install; with it, the descriptors carry its types.
  await cp(join(root, "scripts", "package_consumer_types.ts"), join(app, "consumer_types.ts"));
  const typesConfig = join(app, "tsconfig.types.json");
  const config = JSON.parse(await readFile(join(app, "tsconfig.json"), "utf8"));
  await writeFile(typesConfig, JSON.stringify({ ...config, files: ["consumer_types.ts"] }));
  const without = await run(bin("tsc"), ["-p", typesConfig], { cwd: app, env: INSTALLED });
  assert.notEqual(without.code, 0, "the typed descriptors compiled without kubernetes-types");
  assert.match(
    without.stdout,
    /kubernetes_types\/mod\.d\.ts\(\d+,\d+\): error TS2307: Cannot find module 'kubernetes-types\/core\/v1\.js'/,
    "without kubernetes-types, tsc names the missing package",
  );
  console.log("  ok  without kubernetes-types: tsc names it as the missing package");
  await cp(
    join(root, "node_modules", "kubernetes-types"),
    join(app, "node_modules", "kubernetes-types"),
    { recursive: true, dereference: true },
  );
  await ok("tsc with kubernetes-types: typed descriptors (nodenext)", bin("tsc"), [
    "-p",
    typesConfig,
  ], app);
  console.log(`package check: ok (${seconds(started)} s)`);
} finally {
  if (keep) console.log(`kept ${tmp}`);
  else await rm(tmp, { recursive: true, force: true });
}
