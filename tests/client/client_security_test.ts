// The client never lets a credential reach a message, and never leaves its server's path.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { KubeClient } from "../../src/client/kube_client.ts";
import { pods } from "../../src/client/resource.ts";
import { redactUrl, resolvePath } from "../../src/client/http.ts";

const SECRET = "s3cr3t-CANARY-7f9a";

/** Every text an error exposes: message, String(), JSON, cause chain. */
function exposed(error: unknown): string {
  const parts: string[] = [];
  let e: unknown = error;
  for (let depth = 0; e !== undefined && depth < 5; depth++) {
    parts.push(String(e));
    if (e instanceof Error) {
      parts.push(e.message, e.stack ?? "", JSON.stringify(e));
      e = e.cause;
    } else e = undefined;
  }
  return parts.join("\n");
}

function throwsWithout(fn: () => unknown, secret: string): void {
  let caught: unknown;
  try {
    fn();
  } catch (error) {
    caught = error;
  }
  assert.ok(caught instanceof TypeError, `expected a TypeError, got ${String(caught)}`);
  assert.ok(!exposed(caught).includes(secret), `the error shows the secret: ${exposed(caught)}`);
}

describe("KubeClient: header values", () => {
  for (const bad of ["\r\n", "\n", "\r", "\0"]) {
    test(`a token with ${JSON.stringify(bad)} is refused without showing it`, async () => {
      throwsWithout(
        () => new KubeClient({ server: "http://h", token: `${SECRET}${bad}X-Evil: 1` }),
        SECRET,
      );
      const client = new KubeClient({
        server: "http://h",
        token: () => `${SECRET}${bad}x`,
        fetch: () => Promise.resolve(Response.json({})),
      });
      const error = await client.request("/api").then(() => undefined, (e: unknown) => e);
      assert.ok(error instanceof TypeError);
      assert.ok(!exposed(error).includes(SECRET), exposed(error));
    });
  }

  test("a header value the runtime refuses (e.g. non-Latin-1) is refused without showing it", () => {
    throwsWithout(() => new KubeClient({ server: "http://h", token: `${SECRET}\u2028` }), SECRET);
    throwsWithout(
      () => new KubeClient({ server: "http://h", headers: { "x-api-key": `${SECRET}\u0100` } }),
      SECRET,
    );
    throwsWithout(
      () => new KubeClient({ server: "http://h", headers: { "x-api-key": `${SECRET}\r\n` } }),
      SECRET,
    );
  });
});

describe("KubeClient: server URL", () => {
  test("credentials in the URL are refused and never shown", () => {
    throwsWithout(() => new KubeClient({ server: `https://admin:${SECRET}@h` }), SECRET);
    throwsWithout(() => new KubeClient({ server: `https://h/?access_token=${SECRET}` }), SECRET);
    throwsWithout(() => new KubeClient({ server: `https://h/#${SECRET}` }), SECRET);
    throwsWithout(() => new KubeClient({ server: `not a url ?token=${SECRET}` }), SECRET);
    throwsWithout(() => new KubeClient({ server: `ftp://u:${SECRET}@h` }), SECRET);
  });

  test("redactUrl drops userinfo, query and fragment, parseable or not", () => {
    assert.equal(redactUrl(`https://u:${SECRET}@h:6443/p?t=${SECRET}#x`), "https://h:6443/p");
    assert.equal(redactUrl(`garbage?token=${SECRET}`), "garbage");
  });
});

describe("KubeClient: paths stay below the server's path", () => {
  test("dot segments are refused, literal or percent-encoded", async () => {
    const seen: string[] = [];
    const client = new KubeClient({
      server: "http://proxy/k8s/clusters/a",
      fetch: (r) => {
        seen.push(new URL(r.url).pathname);
        return Promise.resolve(Response.json({}));
      },
    });
    for (
      const path of [
        "/../b/api",
        "/api/../../b",
        "/%2e%2e/b",
        "/.%2E/b",
        "/./api",
        "/api/..",
      ]
    ) {
      await assert.rejects(client.request(path), TypeError, path);
    }
    await client.request("/api/v1/namespaces/a/pods/p.q..r");
    await client.request("/.well-known/openid-configuration");
    assert.deepEqual(seen, [
      "/k8s/clusters/a/api/v1/namespaces/a/pods/p.q..r",
      "/k8s/clusters/a/.well-known/openid-configuration",
    ]);
  });

  test("resolvePath keeps the prefix", () => {
    assert.equal(resolvePath("http://h/k8s", "/api/v1/pods").href, "http://h/k8s/api/v1/pods");
    assert.throws(() => resolvePath("http://h/k8s", "/%2E%2e/x"), TypeError);
  });

  test("object names cannot climb out of a resource path either", async () => {
    const client = new KubeClient({
      server: "http://proxy/k8s",
      fetch: () => Promise.resolve(Response.json({})),
    });
    await assert.rejects(client.get(pods, "..", { namespace: "a" }), TypeError);
  });

  test("a name or namespace holding / or % is refused, as client-go refuses it (no proxy can decode it into a climb)", async () => {
    const sent: string[] = [];
    const client = new KubeClient({
      server: "http://proxy/k8s/clusters/a",
      fetch: (request) => {
        sent.push(request.url);
        return Promise.resolve(Response.json({ metadata: {}, items: [] }));
      },
    });
    for (const bad of ["../..", "a/../../b", "%2e%2e", "..%2f", "a%2F..%2F.."]) {
      await assert.rejects(client.get(pods, bad, { namespace: "a" }), TypeError, bad);
      await assert.rejects(client.list(pods, { namespace: bad }), TypeError, bad);
      await assert.rejects(client.delete(pods, bad, { namespace: "a" }), TypeError, bad);
    }
    assert.deepEqual(sent, []);
    // Names as Kubernetes allows them still go out.
    await client.get(pods, "web-1.v2:x", { namespace: "a" });
    assert.equal(sent.length, 1);
  });
});
