// TLS for real, on the runtime running the tests: the simulated cluster served over HTTPS by
// the Node adapter, testing/node (which authenticates client certificates: CN = user), and this
// runtime's config loader (Deno: Deno.createHttpClient, or node:https for tls-server-name; Bun:
// fetch's `tls`; Node: createNodeFetch) connecting with kubeconfigs that name a CA, a token, a
// client certificate, another CA, or a tls-server-name.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { createInformer } from "../../src/cache/mod.ts";
import { KubeApiError, KubeClient, KubeNetworkError, pods } from "../../src/client/mod.ts";
import {
  type ClusterClientOptions,
  ClusterConfigError,
  type ConfigHost,
  createConfigLoader,
} from "../../src/config/mod.ts";
import type { ServeOptions } from "@kinformer/simulator/node";
import { serve } from "../../src/adapters/node/serve.ts";
import { SimulatedCluster } from "@kinformer/simulator";
import { fixture, runtime, runtimeHost, tempDir } from "../fixtures/kubeconfig/helpers.ts";
import { failure } from "../_errors.ts";

const TOKEN = "t0k3n-for-tls";
const b64 = (text: string): string => btoa(text);

/** A kubeconfig (JSON) for `server` with these cluster and user fields. */
function kubeconfig(
  server: string,
  cluster: Record<string, unknown>,
  user: Record<string, unknown>,
): string {
  return JSON.stringify({
    apiVersion: "v1",
    kind: "Config",
    clusters: [{ name: "sim", cluster: { server, ...cluster } }],
    users: [{ name: "me", user }],
    contexts: [{ name: "sim", context: { cluster: "sim", user: "me", namespace: "default" } }],
    "current-context": "sim",
  });
}

interface Env {
  cluster: SimulatedCluster;
  url: string;
  /** Loads a kubeconfig with this runtime's loader. */
  load(
    cluster: Record<string, unknown>,
    user: Record<string, unknown>,
  ): Promise<ClusterClientOptions>;
}

/** Runs `body` against a simulated cluster served over HTTPS (token `TOKEN`, client CA `ca.crt`). */
async function withHttpsCluster(
  body: (env: Env) => Promise<void>,
  options: { certName?: string; clientCa?: string } = {},
): Promise<void> {
  const cluster = new SimulatedCluster({ token: TOKEN });
  cluster.seed(pods, 3);
  const name = options.certName ?? "server";
  const tls: NonNullable<ServeOptions["tls"]> = {
    cert: await fixture(`certs/${name}.crt`),
    key: await fixture(`certs/${name}.key`),
    clientCa: options.clientCa ?? await fixture("certs/ca.crt"),
  };
  const server = await serve(cluster.fetch, { tls });
  const { dir, cleanup } = await tempDir();
  const loader = createConfigLoader(await runtimeHost());
  const opened: ClusterClientOptions[] = [];
  let n = 0;
  try {
    await body({
      cluster,
      url: server.url,
      load: async (clusterFields, user) => {
        const path = join(dir, `config-${n++}`);
        await writeFile(path, kubeconfig(server.url, clusterFields, user));
        const loaded = await loader.loadKubeconfig({ path });
        opened.push(loaded);
        return loaded;
      },
    });
  } finally {
    for (const options of opened) options.close();
    await cleanup();
    cluster.close();
    await server.close();
  }
}

/** Every message along an error's cause chain. */
function messages(error: unknown): string {
  const out: string[] = [];
  for (let e = error; e instanceof Error; e = e.cause) out.push(e.message);
  return out.join(" <- ");
}

describe(`HTTPS to the simulated cluster with the ${runtime} loader`, () => {
  test("CA + token: the server is verified with the kubeconfig's CA", async () => {
    await withHttpsCluster(async ({ cluster, load }) => {
      const ca = await fixture("certs/ca.crt");
      const options = await load({ "certificate-authority-data": b64(ca) }, { token: TOKEN });
      const list = await new KubeClient(options).list(pods);
      assert.equal(list.items.length, 3);
      assert.equal(cluster.requests.at(-1)?.user, undefined); // a token, no certificate
    });
  });

  test("CA + client certificate: the simulator authenticates the certificate's CN", async () => {
    await withHttpsCluster(async ({ cluster, load }) => {
      const options = await load(
        { "certificate-authority-data": b64(await fixture("certs/ca.crt")) },
        {
          "client-certificate-data": b64(await fixture("certs/client.crt")),
          "client-key-data": b64(await fixture("certs/client.key")),
        },
      );
      const list = await new KubeClient(options).list(pods);
      assert.equal(list.items.length, 3);
      assert.equal(cluster.requests.at(-1)?.user, "kinformer-user");
    });
  });

  test("a client certificate from a CA the server does not trust is not authenticated: 401", async () => {
    await withHttpsCluster(async ({ cluster, load }) => {
      const options = await load(
        { "certificate-authority-data": b64(await fixture("certs/ca.crt")) },
        {
          "client-certificate-data": b64(await fixture("certs/second-client.crt")),
          "client-key-data": b64(await fixture("certs/second-client.key")),
        },
      );
      const error = await failure(new KubeClient(options).list(pods));
      assert.ok(error instanceof KubeApiError);
      assert.equal(error.code, 401);
      assert.equal(cluster.requests.at(-1)?.user, undefined);
    });
  });

  test("wrong CA: a clear certificate error", async () => {
    await withHttpsCluster(async ({ cluster, load }) => {
      const options = await load(
        { "certificate-authority-data": b64(await fixture("certs/second-ca.crt")) },
        { token: TOKEN },
      );
      const error = await failure(new KubeClient(options).list(pods));
      assert.ok(error instanceof KubeNetworkError, String(error));
      // Deno: "invalid peer certificate: UnknownIssuer"; Bun and Node: OpenSSL's
      // "self signed certificate in certificate chain" (Node's message also names the fix).
      assert.match(messages(error), /certificate|UnknownIssuer/i);
      assert.equal(cluster.requests.length, 0, "nothing reached the server");
    });
  });

  test("tls-server-name: the certificate is checked against that name, not the URL's host", async () => {
    await withHttpsCluster(async ({ cluster, load }) => {
      const ca = b64(await fixture("certs/ca.crt"));
      // The server's certificate names only kinformer.test; the URL says 127.0.0.1.
      const bare = await load({ "certificate-authority-data": ca }, { token: TOKEN });
      assert.match(messages(await failure(new KubeClient(bare).list(pods))), /certificate|cert/i);
      const named = await load(
        { "certificate-authority-data": ca, "tls-server-name": "kinformer.test" },
        { token: TOKEN },
      );
      assert.equal((await new KubeClient(named).list(pods)).items.length, 3);
      const other = await load(
        { "certificate-authority-data": ca, "tls-server-name": "other.test" },
        { token: TOKEN },
      );
      assert.match(messages(await failure(new KubeClient(other).list(pods))), /certificate|cert/i);
      assert.equal(cluster.requests.length, 1);
    }, { certName: "named-server" });
  });

  test("insecure-skip-tls-verify connects without a CA (only because the kubeconfig says so)", async () => {
    await withHttpsCluster(async ({ load }) => {
      const insecure = await load({ "insecure-skip-tls-verify": true }, { token: TOKEN });
      assert.equal((await new KubeClient(insecure).list(pods)).items.length, 3);
      const verified = await load({}, { token: TOKEN });
      await failure(new KubeClient(verified).list(pods)); // system CAs: not trusted
    });
  });

  test("a CA, certificate or key no request could use fails the load, not every request", async () => {
    await withHttpsCluster(async ({ load }) => {
      const garbled = "-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydA==\n-----END CERTIFICATE-----\n";
      const cert = b64(await fixture("certs/client.crt"));
      const cases: [string, Record<string, unknown>, Record<string, unknown>, RegExp][] = [
        ["a garbled CA", { "certificate-authority-data": b64(garbled) }, {}, /caData/],
        [
          "a garbled client certificate",
          {},
          {
            "client-certificate-data": b64(garbled),
            "client-key-data": b64(await fixture("certs/client.key")),
          },
          /certData/,
        ],
        [
          "a key that is not the certificate's",
          {},
          {
            "client-certificate-data": cert,
            "client-key-data": b64(await fixture("certs/second-client.key")),
          },
          /not the key of certData/,
        ],
      ];
      for (const [what, cluster, user, reason] of cases) {
        const error = await failure(
          load(
            { "certificate-authority-data": b64(await fixture("certs/ca.crt")), ...cluster },
            user,
          ),
        );
        assert.ok(error instanceof TypeError, `${what}: ${String(error)}`);
        assert.match(error.message, reason, what);
        assert.doesNotMatch(messages(error), /BEGIN|bm90IGEgY2VydA/, what);
      }
    });
  });

  test("an informer syncs and watches over HTTPS with a client certificate", async () => {
    await withHttpsCluster(async ({ cluster, load }) => {
      const options = await load(
        { "certificate-authority-data": b64(await fixture("certs/ca.crt")) },
        {
          "client-certificate-data": b64(await fixture("certs/client.crt")),
          "client-key-data": b64(await fixture("certs/client.key")),
        },
      );
      const controller = new AbortController();
      const informer = createInformer(new KubeClient(options), {
        resource: pods,
        namespace: "default",
      });
      const seen: string[] = [];
      const done = (async () => {
        for await (const event of informer.events({ signal: controller.signal })) {
          if (event.type === "add" && !event.isInInitialList) {
            seen.push(event.object.metadata.name ?? "");
            return;
          }
          if (event.type === "synced") {
            cluster.create(pods, { metadata: { namespace: "default", name: "over-tls" } });
          }
        }
      })();
      informer.start({ signal: controller.signal });
      await done;
      controller.abort();
      await informer.stop();
      assert.deepEqual(seen, ["over-tls"]);
      assert.ok(cluster.requests.some((r) => r.verb === "watch" && r.user === "kinformer-user"));
    });
  });
});

describe("the runtime's own serve adapter over HTTPS", () => {
  test("serves HTTPS with a certificate and key (CA + token)", async () => {
    const adapter = runtime === "deno"
      ? await import("../../src/adapters/deno/serve.ts")
      : runtime === "bun"
      ? await import("../../src/adapters/bun/serve.ts")
      : await import("../../src/adapters/node/serve.ts");
    const cluster = new SimulatedCluster({ token: TOKEN });
    cluster.seed(pods, 1);
    const server = await adapter.serve(cluster.fetch, {
      tls: { cert: await fixture("certs/server.crt"), key: await fixture("certs/server.key") },
    });
    const { dir, cleanup } = await tempDir();
    try {
      assert.match(server.url, /^https:\/\/127\.0\.0\.1:\d+$/);
      const path = join(dir, "config");
      await writeFile(
        path,
        kubeconfig(
          server.url,
          { "certificate-authority-data": b64(await fixture("certs/ca.crt")) },
          { token: TOKEN },
        ),
      );
      const options = await createConfigLoader(await runtimeHost()).loadKubeconfig({ path });
      try {
        assert.equal((await new KubeClient(options).list(pods)).items.length, 1);
      } finally {
        options.close();
      }
    } finally {
      await cleanup();
      cluster.close();
      await server.close();
    }
  });

  test("Deno.serve and Bun.serve refuse tls.clientCa, pointing to @kinformer/kinformer/testing/node", async () => {
    if (runtime === "node") return; // their adapters cannot be imported on Node
    const adapter = runtime === "deno"
      ? await import("../../src/adapters/deno/serve.ts")
      : await import("../../src/adapters/bun/serve.ts");
    const tls = {
      cert: await fixture("certs/server.crt"),
      key: await fixture("certs/server.key"),
      clientCa: await fixture("certs/ca.crt"),
    };
    await assert.rejects(
      async () => await adapter.serve(() => new Response(), { tls }),
      (error: unknown) =>
        error instanceof TypeError &&
        error.message.includes("@kinformer/kinformer/testing/node,"),
    );
  });

  test("bad tls options are refused with a TypeError naming them", async () => {
    await assert.rejects(
      () => serve(() => new Response(), { tls: { cert: "nope", key: "nope" } }),
      /options\.tls\.cert must be PEM/,
    );
  });
});

describe("a runtime that cannot apply a client certificate", () => {
  /** A host whose transport applies only a CA. */
  function caOnlyHost(files: Record<string, string>): ConfigHost {
    return {
      runtime: "CaOnly",
      readFile: (path) => {
        const text = files[path];
        if (text === undefined) {
          return Promise.reject(Object.assign(new Error(path), { code: "ENOENT" }));
        }
        return Promise.resolve(text);
      },
      isNotFound: (error) => (error as { code?: string }).code === "ENOENT",
      env: () => undefined,
      pathListSeparator: ":",
      transport: {
        supports: ["ca"],
        create: () => ({ fetch: () => Promise.resolve(new Response("{}")), close: () => {} }),
      },
    };
  }

  test("ignoreUnsupportedTls never drops a client certificate: it is refused", async () => {
    const pem = "-----BEGIN CERTIFICATE-----\nMIIBfake\n-----END CERTIFICATE-----\n";
    const key = "-----BEGIN PRIVATE KEY-----\nMIIBfake\n-----END PRIVATE KEY-----\n";
    const loader = createConfigLoader(caOnlyHost({
      "/k": kubeconfig("https://10.0.0.1:6443", { "certificate-authority-data": b64(pem) }, {
        "client-certificate-data": b64(pem),
        "client-key-data": b64(key),
      }),
    }));
    const error = await failure(loader.loadKubeconfig({ path: "/k", ignoreUnsupportedTls: true }));
    assert.ok(error instanceof ClusterConfigError);
    assert.equal(error.code, "UnsupportedTls");
    assert.equal(error.subject, "clientCert");
    assert.match(error.message, /never drops a client certificate/);
  });
});
