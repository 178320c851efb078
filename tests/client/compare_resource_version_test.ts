// KEP-5504's resource version comparison: decimal integers without a leading zero, any size;
// anything else is a typed error.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import {
  compareResourceVersion,
  ResourceVersionNotComparableError,
} from "../../src/client/compare_resource_version.ts";

describe("compareResourceVersion", () => {
  test("orders decimal integers of any size, shorter first", () => {
    assert.equal(compareResourceVersion("9", "10"), -1);
    assert.equal(compareResourceVersion("10", "10"), 0);
    assert.equal(compareResourceVersion("200", "199"), 1);
    const big = "123456789012345678901234567890";
    assert.equal(compareResourceVersion(big, big.replace(/0$/, "1")), -1);
  });

  for (const bad of ["", "0", "007", "-1", "1e3", "12a", " 12", "MTIz"]) {
    test(`${JSON.stringify(bad)} cannot be ordered: a typed error naming it`, () => {
      for (const [a, b] of [[bad, "5"], ["5", bad]] as const) {
        assert.throws(() => compareResourceVersion(a, b), (error: unknown) => {
          assert.ok(error instanceof ResourceVersionNotComparableError);
          assert.equal(error.kind, "invalid");
          assert.equal(error.resourceVersion, bad);
          assert.match(error.message, /KEP-5504/);
          return true;
        });
      }
    });
  }

  test("a value that is not a string is a TypeError", () => {
    assert.throws(() => compareResourceVersion(12 as unknown as string, "5"), TypeError);
  });
});
