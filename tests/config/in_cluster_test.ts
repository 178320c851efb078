import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { KubeClient } from "../../src/client/kube_client.ts";
import {
  ClusterConfigError,
  createConfigLoader,
  loadInClusterConfig,
  tokenFileSource,
} from "../../src/config/mod.ts";
import { SERVICE_ACCOUNT_DIR } from "../../src/config/in_cluster.ts";
import type { ClusterConfigErrorCode, InClusterConfigOptions } from "../../src/config/mod.ts";
import { ManualClock } from "../../src/testing/manual_clock.ts";
import type { ErrorContext } from "../../src/util/error_context.ts";
import { captureConsole } from "../_console.ts";
import {
  fixture,
  runtime,
  runtimeHost,
  tempDir,
  withTlsServer,
} from "../fixtures/kubeconfig/helpers.ts";
import type { TlsServerAnswer } from "../fixtures/kubeconfig/helpers.ts";

const PEM_CA = "-----BEGIN CERTIFICATE-----\nMIIBfake\n-----END CERTIFICATE-----\n";
const POD_ENV = { KUBERNETES_SERVICE_HOST: "10.96.0.1", KUBERNETES_SERVICE_PORT: "443" };

function notFound(path: string): Error {
  return Object.assign(new Error(`ENOENT: ${path}`), { code: "ENOENT" });
}

/** In-cluster options over in-memory files; `reads` counts reads per path. */
function podOptions(
  files: Record<string, string>,
  env: Record<string, string> = POD_ENV,
  extra: Partial<InClusterConfigOptions> = {},
): InClusterConfigOptions & { reads: Map<string, number> } {
  const reads = new Map<string, number>();
  return {
    reads,
    serviceAccountDir: "/sa",
    readFile: (path) => {
      reads.set(path, (reads.get(path) ?? 0) + 1);
      const text = files[path];
      return text === undefined ? Promise.reject(notFound(path)) : Promise.resolve(text);
    },
    env: (name) => env[name],
    isNotFound: (error) => (error as { code?: string }).code === "ENOENT",
    ...extra,
  };
}

async function rejectsWithCode(
  promise: Promise<unknown>,
  code: ClusterConfigErrorCode,
): Promise<ClusterConfigError> {
  let caught: unknown;
  try {
    await promise;
  } catch (error) {
    caught = error;
  }
  assert.ok(caught instanceof ClusterConfigError, `expected ClusterConfigError, got ${caught}`);
  assert.equal(caught.code, code, caught.message);
  return caught;
}

describe("loadInClusterConfig", () => {
  test("builds the server from KUBERNETES_SERVICE_HOST and _PORT, reads token, CA and namespace", async () => {
    const config = await loadInClusterConfig(podOptions({
      "/sa/token": "  sa-token\n",
      "/sa/ca.crt": PEM_CA,
      "/sa/namespace": "team-a\n",
    }));
    assert.equal(config.server, "https://10.96.0.1:443");
    assert.equal(await config.token(), "sa-token");
    assert.equal(config.caData, PEM_CA);
    assert.equal(config.namespace, "team-a");
    assert.equal(config.tokenFile, "/sa/token");
  });

  test("brackets an IPv6 service host, once", async () => {
    const files = { "/sa/token": "t", "/sa/ca.crt": PEM_CA };
    const v6 = await loadInClusterConfig(podOptions(files, {
      KUBERNETES_SERVICE_HOST: "fd00:10:96::1",
      KUBERNETES_SERVICE_PORT: "6443",
    }));
    assert.equal(v6.server, "https://[fd00:10:96::1]:6443");
    const already = await loadInClusterConfig(podOptions(files, {
      KUBERNETES_SERVICE_HOST: "[fd00::1]",
      KUBERNETES_SERVICE_PORT: "443",
    }));
    assert.equal(already.server, "https://[fd00::1]:443");
  });

  test("namespace: POD_NAMESPACE, else the namespace file, else default", async () => {
    const files = { "/sa/token": "t", "/sa/ca.crt": PEM_CA, "/sa/namespace": "from-file" };
    const fromEnv = await loadInClusterConfig(
      podOptions(files, { ...POD_ENV, POD_NAMESPACE: "from-env" }),
    );
    assert.equal(fromEnv.namespace, "from-env");
    assert.equal((await loadInClusterConfig(podOptions(files))).namespace, "from-file");
    const noFile = await loadInClusterConfig(
      podOptions({ "/sa/token": "t", "/sa/ca.crt": PEM_CA }),
    );
    assert.equal(noFile.namespace, "default");
  });

  test("outside a pod it is a NotInCluster error", async () => {
    const files = { "/sa/token": "t", "/sa/ca.crt": PEM_CA };
    const error = await rejectsWithCode(loadInClusterConfig(podOptions(files, {})), "NotInCluster");
    assert.match(error.message, /KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT/);
    await rejectsWithCode(
      loadInClusterConfig(podOptions(files, { KUBERNETES_SERVICE_HOST: "10.0.0.1" })),
      "NotInCluster",
    );
    await rejectsWithCode(
      loadInClusterConfig(podOptions(files, { ...POD_ENV, KUBERNETES_SERVICE_PORT: "not a port" })),
      "NotInCluster",
    );
  });

  test("a missing token or CA names the file and the likely cause", async () => {
    const noToken = await rejectsWithCode(
      loadInClusterConfig(podOptions({ "/sa/ca.crt": PEM_CA })),
      "FileNotFound",
    );
    assert.equal(noToken.path, "/sa/token");
    assert.match(noToken.message, /automountServiceAccountToken/);
    const noCa = await rejectsWithCode(
      loadInClusterConfig(podOptions({ "/sa/token": "t" })),
      "FileNotFound",
    );
    assert.equal(noCa.path, "/sa/ca.crt");
  });

  test("an empty token or a CA that is not PEM is InvalidFile", async () => {
    const empty = await rejectsWithCode(
      loadInClusterConfig(podOptions({ "/sa/token": " \n", "/sa/ca.crt": PEM_CA })),
      "InvalidFile",
    );
    assert.equal(empty.path, "/sa/token");
    const notPem = await rejectsWithCode(
      loadInClusterConfig(podOptions({ "/sa/token": "t", "/sa/ca.crt": "garbage" })),
      "InvalidFile",
    );
    assert.equal(notPem.path, "/sa/ca.crt");
  });

  test("uses the standard service account folder by default", async () => {
    const options = podOptions({
      [`${SERVICE_ACCOUNT_DIR}/token`]: "t",
      [`${SERVICE_ACCOUNT_DIR}/ca.crt`]: PEM_CA,
    });
    delete options.serviceAccountDir;
    const config = await loadInClusterConfig(options);
    assert.equal(config.tokenFile, "/var/run/secrets/kubernetes.io/serviceaccount/token");
  });

  test("an aborted signal stops before reading", async () => {
    const options = podOptions({ "/sa/token": "t", "/sa/ca.crt": PEM_CA });
    const reason = new Error("stop");
    await assert.rejects(
      () => loadInClusterConfig({ ...options, signal: AbortSignal.abort(reason) }),
      (error) => error === reason,
    );
    assert.equal(options.reads.size, 0);
  });
});

describe("service account token rotation", () => {
  test("the token is re-read at most once per interval on the injected clock", async () => {
    const files: Record<string, string> = { "/sa/token": "one", "/sa/ca.crt": PEM_CA };
    const clock = new ManualClock();
    const options = podOptions(files, POD_ENV, { clock });
    const config = await loadInClusterConfig(options);
    assert.equal(await config.token(), "one");
    files["/sa/token"] = "two";
    await clock.advance(30_000);
    assert.equal(await config.token(), "one");
    await clock.advance(30_000);
    assert.equal(await config.token(), "two");
    assert.equal(await config.token(), "two");
    assert.equal(options.reads.get("/sa/token"), 2);
  });

  test("the interval is configurable", async () => {
    const files: Record<string, string> = { "/sa/token": "one", "/sa/ca.crt": PEM_CA };
    const clock = new ManualClock();
    const config = await loadInClusterConfig(
      podOptions(files, POD_ENV, { clock, tokenRefreshIntervalMs: 5_000 }),
    );
    files["/sa/token"] = "two";
    await clock.advance(5_000);
    assert.equal(await config.token(), "two");
  });

  test("concurrent callers share one read", async () => {
    let reads = 0;
    let release: (text: string) => void = () => {};
    const token = tokenFileSource("/t", {
      readFile: () => {
        reads++;
        return new Promise<string>((resolve) => {
          release = resolve;
        });
      },
      clock: new ManualClock(),
    });
    const all = Promise.all([token(), token(), token()]);
    release("shared");
    assert.deepEqual(await all, ["shared", "shared", "shared"]);
    assert.equal(reads, 1);
  });

  test("a failed re-read keeps the cached token and reports the error", async () => {
    const clock = new ManualClock();
    const errors: unknown[] = [];
    let fail = false;
    const token = tokenFileSource("/t", {
      readFile: () => (fail ? Promise.reject(new Error("EIO")) : Promise.resolve("cached")),
      clock,
      onError: (error) => errors.push(error),
    });
    assert.equal(await token(), "cached");
    fail = true;
    await clock.advance(60_000);
    assert.equal(await token(), "cached");
    assert.equal(errors.length, 1);
    assert.match(String(errors[0]), /EIO/);
    // Not retried on every call: the next attempt waits for the next interval.
    assert.equal(await token(), "cached");
    assert.equal(errors.length, 1);
  });

  test("failed re-reads: the one ErrorContext; by default one line at once, then at most one a minute, and one when it reads again", async () => {
    const clock = new ManualClock();
    const contexts: ErrorContext[] = [];
    let fail = false;
    const readFile = (): Promise<string> =>
      fail ? Promise.reject(new Error("EIO: i/o error")) : Promise.resolve("cached");
    const given = tokenFileSource("/t", {
      readFile,
      clock,
      refreshIntervalMs: 1_000,
      onError: (_error, context) => void contexts.push(context),
    });
    assert.equal(await given(), "cached");
    fail = true;
    await clock.advance(1_000);
    await given();
    assert.deepEqual(contexts, [{
      kind: "other",
      phase: "credentials",
      source: "token file /t",
      action: "using the cached token",
      retryInMs: 1_000,
    }]);

    const printed = captureConsole();
    try {
      fail = false;
      const token = tokenFileSource("/t", { readFile, clock, refreshIntervalMs: 1_000 });
      assert.equal(await token(), "cached");
      fail = true;
      for (let i = 0; i < 120; i++) {
        await clock.advance(1_000);
        assert.equal(await token(), "cached");
      }
      fail = false;
      await clock.advance(1_000);
      await token();
      assert.deepEqual(printed.lines.map((line) => line.replace(/ \(next in .*$/, "")), [
        "error token file /t: credentials error: EIO: i/o error; using the cached token",
        "error token file /t: credentials error: EIO: i/o error; using the cached token",
        "warn token file /t: healthy again after 120 errors",
      ]);
    } finally {
      printed.restore();
    }
  });

  test("a failed first read rejects, and the next call tries again", async () => {
    let fail = true;
    const token = tokenFileSource("/t", {
      readFile: () => (fail ? Promise.reject(new Error("EACCES")) : Promise.resolve("late")),
      clock: new ManualClock(),
    });
    await assert.rejects(token(), /EACCES/);
    fail = false;
    assert.equal(await token(), "late");
  });

  test("a readFile that throws synchronously does not wedge the source", async () => {
    let fail = true;
    const token = tokenFileSource("/t", {
      readFile: () => {
        if (fail) throw new Error("sync");
        return Promise.resolve("ok");
      },
      clock: new ManualClock(),
    });
    await assert.rejects(token(), /sync/);
    fail = false;
    assert.equal(await token(), "ok");
  });

  test("refreshIntervalMs must be a finite number >= 0", () => {
    const readFile = (): Promise<string> => Promise.resolve("t");
    assert.throws(() => tokenFileSource("/t", { readFile, refreshIntervalMs: -1 }), RangeError);
    assert.throws(
      () => tokenFileSource("/t", { readFile, refreshIntervalMs: NaN }),
      /refreshIntervalMs/,
    );
  });
});

describe(`loadInCluster on this runtime (${runtime})`, () => {
  test("reads a mounted service account from disk and follows token rotation", async () => {
    const { dir, cleanup } = await tempDir();
    try {
      const sa = join(dir, "serviceaccount");
      await mkdir(sa);
      await writeFile(join(sa, "token"), "disk-token-1\n");
      await writeFile(join(sa, "ca.crt"), await fixture("certs/ca.crt"));
      await writeFile(join(sa, "namespace"), "kube-system");
      const host = await runtimeHost();
      const env: Record<string, string> = POD_ENV;
      const loader = createConfigLoader({ ...host, env: (name) => env[name] });
      const clock = new ManualClock();
      // Every runtime applies the pod's CA with no extra package (Node: node:https).
      const options = await loader.loadInCluster({ serviceAccountDir: sa, clock });
      try {
        assert.equal(options.source, "in-cluster");
        assert.equal(options.server, "https://10.96.0.1:443");
        assert.equal(options.namespace, "kube-system");
        assert.equal(options.transport?.caData, await fixture("certs/ca.crt"));
        assert.equal(typeof options.fetch, "function");
        const token = options.token as () => Promise<string>;
        assert.equal(await token(), "disk-token-1");
        await writeFile(join(sa, "token"), "disk-token-2\n");
        assert.equal(await token(), "disk-token-1");
        await clock.advance(60_000);
        assert.equal(await token(), "disk-token-2");
      } finally {
        options.close();
      }
    } finally {
      await cleanup();
    }
  });

  test("a KubeClient from the options trusts the pod's CA and sends the rotating token", async (t) => {
    await withTlsServer(t, async (server, dir) => {
      await writeFile(join(dir, "token"), "rotating-1");
      await writeFile(join(dir, "ca.crt"), await fixture("certs/ca.crt"));
      const url = new URL(server.url);
      const env: Record<string, string> = {
        KUBERNETES_SERVICE_HOST: url.hostname,
        KUBERNETES_SERVICE_PORT: url.port,
      };
      const loader = createConfigLoader({ ...(await runtimeHost()), env: (name) => env[name] });
      const clock = new ManualClock();
      const options = await loader.loadInCluster({ serviceAccountDir: dir, clock });
      try {
        const client = new KubeClient(options);
        const first = await (await client.request("/api")).json() as TlsServerAnswer;
        assert.equal(first.authorization, "Bearer rotating-1");
        await writeFile(join(dir, "token"), "rotating-2");
        await clock.advance(60_000);
        const second = await (await client.request("/api")).json() as TlsServerAnswer;
        assert.equal(second.authorization, "Bearer rotating-2");
      } finally {
        options.close();
      }
    });
  });
});
