import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { trimEnd, truncate } from "../../src/util/values.ts";
import { kubectlProxy } from "../../src/config/kubectl_proxy.ts";

describe("trimEnd", () => {
  test("drops trailing characters from the set", () => {
    assert.equal(trimEnd("http://h/a///", "/"), "http://h/a");
    assert.equal(trimEnd("/x\\/\\", "\\/"), "/x");
    assert.equal(trimEnd("///", "/"), "");
    assert.equal(trimEnd("abc", "/"), "abc");
  });

  test("linear on hostile input: a long run of slashes followed by anything else", () => {
    // `/\/+$/` needs minutes for this (each start in the run scans to its end and fails).
    const hostile = "http://127.0.0.1:8001/" + "/".repeat(400_000) + "x";
    assert.equal(trimEnd(hostile, "/"), hostile);
    assert.equal(kubectlProxy(hostile).server, hostile);
  });
});

describe("truncate", () => {
  test("never ends on the first half of a surrogate pair", () => {
    assert.equal(truncate("ab🚀c", 3), "ab");
    assert.equal(truncate("ab🚀c", 4), "ab🚀");
    assert.equal(truncate("abc", 10), "abc");
  });
});
