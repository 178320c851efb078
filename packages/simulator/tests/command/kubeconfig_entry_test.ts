// The command's kubeconfig edits: a context added beside the user's own (replacing one of the
// same name) and taken out again, the previous current context given back; the YAML written
// reads back as the same data; a file that is not a kubeconfig is refused with its path.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { parseYaml } from "../../../../src/internal/mod.ts";
import { addContext, removeContext, toYaml } from "../../src/command/kubeconfig_entry.ts";

const entry = {
  name: "sim",
  server: "https://127.0.0.1:6443",
  caCert: "-----BEGIN CERTIFICATE-----\nAA==\n-----END CERTIFICATE-----\n",
  token: "t0ken",
  namespace: "default",
};

describe("addContext and removeContext", () => {
  test("a stale entry of the same name is replaced, not repeated", () => {
    const once = addContext(undefined, "config", entry).text;
    const twice = addContext(once, "config", { ...entry, server: "https://127.0.0.1:7000" }).text;
    const config = parseYaml(twice) as { clusters: { cluster: { server: string } }[] };
    assert.deepEqual(config.clusters.map((c) => c.cluster.server), ["https://127.0.0.1:7000"]);
  });

  test("a context made current meanwhile by the user stays current", () => {
    const added = addContext(
      "apiVersion: v1\nkind: Config\ncurrent-context: prod\ncontexts: [{name: prod, context: {}}]\n",
      "c",
      entry,
    );
    const switched = added.text.replace('current-context: "sim"', 'current-context: "prod"');
    const removed = removeContext(switched, "c", "sim", added.previous);
    assert.deepEqual(parseYaml(removed.text), {
      apiVersion: "v1",
      kind: "Config",
      "current-context": "prod",
      contexts: [{ name: "prod", context: {} }],
      clusters: [],
      users: [],
    });
    assert.equal(removed.empty, false);
  });

  test("refuses a file that is not a kubeconfig, naming it", () => {
    assert.throws(
      () => addContext("- a\n- b\n", "/home/me/.kube/config", entry),
      /\/home\/me\/\.kube\/config is not a kubeconfig: not a mapping/,
    );
    assert.throws(
      () => addContext("clusters: 3\n", "/k", entry),
      /\/k is not a kubeconfig: clusters is not a list/,
    );
  });
});

describe("toYaml", () => {
  test("reads back as the same data, quotes and all", () => {
    const value = {
      "current-context": "a: b",
      list: [{ name: "x", nested: { deep: ["1", true, null, 2] } }, "plain", []],
      empty: {},
      "odd key": 'line\nbreak "quoted" é',
    };
    assert.deepEqual(parseYaml(toYaml(value)), value);
  });
});
