import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { compareResourceVersions } from "../../src/util/resource_version.ts";

function sign(n: number | undefined): number | undefined {
  return n === undefined ? undefined : Math.sign(n);
}

describe("compareResourceVersions", () => {
  test("a shorter resource version is older, whatever its digits", () => {
    assert.equal(sign(compareResourceVersions("999", "1000")), -1);
    assert.equal(sign(compareResourceVersions("1000", "999")), 1);
    assert.equal(sign(compareResourceVersions("9", "10")), -1);
  });

  test("equal lengths compare digit by digit", () => {
    assert.equal(sign(compareResourceVersions("12345", "12346")), -1);
    assert.equal(sign(compareResourceVersions("20000", "19999")), 1);
  });

  test("equal resource versions compare as 0", () => {
    assert.equal(compareResourceVersions("10245", "10245"), 0);
    assert.equal(compareResourceVersions("1", "1"), 0);
  });

  test("versions far beyond Number.MAX_SAFE_INTEGER compare exactly (no arithmetic)", () => {
    const a = "123456789012345678901234567890";
    const b = "123456789012345678901234567891";
    assert.equal(sign(compareResourceVersions(a, b)), -1);
    assert.equal(sign(compareResourceVersions(b, a)), 1);
    assert.equal(sign(compareResourceVersions("9007199254740993", "9007199254740992")), 1);
  });

  test("the order agrees with BigInt order on a sample of decimal strings", () => {
    const samples = [
      "1",
      "2",
      "9",
      "10",
      "11",
      "99",
      "100",
      "101",
      "4096",
      "65535",
      "18446744073709551616",
    ];
    for (const a of samples) {
      for (const b of samples) {
        const expected = BigInt(a) < BigInt(b) ? -1 : BigInt(a) > BigInt(b) ? 1 : 0;
        assert.equal(sign(compareResourceVersions(a, b)), expected, `${a} vs ${b}`);
      }
    }
  });

  test("a non-numeric resource version is not comparable: undefined", () => {
    for (const odd of ["", "abc", "12a", " 12", "12 ", "-1", "+1", "1.5", "1e3", "0x10", "١٢"]) {
      assert.equal(compareResourceVersions(odd, "12"), undefined, JSON.stringify(odd));
      assert.equal(compareResourceVersions("12", odd), undefined, JSON.stringify(odd));
    }
  });

  test("leading zeros make a resource version malformed, so it is not comparable", () => {
    // "010" would sort after "9" by length; Kubernetes' own comparison rejects it instead.
    assert.equal(compareResourceVersions("010", "9"), undefined);
    assert.equal(compareResourceVersions("9", "010"), undefined);
    assert.equal(compareResourceVersions("00", "00"), undefined);
  });

  test('"0" (the "any version" request value) is not a comparable resource version', () => {
    assert.equal(compareResourceVersions("0", "1"), undefined);
    assert.equal(compareResourceVersions("5", "0"), undefined);
  });
});
