// The per-runtime examples, each run by its own runtime as a child process: examples/deno.ts
// with Deno, examples/bun.ts with Bun, examples/node.mjs with Node from the built npm package
// (plain JavaScript, as a Node user without TypeScript runs it). Each runs once against the
// simulated cluster it starts itself (random churn), and once with --server against a cluster
// this test serves and changes at known points, so its output is known line by line.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { copyFile, mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import process from "node:process";
import { configmaps } from "../../src/client/resource.ts";
import { runtime, serveCluster } from "../_serve.ts";
import {
  bin,
  type ChildHandle,
  missingBinary,
  ROOT,
  runProcess,
  SOURCE_CONDITION,
  startProcess,
  withTempDir,
} from "../_runtime_process.ts";

/** The node binary: the one running the tests on Node, else `node` from PATH. */
const NODE = runtime === "node" ? process.execPath : "node";

interface Example {
  name: string;
  /** Why it cannot run here, if it cannot. */
  skip: string | undefined;
  /** Banner the example prints first. */
  banner: RegExp;
  /** Starts the example with `args` (in `dir` when it needs a staged package). */
  start(args: string[], dir: string): Promise<ChildHandle>;
}

/**
 * Builds the npm package (scripts/build.mjs) into `dir/node_modules/@kinformer/kinformer`,
 * with the package.json fields the build prints, and copies examples/node.mjs next to it: the
 * layout of an application that ran `npm install @kinformer/kinformer`.
 */
async function stageNodeApp(dir: string): Promise<void> {
  const pkg = join(dir, "node_modules", "@kinformer", "kinformer");
  await mkdir(pkg, { recursive: true });
  const build = join(ROOT, "scripts", "build.mjs");
  const built = await runProcess(NODE, [build, "--outdir", join(pkg, "dist")], {
    killAfterMs: 60_000,
  });
  assert.equal(built.code, 0, `scripts/build.mjs failed\n${built.output}`);
  const fields = await runProcess(NODE, [build, "--print-package-fields"]);
  assert.equal(fields.code, 0, fields.output);
  const manifest = {
    name: "@kinformer/kinformer",
    version: "0.0.0-test",
    type: "module",
    ...JSON.parse(fields.stdout) as Record<string, unknown>,
  };
  await writeFile(join(pkg, "package.json"), JSON.stringify(manifest, null, 2));
  await writeFile(
    join(dir, "package.json"),
    JSON.stringify({ name: "app", private: true, type: "module" }),
  );
  await copyFile(join(ROOT, "examples", "node.mjs"), join(dir, "node.mjs"));
}

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
    start: async (args, dir) => {
      await stageNodeApp(dir);
      return startProcess(NODE, ["node.mjs", ...args], { cwd: dir });
    },
  },
];

const CHANGE = /^(ADD|UPDATE|DELETE) \S+$/;

describe(`runtime examples (test process: ${runtime})`, () => {
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
        await withTempDir("example", async (dir) => {
          const child = await example.start(
            ["--events", "5", "--seconds", "15", "--rate", "50"],
            dir,
          );
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
        });
      },
    );

    test(
      `${example.name}: with --server, follows an API server over HTTP and prints exactly its changes`,
      {
        skip: example.skip,
        timeout: 20_000,
      },
      async () => {
        await withTempDir("example-server", async (dir) => {
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
              dir,
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
        });
      },
    );
  }
});
