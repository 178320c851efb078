import { test } from "node:test";
import assert from "node:assert/strict";
import { isDnsLabel, isDnsSubdomain } from "../../src/util/dns_names.ts";

test("DNS labels: lowercase alphanumerics and inner '-', at most 63 characters (or a given max)", () => {
  for (const ok of ["a", "web-1", "0", "a".repeat(63)]) assert.equal(isDnsLabel(ok), true, ok);
  for (const bad of ["", "-a", "a-", "A", "a.b", "a_b", "a".repeat(64)]) {
    assert.equal(isDnsLabel(bad), false, bad);
  }
  assert.equal(isDnsLabel("a".repeat(50), 50), true);
  assert.equal(isDnsLabel("a".repeat(51), 50), false);
});

test("DNS subdomains: dot-separated labels, at most 253 characters", () => {
  for (const ok of ["a", "example.com", "a-1.b-2.c", `${"a".repeat(63)}.${"b".repeat(63)}`]) {
    assert.equal(isDnsSubdomain(ok), true, ok);
  }
  const long = Array(64).fill("abc").join("."); // 255 characters
  for (const bad of ["", ".a", "a.", "a..b", "Example.com", "a_b.c", long]) {
    assert.equal(isDnsSubdomain(bad), false, bad);
  }
});
