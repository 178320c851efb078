// kubectl apply with its default validation against the simulated cluster: kubectl reads the
// OpenAPI v3 documents, sees that the server validates fields, sends fieldValidation=Strict, and
// the server answers unknown fields as kube-apiserver does.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { configmaps, deployments } from "../../src/client/resource.ts";
import { defineResource } from "../../src/client/define_resource.ts";
import { kubectlVersion, setupKubectl } from "./_kubectl.ts";

const version = await kubectlVersion();
const available = version !== undefined;
console.log(`kubectl_apply_test: ${available ? `kubectl ${version}` : "skipped, no kubectl"}`);

const configMap = (data: string, extra = "") =>
  [
    "apiVersion: v1",
    "kind: ConfigMap",
    "metadata:",
    "  name: settings",
    "  labels:",
    "    app: web",
    extra,
    "data:",
    data,
    "",
  ].filter((l) => l !== "").join("\n");

const gadgetCrd = {
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "CustomResourceDefinition",
  metadata: { name: "gadgets.example.org" },
  spec: {
    group: "example.org",
    names: { plural: "gadgets", singular: "gadget", kind: "Gadget" },
    scope: "Namespaced",
    versions: [{
      name: "v1",
      served: true,
      storage: true,
      schema: {
        openAPIV3Schema: {
          type: "object",
          properties: {
            spec: {
              type: "object",
              properties: { size: { type: "integer" }, color: { type: "string" } },
            },
          },
        },
      },
    }],
  },
};
const gadgets = defineResource({
  group: "example.org",
  version: "v1",
  resource: "gadgets",
  kind: "Gadget",
  namespaced: true,
});

describe("kubectl apply against the simulated cluster", {
  skip: !available && "kubectl not found",
}, () => {
  test("apply with the default validation: OpenAPI v3 is read, fieldValidation=Strict is sent, re-applies patch", async () => {
    const { c, kubectl, file, close } = await setupKubectl();
    try {
      const created = await kubectl([
        "apply",
        "-f",
        await file("cm.yaml", configMap("  mode: fast")),
      ]);
      assert.match(created.stdout, /^configmap\/settings created$/m);
      assert.equal(created.stderr, "");
      assert.ok(c.requests.some((r) => r.path === "/openapi/v3"));
      assert.ok(c.requests.some((r) => r.path === "/openapi/v3/api/v1"));
      const post = c.requests.find((r) => r.method === "POST" && r.resource === "configmaps");
      assert.equal(post?.query.fieldValidation, "Strict");
      assert.deepEqual(c.get(configmaps, { namespace: "default", name: "settings" })?.data, {
        mode: "fast",
      });

      // A second apply is a three-way strategic merge patch, computed without a warning.
      const patched = await kubectl([
        "apply",
        "-f",
        await file("cm2.yaml", configMap("  mode: safe\n  level: high")),
      ]);
      assert.match(patched.stdout, /^configmap\/settings configured$/m);
      assert.equal(patched.stderr, "");
      assert.deepEqual(c.get(configmaps, { namespace: "default", name: "settings" })?.data, {
        mode: "safe",
        level: "high",
      });
      const patch = c.requests.findLast((r) => r.method === "PATCH");
      assert.equal(patch?.query.fieldValidation, "Strict");

      // A kind described in its metadata only (Deployment): created, then patched with the
      // strategic merge patch kubectl computes from its own types.
      const deploy = (replicas: number) =>
        [
          "apiVersion: apps/v1",
          "kind: Deployment",
          "metadata:",
          "  name: web",
          "spec:",
          `  replicas: ${replicas}`,
          "  selector:",
          "    matchLabels: {app: web}",
          "  template:",
          "    metadata:",
          "      labels: {app: web}",
          "    spec:",
          "      containers:",
          "      - name: app",
          "        image: nginx",
          "",
        ].join("\n");
      await kubectl(["apply", "-f", await file("d1.yaml", deploy(1))]);
      const second = await kubectl(["apply", "-f", await file("d2.yaml", deploy(3))]);
      assert.equal(second.stderr, "");
      const web = c.get(deployments, { namespace: "default", name: "web" })!;
      assert.equal((web.spec as { replicas: number }).replicas, 3);
    } finally {
      await close();
    }
  });

  test("an unknown field: refused by --validate=strict (and the default), warned by warn, dropped by false", async () => {
    const { c, run, kubectl, file, close } = await setupKubectl();
    try {
      const bad = await file("bad.yaml", configMap("  mode: fast", "dta:\n  mode: typo"));
      for (const args of [["--validate=strict"], []]) {
        const refused = await run(["apply", ...args, "-f", bad]);
        assert.notEqual(refused.code, 0);
        assert.equal(
          refused.stderr.trim(),
          `Error from server (BadRequest): error when creating "${bad}": ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: unknown field "dta"`,
        );
        assert.equal(c.get(configmaps, { namespace: "default", name: "settings" }), undefined);
      }

      const warned = await kubectl(["apply", "--validate=warn", "-f", bad]);
      assert.match(warned.stderr, /^Warning: unknown field "dta"$/m);
      assert.match(warned.stdout, /configmap\/settings created/);
      const stored = c.get(configmaps, { namespace: "default", name: "settings" })!;
      assert.equal(Object.hasOwn(stored, "dta"), false, "an unknown field is dropped");
      assert.deepEqual(stored.data, { mode: "fast" });

      await kubectl(["delete", "configmap", "settings"]);
      const ignored = await kubectl(["apply", "--validate=false", "-f", bad]);
      assert.equal(ignored.stderr, "");
      assert.equal(
        Object.hasOwn(c.get(configmaps, { namespace: "default", name: "settings" })!, "dta"),
        false,
      );

      // A pod's top level has only apiVersion, kind, metadata, spec and status: a misspelt
      // `spec` is refused as kube-apiserver refuses it.
      const typo = await file(
        "pod.yaml",
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: web\nsepc:\n  containers: []\n",
      );
      const refusedPod = await run(["apply", "-f", typo]);
      assert.notEqual(refusedPod.code, 0);
      assert.equal(
        refusedPod.stderr.trim(),
        `Error from server (BadRequest): error when creating "${typo}": Pod in version "v1" cannot be handled as a Pod: strict decoding error: unknown field "sepc"`,
      );
    } finally {
      await close();
    }
  });

  test("a custom resource is validated against its CRD's openAPIV3Schema and patched with a merge patch", async () => {
    const { c, run, kubectl, file, close } = await setupKubectl({ resources: [gadgetCrd] });
    try {
      const gadget = (spec: string) =>
        `apiVersion: example.org/v1\nkind: Gadget\nmetadata:\n  name: g1\nspec:\n${spec}\n`;
      const refused = await run([
        "apply",
        "-f",
        await file("bad.yaml", gadget("  size: 2\n  colour: red")),
      ]);
      assert.notEqual(refused.code, 0);
      assert.match(
        refused.stderr,
        /Gadget in version "v1" cannot be handled as a Gadget: strict decoding error: unknown field "spec\.colour"/,
      );
      await kubectl(["apply", "-f", await file("g1.yaml", gadget("  size: 2\n  color: red"))]);
      const again = await kubectl(["apply", "-f", await file("g2.yaml", gadget("  size: 5"))]);
      assert.match(again.stdout, /gadget\.example\.org\/g1 configured/);
      assert.equal(again.stderr, "");
      assert.deepEqual(c.get(gadgets, { namespace: "default", name: "g1" })?.spec, { size: 5 });
      const explained = await kubectl(["explain", "gadgets.spec.size"]);
      assert.match(explained.stdout, /FIELD: size <integer>/);
    } finally {
      await close();
    }
  });
  test("built-in kinds are validated at any depth: Strict refuses a misspelt nested field, --validate=warn warns, server-side apply names it; explain walks pods and deployments", async () => {
    const { c, run, kubectl, file, close } = await setupKubectl();
    try {
      const deployment = (replicas: string, image: string) =>
        [
          "apiVersion: apps/v1",
          "kind: Deployment",
          "metadata:",
          "  name: web",
          "spec:",
          `  ${replicas}: 2`,
          "  selector:",
          "    matchLabels:",
          "      app: web",
          "  strategy:",
          "    rollingUpdate:",
          "      maxSurge: 25%",
          "      maxUnavailable: 0",
          "  template:",
          "    metadata:",
          "      labels:",
          "        app: web",
          "    spec:",
          "      containers:",
          "      - name: nginx",
          `        ${image}: nginx:1.27`,
          "        ports:",
          "        - containerPort: 80",
          "        resources:",
          "          limits:",
          "            cpu: 1",
          "            memory: 128Mi",
          "        readinessProbe:",
          "          httpGet:",
          "            path: /",
          "            port: 80",
          "",
        ].join("\n");
      const bad = await file("bad-deploy.yaml", deployment("replica", "imagee"));
      const refused = await run(["apply", "-f", bad]);
      assert.notEqual(refused.code, 0);
      assert.equal(
        refused.stderr.trim(),
        `Error from server (BadRequest): error when creating "${bad}": Deployment in version "v1" cannot be handled as a Deployment: strict decoding error: unknown field "spec.replica", unknown field "spec.template.spec.containers[0].imagee"`,
      );
      assert.equal(c.list(deployments).length, 0);

      const ssa = await run(["apply", "--server-side", "-f", bad]);
      assert.notEqual(ssa.code, 0);
      assert.equal(
        ssa.stderr.trim(),
        "Error from server: failed to create typed patch object (default/web; apps/v1, Kind=Deployment): errors:\n" +
          "  .spec.replica: field not declared in schema\n" +
          '  .spec.template.spec.containers[name="nginx"].imagee: field not declared in schema',
      );

      const warned = await kubectl(["apply", "--validate=warn", "-f", bad]);
      assert.match(warned.stdout, /^deployment\.apps\/web created$/m);
      assert.match(warned.stderr, /^Warning: unknown field "spec\.replica"$/m);
      assert.match(
        warned.stderr,
        /^Warning: unknown field "spec\.template\.spec\.containers\[0\]\.imagee"$/m,
      );
      const stored = c.get(deployments, { namespace: "default", name: "web" })!;
      // The misspelt field was dropped; replicas got its default, as kube-apiserver gives it.
      assert.equal((stored.spec as { replicas?: number }).replicas, 1);
      assert.equal(Object.hasOwn(stored.spec as object, "replica"), false);
      await kubectl(["delete", "deployment", "web"]);

      // Spelt right, it is created and re-applied (a strategic merge patch kubectl computes
      // from its own types) without a word.
      const good = await file("deploy.yaml", deployment("replicas", "image"));
      const created = await kubectl(["apply", "-f", good]);
      assert.match(created.stdout, /^deployment\.apps\/web created$/m);
      assert.equal(created.stderr, "");
      const again = await kubectl([
        "apply",
        "-f",
        await file("deploy2.yaml", deployment("replicas", "image").replace("2\n", "3\n")),
      ]);
      assert.match(again.stdout, /^deployment\.apps\/web configured$/m);
      assert.equal(again.stderr, "");
      assert.equal(
        (c.get(deployments, { namespace: "default", name: "web" })?.spec as { replicas?: number })
          .replicas,
        3,
      );

      const containers = await kubectl(["explain", "pods.spec.containers"]);
      assert.match(containers.stdout, /^FIELD: containers <\[\]Container>$/m);
      assert.match(containers.stdout, /^ {2}image\t<string>$/m);
      const replicas = await kubectl(["explain", "deploy.spec.replicas"]);
      assert.match(replicas.stdout, /^FIELD: replicas <integer>$/m);
      assert.match(replicas.stdout, /Number of desired pods/);
      const pod = await kubectl(["explain", "pods"]);
      assert.match(pod.stdout, /^ {2}spec\t<PodSpec>$/m);
      const port = await kubectl(["explain", "pods.spec.containers.livenessProbe.httpGet.port"]);
      assert.match(port.stdout, /^FIELD: port <IntOrString>$/m);
    } finally {
      await close();
    }
  });
});
