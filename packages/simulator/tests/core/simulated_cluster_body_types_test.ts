// Media types of create and update bodies: YAML is read as kube-apiserver 1.33 reads it, any
// other type (CBOR, protobuf) is a 415 UnsupportedMediaType Status.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { Status } from "../../../../src/client/types.ts";
import { configmaps } from "../../../../src/client/builtin_resources.ts";
import { SimulatedCluster } from "../../src/cluster/simulated_cluster.ts";

async function send(
  c: SimulatedCluster,
  method: string,
  path: string,
  body: BodyInit,
  contentType: string,
): Promise<{ status: number; body: Record<string, unknown>; headers: Headers }> {
  const res = await c.fetch(
    new Request(`http://sim.test${path}`, {
      method,
      headers: { "Content-Type": contentType },
      body,
    }),
  );
  return {
    status: res.status,
    body: await res.json() as Record<string, unknown>,
    headers: res.headers,
  };
}

const CMS = "/api/v1/namespaces/default/configmaps";

describe("request body media types", () => {
  test("create and update take application/yaml bodies", async () => {
    const c = new SimulatedCluster();
    const created = await send(
      c,
      "POST",
      CMS,
      'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n  labels:\n    app: web\ndata:\n  key: value\n  port: "80"\n',
      "application/yaml",
    );
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assert.deepEqual(created.body.data, { key: "value", port: "80" });
    const rv = (created.body.metadata as { resourceVersion: string }).resourceVersion;
    const updated = await send(
      c,
      "PUT",
      `${CMS}/cm`,
      `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n  resourceVersion: "${rv}"\ndata:\n  key: other\n`,
      "application/yaml; charset=utf-8",
    );
    assert.equal(updated.status, 200, JSON.stringify(updated.body));
    assert.deepEqual(c.get(configmaps, { namespace: "default", name: "cm" })?.data, {
      key: "other",
    });
    c.close();
  });

  test("a YAML body goes through field validation like a JSON one", async () => {
    const c = new SimulatedCluster();
    const strict = await send(
      c,
      "POST",
      `${CMS}?fieldValidation=Strict`,
      "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\nbogus: 1\n",
      "application/yaml",
    );
    assert.equal(strict.status, 400);
    assert.match(String(strict.body.message), /unknown field "bogus"/);
    const warned = await send(
      c,
      "POST",
      CMS,
      "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\nbogus: 1\n",
      "application/yaml",
    );
    assert.equal(warned.status, 201);
    assert.match(warned.headers.get("warning") ?? "", /unknown field \\"bogus\\"/);
    assert.equal(Object.hasOwn(warned.body, "bogus"), false);
    c.close();
  });

  test("YAML that does not parse is a 400", async () => {
    const c = new SimulatedCluster();
    const r = await send(c, "POST", CMS, "metadata: [unclosed\n", "application/yaml");
    assert.equal(r.status, 400);
    assert.equal((r.body as unknown as Status).reason, "BadRequest");
    assert.equal(c.list(configmaps).length, 0);
    c.close();
  });

  test("CBOR and other types are a 415 Status naming the accepted types", async () => {
    const c = new SimulatedCluster();
    for (const [method, path] of [["POST", CMS], ["PUT", `${CMS}/cm`]] as const) {
      const r = await send(
        c,
        method,
        path,
        new Uint8Array([0xd9, 0xd9, 0xf7, 0xa0]),
        "application/cbor",
      );
      assert.equal(r.status, 415);
      const s = r.body as unknown as Status;
      assert.equal(s.kind, "Status");
      assert.equal(s.reason, "UnsupportedMediaType");
      assert.equal(
        s.message,
        "the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf",
      );
    }
    const xml = await send(c, "POST", CMS, "<cm/>", "application/xml");
    assert.equal(xml.status, 415);
    assert.equal(c.list(configmaps).length, 0);
    c.close();
  });

  test("a JSON body still works, with or without a charset", async () => {
    const c = new SimulatedCluster();
    const r = await send(
      c,
      "POST",
      CMS,
      JSON.stringify({ metadata: { name: "cm" }, data: { a: "b" } }),
      "application/json; charset=utf-8",
    );
    assert.equal(r.status, 201);
    c.close();
  });
});
