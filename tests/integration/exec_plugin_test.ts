// Exec credential plugins for real: this runtime's loader runs tests/fixtures/exec/fake-plugin.sh
// (Deno.Command on Deno, node:child_process on Bun and Node) against the simulated cluster, with
// tokens and, over HTTPS, client certificates. Issue 23.4: the plugin runs at the first request
// that needs a credential, never at load; one credential per user configuration for the process;
// stderr passed on as written; stdin given when interactiveMode and a terminal allow it; a time
// limit and an abort stop the plugin and the processes it started. Issue 25.4: values no process
// API takes are refused up front; stdout is capped. ExecCredentialSource's own rules, with an
// in-memory plugin, are in tests/config/exec_credential_test.ts and tests/config/exec_run_test.ts.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { mkdir, readFile, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import process from "node:process";
import { KubeApiError, KubeClient, KubeNetworkError, pods } from "../../src/client/mod.ts";
import {
  type ClusterClientOptions,
  createConfigLoader,
  ExecCredentialError,
  type LoadKubeconfigOptions,
} from "../../src/config/mod.ts";
import type { KubeconfigExec } from "../../src/config/kubeconfig.ts";
import { ManualClock } from "../../src/testing/manual_clock.ts";
import { serve } from "../../src/adapters/node/serve.ts";
import { SimulatedCluster } from "@kinformer/simulator";
import {
  fixture,
  FIXTURES,
  runtime,
  runtimeHost,
  tempDir,
} from "../fixtures/kubeconfig/helpers.ts";
import { bin, ROOT } from "../_runtime_process.ts";
import { failure } from "../_errors.ts";

const V1 = "client.authentication.k8s.io/v1";
const PLUGIN = join(FIXTURES, "..", "exec", "fake-plugin.sh");
const DRIVER = join(FIXTURES, "..", "exec", "interactive_driver.ts");
/** The server a token test names: https, so the kubeconfig's credentials apply (23.7). */
const SIM = "https://sim.invalid";

interface PluginEnv {
  /** The plugin's state folder (FAKE_PLUGIN_DIR). */
  dir: string;
  /** Sets what the next runs print. */
  mode(mode: string, expires?: string): Promise<void>;
  /** How many times the plugin ran. */
  runs(): Promise<number>;
  /** Writes a kubeconfig for `server` whose user runs the plugin; returns its path. */
  kubeconfig(
    server: string,
    exec?: Partial<KubeconfigExec>,
    cluster?: Record<string, unknown>,
    user?: Record<string, unknown>,
  ): Promise<string>;
}

async function withPlugin(body: (env: PluginEnv) => Promise<void>): Promise<void> {
  const { dir, cleanup } = await tempDir();
  let n = 0;
  try {
    await body({
      dir,
      mode: async (mode, expires) => {
        await writeFile(join(dir, "mode"), mode);
        if (expires !== undefined) await writeFile(join(dir, "expires"), expires);
      },
      runs: async () =>
        Number((await readFile(join(dir, "count"), "utf8").catch(() => "0")).trim()),
      kubeconfig: async (server, exec = {}, cluster = {}, user = {}) => {
        const path = join(dir, `config-${n++}`);
        await writeFile(
          path,
          JSON.stringify({
            clusters: [{ name: "sim", cluster: { server, ...cluster } }],
            users: [{
              name: "plugin-user",
              user: {
                exec: {
                  apiVersion: V1,
                  command: PLUGIN,
                  args: ["get-token", "--cluster", "sim"],
                  env: [
                    { name: "FAKE_PLUGIN_DIR", value: dir },
                    { name: "FAKE_PLUGIN_SECRET", value: "env-secret-value" },
                  ],
                  interactiveMode: "Never",
                  ...exec,
                },
                ...user,
              },
            }],
            contexts: [{ name: "sim", context: { cluster: "sim", user: "plugin-user" } }],
            "current-context": "sim",
          }),
        );
        return path;
      },
    });
  } finally {
    await cleanup();
  }
}

async function load(options: LoadKubeconfigOptions): Promise<ClusterClientOptions> {
  return await createConfigLoader(await runtimeHost()).loadKubeconfig(options);
}

/** A stderr sink that collects text and can wait for a pattern. */
function stderrSink(): {
  write: (chunk: Uint8Array) => void;
  text: () => string;
  waitFor: (pattern: RegExp) => Promise<RegExpMatchArray>;
} {
  let text = "";
  const waiters: (() => void)[] = [];
  return {
    write: (chunk) => {
      text += new TextDecoder().decode(chunk);
      for (const wake of waiters.splice(0)) wake();
    },
    text: () => text,
    waitFor: async (pattern) => {
      for (;;) {
        const match = text.match(pattern);
        if (match !== null) return match;
        await new Promise<void>((resolve) => waiters.push(resolve));
      }
    },
  };
}

/** Whether process `pid` is gone (or a zombie), waiting a little for a kill to land. */
async function gone(pid: number): Promise<boolean> {
  for (let i = 0; i < 300; i++) {
    if (!existsSync(`/proc/${pid}/stat`)) return true;
    const state = readFileSync(`/proc/${pid}/stat`, "utf8").replace(/^.*\) /s, "")[0];
    if (state === "Z" || state === "X") return true;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return false;
}

/** Runs the interactive driver with `input` on its stdin; resolves with what it printed. */
function runDriver(path: string, terminal: boolean, input: string): Promise<string> {
  const [command, args] = runtime === "deno"
    ? [bin("deno"), ["run", "-A", "--no-lock", DRIVER]]
    : runtime === "bun"
    ? [bin("bun"), [DRIVER]]
    : [process.execPath, [DRIVER]];
  return new Promise((resolve, reject) => {
    const child = spawn(command, [...args, path, terminal ? "terminal" : "none"], {
      cwd: ROOT,
      env: { ...process.env, NO_COLOR: "1" },
      stdio: ["pipe", "pipe", "pipe"],
    });
    let out = "";
    let err = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => (out += d));
    child.stderr.setEncoding("utf8").on("data", (d: string) => (err += d));
    child.once("error", reject);
    child.once("close", (code) => {
      if (code === 0) resolve(out.trim());
      else reject(new Error(`driver exited with ${code}: ${err}`));
    });
    child.stdin.end(input);
  });
}

describe(`exec plugins with the ${runtime} loader (fake-plugin.sh)`, () => {
  test("nothing runs at load; the first request runs it; every later client and load shares the credential until expiry or a 401", async () => {
    await withPlugin(async (plugin) => {
      const clock = new ManualClock(Date.parse("2030-01-01T00:00:00Z"));
      const cluster = new SimulatedCluster({ token: "token-1" });
      cluster.seed(pods, 2);
      await plugin.mode("token", "2030-01-01T00:05:00Z");
      const path = await plugin.kubeconfig(SIM, { provideClusterInfo: true });
      const options = await load({ path, clock });
      try {
        assert.equal(await plugin.runs(), 0, "loading runs nothing");
        const client = new KubeClient({ ...options, fetch: cluster.fetch });
        assert.equal((await client.list(pods)).items.length, 2);
        assert.equal(await plugin.runs(), 1, "the first request ran it");
        assert.equal((await client.list(pods)).items.length, 2);
        // A second load of the same user, and its clients, share the cached credential.
        const again = await load({ path, clock });
        const other = new KubeClient({ ...again, fetch: cluster.fetch });
        assert.equal((await other.list(pods)).items.length, 2);
        assert.equal(await plugin.runs(), 1, "one run for every client and load");
        // What the plugin got: args, env, and the cluster (provideClusterInfo).
        assert.deepEqual(
          (await readFile(join(plugin.dir, "args-1"), "utf8")).trim().split("\n"),
          ["get-token", "--cluster", "sim"],
        );
        assert.equal(await readFile(join(plugin.dir, "secret-1"), "utf8"), "env-secret-value");
        assert.deepEqual(JSON.parse(await readFile(join(plugin.dir, "info-1.json"), "utf8")), {
          apiVersion: V1,
          kind: "ExecCredential",
          spec: { interactive: false, cluster: { server: SIM } },
        });

        // Expiry: the next request runs the plugin again (token-2, refused by the server).
        await clock.advance(5 * 60_000);
        const refused = await failure(client.list(pods));
        assert.ok(refused instanceof KubeApiError && refused.code === 401);
        assert.equal(await plugin.runs(), 2);
        // The 401 dropped token-2, for the other load's clients too: token-3.
        await failure(other.list(pods));
        assert.equal(await plugin.runs(), 3);
        await plugin.mode("token", "2030-01-01T01:00:00Z"); // later tokens last an hour
        const fresh = new SimulatedCluster({ token: "token-4" });
        try {
          const rotated = new KubeClient({ ...options, fetch: fresh.fetch });
          assert.equal((await rotated.list(pods)).items.length, 0); // token-4, accepted
          assert.equal((await rotated.list(pods)).items.length, 0);
          assert.equal(await plugin.runs(), 4);
        } finally {
          fresh.close();
        }
        again.close();
      } finally {
        options.close();
        cluster.close();
      }
    });
  });

  test("over plain http the kubeconfig's exec plugin is not used (as clientcmd)", async () => {
    await withPlugin(async (plugin) => {
      const options = await load({ path: await plugin.kubeconfig("http://sim.invalid") });
      const cluster = new SimulatedCluster();
      try {
        assert.equal(options.token, undefined);
        const sent: (string | null)[] = [];
        const fetch = (request: Request) => {
          sent.push(request.headers.get("authorization"));
          return cluster.fetch(request);
        };
        await new KubeClient({ ...options, fetch }).list(pods);
        assert.deepEqual(sent, [null]);
        assert.equal(await plugin.runs(), 0);
      } finally {
        options.close();
        cluster.close();
      }
    });
  });

  test("a token on the same user wins: the plugin is not run", async () => {
    await withPlugin(async (plugin) => {
      const cluster = new SimulatedCluster({ token: "static" });
      const options = await load({
        path: await plugin.kubeconfig(SIM, {}, {}, { token: "static" }),
      });
      try {
        assert.equal(options.token, "static");
        await new KubeClient({ ...options, fetch: cluster.fetch }).list(pods);
        assert.equal(await plugin.runs(), 0);
      } finally {
        options.close();
        cluster.close();
      }
    });
  });

  test("stderr reaches the user as the plugin writes it (a device code before it exits)", async () => {
    await withPlugin(async (plugin) => {
      await plugin.mode("prompt");
      const sink = stderrSink();
      const cluster = new SimulatedCluster({ token: "token-1" });
      const options = await load({ path: await plugin.kubeconfig(SIM), execStderr: sink.write });
      try {
        let settled = false;
        const listed = new KubeClient({ ...options, fetch: cluster.fetch }).list(pods)
          .finally(() => (settled = true));
        await sink.waitFor(/enter the code WXYZ-1234/);
        assert.equal(settled, false, "the prompt arrived while the plugin still waits");
        await writeFile(join(plugin.dir, "go"), "");
        assert.equal((await listed).items.length, 0);
      } finally {
        options.close();
        cluster.close();
      }
    });
  });

  test("past its time limit the plugin and the process it started are killed; only the waiting requests fail", async () => {
    await withPlugin(async (plugin) => {
      await plugin.mode("hang");
      const clock = new ManualClock();
      const sink = stderrSink();
      const cluster = new SimulatedCluster({ token: "token-2" });
      const options = await load({
        path: await plugin.kubeconfig(SIM),
        clock,
        execTimeoutMs: 10_000,
        execStderr: sink.write,
      });
      try {
        const client = new KubeClient({ ...options, fetch: cluster.fetch });
        const first = failure(client.list(pods));
        const second = failure(client.list(pods));
        const [, pluginPid, childPid] = await sink.waitFor(/started (\d+) (\d+)/);
        await clock.advance(10_000);
        for (const error of [await first, await second]) {
          assert.ok(error instanceof ExecCredentialError, String(error));
          assert.equal(error.code, "Timeout");
        }
        if (process.platform === "linux") {
          assert.ok(await gone(Number(pluginPid)), "the plugin is killed");
          assert.ok(await gone(Number(childPid)), "and the process it started");
        }
        await plugin.mode("token");
        assert.equal((await client.list(pods)).items.length, 0, "the next request runs it anew");
        assert.equal(await plugin.runs(), 2);
      } finally {
        options.close();
        cluster.close();
      }
    });
  });

  test("aborting the requests that wait on the plugin kills it and what it started", async () => {
    await withPlugin(async (plugin) => {
      await plugin.mode("hang");
      const sink = stderrSink();
      const cluster = new SimulatedCluster();
      const options = await load({ path: await plugin.kubeconfig(SIM), execStderr: sink.write });
      try {
        const client = new KubeClient({ ...options, fetch: cluster.fetch });
        const stop = new AbortController();
        const pending = failure(client.list(pods, { signal: stop.signal }));
        const [, pluginPid, childPid] = await sink.waitFor(/started (\d+) (\d+)/);
        stop.abort(new Error("informer stopped"));
        assert.equal(((await pending) as Error).message, "informer stopped");
        if (process.platform === "linux") {
          assert.ok(await gone(Number(pluginPid)), "the plugin is killed");
          assert.ok(await gone(Number(childPid)), "and the process it started");
        }
      } finally {
        options.close();
        cluster.close();
      }
    });
  });

  test("a plugin flooding stdout is stopped at 1 MiB and refused (25.4)", async () => {
    await withPlugin(async (plugin) => {
      await plugin.mode("flood");
      const sink = stderrSink();
      const options = await load({ path: await plugin.kubeconfig(SIM), execStderr: sink.write });
      try {
        const token = options.token as (o: object) => Promise<string | undefined>;
        const error = await failure(token({}));
        assert.ok(error instanceof ExecCredentialError, String(error));
        assert.equal(error.code, "InvalidOutput");
        assert.match(error.message, /more than 1048576 bytes of output/);
        const [, pid] = sink.text().match(/started (\d+)/) ?? [];
        if (process.platform === "linux" && pid !== undefined) {
          assert.ok(await gone(Number(pid)), "the plugin is stopped");
        }
      } finally {
        options.close();
      }
    });
  });

  test("a NUL in the command, an argument or the env is refused at load, never shown (25.4)", async () => {
    await withPlugin(async (plugin) => {
      for (
        const exec of [
          { args: ["--secret", "nul-\0-secret"] },
          {
            env: [{ name: "FAKE_PLUGIN_DIR", value: plugin.dir }, {
              name: "T",
              value: "nul-\0-secret",
            }],
          },
          { command: `${PLUGIN}\0nul-secret` },
        ]
      ) {
        const error = await failure(load({ path: await plugin.kubeconfig(SIM, exec) }));
        assert.ok(error instanceof ExecCredentialError, String(error));
        assert.equal(error.code, "InvalidConfig");
        assert.match(error.message, /NUL character/);
        assert.ok(!`${error.message} ${JSON.stringify(error)}`.includes("nul-"));
      }
      assert.equal(await plugin.runs(), 0);
    });
  });

  test("stdin goes to the plugin when interactiveMode and a terminal allow it", async () => {
    await withPlugin(async (plugin) => {
      await plugin.mode("stdin");
      const ifAvailable = await plugin.kubeconfig(SIM, { interactiveMode: "IfAvailable" });
      const never = await plugin.kubeconfig(SIM, { interactiveMode: "Never" });
      assert.equal(await runDriver(ifAvailable, true, "typed-by-user\n"), "stdin-typed-by-user");
      assert.equal(
        JSON.parse(await readFile(join(plugin.dir, "info-1.json"), "utf8")).spec.interactive,
        true,
      );
      assert.equal(await runDriver(ifAvailable, false, "typed-by-user\n"), "stdin-none");
      assert.equal(await runDriver(never, true, "typed-by-user\n"), "stdin-none");
      assert.equal(
        JSON.parse(await readFile(join(plugin.dir, "info-3.json"), "utf8")).spec.interactive,
        false,
      );
    });
  });

  test("interactiveMode Always without a terminal fails the first request and runs nothing", async () => {
    await withPlugin(async (plugin) => {
      const options = await load({
        path: await plugin.kubeconfig(SIM, { interactiveMode: "Always" }),
      });
      const token = options.token as (o: object) => Promise<string | undefined>;
      const error = await failure(token({}));
      assert.ok(error instanceof ExecCredentialError);
      assert.equal(error.code, "Interactive");
      assert.equal(await plugin.runs(), 0);
    });
  });

  test("a missing command fails the first request with the installHint", async () => {
    await withPlugin(async (plugin) => {
      const options = await load({
        path: await plugin.kubeconfig(SIM, {
          command: "kinformer-no-such-plugin",
          installHint: "Install it with: brew install kinformer-no-such-plugin",
        }),
      });
      const token = options.token as (o: object) => Promise<string | undefined>;
      const error = await failure(token({}));
      assert.ok(error instanceof ExecCredentialError, String(error));
      assert.equal(error.code, "NotFound");
      assert.match(error.message, /"kinformer-no-such-plugin" of user "plugin-user" was not found/);
      assert.match(error.message, /brew install kinformer-no-such-plugin/);
    });
  });

  test("a failing plugin: exit code and redacted stderr, never the env values", async () => {
    await withPlugin(async (plugin) => {
      await plugin.mode("fail");
      const sink = stderrSink();
      const options = await load({ path: await plugin.kubeconfig(SIM), execStderr: sink.write });
      const token = options.token as (o: object) => Promise<string | undefined>;
      const error = await failure(token({}));
      assert.ok(error instanceof ExecCredentialError, String(error));
      assert.equal(error.code, "Failed");
      assert.equal(error.exitCode, 3);
      assert.match(error.stderr!, /could not refresh credentials for <redacted>/);
      assert.ok(!error.message.includes("env-secret-value"));
      assert.ok(!error.message.includes("eyJhbGci"));
      assert.match(sink.text(), /could not refresh credentials/, "the user saw it as written");
      assert.equal(await plugin.runs(), 1);
    });
  });

  test("malformed output and a wrong apiVersion are refused without echoing the output", async () => {
    await withPlugin(async (plugin) => {
      for (
        const [mode, pattern] of [
          ["garbage", /not JSON/],
          ["wrong-version", /apiVersion is ".*v1alpha1"/],
          ["no-key", /without clientKeyData/],
        ] as const
      ) {
        await plugin.mode(mode);
        const options = await load({ path: await plugin.kubeconfig(SIM) });
        const token = options.token as (o: object) => Promise<string | undefined>;
        const error = await failure(token({}));
        assert.ok(error instanceof ExecCredentialError, String(error));
        assert.equal(error.code, "InvalidOutput");
        assert.match(error.message, pattern);
        assert.ok(!error.message.includes("login.example"));
      }
    });
  });

  test("a relative command with a slash is relative to the kubeconfig's folder", async () => {
    await withPlugin(async (plugin) => {
      await mkdir(join(plugin.dir, "bin"));
      await symlink(PLUGIN, join(plugin.dir, "bin", "plugin"));
      const options = await load({
        path: await plugin.kubeconfig(SIM, { command: "./bin/plugin" }),
      });
      const token = options.token as (o: object) => Promise<string | undefined>;
      assert.equal(await token({}), "token-1");
      options.close();
    });
  });

  test("a client certificate from the plugin over HTTPS; a 401 re-runs it and the new certificate is used", async () => {
    await withPlugin(async (plugin) => {
      const cluster = new SimulatedCluster({ token: "no-token-accepted-here" });
      cluster.seed(pods, 1);
      const server = await serve(cluster.fetch, {
        tls: {
          cert: await fixture("certs/server.crt"),
          key: await fixture("certs/server.key"),
          clientCa: await fixture("certs/ca.crt"),
        },
      });
      let options: ClusterClientOptions | undefined;
      try {
        // First a certificate from a CA the server does not trust, then the trusted one.
        await plugin.mode("cert-second");
        options = await load({
          path: await plugin.kubeconfig(server.url, {}, {
            "certificate-authority-data": btoa(await fixture("certs/ca.crt")),
          }),
        });
        const client = new KubeClient(options);
        const refused = await failure(client.list(pods));
        assert.ok(refused instanceof KubeApiError && refused.code === 401, String(refused));
        assert.equal(cluster.requests.at(-1)?.user, undefined);
        await plugin.mode("cert");
        assert.equal((await client.list(pods)).items.length, 1);
        assert.equal(cluster.requests.at(-1)?.user, "kinformer-user");
        assert.equal((await client.list(pods)).items.length, 1);
        assert.equal(await plugin.runs(), 2, "one run at the first request, one after the 401");
      } finally {
        options?.close();
        cluster.close();
        await server.close();
      }
    });
  });

  test("a plugin failure during requests reaches the caller with its ExecCredentialError", async () => {
    await withPlugin(async (plugin) => {
      const clock = new ManualClock(Date.parse("2030-01-01T00:00:00Z"));
      await plugin.mode("token", "2030-01-01T00:01:00Z");
      const sink = stderrSink();
      const options = await load({
        path: await plugin.kubeconfig(SIM),
        clock,
        execStderr: sink.write,
      });
      const cluster = new SimulatedCluster({ token: "token-1" });
      try {
        const client = new KubeClient({ ...options, fetch: cluster.fetch });
        await client.list(pods);
        await plugin.mode("fail");
        await clock.advance(60_000);
        const error = await failure(client.list(pods));
        const cause = error instanceof KubeNetworkError ? error.cause : error;
        assert.ok(cause instanceof ExecCredentialError, String(error));
        assert.equal(cause.exitCode, 3);
      } finally {
        options.close();
        cluster.close();
      }
    });
  });
});
