// Exec credential plugins for real: this runtime's loader runs tests/fixtures/exec/fake-plugin.sh
// (Deno.Command on Deno, node:child_process on Bun and Node) against the simulated cluster, over
// HTTP with tokens and over HTTPS with client certificates. ExecCredentialSource's own rules, with
// an in-memory plugin, are tested in tests/config/exec_credential_test.ts.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdir, readFile, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { KubeApiError, KubeClient, KubeNetworkError, pods } from "../../src/client/mod.ts";
import {
  type ClusterClientOptions,
  ClusterConfigError,
  createConfigLoader,
  ExecCredentialError,
} from "../../src/config/mod.ts";
import type { KubeconfigExec } from "../../src/config/kubeconfig.ts";
import { ManualClock } from "../../src/testing/manual_clock.ts";
import { serve } from "../../src/testing/serve_node.ts";
import { SimulatedCluster } from "../../src/testing/simulated_cluster.ts";
import {
  fixture,
  FIXTURES,
  runtime,
  runtimeHost,
  tempDir,
} from "../fixtures/kubeconfig/helpers.ts";
import { failure } from "../_errors.ts";

const V1 = "client.authentication.k8s.io/v1";
const PLUGIN = join(FIXTURES, "..", "exec", "fake-plugin.sh");

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
      kubeconfig: async (server, exec = {}, cluster = {}) => {
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

describe(`exec plugins with the ${runtime} loader (fake-plugin.sh)`, () => {
  test("first run at load, cache hit, expiry and a 401 re-run, against the simulated cluster", async () => {
    await withPlugin(async (plugin) => {
      const clock = new ManualClock(Date.parse("2030-01-01T00:00:00Z"));
      const cluster = new SimulatedCluster({ token: "token-1" });
      cluster.seed(pods, 2);
      await plugin.mode("token", "2030-01-01T00:05:00Z");
      const loader = createConfigLoader(await runtimeHost());
      const options = await loader.loadKubeconfig({
        path: await plugin.kubeconfig("http://sim", { provideClusterInfo: true }),
        clock,
      });
      try {
        assert.equal(await plugin.runs(), 1, "the plugin runs once at load");
        const client = new KubeClient({ ...options, fetch: cluster.fetch });
        assert.equal((await client.list(pods)).items.length, 2);
        assert.equal((await client.list(pods)).items.length, 2);
        assert.equal(await plugin.runs(), 1, "cache hit");
        // What the plugin got: args, env, and the cluster (provideClusterInfo).
        assert.deepEqual(
          (await readFile(join(plugin.dir, "args-1"), "utf8")).trim().split("\n"),
          ["get-token", "--cluster", "sim"],
        );
        assert.equal(await readFile(join(plugin.dir, "secret-1"), "utf8"), "env-secret-value");
        assert.deepEqual(JSON.parse(await readFile(join(plugin.dir, "info-1.json"), "utf8")), {
          apiVersion: V1,
          kind: "ExecCredential",
          spec: { interactive: false, cluster: { server: "http://sim" } },
        });

        // Expiry: the next request runs the plugin again (token-2, refused by the server).
        await clock.advance(5 * 60_000);
        const refused = await failure(client.list(pods));
        assert.ok(refused instanceof KubeApiError && refused.code === 401);
        assert.equal(await plugin.runs(), 2);

        // The 401 dropped token-2: the next request runs the plugin again (token-3), still
        // refused; once the server accepts what the plugin gives, requests succeed.
        await failure(client.list(pods));
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
      } finally {
        options.close();
        cluster.close();
      }
    });
  });

  test("a missing command fails the load with the installHint", async () => {
    await withPlugin(async (plugin) => {
      const loader = createConfigLoader(await runtimeHost());
      const error = await failure(loader.loadKubeconfig({
        path: await plugin.kubeconfig("http://sim", {
          command: "kinformer-no-such-plugin",
          installHint: "Install it with: brew install kinformer-no-such-plugin",
        }),
      }));
      assert.ok(error instanceof ExecCredentialError, String(error));
      assert.equal(error.code, "NotFound");
      assert.match(error.message, /"kinformer-no-such-plugin" of user "plugin-user" was not found/);
      assert.match(error.message, /brew install kinformer-no-such-plugin/);
    });
  });

  test("a failing plugin: exit code and redacted stderr, never the env values", async () => {
    await withPlugin(async (plugin) => {
      await plugin.mode("fail");
      const loader = createConfigLoader(await runtimeHost());
      const error = await failure(
        loader.loadKubeconfig({ path: await plugin.kubeconfig("http://sim") }),
      );
      assert.ok(error instanceof ExecCredentialError, String(error));
      assert.equal(error.code, "Failed");
      assert.equal(error.exitCode, 3);
      assert.match(error.stderr!, /could not refresh credentials for <redacted>/);
      assert.ok(!error.message.includes("env-secret-value"));
      assert.ok(!error.message.includes("eyJhbGci"));
      assert.equal(await plugin.runs(), 1);
    });
  });

  test("malformed output and a wrong apiVersion are refused without echoing the output", async () => {
    await withPlugin(async (plugin) => {
      const loader = createConfigLoader(await runtimeHost());
      for (
        const [mode, pattern] of [
          ["garbage", /not JSON/],
          ["wrong-version", /apiVersion is ".*v1alpha1"/],
          ["no-key", /without clientKeyData/],
        ] as const
      ) {
        await plugin.mode(mode);
        const error = await failure(
          loader.loadKubeconfig({ path: await plugin.kubeconfig("http://sim") }),
        );
        assert.ok(error instanceof ExecCredentialError, String(error));
        assert.equal(error.code, "InvalidOutput");
        assert.match(error.message, pattern);
        assert.ok(!error.message.includes("login.example"));
      }
    });
  });

  test("interactiveMode Always is refused before anything runs", async () => {
    await withPlugin(async (plugin) => {
      const loader = createConfigLoader(await runtimeHost());
      const error = await failure(loader.loadKubeconfig({
        path: await plugin.kubeconfig("http://sim", { interactiveMode: "Always" }),
      }));
      assert.ok(error instanceof ExecCredentialError);
      assert.equal(error.code, "Interactive");
      assert.equal(await plugin.runs(), 0);
    });
  });

  test("a relative command with a slash is relative to the kubeconfig's folder", async () => {
    await withPlugin(async (plugin) => {
      await mkdir(join(plugin.dir, "bin"));
      await symlink(PLUGIN, join(plugin.dir, "bin", "plugin"));
      const loader = createConfigLoader(await runtimeHost());
      const options = await loader.loadKubeconfig({
        path: await plugin.kubeconfig("http://sim", { command: "./bin/plugin" }),
      });
      assert.equal(await (options.token as () => Promise<string>)(), "token-1");
      options.close();
    });
  });

  test("an exec user with a token as well is refused: keep one", async () => {
    await withPlugin(async (plugin) => {
      const path = await plugin.kubeconfig("http://sim");
      const config = JSON.parse(await readFile(path, "utf8"));
      config.users[0].user.token = "static";
      await writeFile(path, JSON.stringify(config));
      const error = await failure(createConfigLoader(await runtimeHost()).loadKubeconfig({ path }));
      assert.ok(error instanceof ClusterConfigError);
      assert.match(error.message, /exec plugin and a token .* keep one/);
      assert.equal(await plugin.runs(), 0);
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
        options = await createConfigLoader(await runtimeHost()).loadKubeconfig({
          path: await plugin.kubeconfig(server.url, {}, {
            "certificate-authority-data": btoa(await fixture("certs/ca.crt")),
          }),
        });
        assert.equal(options.token, undefined, "a certificate plugin sends no token");
        const client = new KubeClient(options);
        const refused = await failure(client.list(pods));
        assert.ok(refused instanceof KubeApiError && refused.code === 401, String(refused));
        assert.equal(cluster.requests.at(-1)?.user, undefined);
        await plugin.mode("cert");
        assert.equal((await client.list(pods)).items.length, 1);
        assert.equal(cluster.requests.at(-1)?.user, "kinformer-user");
        assert.equal((await client.list(pods)).items.length, 1);
        assert.equal(await plugin.runs(), 2, "one run at load, one after the 401");
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
      const options = await createConfigLoader(await runtimeHost()).loadKubeconfig({
        path: await plugin.kubeconfig("http://sim"),
        clock,
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
