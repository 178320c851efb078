// ExecCredentialSource on its own: the plugin is an in-memory `run`, so nothing is started.
// tests/integration/exec_plugin_test.ts runs a real plugin through each runtime's loader.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import {
  type ExecCommand,
  type ExecCommandResult,
  ExecCredentialError,
  ExecCredentialSource,
  type ExecCredentialSourceOptions,
} from "../../src/config/mod.ts";
import type { KubeconfigExec } from "../../src/config/kubeconfig.ts";
import { ManualClock } from "../../src/testing/manual_clock.ts";
import { SimulatedCluster } from "@kinformer/simulator";
import { KubeClient } from "../../src/client/kube_client.ts";
import { pods } from "../../src/client/resource.ts";
import { createInformer } from "../../src/cache/informer.ts";
import { captureConsole } from "../_console.ts";
import { failure } from "../_errors.ts";

const V1 = "client.authentication.k8s.io/v1";
const V1BETA1 = "client.authentication.k8s.io/v1beta1";

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
    // v1beta1 defaults interactiveMode to IfAvailable; Always is checked when it runs.
    make({ apiVersion: V1BETA1, interactiveMode: undefined })();
    make({ interactiveMode: "IfAvailable" })();
    make({ interactiveMode: "Always" })();
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
    assert.equal(await source.token(), undefined, "no token: the certificate authenticates");
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

describe("a failing exec plugin reports through the one error contract", () => {
  test("a default informer prints one line naming the plugin's failure (kind credentials), then a handful a minute", async () => {
    const printed = captureConsole();
    const clock = new ManualClock(0);
    const cluster = new SimulatedCluster({ clock });
    try {
      const { source } = fakeSource(() => ({ exitCode: 1, stdout: "", stderr: "login expired" }));
      const client = new KubeClient({
        server: "http://sim.test",
        fetch: cluster.fetch,
        token: () => source.token(),
      });
      const informer = createInformer(client, { resource: pods, clock });
      void informer.start();
      for (let t = 0; t < 5_000; t += 100) await clock.advance(100);
      assert.equal(printed.lines.length, 1, printed.lines.join("\n"));
      assert.match(
        printed.lines[0]!,
        /^error pods informer: list credentials error: .*exited with code 1: login expired.*; retrying with backoff/,
      );
      assert.equal(informer.health().lastError?.kind, "credentials");
      for (let t = 0; t < 60_000; t += 1_000) await clock.advance(1_000);
      assert.ok(printed.lines.length <= 3, printed.lines.join("\n"));
      await informer.stop();
    } finally {
      printed.restore();
      cluster.close();
    }
  });
});
