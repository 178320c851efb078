#!/usr/bin/env node
// Keeps the docs honest: README.md and every guide in docs/ (docs/**/*.md; not the generated
// docs/api/). `npm test` runs it; it exits non-zero on any error below.
//
// 1. Code blocks. Every ```ts (or ```typescript) block is written as its own module into a
//    scratch folder inside the repository (so `@kinformer/kinformer` and its subpaths resolve
//    to this checkout) and all of them go through one `deno check` (with Deno's types). A block
//    must stand on its own: its imports, and `declare` lines for what it leaves to the reader.
//    The word after the language says more (any other word is an error, so a typo never turns
//    a block off):
//      ```ts          type-checked
//      ```ts run      type-checked, then run with `deno run -A` and must exit 0 within 60 s,
//                     against a fresh simulated cluster (the simulator's command,
//                     packages/simulator/src/adapters/cli/cli.ts --fixtures demo): KUBECONFIG
//                     names a kubeconfig for it, so `loadFromDefault()` (from
//                     `@kinformer/kinformer/config/deno`, `/node` or `/bun`) connects to it.
//                     It holds namespaces default and kube-system, pods default/web-1,
//                     default/web-2 (app=web) and default/api-1 (app=api), and configmap
//                     default/settings. A block may also build its own `SimulatedCluster`. It
//                     must end by itself: stop what it starts, break out of `events()`.
//      ```ts ignore   skipped; keep that rare, and say next to it why it cannot compile.
//    Errors are reported at the Markdown file's line. A block that runs on Deno only (it
//    imports a `/deno` subpath or calls a `Deno.` API outside a comment) says so in its first
//    line, a comment naming Deno (and, where there is one, what Bun and Node use instead).
// 2. Links. Every link (inline, reference, `<a href>`, `<img src>`) of those files that is not
//    to another site must resolve: the file or folder exists in the repository (relative to the
//    linking file; `/x` from the repository root; https://github.com/kinformer/kinformer/blob/main/x
//    too), and a `#anchor` exists in the target: a heading's anchor by GitHub's rules, or an
//    explicit `<a id>`, in Markdown; `#L10` or `#L10-L20` within the file's lines elsewhere.
// 3. API reference links (the convention, scripts/_api.mjs):
//    https://jsr.io/@kinformer/kinformer/doc/<subpath>/~/<Symbol> (root: .../doc/~/<Symbol>;
//    members: <Class>.prototype.<member>, <Class>.<static>, <Interface>.<member>) must name a
//    symbol `deno doc` finds exported from that subpath of deno.json's `exports`.
// 4. Guides and the API reference link each other (every docs/**/*.md but the contributor
//    docs in CONTRIBUTOR_DOCS is a guide):
//    - each inline code span of a guide that names an exported symbol (`createInformer`,
//      `new KubeClient(...)`, `SharedInformer.start`) needs at least one link to that symbol's
//      reference somewhere in the guide;
//    - the module doc of mod.ts lists every guide, and the module doc of each src/<layer>/mod.ts
//      lists every guide that links its symbols, in a "Guides" list of links
//      https://github.com/kinformer/kinformer/blob/main/docs/<guide>.md (`npm run docs` and JSR
//      render them, so the reference links each guide).
//    Until the guides are written these two are REPORTED, not failed: --strict-guides (or
//    STRICT_GUIDES below) makes them errors. A guide link in a module doc to a file that does
//    not exist is always an error.
//
//   node scripts/docs_check.mjs                   everything (npm test runs this)
//   node scripts/docs_check.mjs --strict-guides   the guide checks of 4. fail too
//   node scripts/docs_check.mjs --no-run          type-check ```ts run blocks without running
//   node scripts/docs_check.mjs FILE.md ...       only these files (links into others still
//                                                 resolve)
import { existsSync, realpathSync } from "node:fs";
import { mkdir, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { spawn } from "node:child_process";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { bin, root, run } from "./_run.mjs";
import {
  anchorsOf,
  codeSpans,
  headingText,
  linksOf,
  proseOf,
  typescriptBlocks,
} from "./_markdown.mjs";
import { API_DOC_URL, apiModules, apiUrl, memberProblem, REPO_BLOB } from "./_api.mjs";

/** Flip to true once the guides exist (issue 28): the checks of 4. then fail `npm test`. */
const STRICT_GUIDES = true;

/** Files in docs/ that are for contributors, not guides (4. does not apply to them). */
export const CONTRIBUTOR_DOCS = new Set([
  "docs/ARCHITECTURE.md",
  "docs/CONTRIBUTING-docs.md",
  "docs/releasing.md",
]);

/** How long a ```ts run block may take. */
const RUN_TIMEOUT_MS = 60_000;

/** Links to the repository's own files on GitHub, checked as relative links. */
const REPO_PREFIXES = [REPO_BLOB, REPO_BLOB.replace("/blob/", "/tree/")];

/** README.md and docs/**\/*.md (not the generated docs/api/), as repository paths. */
export async function markdownFiles() {
  // The simulator's own Markdown (its README, ARCHITECTURE.md, ...) is checked the same way.
  const simulator = join(root, "packages", "simulator");
  const files = [
    "README.md",
    ...(await readdir(simulator)).filter((n) => n.endsWith(".md")).map((n) =>
      `packages/simulator/${n}`
    ),
  ];
  if (existsSync(join(root, "docs"))) {
    for (const name of await readdir(join(root, "docs"), { recursive: true })) {
      const path = `docs/${name.split(sep).join("/")}`;
      if (path.endsWith(".md") && !path.startsWith("docs/api/")) files.push(path);
    }
  }
  return files.sort((a, b) => (a === "README.md" ? -1 : b === "README.md" ? 1 : a < b ? -1 : 1));
}

// ------------------------------------------------------------------------------ code blocks

/**
 * Type-checks every block (one `deno check`), then runs the ```ts run ones. Returns the number
 * of errors; prints them at their Markdown lines.
 */
async function checkBlocks(blocks, { runBlocks }) {
  const dir = join(root, `.docs-check-${process.pid}`);
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir);
  try {
    const checked = blocks.filter((b) => b.mode !== "ignore");
    const files = [];
    for (const [i, b] of checked.entries()) {
      const file = join(dir, `block_${i}.ts`);
      await writeFile(file, b.code);
      files.push(file);
    }
    // Block i, file line N is the Markdown file's line (fence line + N), the column moved right
    // by the fence's indentation.
    const where = (text) =>
      text.replace(/\S*block_(\d+)\.ts:(\d+):(\d+)/g, (_, i, line, column) => {
        const b = checked[Number(i)];
        return `${b.file}:${b.line + Number(line)}:${Number(column) + b.indent}`;
      });
    let errors = 0;
    if (files.length > 0) {
      const r = await run(bin("deno"), ["check", "--quiet", ...files]);
      if (r.out.trim() !== "") console.log(where(r.out).trimEnd());
      if (r.code !== 0) errors++;
    }
    if (!runBlocks) return errors;
    for (const [i, b] of checked.entries()) {
      if (b.mode !== "run") continue;
      const r = await runBlock(files[i]);
      if (r.code !== 0) {
        errors++;
        console.log(
          `${b.file}:${b.line}: this \`ts run\` block ${r.reason ?? `exited with ${r.code}`}` +
            (r.out.trim() === "" ? "" : `; its output:\n${where(r.out).trimEnd()}`),
        );
      }
    }
    return errors;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * Starts `cmd`: `{ child, exited }`, `exited` resolving (never rejecting) with `{ code, out,
 * reason }` once it has ended; it is killed after `timeoutMs`. `onLine` sees its stdout lines.
 */
function start(cmd, args, { env = {}, timeoutMs, stdin = "ignore", onLine = () => {} }) {
  const { FORCE_COLOR: _ignored, ...inherited } = process.env;
  const child = spawn(cmd, args, {
    cwd: root,
    env: { ...inherited, NO_COLOR: "1", DENO_NO_UPDATE_CHECK: "1", ...env },
    stdio: [stdin, "pipe", "pipe"],
  });
  let out = "";
  let partial = "";
  let reason;
  const timer = setTimeout(() => {
    reason = `did not exit within ${timeoutMs / 1000} s (killed)`;
    child.kill("SIGKILL");
  }, timeoutMs);
  child.stdout.setEncoding("utf8").on("data", (d) => {
    out += d;
    const lines = (partial + d).split("\n");
    partial = lines.pop();
    for (const line of lines) onLine(line);
  });
  child.stderr.setEncoding("utf8").on("data", (d) => (out += d));
  const exited = new Promise((done) => {
    child.once("error", (error) => {
      clearTimeout(timer);
      done({ code: 127, out, reason: `could not start: ${error.message}` });
    });
    child.once("close", (code, signal) => {
      clearTimeout(timer);
      done({ code: code ?? (signal ? 128 : 1), out, reason });
    });
  });
  return { child, exited };
}

/**
 * A ```ts run block against a fresh simulated cluster, started by the simulator's command
 * (`kinformer-sim --fixtures demo`, what a reader without a cluster runs) with a kubeconfig of
 * its own; resolves `{ code, out, reason }`.
 */
async function runBlock(file) {
  const kubeconfig = join(`${file.slice(0, -3)}.kube`, "config");
  let ready;
  const listening = new Promise((resolveReady) => (ready = resolveReady));
  const cluster = start(
    bin("deno"),
    [
      "run",
      "-A",
      join(root, "packages", "simulator", "src", "adapters", "cli", "cli.ts"),
      ...["--kubeconfig", kubeconfig, "--context", "simulated", "--fixtures", "demo"],
    ],
    {
      timeoutMs: RUN_TIMEOUT_MS * 2,
      onLine: (line) => line.startsWith("kinformer-sim serving ") && ready(true),
    },
  );
  cluster.exited.then(() => ready(false));
  try {
    if (!(await listening)) {
      const r = await cluster.exited;
      return { code: 1, out: r.out, reason: "could not start its simulated cluster" };
    }
    return await start(bin("deno"), ["run", "-A", "--no-check", file], {
      env: { KUBECONFIG: kubeconfig },
      timeoutMs: RUN_TIMEOUT_MS,
    }).exited;
  } finally {
    cluster.child.kill("SIGTERM"); // it stops cleanly and deletes the kubeconfig it wrote
    await cluster.exited;
  }
}

// ------------------------------------------------------------------------------------ links

/**
 * Checks every link of `docs` (Map path -> { text, links }); returns `{ errors, counts,
 * apiLinks }`, `apiLinks` being, per file, the valid reference links as `{ subpath, name }`.
 */
async function checkLinks(docs, modules) {
  const errors = [];
  const counts = { local: 0, api: 0, external: 0 };
  const apiLinks = new Map();
  const anchorCache = new Map();
  const anchorsOfFile = async (path) => {
    if (!anchorCache.has(path)) {
      const text = docs.get(path)?.text ?? await readFile(join(root, path), "utf8");
      anchorCache.set(path, new Set(anchorsOf(text, path).map((a) => a.anchor)));
    }
    return anchorCache.get(path);
  };
  const bySubpath = new Map(modules.map((m) => [m.subpath, m]));
  for (const [file, { links }] of docs) {
    const found = [];
    apiLinks.set(file, found);
    for (const { target, line, kind } of links) {
      const at = `${file}:${line}`;
      if (kind === "reference") {
        errors.push(`${at}: [...][${target}] has no link definition ([${target}]: url)`);
        continue;
      }
      if (target.trim() === "") {
        errors.push(`${at}: empty link`);
        continue;
      }
      if (target === API_DOC_URL || target.startsWith(`${API_DOC_URL}/`)) {
        counts.api++;
        const problem = apiLinkProblem(target, bySubpath, found);
        if (problem !== undefined) errors.push(`${at}: ${target}: ${problem}`);
        continue;
      }
      const repo = REPO_PREFIXES.find((p) => target.startsWith(p));
      if (repo === undefined && (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith("//"))) {
        counts.external++;
        continue;
      }
      counts.local++;
      const problem = await localLinkProblem(
        file,
        repo === undefined ? target : `/${target.slice(repo.length)}`,
        anchorsOfFile,
      );
      if (problem !== undefined) errors.push(`${at}: ${target}: ${problem}`);
    }
  }
  return { errors, counts, apiLinks };
}

/** Why a repository link from `file` does not resolve, or undefined. */
async function localLinkProblem(file, target, anchorsOfFile) {
  const hash = target.indexOf("#");
  const pathPart = (hash < 0 ? target : target.slice(0, hash)).replace(/\?.*$/, "");
  const anchor = hash < 0 ? undefined : decodeURIComponent(target.slice(hash + 1));
  let path;
  try {
    path = decodeURIComponent(pathPart);
  } catch {
    return "not a valid URL path";
  }
  const absolute = path === ""
    ? join(root, file)
    : path.startsWith("/")
    ? join(root, path)
    : resolve(root, dirname(file), path);
  const rel = relative(root, absolute).split(sep).join("/");
  if (rel.startsWith("..")) return "points outside the repository";
  if (rel === "docs/api" || rel.startsWith("docs/api/")) {
    return `docs/api/ is generated by \`npm run docs\` and not committed: link the reference at ${API_DOC_URL}`;
  }
  let info;
  try {
    info = await stat(absolute);
  } catch {
    return `${rel} does not exist`;
  }
  if (anchor === undefined || anchor === "") return undefined; // "#" alone: the top
  if (info.isDirectory()) return `${rel} is a folder: it has no #${anchor}`;
  if (rel.endsWith(".md")) {
    const anchors = await anchorsOfFile(rel);
    return anchors.has(anchor) ? undefined : `${rel} has no heading or anchor #${anchor}`;
  }
  const lines = /^L(\d+)(?:C\d+)?(?:-L(\d+)(?:C\d+)?)?$/.exec(anchor);
  if (lines === null) return `#${anchor}: a link into ${rel} can only name lines (#L10, #L10-L20)`;
  const count = (await readFile(absolute, "utf8")).split("\n").length;
  const last = Number(lines[2] ?? lines[1]);
  return last > count || Number(lines[1]) < 1
    ? `${rel} has ${count} lines, not ${last}`
    : undefined;
}

/** Why an API reference link does not name an exported symbol, or undefined (then noted). */
function apiLinkProblem(target, bySubpath, found) {
  const path = target.slice(API_DOC_URL.length).replace(/[?#].*$/, "").replace(/^\//, "");
  if (path === "") return undefined;
  const tilde = path === "~" || path.startsWith("~/") ? 0 : path.indexOf("/~/");
  const subpath = tilde < 0 ? path.replace(/\/$/, "") : path.slice(0, tilde);
  const module = bySubpath.get(subpath);
  if (module === undefined) {
    const known = [...bySubpath.keys()].filter(Boolean).join(", ");
    return `no entry point "${subpath}" (deno.json exports: the root, ${known})`;
  }
  if (tilde < 0) return undefined;
  const symbolPath = path.slice(tilde === 0 ? 2 : tilde + 3);
  const [name, ...rest] = decodeURIComponent(symbolPath).split(".");
  const declarations = module.symbols.get(name);
  const from = subpath === "" ? "the root module" : `"${subpath}"`;
  if (declarations === undefined) {
    const elsewhere = [...bySubpath.values()].filter((m) => m.symbols.has(name))
      .map((m) => m.subpath === "" ? "the root" : m.subpath);
    return `${from} does not export "${name}"` +
      (elsewhere.length > 0 ? ` (exported from ${elsewhere.join(", ")})` : "");
  }
  const problem = memberProblem(name, rest, declarations);
  if (problem === undefined) found.push({ subpath, name });
  return problem;
}

// ----------------------------------------------------------------------------------- guides

/**
 * The exported symbol an inline code span names, or undefined: `Name`, `Name<T>`, `Name(...)`,
 * `new Name(...)`, `Name.member...`, where Name is exported by some entry point.
 */
export function symbolOfCodeSpan(code, exported) {
  const m = /^(?:new\s+)?([A-Za-z_$][\w$]*)(?:<[^>]*>)?(?:\(.*\)|\.[\w$.]+(?:\(.*\))?)?$/.exec(
    code.trim(),
  );
  return m !== null && exported.has(m[1]) ? m[1] : undefined;
}

/**
 * The checks of 4.: returns `{ problems, errors }`, `problems` reportable (errors with
 * --strict-guides), `errors` always errors (a module doc linking a guide that does not exist).
 */
export function checkGuides({ docs, guides, apiLinks, modules }) {
  const problems = [];
  const errors = [];
  const exported = new Map();
  for (const m of modules) {
    for (const name of m.symbols.keys()) {
      // Suggest the layer's own subpath over the root, which re-exports it.
      if (!exported.has(name) || exported.get(name) === "") exported.set(name, m.subpath);
    }
  }
  for (const guide of guides) {
    const linked = new Set((apiLinks.get(guide) ?? []).map((l) => l.name));
    const reported = new Set();
    for (const { line, code } of codeSpans(proseOf(docs.get(guide).text, guide))) {
      const name = symbolOfCodeSpan(code, exported);
      if (name === undefined || linked.has(name) || reported.has(name)) continue;
      reported.add(name);
      problems.push(
        `${guide}:${line}: \`${code}\` names ${name} but the guide never links its reference: ` +
          `[\`${name}\`](${apiUrl(exported.get(name), name)})`,
      );
    }
  }
  // Module docs: guide links must exist; the root lists every guide, a layer's mod.ts those
  // that link its symbols.
  const guideUrl = (guide) => `${REPO_BLOB}${guide}`;
  for (const m of modules) {
    for (
      const match of m.moduleDoc.matchAll(
        /https:\/\/github\.com\/kinformer\/kinformer\/blob\/main\/(docs\/[^\s)>"']+)/g,
      )
    ) {
      const path = match[1].replace(/#.*$/, "");
      if (!existsSync(join(root, path))) {
        errors.push(`${m.file}: its module doc links ${path}, which does not exist`);
      }
    }
  }
  for (const guide of guides) {
    const wanted = new Set([""]);
    for (const { subpath } of apiLinks.get(guide) ?? []) wanted.add(subpath);
    for (const m of modules) {
      if (!wanted.has(m.subpath) || !m.file.endsWith("mod.ts")) continue;
      if (m.moduleDoc.includes(guideUrl(guide))) continue;
      const why = m.subpath === "" ? "the root lists every guide" : "the guide links its symbols";
      const title = guideTitle(docs.get(guide).text) ?? guide;
      problems.push(
        `${m.file}: the module doc's Guides list lacks this guide (${why}): ` +
          `- [${title}](${guideUrl(guide)})`,
      );
    }
  }
  return { problems, errors };
}

/**
 * Why a TypeScript block fails the "Deno-only blocks say so" rule, or undefined: a block that
 * imports `@kinformer/kinformer/<module>/deno` or calls a `Deno.` API (outside `//` comments)
 * must open with a `//` comment naming Deno.
 */
export function denoOnlyProblem(code) {
  const lines = code.split("\n");
  const uncommented = lines.map((l) => l.replace(/\/\/.*$/, "")).join("\n");
  const denoOnly = /["']@kinformer\/kinformer\/[a-z-]+\/deno["']/.test(uncommented) ||
    /\bDeno\.[a-zA-Z]/.test(uncommented);
  if (!denoOnly) return undefined;
  const first = lines.find((l) => l.trim() !== "")?.trim() ?? "";
  if (/^\/\/.*\bDeno\b/.test(first)) return undefined;
  return "this block runs on Deno only (a /deno subpath or a Deno API): say so in a first-line " +
    'comment, e.g. "// Deno (Bun, Node: /config/bun, /config/node)"';
}

/** A guide's title: the text of its first `#` heading. */
function guideTitle(markdown) {
  const m = /^# +(.+?)\s*#*\s*$/m.exec(proseOf(markdown));
  return m === null ? undefined : headingText(m[1]);
}

// ------------------------------------------------------------------------------------- main

async function main(argv) {
  const strict = STRICT_GUIDES || argv.includes("--strict-guides");
  const runBlocks = !argv.includes("--no-run");
  const given = argv.filter((a) => !a.startsWith("--"));
  const files = given.length > 0
    ? given.map((f) => relative(root, resolve(f)))
    : await markdownFiles();
  const docs = new Map();
  const blocks = [];
  const errors = [];
  for (const file of files) {
    const text = await readFile(join(root, file), "utf8");
    try {
      for (const b of typescriptBlocks(text, file)) {
        blocks.push({ ...b, file });
        const problem = denoOnlyProblem(b.code);
        if (problem !== undefined) errors.push(`${file}:${b.line}: ${problem}`);
      }
      docs.set(file, { text, links: linksOf(text, file) });
    } catch (error) {
      errors.push(error.message);
    }
  }
  const modules = await apiModules();
  const links = await checkLinks(docs, modules);
  errors.push(...links.errors);
  for (const e of errors) console.log(e);
  const blockErrors = await checkBlocks(blocks, { runBlocks });

  const guides = [...docs.keys()].filter((f) => f.startsWith("docs/") && !CONTRIBUTOR_DOCS.has(f));
  const guideCheck = checkGuides({ docs, guides, apiLinks: links.apiLinks, modules });
  for (const e of guideCheck.errors) console.log(e);
  if (guideCheck.problems.length > 0) {
    console.log(
      strict
        ? guideCheck.problems.join("\n")
        : `guide links, reported only until the guides exist (--strict-guides fails on them):\n  ${
          guideCheck.problems.join("\n  ")
        }`,
    );
  }

  const count = (mode) => blocks.filter((b) => b.mode === mode).length;
  const typed = blocks.length - count("ignore");
  const failed = errors.length + blockErrors + guideCheck.errors.length +
    (strict ? guideCheck.problems.length : 0);
  console.log(
    `docs: ${docs.size} files (${guides.length} guides); ${typed} TypeScript blocks type-checked` +
      ` (${runBlocks ? `${count("run")} run` : `${count("run")} not run: --no-run`}` +
      `${count("ignore") > 0 ? `, ${count("ignore")} marked ignore` : ""}); ` +
      `${links.counts.local} repository links and ${links.counts.api} API reference links ` +
      `checked (${links.counts.external} to other sites, not checked); ` +
      `${guideCheck.problems.length} guide-link problems${strict ? "" : " (reported only)"}; ` +
      `${failed === 0 ? "ok" : `${failed} error(s)`}`,
  );
  return failed === 0 ? 0 : 1;
}

// Run as a script; imported (tests/scripts/docs_check_test.ts), it only exports. Real paths:
// through a symlinked checkout, argv[1] and import.meta.url can name the file differently.
const script = process.argv[1];
if (script !== undefined && realpathSync(script) === realpathSync(fileURLToPath(import.meta.url))) {
  process.exitCode = await main(process.argv.slice(2));
}
