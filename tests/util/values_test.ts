import { describe, test } from "node:test";
import assert from "node:assert/strict";
import {
  base64Utf8,
  describeKind,
  describeValue,
  messageOf,
  trimEnd,
  truncate,
} from "../../src/util/values.ts";
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

describe("describeValue", () => {
  test("quotes strings, prints other primitives, names objects by their kind", () => {
    assert.equal(describeValue("no"), '"no"');
    assert.equal(describeValue(""), '""');
    assert.equal(describeValue(3), "3");
    assert.equal(describeValue(NaN), "NaN");
    assert.equal(describeValue(undefined), "undefined");
    assert.equal(describeValue(null), "null");
    assert.equal(describeValue({ secret: "x" }), "an object");
    assert.equal(describeValue([1]), "an array");
    assert.equal(describeValue(() => {}), "a function");
    assert.equal(describeValue(new AbortController()), "AbortController");
  });

  test("cuts a long string, saying how long it was", () => {
    const long = "x".repeat(100_000);
    const shown = describeValue(long);
    assert.ok(shown.length < 130, shown);
    assert.equal(shown, `"${"x".repeat(80)}"... (100000 characters)`);
    assert.equal(describeValue("y".repeat(100)), `"${"y".repeat(100)}"`);
  });
});

describe("describeKind", () => {
  test("never shows the content: typeof for primitives, the class for objects", () => {
    assert.equal(describeKind("s3cr3t"), "string");
    assert.equal(describeKind(42), "number");
    assert.equal(describeKind(undefined), "undefined");
    assert.equal(describeKind(null), "null");
    assert.equal(describeKind(["s3cr3t"]), "an array");
    assert.equal(describeKind(() => {}), "a function");
    assert.equal(describeKind({ token: "s3cr3t" }), "an object");
    assert.equal(describeKind(Object.create(null)), "an object");
    assert.equal(describeKind(new ArrayBuffer(1)), "ArrayBuffer");
    assert.equal(describeKind({ constructor: 5 }), "an object");
  });
});

describe("base64Utf8", () => {
  test("encodes the UTF-8 bytes, where btoa alone refuses non-Latin-1 text", () => {
    assert.equal(base64Utf8("user:pass"), "dXNlcjpwYXNz");
    assert.equal(base64Utf8("é"), "w6k=");
    assert.equal(base64Utf8("ü:🚀"), "w7w68J+agA==");
    assert.throws(() => btoa("🚀"));
    assert.equal(base64Utf8(""), "");
  });
});

describe("messageOf", () => {
  test("is an error's message, or the text of anything else thrown", () => {
    assert.equal(messageOf(new TypeError("fetch failed")), "fetch failed");
    assert.equal(messageOf("plain"), "plain");
    assert.equal(messageOf(42), "42");
    assert.equal(messageOf(undefined), "undefined");
  });
});
