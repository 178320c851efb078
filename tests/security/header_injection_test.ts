// No credential source can inject a header (SECURITY.md "Input the library refuses"): a value
// holding CR, LF or NUL, from a static token, a token function, the `headers` option, a token
// file (kubeconfig or in-cluster), an exec plugin's output or an impersonation field, is refused
// before anything is sent; basic auth is base64, so its user name and password cannot break out.
// The fetch below records every request; none may carry the injected header.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { KubeClient, pods } from "../../src/client/mod.ts";
import { type ConfigHost, createConfigLoader } from "../../src/config/mod.ts";
import { kubeconfigJson } from "./_canary.ts";

const INJECTED = "t\r\nX-Evil: 1";
const CA = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n";

/** A fetch recording the requests it was given, answering an empty list. */
function recordingFetch(): { fetch: (r: Request) => Promise<Response>; requests: Request[] } {
  const requests: Request[] = [];
  return {
    requests,
    fetch: (request) => {
      requests.push(request);
      return Promise.resolve(Response.json({ kind: "PodList", metadata: {}, items: [] }));
    },
  };
}

/** A host over in-memory files and environment; its plugin prints `stdout`. */
function host(
  files: Record<string, string>,
  env: Record<string, string> = {},
  stdout = "",
): ConfigHost {
  return {
    runtime: "TestRuntime",
    readFile: (path) =>
      files[path] === undefined
        ? Promise.reject(Object.assign(new Error(`ENOENT ${path}`), { code: "ENOENT" }))
        : Promise.resolve(files[path]!),
    isNotFound: (error) => (error as { code?: string }).code === "ENOENT",
    env: (name) => env[name],
    pathListSeparator: ":",
    runCommand: () => Promise.resolve({ exitCode: 0, stdout }),
  };
}

/** Lists pods with `options`; fails if a request carried the injected header. */
async function listWith(
  options: ConstructorParameters<typeof KubeClient>[0],
  recorder: ReturnType<typeof recordingFetch>,
): Promise<unknown> {
  try {
    await new KubeClient({ ...options, fetch: recorder.fetch }).list(pods);
    return undefined;
  } catch (error) {
    return error;
  } finally {
    for (const request of recorder.requests) {
      assert.equal(request.headers.get("x-evil"), null, "an injected header went out");
    }
  }
}

describe("no credential source can inject a header", () => {
  test("static tokens, token functions and the headers option", async () => {
    const r = recordingFetch();
    assert.throws(() => new KubeClient({ server: "https://h", token: INJECTED }), TypeError);
    assert.throws(
      () => new KubeClient({ server: "https://h", headers: { "x-api-key": INJECTED } }),
      TypeError,
    );
    assert.ok(
      await listWith({ server: "https://h", token: () => INJECTED }, r) instanceof TypeError,
    );
    assert.equal(r.requests.length, 0, "nothing was sent");
  });

  test("a kubeconfig token file and an in-cluster service account token", async () => {
    const files = {
      "/k": kubeconfigJson({ server: "https://h" }, { tokenFile: "/token" }),
      "/token": INJECTED,
      "/sa/token": INJECTED,
      "/sa/ca.crt": CA,
      "/sa/namespace": "default",
    };
    const loader = createConfigLoader(
      host(files, { KUBERNETES_SERVICE_HOST: "10.0.0.1", KUBERNETES_SERVICE_PORT: "443" }),
    );
    const r = recordingFetch();
    const fromFile = await loader.loadKubeconfig({ path: "/k", fetch: r.fetch });
    assert.ok(await listWith(fromFile, r) instanceof TypeError);
    const inCluster = await loader.loadInCluster({ serviceAccountDir: "/sa", fetch: r.fetch });
    assert.ok(await listWith(inCluster, r) instanceof TypeError);
    assert.equal(r.requests.length, 0, "nothing was sent");
  });

  test("an exec plugin's token", async () => {
    const stdout = JSON.stringify({
      apiVersion: "client.authentication.k8s.io/v1",
      kind: "ExecCredential",
      status: { token: INJECTED },
    });
    const text = kubeconfigJson({ server: "https://h" }, {
      exec: {
        apiVersion: "client.authentication.k8s.io/v1",
        command: "plugin",
        interactiveMode: "Never",
      },
    });
    const r = recordingFetch();
    const options = await createConfigLoader(host({ "/k": text }, {}, stdout)).loadKubeconfig({
      path: "/k",
    });
    const error = await listWith(options, r);
    assert.ok(error instanceof Error && /line break/.test(error.message), String(error));
    assert.equal(error.message.includes("X-Evil"), false, "the output is not echoed");
    assert.equal(r.requests.length, 0, "nothing was sent");
  });

  test("impersonation fields are refused at load; basic auth is base64 and cannot break out", async () => {
    for (
      const user of [
        { as: INJECTED },
        { as: "me", "as-uid": INJECTED },
        { as: "me", "as-groups": ["ok", INJECTED] },
        { as: "me", "as-user-extra": { scopes: [INJECTED] } },
      ]
    ) {
      const loader = createConfigLoader(
        host({ "/k": kubeconfigJson({ server: "https://h" }, user) }),
      );
      await assert.rejects(loader.loadKubeconfig({ path: "/k" }), /cannot be sent in a header/);
    }
    const r = recordingFetch();
    const loader = createConfigLoader(host({
      "/k": kubeconfigJson({ server: "https://h" }, { username: INJECTED, password: INJECTED }),
    }));
    assert.equal(await listWith(await loader.loadKubeconfig({ path: "/k" }), r), undefined);
    assert.equal(r.requests.length, 1);
    assert.equal(
      r.requests[0]!.headers.get("authorization"),
      `Basic ${btoa(`${INJECTED}:${INJECTED}`)}`,
    );
  });
});
