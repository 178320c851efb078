import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { JsonPath, JsonPathError } from "../../../src/model/tables/jsonpath.ts";

const obj = {
  metadata: { name: "g", labels: { "app.kubernetes.io/name": "web" } },
  spec: { replicas: 3, ports: [{ name: "http", port: 80 }, { name: "grpc", port: 9090 }] },
  status: {
    conditions: [
      { type: "Synced", status: "True", observedGeneration: 1 },
      { type: "Ready", status: "False", observedGeneration: 2 },
    ],
  },
};

describe("JsonPath (client-go's util/jsonpath, as printer columns use it)", () => {
  test("fields, brackets, indexes, slices, wildcards, unions and recursion", () => {
    const find = (p: string) => new JsonPath(p).find(obj);
    assert.deepEqual(find(".spec.replicas"), [3]);
    assert.deepEqual(find("{.spec.replicas}"), [3]);
    assert.deepEqual(find("$.metadata.name"), ["g"]);
    assert.deepEqual(find(".metadata.labels['app.kubernetes.io/name']"), ["web"]);
    assert.deepEqual(find(".spec.ports[1].port"), [9090]);
    assert.deepEqual(find(".spec.ports[-1].name"), ["grpc"]);
    assert.deepEqual(find(".spec.ports[0:1].name"), ["http"]);
    assert.deepEqual(find(".spec.ports[*].port"), [80, 9090]);
    assert.deepEqual(find(".spec.ports[0,1].name"), ["http", "grpc"]);
    assert.deepEqual(find("..port"), [80, 9090]);
    assert.deepEqual(find(".spec.missing"), []);
    assert.deepEqual(find(".spec.ports[7].port"), []);
  });

  test("filters compare strings, numbers and booleans; [?(@.x)] tests existence", () => {
    const find = (p: string) => new JsonPath(p).find(obj);
    assert.deepEqual(find('.status.conditions[?(@.type=="Ready")].status'), ["False"]);
    assert.deepEqual(find(".status.conditions[?(@.type == 'Synced')].status"), ["True"]);
    assert.deepEqual(find(".status.conditions[?(@.observedGeneration>1)].type"), ["Ready"]);
    assert.deepEqual(find(".status.conditions[?(@.type!='Ready')].type"), ["Synced"]);
    assert.deepEqual(find(".spec.ports[?(@.name)].port"), [80, 9090]);
  });

  test("only own properties are read: a path never reaches a prototype", () => {
    assert.deepEqual(new JsonPath(".constructor").find({}), []);
    assert.deepEqual(new JsonPath(".__proto__.toString").find({}), []);
    assert.deepEqual(new JsonPath("['__proto__']").find(JSON.parse('{"__proto__":1}')), [1]);
  });

  test("malformed paths are JsonPathErrors", () => {
    for (const bad of [".spec[", ".spec[?(type=='x')]", ".a[1:2:0]", ".a[='x']", "spec"]) {
      assert.throws(() => new JsonPath(bad), JsonPathError, bad);
    }
  });
});
