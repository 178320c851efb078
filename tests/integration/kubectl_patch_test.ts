// kubectl 1.33 `patch` against the simulated cluster: its default, the strategic merge patch,
// merges built-in objects' lists by key as a real cluster does; on a custom resource the server
// answers 415 and kubectl says to use another patch type.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { pods } from "../../src/client/resource.ts";
import type { KubeObject } from "../../src/client/types.ts";
import { widgets } from "@kinformer/simulator";
import { kubectlVersion, setupKubectl } from "./_kubectl.ts";

const version = await kubectlVersion();
console.log(`kubectl_patch_test: ${version ? `kubectl ${version}` : "skipped, no kubectl"}`);

type Container = { name: string; image: string };

describe("kubectl patch", { skip: version === undefined && "kubectl not found" }, () => {
  test("a strategic merge patch merges containers by name and finalizers as a set; $patch: delete removes", async () => {
    const k = await setupKubectl({}, { advanceClock: true });
    try {
      k.c.create(pods, {
        metadata: { name: "web", namespace: "default", finalizers: ["example.com/a"] },
        spec: {
          containers: [{ name: "app", image: "app:1" }, { name: "proxy", image: "proxy:1" }],
        },
      });
      const get = () => k.c.get(pods, { namespace: "default", name: "web" })!;
      const containers = () => (get().spec as { containers: Container[] }).containers;

      const out = await k.kubectl([
        "patch",
        "pod",
        "web",
        "-p",
        '{"spec":{"containers":[{"name":"app","image":"app:2"}]}}',
      ]);
      assert.match(out.stdout, /pod\/web patched/);
      assert.deepEqual(containers(), [{ name: "app", image: "app:2" }, {
        name: "proxy",
        image: "proxy:1",
      }]);
      assert.ok(
        k.c.requests.some((r) => r.method === "PATCH" && r.name === "web"),
        "kubectl sent a PATCH",
      );

      await k.kubectl([
        "patch",
        "pod",
        "web",
        "-p",
        '{"metadata":{"finalizers":["example.com/b"]}}',
      ]);
      assert.deepEqual(get().metadata.finalizers, ["example.com/b", "example.com/a"]);

      await k.kubectl([
        "patch",
        "pod",
        "web",
        "-p",
        '{"spec":{"containers":[{"name":"proxy","$patch":"delete"}]}}',
      ]);
      assert.deepEqual(containers().map((c) => c.name), ["app"]);

      // A merge patch replaces the list, as RFC 7386 says.
      await k.kubectl([
        "patch",
        "pod",
        "web",
        "--type",
        "merge",
        "-p",
        '{"metadata":{"finalizers":["example.com/c"]}}',
      ]);
      assert.deepEqual(get().metadata.finalizers, ["example.com/c"]);
      const printed = JSON.parse(
        (await k.kubectl([
          "patch",
          "pod",
          "web",
          "-p",
          '{"metadata":{"labels":{"tier":"web"}}}',
          "-o",
          "json",
        ])).stdout,
      ) as KubeObject;
      assert.deepEqual(printed.metadata.labels, { tier: "web" });
    } finally {
      await k.close();
    }
  });

  test("on a custom resource the strategic merge patch is refused (415) and kubectl says so", async () => {
    const k = await setupKubectl({}, { advanceClock: true });
    try {
      k.c.create(widgets, {
        metadata: { name: "w", namespace: "default" },
        spec: { size: 1 },
      });
      const refused = await k.run(["patch", "widget", "w", "-p", '{"spec":{"size":2}}']);
      assert.notEqual(refused.code, 0);
      assert.match(
        refused.stderr,
        /application\/strategic-merge-patch\+json is not supported by example\.com\/v1, Kind=Widget/,
      );
      assert.match(
        refused.stderr,
        /accepted media types include: application\/json-patch\+json, application\/merge-patch\+json, application\/apply-patch\+yaml/,
      );
      assert.equal(
        (k.c.get(widgets, { namespace: "default", name: "w" })!.spec as { size: number })
          .size,
        1,
      );
      await k.kubectl(["patch", "widget", "w", "--type", "merge", "-p", '{"spec":{"size":2}}']);
      assert.equal(
        (k.c.get(widgets, { namespace: "default", name: "w" })!.spec as { size: number })
          .size,
        2,
      );
    } finally {
      await k.close();
    }
  });
});
