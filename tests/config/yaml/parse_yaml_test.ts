// The YAML subset parser on its own (src/config/yaml/): its own error type, which shows only
// the keys it is told are safe, and no dependency on the kubeconfig code around it.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { parseYaml } from "../../../src/config/yaml/parse_yaml.ts";
import { YamlSyntaxError } from "../../../src/config/yaml/yaml_syntax_error.ts";
import {
  KubeconfigParseError,
  parseKubeconfig,
  YamlSyntaxError as PublicYamlSyntaxError,
} from "../../../src/config/mod.ts";
import { parseKubeconfigYaml } from "../../../src/config/kubeconfig_yaml.ts";
import { FIXTURES } from "../../fixtures/kubeconfig/helpers.ts";

function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  assert.fail("expected an error");
}

describe("parseYaml (src/config/yaml)", () => {
  test("throws a YamlSyntaxError with line, column and key path, never the text", () => {
    const error = thrown(() => parseYaml("a:\n  b: &anchor s3cr3t-value\n"));
    assert.ok(error instanceof YamlSyntaxError, String(error));
    assert.equal(error.name, "YamlSyntaxError");
    assert.equal(error.line, 2);
    assert.equal(error.column, 6);
    // No key is shown unless the caller says it is safe: in broken input a key can be a secret.
    assert.equal(error.key, "<key>.<key>");
    assert.equal(error.message, "yaml:2:6: anchors (`&name`) are not supported (at <key>.<key>)");
    assert.ok(!error.message.includes("s3cr3t"));
  });

  test("shows the keys showKey allows, and names the source", () => {
    const error = thrown(() =>
      parseYaml("a:\n  b: !tag x\n", { showKey: (key) => key === "a", source: "file.yaml" })
    );
    assert.ok(error instanceof YamlSyntaxError);
    assert.equal(error.key, "a.<key>");
    assert.match(error.message, /^file\.yaml:2:\d+: /);
  });

  test("the kubeconfig parser's KubeconfigParseError is a YamlSyntaxError (one error family)", () => {
    for (const parse of [parseKubeconfigYaml, parseKubeconfig]) {
      const error = thrown(() => parse("users:\n- name: x\n  user:\n    token: *alias\n"));
      assert.ok(error instanceof KubeconfigParseError, String(error));
      assert.ok(error instanceof YamlSyntaxError);
      assert.equal(PublicYamlSyntaxError, YamlSyntaxError);
      assert.equal(error.key, "users[0].user.token");
      assert.match(error.message, /^kubeconfig:4:\d+: /);
    }
  });

  test("the yaml folder imports nothing from outside it (its own error type, no cycle)", async () => {
    const dir = join(FIXTURES, "..", "..", "..", "src", "config", "yaml");
    for (const name of await readdir(dir)) {
      const source = await readFile(join(dir, name), "utf8");
      for (const match of source.matchAll(/^(?:import|export)\b[^;]*?\bfrom\s+"([^"]+)"/gms)) {
        assert.match(match[1]!, /^\.\/[\w.]+\.ts$/, `${name} imports ${match[1]}`);
      }
    }
  });
});
