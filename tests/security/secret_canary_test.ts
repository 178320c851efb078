// serial: sets process environment variables, which Deno shares between the modules it runs in
// parallel, so scripts/test.mjs runs this file on its own there.
// Canaries: unique secret strings planted in every credential position the library handles,
// then every error path it can be driven down. No error message, String(error),
// JSON.stringify(error), cause, health(), checkpoint() or metrics hook argument may contain
// one. (Issue 13's proof; SECURITY.md lists what this guarantees.)
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { type AddressInfo, createServer } from "node:net";
import { join } from "node:path";
import { configmaps, KubeClient, pods } from "../../src/client/mod.ts";
import { createInformer, type InformerMetrics } from "../../src/cache/mod.ts";
import {
  createConfigLoader,
  type ExecCommand,
  ExecCredentialSource,
  parseKubeconfig,
  resolveKubeconfig,
  type RunCommand,
  tokenFileSource,
} from "../../src/config/mod.ts";
import { parseKubeconfigYaml } from "../../src/config/kubeconfig_yaml.ts";
import { ManualClock, SimulatedCluster } from "../../src/testing/mod.ts";
import { FIXTURES, runtimeHost, tempDir } from "../fixtures/kubeconfig/helpers.ts";
import { NO_PROXY_VARS, withEnv } from "../config/_proxies.ts";
import {
  assertClean,
  CANARY,
  caught,
  exposedText,
  kubeconfigJson,
  kubeconfigYaml,
} from "./_canary.ts";

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
  const kubeconfig = (user: Record<string, unknown>, extra = "") => kubeconfigYaml(user, extra);

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

describe("secret canaries: exec plugins", () => {
  test("arguments and env values a plugin echoes on stderr, or a spawn error quotes, are redacted", async () => {
    const exec = {
      command: "plugin",
      apiVersion: "client.authentication.k8s.io/v1",
      interactiveMode: "Never" as const,
      // A short argument that starts the secret one: the longer is redacted first.
      args: ["--cluster", CANARY.execArg.slice(0, 9), CANARY.execArg],
      env: [{ name: "S", value: CANARY.execEnv }],
    };
    const echo = (c: ExecCommand): string => `usage: plugin ${c.args.join(" ")} (S=${c.env["S"]})`;
    const runs: [string, RunCommand][] = [
      ["stderr streamed as it runs", (c) => {
        c.onStderr(new TextEncoder().encode(echo(c)));
        return Promise.resolve({ exitCode: 2, stdout: "" });
      }],
      [
        "stderr with the result",
        (c) => Promise.resolve({ exitCode: 2, stdout: "", stderr: echo(c) }),
      ],
      ["a spawn error", (c) =>
        Promise.reject(
          Object.assign(new Error(`spawn ${echo(c)} EACCES`), {
            code: "EACCES",
            spawnargs: [c.command, ...c.args],
          }),
        )],
    ];
    for (const [what, run] of runs) {
      for (const notFound of [false, true]) {
        const source = new ExecCredentialSource({ exec, run, isNotFound: () => notFound });
        const error = await caught(() => source.token());
        assertClean(`${what} (not found: ${notFound})`, error);
        assert.ok(!exposedText(error).includes(CANARY.execArg.slice(9)), "not even its tail");
      }
    }
  });
});

describe("secret canaries: rotation", () => {
  test("a rotated token file: 401s, a bad rotated value and a vanished file never show it", async () => {
    const { dir, cleanup } = await tempDir();
    try {
      const clock = new ManualClock();
      const tokenPath = join(dir, "token");
      await writeFile(tokenPath, CANARY.tokenFile);
      const path = join(dir, "config");
      await writeFile(
        path,
        kubeconfigJson({ server: "https://127.0.0.1:6443" }, { tokenFile: tokenPath }),
      );
      const sent: string[] = [];
      let status = 401;
      const reported: unknown[] = [];
      const options = await createConfigLoader(await runtimeHost()).loadKubeconfig({
        path,
        clock,
        onTokenError: (error) => reported.push(error),
        fetch: (request) => {
          sent.push(request.headers.get("authorization") ?? "");
          if (status === 0) return Promise.reject(new TypeError("connection reset"));
          return Promise.resolve(
            Response.json({ kind: "Status", code: status, reason: "Unauthorized" }, { status }),
          );
        },
      });
      const client = new KubeClient(options);
      assertClean("401 with the first token", await caught(() => client.list(pods)));
      await writeFile(tokenPath, CANARY.rotatedToken);
      for (status of [401, 403, 500, 0]) {
        assertClean(`${status} with the rotated token`, await caught(() => client.list(pods)));
      }
      assert.ok(sent.includes(`Bearer ${CANARY.rotatedToken}`), "the rotated token was sent");
      status = 401;
      assertClean("a 401 again", await caught(() => client.list(pods)));
      await writeFile(tokenPath, `${CANARY.rotatedToken}\r\nX-Evil: 1`);
      assertClean("a rotated token with a line break", await caught(() => client.list(pods)));
      await rm(tokenPath);
      await clock.advance(120_000);
      assertClean("a vanished token file", await caught(() => client.list(pods)));
      assert.ok(reported.length > 0, "the failed re-read was reported");
      for (const error of reported) assertClean("onTokenError", error);
      options.close();
    } finally {
      await cleanup();
    }
  });

  test("rotated client key files that cannot be used never show the key", async () => {
    const { dir, cleanup } = await tempDir();
    try {
      const clock = new ManualClock();
      const cert = join(dir, "client.crt");
      const key = join(dir, "client.key");
      await writeFile(cert, await readFile(join(FIXTURES, "certs", "client.crt"), "utf8"));
      await writeFile(key, await readFile(join(FIXTURES, "certs", "client.key"), "utf8"));
      const path = join(dir, "config");
      await writeFile(
        path,
        kubeconfigJson({
          server: "https://127.0.0.1:1",
          "certificate-authority": join(FIXTURES, "certs", "ca.crt"),
        }, { "client-certificate": cert, "client-key": key }),
      );
      const loader = createConfigLoader(await runtimeHost());
      const reported: unknown[] = [];
      const options = await loader.loadKubeconfig({
        path,
        clock,
        onTokenError: (error) => reported.push(error),
      });
      const client = new KubeClient(options);
      assertClean("a refused connection", await caught(() => client.list(pods)));
      const garbage =
        `-----BEGIN PRIVATE KEY-----\n${CANARY.rotatedKey}\n-----END PRIVATE KEY-----\n`;
      for (const rotated of [garbage, CANARY.rotatedKey, `${garbage}${garbage}`]) {
        await writeFile(key, rotated);
        await clock.advance(6 * 60_000);
        assertClean("a request after the rotation", await caught(() => client.list(pods)));
      }
      assert.ok(reported.length >= 3, "each unusable pair was reported");
      for (const error of reported) assertClean("the rotation's report", error);
      options.close();
      // The same key at load: refused, never shown.
      assertClean("a load with that key", await caught(() => loader.loadKubeconfig({ path })));
      await writeFile(key, CANARY.clientKey);
      assertClean(
        "a load with a key that is no PEM",
        await caught(() => loader.loadKubeconfig({ path })),
      );
    } finally {
      await cleanup();
    }
  });
});

describe("secret canaries: proxies and impersonation", () => {
  test("a password in HTTPS_PROXY never shows, whether the proxy is refused, unreachable or says no", async () => {
    const refusing = createServer((socket) => {
      socket.on("data", () => {
        socket.end("HTTP/1.1 407 Proxy Authentication Required\r\nContent-Length: 0\r\n\r\n");
      });
      socket.on("error", () => {});
    });
    await new Promise<void>((resolve) => refusing.listen(0, "127.0.0.1", resolve));
    const port = (refusing.address() as AddressInfo).port;
    const { dir, cleanup } = await tempDir();
    try {
      const path = join(dir, "config");
      await writeFile(
        path,
        kubeconfigJson({ server: "https://kinformer.test:6443" }, { token: "t" }),
      );
      const loader = createConfigLoader(await runtimeHost());
      const p = CANARY.proxyPassword;
      for (
        const proxy of [
          `http://user:${p}@127.0.0.1:${port}`,
          `http://user:${p}@127.0.0.1:1`,
          `socks5://user:${p}@127.0.0.1:1`,
          `http://user:pa/ss-${p}@127.0.0.1:1`,
          `http://user:pa#ss-${p}@127.0.0.1:1`,
          `ftp://user:${p}@127.0.0.1:1`,
          `::not a url ${p}@127.0.0.1`,
        ]
      ) {
        for (const name of ["HTTPS_PROXY", "https_proxy"]) {
          await withEnv({ ...NO_PROXY_VARS, [name]: proxy }, async () => {
            const error = await caught(async () => {
              const options = await loader.loadKubeconfig({ path });
              try {
                await new KubeClient(options).list(pods);
              } finally {
                options.close();
              }
            });
            assertClean(`${name}=${proxy.slice(0, 10)}...`, error);
          });
        }
      }
    } finally {
      await cleanup();
      await new Promise((resolve) => refusing.close(resolve));
    }
  });

  test("impersonation values: refused at load without showing them, never in a request's error", async () => {
    const { dir, cleanup } = await tempDir();
    try {
      const loader = createConfigLoader(await runtimeHost());
      const i = CANARY.impersonate;
      const path = join(dir, "config");
      for (
        const user of [
          { as: `${i}\r\nX-Evil: 1` },
          { as: "me", "as-uid": `${i}\n` },
          { as: "me", "as-groups": ["ok", `${i}\0`] },
          { as: "me", "as-user-extra": { scopes: [`${i}\u0100`] } },
        ]
      ) {
        await writeFile(path, kubeconfigJson({ server: "https://127.0.0.1:6443" }, user));
        assertClean("a load", await caught(() => loader.loadKubeconfig({ path })));
      }
      await writeFile(
        path,
        kubeconfigJson({ server: "https://127.0.0.1:6443" }, {
          token: "t",
          as: i,
          "as-uid": i,
          "as-groups": [i, i],
          "as-user-extra": { scopes: [i] },
        }),
      );
      for (const status of [401, 403, 500]) {
        const options = await loader.loadKubeconfig({
          path,
          fetch: () => Promise.resolve(Response.json({ kind: "Status", code: status }, { status })),
        });
        assertClean(`a ${status}`, await caught(() => new KubeClient(options).list(pods)));
        options.close();
      }
    } finally {
      await cleanup();
    }
  });
});

describe("secret canaries: checkpoints", () => {
  test("a refused checkpoint's contents never show in its error, onError or health()", async () => {
    const clock = new ManualClock();
    const cluster = new SimulatedCluster({ clock });
    cluster.create(pods, {
      metadata: { namespace: "default", name: "web", labels: { app: "web" } },
    });
    const client = new KubeClient({ server: "http://sim", fetch: cluster.fetch });
    const selection = { resource: pods, namespace: "default", labelSelector: "app=web", clock };
    const first = createInformer(client, selection);
    first.start();
    await first.waitForSync();
    const cp = JSON.parse(JSON.stringify(first.checkpoint({ includeObjects: true })));
    await first.stop();
    const c = CANARY.checkpoint;
    const meta = (more: Record<string, unknown> = {}) => ({
      namespace: "default",
      name: "x",
      uid: "u",
      resourceVersion: "1",
      labels: { app: "web" },
      ...more,
    });
    const tampered: [string, unknown, Record<string, unknown>?][] = [
      ["a Secret", { apiVersion: "v1", kind: "Secret", metadata: meta(), data: { token: c } }],
      ["another namespace", { metadata: meta({ namespace: c, name: c, annotations: { a: c } }) }],
      ["another kind", { apiVersion: c, kind: c, metadata: meta() }],
      ["outside the selector", { metadata: meta({ labels: { app: c } }), spec: { s: c } }],
      ["labels not strings", { metadata: meta({ labels: { app: { v: c } } }) }],
      ["a name not a string", { metadata: meta({ name: { v: c } }), spec: { s: c } }],
      ["a forbidden key", { metadata: meta(), spec: { constructor: { v: c } } }],
      ["a duplicate", { metadata: meta({ name: "web" }), spec: { s: c } }],
      ["a value JSON cannot hold", { metadata: meta(), spec: { s: c, f: () => c } }],
      ["not an object", c],
      ["too large", { metadata: meta(), spec: { s: c.repeat(100) } }, { maxBytes: 2_000 }],
    ];
    for (const [what, object, limits] of tampered) {
      const errors: unknown[] = [];
      const informer = createInformer(client, {
        ...selection,
        resumeFrom: { ...cp, objects: [...cp.objects, object] },
        checkpointLimits: limits,
        onError: (error, context) => errors.push(error, context),
      });
      informer.start();
      await informer.waitForSync();
      await clock.flush();
      assert.ok(errors.length > 0, `${what}: refused`);
      for (const error of errors) assertClean(`${what}: onError`, error);
      assertClean(`${what}: health()`, JSON.stringify(informer.health()));
      assertClean(
        `${what}: the cache`,
        JSON.stringify(informer.checkpoint({ includeObjects: true })),
      );
      await informer.stop();
    }
    cluster.close();
  });
});
