// Exec credential plugins: ExecCredentialSource on its own (an in-memory `run`), then this
// runtime's loader running tests/fixtures/exec/fake-plugin.sh for real (Deno.Command on Deno,
// node:child_process on Bun and Node) against the simulated cluster, over HTTP with tokens and
// over HTTPS with client certificates.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdir, readFile, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { KubeApiError, KubeClient, KubeNetworkError, pods } from "../../src/client/mod.ts";
import {
  type ClusterClientOptions,
  ClusterConfigError,
  createConfigLoader,
  type ExecCommand,
  type ExecCommandResult,
  ExecCredentialError,
  ExecCredentialSource,
  type ExecCredentialSourceOptions,
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

const V1 = "client.authentication.k8s.io/v1";
const V1BETA1 = "client.authentication.k8s.io/v1beta1";
const PLUGIN = join(FIXTURES, "..", "exec", "fake-plugin.sh");

/** An ExecCredential JSON text. */
function credentialJson(status: Record<string, unknown>, apiVersion = V1): string {
  return JSON.stringify({ apiVersion, kind: "ExecCredential", status });
}

/** An `exec` block where any field may be set to undefined (to test its absence). */
type LooseExec = { [K in keyof KubeconfigExec]?: KubeconfigExec[K] | undefined };

/** A source whose plugin is `answer` (called with each command); records the commands. */
function fakeSource(
  answer: (command: ExecCommand, run: number) => ExecCommandResult | Promise<ExecCommandResult>,
  options: Omit<Partial<ExecCredentialSourceOptions>, "exec"> & { exec?: LooseExec } = {},
): { source: ExecCredentialSource; commands: ExecCommand[] } {
  const commands: ExecCommand[] = [];
  const source = new ExecCredentialSource({
    isNotFound: (error) => (error as { code?: string }).code === "ENOENT",
    user: "alice",
    ...options,
    exec: {
      command: "plugin",
      apiVersion: V1,
      interactiveMode: "Never",
      ...options.exec,
    } as KubeconfigExec,
    run: (command) => {
      commands.push(command);
      return Promise.resolve(answer(command, commands.length));
    },
  });
  return { source, commands };
}

const ok = (stdout: string): ExecCommandResult => ({ exitCode: 0, stdout, stderr: "" });

/** The error of `promise`, which must reject. */
async function failure(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  assert.fail("expected a rejection");
}

describe("ExecCredentialSource", () => {
  test("checks the exec block up front: command, apiVersion, interactiveMode", () => {
    const make = (exec: LooseExec) => () => fakeSource(() => ok(""), { exec });
    const refused = (exec: LooseExec, code: string, pattern: RegExp): void => {
      assert.throws(make(exec), (error: unknown) => {
        assert.ok(error instanceof ExecCredentialError);
        assert.equal(error.code, code);
        assert.match(error.message, pattern);
        assert.match(error.message, /^exec plugin "(plugin)?" of user "alice" /);
        return true;
      });
    };
    refused({ command: "" }, "InvalidConfig", /has no command/);
    refused({ apiVersion: "" }, "InvalidConfig", /has no apiVersion/);
    refused(
      { apiVersion: "client.authentication.k8s.io/v1alpha1" },
      "InvalidConfig",
      /v1alpha1.*does not speak/,
    );
    refused({ interactiveMode: undefined }, "InvalidConfig", /v1 requires/);
    refused({ interactiveMode: "Sometimes" }, "InvalidConfig", /"Sometimes"/);
    refused({ interactiveMode: "Always" }, "Interactive", /needs a terminal/);
    // v1beta1 defaults interactiveMode to IfAvailable, which runs without a terminal here.
    make({ apiVersion: V1BETA1, interactiveMode: undefined })();
    make({ interactiveMode: "IfAvailable" })();
  });

  test("runs the command with its args and env, and KUBERNETES_EXEC_INFO (no terminal)", async () => {
    const { source, commands } = fakeSource(() => ok(credentialJson({ token: "t" })), {
      exec: { args: ["eks", "get-token"], env: [{ name: "AWS_PROFILE", value: "prod" }] },
      cluster: { server: "https://10.0.0.1:6443", caData: "-----BEGIN CERTIFICATE-----\nx\n" },
    });
    assert.equal(await source.token(), "t");
    assert.equal(commands.length, 1);
    const [command] = commands;
    assert.equal(command!.command, "plugin");
    assert.deepEqual(command!.args, ["eks", "get-token"]);
    assert.equal(command!.env["AWS_PROFILE"], "prod");
    // Without provideClusterInfo the plugin learns nothing about the cluster.
    assert.deepEqual(JSON.parse(command!.env["KUBERNETES_EXEC_INFO"]!), {
      apiVersion: V1,
      kind: "ExecCredential",
      spec: { interactive: false },
    });
  });

  test("provideClusterInfo passes the cluster, its CA as base64 PEM", async () => {
    const ca = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n";
    const { source, commands } = fakeSource(() => ok(credentialJson({ token: "t" }, V1BETA1)), {
      exec: { apiVersion: V1BETA1, provideClusterInfo: true },
      cluster: {
        server: "https://10.0.0.1:6443",
        caData: ca,
        tlsServerName: "api.internal",
        proxyUrl: "http://proxy:3128",
      },
    });
    await source.token();
    assert.deepEqual(JSON.parse(commands[0]!.env["KUBERNETES_EXEC_INFO"]!), {
      apiVersion: V1BETA1,
      kind: "ExecCredential",
      spec: {
        interactive: false,
        cluster: {
          server: "https://10.0.0.1:6443",
          "certificate-authority-data": btoa(ca),
          "tls-server-name": "api.internal",
          "proxy-url": "http://proxy:3128",
        },
      },
    });
  });

  test("caches the credential until its expirationTimestamp on the injected clock", async () => {
    const clock = new ManualClock(Date.parse("2030-01-01T00:00:00Z"));
    const { source, commands } = fakeSource(
      (_c, run) =>
        ok(credentialJson({ token: `token-${run}`, expirationTimestamp: "2030-01-01T00:10:00Z" })),
      { clock },
    );
    assert.equal(await source.token(), "token-1");
    await clock.advance(9 * 60_000);
    assert.equal(await source.token(), "token-1"); // cache hit
    assert.equal(commands.length, 1);
    await clock.advance(60_000); // now exactly at the expiry
    assert.equal(await source.token(), "token-2");
    assert.equal(commands.length, 2);
  });

  test("without an expirationTimestamp it caches until invalidated", async () => {
    const clock = new ManualClock();
    const { source, commands } = fakeSource((_c, run) => ok(credentialJson({ token: `t${run}` })), {
      clock,
    });
    assert.equal(await source.token(), "t1");
    await clock.advance(365 * 24 * 3600_000);
    assert.equal(await source.token(), "t1");
    source.invalidate();
    assert.equal(await source.token(), "t2");
    assert.equal(commands.length, 2);
  });

  test("concurrent callers share one run", async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const { source, commands } = fakeSource(async () => {
      await gate;
      return ok(credentialJson({ token: "shared" }));
    });
    const all = Promise.all([source.token(), source.token(), source.credential()]);
    release();
    const [a, b, c] = await all;
    assert.deepEqual([a, b, c.token], ["shared", "shared", "shared"]);
    assert.equal(commands.length, 1);
  });

  test("invalidate(request) forgets only the credential that request carried", async () => {
    const { source, commands } = fakeSource((_c, run) => ok(credentialJson({ token: `t${run}` })));
    const sent = (token: string) =>
      new Request("https://x/api", { headers: { authorization: `Bearer ${token}` } });
    assert.equal(await source.token(), "t1");
    source.invalidate(sent("t0")); // an older token, refused late: keep t1
    assert.equal(await source.token(), "t1");
    source.invalidate(sent("t1"));
    assert.equal(await source.token(), "t2");
    source.invalidate(sent("t1")); // a second 401 of the same round: no third run
    assert.equal(await source.token(), "t2");
    assert.equal(commands.length, 2);
  });

  test("a client certificate credential; invalidate(request) uses what served the request", async () => {
    const cert = "-----BEGIN CERTIFICATE-----\nA\n-----END CERTIFICATE-----\n";
    const key = "-----BEGIN PRIVATE KEY-----\nB\n-----END PRIVATE KEY-----\n";
    const { source, commands } = fakeSource(() =>
      ok(credentialJson({ clientCertificateData: cert, clientKeyData: key }))
    );
    const first = await source.credential();
    assert.deepEqual(first, { clientCertificateData: cert, clientKeyData: key });
    await assert.rejects(source.token(), /gave no token/);
    const request = new Request("https://x/api");
    source.invalidate(request); // not known to have used it: kept
    assert.equal(await source.credential(), first);
    source.markServed(request, first);
    source.invalidate(request);
    assert.notEqual(await source.credential(), first);
    assert.equal(commands.length, 2);
  });

  test("a failing plugin: its exit code and its stderr, redacted; never the env values", async () => {
    const secret = "s3cr3t-profile-value";
    const { source } = fakeSource(() => ({
      exitCode: 255,
      stdout: credentialJson({ token: "printed-anyway" }),
      stderr: `could not assume role with ${secret}\n` +
        "Authorization: Bearer abcdefghijklmnop\n" +
        "cached token=eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.sig expired\n" +
        `aws_secret ${"A".repeat(40)}\n` + "x".repeat(2000),
    }), { exec: { env: [{ name: "AWS_PROFILE", value: secret }] } });
    const error = await failure(source.token());
    assert.ok(error instanceof ExecCredentialError);
    assert.equal(error.code, "Failed");
    assert.equal(error.exitCode, 255);
    assert.match(error.message, /exited with code 255: could not assume role with <redacted>/);
    for (const leak of [secret, "abcdefghijklmnop", "eyJhbGci", "A".repeat(40), "printed-anyway"]) {
      assert.ok(!error.message.includes(leak), `message leaks ${leak}`);
      assert.ok(!error.stderr!.includes(leak), `stderr leaks ${leak}`);
    }
    assert.ok(error.stderr!.length < 600, "stderr is shortened");
  });

  test("a failed run is not cached: the next call runs the plugin again", async () => {
    const { source, commands } = fakeSource((_c, run) =>
      run === 1
        ? { exitCode: 1, stdout: "", stderr: "temporary failure" }
        : ok(credentialJson({ token: "ok" }))
    );
    await assert.rejects(source.token(), /temporary failure/);
    assert.equal(await source.token(), "ok");
    assert.equal(commands.length, 2);
  });

  test("a missing command is NotFound, with the installHint", async () => {
    const hint = "Install gke-gcloud-auth-plugin: gcloud components install gke-gcloud-auth-plugin";
    const source = new ExecCredentialSource({
      exec: {
        command: "gke-gcloud-auth-plugin",
        apiVersion: V1,
        interactiveMode: "IfAvailable",
        installHint: hint,
      },
      run: () => Promise.reject(Object.assign(new Error("spawn ENOENT"), { code: "ENOENT" })),
      isNotFound: (error) => (error as { code?: string }).code === "ENOENT",
      user: "gke",
    });
    const error = await failure(source.token());
    assert.ok(error instanceof ExecCredentialError);
    assert.equal(error.code, "NotFound");
    assert.equal(error.installHint, hint);
    assert.match(error.message, /"gke-gcloud-auth-plugin" of user "gke" was not found/);
    assert.ok(error.message.endsWith(hint));
  });

  test("malformed output is InvalidOutput and never echoed", async () => {
    const cases: [string, RegExp][] = [
      ["Please log in: token-abc123", /not JSON \(27 characters/],
      ["[1,2]", /not a JSON object/],
      [
        credentialJson({ token: "x" }, V1BETA1),
        /apiVersion is ".*v1beta1", but the kubeconfig asked for ".*\/v1"/,
      ],
      [JSON.stringify({ apiVersion: V1, kind: "Other", status: {} }), /kind is "Other"/],
      [JSON.stringify({ apiVersion: V1, kind: "ExecCredential" }), /no status/],
      [credentialJson({}), /neither a token nor/],
      [credentialJson({ token: 7 }), /status\.token is not a string/],
      [
        credentialJson({ clientCertificateData: "-----BEGIN CERTIFICATE-----" }),
        /without clientKeyData/,
      ],
      [credentialJson({ token: "x", expirationTimestamp: "tomorrow" }), /not RFC 3339/],
    ];
    for (const [stdout, pattern] of cases) {
      const { source } = fakeSource(() => ok(stdout));
      const error = await failure(source.token());
      assert.ok(error instanceof ExecCredentialError, stdout);
      assert.equal(error.code, "InvalidOutput");
      assert.match(error.message, pattern);
      assert.ok(!error.message.includes("abc123"));
    }
  });
});

// ---------------------------------------------------------------------------------------------
// The real thing: this runtime's loader runs fake-plugin.sh.

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
