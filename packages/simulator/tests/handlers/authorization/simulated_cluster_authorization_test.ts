// The authorization option: 403 Forbidden for denied requests, worded as kube-apiserver's, and
// the self reviews (JSON and the protobuf kubectl sends) answered from the same policy; and the
// 415 for any other protobuf body.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { configmaps, namespaces, pods } from "../../../../../src/client/resource.ts";
import type { Status } from "../../../../../src/client/types.ts";
import { SimulatedCluster } from "../../../src/cluster/simulated_cluster.ts";
import type { SimulatedClusterOptions } from "../../../src/cluster/cluster_options.ts";

function send(
  c: SimulatedCluster,
  method: string,
  path: string,
  body?: BodyInit,
  contentType = "application/json",
) {
  return c.fetch(
    new Request(`http://sim.test${path}`, {
      method,
      ...(body === undefined ? {} : { body, headers: { "Content-Type": contentType } }),
    }),
  );
}

/** Protobuf encoding of length-delimited fields (strings and messages), for the tests' bodies. */
function field(number: number, value: string | Uint8Array): Uint8Array {
  const bytes = typeof value === "string" ? new TextEncoder().encode(value) : value;
  const varint = (n: number) => {
    const out: number[] = [];
    while (n > 0x7f) {
      out.push((n & 0x7f) | 0x80);
      n >>>= 7;
    }
    out.push(n);
    return out;
  };
  return new Uint8Array([...varint((number << 3) | 2), ...varint(bytes.length), ...bytes]);
}
const concat = (...parts: Uint8Array[]): Uint8Array<ArrayBuffer> =>
  new Uint8Array(parts.flatMap((p) => [...p]));

/** A SelfSubjectAccessReview as kubectl auth can-i posts it (application/vnd.kubernetes.protobuf). */
function accessReviewProtobuf(
  namespace: string,
  verb: string,
  resource: string,
): Uint8Array<ArrayBuffer> {
  const attributes = concat(field(1, namespace), field(2, verb), field(3, ""), field(5, resource));
  const object = concat(field(1, new Uint8Array()), field(2, field(1, attributes)));
  const typeMeta = concat(field(1, "authorization.k8s.io/v1"), field(2, "SelfSubjectAccessReview"));
  return concat(new TextEncoder().encode("k8s\0"), field(1, typeMeta), field(2, object));
}

const readOnly: SimulatedClusterOptions = {
  authorization: [
    { verbs: ["get", "list", "watch"], apiGroups: [""], resources: ["pods", "pods/status"] },
    { verbs: ["*"], apiGroups: [""], resources: ["configmaps"], namespaces: ["team-a"] },
    { verbs: ["get"], nonResourceURLs: ["/metrics"] },
  ],
};

describe("SimulatedCluster authorization", () => {
  test("allows everything by default", async () => {
    const c = new SimulatedCluster();
    assert.equal((await send(c, "DELETE", "/api/v1/namespaces/default/pods/x")).status, 404);
    c.close();
  });

  test("a denied request is a 403 Forbidden Status worded as kube-apiserver's, and nothing changes", async () => {
    const c = new SimulatedCluster(readOnly);
    c.create(namespaces, { metadata: { name: "team-a" } });
    c.create(pods, { metadata: { name: "web", namespace: "default" } });
    assert.equal((await send(c, "GET", "/api/v1/namespaces/default/pods")).status, 200);
    assert.equal((await send(c, "GET", "/api/v1/namespaces/default/pods/web/status")).status, 200);
    const del = await send(c, "DELETE", "/api/v1/namespaces/default/pods/web");
    assert.equal(del.status, 403);
    const s = await del.json() as Status;
    assert.deepEqual(s, {
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message:
        'pods "web" is forbidden: User "system:anonymous" cannot delete resource "pods" in API group "" in the namespace "default"',
      reason: "Forbidden",
      details: { name: "web", kind: "pods" },
      code: 403,
    });
    assert.ok(c.get(pods, { namespace: "default", name: "web" }));
    const all = await send(c, "GET", "/api/v1/configmaps");
    assert.equal(
      (await all.json() as Status).message,
      'configmaps is forbidden: User "system:anonymous" cannot list resource "configmaps" in API group "" at the cluster scope',
    );
    const create = await send(
      c,
      "POST",
      "/apis/apps/v1/namespaces/default/deployments",
      '{"metadata":{"name":"d"}}',
    );
    assert.equal(
      (await create.json() as Status).message,
      'deployments.apps is forbidden: User "system:anonymous" cannot create resource "deployments" in API group "apps" in the namespace "default"',
    );
    const watch = await send(c, "GET", "/api/v1/namespaces/default/configmaps?watch=1");
    assert.equal(watch.status, 403);
    await watch.body?.cancel();
    assert.equal(
      (await send(c, "POST", "/api/v1/namespaces/team-a/configmaps", '{"metadata":{"name":"x"}}'))
        .status,
      201,
    );
    assert.equal(c.list(configmaps).length, 1);
    // Discovery and OpenAPI are for everyone.
    for (const path of ["/api", "/apis", "/api/v1", "/openapi/v3", "/version"]) {
      assert.equal((await send(c, "GET", path)).status, 200, path);
    }
    c.close();
  });

  test("a function decides with a reason; one that throws denies, with the error as the reason", async () => {
    const seen: string[] = [];
    const c = new SimulatedCluster({
      token: "t",
      authorization: (a) => {
        seen.push(`${a.user.username} ${a.verb} ${a.resource} ${a.namespace}/${a.name}`);
        if (a.resource === "secrets") throw new Error("policy store unreachable");
        return a.verb === "get" ? true : { allowed: false, reason: "read-only cluster" };
      },
    });
    const auth = { headers: { Authorization: "Bearer t" } };
    const get = await c.fetch(
      new Request("http://sim.test/api/v1/namespaces/default/pods/p", auth),
    );
    assert.equal(get.status, 404);
    const list = await c.fetch(
      new Request("http://sim.test/api/v1/pods?fieldSelector=metadata.name%3Dp", auth),
    );
    assert.equal(
      (await list.json() as Status).message,
      'pods "p" is forbidden: User "kinformer" cannot list resource "pods" in API group "" at the cluster scope: read-only cluster',
    );
    assert.deepEqual(seen, ["kinformer get pods default/p", "kinformer list pods /p"]);
    c.close();
    const throwing = new SimulatedCluster({
      resources: [{
        resource: { version: "v1", resource: "secrets", kind: "Secret", namespaced: true },
      }],
      authorization: (a) => {
        if (a.resource === "secrets") throw new Error("policy store unreachable");
        return true;
      },
    });
    const denied = await send(throwing, "GET", "/api/v1/secrets");
    assert.match(
      (await denied.json() as Status).message!,
      /: the authorization function failed: policy store unreachable$/,
    );
    throwing.close();
  });

  test("SelfSubjectAccessReview, in JSON or protobuf, answers from the policy", async () => {
    const c = new SimulatedCluster(readOnly);
    const review = async (body: BodyInit, type: string) => {
      const res = await send(
        c,
        "POST",
        "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews",
        body,
        type,
      );
      assert.equal(res.status, 201, await res.clone().text());
      return await res.json() as { kind: string; spec: unknown; status: { allowed: boolean } };
    };
    const json = await review(
      JSON.stringify({
        apiVersion: "authorization.k8s.io/v1",
        kind: "SelfSubjectAccessReview",
        spec: { resourceAttributes: { namespace: "default", verb: "list", resource: "pods" } },
      }),
      "application/json",
    );
    assert.equal(json.kind, "SelfSubjectAccessReview");
    assert.deepEqual(json.status, { allowed: true });
    const proto = await review(
      accessReviewProtobuf("default", "delete", "pods"),
      "application/vnd.kubernetes.protobuf",
    );
    assert.deepEqual(proto.spec, {
      resourceAttributes: { namespace: "default", verb: "delete", group: "", resource: "pods" },
    });
    assert.deepEqual(proto.status, { allowed: false });
    const nonResource = await review(
      '{"spec":{"nonResourceAttributes":{"path":"/metrics","verb":"get"}}}',
      "application/json",
    );
    assert.deepEqual(nonResource.status, { allowed: true });
    const neither = await send(
      c,
      "POST",
      "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews",
      '{"spec":{}}',
    );
    assert.equal(neither.status, 422);
    const get = await send(c, "GET", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews");
    assert.equal(get.status, 405);
    await get.body?.cancel();
    c.close();
  });

  test("SelfSubjectRulesReview lists the rules of a namespace; SelfSubjectReview says who you are", async () => {
    const c = new SimulatedCluster(readOnly);
    const res = await send(
      c,
      "POST",
      "/apis/authorization.k8s.io/v1/selfsubjectrulesreviews",
      '{"spec":{"namespace":"team-a"}}',
    );
    assert.equal(res.status, 201);
    const body = await res.json() as {
      status: {
        resourceRules: Array<{ resources: string[] }>;
        nonResourceRules: unknown[];
        incomplete: boolean;
      };
    };
    assert.equal(body.status.incomplete, false);
    assert.deepEqual(body.status.resourceRules.map((r) => r.resources), [
      ["selfsubjectaccessreviews", "selfsubjectrulesreviews"],
      ["selfsubjectreviews"],
      ["pods", "pods/status"],
      ["configmaps"],
    ]);
    const other = await (await send(
      c,
      "POST",
      "/apis/authorization.k8s.io/v1/selfsubjectrulesreviews",
      '{"spec":{"namespace":"default"}}',
    )).json() as typeof body;
    assert.ok(!other.status.resourceRules.some((r) => r.resources.includes("configmaps")));
    const fn = new SimulatedCluster({ authorization: () => true });
    const incomplete = await (await send(
      fn,
      "POST",
      "/apis/authorization.k8s.io/v1/selfsubjectrulesreviews",
      '{"spec":{"namespace":"default"}}',
    )).json() as { status: { incomplete: boolean } };
    assert.equal(incomplete.status.incomplete, true);
    fn.close();
    const who =
      await (await send(c, "POST", "/apis/authentication.k8s.io/v1/selfsubjectreviews", "{}"))
        .json() as { status: { userInfo: unknown } };
    assert.deepEqual(who.status.userInfo, {
      username: "system:anonymous",
      groups: ["system:unauthenticated"],
    });
    c.close();
  });

  test("bad policies are TypeErrors naming the rule", () => {
    const bad: Array<[unknown, RegExp]> = [
      ["allow", /options\.authorization must be an array of rules or a function/],
      [[{ verbs: "get" }], /authorization\[0\]\.verbs must be an array of strings/],
      [
        [{ verbs: ["get"], apiGroups: [""] }],
        /authorization\[0\] needs both apiGroups and resources/,
      ],
      [[{ verbs: ["get"] }], /needs apiGroups and resources, or nonResourceURLs/],
      [
        [{ verbs: ["get"], apiGroups: [""], resources: ["pods"], nonResourceURLs: ["/x"] }],
        /cannot have both/,
      ],
    ];
    for (const [authorization, message] of bad) {
      assert.throws(
        () => new SimulatedCluster({ authorization } as SimulatedClusterOptions),
        (e: Error) => e instanceof TypeError && message.test(e.message),
      );
    }
  });
  test("a server-side apply that creates the object needs create too, as kube-apiserver checks it", async () => {
    // patch.go authorizes an apply that creates as `create` besides `patch`.
    const c = new SimulatedCluster({
      authorization: [{ verbs: ["get", "patch"], apiGroups: [""], resources: ["configmaps"] }],
    });
    const apply = (name: string) =>
      send(
        c,
        "PATCH",
        `/api/v1/namespaces/default/configmaps/${name}?fieldManager=test`,
        JSON.stringify({
          apiVersion: "v1",
          kind: "ConfigMap",
          metadata: { name },
          data: { a: "1" },
        }),
        "application/apply-patch+yaml",
      );
    const refused = await apply("new");
    assert.equal(refused.status, 403);
    assert.equal(
      (await refused.json() as Status).message,
      'configmaps "new" is forbidden: User "system:anonymous" cannot create resource "configmaps" in API group "" in the namespace "default"',
    );
    assert.equal(c.list(configmaps).length, 0);
    // Once the object exists, patch alone is enough.
    c.create(configmaps, { metadata: { namespace: "default", name: "old" } });
    assert.equal((await apply("old")).status, 200);
    c.close();
  });
});

describe("SimulatedCluster protobuf bodies", () => {
  test("any write with a protobuf body gets 415 with a Status that says to send JSON", async () => {
    const c = new SimulatedCluster();
    c.create(configmaps, { metadata: { name: "c", namespace: "default" } });
    const body = new Uint8Array([0x6b, 0x38, 0x73, 0, 1, 2, 3]);
    for (
      const [method, path] of [
        ["POST", "/api/v1/namespaces/default/configmaps"],
        ["PUT", "/api/v1/namespaces/default/configmaps/c"],
        ["PATCH", "/api/v1/namespaces/default/configmaps/c"],
      ] as const
    ) {
      const res = await send(c, method, path, body, "application/vnd.kubernetes.protobuf");
      assert.equal(res.status, 415, method);
      const s = await res.json() as Status;
      assert.equal(s.reason, "UnsupportedMediaType");
      assert.match(
        s.message!,
        /does not decode "application\/vnd\.kubernetes\.protobuf": send the object as JSON/,
      );
    }
    assert.equal(c.list(configmaps).length, 1);
    c.close();
  });
});
