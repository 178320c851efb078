// serial: sets process environment variables, which Deno shares between the modules it runs in
// parallel, so scripts/test.mjs runs this file on its own there.
// What runs when, for exec credential plugins (SECURITY.md "Exec credential plugins"): nothing
// at parse, resolve, merge or load; the first request that needs a credential runs the plugin
// once; its arguments reach it as written, through no shell; it inherits this process's
// environment, the kubeconfig's `env` entries winning. The first part runs with a fake host
// (portable); the rest runs tests/fixtures/exec/fake-plugin.sh with this runtime's loader.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { KubeClient, pods } from "../../src/client/mod.ts";
import {
  type ConfigHost,
  createConfigLoader,
  mergeKubeconfigs,
  parseKubeconfig,
  resolveKubeconfig,
  type RunCommand,
} from "../../src/config/mod.ts";
import { createInformer } from "../../src/cache/mod.ts";
import { ManualClock, SimulatedCluster } from "../../src/testing/mod.ts";
import { FIXTURES, runtime, runtimeHost, tempDir } from "../fixtures/kubeconfig/helpers.ts";
import { withEnv } from "../config/_proxies.ts";
import { kubeconfigJson } from "./_canary.ts";

const V1 = "client.authentication.k8s.io/v1";
const PLUGIN = join(FIXTURES, "..", "exec", "fake-plugin.sh");

/** A host whose files are in memory and whose plugin runs are counted. */
function countingHost(
  files: Record<string, string>,
  failing = false,
): ConfigHost & { runs: number } {
  const run: RunCommand = () => {
    host.runs++;
    if (failing) return Promise.resolve({ exitCode: 1, stdout: "", stderr: "login failed" });
    return Promise.resolve({
      exitCode: 0,
      stdout: JSON.stringify({ apiVersion: V1, kind: "ExecCredential", status: { token: "t" } }),
    });
  };
  const host = {
    runtime: "TestRuntime",
    runs: 0,
    readFile: (path: string) =>
      files[path] === undefined
        ? Promise.reject(Object.assign(new Error(`ENOENT ${path}`), { code: "ENOENT" }))
        : Promise.resolve(files[path]!),
    isNotFound: (error: unknown) => (error as { code?: string }).code === "ENOENT",
    env: (name: string) => (name === "KUBECONFIG" ? "/k" : undefined),
    pathListSeparator: ":",
    runCommand: run,
  };
  return host;
}

describe("exec plugins: nothing runs until a request needs a credential", () => {
  test("parsing, resolving, merging and loading run no plugin; the first request runs it once", async () => {
    const text = kubeconfigJson({ server: "https://127.0.0.1:6443" }, {
      exec: { apiVersion: V1, command: "plugin", interactiveMode: "Never" },
    });
    const host = countingHost({ "/k": text });
    const config = parseKubeconfig(text);
    resolveKubeconfig(mergeKubeconfigs([{ config, path: "/k" }]));
    const loader = createConfigLoader(host);
    const loaded = await loader.loadKubeconfig({ path: "/k" });
    const byDefault = await loader.loadFromDefault();
    const cluster = new SimulatedCluster();
    try {
      const client = new KubeClient({ ...loaded, fetch: cluster.fetch });
      assert.equal(host.runs, 0, "nothing ran at load, nor when the client was built");
      await client.list(pods);
      assert.equal(host.runs, 1, "the first request ran it");
      await client.list(pods);
      await new KubeClient({ ...byDefault, fetch: cluster.fetch }).list(pods);
      assert.equal(host.runs, 1, "one credential for every client and load of that user");
    } finally {
      loaded.close();
      byDefault.close();
      cluster.close();
    }
  });
});

describe("exec plugins: a failing plugin is not run in a loop", () => {
  test("an informer whose plugin keeps failing runs it at the informer's backing-off pace", async () => {
    const text = kubeconfigJson({ server: "https://127.0.0.1:6443" }, {
      exec: { apiVersion: V1, command: "plugin", interactiveMode: "Never" },
    });
    const host = countingHost({ "/k": text }, true);
    const clock = new ManualClock();
    const options = await createConfigLoader(host).loadKubeconfig({ path: "/k", clock });
    const cluster = new SimulatedCluster({ clock });
    const kinds = new Set<string>();
    const informer = createInformer(new KubeClient({ ...options, fetch: cluster.fetch }), {
      resource: pods,
      clock,
      onError: (_error, context) => void kinds.add(context.kind),
    });
    informer.start();
    for (let minute = 0; minute < 10; minute++) await clock.advance(60_000);
    await informer.stop();
    cluster.close();
    options.close();
    assert.ok(host.runs >= 3, `it kept trying (${host.runs} runs)`);
    assert.ok(host.runs <= 40, `${host.runs} runs in 10 minutes`);
    assert.equal(informer.health().synced, false);
    assert.ok(kinds.size > 0);
  });
});

describe(`exec plugins with the ${runtime} loader: what the plugin gets`, () => {
  /** Loads a kubeconfig running the fake plugin with `exec` fields and lists once. */
  async function runPlugin(dir: string, exec: Record<string, unknown>): Promise<void> {
    const path = join(dir, `config-${Math.random().toString(36).slice(2)}`);
    await writeFile(
      path,
      kubeconfigJson({ server: "https://sim.invalid" }, {
        exec: { apiVersion: V1, command: PLUGIN, interactiveMode: "Never", ...exec },
      }),
    );
    const cluster = new SimulatedCluster();
    const options = await createConfigLoader(await runtimeHost()).loadKubeconfig({ path });
    try {
      await new KubeClient({ ...options, fetch: cluster.fetch }).list(pods);
    } finally {
      options.close();
      cluster.close();
    }
  }

  test("arguments reach the plugin as written, through no shell", async () => {
    const { dir, cleanup } = await tempDir();
    try {
      const marker = join(dir, "pwned");
      const args = [
        `$(touch ${marker})`,
        `; touch ${marker}`,
        `\`touch ${marker}\``,
        `| touch ${marker}`,
        "$FAKE_PLUGIN_DIR",
        "*",
        "two words",
        `'single' "double"`,
        "--token=x",
      ];
      await runPlugin(dir, { args, env: [{ name: "FAKE_PLUGIN_DIR", value: dir }] });
      assert.deepEqual(
        (await readFile(join(dir, "args-1"), "utf8")).split("\n").slice(0, -1),
        args,
      );
      assert.equal(existsSync(marker), false, "no shell ran any of it");
    } finally {
      await cleanup();
    }
  });

  test("it inherits this process's environment; the kubeconfig's env entries win", async () => {
    const { dir, cleanup } = await tempDir();
    try {
      await withEnv({ FAKE_PLUGIN_SECRET: "from-this-process" }, async () => {
        await runPlugin(dir, { env: [{ name: "FAKE_PLUGIN_DIR", value: dir }] });
        await runPlugin(dir, {
          env: [
            { name: "FAKE_PLUGIN_DIR", value: dir },
            { name: "FAKE_PLUGIN_SECRET", value: "from-the-kubeconfig" },
          ],
        });
      });
      assert.equal(await readFile(join(dir, "secret-1"), "utf8"), "from-this-process");
      assert.equal(await readFile(join(dir, "secret-2"), "utf8"), "from-the-kubeconfig");
      const info = JSON.parse(await readFile(join(dir, "info-1.json"), "utf8"));
      assert.deepEqual(info.spec, { interactive: false }, "no cluster without provideClusterInfo");
    } finally {
      await cleanup();
    }
  });
});
