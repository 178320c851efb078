// URL errors never echo credentials, whatever characters they hold: a password with an
// unencoded "/", "?", "#" or "@" makes a URL parser end the host early (or fail), and the text
// of the URL must then not reach a message, nor the message of any cause.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { redactUrl } from "../../src/client/http.ts";
import { KubeClient } from "../../src/client/mod.ts";
import {
  type ClusterClientOptions,
  createConfigLoader,
  kubectlProxy,
} from "../../src/config/mod.ts";
import { createNodeFetch } from "../../src/adapters/node/fetch.ts";

/** Passwords that URL parsers cut short. */
const PASSWORDS = ["Pw/Zq9x", "Pw#Zq9x", "Pw?Zq9x", "P@Xw/K#Zq9x", "12/Zq9x"];

/** Every message along the cause chain, plus `String(error)`. */
function everything(error: unknown): string {
  const out = [String(error)];
  for (let e = error; e instanceof Error; e = e.cause) out.push(e.message, String(e.stack ?? ""));
  return out.join("\n");
}

function assertNoSecret(error: unknown, secret: string): void {
  assert.ok(error instanceof Error, `expected an error, got ${String(error)}`);
  const text = everything(error);
  // The password, or the part of it after the character that cuts it.
  for (const part of [secret, secret.split(/[/?#@]/).pop()!]) {
    assert.ok(!text.includes(part), `${JSON.stringify(part)} appears in: ${text}`);
  }
}

function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  assert.fail("expected a throw");
}

describe("URL errors never echo credentials", () => {
  test("redactUrl drops userinfo through the last @, parseable or not", () => {
    for (const password of PASSWORDS) {
      for (const url of [`http://user:${password}@proxy.corp:3128`, `user:${password}@proxy:1`]) {
        const shown = redactUrl(url);
        assert.ok(!shown.includes(password), `${url} -> ${shown}`);
        assert.match(shown, /proxy(\.corp)?:\d+$/);
      }
    }
    assert.equal(redactUrl("https://h:6443/p?t=x#f"), "https://h:6443/p");
  });

  test("a kubeconfig proxy-url: refused at load without its password", async () => {
    for (const password of PASSWORDS) {
      const config = JSON.stringify({
        clusters: [{
          name: "c",
          cluster: {
            server: "https://kube.example:6443",
            "proxy-url": `http://user:${password}@proxy.corp:3128`,
          },
        }],
        contexts: [{ name: "c", context: { cluster: "c" } }],
        "current-context": "c",
      });
      const loader = createConfigLoader({
        runtime: "test",
        readFile: () => Promise.resolve(config),
        isNotFound: () => false,
        env: () => undefined,
        pathListSeparator: ":",
      });
      const error = await loader.loadKubeconfig({ path: "/k" }).then(
        () => assert.fail(`accepted ${password}`),
        (e: unknown) => e,
      );
      assertNoSecret(error, password);
      assert.match((error as Error).message, /proxy-url/);
    }
  });

  test("HTTPS_PROXY: refused at load without its password", async () => {
    for (const password of PASSWORDS) {
      const env: Record<string, string> = {
        HTTPS_PROXY: `http://user:${password}@proxy.corp:3128`,
      };
      const config = JSON.stringify({
        clusters: [{ name: "c", cluster: { server: "https://kube.example:6443" } }],
        contexts: [{ name: "c", context: { cluster: "c" } }],
        "current-context": "c",
      });
      const loader = createConfigLoader({
        runtime: "test",
        readFile: () => Promise.resolve(config),
        isNotFound: () => false,
        env: (name) => env[name],
        pathListSeparator: ":",
      });
      const result: ClusterClientOptions | unknown = await loader.loadKubeconfig({ path: "/k" })
        .then((options) => options, (e: unknown) => e);
      if (result instanceof Error) assertNoSecret(result, password);
      else {
        const proxy = (result as ClusterClientOptions).transport?.proxyUrl;
        assert.fail(`accepted ${password}: proxy ${proxy}`);
      }
    }
  });

  test("createNodeFetch's proxyUrl", () => {
    for (const password of PASSWORDS) {
      assertNoSecret(
        thrown(() => createNodeFetch({ proxyUrl: `http://user:${password}@proxy.corp:3128` })),
        password,
      );
    }
  });

  test("server URLs: KubeClient and kubectlProxy", () => {
    for (const password of PASSWORDS) {
      const url = `https://admin:${password}@kube.example:6443`;
      assertNoSecret(thrown(() => new KubeClient({ server: url })), password);
      assertNoSecret(
        thrown(() => kubectlProxy(`http://admin:${password}@127.0.0.1:8001`)),
        password,
      );
    }
  });
});
