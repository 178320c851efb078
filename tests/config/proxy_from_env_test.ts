// The proxy decision from the environment (HTTPS_PROXY, HTTP_PROXY, NO_PROXY), as a table:
// each row is a case from Go's golang.org/x/net/http/httpproxy semantics (what kubectl does).
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { proxyFromEnv } from "../../src/config/_proxy_from_env.ts";
import {
  ClusterConfigError,
  type ConfigHost,
  createConfigLoader,
  type TransportConfig,
} from "../../src/config/mod.ts";

const P = "http://proxy.corp:3128";
const S = "http://secure-proxy.corp:3129";

/** [what, target URL, environment, expected proxy (href) or undefined for direct]. */
const TABLE: [string, string, Record<string, string>, string | undefined][] = [
  ["no variables: direct", "https://kube.example.com", {}, undefined],
  ["HTTPS_PROXY for https", "https://kube.example.com", { HTTPS_PROXY: S }, `${S}/`],
  ["HTTP_PROXY for http", "http://kube.example.com", { HTTP_PROXY: P }, `${P}/`],
  ["HTTP_PROXY is not used for https", "https://kube.example.com", { HTTP_PROXY: P }, undefined],
  ["HTTPS_PROXY is not used for http", "http://kube.example.com", { HTTPS_PROXY: S }, undefined],
  ["lower-case https_proxy", "https://kube.example.com", { https_proxy: S }, `${S}/`],
  ["lower-case http_proxy", "http://kube.example.com", { http_proxy: P }, `${P}/`],
  [
    "upper-case wins over lower-case",
    "https://kube.example.com",
    { HTTPS_PROXY: S, https_proxy: P },
    `${S}/`,
  ],
  [
    "an empty upper-case value falls through to the lower-case one",
    "https://kube.example.com",
    { HTTPS_PROXY: "", https_proxy: P },
    `${P}/`,
  ],
  ["a value without a scheme means http://", "https://k.example.com", {
    HTTPS_PROXY: "proxy.corp:3128",
  }, "http://proxy.corp:3128/"],
  ["a bare IP:port means http://", "https://k.example.com", {
    HTTPS_PROXY: "10.0.0.1:3128",
  }, "http://10.0.0.1:3128/"],
  ["socks5 proxies are given as they are", "https://k.example.com", {
    HTTPS_PROXY: "socks5://10.0.0.1:1080",
  }, "socks5://10.0.0.1:1080"],
  ["credentials stay in the proxy URL", "https://k.example.com", {
    HTTPS_PROXY: "http://user:p%40ss@proxy.corp:3128",
  }, "http://user:p%40ss@proxy.corp:3128/"],
  ["a value that does not parse is ignored (Go ignores it too)", "https://k.example.com", {
    HTTPS_PROXY: "%zz",
  }, undefined],
  // Loopback is never proxied.
  ["localhost is never proxied", "https://localhost:6443", { HTTPS_PROXY: S }, undefined],
  ["127.0.0.1 is never proxied", "https://127.0.0.1:6443", { HTTPS_PROXY: S }, undefined],
  ["all of 127.0.0.0/8 is loopback", "https://127.8.9.10", { HTTPS_PROXY: S }, undefined],
  ["::1 is never proxied", "https://[::1]:6443", { HTTPS_PROXY: S }, undefined],
  ["an IPv4-mapped loopback is loopback", "http://[::ffff:127.0.0.1]", {
    HTTP_PROXY: P,
  }, undefined],
  ["a name under localhost is not loopback", "https://api.localhost", {
    HTTPS_PROXY: S,
  }, `${S}/`],
  ["other IPs are proxied", "https://10.1.2.3:6443", { HTTPS_PROXY: S }, `${S}/`],
  // NO_PROXY: names.
  ["NO_PROXY name matches itself", "https://example.com", {
    HTTPS_PROXY: S,
    NO_PROXY: "example.com",
  }, undefined],
  ["NO_PROXY name matches subdomains", "https://kube.example.com", {
    HTTPS_PROXY: S,
    NO_PROXY: "example.com",
  }, undefined],
  ["NO_PROXY name does not match a longer name", "https://notexample.com", {
    HTTPS_PROXY: S,
    NO_PROXY: "example.com",
  }, `${S}/`],
  ["leading dot: subdomains only, not the name itself", "https://example.com", {
    HTTPS_PROXY: S,
    NO_PROXY: ".example.com",
  }, `${S}/`],
  ["leading dot: subdomains match", "https://a.b.example.com", {
    HTTPS_PROXY: S,
    NO_PROXY: ".example.com",
  }, undefined],
  ["*.name: subdomains only", "https://example.com", {
    HTTPS_PROXY: S,
    NO_PROXY: "*.example.com",
  }, `${S}/`],
  ["*.name matches a subdomain", "https://kube.example.com", {
    HTTPS_PROXY: S,
    NO_PROXY: "*.example.com",
  }, undefined],
  ["matching ignores case, spaces around entries", "https://Kube.Example.COM", {
    HTTPS_PROXY: S,
    NO_PROXY: " other.org , EXAMPLE.com ",
  }, undefined],
  ["a name with a port matches that port only", "https://kube.example.com:6443", {
    HTTPS_PROXY: S,
    NO_PROXY: "example.com:6443",
  }, undefined],
  ["a name with another port does not match", "https://kube.example.com:6443", {
    HTTPS_PROXY: S,
    NO_PROXY: "example.com:443",
  }, `${S}/`],
  ["the scheme's default port counts", "https://kube.example.com", {
    HTTPS_PROXY: S,
    NO_PROXY: "kube.example.com:443",
  }, undefined],
  ["names never match IP targets", "https://10.0.0.1", {
    HTTPS_PROXY: S,
    NO_PROXY: "0.0.1",
  }, `${S}/`],
  ["internationalized names compare in punycode", "https://kube.bücher.example", {
    HTTPS_PROXY: S,
    NO_PROXY: "bücher.example",
  }, undefined],
  // NO_PROXY: IPs and CIDRs.
  ["an IP matches itself", "https://10.0.0.1:6443", {
    HTTPS_PROXY: S,
    NO_PROXY: "10.0.0.1",
  }, undefined],
  ["an IP does not match another", "https://10.0.0.2", {
    HTTPS_PROXY: S,
    NO_PROXY: "10.0.0.1",
  }, `${S}/`],
  ["an IP with its port", "https://10.0.0.1:6443", {
    HTTPS_PROXY: S,
    NO_PROXY: "10.0.0.1:6443",
  }, undefined],
  ["an IP with another port", "https://10.0.0.1:6443", {
    HTTPS_PROXY: S,
    NO_PROXY: "10.0.0.1:443",
  }, `${S}/`],
  ["a CIDR matches addresses inside", "https://10.20.30.40", {
    HTTPS_PROXY: S,
    NO_PROXY: "10.0.0.0/8",
  }, undefined],
  ["a CIDR does not match addresses outside", "https://11.0.0.1", {
    HTTPS_PROXY: S,
    NO_PROXY: "10.0.0.0/8",
  }, `${S}/`],
  ["an odd CIDR length", "https://192.168.1.130", {
    HTTPS_PROXY: S,
    NO_PROXY: "192.168.1.128/25",
  }, undefined],
  ["just outside an odd CIDR length", "https://192.168.1.127", {
    HTTPS_PROXY: S,
    NO_PROXY: "192.168.1.128/25",
  }, `${S}/`],
  ["an IPv6 address", "https://[fd00::1]:6443", {
    HTTPS_PROXY: S,
    NO_PROXY: "fd00::1",
  }, undefined],
  ["an IPv6 address with a port, in brackets", "https://[fd00::1]:6443", {
    HTTPS_PROXY: S,
    NO_PROXY: "[fd00::1]:6443",
  }, undefined],
  ["an IPv6 CIDR", "https://[fd12:3456::9]", {
    HTTPS_PROXY: S,
    NO_PROXY: "fd00::/8",
  }, undefined],
  ["an IPv6 CIDR does not match outside", "https://[fe80::1]", {
    HTTPS_PROXY: S,
    NO_PROXY: "fd00::/8",
  }, `${S}/`],
  ["* matches everything", "https://kube.example.com", {
    HTTPS_PROXY: S,
    NO_PROXY: "other.org,*",
  }, undefined],
  ["lower-case no_proxy", "https://kube.example.com", {
    HTTPS_PROXY: S,
    no_proxy: "example.com",
  }, undefined],
  ["upper-case NO_PROXY wins over no_proxy", "https://kube.example.com", {
    HTTPS_PROXY: S,
    NO_PROXY: "other.org",
    no_proxy: "example.com",
  }, `${S}/`],
  ["malformed entries are ignored, the others apply", "https://kube.example.com", {
    HTTPS_PROXY: S,
    NO_PROXY: ":80,,[::1,example.com",
  }, undefined],
  ["URL-form hosts in the URL are normalised first (0x0a.1 is 10.0.0.1)", "https://0x0a.1", {
    HTTPS_PROXY: S,
    NO_PROXY: "10.0.0.1",
  }, undefined],
];

describe("proxyFromEnv (Go's httpproxy rules)", () => {
  for (const [what, target, env, expected] of TABLE) {
    test(what, () => {
      const got = proxyFromEnv(new URL(target), (name) => env[name]);
      assert.equal(got?.url.href, expected);
    });
  }

  test("it names the variable the proxy came from", () => {
    const env: Record<string, string> = { https_proxy: S };
    assert.equal(
      proxyFromEnv(new URL("https://k.example.com"), (n) => env[n])?.variable,
      "https_proxy",
    );
  });

  test("in a CGI process (REQUEST_METHOD set), HTTP_PROXY is refused for http", () => {
    const env: Record<string, string> = { HTTP_PROXY: P, REQUEST_METHOD: "GET", HTTPS_PROXY: S };
    assert.throws(
      () => proxyFromEnv(new URL("http://kube.example.com"), (n) => env[n]),
      (error: unknown) =>
        error instanceof ClusterConfigError && error.code === "UnsupportedTls" &&
        error.subject === "HTTP_PROXY" && /CGI/.test(error.message),
    );
    // HTTPS_PROXY stays usable (it cannot come from a request header).
    assert.equal(
      proxyFromEnv(new URL("https://kube.example.com"), (n) => env[n])?.url.href,
      `${S}/`,
    );
  });
});

describe("the loader applies the environment's proxy (any host, in-cluster too)", () => {
  const CA = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n";
  function host(env: Record<string, string>, files: Record<string, string>) {
    const built: TransportConfig[] = [];
    const configHost: ConfigHost = {
      runtime: "test",
      readFile: (path) =>
        files[path] === undefined
          ? Promise.reject(Object.assign(new Error("no"), { code: "ENOENT" }))
          : Promise.resolve(files[path]!),
      isNotFound: (error) => (error as { code?: string }).code === "ENOENT",
      env: (name) => env[name],
      pathListSeparator: ":",
      transport: {
        supports: ["ca", "proxy", "disableCompression"],
        create: (transport) => {
          built.push(transport);
          return { fetch: () => Promise.reject(new TypeError("not here")), close: () => {} };
        },
      },
    };
    return { configHost, built };
  }
  const sa = {
    "/sa/token": "t",
    "/sa/ca.crt": CA,
    "/sa/namespace": "default",
  };
  const pod = { KUBERNETES_SERVICE_HOST: "10.96.0.1", KUBERNETES_SERVICE_PORT: "443" };

  test("in-cluster: HTTPS_PROXY applies, unless NO_PROXY names the service address", async () => {
    const proxied = host({ ...pod, HTTPS_PROXY: S }, sa);
    const options = await createConfigLoader(proxied.configHost).loadInCluster({
      serviceAccountDir: "/sa",
    });
    assert.equal(options.transport?.proxyUrl, `${S}/`);
    assert.deepEqual(proxied.built, [{ caData: CA, proxyUrl: `${S}/` }]);

    const direct = host({ ...pod, HTTPS_PROXY: S, NO_PROXY: "10.96.0.0/12" }, sa);
    const inCidr = await createConfigLoader(direct.configHost).loadInCluster({
      serviceAccountDir: "/sa",
    });
    assert.equal(inCidr.transport?.proxyUrl, undefined);
    assert.deepEqual(direct.built, [{ caData: CA }]);
  });

  test("a kubeconfig: the environment's proxy reaches createFetch in TransportConfig", async () => {
    const config = JSON.stringify({
      clusters: [{ name: "c", cluster: { server: "http://kube.example:8080" } }],
      contexts: [{ name: "c", context: { cluster: "c" } }],
      "current-context": "c",
    });
    const { configHost } = host({ HTTP_PROXY: P }, { "/k": config });
    const seen: TransportConfig[] = [];
    await createConfigLoader(configHost).loadKubeconfig({
      path: "/k",
      createFetch: (transport) => {
        seen.push(transport);
        return () => Promise.reject(new TypeError("not here"));
      },
    });
    assert.deepEqual(seen, [{ proxyUrl: `${P}/` }]);
  });
});
