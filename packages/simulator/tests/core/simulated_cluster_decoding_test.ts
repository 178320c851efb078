// How the simulated cluster decodes write bodies where kube-apiserver's decoders set the rules:
// JSON nested past Go's 10,000 levels is a 400 before anything is parsed (so it cannot be parsed
// and pruned away), and a key repeated in a YAML body is refused only under Strict field
// validation (the later value wins otherwise, with a warning under Warn).
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { configmaps, pods } from "../../../../src/client/resource.ts";
import { SimulatedCluster } from "../../src/cluster/simulated_cluster.ts";
import { tooDeepBracket } from "../../src/core/request_body.ts";

/** `n` nested arrays as JSON text. */
const nested = (n: number): string => "[".repeat(n) + "]".repeat(n);

/** A pod whose unknown field `spec.zzz` makes the whole body `depth` levels deep. */
const podNested = (name: string, depth: number): string =>
  `{"metadata":{"name":"${name}"},"spec":{"zzz":${nested(depth - 2)}}}`;

async function send(
  c: SimulatedCluster,
  method: string,
  path: string,
  body: string,
  contentType: string,
): Promise<{ status: number; json: Record<string, unknown>; warning: string | null }> {
  const res = await c.fetch(
    new Request(`http://sim${path}`, { method, body, headers: { "Content-Type": contentType } }),
  );
  return {
    status: res.status,
    json: await res.json() as Record<string, unknown>,
    warning: res.headers.get("warning"),
  };
}

const PODS = "/api/v1/namespaces/default/pods";
const CM = "/api/v1/namespaces/default/configmaps";

describe("SimulatedCluster body decoding as kube-apiserver's", () => {
  test("the depth scan counts brackets, not brackets inside strings", () => {
    assert.equal(tooDeepBracket(nested(3), 3), undefined);
    assert.equal(tooDeepBracket(nested(4), 3), "[");
    assert.equal(tooDeepBracket(`{"a":"[[[[[[\\"[[["}`, 2), undefined);
    assert.equal(tooDeepBracket(`{"a":{"b":{}}}`, 2), "{");
  });

  test("JSON deeper than 10,000 levels is a 400, even where pruning would drop it", async () => {
    const c = new SimulatedCluster();
    const deep = await send(c, "POST", PODS, podNested("deep", 10_001), "application/json");
    assert.equal(deep.status, 400);
    assert.equal(deep.json.reason, "BadRequest");
    assert.equal(
      deep.json.message,
      "couldn't get version/kind; json parse error: invalid character '[' exceeded max depth",
    );
    assert.equal(c.get(pods, { namespace: "default", name: "deep" }), undefined);
    // 10,000 levels decode; the unknown field is pruned, as kube-apiserver prunes it.
    const ok = await send(c, "POST", PODS, podNested("ok", 10_000), "application/json");
    assert.equal(ok.status, 201);
    const stored = c.get(pods, { namespace: "default", name: "ok" });
    assert.equal((stored?.spec as Record<string, unknown>).zzz, undefined);
    c.close();
  });

  test("patches and apply bodies deeper than 10,000 levels are 400s too", async () => {
    const c = new SimulatedCluster();
    c.create(pods, { metadata: { namespace: "default", name: "p" } });
    for (
      const type of [
        "application/merge-patch+json",
        "application/strategic-merge-patch+json",
        "application/apply-patch+yaml",
      ]
    ) {
      const res = await send(
        c,
        "PATCH",
        `${PODS}/p?fieldManager=t`,
        `{"spec":{"zzz":${nested(10_000)}}}`,
        type,
      );
      assert.equal(res.status, 400, type);
      assert.match(String(res.json.message), /exceeded max depth/, type);
    }
    const jsonPatch = await send(
      c,
      "PATCH",
      `${PODS}/p`,
      `[{"op":"add","path":"/spec/zzz","value":${nested(10_000)}}]`,
      "application/json-patch+json",
    );
    assert.equal(jsonPatch.status, 400);
    assert.match(String(jsonPatch.json.message), /exceeded max depth/);
    c.close();
  });

  test("a repeated YAML key: the later value wins, a warning under Warn, a 400 only under Strict", async () => {
    const c = new SimulatedCluster();
    const yaml = (name: string) =>
      `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\ndata:\n  k: first\n  k: second\n`;
    const warned = await send(c, "POST", CM, yaml("warned"), "application/yaml");
    assert.equal(warned.status, 201);
    assert.equal(
      (c.get(configmaps, { namespace: "default", name: "warned" })?.data as Record<string, string>)
        ?.k,
      "second",
    );
    assert.match(String(warned.warning), /line 7: key \\?"k\\?" already set in map/);
    const ignored = await send(
      c,
      "POST",
      `${CM}?fieldValidation=Ignore`,
      yaml("ignored"),
      "application/yaml",
    );
    assert.equal(ignored.status, 201);
    assert.equal(ignored.warning, null);
    const strict = await send(
      c,
      "POST",
      `${CM}?fieldValidation=Strict`,
      yaml("strict"),
      "application/yaml",
    );
    assert.equal(strict.status, 400);
    assert.match(
      String(strict.json.message),
      /strict decoding error: error converting YAML to JSON: yaml: unmarshal errors: line 7: key "k" already set in map/,
    );
    assert.equal(c.get(configmaps, { namespace: "default", name: "strict" }), undefined);
    c.close();
  });

  test("a repeated key in a server-side apply YAML body follows the same rule", async () => {
    const c = new SimulatedCluster();
    const body =
      `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: applied\n  namespace: default\ndata:\n  k: first\n  k: second\n`;
    const strict = await send(
      c,
      "PATCH",
      `${CM}/applied?fieldManager=t&fieldValidation=Strict`,
      body,
      "application/apply-patch+yaml",
    );
    assert.equal(strict.status, 400);
    assert.match(String(strict.json.message), /key "k" already set in map/);
    const applied = await send(
      c,
      "PATCH",
      `${CM}/applied?fieldManager=t`,
      body,
      "application/apply-patch+yaml",
    );
    assert.equal(applied.status, 201);
    assert.equal(
      (c.get(configmaps, { namespace: "default", name: "applied" })?.data as Record<string, string>)
        ?.k,
      "second",
    );
    c.close();
  });
});
