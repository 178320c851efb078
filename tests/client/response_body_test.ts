import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { continueTokenPeeker } from "../../src/client/response_body.ts";

describe("continueTokenPeeker", () => {
  test("finds the token at the head of a list body, across chunks, before items", () => {
    const found: string[] = [];
    const peek = continueTokenPeeker((t) => found.push(t));
    assert.equal(peek('{"kind":"PodList","metadata":{"resourceVersion":"5","cont'), false);
    assert.equal(
      peek('{"kind":"PodList","metadata":{"resourceVersion":"5","continue":"a\\"b"'),
      true,
    );
    assert.deepEqual(found, ['a"b']);
  });

  test("a token after items is not trusted; looking stops at items or after 64 KiB", () => {
    const found: string[] = [];
    const peek = continueTokenPeeker((t) => found.push(t));
    assert.equal(peek('{"items":[{"continue":"fake"}],"metadata":{"continue":"late"}}'), true);
    assert.equal(found.length, 0);
    const long = continueTokenPeeker((t) => found.push(t));
    assert.equal(long(`{"metadata":{"x":"${"a".repeat(70_000)}`), true);
    assert.equal(found.length, 0);
  });
});
