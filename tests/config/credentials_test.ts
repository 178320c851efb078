// A kubeconfig user's credentials, as clientcmd applies them: only over https (23.7), a token,
// basic auth or client certificate winning over an exec plugin (23.7), a tokenFile re-read
// periodically and at once after a 401 (23.5), and impersonation with one header line per group
// and per extra value (23.6), checked on the wire for this runtime's loader.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { createServer, type Socket } from "node:net";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { KubeApiError, KubeClient, pods } from "../../src/client/mod.ts";
import {
  ClusterConfigError,
  type ConfigHost,
  type ConfigWarning,
  createConfigLoader,
  ExecCredentialError,
  type RunCommand,
  type TransportConfig,
} from "../../src/config/mod.ts";
import { HEADER_LINES } from "../../src/config/_header_lines.ts";
import { headerKeyEscape } from "../../src/config/_user_auth.ts";
import { ManualClock } from "../../src/testing/manual_clock.ts";
import { SimulatedCluster } from "@kinformer/simulator";
import { runtime, runtimeHost, tempDir } from "../fixtures/kubeconfig/helpers.ts";
import { failure } from "../_errors.ts";

const V1 = "client.authentication.k8s.io/v1";
const PEM = (what: string) => `-----BEGIN ${what}-----\nMIIB\n-----END ${what}-----\n`;

interface TestHost extends ConfigHost {
  reads: string[];
  runs: number;
  built: TransportConfig[];
  files: Record<string, string>;
}

function testHost(files: Record<string, string>): TestHost {
  const run: RunCommand = () => {
    h.runs++;
    return Promise.resolve({
      exitCode: 0,
      stdout: JSON.stringify({ apiVersion: V1, kind: "ExecCredential", status: { token: "exec" } }),
    });
  };
  const h: TestHost = {
    runtime: "TestRuntime",
    reads: [],
    runs: 0,
    built: [],
    files,
    readFile: (path) => {
      h.reads.push(path);
      const text = files[path];
      return text === undefined
        ? Promise.reject(Object.assign(new Error(`ENOENT ${path}`), { code: "ENOENT" }))
        : Promise.resolve(text);
    },
    isNotFound: (error) => (error as { code?: string }).code === "ENOENT",
    env: () => undefined,
    pathListSeparator: ":",
    transport: {
      supports: ["ca", "clientCert", "insecureSkipTlsVerify", "tlsServerName", "proxy"],
      create: (transport) => {
        h.built.push(transport);
        return { fetch: () => Promise.resolve(Response.json({})), close: () => {} };
      },
    },
    runCommand: run,
  };
  return h;
}

function kubeconfig(server: string, user: Record<string, unknown>): string {
  return JSON.stringify({
    clusters: [{ name: "c", cluster: { server } }],
    users: [{ name: "u", user }],
    contexts: [{ name: "x", context: { cluster: "c", user: "u" } }],
    "current-context": "x",
  });
}

const EXEC = { apiVersion: V1, command: "plugin", interactiveMode: "Never" };

describe("credentials only over https (23.7)", () => {
  const users: [string, Record<string, unknown>][] = [
    ["a token", { token: "secret-token" }],
    ["a tokenFile", { tokenFile: "/tok" }],
    ["basic auth", { username: "u", password: "p" }],
    ["an exec plugin", { exec: EXEC }],
    ["an auth-provider", { "auth-provider": { name: "oidc" } }],
    ["a client certificate", { "client-certificate": "/c.crt", "client-key": "/c.key" }],
  ];
  for (const [what, user] of users) {
    test(`${what} in the kubeconfig is not applied to an http:// server`, async () => {
      const h = testHost({
        "/k": kubeconfig("http://127.0.0.1:8001", user),
        "/tok": "file-token",
        "/c.crt": PEM("CERTIFICATE"),
        "/c.key": PEM("PRIVATE KEY"),
      });
      const warnings: ConfigWarning[] = [];
      const options = await createConfigLoader(h).loadKubeconfig({
        path: "/k",
        onWarning: (warning) => warnings.push(warning),
      });
      assert.equal(options.token, undefined);
      assert.equal(options.headers, undefined);
      assert.equal(options.onUnauthorized, undefined);
      assert.equal(options.transport, undefined);
      assert.deepEqual(h.reads, ["/k"], "no credential file is even read");
      assert.equal(h.runs, 0);
      assert.equal(warnings.length, 1, "the drop is told, once");
      const [warning] = warnings;
      assert.equal(warning?.code, "CredentialsNotSent");
      assert.equal(warning?.user, "u");
      assert.equal(warning?.cluster, "c");
      assert.equal(warning?.path, "/k");
      assert.match(warning!.message, /^kubeconfig user "u" \(\/k\): .* not sent: /);
      assert.match(warning!.message, /is http:\/\/, and credentials go only over https/);
      for (const secret of ["secret-token", "file-token", '"p"', "MIIB"]) {
        assert.ok(!warning!.message.includes(secret), `no secret in ${warning!.message}`);
      }
    });
  }

  test("the warning names each credential left out, and never the server URL's password", async () => {
    const h = testHost({
      "/k": kubeconfig("http://admin:hunter2@127.0.0.1:8001", {
        token: "secret-token",
        "client-certificate-data": btoa(PEM("CERTIFICATE")),
        "client-key-data": btoa(PEM("PRIVATE KEY")),
        exec: EXEC,
      }),
    });
    const warnings: ConfigWarning[] = [];
    await createConfigLoader(h).loadKubeconfig({ path: "/k", onWarning: (w) => warnings.push(w) });
    assert.deepEqual(warnings.map((w) => w.credentials), [[
      "token",
      "client certificate",
      "exec plugin",
    ]]);
    assert.equal(
      warnings[0]?.message,
      'kubeconfig user "u" (/k): token, client certificate, exec plugin not sent: the server of ' +
        'cluster "c" is http://, and credentials go only over https (as kubectl); requests go out ' +
        "anonymous",
    );
  });

  test("by default: one console.warn line per distinct warning, however often it loads", async () => {
    const h = testHost({
      "/k": kubeconfig("http://127.0.0.1:8001", { token: "secret-token" }),
      "/b": kubeconfig("http://127.0.0.1:8001", { username: "u", password: "p" }),
      "/s": kubeconfig("https://127.0.0.1:6443", { token: "secret-token" }),
      "/n": kubeconfig("http://127.0.0.1:8001", {}),
    });
    const loader = createConfigLoader(h);
    const lines: string[] = [];
    const warn = console.warn;
    console.warn = (...args: unknown[]) => void lines.push(args.join(" "));
    try {
      for (let i = 0; i < 3; i++) {
        for (const path of ["/k", "/b", "/s", "/n"]) await loader.loadKubeconfig({ path });
      }
    } finally {
      console.warn = warn;
    }
    assert.deepEqual(lines, [
      'kinformer: kubeconfig user "u" (/k): token not sent: the server of cluster "c" is ' +
      "http://, and credentials go only over https (as kubectl); requests go out anonymous",
      'kinformer: kubeconfig user "u" (/b): basic auth not sent: the server of cluster "c" is ' +
      "http://, and credentials go only over https (as kubectl); requests go out anonymous",
    ]);
  });

  test("onWarning is checked up front", async () => {
    const h = testHost({ "/k": kubeconfig("http://127.0.0.1:8001", {}) });
    await assert.rejects(
      createConfigLoader(h).loadKubeconfig({ path: "/k", onWarning: "log" as never }),
      { name: "TypeError", message: /options\.onWarning/ },
    );
  });

  test("the same users over https get their credentials", async () => {
    const h = testHost({
      "/k": kubeconfig("https://127.0.0.1:6443", { token: "secret-token" }),
      "/b": kubeconfig("https://127.0.0.1:6443", { username: "u", password: "p" }),
      "/c": kubeconfig("https://127.0.0.1:6443", {
        "client-certificate": "/c.crt",
        "client-key": "/c.key",
      }),
      "/c.crt": PEM("CERTIFICATE"),
      "/c.key": PEM("PRIVATE KEY"),
    });
    const loader = createConfigLoader(h);
    assert.equal((await loader.loadKubeconfig({ path: "/k" })).token, "secret-token");
    assert.match(
      (await loader.loadKubeconfig({ path: "/b" })).headers?.["Authorization"]!,
      /^Basic /,
    );
    const c = await loader.loadKubeconfig({ path: "/c" });
    assert.equal(c.transport?.certData, PEM("CERTIFICATE"));
  });

  test("impersonation still applies over http, as clientcmd sets it outside the TLS check", async () => {
    const h = testHost({ "/k": kubeconfig("http://127.0.0.1:8001", { as: "jane" }) });
    const options = await createConfigLoader(h).loadKubeconfig({ path: "/k" });
    assert.deepEqual(options.headers, { "Impersonate-User": "jane" });
  });

  test("a KubeClient built by hand with a token over http sends it", async () => {
    const sent: (string | null)[] = [];
    const client = new KubeClient({
      server: "http://127.0.0.1:8001",
      token: "explicit",
      fetch: (request) => {
        sent.push(request.headers.get("authorization"));
        return Promise.resolve(Response.json({ items: [], metadata: {} }));
      },
    });
    await client.list(pods);
    assert.deepEqual(sent, ["Bearer explicit"]);
  });
});

describe("a token, basic auth or a client certificate win over an exec plugin (23.7)", () => {
  const cases: [string, Record<string, unknown>][] = [
    ["a token", { token: "static" }],
    ["a tokenFile", { tokenFile: "/tok" }],
    ["basic auth", { username: "u", password: "p" }],
    ["a client certificate", { "client-certificate": "/c.crt", "client-key": "/c.key" }],
  ];
  for (const [what, user] of cases) {
    test(`${what}: the plugin is not run`, async () => {
      const h = testHost({
        "/k": kubeconfig("https://127.0.0.1:6443", { ...user, exec: EXEC }),
        "/tok": "file-token",
        "/c.crt": PEM("CERTIFICATE"),
        "/c.key": PEM("PRIVATE KEY"),
      });
      const options = await createConfigLoader(h).loadKubeconfig({ path: "/k" });
      const token = typeof options.token === "function" ? await options.token({}) : options.token;
      assert.notEqual(token, "exec");
      await new KubeClient(options).request("/api").catch(() => {});
      assert.equal(h.runs, 0);
    });
  }

  test("the exec block must still be valid (kubectl validates it)", async () => {
    const h = testHost({
      "/k": kubeconfig("https://127.0.0.1:6443", {
        token: "static",
        exec: { ...EXEC, apiVersion: "" },
      }),
    });
    const error = await failure(createConfigLoader(h).loadKubeconfig({ path: "/k" }));
    assert.ok(error instanceof ExecCredentialError, String(error));
    assert.equal(error.code, "InvalidConfig");
  });
});

describe("tokenFile rotation (23.5)", () => {
  test("re-read periodically, and at once after a 401", async () => {
    const h = testHost({
      "/k": kubeconfig("https://127.0.0.1:6443", { tokenFile: "/tok" }),
      "/tok": "old\n",
    });
    const clock = new ManualClock();
    const options = await createConfigLoader(h).loadKubeconfig({ path: "/k", clock });
    let accepted = "old";
    const client = new KubeClient({
      ...options,
      fetch: (request) =>
        Promise.resolve(
          request.headers.get("authorization") === `Bearer ${accepted}`
            ? Response.json({ items: [], metadata: {} })
            : Response.json({ kind: "Status", code: 401 }, { status: 401 }),
        ),
    });
    await client.list(pods);
    // The kubelet (or a script) rotates the token and the server stops taking the old one.
    h.files["/tok"] = "new";
    accepted = "new";
    const refused = await failure(client.list(pods));
    assert.ok(refused instanceof KubeApiError && refused.code === 401);
    await client.list(pods); // no clock advance: the 401 made it read the file again
    assert.equal(h.reads.filter((p) => p === "/tok").length, 2);
    // Several 401s with the old token at once read the file once; and periodically.
    h.files["/tok"] = "newer";
    await clock.advance(60_000);
    accepted = "newer";
    await client.list(pods);
    assert.equal(h.reads.filter((p) => p === "/tok").length, 3);
  });

  test("in-cluster: the service account token is re-read at once after a 401", async () => {
    const dir = "/var/run/secrets/kubernetes.io/serviceaccount";
    const h = testHost({ [`${dir}/token`]: "old", [`${dir}/ca.crt`]: PEM("CERTIFICATE") });
    const env: Record<string, string> = {
      KUBERNETES_SERVICE_HOST: "10.0.0.1",
      KUBERNETES_SERVICE_PORT: "443",
    };
    const options = await createConfigLoader({ ...h, env: (name) => env[name] }).loadInCluster();
    const token = options.token as () => Promise<string>;
    assert.equal(await token(), "old");
    h.files[`${dir}/token`] = "new";
    assert.equal(await token(), "old");
    options.onUnauthorized!(
      new Request("https://10.0.0.1", { headers: { authorization: "Bearer old" } }),
    );
    assert.equal(await token(), "new");
  });

  test(`on this runtime (${runtime}): a rotated token file is picked up after the server's 401`, async () => {
    const { dir, cleanup } = await tempDir();
    const cluster = new SimulatedCluster({ token: "first" });
    try {
      await writeFile(join(dir, "token"), "first\n");
      await writeFile(
        join(dir, "config"),
        kubeconfig("https://sim.invalid", { tokenFile: "token" }),
      );
      const options = await createConfigLoader(await runtimeHost()).loadKubeconfig({
        path: join(dir, "config"),
        clock: new ManualClock(),
      });
      const client = new KubeClient({ ...options, fetch: cluster.fetch });
      await client.list(pods);
      cluster.close();
      const rotated = new SimulatedCluster({ token: "second" });
      try {
        await writeFile(join(dir, "token"), "second\n");
        const next = new KubeClient({ ...options, fetch: rotated.fetch });
        const refused = await failure(next.list(pods));
        assert.ok(refused instanceof KubeApiError && refused.code === 401);
        assert.equal((await next.list(pods)).items.length, 0);
      } finally {
        rotated.close();
      }
    } finally {
      cluster.close();
      await cleanup();
    }
  });
});

describe("impersonation (23.6)", () => {
  const user = {
    token: "t",
    as: "jane",
    "as-uid": "1234",
    "as-groups": ["developers", "admins", "a, b"],
    "as-user-extra": { scopes: ["openid", "profile"], "acme.com/project": ["p1"] },
  };

  test("one line per group and per extra value; the headers option holds them joined", async () => {
    const h = testHost({ "/k": kubeconfig("https://127.0.0.1:6443", user) });
    const options = await createConfigLoader(h).loadKubeconfig({ path: "/k" });
    assert.deepEqual(options.headers, {
      "Impersonate-User": "jane",
      "Impersonate-Uid": "1234",
      "Impersonate-Group": "developers, admins, a, b",
      "Impersonate-Extra-scopes": "openid, profile",
      "Impersonate-Extra-acme.com%2Fproject": "p1",
    });
    // The host transport (createNodeFetch on Node; on Deno and Bun, for such requests) gets
    // each request marked with the lines to send one by one.
    const marked: unknown[] = [];
    h.transport!.create = () => ({
      fetch: (request) => {
        marked.push((request as Request & { [HEADER_LINES]?: unknown })[HEADER_LINES]);
        return Promise.resolve(Response.json({}));
      },
      close: () => {},
    });
    const again = await createConfigLoader(h).loadKubeconfig({ path: "/k" });
    await new KubeClient(again).request("/api");
    assert.deepEqual(marked, [[
      ["Impersonate-User", "jane"],
      ["Impersonate-Uid", "1234"],
      ["Impersonate-Group", "developers"],
      ["Impersonate-Group", "admins"],
      ["Impersonate-Group", "a, b"],
      ["Impersonate-Extra-scopes", "openid"],
      ["Impersonate-Extra-scopes", "profile"],
      ["Impersonate-Extra-acme.com%2Fproject", "p1"],
    ]]);
  });

  test("extra keys are percent-encoded as client-go encodes them", () => {
    assert.equal(headerKeyEscape("scopes"), "scopes");
    assert.equal(headerKeyEscape("acme.com/project"), "acme.com%2Fproject");
    assert.equal(headerKeyEscape("100%"), "100%25");
    assert.equal(headerKeyEscape("with space"), "with%20space");
    assert.equal(headerKeyEscape("ü"), "%C3%BC");
    assert.equal(headerKeyEscape("a_b-c.d~e"), "a_b-c.d~e");
  });

  test("a value a header cannot carry is refused at load, naming the field, not the value", async () => {
    const h = testHost({
      "/k": kubeconfig("https://127.0.0.1:6443", {
        as: "jane",
        "as-groups": ["ok", "bad\r\nX: y"],
      }),
    });
    const error = await failure(createConfigLoader(h).loadKubeconfig({ path: "/k" }));
    assert.ok(error instanceof ClusterConfigError, String(error));
    assert.equal(error.code, "InvalidKubeconfig");
    assert.match(error.message, /as-groups\[1\]/);
    assert.ok(!error.message.includes("X: y"));
  });

  test(`on the wire with this runtime's loader (${runtime}): each group and extra value on its own line`, async () => {
    const heads: string[] = [];
    const server = createServer((socket: Socket) => {
      let head = "";
      socket.on("data", (chunk) => {
        head += chunk.toString("latin1");
        if (!head.includes("\r\n\r\n")) return;
        heads.push(head.slice(0, head.indexOf("\r\n\r\n")));
        const body = '{"kind":"PodList","items":[],"metadata":{}}';
        socket.end(
          `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\nconnection: close\r\n\r\n${body}`,
        );
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as { port: number };
    const { dir, cleanup } = await tempDir();
    try {
      await writeFile(join(dir, "config"), kubeconfig(`http://127.0.0.1:${port}`, user));
      const options = await createConfigLoader(await runtimeHost()).loadKubeconfig({
        path: join(dir, "config"),
      });
      try {
        await new KubeClient(options).list(pods);
      } finally {
        options.close();
      }
      const lines = heads[0]!.split("\r\n").slice(1).map((line) => {
        const colon = line.indexOf(":");
        return [line.slice(0, colon).toLowerCase(), line.slice(colon + 1).trim()];
      }).filter(([name]) => name!.startsWith("impersonate-"));
      // Names may come in any order; the values of one name in the order given.
      const byName = (list: string[][]) =>
        [...list].sort((a, b) => (a[0]! < b[0]! ? -1 : a[0]! > b[0]! ? 1 : 0));
      assert.deepEqual(
        byName(lines),
        byName([
          ["impersonate-user", "jane"],
          ["impersonate-uid", "1234"],
          ["impersonate-group", "developers"],
          ["impersonate-group", "admins"],
          ["impersonate-group", "a, b"],
          ["impersonate-extra-scopes", "openid"],
          ["impersonate-extra-scopes", "profile"],
          ["impersonate-extra-acme.com%2fproject", "p1"],
        ]),
      );
      assert.ok(!heads[0]!.toLowerCase().includes("authorization"), "no token over http");
    } finally {
      server.close();
      await cleanup();
    }
  });
});

describe("an exec plugin that could not prompt, through the loader", () => {
  test("is not run again for the same user configuration; a changed one runs at once", async () => {
    const prompting = { ...EXEC, interactiveMode: "IfAvailable" };
    const h = testHost({
      "/k": kubeconfig("https://127.0.0.1:6443", { exec: prompting }),
      "/changed": kubeconfig("https://127.0.0.1:6443", {
        exec: { ...prompting, args: ["--device-code"] },
      }),
    });
    h.runCommand = () => {
      h.runs++;
      return Promise.resolve({ exitCode: 1, stdout: "", stderr: "cannot read password\n" });
    };
    h.stdinIsTerminal = () => false;
    const loader = createConfigLoader(h);
    const execStderr = () => {};
    for (let i = 0; i < 3; i++) {
      const options = await loader.loadKubeconfig({ path: "/k", execStderr });
      const error = await failure(new KubeClient(options).request("/api"));
      const cause = (error as { cause?: unknown }).cause ?? error;
      assert.ok(cause instanceof ExecCredentialError, String(error));
      assert.match(cause.message, /could not prompt\. Not run again for 5 minutes/);
    }
    assert.equal(h.runs, 1, "three loads and requests, one run");
    const changed = await loader.loadKubeconfig({ path: "/changed", execStderr });
    await failure(new KubeClient(changed).request("/api"));
    assert.equal(h.runs, 2, "the changed configuration ran at once");
  });
});

describe("an exec plugin's client certificate and the caller's own fetch", () => {
  test("fails the request that would go out without it (UnsupportedTls), at the first request", async () => {
    const h = testHost({ "/k": kubeconfig("https://127.0.0.1:6443", { exec: EXEC }) });
    h.runCommand = () =>
      Promise.resolve({
        exitCode: 0,
        stdout: JSON.stringify({
          apiVersion: V1,
          kind: "ExecCredential",
          status: { clientCertificateData: PEM("CERTIFICATE"), clientKeyData: PEM("PRIVATE KEY") },
        }),
      });
    let sent = 0;
    const options = await createConfigLoader(h).loadKubeconfig({
      path: "/k",
      fetch: () => {
        sent++;
        return Promise.resolve(Response.json({}));
      },
    });
    const error = await failure(new KubeClient(options).request("/api"));
    const cause = (error as { cause?: unknown }).cause ?? error;
    assert.ok(cause instanceof ClusterConfigError, String(error));
    assert.equal(cause.code, "UnsupportedTls");
    assert.match(cause.message, /user "u" gave a client certificate|createFetch/);
    assert.equal(sent, 0, "nothing went out unauthenticated");
  });
});
