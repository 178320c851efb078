import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { parseFieldSelector } from "../../src/client/field_selector.ts";
import { SelectorParseError } from "../../src/client/label_selector.ts";
import type { KubeObject } from "../../src/client/types.ts";

const pod: KubeObject = {
  metadata: { name: "web-1", namespace: "default" },
  spec: { nodeName: "node-1", hostNetwork: false, priority: 5 },
  status: { phase: "Running" },
};

describe("parseFieldSelector", () => {
  test("the empty selector selects everything", () => {
    const s = parseFieldSelector("");
    assert.equal(s.isEverything(), true);
    assert.equal(s.matches(pod), true);
  });

  test("= and == compare the field at a dotted path", () => {
    assert.equal(parseFieldSelector("metadata.name=web-1").matches(pod), true);
    assert.equal(parseFieldSelector("metadata.namespace==default").matches(pod), true);
    assert.equal(parseFieldSelector("status.phase=Pending").matches(pod), false);
    assert.equal(parseFieldSelector("spec.nodeName=node-1").matches(pod), true);
  });

  test("!= matches a different or absent value", () => {
    assert.equal(parseFieldSelector("status.phase!=Succeeded").matches(pod), true);
    assert.equal(parseFieldSelector("status.phase!=Running").matches(pod), false);
    assert.equal(parseFieldSelector("spec.missing!=x").matches(pod), true);
  });

  test("an absent field reads as the empty string", () => {
    assert.equal(parseFieldSelector("spec.schedulerName=").matches(pod), true);
    assert.equal(parseFieldSelector("spec.nodeName=").matches(pod), false);
  });

  test("paths read own fields only: inherited properties are absent", () => {
    // A property some other code put on Object.prototype must not look like a field.
    Object.defineProperty(Object.prototype, "kinformerInherited", {
      value: "x",
      configurable: true,
      enumerable: false,
    });
    try {
      for (
        const path of [
          "kinformerInherited",
          "metadata.kinformerInherited",
          "constructor.name",
          "metadata.__proto__.kinformerInherited",
          "spec.nodeName.length",
        ]
      ) {
        assert.equal(parseFieldSelector(`${path}=`).matches(pod), true, path);
        assert.equal(parseFieldSelector(`${path}!=`).matches(pod), false, path);
      }
    } finally {
      delete (Object.prototype as Record<string, unknown>)["kinformerInherited"];
    }
  });

  test("numbers and booleans compare as their text", () => {
    assert.equal(parseFieldSelector("spec.hostNetwork=false").matches(pod), true);
    assert.equal(parseFieldSelector("spec.priority=5").matches(pod), true);
  });

  test("comma means AND", () => {
    assert.equal(parseFieldSelector("metadata.name=web-1,status.phase=Running").matches(pod), true);
    assert.equal(parseFieldSelector("metadata.name=web-1,status.phase=Failed").matches(pod), false);
  });

  test("escaped characters in values round-trip through toString", () => {
    const s = parseFieldSelector("metadata.name=a\\,b\\=c");
    assert.equal(s.requirements[0]!.value, "a,b=c");
    assert.equal(s.matches({ metadata: { name: "a,b=c" } }), true);
    assert.equal(s.toString(), "metadata.name=a\\,b\\=c");
    assert.equal(parseFieldSelector(s.toString()).requirements[0]!.value, "a,b=c");
  });

  test("toString sorts by path", () => {
    assert.equal(
      parseFieldSelector("status.phase!=Failed, metadata.name=x").toString(),
      "metadata.name=x,status.phase!=Failed",
    );
  });

  test("malformed selectors throw SelectorParseError with a position", () => {
    const cases: Array<[string, number]> = [
      ["metadata.name", 13],
      ["=x", 0],
      ["metadata.name=x,", 16],
      ["metadata.name=a=b", 15],
      ["metadata.name=a\\b", 15],
      ["meta data=x", 0],
    ];
    for (const [text, position] of cases) {
      assert.throws(() => parseFieldSelector(text), (e: unknown) => {
        assert.ok(e instanceof SelectorParseError, text);
        assert.equal(e.position, position, text);
        assert.equal(e.selector, text);
        return true;
      });
    }
  });
});
