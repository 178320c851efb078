import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:net";
import {
  configmaps,
  deployments,
  isStatus,
  KubeApiError,
  KubeClient,
  type KubeClientOptions,
  type KubeList,
  KubeNetworkError,
  type KubeObject,
  namespaces,
  nodes,
  pods,
  type Status,
} from "../../src/client/mod.ts";
import { ManualClock } from "../../src/testing/manual_clock.ts";

type Handler = (request: Request) => Response | Promise<Response>;

/** A client whose fetch records each Request and answers with `handler`. */
function stubClient(
  handler: Handler,
  options: Omit<KubeClientOptions, "server" | "fetch"> & { server?: string } = {},
): { client: KubeClient; requests: Request[] } {
  const requests: Request[] = [];
  const client = new KubeClient({
    server: "http://127.0.0.1:8001",
    ...options,
    fetch: (request) => {
      requests.push(request);
      return Promise.resolve(handler(request));
    },
  });
  return { client, requests };
}

/** A client that counts the calls of its token function and its `fetch` (which answers at once). */
function countingClient(): { client: KubeClient; calls: () => number } {
  let calls = 0;
  const client = new KubeClient({
    server: "http://127.0.0.1:8001",
    token: () => {
      calls++;
      return "t";
    },
    fetch: () => {
      calls++;
      return Promise.resolve(podList());
    },
  });
  return { client, calls: () => calls };
}

function podList(items: KubeObject[] = [], resourceVersion = "1"): Response {
  return Response.json({ kind: "PodList", apiVersion: "v1", metadata: { resourceVersion }, items });
}

function status(
  code: number,
  reason: string,
  message: string,
  extra: Partial<Status> = {},
): Status {
  return { kind: "Status", apiVersion: "v1", status: "Failure", code, reason, message, ...extra };
}

/** A body that yields `chunks`, then stays open (or ends with `end`); records cancellation. */
function trackedBody(
  chunks: string[],
  end: "close" | "open" | "endless" | { error: unknown },
): { body: ReadableStream<Uint8Array>; cancelled: () => boolean; pulls: () => number } {
  const encoder = new TextEncoder();
  let cancelled = false;
  let pulls = 0;
  let i = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      pulls++;
      const chunk = chunks[i++];
      if (chunk !== undefined) return controller.enqueue(encoder.encode(chunk));
      if (end === "close") return controller.close();
      if (end === "endless") return controller.enqueue(encoder.encode("x".repeat(16 * 1024)));
      if (end === "open") return new Promise<void>(() => {}); // never answers
      controller.error(end.error);
    },
    cancel() {
      cancelled = true;
    },
  }, { highWaterMark: 0 });
  return { body, cancelled: () => cancelled, pulls: () => pulls };
}

/** Rejects unless `promise` rejects with exactly `expected` (same object). */
async function rejectsWithSame(promise: Promise<unknown>, expected: unknown): Promise<void> {
  await assert.rejects(promise, (error: unknown) => {
    assert.equal(error, expected);
    return true;
  });
}

async function apiError(promise: Promise<unknown>): Promise<KubeApiError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof KubeApiError, `expected KubeApiError, got ${String(error)}`);
    return error;
  }
  assert.fail("expected the request to fail");
}

/**
 * Starts `call` with a signal, aborts the signal once the call is under way (a macrotask
 * later), and checks the call rejects with that very abort reason.
 */
async function abortsUnderWay(call: (signal: AbortSignal) => Promise<unknown>): Promise<void> {
  const controller = new AbortController();
  const pending = call(controller.signal);
  await turn();
  const reason = new Error("stop");
  controller.abort(reason);
  await rejectsWithSame(pending, reason);
}

/** Resolves on the next macrotask, letting pending fetches and reads start. */
function turn(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

/** A port on 127.0.0.1 that nothing listens on (bound, then released). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const address = server.address();
  assert.ok(address !== null && typeof address === "object");
  await new Promise<void>((resolve, reject) => server.close((e) => (e ? reject(e) : resolve())));
  return address.port;
}

describe("KubeClient options", () => {
  test("server must be an absolute http or https URL", () => {
    for (const server of ["", "127.0.0.1:8001", "/api", "ftp://host", "ws://host"]) {
      assert.throws(
        () => new KubeClient({ server }),
        (e: unknown) => e instanceof TypeError && e.message.includes("options.server"),
        server,
      );
    }
    assert.throws(() => new KubeClient({ server: 42 as unknown as string }), TypeError);
  });

  test("server must not carry credentials, a query or a fragment", () => {
    for (const server of ["http://u:p@host", "http://host?x=1", "http://host/#top"]) {
      assert.throws(
        () => new KubeClient({ server }),
        (e: unknown) => e instanceof TypeError && e.message.includes("options.server"),
        server,
      );
    }
  });

  test("a trailing slash is dropped and a path prefix is kept", () => {
    assert.equal(
      new KubeClient({ server: "https://k8s.example:6443/" }).server,
      "https://k8s.example:6443",
    );
    assert.equal(
      new KubeClient({ server: "http://127.0.0.1:8001/k8s/" }).server,
      "http://127.0.0.1:8001/k8s",
    );
  });

  test("bad token, userAgent, headers and fetch options are TypeErrors naming the option", () => {
    const server = "http://127.0.0.1:8001";
    const cases: Array<[string, () => unknown]> = [
      ["options.token", () => new KubeClient({ server, token: "" })],
      ["options.token", () => new KubeClient({ server, token: 7 as unknown as string })],
      ["options.token", () => new KubeClient({ server, token: "a\nb" })],
      ["options.userAgent", () => new KubeClient({ server, userAgent: "" })],
      ["options.headers", () => new KubeClient({ server, headers: { "bad header": "x" } })],
      [
        "options.headers",
        () => new KubeClient({ server, headers: { "x-n": 1 as unknown as string } }),
      ],
      [
        "options.fetch",
        () => new KubeClient({ server, fetch: "no" as unknown as () => Promise<Response> }),
      ],
    ];
    for (const [option, make] of cases) {
      assert.throws(
        make,
        (e: unknown) => e instanceof TypeError && e.message.includes(option),
        option,
      );
    }
  });

  test("the constructor starts no request", () => {
    const { calls } = countingClient();
    assert.equal(calls(), 0);
  });
});

describe("KubeClient URLs and query parameters", () => {
  test("a path prefix in server is kept, as behind kubectl proxy --api-prefix", async () => {
    const { client, requests } = stubClient(() => podList(), {
      server: "http://127.0.0.1:8001/k8s/",
    });
    await client.list(pods, { namespace: "default" });
    assert.equal(requests[0]?.url, "http://127.0.0.1:8001/k8s/api/v1/namespaces/default/pods");
  });

  test("list sends selectors, paging and resource version parameters, and leaves unset ones out", async () => {
    const { client, requests } = stubClient(() => podList());
    await client.list(deployments, {
      namespace: "prod",
      labelSelector: "app=web",
      fieldSelector: "metadata.name=web",
      limit: 500,
      continue: "token-1",
      resourceVersion: "123",
      resourceVersionMatch: "NotOlderThan",
    });
    await client.list(pods);
    const first = new URL(requests[0]?.url ?? "");
    assert.equal(first.pathname, "/apis/apps/v1/namespaces/prod/deployments");
    assert.deepEqual(Object.fromEntries(first.searchParams), {
      labelSelector: "app=web",
      fieldSelector: "metadata.name=web",
      limit: "500",
      continue: "token-1",
      resourceVersion: "123",
      resourceVersionMatch: "NotOlderThan",
    });
    assert.equal(requests[0]?.method, "GET");
    assert.equal(requests[1]?.url, "http://127.0.0.1:8001/api/v1/pods");
  });

  test("selectors with ',' '=' '!' and spaces are percent-encoded and decode back unchanged", async () => {
    const { client, requests } = stubClient(() => podList());
    const labelSelector = "app in (web, api),tier!=db,!canary";
    const fieldSelector = "metadata.namespace!=kube-system,spec.nodeName=node 1";
    await client.list(pods, { labelSelector, fieldSelector });
    const url = new URL(requests[0]?.url ?? "");
    for (const raw of [",", "!", " ", "(", ")"]) {
      assert.ok(!url.search.includes(raw), `raw ${JSON.stringify(raw)} in ${url.search}`);
    }
    assert.equal(url.search.split("&").length, 2, "selectors must not split the query");
    assert.equal(url.searchParams.get("labelSelector"), labelSelector);
    assert.equal(url.searchParams.get("fieldSelector"), fieldSelector);
  });

  test("a cluster-scoped list and a cluster-wide list have no namespace segment", async () => {
    const { client, requests } = stubClient(() => podList());
    await client.list(nodes);
    await client.list(configmaps, { namespace: "" });
    assert.equal(new URL(requests[0]?.url ?? "").pathname, "/api/v1/nodes");
    assert.equal(new URL(requests[1]?.url ?? "").pathname, "/api/v1/configmaps");
  });

  test("listing a cluster-scoped resource in a namespace is a TypeError and sends nothing", async () => {
    const { client, requests } = stubClient(() => podList());
    await assert.rejects(client.list(nodes, { namespace: "default" }), TypeError);
    assert.equal(requests.length, 0);
  });

  test("list rejects a bad limit with a RangeError and a bad resourceVersionMatch with a TypeError", async () => {
    const { client, requests } = stubClient(() => podList());
    for (const limit of [0, -1, 1.5, Number.NaN]) {
      await assert.rejects(
        client.list(pods, { limit }),
        (e: unknown) => e instanceof RangeError && e.message.includes("options.limit"),
      );
    }
    await assert.rejects(
      client.list(pods, { resourceVersionMatch: "Newest" as unknown as "Exact" }),
      (e: unknown) => e instanceof TypeError && e.message.includes("options.resourceVersionMatch"),
    );
    assert.equal(requests.length, 0);
  });

  test("list returns the decoded page, with missing items and metadata normalised", async () => {
    const { client } = stubClient(() =>
      Response.json({
        kind: "PodList",
        metadata: { resourceVersion: "9", continue: "c", remainingItemCount: 3 },
        items: [{ metadata: { name: "a" } }],
      })
    );
    const page: KubeList = await client.list(pods, { limit: 1 });
    assert.deepEqual(page.metadata, { resourceVersion: "9", continue: "c", remainingItemCount: 3 });
    assert.equal(page.items[0]?.metadata.name, "a");

    const { client: nullItems } = stubClient(() => Response.json({ kind: "PodList", items: null }));
    const empty = await nullItems.list(pods);
    assert.deepEqual(empty.items, []);
    assert.deepEqual(empty.metadata, {});
  });

  test("a 2xx list answer that is not JSON is a TypeError carrying the parse error", async () => {
    const { client } = stubClient(() => new Response("<html>proxy login</html>", { status: 200 }));
    await assert.rejects(client.list(pods), (e: unknown) => {
      assert.ok(e instanceof TypeError);
      assert.ok(e.message.includes("GET /api/v1/pods"));
      assert.ok(e.cause instanceof SyntaxError);
      return true;
    });
  });

  test("watch sends watch=1 with its parameters and returns the stream unread", async () => {
    const line = '{"type":"ADDED","object":{"metadata":{"name":"a","resourceVersion":"5"}}}\n';
    const { client, requests } = stubClient(() => new Response(line));
    const response = await client.watch(pods, {
      namespace: "default",
      labelSelector: "app=web",
      fieldSelector: "status.phase=Running",
      resourceVersion: "4",
      allowWatchBookmarks: true,
      timeoutSeconds: 300,
    });
    assert.equal(response.bodyUsed, false);
    assert.equal(await response.text(), line);
    const url = new URL(requests[0]?.url ?? "");
    assert.equal(url.pathname, "/api/v1/namespaces/default/pods");
    assert.deepEqual(Object.fromEntries(url.searchParams), {
      watch: "1",
      labelSelector: "app=web",
      fieldSelector: "status.phase=Running",
      resourceVersion: "4",
      allowWatchBookmarks: "true",
      timeoutSeconds: "300",
    });
  });

  test("watch can ask for a streaming list with sendInitialEvents", async () => {
    const { client, requests } = stubClient(() => new Response(""));
    const response = await client.watch(configmaps, {
      sendInitialEvents: true,
      resourceVersionMatch: "NotOlderThan",
      allowWatchBookmarks: true,
    });
    await response.body?.cancel();
    const params = new URL(requests[0]?.url ?? "").searchParams;
    assert.equal(params.get("sendInitialEvents"), "true");
    assert.equal(params.get("resourceVersionMatch"), "NotOlderThan");
    assert.equal(params.has("resourceVersion"), false);
  });

  test("watch rejects a negative or fractional timeoutSeconds with a RangeError", async () => {
    const { client, requests } = stubClient(() => new Response(""));
    for (const timeoutSeconds of [-1, 2.5]) {
      await assert.rejects(
        client.watch(pods, { timeoutSeconds }),
        (e: unknown) => e instanceof RangeError && e.message.includes("options.timeoutSeconds"),
      );
    }
    assert.equal(requests.length, 0);
  });

  test("request appends query values and leaves undefined ones out", async () => {
    const { client, requests } = stubClient(() => new Response("{}"));
    await client.request("/version", { query: { a: "x y", b: 2, c: false, d: undefined } });
    assert.equal(requests[0]?.url, "http://127.0.0.1:8001/version?a=x+y&b=2&c=false");
  });

  test("request refuses a path that does not start with '/'", async () => {
    const { client, requests } = stubClient(() => new Response("{}"));
    await assert.rejects(client.request("api/v1/pods"), TypeError);
    assert.equal(requests.length, 0);
  });
});

describe("KubeClient headers and tokens", () => {
  test("every request sends Accept JSON and the default user agent", async () => {
    const { client, requests } = stubClient(() => podList());
    await client.list(pods);
    assert.equal(requests[0]?.headers.get("accept"), "application/json");
    assert.equal(requests[0]?.headers.get("user-agent"), "kinformer/0.1.0");
    assert.equal(requests[0]?.headers.has("authorization"), false);
  });

  test("a custom user agent and client headers are sent; per-request headers win", async () => {
    const { client, requests } = stubClient(() => new Response("{}"), {
      userAgent: "my-controller/2.0",
      headers: { "X-Team": "a", "Impersonate-User": "alice" },
    });
    await client.request("/version", { headers: { "x-team": "b" } });
    const headers = requests[0]?.headers;
    assert.equal(headers?.get("user-agent"), "my-controller/2.0");
    assert.equal(headers?.get("impersonate-user"), "alice");
    assert.equal(headers?.get("x-team"), "b");
  });

  test("a static token is sent as a bearer token", async () => {
    const { client, requests } = stubClient(() => podList(), { token: "abc" });
    await client.list(pods);
    assert.equal(requests[0]?.headers.get("authorization"), "Bearer abc");
  });

  test("a token function is called before every request, so rotated tokens are used", async () => {
    let calls = 0;
    const token = async (): Promise<string> => {
      await Promise.resolve();
      calls++;
      return `token-${calls}`;
    };
    const { client, requests } = stubClient(() => podList(), { token });
    await client.list(pods);
    await client.watch(pods).then((r) => r.body?.cancel());
    await client.get(namespaces, "default").catch(() => undefined);
    assert.equal(calls, 3);
    assert.deepEqual(requests.map((r) => r.headers.get("authorization")), [
      "Bearer token-1",
      "Bearer token-2",
      "Bearer token-3",
    ]);
  });

  test("an error thrown by the token function fails the request unchanged, before any fetch", async () => {
    const failure = new Error("token file unreadable");
    const { client, requests } = stubClient(() => podList(), {
      token: () => Promise.reject(failure),
    });
    await rejectsWithSame(client.list(pods), failure);
    assert.equal(requests.length, 0);
  });

  test("a token function returning an empty string is a TypeError naming options.token()", async () => {
    const { client } = stubClient(() => podList(), { token: () => "" });
    await assert.rejects(
      client.list(pods),
      (e: unknown) => e instanceof TypeError && e.message.includes("options.token()"),
    );
  });
});

describe("KubeClient writes", () => {
  const echo: Handler = async (request) =>
    new Response(request.body === null ? "{}" : await request.text(), {
      status: request.method === "POST" ? 201 : 200,
    });

  test("get reads one object by name", async () => {
    const { client, requests } = stubClient(() =>
      Response.json({ metadata: { name: "web-1", namespace: "default" } })
    );
    const pod = await client.get(pods, "web-1", { namespace: "default" });
    assert.equal(pod.metadata.name, "web-1");
    assert.equal(requests[0]?.url, "http://127.0.0.1:8001/api/v1/namespaces/default/pods/web-1");
  });

  test("get of a namespaced object without a namespace is a TypeError", async () => {
    const { client, requests } = stubClient(echo);
    await assert.rejects(client.get(pods, "web-1"), TypeError);
    await assert.rejects(client.get(pods, "", { namespace: "default" }), TypeError);
    assert.equal(requests.length, 0);
  });

  test("create POSTs JSON to the collection of the object's namespace", async () => {
    const { client, requests } = stubClient(echo);
    const object = { metadata: { name: "cfg", namespace: "team-a" }, data: { k: "v" } };
    const created = await client.create(configmaps, object);
    assert.deepEqual(created, object);
    const request = requests[0];
    assert.equal(request?.method, "POST");
    assert.equal(request?.url, "http://127.0.0.1:8001/api/v1/namespaces/team-a/configmaps");
    assert.equal(request?.headers.get("content-type"), "application/json");
  });

  test("create takes the namespace from options, and refuses a conflicting or missing one", async () => {
    const { client, requests } = stubClient(echo);
    await client.create(configmaps, { metadata: { name: "cfg" } }, { namespace: "b" });
    assert.equal(new URL(requests[0]?.url ?? "").pathname, "/api/v1/namespaces/b/configmaps");
    await assert.rejects(
      client.create(configmaps, { metadata: { name: "cfg", namespace: "a" } }, { namespace: "b" }),
      (e: unknown) => e instanceof TypeError && e.message.includes("options.namespace"),
    );
    await assert.rejects(client.create(configmaps, { metadata: { name: "cfg" } }), TypeError);
    assert.equal(requests.length, 1);
  });

  test("create of a cluster-scoped object has no namespace segment", async () => {
    const { client, requests } = stubClient(echo);
    await client.create(namespaces, { metadata: { name: "team-a" } });
    assert.equal(new URL(requests[0]?.url ?? "").pathname, "/api/v1/namespaces");
  });

  test("replace PUTs to the object's own name and namespace", async () => {
    const { client, requests } = stubClient(echo);
    const object = {
      metadata: { name: "web", namespace: "prod", resourceVersion: "7" },
      spec: { replicas: 2 },
    };
    const replaced = await client.replace(deployments, object);
    assert.deepEqual(replaced, object);
    assert.equal(requests[0]?.method, "PUT");
    assert.equal(
      requests[0]?.url,
      "http://127.0.0.1:8001/apis/apps/v1/namespaces/prod/deployments/web",
    );
    await assert.rejects(
      client.replace(deployments, { metadata: { namespace: "prod" } }),
      TypeError,
    );
  });

  test("patch sends the content type of each patch kind", async () => {
    const { client, requests } = stubClient(() => Response.json({ metadata: { name: "web" } }));
    await client.patch(deployments, "web", { spec: { replicas: 3 } }, { namespace: "prod" });
    await client.patch(deployments, "web", { spec: { replicas: 4 } }, {
      namespace: "prod",
      type: "strategic",
    });
    const ops = [{ op: "replace", path: "/spec/replicas", value: 5 }];
    await client.patch(deployments, "web", ops, { namespace: "prod", type: "json" });
    assert.deepEqual(requests.map((r) => [r.method, r.headers.get("content-type")]), [
      ["PATCH", "application/merge-patch+json"],
      ["PATCH", "application/strategic-merge-patch+json"],
      ["PATCH", "application/json-patch+json"],
    ]);
    assert.equal(
      requests[2]?.url,
      "http://127.0.0.1:8001/apis/apps/v1/namespaces/prod/deployments/web",
    );
  });

  test("patch refuses an unknown type and a JSON patch that is not an array", async () => {
    const { client, requests } = stubClient(echo);
    await assert.rejects(
      client.patch(pods, "a", {}, { namespace: "d", type: "apply" as unknown as "merge" }),
      (e: unknown) => e instanceof TypeError && e.message.includes("options.type"),
    );
    await assert.rejects(
      client.patch(pods, "a", { op: "add" }, { namespace: "d", type: "json" }),
      TypeError,
    );
    assert.equal(requests.length, 0);
  });

  test("delete returns the Status or the still-present object, with its options as query", async () => {
    const success: Status = { kind: "Status", apiVersion: "v1", status: "Success", code: 200 };
    const answers = [
      Response.json(success),
      Response.json({ metadata: { name: "web-1", deletionTimestamp: "t" } }),
    ];
    const { client, requests } = stubClient(() =>
      answers.shift() ?? new Response(null, { status: 500 })
    );
    const first = await client.delete(pods, "web-1", {
      namespace: "default",
      propagationPolicy: "Foreground",
      gracePeriodSeconds: 0,
    });
    assert.equal(isStatus(first), true);
    const second = await client.delete(pods, "web-1", { namespace: "default" });
    assert.equal(isStatus(second) ? undefined : second.metadata.deletionTimestamp, "t");
    assert.equal(requests[0]?.method, "DELETE");
    assert.equal(
      requests[0]?.url,
      "http://127.0.0.1:8001/api/v1/namespaces/default/pods/web-1?propagationPolicy=Foreground&gracePeriodSeconds=0",
    );
    await assert.rejects(
      client.delete(pods, "x", { namespace: "d", gracePeriodSeconds: -1 }),
      RangeError,
    );
  });
});

describe("KubeClient error answers", () => {
  test("a JSON Status 404 becomes a KubeApiError with the decoded Status and the request", async () => {
    const body = status(404, "NotFound", 'pods "missing" not found', {
      details: { name: "missing", kind: "pods" },
    });
    const { client } = stubClient(() => Response.json(body, { status: 404 }));
    const error = await apiError(client.get(pods, "missing", { namespace: "default" }));
    assert.equal(error.name, "KubeApiError");
    assert.equal(error.code, 404);
    assert.equal(error.reason, "NotFound");
    assert.deepEqual(error.status, body);
    assert.equal(error.bodySnippet, undefined);
    assert.equal(error.retryAfterSeconds, undefined);
    assert.ok(
      error.message.startsWith("GET /api/v1/namespaces/default/pods/missing: "),
      error.message,
    );
    assert.ok(error.message.includes('pods "missing" not found'));
  });

  test("410 Expired on a list is expired, and the message names the query", async () => {
    const { client } = stubClient(() =>
      Response.json(status(410, "Expired", "The provided continue parameter is too old"), {
        status: 410,
      })
    );
    const error = await apiError(client.list(pods, { limit: 500, continue: "tok" }));
    assert.equal(error.isExpired, true);
    assert.equal(error.reason, "Expired");
    assert.ok(error.message.startsWith("GET /api/v1/pods?limit=500&continue=tok: "), error.message);
  });

  test("504 ResourceVersionTooLarge carries Retry-After seconds", async () => {
    const body = status(504, "Timeout", "Too large resource version: 20, current: 10", {
      details: {
        causes: [{ type: "ResourceVersionTooLarge", message: "Too large resource version" }],
        retryAfterSeconds: 1,
      },
    });
    const { client } = stubClient(() =>
      Response.json(body, { status: 504, headers: { "Retry-After": "2" } })
    );
    const error = await apiError(
      client.list(pods, { resourceVersion: "20", resourceVersionMatch: "NotOlderThan" }),
    );
    assert.equal(error.code, 504);
    assert.equal(error.reason, "Timeout");
    assert.equal(error.isResourceVersionTooLarge, true);
    assert.equal(error.isExpired, false);
    assert.equal(error.retryAfterSeconds, 2, "the header wins over the Status details");
  });

  test("without a Retry-After header, the Status details' retryAfterSeconds is used", async () => {
    const body = status(503, "ServiceUnavailable", "shutting down", {
      details: { retryAfterSeconds: 4 },
    });
    const { client } = stubClient(() => Response.json(body, { status: 503 }));
    assert.equal((await apiError(client.list(pods))).retryAfterSeconds, 4);
  });

  test("a plain-text 429 keeps the body as a snippet and Retry-After as seconds", async () => {
    const text = "Too many requests, please try again later.\n";
    const { client } = stubClient(() =>
      new Response(text, {
        status: 429,
        headers: { "Content-Type": "text/plain", "Retry-After": "3" },
      })
    );
    const error = await apiError(client.watch(pods));
    assert.equal(error.code, 429);
    assert.equal(error.reason, "");
    assert.equal(error.status, undefined);
    assert.equal(error.bodySnippet, text);
    assert.equal(error.retryAfterSeconds, 3);
    assert.ok(error.message.includes("429"), error.message);
    assert.ok(error.message.startsWith("GET /api/v1/pods?watch=1: "), error.message);
  });

  test("a Retry-After HTTP date becomes the seconds until then on the injected clock", async () => {
    const clock = new ManualClock(1_700_000_000_500);
    const dates = [
      new Date(1_700_000_120_000).toUTCString(), // 119.5 s ahead: rounded up
      new Date(1_699_999_000_000).toUTCString(), // in the past
      "soon",
    ];
    const { client } = stubClient(
      () =>
        new Response("slow down", { status: 429, headers: { "Retry-After": dates.shift() ?? "" } }),
      { clock },
    );
    assert.equal((await apiError(client.list(pods))).retryAfterSeconds, 120);
    assert.equal((await apiError(client.list(pods))).retryAfterSeconds, 0);
    assert.equal((await apiError(client.list(pods))).retryAfterSeconds, undefined);
  });

  test("an HTML 502 page from a proxy is cut to a 200-character snippet", async () => {
    const page = "<!DOCTYPE html>\n<html><head><title>502 Bad Gateway</title></head><body>" +
      "<h1>Bad Gateway</h1><p>" + "The upstream server did not answer. ".repeat(20) +
      "</p></body></html>";
    const { client } = stubClient(() =>
      new Response(page, { status: 502, headers: { "Content-Type": "text/html" } })
    );
    const error = await apiError(client.list(pods));
    assert.equal(error.code, 502);
    assert.equal(error.status, undefined);
    assert.equal(error.bodySnippet, page.slice(0, 200));
    assert.ok(error.message.includes("502"));
    assert.ok(error.message.length < 400, "the message stays short");
  });

  test("a snippet never ends on half of a surrogate pair", async () => {
    const body = "x".repeat(199) + "😀" + "tail";
    const { client } = stubClient(() => new Response(body, { status: 500 }));
    assert.equal((await apiError(client.list(pods))).bodySnippet, "x".repeat(199));
  });

  test("an empty 500 body gives an empty snippet and a message with the status", async () => {
    const { client } = stubClient(() => new Response(null, { status: 500 }));
    const error = await apiError(client.list(pods));
    assert.equal(error.code, 500);
    assert.equal(error.status, undefined);
    assert.equal(error.bodySnippet, "");
    assert.ok(error.message.includes("500"));
  });

  test("JSON that is not a Status is kept as a snippet", async () => {
    const text = '{"error":"upstream connect error","code":"UF"}';
    const { client } = stubClient(() =>
      new Response(text, { status: 503, headers: { "Content-Type": "application/json" } })
    );
    const error = await apiError(client.list(pods));
    assert.equal(error.status, undefined);
    assert.equal(error.reason, "");
    assert.equal(error.bodySnippet, text);
  });

  test("an endless error body is read only up to a bound, then cancelled", async () => {
    const tracked = trackedBody(["<html>"], "endless");
    const { client } = stubClient(() => new Response(tracked.body, { status: 502 }));
    const error = await apiError(client.list(pods));
    assert.ok(error.bodySnippet?.startsWith("<html>xxx"));
    assert.equal(tracked.cancelled(), true);
    assert.ok(tracked.pulls() < 100, `pulled ${tracked.pulls()} chunks`);
  });

  test("an error body that fails mid-read still gives a KubeApiError, with the failure as cause", async () => {
    const failure = new TypeError("connection reset");
    const tracked = trackedBody(['{"kind":"Sta'], { error: failure });
    const { client } = stubClient(() => new Response(tracked.body, { status: 500 }));
    const error = await apiError(client.list(pods));
    assert.equal(error.code, 500);
    assert.equal(error.cause, failure);
  });
});

describe("KubeClient network failures and aborts", () => {
  test("a rejecting fetch becomes a KubeNetworkError with the original error as cause", async () => {
    const failure = new TypeError("fetch failed");
    const client = new KubeClient({
      server: "http://127.0.0.1:8001",
      fetch: () => Promise.reject(failure),
    });
    await assert.rejects(client.list(pods, { namespace: "default" }), (e: unknown) => {
      assert.ok(e instanceof KubeNetworkError);
      assert.equal(e.name, "KubeNetworkError");
      assert.equal(e.cause, failure);
      assert.ok(
        e.message.includes("GET http://127.0.0.1:8001/api/v1/namespaces/default/pods"),
        e.message,
      );
      return true;
    });
  });

  test("a list body that fails mid-read is a KubeNetworkError with the failure as cause", async () => {
    const failure = new TypeError("terminated");
    const tracked = trackedBody(['{"kind":"PodList","items":[{"meta'], { error: failure });
    const { client } = stubClient(() => new Response(tracked.body));
    await assert.rejects(client.list(pods), (e: unknown) => {
      assert.ok(e instanceof KubeNetworkError, String(e));
      assert.equal(e.cause, failure);
      assert.ok(e.message.startsWith("GET /api/v1/pods"), e.message);
      return true;
    });
  });

  test("a refused connection to a closed port on 127.0.0.1 is a KubeNetworkError", async () => {
    const port = await closedPort();
    const client = new KubeClient({ server: `http://127.0.0.1:${port}` });
    await assert.rejects(client.list(pods), (e: unknown) => {
      assert.ok(e instanceof KubeNetworkError, String(e));
      assert.ok(e.cause !== undefined);
      assert.ok(e.message.includes(`127.0.0.1:${port}`));
      return true;
    });
  });

  test("an already aborted signal rethrows its reason without calling fetch or the token", async () => {
    const { client, calls } = countingClient();
    const reason = new Error("shutting down");
    await rejectsWithSame(client.list(pods, { signal: AbortSignal.abort(reason) }), reason);
    await rejectsWithSame(client.watch(pods, { signal: AbortSignal.abort(reason) }), reason);
    assert.equal(calls(), 0);
  });

  test("an abort during a fetch that honours the signal rethrows the reason unchanged", async () => {
    const controller = new AbortController();
    let started = false;
    const client = new KubeClient({
      server: "http://127.0.0.1:8001",
      fetch: (request) =>
        new Promise<Response>((_, reject) => {
          started = true;
          request.signal.addEventListener("abort", () =>
            reject(new DOMException("aborted", "AbortError")), { once: true });
        }),
    });
    const pending = client.watch(pods, { signal: controller.signal });
    await turn();
    assert.equal(started, true);
    const reason = { why: "informer stopped" };
    controller.abort(reason);
    await rejectsWithSame(pending, reason);
  });

  test("the default abort reason is rethrown as the very same object", async () => {
    const controller = new AbortController();
    const client = new KubeClient({
      server: "http://127.0.0.1:8001",
      fetch: (request) =>
        new Promise<Response>((_, reject) => {
          request.signal.addEventListener("abort", () => reject(request.signal.reason), {
            once: true,
          });
        }),
    });
    const pending = client.list(pods, { signal: controller.signal });
    await turn();
    controller.abort();
    await rejectsWithSame(pending, controller.signal.reason);
  });

  test("an abort during a fetch that ignores the signal still rejects, and a late answer is cancelled", async () => {
    let answer: (response: Response) => void = () => {};
    const client = new KubeClient({
      server: "http://127.0.0.1:8001",
      fetch: () => new Promise<Response>((resolve) => (answer = resolve)),
    });
    await abortsUnderWay((signal) => client.watch(pods, { signal }));
    const tracked = trackedBody([], "open");
    answer(new Response(tracked.body));
    await turn();
    assert.equal(tracked.cancelled(), true);
  });

  test("an abort while awaiting the token function rethrows the reason and sends nothing", async () => {
    let fetches = 0;
    const client = new KubeClient({
      server: "http://127.0.0.1:8001",
      token: () => new Promise<string>(() => {}),
      fetch: () => {
        fetches++;
        return Promise.resolve(podList());
      },
    });
    await abortsUnderWay((signal) => client.list(pods, { signal }));
    assert.equal(fetches, 0);
  });

  test("an abort while reading a list body rethrows the reason and cancels the body", async () => {
    const tracked = trackedBody(['{"kind":"PodList","items":['], "open");
    const { client } = stubClient(() => new Response(tracked.body));
    await abortsUnderWay((signal) => client.list(pods, { signal }));
    assert.equal(tracked.cancelled(), true);
  });

  test("an abort while reading an error body rethrows the reason and cancels the body", async () => {
    const tracked = trackedBody(["<html>"], "open");
    const { client } = stubClient(() => new Response(tracked.body, { status: 502 }));
    await abortsUnderWay((signal) => client.list(pods, { signal }));
    assert.equal(tracked.cancelled(), true);
  });
});
