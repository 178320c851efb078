import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";

const runtime = "Deno" in globalThis ? "Deno" : "Bun" in globalThis ? "Bun" : "Node";

/** The repository root: next to this file, or the working directory for a bundled test. */
const ROOT: string = (() => {
  const candidates = [process.cwd()];
  try {
    candidates.unshift(fileURLToPath(new URL("..", import.meta.url)));
  } catch {
    // Not a file URL (bundled); the working directory remains.
  }
  return candidates.find((dir) => existsSync(join(dir, "scripts", "build.mjs"))) ?? process.cwd();
})();

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a command to completion, capturing its output. */
function run(cmd: string, args: string[], cwd: string): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, {
      cwd,
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, npm_config_update_notifier: "false", NO_COLOR: "1" },
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8");
    child.stderr.setEncoding("utf8");
    child.stdout.on("data", (chunk: string) => (stdout += chunk));
    child.stderr.on("data", (chunk: string) => (stderr += chunk));
    child.once("error", reject);
    child.once("close", (code) => resolve({ code, stdout, stderr }));
  });
}

function ok(result: Run, what: string): Run {
  assert.equal(result.code, 0, `${what} failed:\n${result.stdout}\n${result.stderr}`);
  return result;
}

/** What the scratch project's script prints. */
interface SmokeReport {
  rootHas: Record<string, string>;
  listed: number;
  informerKeys: string[];
  proxyServer: string;
  kubeconfigServer: string;
  nodeLoaderError: string;
  /** Exports of each deno.json subpath, imported from the installed package. */
  subpaths: Record<string, number>;
}

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
      assert.ok(segments.every((s) => /^[a-z]+$/.test(s)), `${subpath}: lowercase words only`);
      assert.ok(segments.length <= 2, `${subpath}: at most <module>/<runtime>`);
      if (segments.length === 2) assert.ok(runtimes.has(segments[1]!), `${subpath}: not a runtime`);
    }
  });
});

const SMOKE = `
import * as kinformer from "@kinformer/kinformer";
import { ManualClock, SimulatedCluster } from "@kinformer/kinformer/testing";
import { kubectlProxy, parseKubeconfig, resolveKubeconfig } from "@kinformer/kinformer/config";
import { loadKubeconfig } from "@kinformer/kinformer/config/node";
import { KubeClient as ClientFromSubpath } from "@kinformer/kinformer/client";

const { KubeClient, createInformer, pods } = kinformer;
const rootHas = {};
for (const name of ["KubeClient", "KubeApiError", "createInformer", "SharedInformer", "pods", "WorkQueue"]) {
  rootHas[name] = typeof kinformer[name];
}

const cluster = new SimulatedCluster({ clock: new ManualClock() });
cluster.create(pods, { metadata: { namespace: "default", name: "web-1" } });
cluster.create(pods, { metadata: { namespace: "default", name: "web-2" } });
const client = new KubeClient({ server: "http://sim.local", fetch: cluster.fetch });
const listed = (await client.list(pods, { namespace: "default" })).items.length;

const informer = createInformer(client, { resource: pods, namespace: "default" });
informer.start();
await informer.waitForSync();
const informerKeys = informer.store.list().map((p) => p.metadata.namespace + "/" + p.metadata.name).sort();
await informer.stop();
cluster.close();

const proxyServer = new ClientFromSubpath(kubectlProxy()).server;
const kubeconfigServer = resolveKubeconfig(parseKubeconfig(
  "clusters:\\n- name: c\\n  cluster:\\n    server: https://10.0.0.1\\ncontexts:\\n- name: x\\n  context:\\n    cluster: c\\ncurrent-context: x\\n",
)).server;
let nodeLoaderError = "";
try {
  await loadKubeconfig({ path: "/nonexistent/kubeconfig" });
} catch (error) {
  nodeLoaderError = error.name + ":" + error.code;
}
const subpaths = {};
for (const subpath of JSON.parse(process.argv[2])) {
  const mod = await import(subpath === "." ? "@kinformer/kinformer" : "@kinformer/kinformer" + subpath.slice(1));
  subpaths[subpath] = Object.keys(mod).length;
}
console.log(JSON.stringify({ rootHas, listed, informerKeys, proxyServer, kubeconfigServer, nodeLoaderError, subpaths }));
`;

const CONSUMER_TS = `
import { KubeClient, pods, createInformer, type KubeObject } from "@kinformer/kinformer";
import { SimulatedCluster } from "@kinformer/kinformer/testing";
import { kubectlProxy, type ClusterClientOptions } from "@kinformer/kinformer/config";
import { loadFromDefault } from "@kinformer/kinformer/config/node";
import { denoHost } from "@kinformer/kinformer/config/deno";
import { loadKubeconfig as loadOnBun } from "@kinformer/kinformer/config/bun";

export const runtimeEntries: unknown[] = [denoHost.runtime, loadOnBun];
const options: ClusterClientOptions = kubectlProxy();
const client: KubeClient = new KubeClient(options);
const cluster = new SimulatedCluster();
const informer = createInformer<KubeObject>(new KubeClient({ server: "http://sim", fetch: cluster.fetch }), { resource: pods });
export const pending: Promise<ClusterClientOptions> = loadFromDefault();
export { client, informer };
`;

describe("npm package", () => {
  const skip = runtime === "Node"
    ? undefined
    : `the npm artifact is runtime-independent; it is packed and installed under Node only (this is ${runtime})`;
  if (skip !== undefined) console.log(`npm_package_test: skipped: ${skip}`);

  test("builds, packs, installs offline into a scratch project and works from a plain .mjs", {
    skip,
    timeout: 60_000,
  }, async () => {
    const started = Date.now();
    const tmp = await mkdtemp(join(tmpdir(), "kinformer-npm-"));
    try {
      const stage = join(tmp, "package");
      await mkdir(stage);
      ok(
        await run(process.execPath, [
          join(ROOT, "scripts", "build.mjs"),
          "--outdir",
          join(stage, "dist"),
        ], ROOT),
        "scripts/build.mjs",
      );

      // The root package.json as it is published (its exports are checked against deno.json above).
      const rootPackage = JSON.parse(await readFile(join(ROOT, "package.json"), "utf8"));
      const { devDependencies: _dev, scripts: _scripts, ...published } = rootPackage;
      await writeFile(join(stage, "package.json"), JSON.stringify(published, null, 2));
      for (const extra of ["README.md", "LICENSE"]) {
        if (existsSync(join(ROOT, extra))) {
          await writeFile(join(stage, extra), await readFile(join(ROOT, extra)));
        }
      }

      const packed = ok(
        await run("npm", ["pack", "--json", "--ignore-scripts", "--pack-destination", tmp], stage),
        "npm pack",
      );
      const [info] = JSON.parse(packed.stdout) as { filename: string; files: { path: string }[] }[];
      assert.ok(info !== undefined);
      const files = info.files.map((f) => f.path);
      for (
        const expected of [
          "package.json",
          "dist/mod.js",
          "dist/types/mod.d.ts",
          "dist/kinformer.min.js",
          "dist/config/node.js",
        ]
      ) {
        assert.ok(files.includes(expected), `${expected} is not in the tarball`);
      }
      assert.ok(
        !files.some((f) => f.startsWith("src/") || f.startsWith("tests/")),
        "sources leaked",
      );

      const app = join(tmp, "app");
      await mkdir(app);
      await writeFile(
        join(app, "package.json"),
        JSON.stringify({ name: "scratch", private: true, type: "module" }),
      );
      ok(
        await run("npm", [
          "install",
          join(tmp, info.filename),
          "--offline",
          "--no-audit",
          "--no-fund",
          "--ignore-scripts",
        ], app),
        "npm install",
      );

      await writeFile(join(app, "smoke.mjs"), SMOKE);
      const subpaths = Object.keys(await denoExports());
      const smoke = ok(
        await run(process.execPath, ["smoke.mjs", JSON.stringify(subpaths)], app),
        "node smoke.mjs",
      );
      const report = JSON.parse(smoke.stdout.trim().split("\n").at(-1) ?? "{}") as SmokeReport;
      assert.deepEqual(report.rootHas, {
        KubeClient: "function",
        KubeApiError: "function",
        createInformer: "function",
        SharedInformer: "function",
        pods: "object",
        WorkQueue: "function",
      });
      assert.equal(report.listed, 2);
      assert.deepEqual(report.informerKeys, ["default/web-1", "default/web-2"]);
      assert.equal(report.proxyServer, "http://127.0.0.1:8001");
      assert.equal(report.kubeconfigServer, "https://10.0.0.1");
      assert.equal(report.nodeLoaderError, "ClusterConfigError:FileNotFound");
      assert.deepEqual(Object.keys(report.subpaths), subpaths, "every deno.json subpath imports");
      for (const [subpath, count] of Object.entries(report.subpaths)) {
        assert.ok(count > 0, `${subpath} exports nothing`);
      }

      // The declarations resolve and type-check for a TypeScript consumer (nodenext).
      const tsc = join(
        ROOT,
        "node_modules",
        ".bin",
        process.platform === "win32" ? "tsc.cmd" : "tsc",
      );
      if (existsSync(tsc)) {
        await writeFile(join(app, "consumer.ts"), CONSUMER_TS);
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
        ok(
          await run(tsc, ["-p", join(app, "tsconfig.json")], app),
          "tsc on a consumer of the package",
        );
      }
      const seconds = (Date.now() - started) / 1000;
      assert.ok(seconds < 30, `the package round trip took ${seconds} s (budget 30 s)`);
    } finally {
      await rm(tmp, { recursive: true, force: true });
    }
  });
});
