// KubeClientOptions.onUnauthorized: the hook a caching credential source (an exec plugin's
// token) uses to drop a credential the server refused.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { KubeApiError, KubeClient, pods } from "../../src/client/mod.ts";

const status = (code: number): Response =>
  Response.json({ kind: "Status", apiVersion: "v1", status: "Failure", code }, { status: code });

describe("KubeClient onUnauthorized", () => {
  test("is told about a 401 with the refused request, then the request rejects", async () => {
    const seen: string[] = [];
    let tokens = 0;
    const client = new KubeClient({
      server: "http://sim",
      token: () => `token-${++tokens}`,
      fetch: (request) =>
        Promise.resolve(
          request.headers.get("authorization") === "Bearer token-2"
            ? Response.json({})
            : status(401),
        ),
      onUnauthorized: (request) => {
        seen.push(
          `${request.method} ${new URL(request.url).pathname} ${
            request.headers.get("authorization")
          }`,
        );
      },
    });
    await assert.rejects(client.list(pods), (error: unknown) => {
      assert.ok(error instanceof KubeApiError);
      assert.equal(error.code, 401);
      return true;
    });
    assert.deepEqual(seen, ["GET /api/v1/pods Bearer token-1"]);
    await client.list(pods); // the caller retries with the next token
    assert.equal(seen.length, 1);
  });

  test("is not told about other failures", async () => {
    let calls = 0;
    for (const code of [403, 404, 500]) {
      const client = new KubeClient({
        server: "http://sim",
        fetch: () => Promise.resolve(status(code)),
        onUnauthorized: () => void calls++,
      });
      await assert.rejects(client.list(pods), KubeApiError);
    }
    assert.equal(calls, 0);
  });

  test("an error it throws fails the request instead", async () => {
    const client = new KubeClient({
      server: "http://sim",
      fetch: () => Promise.resolve(status(401)),
      onUnauthorized: () => {
        throw new Error("cannot refresh");
      },
    });
    await assert.rejects(client.list(pods), /cannot refresh/);
  });

  test("must be a function", () => {
    assert.throws(
      () => new KubeClient({ server: "http://sim", onUnauthorized: "no" as unknown as () => void }),
      /options\.onUnauthorized must be a function, got "no"/,
    );
  });
});
