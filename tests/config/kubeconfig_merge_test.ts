// KUBECONFIG lists (issue 23.1), merged by client-go's loading rules: the first file that names
// a cluster, user, context or extension wins (whole); current-context from the first file that
// sets it; missing files in the list skipped, an explicit missing path an error; relative paths
// resolved against the file that names them; the host's list separator (":" or ";").
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import process from "node:process";
import {
  ClusterConfigError,
  type ClusterConfigErrorCode,
  type ConfigHost,
  createConfigLoader,
  KubeconfigParseError,
  mergeKubeconfigs,
  parseKubeconfig,
  resolveKubeconfig,
} from "../../src/config/mod.ts";
import { runtimeHost, tempDir } from "../fixtures/kubeconfig/helpers.ts";
import { failure } from "../_errors.ts";

const PEM = (what: string) => `-----BEGIN ${what}-----\nMIIB\n-----END ${what}-----\n`;

function host(
  files: Record<string, string>,
  env: Record<string, string>,
  separator = ":",
): ConfigHost & { reads: string[] } {
  const reads: string[] = [];
  return {
    runtime: "TestRuntime",
    reads,
    readFile: (path) => {
      reads.push(path);
      const text = files[path];
      return text === undefined
        ? Promise.reject(Object.assign(new Error(`ENOENT ${path}`), { code: "ENOENT" }))
        : Promise.resolve(text);
    },
    isNotFound: (error) => (error as { code?: string }).code === "ENOENT",
    env: (name) => env[name],
    pathListSeparator: separator,
    transport: {
      supports: ["ca", "clientCert", "insecureSkipTlsVerify", "tlsServerName", "proxy"],
      create: () => ({ fetch: () => Promise.resolve(new Response("{}")), close: () => {} }),
    },
  };
}

const json = (value: Record<string, unknown>) => JSON.stringify(value);

/** A main kubeconfig naming a context whose cluster and user sit in eks.yaml. */
const MAIN = json({
  clusters: [{ name: "local", cluster: { server: "https://127.0.0.1:6443" } }],
  contexts: [
    { name: "eks", context: { cluster: "eks", user: "eks", namespace: "apps" } },
    { name: "local", context: { cluster: "local" } },
  ],
  "current-context": "eks",
});
const EKS = json({
  clusters: [
    { name: "eks", cluster: { server: "https://eks.example" } },
    // Also named in MAIN: MAIN's entry wins, this CA is not used.
    { name: "local", cluster: { server: "https://other", "certificate-authority-data": "x" } },
  ],
  users: [{ name: "eks", user: { token: "eks-token" } }],
  contexts: [{ name: "eks", context: { cluster: "local" } }],
  "current-context": "local",
});

async function rejectsWithCode(
  promise: Promise<unknown>,
  code: ClusterConfigErrorCode,
): Promise<ClusterConfigError> {
  const error = await failure(promise);
  assert.ok(error instanceof ClusterConfigError, String(error));
  assert.equal(error.code, code, error.message);
  return error;
}

describe("KUBECONFIG lists", () => {
  test("a context in the first file whose cluster and user are in the second", async () => {
    const h = host({ "/home/me/.kube/config": MAIN, "/home/me/.kube/eks.yaml": EKS }, {
      KUBECONFIG: "/home/me/.kube/config:/home/me/.kube/eks.yaml",
    });
    const options = await createConfigLoader(h).loadKubeconfig();
    assert.equal(options.server, "https://eks.example");
    assert.equal(options.token, "eks-token");
    assert.equal(options.namespace, "apps", "the first file's context 'eks' wins");
    assert.equal(options.context, "eks", "current-context of the first file that sets it");
    assert.equal(options.kubeconfigPath, "/home/me/.kube/config");
    assert.deepEqual(options.kubeconfigPaths, [
      "/home/me/.kube/config",
      "/home/me/.kube/eks.yaml",
    ]);
    const local = await createConfigLoader(h).loadKubeconfig({ context: "local" });
    assert.equal(local.server, "https://127.0.0.1:6443", "the first file's cluster wins");
    assert.equal(local.transport, undefined, "nothing of the later entry is merged in");
  });

  test("current-context comes from the first file that sets it", async () => {
    const none = json({ contexts: [{ name: "a", context: { cluster: "c" } }] });
    const setsB = json({
      clusters: [{ name: "c", cluster: { server: "https://c" } }],
      contexts: [{ name: "b", context: { cluster: "c" } }],
      "current-context": "b",
    });
    const setsA = json({ "current-context": "a" });
    const h = host({ "/1": none, "/2": setsB, "/3": setsA }, { KUBECONFIG: "/1:/2:/3" });
    const options = await createConfigLoader(h).loadFromDefault();
    assert.equal(options.context, "b");
  });

  test("missing files in the list are skipped; duplicates are read once", async () => {
    const h = host({ "/b": EKS, "/a": MAIN }, { KUBECONFIG: ":/missing:/a::/b:/a" });
    const options = await createConfigLoader(h).loadKubeconfig();
    assert.equal(options.server, "https://eks.example");
    assert.deepEqual(h.reads, ["/missing", "/a", "/b"]);
    assert.deepEqual(createConfigLoader(h).defaultKubeconfigPaths(), ["/missing", "/a", "/b"]);
    assert.equal(createConfigLoader(h).defaultKubeconfigPath(), "/missing");
  });

  test("an explicitly given path that is missing is an error; a list of only missing files too", async () => {
    const h = host({ "/a": MAIN }, { KUBECONFIG: "/x:/y" });
    const explicit = await rejectsWithCode(
      createConfigLoader(h).loadKubeconfig({ path: "/nope" }),
      "FileNotFound",
    );
    assert.equal(explicit.path, "/nope");
    const none = await rejectsWithCode(createConfigLoader(h).loadKubeconfig(), "FileNotFound");
    assert.match(none.message, /none of the kubeconfig files in KUBECONFIG exist \(\/x, \/y\)/);
    const fromDefault = await rejectsWithCode(
      createConfigLoader(h).loadFromDefault(),
      "NoConfig",
    );
    assert.match(fromDefault.message, /none of the files in KUBECONFIG exist/);
  });

  test("with no file of the list present, loadFromDefault falls back to in-cluster, as client-go", async () => {
    const h = host({
      "/var/run/secrets/kubernetes.io/serviceaccount/token": "sa",
      "/var/run/secrets/kubernetes.io/serviceaccount/ca.crt": PEM("CERTIFICATE"),
      "/empty": "",
    }, {
      KUBECONFIG: "/missing:/empty",
      KUBERNETES_SERVICE_HOST: "10.0.0.1",
      KUBERNETES_SERVICE_PORT: "443",
    });
    const options = await createConfigLoader(h).loadFromDefault();
    assert.equal(options.source, "in-cluster");
  });

  test("relative paths resolve against the file that names them", async () => {
    const one = json({
      users: [{
        name: "u",
        user: { "client-certificate": "certs/u.crt", "client-key": "certs/u.key" },
      }],
      contexts: [{ name: "x", context: { cluster: "c", user: "u" } }],
      "current-context": "x",
    });
    const two = json({
      clusters: [{
        name: "c",
        cluster: { server: "https://c", "certificate-authority": "ca.crt" },
      }],
      users: [{ name: "t", user: { tokenFile: "tokens/t" } }],
      contexts: [{ name: "t", context: { cluster: "c", user: "t" } }],
    });
    const h = host({
      "/one/config": one,
      "/one/certs/u.crt": PEM("CERTIFICATE"),
      "/one/certs/u.key": PEM("PRIVATE KEY"),
      "/etc/two/config": two,
      "/etc/two/ca.crt": PEM("CERTIFICATE"),
      "/etc/two/tokens/t": "from-file",
    }, { KUBECONFIG: "/one/config:/etc/two/config" });
    const options = await createConfigLoader(h).loadKubeconfig();
    assert.equal(options.transport?.caData, PEM("CERTIFICATE"));
    assert.ok(h.reads.includes("/one/certs/u.crt") && h.reads.includes("/one/certs/u.key"));
    assert.ok(h.reads.includes("/etc/two/ca.crt"));
    const t = await createConfigLoader(h).loadKubeconfig({ context: "t" });
    assert.equal(await (t.token as () => Promise<string>)(), "from-file");
    assert.ok(h.reads.includes("/etc/two/tokens/t"));
  });

  test("Windows: the list is split on ';', drive letters intact", async () => {
    const h = host({ "C:\\Users\\me\\.kube\\config": MAIN, "D:\\kube\\eks.yaml": EKS }, {
      KUBECONFIG: "C:\\Users\\me\\.kube\\config;D:\\kube\\eks.yaml",
    }, ";");
    const options = await createConfigLoader(h).loadKubeconfig();
    assert.equal(options.server, "https://eks.example");
    assert.deepEqual(options.kubeconfigPaths, [
      "C:\\Users\\me\\.kube\\config",
      "D:\\kube\\eks.yaml",
    ]);
  });

  test("this runtime's host splits on the platform's separator", async () => {
    assert.equal((await runtimeHost()).pathListSeparator, process.platform === "win32" ? ";" : ":");
  });

  test("a file of the list that does not parse fails the load, naming it", async () => {
    const h = host({ "/a": MAIN, "/b": "clusters: [}\n" }, { KUBECONFIG: "/a:/b" });
    const error = await failure(createConfigLoader(h).loadKubeconfig());
    assert.ok(error instanceof KubeconfigParseError, String(error));
    assert.equal(error.path, "/b");
  });

  test("a context missing from every file names the files", async () => {
    const h = host({ "/a": MAIN, "/b": EKS }, { KUBECONFIG: "/a:/b" });
    const error = await rejectsWithCode(
      createConfigLoader(h).loadKubeconfig({ context: "prod" }),
      "ContextNotFound",
    );
    assert.equal(error.path, "/a");
  });

  test("mergeKubeconfigs: extensions by name, first wins; inputs untouched", () => {
    const a = parseKubeconfig(json({
      extensions: [{ name: "e", extension: { from: "a" } }],
      clusters: [{ name: "c", cluster: { server: "https://a", "certificate-authority": "ca" } }],
    }));
    const b = parseKubeconfig(json({
      extensions: [{ name: "e", extension: { from: "b" } }, { name: "f", extension: 1 }],
    }));
    const merged = mergeKubeconfigs([{ config: a, path: "/x/a" }, { config: b }]);
    assert.deepEqual(merged.extensions, [
      { name: "e", extension: { from: "a" } },
      { name: "f", extension: 1 },
    ]);
    assert.equal(merged.clusters[0]?.certificateAuthority, "/x/ca");
    assert.equal(a.clusters[0]?.certificateAuthority, "ca");
    assert.throws(() => resolveKubeconfig(merged), /no current-context/);
  });
});

describe(`KUBECONFIG lists on this runtime`, () => {
  test("loadFromDefault merges the files of KUBECONFIG from disk", async () => {
    const { dir, cleanup } = await tempDir();
    try {
      await mkdir(join(dir, "eks"));
      await writeFile(join(dir, "config"), MAIN);
      await writeFile(join(dir, "eks", "eks.yaml"), EKS);
      const base = await runtimeHost();
      const env: Record<string, string> = {
        KUBECONFIG: [join(dir, "missing"), join(dir, "config"), join(dir, "eks", "eks.yaml")]
          .join(base.pathListSeparator),
      };
      const loader = createConfigLoader({ ...base, env: (name) => env[name] });
      const options = await loader.loadFromDefault();
      try {
        assert.equal(options.server, "https://eks.example");
        assert.equal(options.token, "eks-token");
        assert.deepEqual(options.kubeconfigPaths, [
          join(dir, "config"),
          join(dir, "eks", "eks.yaml"),
        ]);
      } finally {
        options.close();
      }
    } finally {
      await cleanup();
    }
  });
});
