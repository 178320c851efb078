import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { KubeClient } from "../../src/client/kube_client.ts";
import {
  ClusterConfigError,
  createConfigLoader,
  KubeconfigParseError,
  kubectlProxy,
  parseKubeconfig,
  resolveKubeconfig,
} from "../../src/config/mod.ts";
import type {
  ClusterConfigErrorCode,
  ConfigHost,
  HostTransport,
  TransportConfig,
  TransportFeature,
} from "../../src/config/mod.ts";
import { dirnameOf, isAbsolutePath, resolveFrom } from "../../src/config/_path.ts";
import { ManualClock } from "../../src/testing/manual_clock.ts";
import {
  fixture,
  FIXTURES,
  runtime,
  runtimeHost,
  tempDir,
  withTlsServer,
} from "../fixtures/kubeconfig/helpers.ts";
import type { TlsServerAnswer } from "../fixtures/kubeconfig/helpers.ts";

/** Asserts `fn` throws a ClusterConfigError with `code`; returns it for more checks. */
async function rejectsWithCode(
  fn: () => unknown,
  code: ClusterConfigErrorCode,
): Promise<ClusterConfigError> {
  let caught: unknown;
  try {
    await fn();
  } catch (error) {
    caught = error;
  }
  assert.ok(caught instanceof ClusterConfigError, `expected ClusterConfigError, got ${caught}`);
  assert.equal(caught.name, "ClusterConfigError");
  assert.equal(caught.code, code, caught.message);
  return caught;
}

const ENOENT = (path: string): Error =>
  Object.assign(new Error(`ENOENT: no such file ${path}`), { code: "ENOENT" });

interface FakeHost extends ConfigHost {
  reads: string[];
}

/** A host over in-memory files and environment. */
function fakeHost(
  files: Record<string, string>,
  env: Record<string, string> = {},
  transport?: HostTransport,
  hints?: Partial<Record<TransportFeature, string>>,
): FakeHost {
  const reads: string[] = [];
  return {
    runtime: "TestRuntime",
    reads,
    readFile: (path) => {
      reads.push(path);
      const text = files[path];
      return text === undefined ? Promise.reject(ENOENT(path)) : Promise.resolve(text);
    },
    isNotFound: (error) => (error as { code?: string }).code === "ENOENT",
    env: (name) => env[name],
    pathListSeparator: ":",
    transport,
    hints,
  };
}

/** A host transport that records what it was asked to build. */
function recordingTransport(supports: TransportFeature[]): HostTransport & {
  built: TransportConfig[];
  closed: number;
} {
  const record = {
    supports,
    built: [] as TransportConfig[],
    closed: 0,
    create: (transport: TransportConfig) => {
      record.built.push(transport);
      return {
        fetch: () => Promise.resolve(Response.json({ via: "host" })),
        close: () => {
          record.closed++;
        },
      };
    },
  };
  return record;
}

const PEM_CA = "-----BEGIN CERTIFICATE-----\nMIIBfake\n-----END CERTIFICATE-----\n";
const b64 = (text: string): string => btoa(text);

/** A one-context kubeconfig as JSON text. */
function kubeconfigJson(
  cluster: Record<string, unknown>,
  user: Record<string, unknown> | undefined,
  extra: Record<string, unknown> = {},
): string {
  return JSON.stringify({
    apiVersion: "v1",
    kind: "Config",
    clusters: [{ name: "c", cluster: { server: "https://10.0.0.1:6443", ...cluster } }],
    users: user === undefined ? [] : [{ name: "u", user }],
    contexts: [{
      name: "ctx",
      context: user === undefined ? { cluster: "c" } : { cluster: "c", user: "u" },
    }],
    "current-context": "ctx",
    ...extra,
  });
}

describe("parseKubeconfig", () => {
  test("reads clusters, users and contexts from kubectl's output", async () => {
    const config = parseKubeconfig(await fixture("embedded.yaml"));
    assert.equal(config.currentContext, "dev-admin");
    assert.deepEqual(config.clusters.map((c) => c.name), ["dev", "local-insecure", "prod"]);
    const prod = config.clusters.find((c) => c.name === "prod");
    assert.equal(prod?.server, "https://[2001:db8::1]:443");
    assert.equal(prod?.tlsServerName, "api.prod.example");
    assert.equal(prod?.proxyUrl, "http://proxy.example:3128");
    assert.equal(config.clusters[1]?.insecureSkipTlsVerify, true);
    const basic = config.users.find((u) => u.name === "basic");
    assert.equal(basic?.username, "bob");
    assert.equal(basic?.password, "p@ss: word#1");
    assert.deepEqual(config.users.find((u) => u.name === "gke")?.exec, {
      command: "gke-gcloud-auth-plugin",
      args: ["--use_application_default_credentials"],
      env: [{ name: "FOO", value: "bar" }],
      apiVersion: "client.authentication.k8s.io/v1beta1",
      provideClusterInfo: false,
      interactiveMode: "Never",
    });
    assert.deepEqual(config.contexts.find((c) => c.name === "dev-alice"), {
      name: "dev-alice",
      cluster: "dev",
      user: "alice",
      namespace: "team-a",
    });
  });

  test("reads file paths, tokenFile and auth-provider", async () => {
    const config = parseKubeconfig(await fixture("file-paths.yaml"));
    assert.deepEqual(config.clusters[0], {
      name: "kind",
      server: "https://127.0.0.1:38443",
      certificateAuthority: "certs/ca.crt",
    });
    assert.equal(config.users.find((u) => u.name === "file-token")?.tokenFile, "certs/token");
    assert.deepEqual(config.users.find((u) => u.name === "oidc")?.authProvider, {
      name: "oidc",
      config: { "client-id": "kinformer", "idp-issuer-url": "https://issuer.example" },
    });
    assert.equal(config.contexts.find((c) => c.name === "it's quoted")?.namespace, "default");
  });

  test("reads impersonation fields", () => {
    const config = parseKubeconfig(kubeconfigJson({}, {
      token: "t",
      as: "jane",
      "as-uid": "1234",
      "as-groups": ["devs"],
      "as-user-extra": { reason: ["on call"] },
    }));
    const user = config.users[0];
    assert.equal(user?.impersonate, "jane");
    assert.equal(user?.impersonateUid, "1234");
    assert.deepEqual(user?.impersonateGroups, ["devs"]);
    assert.deepEqual(user?.impersonateUserExtra, { reason: ["on call"] });
  });

  test("an empty file is an empty kubeconfig", () => {
    assert.deepEqual(parseKubeconfig(""), { clusters: [], users: [], contexts: [] });
  });

  test("takes numbers and booleans in string fields as their text", () => {
    const config = parseKubeconfig(
      "contexts:\n- name: 123\n  context:\n    cluster: true\n    namespace: 42\n",
    );
    assert.deepEqual(config.contexts[0], { name: "123", cluster: "true", namespace: "42" });
  });

  test("refuses a YAML document that is not a kubeconfig", async () => {
    const error = await rejectsWithCode(
      () => parseKubeconfig("apiVersion: apps/v1\nkind: Deployment\n"),
      "InvalidKubeconfig",
    );
    assert.match(error.message, /not a kubeconfig/);
  });

  test("refuses two entries with the same name, as kubectl does", async () => {
    const text = "clusters:\n- name: a\n  cluster: {}\n- name: a\n  cluster: {}\n";
    const error = await rejectsWithCode(() => parseKubeconfig(text), "InvalidKubeconfig");
    assert.match(error.message, /two entries named "a"/);
  });

  test("names the field that has the wrong type", async () => {
    const text = "clusters:\n- name: a\n  cluster:\n    server:\n    - x\n";
    const error = await rejectsWithCode(() => parseKubeconfig(text), "InvalidKubeconfig");
    assert.equal(error.subject, "clusters[a].cluster.server");
    assert.match(error.message, /must be a string, not a list/);
  });
});

describe("resolveKubeconfig", () => {
  test("uses current-context and decodes *-data fields to PEM", async () => {
    const resolved = resolveKubeconfig(parseKubeconfig(await fixture("embedded.yaml")));
    assert.equal(resolved.contextName, "dev-admin");
    assert.equal(resolved.clusterName, "dev");
    assert.equal(resolved.userName, "admin");
    assert.equal(resolved.server, "https://127.0.0.1:6443");
    assert.equal(resolved.caData, await fixture("certs/ca.crt"));
    assert.equal(resolved.clientCertData, await fixture("certs/client.crt"));
    assert.equal(resolved.clientKeyData, await fixture("certs/client.key"));
    assert.equal(resolved.namespace, undefined);
  });

  test("a message names a long context, cluster or user name cut short, not whole", () => {
    const long = "x".repeat(5_000);
    const config = parseKubeconfig(
      `clusters:\n- name: ${long}\n  cluster:\n    server: https://10.0.0.1\n` +
        `users:\n- name: ${long}\n  user: {}\n` +
        `contexts:\n- name: ${long}\n  context:\n    cluster: ${long}\n    user: ${long}\n` +
        `current-context: ${long}\n`,
    );
    assert.throws(() => resolveKubeconfig(config, { context: `${long}-missing` }), (error) => {
      assert.ok(error instanceof ClusterConfigError);
      assert.equal(error.code, "ContextNotFound");
      assert.ok(error.message.length < 600, `a ${error.message.length}-character message`);
      assert.match(error.message, /\(5008 characters\)/);
      return true;
    });
  });

  test("an explicit context wins over current-context", async () => {
    const resolved = resolveKubeconfig(parseKubeconfig(await fixture("embedded.yaml")), {
      context: "dev-alice",
    });
    assert.equal(resolved.token, "eyJhbGciOiJSUzI1NiJ9.fake-token.signature");
    assert.equal(resolved.namespace, "team-a");
    assert.equal(resolved.clientCertData, undefined);
  });

  test("keeps file paths as written when there is no data field", async () => {
    const config = parseKubeconfig(await fixture("file-paths.yaml"));
    const kind = resolveKubeconfig(config);
    assert.equal(kind.caFile, "certs/ca.crt");
    assert.equal(kind.clientCertFile, "certs/client.crt");
    assert.equal(kind.clientKeyFile, "certs/client.key");
    const fileToken = resolveKubeconfig(config, { context: "file-token" });
    assert.equal(fileToken.tokenFile, "certs/token");
    assert.equal(fileToken.namespace, "kube-system");
  });

  test("data wins over paths and token over tokenFile", () => {
    const resolved = resolveKubeconfig(parseKubeconfig(kubeconfigJson(
      { "certificate-authority": "ca.crt", "certificate-authority-data": b64(PEM_CA) },
      { token: "t", tokenFile: "token" },
    )));
    assert.equal(resolved.caData, PEM_CA);
    assert.equal(resolved.caFile, undefined);
    assert.equal(resolved.token, "t");
    assert.equal(resolved.tokenFile, undefined);
  });

  test("returns exec plugins and auth-providers for the loaders to report", async () => {
    const gke = resolveKubeconfig(parseKubeconfig(await fixture("embedded.yaml")), {
      context: "prod-gke",
    });
    assert.equal(gke.exec?.command, "gke-gcloud-auth-plugin");
    assert.equal(gke.proxyUrl, "http://proxy.example:3128");
    assert.equal(gke.tlsServerName, "api.prod.example");
  });

  test("a context without a user is anonymous", () => {
    const resolved = resolveKubeconfig(parseKubeconfig(kubeconfigJson({}, undefined)));
    assert.equal(resolved.userName, undefined);
    assert.equal(resolved.token, undefined);
  });

  test("names what is missing: current-context, context, cluster, user", async () => {
    const config = parseKubeconfig(await fixture("embedded.yaml"));
    const noCurrent = await rejectsWithCode(
      () => resolveKubeconfig({ ...config, currentContext: "" }),
      "NoCurrentContext",
    );
    assert.match(noCurrent.message, /"dev-admin"/);
    const noContext = await rejectsWithCode(
      () => resolveKubeconfig(config, { context: "staging" }),
      "ContextNotFound",
    );
    assert.equal(noContext.subject, "staging");
    assert.match(noContext.message, /contexts: "dev-admin", "dev-alice", "local", "prod-gke"/);
    const noCluster = await rejectsWithCode(
      () =>
        resolveKubeconfig({
          ...config,
          contexts: [{ name: "x", cluster: "gone", user: "alice" }],
        }, { context: "x" }),
      "ClusterNotFound",
    );
    assert.equal(noCluster.subject, "gone");
    const noUser = await rejectsWithCode(
      () =>
        resolveKubeconfig({
          ...config,
          contexts: [{ name: "x", cluster: "dev", user: "nobody" }],
        }, { context: "x" }),
      "UserNotFound",
    );
    assert.equal(noUser.subject, "nobody");
    assert.match(noUser.message, /users: "admin", "alice", "basic", "gke"/);
  });

  const contradictions: [string, string][] = [
    [
      "a CA together with insecure-skip-tls-verify",
      kubeconfigJson({ "certificate-authority": "ca", "insecure-skip-tls-verify": true }, {}),
    ],
    ["a client certificate without a key", kubeconfigJson({}, { "client-certificate": "c" })],
    ["a token together with basic auth", kubeconfigJson({}, { token: "t", username: "u" })],
    ["invalid base64 data", kubeconfigJson({ "certificate-authority-data": "%%%" }, {})],
    ["data that is not PEM", kubeconfigJson({ "certificate-authority-data": b64("DER?") }, {})],
    ["a server that is not an http(s) URL", kubeconfigJson({ server: "ftp://x" }, {})],
    ["a cluster without a server", kubeconfigJson({ server: "" }, {})],
    ["as-groups without as", kubeconfigJson({}, { "as-groups": ["g"] })],
  ];
  for (const [what, text] of contradictions) {
    test(`refuses ${what}`, async () => {
      await rejectsWithCode(() => resolveKubeconfig(parseKubeconfig(text)), "InvalidKubeconfig");
    });
  }
});

describe("createConfigLoader (portable core, fake host)", () => {
  test("reads CA, client certificate and key relative to the kubeconfig's folder", async () => {
    const transport = recordingTransport(["ca", "clientCert"]);
    const host = fakeHost(
      {
        "/etc/kube/config": await fixture("file-paths.yaml"),
        "/etc/kube/certs/ca.crt": PEM_CA,
        "/etc/kube/certs/client.crt": PEM_CA,
        "/etc/kube/certs/client.key": "-----BEGIN PRIVATE KEY-----\nk\n-----END PRIVATE KEY-----\n",
      },
      {},
      transport,
    );
    const options = await createConfigLoader(host).loadKubeconfig({ path: "/etc/kube/config" });
    assert.deepEqual(host.reads, [
      "/etc/kube/config",
      "/etc/kube/certs/ca.crt",
      "/etc/kube/certs/client.crt",
      "/etc/kube/certs/client.key",
    ]);
    assert.equal(options.source, "kubeconfig");
    assert.equal(options.kubeconfigPath, "/etc/kube/config");
    assert.equal(options.context, "kind");
    assert.equal(options.server, "https://127.0.0.1:38443");
    assert.equal(transport.built.length, 1);
    assert.equal(transport.built[0]?.caData, PEM_CA);
    assert.ok(options.fetch !== undefined);
    assert.deepEqual(options.transport, transport.built[0]);
    options.close();
    assert.equal(transport.closed, 1);
  });

  test("a tokenFile becomes a token function re-read after the refresh interval", async () => {
    const files: Record<string, string> = {
      "/k/config": kubeconfigJson({ server: "https://127.0.0.1:6443" }, { tokenFile: "tok" }),
      "/k/tok": "first\n",
    };
    const host = fakeHost(files);
    const clock = new ManualClock();
    const options = await createConfigLoader(host).loadKubeconfig({
      path: "/k/config",
      clock,
      tokenRefreshIntervalMs: 60_000,
    });
    assert.equal(typeof options.token, "function");
    const token = options.token as () => Promise<string>;
    assert.equal(await token(), "first");
    files["/k/tok"] = "second";
    await clock.advance(59_999);
    assert.equal(await token(), "first");
    await clock.advance(1);
    assert.equal(await token(), "second");
    assert.equal(host.reads.filter((p) => p === "/k/tok").length, 2);
  });

  test("basic auth and impersonation become headers", async () => {
    const host = fakeHost({
      "/k/basic": kubeconfigJson({ server: "https://h" }, { username: "bøb", password: "p:w" }),
      "/k/imp": kubeconfigJson({ server: "https://h" }, {
        token: "t",
        as: "jane",
        "as-uid": "7",
        "as-groups": ["devs"],
        "as-user-extra": { "reason/why": ["on call"] },
      }),
    });
    const loader = createConfigLoader(host);
    const basic = await loader.loadKubeconfig({ path: "/k/basic" });
    const decoded = new TextDecoder().decode(
      Uint8Array.from(
        atob(basic.headers?.["Authorization"]?.slice(6) ?? ""),
        (c) => c.charCodeAt(0),
      ),
    );
    assert.equal(decoded, "bøb:p:w");
    const imp = await loader.loadKubeconfig({ path: "/k/imp" });
    assert.deepEqual(imp.headers, {
      "Impersonate-User": "jane",
      "Impersonate-Uid": "7",
      "Impersonate-Group": "devs",
      "Impersonate-Extra-reason%2Fwhy": "on call",
    });
    assert.equal(imp.token, "t");
  });

  test("an exec plugin user is refused, naming the user and suggesting a token or kubectl proxy", async () => {
    const host = fakeHost(
      { "/k/config": await fixture("embedded.yaml") },
      {},
      recordingTransport([
        "ca",
        "clientCert",
        "proxy",
        "tlsServerName",
      ]),
    );
    const error = await rejectsWithCode(
      () => createConfigLoader(host).loadKubeconfig({ path: "/k/config", context: "prod-gke" }),
      "UnsupportedAuth",
    );
    assert.equal(error.subject, "gke");
    assert.equal(error.path, "/k/config");
    assert.match(error.message, /user "gke".*exec plugin "gke-gcloud-auth-plugin"/);
    assert.match(error.message, /token/);
    assert.match(error.message, /kubectl proxy/);
  });

  test("an auth-provider user is refused the same way", async () => {
    const host = fakeHost({ "/k/config": await fixture("file-paths.yaml") });
    const error = await rejectsWithCode(
      () => createConfigLoader(host).loadKubeconfig({ path: "/k/config", context: "oidc" }),
      "UnsupportedAuth",
    );
    assert.match(error.message, /user "oidc" uses the "oidc" auth-provider/);
  });

  test("missing files are FileNotFound errors naming the path", async () => {
    const host = fakeHost({ "/k/config": await fixture("file-paths.yaml") });
    const loader = createConfigLoader(host);
    const missingConfig = await rejectsWithCode(
      () => loader.loadKubeconfig({ path: "/nope" }),
      "FileNotFound",
    );
    assert.equal(missingConfig.path, "/nope");
    const missingCa = await rejectsWithCode(
      () => loader.loadKubeconfig({ path: "/k/config" }),
      "FileNotFound",
    );
    assert.equal(missingCa.path, "/k/certs/ca.crt");
    assert.match(missingCa.message, /certificate-authority/);
  });

  test("errors in the file name it", async () => {
    const host = fakeHost({ "/k/bad": "a: &x 1\n", "/k/ctx": kubeconfigJson({}, {}) });
    const loader = createConfigLoader(host);
    await assert.rejects(() => loader.loadKubeconfig({ path: "/k/bad" }), (error: unknown) => {
      assert.ok(error instanceof KubeconfigParseError);
      assert.equal(error.path, "/k/bad");
      assert.match(error.message, /^\/k\/bad:1:4: anchors/);
      return true;
    });
    const error = await rejectsWithCode(
      () => loader.loadKubeconfig({ path: "/k/ctx", context: "other" }),
      "ContextNotFound",
    );
    assert.equal(error.path, "/k/ctx");
    assert.match(error.message, /^\/k\/ctx: context "other"/);
  });

  test("a runtime without TLS support refuses a CA unless told how", async () => {
    const files = {
      "/k": kubeconfigJson({ "certificate-authority-data": b64(PEM_CA) }, { token: "t" }),
    };
    const loader = createConfigLoader(
      fakeHost(files, {}, undefined, { ca: "Use a custom fetch." }),
    );
    const error = await rejectsWithCode(
      () => loader.loadKubeconfig({ path: "/k" }),
      "UnsupportedTls",
    );
    assert.equal(error.subject, "ca");
    assert.match(
      error.message,
      /custom CA .* TestRuntime's fetch cannot apply\. Use a custom fetch\./,
    );
    assert.match(error.message, /kubectlProxy\(\)/);

    const ignored = await loader.loadKubeconfig({ path: "/k", ignoreUnsupportedTls: true });
    assert.equal(ignored.fetch, undefined);
    assert.equal(ignored.transport?.caData, PEM_CA);

    const own = (): Promise<Response> => Promise.resolve(new Response("own"));
    const withFetch = await loader.loadKubeconfig({ path: "/k", fetch: own });
    assert.equal(withFetch.fetch, own);

    const seen: TransportConfig[] = [];
    const created = await loader.loadKubeconfig({
      path: "/k",
      createFetch: (transport) => {
        seen.push(transport);
        return own;
      },
    });
    assert.equal(created.fetch, own);
    assert.deepEqual(seen, [{ caData: PEM_CA }]);
  });

  test("settings a runtime lacks are listed, and dropped only when ignoreUnsupportedTls", async () => {
    const transport = recordingTransport(["ca", "clientCert", "proxy"]);
    const files = {
      "/k": kubeconfigJson({ "insecure-skip-tls-verify": true, "tls-server-name": "n" }, {}),
    };
    const loader = createConfigLoader(fakeHost(files, {}, transport, {
      insecureSkipTlsVerify: "Run with a flag.",
    }));
    const error = await rejectsWithCode(
      () => loader.loadKubeconfig({ path: "/k" }),
      "UnsupportedTls",
    );
    assert.equal(error.subject, "insecureSkipTlsVerify,tlsServerName");
    assert.match(error.message, /insecure-skip-tls-verify, tls-server-name.*Run with a flag\./);
    const options = await loader.loadKubeconfig({ path: "/k", ignoreUnsupportedTls: true });
    assert.equal(options.fetch, undefined);
    assert.equal(transport.built.length, 0);
  });

  test("TLS settings are not applied to an http:// server, a proxy is", async () => {
    const transport = recordingTransport(["proxy"]);
    const files = {
      "/k": kubeconfigJson({
        server: "http://127.0.0.1:8080",
        "certificate-authority-data": b64(PEM_CA),
        "proxy-url": "http://proxy:3128",
      }, {}),
    };
    const options = await createConfigLoader(fakeHost(files, {}, transport)).loadKubeconfig({
      path: "/k",
    });
    assert.deepEqual(transport.built, [{ proxyUrl: "http://proxy:3128" }]);
    assert.deepEqual(options.transport, { proxyUrl: "http://proxy:3128" });
  });

  test("loadKubeconfig defaults to the first KUBECONFIG path, then ~/.kube/config", async () => {
    const text = kubeconfigJson({ server: "http://h" }, { token: "t" });
    const host = fakeHost({ "/a": text, "/home/me/.kube/config": text }, {
      KUBECONFIG: ":/a:/b",
      HOME: "/home/me",
    });
    assert.equal((await createConfigLoader(host).loadKubeconfig()).kubeconfigPath, "/a");
    const noEnv = fakeHost({ "/home/me/.kube/config": text }, { HOME: "/home/me" });
    assert.equal(createConfigLoader(noEnv).defaultKubeconfigPath(), "/home/me/.kube/config");
    const windows = createConfigLoader({
      ...fakeHost({}, { USERPROFILE: "C:\\Users\\me", KUBECONFIG: "C:\\k\\one;C:\\k\\two" }),
      pathListSeparator: ";",
    });
    assert.equal(windows.defaultKubeconfigPath(), "C:\\k\\one");
    const noHome = fakeHost({}, {});
    await rejectsWithCode(() => createConfigLoader(noHome).loadKubeconfig(), "NoConfig");
  });

  test("loadFromDefault: KUBECONFIG, else ~/.kube/config, else in-cluster, else NoConfig", async () => {
    const text = kubeconfigJson({ server: "http://h" }, { token: "t" });
    const inCluster = {
      "/var/run/secrets/kubernetes.io/serviceaccount/token": "sa-token",
      "/var/run/secrets/kubernetes.io/serviceaccount/ca.crt": PEM_CA,
    };
    const podEnv = { KUBERNETES_SERVICE_HOST: "10.0.0.1", KUBERNETES_SERVICE_PORT: "443" };
    const transport = recordingTransport(["ca"]);

    const explicit = fakeHost({ "/a": text, "/home/me/.kube/config": text, ...inCluster }, {
      KUBECONFIG: "/a",
      HOME: "/home/me",
      ...podEnv,
    }, transport);
    assert.equal((await createConfigLoader(explicit).loadFromDefault()).kubeconfigPath, "/a");

    // KUBECONFIG's files replace ~/.kube/config; missing ones are skipped, as by client-go.
    const missingListed = fakeHost({ "/home/me/.kube/config": text }, {
      KUBECONFIG: "/a",
      HOME: "/home/me",
    });
    const error = await rejectsWithCode(
      () => createConfigLoader(missingListed).loadFromDefault(),
      "NoConfig",
    );
    assert.equal(error.path, "/a");
    assert.match(error.message, /none of the files in KUBECONFIG exist \(\/a\)/);

    const home = fakeHost({ "/home/me/.kube/config": text, ...inCluster }, {
      HOME: "/home/me",
      ...podEnv,
    }, transport);
    const fromHome = await createConfigLoader(home).loadFromDefault();
    assert.equal(fromHome.kubeconfigPath, "/home/me/.kube/config");

    const pod = fakeHost(inCluster, { HOME: "/root", ...podEnv }, transport);
    const fromPod = await createConfigLoader(pod).loadFromDefault();
    assert.equal(fromPod.source, "in-cluster");
    assert.equal(fromPod.server, "https://10.0.0.1:443");
    assert.equal(fromPod.namespace, "default");
    assert.equal(await (fromPod.token as () => Promise<string>)(), "sa-token");

    const nothing = await rejectsWithCode(
      () => createConfigLoader(fakeHost({}, { HOME: "/root" })).loadFromDefault(),
      "NoConfig",
    );
    assert.match(nothing.message, /\/root\/.kube\/config does not exist/);
    assert.match(nothing.message, /KUBERNETES_SERVICE_HOST/);
  });

  test("bad options are refused up front, naming the option", async () => {
    const loader = createConfigLoader(fakeHost({}));
    const bad: [Record<string, unknown>, RegExp, ErrorConstructor][] = [
      [{ path: "" }, /options\.path must be a non-empty string/, TypeError],
      [{ context: 3 }, /options\.context must be a non-empty string, got 3/, TypeError],
      [{ fetch: "fetch" }, /options\.fetch must be a function/, TypeError],
      [
        { ignoreUnsupportedTls: "yes" },
        /options\.ignoreUnsupportedTls must be a boolean/,
        TypeError,
      ],
      [
        { tokenRefreshIntervalMs: -5 },
        /options\.tokenRefreshIntervalMs must be a finite number >= 0, got -5/,
        RangeError,
      ],
      [{ clock: {} }, /options\.clock must be a Clock/, TypeError],
      [{ signal: "stop" }, /options\.signal must be an AbortSignal/, TypeError],
    ];
    for (const [options, message, type] of bad) {
      await assert.rejects(() => loader.loadKubeconfig(options as never), (error: unknown) => {
        assert.ok(error instanceof type, String(error));
        assert.match((error as Error).message, message);
        return true;
      });
    }
    await assert.rejects(() => loader.loadInCluster({ serviceAccountDir: "" }), TypeError);
    await assert.rejects(() => loader.loadFromDefault(null as never), /options must be an object/);
  });

  test("an aborted signal stops loading with its reason", async () => {
    const host = fakeHost({ "/k": kubeconfigJson({}, {}) });
    const reason = new Error("stop");
    await assert.rejects(
      () =>
        createConfigLoader(host).loadKubeconfig({ path: "/k", signal: AbortSignal.abort(reason) }),
      (error) => error === reason,
    );
    assert.deepEqual(host.reads, []);
  });
});

describe("path helpers", () => {
  test("resolve relative paths against POSIX and Windows folders", () => {
    assert.equal(dirnameOf("/home/me/.kube/config"), "/home/me/.kube");
    assert.equal(dirnameOf("config"), ".");
    assert.equal(dirnameOf("/config"), "/");
    assert.equal(dirnameOf("C:\\Users\\me\\config"), "C:\\Users\\me");
    assert.equal(dirnameOf("C:\\config"), "C:\\");
    assert.equal(resolveFrom("/k", "certs/ca.crt"), "/k/certs/ca.crt");
    assert.equal(resolveFrom("/k", "/abs/ca.crt"), "/abs/ca.crt");
    assert.equal(resolveFrom("/", "ca.crt"), "/ca.crt");
    assert.equal(resolveFrom(".", "ca.crt"), "ca.crt");
    assert.equal(resolveFrom("C:\\k", "ca.crt"), "C:\\k\\ca.crt");
    assert.equal(resolveFrom("C:\\k", "D:/ca.crt"), "D:/ca.crt");
    assert.ok(isAbsolutePath("\\\\server\\share\\x"));
    assert.ok(!isAbsolutePath("certs/ca.crt"));
  });
});

describe("kubectlProxy", () => {
  test("points at kubectl proxy's default address, without a trailing slash", () => {
    const options = kubectlProxy();
    assert.equal(options.server, "http://127.0.0.1:8001");
    assert.equal(options.source, "kubectl-proxy");
    assert.equal(options.fetch, undefined);
    assert.equal(
      kubectlProxy("http://localhost:9000/api-prefix/").server,
      "http://localhost:9000/api-prefix",
    );
    assert.equal(new KubeClient(options).server, "http://127.0.0.1:8001");
  });

  test("refuses a URL that is not http(s)", () => {
    assert.throws(() => kubectlProxy("localhost:8001"), TypeError);
    assert.throws(() => kubectlProxy("not a url"), /kubectlProxy: url must be an http\(s\) URL/);
  });
});

describe(`loadKubeconfig on this runtime (${runtime})`, () => {
  test("reads the kubectl fixture with relative certificate paths from disk", async () => {
    const loader = createConfigLoader(await runtimeHost());
    const path = join(FIXTURES, "file-paths.yaml");
    const options = await loader.loadKubeconfig({ path });
    try {
      assert.equal(options.transport?.caData, await fixture("certs/ca.crt"));
      assert.equal(options.transport?.certData, await fixture("certs/client.crt"));
      assert.equal(options.transport?.keyData, await fixture("certs/client.key"));
      assert.equal(typeof options.fetch, "function"); // every runtime applies the CA and cert
      const tokenOptions = await loader.loadKubeconfig({ path, context: "file-token" });
      assert.equal(await (tokenOptions.token as () => Promise<string>)(), "file-token-abc");
      tokenOptions.close();
    } finally {
      options.close();
    }
  });

  test("the runtime host tells a missing file from other read errors", async () => {
    const host = await runtimeHost();
    const { dir, cleanup } = await tempDir();
    try {
      const missing = await host.readFile(join(dir, "missing")).then(() => undefined, (e) => e);
      assert.ok(missing !== undefined && host.isNotFound(missing));
      const folder = await host.readFile(dir).then(() => undefined, (e) => e);
      assert.ok(folder !== undefined && !host.isNotFound(folder));
      await writeFile(join(dir, "utf8"), "héllo ✓");
      assert.equal(await host.readFile(join(dir, "utf8")), "héllo ✓");
    } finally {
      await cleanup();
    }
  });

  test("loadFromDefault follows KUBECONFIG and falls back to ~/.kube/config", async () => {
    const { dir, cleanup } = await tempDir();
    try {
      const text = kubeconfigJson({ server: "https://127.0.0.1:6443" }, { token: "t" });
      await writeFile(join(dir, "explicit"), text);
      const env: Record<string, string> = { KUBECONFIG: join(dir, "explicit"), HOME: dir };
      const host = await runtimeHost();
      const loader = createConfigLoader({ ...host, env: (name) => env[name] });
      assert.equal((await loader.loadFromDefault()).kubeconfigPath, join(dir, "explicit"));
      delete env["KUBECONFIG"];
      const missing = await rejectsWithCode(() => loader.loadFromDefault(), "NoConfig");
      assert.equal(missing.path, `${dir}/.kube/config`);
      await mkdir(join(dir, ".kube"));
      await writeFile(join(dir, ".kube", "config"), text);
      const fromHome = await loader.loadFromDefault();
      assert.equal(fromHome.kubeconfigPath, `${dir}/.kube/config`);
      assert.equal(fromHome.token, "t");
    } finally {
      await cleanup();
    }
  });

  test("a KubeClient built from the options trusts the kubeconfig CA and presents the client certificate", async (t) => {
    await withTlsServer(t, async (server, dir) => {
      const text = (await fixture("embedded.yaml")).replace("https://127.0.0.1:6443", server.url);
      const path = join(dir, "config");
      await writeFile(path, text);
      const loader = createConfigLoader(await runtimeHost());
      const options = await loader.loadKubeconfig({ path });
      try {
        const client = new KubeClient(options);
        const answer = await (await client.request("/version")).json() as TlsServerAnswer;
        assert.equal(answer.path, "/version");
        assert.equal(answer.clientCertificate, "kinformer-user");

        const alice = await loader.loadKubeconfig({ path, context: "dev-alice" });
        const aliceAnswer = await (await new KubeClient(alice).request("/api"))
          .json() as TlsServerAnswer;
        assert.equal(aliceAnswer.clientCertificate, null);
        assert.equal(aliceAnswer.authorization, "Bearer eyJhbGciOiJSUzI1NiJ9.fake-token.signature");
        alice.close();
      } finally {
        options.close();
      }

      // Without the kubeconfig's CA the same server is not trusted.
      await assert.rejects(() => new KubeClient({ server: server.url }).request("/version"));
    });
  });

  test("tls-server-name verifies the server against that name", async (t) => {
    await withTlsServer(t, async (server, dir) => {
      const ca = await fixture("certs/ca.crt");
      const loader = createConfigLoader(await runtimeHost());
      for (const [name, ok] of [["kinformer.test", true], ["other.test", false]] as const) {
        const path = join(dir, name);
        await writeFile(
          path,
          kubeconfigJson({
            server: server.url,
            "certificate-authority-data": b64(ca),
            "tls-server-name": name,
          }, { token: "t" }),
        );
        const options = await loader.loadKubeconfig({ path });
        const client = new KubeClient(options);
        if (ok) assert.equal((await client.request("/x")).status, 200);
        else await assert.rejects(() => client.request("/x"));
        options.close();
      }
    }, { certName: "named-server" });
  });
});
