// serial: sets process environment variables, which Deno shares between the modules it runs in
// parallel, so scripts/test.mjs runs this file on its own there.
// Proxies through this runtime's config loader (Deno, Bun or Node), as kubectl applies them: a
// kubeconfig `proxy-url`, else HTTPS_PROXY/HTTP_PROXY minus NO_PROXY and loopback (Go's
// httpproxy rules). The simulated cluster is served on 127.0.0.1, and the kubeconfig names it
// `kinformer.test` (a reserved name that resolves nowhere; its certificate is for that name), so
// a request reaches it only through a loopback proxy that routes the name there.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { KubeClient, KubeNetworkError, pods } from "../../src/client/mod.ts";
import {
  type ClusterClientOptions,
  ClusterConfigError,
  createConfigLoader,
} from "../../src/config/mod.ts";
import { serve } from "../../src/adapters/node/serve.ts";
import { SimulatedCluster } from "@kinformer/simulator";
import { fixture, runtime, runtimeHost, tempDir } from "../fixtures/kubeconfig/helpers.ts";
import { failure } from "../_errors.ts";
import {
  httpProxy,
  NO_PROXY_VARS,
  socksProxy,
  type TestProxy,
  toLoopback,
  withEnv,
} from "./_proxies.ts";

const b64 = (text: string): string => btoa(text);

/** A simulated cluster with 3 pods, served over HTTPS (`certName`'s certificate) or HTTP. */
async function startCluster(options: { certName?: string; plain?: boolean } = {}) {
  const cluster = new SimulatedCluster();
  cluster.seed(pods, 3);
  const certName = options.certName ?? "named-server"; // kinformer.test only
  const server = await serve(
    cluster.fetch,
    options.plain === true ? {} : {
      tls: {
        cert: await fixture(`certs/${certName}.crt`),
        key: await fixture(`certs/${certName}.key`),
      },
    },
  );
  const port = Number(new URL(server.url).port);
  return {
    port,
    close: async () => {
      cluster.close();
      await server.close();
    },
  };
}

/** Runs `body` with a cluster from {@linkcode startCluster}, closing it afterwards. */
async function withCluster(
  options: { certName?: string; plain?: boolean },
  body: (cluster: { port: number }) => Promise<void>,
): Promise<void> {
  const cluster = await startCluster(options);
  try {
    await body(cluster);
  } finally {
    await cluster.close();
  }
}

/** Loads a kubeconfig for `server` (with the fixture CA for https) with this runtime's loader. */
async function load(
  server: string,
  cluster: Record<string, unknown> = {},
): Promise<ClusterClientOptions> {
  const { dir, cleanup } = await tempDir();
  try {
    const path = join(dir, "config");
    const tls = server.startsWith("https:")
      ? { "certificate-authority-data": b64(await fixture("certs/ca.crt")) }
      : {};
    await writeFile(
      path,
      JSON.stringify({
        clusters: [{ name: "c", cluster: { server, ...tls, ...cluster } }],
        contexts: [{ name: "c", context: { cluster: "c" } }],
        "current-context": "c",
      }),
    );
    return await createConfigLoader(await runtimeHost()).loadKubeconfig({ path });
  } finally {
    await cleanup();
  }
}

/** Lists pods with `options`, closing them afterwards. */
async function listWith(options: ClusterClientOptions): Promise<number> {
  try {
    return (await new KubeClient(options).list(pods)).items.length;
  } finally {
    options.close();
  }
}

/** Runs `body` with the proxies, closing them afterwards. */
async function withProxies<T extends TestProxy[]>(
  proxies: Promise<T[number]>[],
  body: (...proxies: T) => Promise<void>,
): Promise<void> {
  const started = await Promise.all(proxies) as unknown as T;
  try {
    await body(...started);
  } finally {
    for (const proxy of started) await proxy.close();
  }
}

const connectLine = (port: number, via = "kinformer.test"): RegExp =>
  new RegExp(`^CONNECT ${via.replace(/\./g, "\\.")}:${port} auth=Basic `);

describe(`proxies from the environment with the ${runtime} loader`, () => {
  test("HTTPS_PROXY takes an https server through the proxy (CONNECT, with its credentials)", async () => {
    await withCluster({}, async (cluster) => {
      await withProxies([httpProxy({ route: toLoopback(cluster.port) })], async (proxy) => {
        await withEnv({ ...NO_PROXY_VARS, HTTPS_PROXY: proxy.url }, async () => {
          const options = await load(`https://kinformer.test:${cluster.port}`);
          assert.equal(options.transport?.proxyUrl, `${proxy.url}/`);
          assert.equal(await listWith(options), 3);
        });
        assert.ok(proxy.seen.length >= 1);
        for (const line of proxy.seen) assert.match(line, connectLine(cluster.port));
      });
    });
  });

  test("lower-case https_proxy is read too; HTTPS_PROXY wins over it", async () => {
    await withCluster({}, async (cluster) => {
      const route = toLoopback(cluster.port);
      await withProxies([httpProxy({ route }), httpProxy({ route })], async (upper, lower) => {
        await withEnv({ ...NO_PROXY_VARS, https_proxy: lower.url }, async () => {
          assert.equal(await listWith(await load(`https://kinformer.test:${cluster.port}`)), 3);
        });
        assert.ok(lower.seen.length >= 1);
        lower.seen.length = 0;
        await withEnv(
          { ...NO_PROXY_VARS, HTTPS_PROXY: upper.url, https_proxy: lower.url },
          async () => {
            assert.equal(await listWith(await load(`https://kinformer.test:${cluster.port}`)), 3);
          },
        );
        assert.ok(upper.seen.length >= 1);
        assert.deepEqual(lower.seen, []);
      });
    });
  });

  test("HTTP_PROXY takes an http server through the proxy (absolute URL); HTTPS_PROXY does not", async () => {
    await withCluster({ plain: true }, async (cluster) => {
      const route = toLoopback(cluster.port);
      await withProxies([httpProxy({ route }), httpProxy({ route })], async (forHttp, forHttps) => {
        await withEnv(
          { ...NO_PROXY_VARS, HTTP_PROXY: forHttp.url, HTTPS_PROXY: forHttps.url },
          async () => {
            assert.equal(await listWith(await load(`http://kinformer.test:${cluster.port}`)), 3);
          },
        );
        assert.ok(forHttp.seen.length >= 1);
        for (const line of forHttp.seen) {
          assert.match(
            line,
            new RegExp(`^GET http://kinformer\\.test:${cluster.port}/api/v1/pods`),
          );
        }
        assert.deepEqual(forHttps.seen, []);
      });
    });
  });

  test("loopback servers are never proxied (the runtime's own fetch would proxy them)", async () => {
    const cluster = await startCluster({ certName: "server" }); // 127.0.0.1 and localhost
    await withProxies([httpProxy()], async (proxy) => {
      await withEnv(
        { ...NO_PROXY_VARS, HTTPS_PROXY: proxy.url, HTTP_PROXY: proxy.url },
        async () => {
          for (const host of ["127.0.0.1", "localhost"]) {
            const options = await load(`https://${host}:${cluster.port}`);
            assert.equal(options.transport?.proxyUrl, undefined);
            assert.equal(await listWith(options), 3);
          }
        },
      );
      assert.deepEqual(proxy.seen, []);
    });
    await cluster.close();
  });

  test("NO_PROXY: a name with the server's port, or a parent domain, goes direct", async () => {
    await withCluster({}, async (cluster) => {
      await withProxies([httpProxy({ route: toLoopback(cluster.port) })], async (proxy) => {
        for (const noProxy of [`kinformer.test:${cluster.port}`, ".test", "other.example,*"]) {
          await withEnv(
            { ...NO_PROXY_VARS, HTTPS_PROXY: proxy.url, NO_PROXY: noProxy },
            async () => {
              const options = await load(`https://kinformer.test:${cluster.port}`);
              assert.equal(options.transport?.proxyUrl, undefined, noProxy);
              // Direct: kinformer.test resolves nowhere, so the request fails.
              assert.ok(await failure(listWith(options)) instanceof KubeNetworkError, noProxy);
            },
          );
        }
        assert.deepEqual(proxy.seen, []);
        // Another port: proxied.
        await withEnv(
          { ...NO_PROXY_VARS, HTTPS_PROXY: proxy.url, no_proxy: "kinformer.test:1" },
          async () => {
            assert.equal(await listWith(await load(`https://kinformer.test:${cluster.port}`)), 3);
          },
        );
        assert.ok(proxy.seen.length >= 1);
      });
    });
  });

  test("a kubeconfig proxy-url wins over the environment, NO_PROXY included", async () => {
    await withCluster({}, async (cluster) => {
      const route = toLoopback(cluster.port);
      await withProxies([httpProxy({ route }), httpProxy({ route })], async (configured, env) => {
        await withEnv({ ...NO_PROXY_VARS, HTTPS_PROXY: env.url, NO_PROXY: "*" }, async () => {
          const options = await load(`https://kinformer.test:${cluster.port}`, {
            "proxy-url": configured.url,
          });
          assert.equal(await listWith(options), 3);
        });
        assert.ok(configured.seen.length >= 1);
        for (const line of configured.seen) assert.match(line, connectLine(cluster.port));
        assert.deepEqual(env.seen, []);
      });
    });
  });
});

describe(`proxy-url schemes with the ${runtime} loader: each works or is refused at load`, () => {
  for (const scheme of ["socks5", "socks5h"]) {
    test(`${scheme}:// with user and password`, async () => {
      await withCluster({}, async (cluster) => {
        await withProxies([socksProxy({ route: toLoopback(cluster.port) })], async (proxy) => {
          await withEnv(NO_PROXY_VARS, async () => {
            const options = await load(`https://kinformer.test:${cluster.port}`, {
              "proxy-url": proxy.url.replace(/^socks5:/, `${scheme}:`),
            });
            assert.equal(await listWith(options), 3);
          });
          assert.equal(proxy.seen[0], "auth kin:former");
          assert.equal(proxy.seen[1], `connect kinformer.test:${cluster.port}`);
        });
      });
    });
  }

  test("https:// (TLS to the proxy, verified with the cluster's CA, as Go's transport does)", async () => {
    await withCluster({}, async (cluster) => {
      const tls = {
        cert: await fixture("certs/server.crt"),
        key: await fixture("certs/server.key"),
      };
      await withProxies([httpProxy({ route: toLoopback(cluster.port), tls })], async (proxy) => {
        await withEnv(NO_PROXY_VARS, async () => {
          const options = await load(`https://kinformer.test:${cluster.port}`, {
            "proxy-url": proxy.url,
          });
          assert.equal(await listWith(options), 3);
        });
        assert.ok(proxy.seen.length >= 1);
        for (const line of proxy.seen) assert.match(line, connectLine(cluster.port));
      });
    });
  });

  test("tls-server-name through a proxy: the server is checked against that name", async () => {
    await withCluster({}, async (cluster) => {
      // The URL names 127.0.0.1, the certificate only kinformer.test.
      await withProxies([httpProxy({ route: toLoopback(cluster.port) })], async (proxy) => {
        await withEnv(NO_PROXY_VARS, async () => {
          const options = await load(`https://127.0.0.1:${cluster.port}`, {
            "proxy-url": proxy.url,
            "tls-server-name": "kinformer.test",
          });
          assert.equal(await listWith(options), 3);
        });
        assert.ok(proxy.seen.length >= 1);
        for (const line of proxy.seen) assert.match(line, connectLine(cluster.port, "127.0.0.1"));
      });
    });
  });

  test("a password a URL parser has to percent-encode (a space) works on every runtime", async () => {
    await withCluster({}, async (cluster) => {
      await withProxies([httpProxy({ route: toLoopback(cluster.port) })], async (proxy) => {
        const url = new URL(proxy.url);
        await withEnv(NO_PROXY_VARS, async () => {
          const options = await load(`https://kinformer.test:${cluster.port}`, {
            // As typed in the kubeconfig: the space not encoded.
            "proxy-url": `http://${url.username}:pa ss@${url.host}`,
          });
          assert.equal(await listWith(options), 3);
        });
        assert.ok(proxy.seen.length >= 1);
        const auth = `Basic ${b64(`${decodeURIComponent(url.username)}:pa ss`)}`;
        for (const line of proxy.seen) assert.ok(line.endsWith(`auth=${auth}`), line);
      });
    });
  });

  test("a scheme no transport speaks is refused at load, not at every request", async () => {
    await withEnv(NO_PROXY_VARS, async () => {
      const error = await failure(
        load("https://kinformer.test:6443", { "proxy-url": "ftp://proxy.example:21" }),
      );
      assert.ok(error instanceof ClusterConfigError);
      assert.equal(error.code, "InvalidKubeconfig");
      assert.equal(error.subject, "clusters[c].cluster.proxy-url");
      assert.match(error.message, /proxy-url must be an http:, https:, socks5: or socks5h: URL/);
    });
  });

  test("HTTPS_PROXY with a scheme no transport speaks is refused at load, naming the variable", async () => {
    await withEnv(
      { ...NO_PROXY_VARS, HTTPS_PROXY: "ftp://user:s3cret@proxy.example" },
      async () => {
        const error = await failure(load("https://kinformer.test:6443"));
        assert.ok(error instanceof ClusterConfigError);
        assert.equal(error.code, "UnsupportedTls");
        assert.equal(error.subject, "HTTPS_PROXY");
        assert.match(error.message, /^HTTPS_PROXY must be an http:/);
        assert.doesNotMatch(error.message, /s3cret/);
      },
    );
  });
});

describe(`the ${runtime} runtime's own fetch and the proxy variables (why the loader decides)`, () => {
  test("Deno's and Bun's fetch follow HTTPS_PROXY, loopback included; Node's ignores it", async () => {
    const named = await startCluster();
    const loopback = await startCluster({ certName: "server" });
    try {
      const ca = await fixture("certs/ca.crt");
      const route = (host: string, port: number): [string, number] =>
        host === "kinformer.test" ? ["127.0.0.1", named.port] : [host, port];
      await withProxies([httpProxy({ route, credentials: false })], async (proxy) => {
        await withEnv({ ...NO_PROXY_VARS, HTTPS_PROXY: proxy.url }, async () => {
          const get = async (url: string): Promise<number> => {
            const g = globalThis as unknown as {
              Deno?: { createHttpClient(o: { caCerts: string[] }): { close(): void } };
            };
            if (g.Deno !== undefined) {
              // A new client reads the environment when it is made (the default one is cached).
              const client = g.Deno.createHttpClient({ caCerts: [ca] });
              try {
                return (await fetch(url, { client } as RequestInit)).status;
              } finally {
                client.close();
              }
            }
            return (await fetch(url, { tls: { ca } } as RequestInit)).status;
          };
          const version = `https://kinformer.test:${named.port}/version`;
          const local = `https://127.0.0.1:${loopback.port}/version`;
          if (runtime === "node") {
            await assert.rejects(get(version)); // not proxied: the name resolves nowhere
            assert.deepEqual(proxy.seen, []);
            return;
          }
          assert.equal(await get(version), 200);
          assert.equal(await get(local), 200);
          assert.deepEqual(proxy.seen, [
            `CONNECT kinformer.test:${named.port} auth=-`,
            `CONNECT 127.0.0.1:${loopback.port} auth=-`, // kubectl never proxies loopback
          ]);
        });
      });
    } finally {
      await named.close();
      await loopback.close();
    }
  });
});
