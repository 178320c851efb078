// kubectl 1.33 against the simulated cluster: namespaces (the usual ones, a create into a missing
// or terminating namespace, `delete ns` emptying then removing it) and `kubectl delete
// --cascade` on an owner with dependents, as a real cluster answers them.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { configmaps, deployments, namespaces, pods } from "../../src/client/resource.ts";
import type { KubeObject } from "../../src/client/types.ts";
import type { SimulatedCluster } from "@kinformer/simulator";
import { kubectlVersion, setupKubectl } from "./_kubectl.ts";

const version = await kubectlVersion();
console.log(
  `kubectl_namespaces_gc_test: ${version ? `kubectl ${version}` : "skipped, no kubectl"}`,
);

const manifest = (kind: string, name: string, extra: string[] = []) =>
  [`apiVersion: v1`, `kind: ${kind}`, "metadata:", `  name: ${name}`, ...extra, ""].join("\n");

describe("kubectl and namespaces", { skip: version === undefined && "kubectl not found" }, () => {
  test("get ns lists the usual namespaces; a create into a missing one is NotFound", async () => {
    const k = await setupKubectl({}, { advanceClock: true });
    try {
      const listed = (await k.kubectl(["get", "ns", "-o", "name"])).stdout.trim().split("\n");
      assert.deepEqual(listed, [
        "namespace/default",
        "namespace/kube-node-lease",
        "namespace/kube-public",
        "namespace/kube-system",
      ]);
      const cm = await k.file("cm.yaml", manifest("ConfigMap", "settings"));
      const refused = await k.run(["create", "--validate=false", "-f", cm, "-n", "nope"]);
      assert.notEqual(refused.code, 0);
      assert.match(refused.stderr, /Error from server \(NotFound\).*namespaces "nope" not found/);
      assert.deepEqual(k.c.list(configmaps), []);
      const forbidden = await k.run(["delete", "ns", "default"]);
      assert.match(
        forbidden.stderr,
        /Error from server \(Forbidden\): namespaces "default" is forbidden: this namespace may not be deleted/,
      );
    } finally {
      await k.close();
    }
  });

  test("create ns, fill it, delete ns: Terminating, contents gone, then the namespace", async () => {
    const k = await setupKubectl({}, { advanceClock: true });
    try {
      // `kubectl create namespace` sends a protobuf body, which the simulator does not decode;
      // the manifest goes as JSON (without client-side validation: no OpenAPI is served).
      await k.kubectl([
        "create",
        "--validate=false",
        "-f",
        await k.file("ns.yaml", manifest("Namespace", "team")),
      ]);
      const ns = JSON.parse(
        (await k.kubectl(["get", "ns", "team", "-o", "json"])).stdout,
      ) as KubeObject;
      assert.deepEqual(ns.status, { phase: "Active" });
      assert.deepEqual(ns.spec, { finalizers: ["kubernetes"] });
      assert.equal(ns.metadata.labels?.["kubernetes.io/metadata.name"], "team");
      await k.kubectl([
        "create",
        "--validate=false",
        "-n",
        "team",
        "-f",
        await k.file("a.yaml", manifest("ConfigMap", "a")),
      ]);
      await k.kubectl([
        "create",
        "--validate=false",
        "-n",
        "team",
        "-f",
        await k.file(
          "held.yaml",
          manifest("ConfigMap", "held", ["  finalizers: [example.com/hold]"]),
        ),
      ]);

      // Without waiting, and with the controllers held: the namespace is Terminating.
      const deleted = await k.kubectl(["delete", "ns", "team", "--wait=false"], { hold: true });
      assert.match(deleted.stdout, /namespace "team" deleted/);
      const terminating = JSON.parse(
        (await k.kubectl(["get", "ns", "team", "-o", "json"], { hold: true })).stdout,
      ) as KubeObject;
      assert.equal((terminating.status as { phase: string }).phase, "Terminating");
      assert.ok(terminating.metadata.deletionTimestamp);
      const refused = await k.run(
        [
          "create",
          "--validate=false",
          "-n",
          "team",
          "-f",
          await k.file("b.yaml", manifest("ConfigMap", "b")),
        ],
        { hold: true },
      );
      assert.match(
        refused.stderr,
        /\(Forbidden\).*configmaps "b" is forbidden: unable to create new content in namespace team because it is being terminated/,
      );

      // The controller deletes what it can; the finalizer holds the rest, and the namespace.
      await k.settle();
      assert.deepEqual(
        k.c.list(configmaps, { namespace: "team" }).map((c) => c.metadata.name),
        ["held"],
      );
      const held = JSON.parse(
        (await k.kubectl(["get", "ns", "team", "-o", "json"])).stdout,
      ) as KubeObject;
      const conditions = (held.status as { conditions: Array<{ type: string; status: string }> })
        .conditions;
      assert.deepEqual(
        conditions.filter((c) => c.status === "True").map((c) => c.type),
        ["NamespaceContentRemaining", "NamespaceFinalizersRemaining"],
      );

      await k.kubectl([
        "patch",
        "cm",
        "held",
        "-n",
        "team",
        "--type",
        "merge",
        "-p",
        '{"metadata":{"finalizers":null}}',
      ]);
      await k.kubectl(["wait", "--for=delete", "ns/team", "--timeout=20s"]);
      assert.equal(k.c.get(namespaces, { name: "team" }), undefined);
      assert.deepEqual(k.c.list(configmaps, { namespace: "team" }), []);
      const gone = await k.run(["get", "ns", "team"]);
      assert.match(gone.stderr, /namespaces "team" not found/);
    } finally {
      await k.close();
    }
  });

  test("delete ns waits until the namespace and everything in it are gone", async () => {
    const k = await setupKubectl({}, { advanceClock: true });
    try {
      k.c.create(namespaces, { metadata: { name: "shop" } });
      k.c.create(configmaps, { metadata: { name: "a", namespace: "shop" } });
      k.c.create(pods, { metadata: { name: "p", namespace: "shop" } });
      const out = await k.kubectl(["delete", "ns", "shop"]);
      assert.match(out.stdout, /namespace "shop" deleted/);
      assert.equal(k.c.get(namespaces, { name: "shop" }), undefined);
      assert.deepEqual(k.c.list(pods), []);
      assert.deepEqual(k.c.list(configmaps), []);
    } finally {
      await k.close();
    }
  });
});

describe("kubectl delete --cascade", { skip: version === undefined && "kubectl not found" }, () => {
  /** A deployment with two dependents: a blocking ConfigMap and a non-blocking Pod. */
  function family(cluster: SimulatedCluster): KubeObject {
    const d = cluster.create(deployments, {
      metadata: { name: "web", namespace: "default" },
      spec: { replicas: 1 },
    });
    const ref = (block: boolean) => [{
      apiVersion: "apps/v1",
      kind: "Deployment",
      name: "web",
      uid: d.metadata.uid!,
      controller: true,
      blockOwnerDeletion: block,
    }];
    cluster.create(configmaps, {
      metadata: { name: "web-config", namespace: "default", ownerReferences: ref(true) },
    });
    cluster.create(pods, {
      metadata: { name: "web-pod", namespace: "default", ownerReferences: ref(false) },
    });
    return d;
  }

  for (const cascade of ["background", "foreground"] as const) {
    test(`--cascade=${cascade} deletes the owner and its dependents`, async () => {
      const k = await setupKubectl({}, { advanceClock: true });
      try {
        family(k.c);
        const out = await k.kubectl(["delete", "deployment", "web", `--cascade=${cascade}`]);
        assert.match(out.stdout, /deployment.apps "web" deleted/);
        await k.settle();
        assert.deepEqual(k.c.list(deployments), []);
        assert.deepEqual(k.c.list(configmaps), []);
        assert.deepEqual(k.c.list(pods), []);
        const del = k.c.requests.find((r) => r.method === "DELETE" && r.name === "web");
        assert.ok(del, "kubectl sent a DELETE");
      } finally {
        await k.close();
      }
    });
  }

  test("--cascade=foreground: the owner waits, with foregroundDeletion, for a held dependent", async () => {
    const k = await setupKubectl({}, { advanceClock: true });
    try {
      family(k.c);
      k.c.patch(configmaps, { namespace: "default", name: "web-config" }, {
        metadata: { finalizers: ["example.com/hold"] },
      });
      await k.kubectl(["delete", "deployment", "web", "--cascade=foreground", "--wait=false"]);
      await k.settle();
      const owner = JSON.parse(
        (await k.kubectl(["get", "deployment", "web", "-o", "json"])).stdout,
      ) as KubeObject;
      assert.deepEqual(owner.metadata.finalizers, ["foregroundDeletion"]);
      assert.ok(owner.metadata.deletionTimestamp);
      assert.deepEqual(k.c.list(pods), [], "the non-blocking dependent is gone");
      await k.kubectl([
        "patch",
        "cm",
        "web-config",
        "--type",
        "json",
        "-p",
        '[{"op":"remove","path":"/metadata/finalizers"}]',
      ]);
      await k.kubectl(["wait", "--for=delete", "deployment/web", "--timeout=20s"]);
      assert.deepEqual(k.c.list(deployments), []);
    } finally {
      await k.close();
    }
  });

  test("--cascade=orphan keeps the dependents and removes their references", async () => {
    const k = await setupKubectl({}, { advanceClock: true });
    try {
      family(k.c);
      await k.kubectl(["delete", "deployment", "web", "--cascade=orphan"]);
      await k.settle();
      assert.deepEqual(k.c.list(deployments), []);
      const cm = k.c.get(configmaps, { namespace: "default", name: "web-config" })!;
      const pod = k.c.get(pods, { namespace: "default", name: "web-pod" })!;
      assert.equal(cm.metadata.ownerReferences, undefined);
      assert.equal(pod.metadata.ownerReferences, undefined);
    } finally {
      await k.close();
    }
  });
});
