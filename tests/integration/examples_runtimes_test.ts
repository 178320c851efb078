// The per-runtime examples, each run by its own runtime as a child process: examples/deno.ts
// with Deno, examples/bun.ts with Bun, examples/node.mjs with Node from the built npm package
// (plain JavaScript, as a Node user without TypeScript runs it). Each runs once against the
// simulated cluster it starts itself (random churn), and once with --server against a cluster
// this test serves and changes at known points, so its output is known line by line.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { copyFile, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { configmaps } from "../../src/client/resource.ts";
import { runtime, serveCluster } from "../_serve.ts";
import {
  bin,
  childEnv,
  type ChildHandle,
  missingBinary,
  ROOT,
  runProcess,
  SOURCE_CONDITION,
  startProcess,
} from "../_runtime_process.ts";

/** The node binary: the one running the tests on Node, else `node` from PATH. */
const NODE = runtime === "node" ? process.execPath : "node";

interface Example {
  name: string;
  /** Why it cannot run here, if it cannot. */
  skip: string | undefined;
  /** Banner the example prints first. */
  banner: RegExp;
  /** Starts the example with `args`. */
  start(args: string[]): Promise<ChildHandle>;
}

/**
 * Builds the npm packages (scripts/build.mjs) into `dir/node_modules/@kinformer/kinformer` and
 * `dir/node_modules/@kinformer/simulator` (the library's testing entry imports the simulator),
 * each with the package.json fields the build prints, and copies examples/node.mjs next to them:
 * the layout of an application that ran `npm install @kinformer/kinformer`.
 */
async function stageNodeApp(dir: string): Promise<void> {
  const build = join(ROOT, "scripts", "build.mjs");
  for (
    const [name, args, version] of [
      ["kinformer", [], "0.0.0-test"],
      ["simulator", ["--package", join("packages", "simulator")], "0.0.0-test"],
    ] as const
  ) {
    const pkg = join(dir, "node_modules", "@kinformer", name);
    await mkdir(pkg, { recursive: true });
    const built = await runProcess(NODE, [build, ...args, "--outdir", join(pkg, "dist")], {
      killAfterMs: 120_000,
    });
    assert.equal(built.code, 0, `scripts/build.mjs ${args.join(" ")} failed\n${built.output}`);
    const fields = await runProcess(NODE, [build, ...args, "--print-package-fields"]);
    assert.equal(fields.code, 0, fields.output);
    const manifest = {
      name: `@kinformer/${name}`,
      version,
      type: "module",
      ...JSON.parse(fields.stdout) as Record<string, unknown>,
    };
    await writeFile(join(pkg, "package.json"), JSON.stringify(manifest, null, 2));
  }
  await writeFile(
    join(dir, "package.json"),
    JSON.stringify({ name: "app", private: true, type: "module" }),
  );
  await copyFile(join(ROOT, "examples", "node.mjs"), join(dir, "node.mjs"));
}

/**
 * The application examples/node.mjs runs in, staged once for the whole file (building the
 * package takes seconds, more on a loaded machine: no test's time limit should include it), by
 * the `before` hook below; removed by the `after` hook.
 */
let nodeApp: string | undefined;

/**
 * The environment of the staged application: the package as installed, without the resolution
 * hook the tests run under (NODE_OPTIONS from scripts/_run.mjs WORKSPACE_ENV), which would run
 * the sources instead of the build.
 */
const INSTALLED_ENV = childEnv({ NODE_OPTIONS: "" });

const EXAMPLES: Example[] = [
  {
    name: "examples/deno.ts on Deno",
    skip: missingBinary(bin("deno"), "deno"),
    banner: /^kinformer on Deno \d+\.\d+\.\d+: /,
    start: (args) =>
      Promise.resolve(startProcess(bin("deno"), [
        "run",
        "--allow-net=127.0.0.1",
        "--no-lock",
        join(ROOT, "examples", "deno.ts"),
        ...args,
      ])),
  },
  {
    name: "examples/bun.ts on Bun",
    skip: missingBinary(bin("bun"), "bun"),
    banner: /^kinformer on Bun \d+\.\d+\.\d+: /,
    start: (args) =>
      Promise.resolve(
        startProcess(bin("bun"), [SOURCE_CONDITION, join(ROOT, "examples", "bun.ts"), ...args]),
      ),
  },
  {
    name: "examples/node.mjs on Node, from the built npm package",
    skip: undefined,
    banner: /^kinformer on Node v\d+\.\d+\.\d+: /,
    start: (args) => {
      assert.ok(nodeApp !== undefined, "the npm package was not staged (see the before hook)");
      return Promise.resolve(
        startProcess(NODE, ["node.mjs", ...args], { cwd: nodeApp, env: INSTALLED_ENV }),
      );
    },
  },
];

const CHANGE = /^(ADD|UPDATE|DELETE) \S+$/;

describe(`runtime examples (test process: ${runtime})`, () => {
  before(async () => {
    nodeApp = await mkdtemp(join(tmpdir(), "kinformer-node-app-"));
    await stageNodeApp(nodeApp);
  }, { timeout: 120_000 });
  after(async () => {
    if (nodeApp !== undefined) await rm(nodeApp, { recursive: true, force: true });
  });

  for (const example of EXAMPLES) {
    if (example.skip !== undefined) {
      console.log(`examples_runtimes_test: ${example.name} skipped: ${example.skip}`);
    }

    test(
      `${example.name}: syncs from its own simulated cluster and prints N changes, then exits 0`,
      {
        skip: example.skip,
        timeout: 20_000,
      },
      async () => {
        {
          const child = await example.start(["--events", "5", "--seconds", "15", "--rate", "50"]);
          try {
            const exit = await child.exited;
            assert.deepEqual(exit, { code: 0, signal: null }, child.output);
            const lines = child.stdout.trimEnd().split("\n");
            assert.match(lines[0] ?? "", example.banner, child.output);
            assert.match(lines[0] ?? "", /simulated cluster at http:\/\/\S+$/);
            const synced = lines.indexOf("SYNCED 3 objects");
            assert.ok(synced > 0, `no "SYNCED 3 objects" line\n${child.output}`);
            assert.deepEqual(lines.slice(1, synced), [
              "ADD default/cm-000000 (initial)",
              "ADD default/cm-000001 (initial)",
              "ADD default/cm-000002 (initial)",
            ]);
            const changes = lines.slice(synced + 1, -1);
            assert.equal(changes.length, 5, child.output);
            for (const line of changes) assert.match(line, CHANGE);
            assert.equal(lines.at(-1), "done: 5 changes after the sync");
          } finally {
            await child.kill();
          }
        }
      },
    );

    test(
      `${example.name}: with --server, follows an API server over HTTP and prints exactly its changes`,
      {
        skip: example.skip,
        timeout: 20_000,
      },
      async () => {
        {
          const { cluster, server, close } = await serveCluster({ autoCreateNamespaces: true });
          let child: ChildHandle | undefined;
          try {
            cluster.create(configmaps, { metadata: { namespace: "default", name: "a" } });
            cluster.create(configmaps, { metadata: { namespace: "default", name: "b" } });
            cluster.create(configmaps, { metadata: { namespace: "other", name: "elsewhere" } });
            child = await example.start(
              [
                "--server",
                server.url,
                "--namespace",
                "default",
                "--events",
                "3",
                "--seconds",
                "15",
              ],
            );
            await child.waitFor(/^SYNCED /m);
            cluster.create(configmaps, { metadata: { namespace: "default", name: "c" } });
            cluster.patch(configmaps, { namespace: "default", name: "a" }, { data: { v: "2" } });
            cluster.create(configmaps, { metadata: { namespace: "other", name: "not-followed" } });
            cluster.delete(configmaps, { namespace: "default", name: "b" });
            const exit = await child.exited;
            assert.deepEqual(exit, { code: 0, signal: null }, child.output);
            const lines = child.stdout.trimEnd().split("\n");
            const banner = lines[0] ?? "";
            assert.match(banner, example.banner);
            assert.ok(banner.endsWith(`API server at ${server.url}`), banner);
            assert.deepEqual(lines.slice(1), [
              "ADD default/a (initial)",
              "ADD default/b (initial)",
              "SYNCED 2 objects",
              "ADD default/c",
              "UPDATE default/a",
              "DELETE default/b",
              "done: 3 changes after the sync",
            ], child.output);
            assert.deepEqual(cluster.requests.slice(0, 2).map((r) => `${r.verb} ${r.namespace}`), [
              "list default",
              "watch default",
            ]);
          } finally {
            await child?.kill();
            await close();
          }
        }
      },
    );
  }
});
