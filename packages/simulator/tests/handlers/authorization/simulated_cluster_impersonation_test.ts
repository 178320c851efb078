// Impersonation (kubectl --as, --as-group, --as-uid): the Impersonate-* headers switch the
// request's user once the requester may impersonate each part, as kube-apiserver's filter does.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { Status } from "../../../../../src/client/types.ts";
import type { AuthorizationAttributes } from "../../../src/handlers/authorization/authorization_policy.ts";
import { SimulatedCluster } from "../../../src/cluster/simulated_cluster.ts";
import type { SimulatedClusterOptions } from "../../../src/cluster/cluster_options.ts";

async function send(
  c: SimulatedCluster,
  method: string,
  path: string,
  headers: [string, string][],
  body?: unknown,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const h = new Headers(headers);
  if (body !== undefined) h.set("Content-Type", "application/json");
  const res = await c.fetch(
    new Request(`http://sim.test${path}`, {
      method,
      headers: h,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    }),
  );
  return { status: res.status, body: await res.json() as Record<string, unknown> };
}

const whoami = (c: SimulatedCluster, headers: [string, string][]) =>
  send(c, "POST", "/apis/authentication.k8s.io/v1/selfsubjectreviews", headers, {
    apiVersion: "authentication.k8s.io/v1",
    kind: "SelfSubjectReview",
  });

const userInfo = (r: { body: Record<string, unknown> }) =>
  (r.body.status as Record<string, unknown>).userInfo;

describe("SimulatedCluster impersonation", () => {
  test("whoami --as --as-group --as-uid and extras answers the impersonated user (allow-all)", async () => {
    const c = new SimulatedCluster();
    const plain = await whoami(c, []);
    assert.deepEqual(userInfo(plain), {
      username: "system:anonymous",
      groups: ["system:unauthenticated"],
    });
    const r = await whoami(c, [
      ["Impersonate-User", "alice"],
      ["Impersonate-Group", "devs"],
      ["Impersonate-Group", "ops"],
      ["Impersonate-Uid", "1234"],
      ["Impersonate-Extra-Scopes%2Fwrite", "a"],
      ["Impersonate-Extra-Scopes%2Fwrite", "b"],
    ]);
    assert.equal(r.status, 201);
    assert.deepEqual(userInfo(r), {
      username: "alice",
      uid: "1234",
      groups: ["devs", "ops", "system:authenticated"],
      extra: { "scopes/write": ["a", "b"] },
    });
    c.close();
  });

  test("a service account gets its groups; system:anonymous stays unauthenticated", async () => {
    const seen: AuthorizationAttributes[] = [];
    const c = new SimulatedCluster({
      authorization: (a) => {
        if (a.verb === "impersonate") seen.push(a);
        return true;
      },
    });
    const sa = await whoami(c, [["Impersonate-User", "system:serviceaccount:ci:builder"]]);
    assert.deepEqual(userInfo(sa), {
      username: "system:serviceaccount:ci:builder",
      groups: ["system:serviceaccounts", "system:serviceaccounts:ci", "system:authenticated"],
    });
    assert.equal(seen.length, 1);
    assert.equal(seen[0]!.resource, "serviceaccounts");
    assert.equal(seen[0]!.namespace, "ci");
    assert.equal(seen[0]!.name, "builder");
    assert.equal(seen[0]!.apiGroup, "");
    assert.equal(seen[0]!.user.username, "system:anonymous");
    const anon = await whoami(c, [["Impersonate-User", "system:anonymous"]]);
    assert.deepEqual(userInfo(anon), {
      username: "system:anonymous",
      groups: ["system:unauthenticated"],
    });
    // Groups given: they are the authority (system:authenticated added, as the server does).
    const g = await whoami(c, [
      ["Impersonate-User", "system:serviceaccount:ci:builder"],
      ["Impersonate-Group", "x"],
    ]);
    assert.deepEqual((userInfo(g) as { groups: string[] }).groups, ["x", "system:authenticated"]);
    c.close();
  });

  test("a requester not allowed to impersonate gets the server's 403, and nothing is served", async () => {
    const options: SimulatedClusterOptions = {
      token: "t",
      authorization: [
        { verbs: ["*"], apiGroups: [""], resources: ["pods"] },
        { verbs: ["impersonate"], apiGroups: [""], resources: ["users"] },
      ],
    };
    const c = new SimulatedCluster(options);
    const auth: [string, string] = ["Authorization", "Bearer t"];
    const user = await send(c, "GET", "/api/v1/namespaces/default/pods", [
      auth,
      ["Impersonate-User", "alice"],
      ["Impersonate-Group", "devs"],
    ]);
    assert.equal(user.status, 403);
    const s = user.body as unknown as Status;
    assert.equal(s.reason, "Forbidden");
    assert.equal(
      s.message,
      'groups "devs" is forbidden: User "kinformer" cannot impersonate resource "groups" in API group "" at the cluster scope',
    );
    assert.deepEqual(s.details, { name: "devs", kind: "groups" });
    const extra = await send(c, "GET", "/api/v1/namespaces/default/pods", [
      auth,
      ["Impersonate-User", "alice"],
      ["Impersonate-Extra-Scopes", "v"],
    ]);
    assert.equal(extra.status, 403);
    assert.equal(
      extra.body.message,
      'userextras.authentication.k8s.io "v" is forbidden: User "kinformer" cannot impersonate resource "userextras/scopes" in API group "authentication.k8s.io" at the cluster scope',
    );
    const sa = await send(c, "GET", "/api/v1/namespaces/default/pods", [
      auth,
      ["Impersonate-User", "system:serviceaccount:ci:builder"],
    ]);
    assert.equal(
      sa.body.message,
      'serviceaccounts "builder" is forbidden: User "kinformer" cannot impersonate resource "serviceaccounts" in API group "" in the namespace "ci"',
    );
    const ok = await send(c, "GET", "/api/v1/namespaces/default/pods", [
      auth,
      ["Impersonate-User", "alice"],
    ]);
    assert.equal(ok.status, 200);
    c.close();
  });

  test("the user denied is worded as kube-apiserver's for users", async () => {
    const c = new SimulatedCluster({
      authorization: [{ verbs: ["get"], apiGroups: [""], resources: ["pods"] }],
    });
    const r = await send(c, "GET", "/api/v1/namespaces/default/pods", [
      ["Impersonate-User", "alice"],
    ]);
    assert.equal(r.status, 403);
    assert.equal(
      r.body.message,
      'users "alice" is forbidden: User "system:anonymous" cannot impersonate resource "users" in API group "" at the cluster scope',
    );
    c.close();
  });

  test("every decision and the access reviews see the impersonated user", async () => {
    const c = new SimulatedCluster({
      authorization: [
        { verbs: ["impersonate"], apiGroups: [""], resources: ["users", "groups"] },
        { verbs: ["list"], apiGroups: [""], resources: ["pods"], users: ["alice"] },
        { verbs: ["get"], apiGroups: [""], resources: ["configmaps"], groups: ["devs"] },
      ],
    });
    const asAlice: [string, string] = ["Impersonate-User", "alice"];
    assert.equal((await send(c, "GET", "/api/v1/namespaces/default/pods", [])).status, 403);
    const denied = await send(c, "GET", "/api/v1/namespaces/default/pods", [
      ["Impersonate-User", "bob"],
    ]);
    assert.equal(denied.status, 403);
    assert.match(String(denied.body.message), /User "bob" cannot list resource "pods"/);
    assert.equal((await send(c, "GET", "/api/v1/namespaces/default/pods", [asAlice])).status, 200);
    const cm = await send(c, "GET", "/api/v1/namespaces/default/configmaps/x", [
      ["Impersonate-User", "bob"],
      ["Impersonate-Group", "devs"],
    ]);
    assert.equal(cm.status, 404);

    const canI = (headers: [string, string][]) =>
      send(c, "POST", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", headers, {
        apiVersion: "authorization.k8s.io/v1",
        kind: "SelfSubjectAccessReview",
        spec: { resourceAttributes: { namespace: "default", verb: "list", resource: "pods" } },
      });
    const mine = await canI([]);
    assert.equal((mine.body.status as { allowed: boolean }).allowed, false);
    const alices = await canI([asAlice]);
    assert.equal((alices.body.status as { allowed: boolean }).allowed, true);

    const rules = await send(
      c,
      "POST",
      "/apis/authorization.k8s.io/v1/selfsubjectrulesreviews",
      [asAlice],
      {
        apiVersion: "authorization.k8s.io/v1",
        kind: "SelfSubjectRulesReview",
        spec: { namespace: "default" },
      },
    );
    const listed = (rules.body.status as { resourceRules: { resources: string[] }[] })
      .resourceRules.map((r) => r.resources.join(","));
    assert.ok(listed.includes("pods"), listed.join(" "));
    assert.ok(!listed.includes("configmaps"), listed.join(" "));
    c.close();
  });

  test("groups, a uid or extras without a user are the server's 500", async () => {
    const c = new SimulatedCluster();
    const r = await whoami(c, [["Impersonate-Group", "devs"]]);
    assert.equal(r.status, 500);
    assert.match(String(r.body.message), /without impersonating a user/);
    const u = await whoami(c, [["Impersonate-Uid", "1"]]);
    assert.equal(u.status, 500);
    c.close();
  });

  test("empty Impersonate-* headers ask for nothing: the request is served as the requester", async () => {
    const c = new SimulatedCluster();
    const r = await whoami(c, [["Impersonate-User", ""], ["Impersonate-Group", ""]]);
    assert.equal(r.status, 201);
    assert.deepEqual(userInfo(r), {
      username: "system:anonymous",
      groups: ["system:unauthenticated"],
    });
    c.close();
  });

  test("rule subjects are validated", () => {
    assert.throws(
      () =>
        new SimulatedCluster({
          authorization: [{
            verbs: ["get"],
            apiGroups: [""],
            resources: ["pods"],
            users: "alice" as unknown as string[],
          }],
        }),
      TypeError,
    );
  });
});
