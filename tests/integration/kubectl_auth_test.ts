// kubectl auth against the simulated cluster's authorization policy (SelfSubjectAccessReview,
// SelfSubjectRulesReview and SelfSubjectReview, which kubectl posts as protobuf), the 403 a
// denied request gets, and the 415 a protobuf body gets from the typed create commands.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { pods } from "../../src/client/resource.ts";
import { kubectlVersion, setupKubectl, tableRows } from "./_kubectl.ts";

const version = await kubectlVersion();
const available = version !== undefined;
console.log(`kubectl_auth_test: ${available ? `kubectl ${version}` : "skipped, no kubectl"}`);

const PROTOBUF_415 =
  'the body of the request was in an unknown format - accepted media types include: application/json, application/merge-patch+json, application/strategic-merge-patch+json, application/json-patch+json, application/apply-patch+yaml; the simulated cluster does not decode "application/vnd.kubernetes.protobuf": send the object as JSON (kubectl apply -f and kubectl create -f do)';

describe("kubectl auth and the simulated cluster's authorization", {
  skip: !available && "kubectl not found",
}, () => {
  test("by default everything is allowed: can-i says yes, --list shows everything, whoami the anonymous user", async () => {
    const { c, kubectl, close } = await setupKubectl();
    try {
      const yes = await kubectl(["auth", "can-i", "delete", "pods"]);
      assert.equal(yes.stdout, "yes\n");
      const review = c.requests.find((r) => r.resource === "selfsubjectaccessreviews");
      assert.equal(review?.method, "POST");
      const list = tableRows((await kubectl(["auth", "can-i", "--list"])).stdout);
      assert.deepEqual(list[0], ["Resources", "Non-Resource URLs", "Resource Names", "Verbs"]);
      assert.deepEqual(list[1], ["*.*", "[]", "[]", "[*]"]);
      const who = tableRows((await kubectl(["auth", "whoami"])).stdout);
      assert.deepEqual(who, [
        ["ATTRIBUTE", "VALUE"],
        ["Username", "system:anonymous"],
        ["Groups", "[system:unauthenticated]"],
      ]);
    } finally {
      await close();
    }
  });

  test("with rules: can-i yes and no, and denied requests get kube-apiserver's 403", async () => {
    const { c, run, kubectl, close } = await setupKubectl({
      authorization: [
        { verbs: ["get", "list", "watch"], apiGroups: [""], resources: ["pods"] },
        {
          verbs: ["update"],
          apiGroups: ["coordination.k8s.io"],
          resources: ["leases"],
          resourceNames: ["lock"],
        },
      ],
    });
    try {
      c.create(pods, { metadata: { name: "web", namespace: "default" } });
      assert.equal((await kubectl(["auth", "can-i", "list", "pods"])).stdout, "yes\n");
      const no = await run(["auth", "can-i", "delete", "pods"]);
      assert.equal(no.code, 1);
      assert.equal(no.stdout, "no\n");
      assert.equal((await kubectl(["auth", "can-i", "update", "leases/lock"])).stdout, "yes\n");
      assert.equal((await run(["auth", "can-i", "update", "leases/other"])).stdout, "no\n");

      assert.match((await kubectl(["get", "pods"])).stdout, /^web\s/m);
      const list = await run(["get", "configmaps"]);
      assert.notEqual(list.code, 0);
      assert.equal(
        list.stderr.trim(),
        'Error from server (Forbidden): configmaps is forbidden: User "system:anonymous" cannot list resource "configmaps" in API group "" in the namespace "default"',
      );
      const del = await run(["delete", "pod", "web"]);
      assert.notEqual(del.code, 0);
      assert.equal(
        del.stderr.trim(),
        'Error from server (Forbidden): pods "web" is forbidden: User "system:anonymous" cannot delete resource "pods" in API group "" in the namespace "default"',
      );
      assert.ok(c.get(pods, { namespace: "default", name: "web" }), "nothing was deleted");
      const rules = tableRows((await kubectl(["auth", "can-i", "--list"])).stdout);
      assert.ok(rules.some((r) => r[0] === "pods" && r.at(-1) === "[get list watch]"));
      assert.ok(rules.some((r) => r[0] === "leases.coordination.k8s.io" && r[2] === "[lock]"));
    } finally {
      await close();
    }
  });

  test("with a function: its reason is shown by can-i and in the 403", async () => {
    const { run, close } = await setupKubectl({
      authorization: (a) =>
        a.resource === "deployments"
          ? { allowed: false, reason: "deployments are managed by the platform team" }
          : true,
    });
    try {
      const no = await run(["auth", "can-i", "create", "deployments"]);
      assert.equal(no.stdout, "no - deployments are managed by the platform team\n");
      const get = await run(["get", "deployments"]);
      assert.equal(
        get.stderr.trim(),
        'Error from server (Forbidden): deployments.apps is forbidden: User "system:anonymous" cannot list resource "deployments" in API group "apps" in the namespace "default": deployments are managed by the platform team',
      );
    } finally {
      await close();
    }
  });

  test("kubectl create configmap and create namespace send protobuf: 415, and kubectl shows the server's message", async () => {
    const { c, run, close } = await setupKubectl();
    try {
      const cm = await run(["create", "configmap", "x", "--from-literal=a=b"]);
      assert.notEqual(cm.code, 0);
      assert.equal(cm.stderr.trim(), `error: failed to create configmap: ${PROTOBUF_415}`);
      const post = c.requests.find((r) => r.method === "POST" && r.resource === "configmaps");
      assert.equal(post?.query.fieldValidation, "Strict");
      const ns = await run(["create", "namespace", "team-a"]);
      assert.notEqual(ns.code, 0);
      assert.match(
        ns.stderr,
        /the simulated cluster does not decode "application\/vnd\.kubernetes\.protobuf"/,
      );
      // The same object as JSON (kubectl create -f) is created.
      const created = await run(
        ["create", "-f", "-"],
        { stdin: '{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"team-a"}}' },
      );
      assert.equal(created.code, 0, created.stderr);
      assert.match(created.stdout, /namespace\/team-a created/);
    } finally {
      await close();
    }
  });
});
