// Canaries: unique secret strings planted in every credential position the library handles,
// then every error path it can be driven down. No error message, String(error),
// JSON.stringify(error), cause, health(), checkpoint() or metrics hook argument may contain
// one. (Issue 13's proof; SECURITY.md lists what this guarantees.)
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { KubeClient } from "../../src/client/kube_client.ts";
import { configmaps, pods } from "../../src/client/resource.ts";
import { createInformer } from "../../src/cache/informer.ts";
import type { InformerMetrics } from "../../src/cache/informer_metrics.ts";
import { createConfigLoader } from "../../src/config/config_loader.ts";
import { parseKubeconfig } from "../../src/config/kubeconfig.ts";
import { resolveKubeconfig } from "../../src/config/resolve_kubeconfig.ts";
import { parseKubeconfigYaml } from "../../src/config/kubeconfig_yaml.ts";
import { tokenFileSource } from "../../src/config/token_file.ts";
import { ManualClock } from "../../src/testing/manual_clock.ts";
import { SimulatedCluster } from "../../src/testing/simulated_cluster.ts";
import { FIXTURES, runtimeHost, tempDir } from "../fixtures/kubeconfig/helpers.ts";

/** One canary per position, each unique, so a leak names its source. */
const CANARY = {
  token: "cnry-token-a1b2c3d4e5",
  tokenFn: "cnry-tokenfn-f6a7b8c9d0",
  tokenFile: "cnry-tokenfile-1a2b3c4d5e",
  clientKey: "cnry-clientkey-6f7a8b9c0d",
  execEnv: "cnry-execenv-2e3f4a5b6c",
  execArg: "cnry-execarg-7d8e9f0a1b",
  urlQuery: "cnry-urlquery-3c4d5e6f7a",
  urlUser: "cnry-urluser-8b9c0d1e2f",
  password: "cnry-password-4a5b6c7d8e",
  yamlToken: "cnry-yamltoken-9f0a1b2c3d",
  jsonToken: "cnry-jsontoken-5e6f7a8b9c",
  header: "cnry-header-0d1e2f3a4b",
} as const;
const ALL = Object.values(CANARY);

/** Everything an error exposes: message, String(), JSON, stack, and its cause chain. */
function exposedText(value: unknown, depth = 0): string {
  if (depth > 6 || value === undefined || value === null) return "";
  const parts: string[] = [String(value)];
  try {
    parts.push(JSON.stringify(value) ?? "");
  } catch {
    // cycles: String() above is enough
  }
  if (value instanceof Error) {
    parts.push(value.message, value.stack ?? "");
    for (const key of Object.keys(value)) {
      parts.push(exposedText((value as unknown as Record<string, unknown>)[key], depth + 1));
    }
    parts.push(exposedText(value.cause, depth + 1));
  }
  return parts.join("\n");
}

/** Fails when any canary appears in `what`. */
function assertClean(what: string, value: unknown): void {
  const text = typeof value === "string" ? value : exposedText(value);
  const leaked = ALL.filter((c) => text.includes(c));
  assert.deepEqual(leaked, [], `${what} leaks ${leaked.join(", ")}:\n${text.slice(0, 2_000)}`);
}

/** Runs `fn`, returns what it threw (or rejected with), failing when it did not. */
async function caught(fn: () => unknown): Promise<unknown> {
  try {
    await fn();
  } catch (error) {
    return error;
  }
  assert.fail("expected an error");
}

describe("secret canaries: the client", () => {
  test("bad header values with a token never show it", async () => {
    for (const bad of ["\r\n", "\n", "\0", "\u0100"]) {
      assertClean(
        "static token",
        await caught(() => new KubeClient({ server: "http://h", token: CANARY.token + bad })),
      );
      const client = new KubeClient({
        server: "http://h",
        token: () => CANARY.tokenFn + bad,
        fetch: () => Promise.resolve(Response.json({})),
      });
      assertClean("token()", await caught(() => client.request("/api")));
      assertClean(
        "headers",
        await caught(() =>
          new KubeClient({ server: "http://h", headers: { "x-api-key": CANARY.header + bad } })
        ),
      );
    }
  });

  test("server URLs with credentials are refused without showing them", async () => {
    for (
      const server of [
        `https://h/?access_token=${CANARY.urlQuery}`,
        `https://${CANARY.urlUser}:${CANARY.password}@h`,
        `https://h/#${CANARY.urlQuery}`,
        `::not a url::?token=${CANARY.urlQuery}`,
      ]
    ) {
      assertClean(server.slice(0, 12), await caught(() => new KubeClient({ server })));
    }
  });

  test("401, 403, 500, HTML pages and network errors with a token: no error shows it", async () => {
    const answers = [
      () => Response.json({ kind: "Status", code: 401, reason: "Unauthorized" }, { status: 401 }),
      () => Response.json({ kind: "Status", code: 403, reason: "Forbidden" }, { status: 403 }),
      () => new Response("<html>502 Bad Gateway</html>", { status: 502 }),
      () => new Response("oops", { status: 500 }),
      () => {
        throw new TypeError("connect ECONNREFUSED 127.0.0.1:6443");
      },
    ];
    for (const answer of answers) {
      const client = new KubeClient({
        server: "https://h:6443",
        token: CANARY.token,
        fetch: () => Promise.resolve().then(answer),
      });
      assertClean("list", await caught(() => client.list(pods)));
      assertClean("watch", await caught(() => client.watch(pods)));
      assertClean(
        "create",
        await caught(() => client.create(configmaps, { metadata: { namespace: "a", name: "c" } })),
      );
    }
  });
});

describe("secret canaries: the informer", () => {
  test("errors, health(), checkpoint() and metrics hooks never show the token", async () => {
    const clock = new ManualClock();
    const cluster = new SimulatedCluster({
      clock,
      token: "the-right-token",
      autoCreateNamespaces: true,
    });
    cluster.create(pods, { metadata: { namespace: "a", name: "p1" } });
    let token: string = CANARY.token; // wrong at first: 401s
    const client = new KubeClient({
      server: "http://sim",
      token: () => token,
      fetch: cluster.fetch,
    });
    const seen: unknown[] = [];
    const hooks: InformerMetrics = {};
    for (
      const name of [
        "onList",
        "onWatchEvent",
        "onRelist",
        "onReconnect",
        "onDecodeError",
        "onListenerBacklog",
        "onConsistencyCheck",
      ] as const
    ) {
      (hooks as Record<string, (...args: unknown[]) => void>)[name] = (...args) => seen.push(args);
    }
    const informer = createInformer(client, {
      resource: pods,
      clock,
      onError: (error, context) => seen.push(error, context),
      metrics: hooks,
    });
    informer.start();
    await clock.advance(5_000);
    assertClean("health() after 401s", JSON.stringify(informer.health()));
    token = "the-right-token";
    await clock.advance(60_000);
    await informer.waitForSync();
    cluster.faults.failNext(2, { status: 500 });
    cluster.faults.dropWatches();
    cluster.create(pods, { metadata: { namespace: "a", name: "p2" } });
    await clock.advance(60_000);
    assert.ok(seen.length > 0);
    for (const value of seen) assertClean("onError/metrics argument", value);
    assertClean("health()", JSON.stringify(informer.health()));
    assertClean("checkpoint()", JSON.stringify(informer.checkpoint({ includeObjects: true })));
    await informer.stop();
    cluster.close();
  });
});

describe("secret canaries: configuration", () => {
  const kubeconfig = (user: Record<string, unknown>, extra = "") =>
    `apiVersion: v1
kind: Config
clusters:
- name: c
  cluster:
    server: https://127.0.0.1:6443
users:
- name: u
  user:
${Object.entries(user).map(([k, v]) => `    ${k}: ${JSON.stringify(v)}`).join("\n")}${extra}
contexts:
- name: x
  context: {cluster: c, user: u}
current-context: x
`;

  test("kubeconfig parse errors, YAML and JSON, never show a value", async () => {
    const broken = [
      kubeconfig({ token: CANARY.yamlToken }, `\n    bad: &anchor ${CANARY.yamlToken}`),
      kubeconfig({ token: CANARY.yamlToken }, `\n  - ${CANARY.yamlToken}: [unclosed`),
      `users: [{name: u, user: {token: ${CANARY.yamlToken}, password: ${CANARY.password}`,
      `{"users":[{"name":"u","user":{"token":"${CANARY.jsonToken}","password":"${CANARY.password}"}}]]`,
      `{"users":[{"name":"u","user":{"token":"${CANARY.jsonToken}" "x":1}}]}`,
      `users:\n- name: u\n  user:\n    token: >\n      ${CANARY.yamlToken}\n\tbad`,
      `users:\n- name: u\n  user:\n    client-key-data: ${CANARY.clientKey}\n    !!binary x: y`,
      `users:\n- name: u\n  user:\n    exec:\n      env:\n      - name: K\n        value: ${CANARY.execEnv}\n      - {name: K, value: ${CANARY.execEnv}`,
    ];
    for (const text of broken) {
      assertClean("parseKubeconfigYaml", await caught(() => parseKubeconfigYaml(text)));
      assertClean("parseKubeconfig", await caught(() => parseKubeconfig(text)));
    }
  });

  test("kubeconfig resolution errors never show a credential", async () => {
    const cases = [
      // A field of the wrong type next to secrets.
      kubeconfig({ token: CANARY.yamlToken, "client-key-data": 42 }),
      // Undecodable base64 key data.
      kubeconfig({ "client-certificate-data": "!!!", "client-key-data": `${CANARY.clientKey}!!!` }),
      // A bad boolean.
      kubeconfig({ token: CANARY.yamlToken }).replace(
        "server: https://127.0.0.1:6443",
        `server: https://127.0.0.1:6443\n    insecure-skip-tls-verify: ${CANARY.password}`,
      ),
    ];
    for (const text of cases) {
      assertClean(
        "resolveKubeconfig",
        await caught(() => resolveKubeconfig(parseKubeconfig(text))),
      );
    }
    // A server URL with credentials resolves as written; the client refuses it, redacted.
    const resolved = resolveKubeconfig(parseKubeconfig(
      kubeconfig({ token: "t" }).replace(
        "https://127.0.0.1:6443",
        `https://${CANARY.urlUser}:${CANARY.password}@127.0.0.1:6443/?t=${CANARY.urlQuery}`,
      ),
    ));
    assertClean("a client for it", await caught(() => new KubeClient({ server: resolved.server })));
  });

  test("token files, exec plugins and the loaders: failures never show a secret", async () => {
    const { dir, cleanup } = await tempDir();
    try {
      const host = await runtimeHost();
      // A token file with a bad byte in it, then one that disappears.
      const tokenPath = join(dir, "token");
      await writeFile(tokenPath, `${CANARY.tokenFile}\r\nX-Evil: 1`);
      const source = tokenFileSource(tokenPath, { readFile: (p) => host.readFile(p) });
      const client = new KubeClient({
        server: "http://h",
        token: source,
        fetch: () => Promise.resolve(Response.json({})),
      });
      assertClean("token file", await caught(() => client.request("/api")));

      // An exec plugin that fails (its stderr carries the env secret and a JWT), one that
      // prints garbage, one that is missing; argv and env hold canaries. The plugin runs at the
      // first request (https: a kubeconfig's credentials are never sent over http).
      const plugin = join(FIXTURES, "..", "exec", "fake-plugin.sh");
      const loader = createConfigLoader(host);
      for (const mode of ["fail", "garbage", "missing"]) {
        const state = join(dir, mode);
        await mkdir(state, { recursive: true });
        await writeFile(join(state, "mode"), mode === "missing" ? "token" : mode);
        const path = join(dir, `kubeconfig-${mode}.json`);
        await writeFile(
          path,
          JSON.stringify({
            clusters: [{ name: "c", cluster: { server: "https://127.0.0.1:1" } }],
            users: [{
              name: "u",
              user: {
                exec: {
                  apiVersion: "client.authentication.k8s.io/v1",
                  command: mode === "missing" ? join(dir, "no-such-plugin") : plugin,
                  args: ["--secret", CANARY.execArg],
                  env: [
                    { name: "FAKE_PLUGIN_DIR", value: state },
                    { name: "FAKE_PLUGIN_SECRET", value: CANARY.execEnv },
                  ],
                  installHint: "install the plugin",
                  interactiveMode: "Never",
                },
              },
            }],
            contexts: [{ name: "x", context: { cluster: "c", user: "u" } }],
            "current-context": "x",
          }),
        );
        const options = await loader.loadKubeconfig({ path, execStderr: () => {} });
        assertClean(
          `exec plugin (${mode})`,
          await caught(() => new KubeClient(options).request("/api")),
        );
        options.close();
      }

      // A NUL in an exec argument and env value: refused at load, the runtime never sees it.
      const nul = join(dir, "nul.json");
      await writeFile(
        nul,
        JSON.stringify({
          clusters: [{ name: "c", cluster: { server: "https://127.0.0.1:1" } }],
          users: [{
            name: "u",
            user: {
              exec: {
                apiVersion: "client.authentication.k8s.io/v1",
                command: plugin,
                args: [`${CANARY.execArg}\0`],
                env: [{ name: "S", value: `${CANARY.execEnv}\0` }],
                interactiveMode: "Never",
              },
            },
          }],
          contexts: [{ name: "x", context: { cluster: "c", user: "u" } }],
          "current-context": "x",
        }),
      );
      assertClean("exec with a NUL", await caught(() => loader.loadKubeconfig({ path: nul })));

      // A kubeconfig the loader cannot use, with a client key and a token in it.
      const bad = join(dir, "bad.yaml");
      await writeFile(
        bad,
        kubeconfig({ token: CANARY.yamlToken, "client-key-data": CANARY.clientKey }, "\n    x: [}"),
      );
      assertClean("loadKubeconfig", await caught(() => loader.loadKubeconfig({ path: bad })));
    } finally {
      await cleanup();
    }
  });
});
