import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { JsonTextDecoder } from "../../src/util/json_text_decoder.ts";

const utf8 = new TextEncoder();
const plain = new TextDecoder();
/** A non-ASCII character (what the decoder escapes). */
const NON_ASCII = /[\u0080-\u{10ffff}]/u;

/** What `JSON.parse` makes of the bytes: the value, or the fact that it threw. */
function outcome(text: string): { value: unknown } | "throws" {
  try {
    return { value: JSON.parse(text) };
  } catch {
    return "throws";
  }
}

/** Bytes from hex pairs and text pieces. */
function bytesOf(...parts: (string | number[])[]): Uint8Array {
  const out: number[] = [];
  for (const part of parts) {
    if (typeof part === "string") out.push(...utf8.encode(part));
    else out.push(...part);
  }
  return Uint8Array.from(out);
}

describe("JsonTextDecoder", () => {
  test("ASCII text is decoded as it is (the same bytes)", () => {
    const decoder = new JsonTextDecoder();
    for (const text of ['{"a":"b"}', '["Gr\\u00fc\\u00dfe"]', "", "x".repeat(1000)]) {
      const bytes = utf8.encode(text);
      assert.equal(decoder.escape(bytes), bytes);
      assert.equal(decoder.decode(bytes), text);
    }
  });

  test("non-ASCII characters become \\u escapes that parse to the same value", () => {
    const decoder = new JsonTextDecoder();
    const value = {
      note: "Überwachung aktiv – Grüße aus München",
      cjk: "日本語のテキスト",
      emoji: "deploy 🚀 done 👍",
      first: "Ā",
      last: "\u{10ffff}",
      latin1: "ÿé",
    };
    const text = decoder.decode(utf8.encode(JSON.stringify(value)));
    assert.match(text, /\\u2013/);
    assert.match(text, /\\ud83d\\ude80/);
    assert.match(text, /\\u0100/);
    assert.match(text, /Gr\\u00fc\\u00dfe/);
    assert.doesNotMatch(text, NON_ASCII);
    assert.deepEqual(JSON.parse(text), value);
  });

  test("a character after an odd number of backslashes is left as it is", () => {
    const decoder = new JsonTextDecoder();
    // `"\–"` is an invalid escape: escaping the dash would make it the valid `"\\u2013"`.
    const invalid = bytesOf('["\\–"]');
    assert.equal(decoder.decode(invalid), '["\\–"]');
    assert.throws(() => JSON.parse(decoder.decode(invalid)), SyntaxError);
    // `"\\–"` is a backslash and a dash.
    const valid = bytesOf('["\\\\–"]');
    assert.deepEqual(JSON.parse(decoder.decode(valid)), ["\\–"]);
    assert.equal(decoder.decode(valid), '["\\\\\\u2013"]');
  });

  test("bytes that are not UTF-8 decode as TextDecoder decodes them", () => {
    const decoder = new JsonTextDecoder();
    const cases = [
      [0xe2, 0x80], // a sequence cut short
      [0xe0, 0x80, 0x80], // overlong
      [0xed, 0xa0, 0x80], // a surrogate
      [0xf4, 0x90, 0x80, 0x80], // above U+10FFFF
      [0xf5, 0x80, 0x80, 0x80],
      [0xff],
      [0xc4], // a lead byte at the very end
      [0xc4, 0x41],
    ];
    for (const bad of cases) {
      const bytes = bytesOf('["a', bad, "–b", bad, '"]');
      const text = decoder.decode(bytes);
      assert.equal(text.replace(/\\u2013/g, "–"), plain.decode(bytes), `bytes ${bad}`);
      assert.deepEqual(JSON.parse(text), JSON.parse(plain.decode(bytes)), `bytes ${bad}`);
    }
  });

  test("any mix of pieces parses to what the plain decode parses to, or both throw", () => {
    const pieces: (string | number[])[] = [
      "a",
      " ",
      '"',
      "\\",
      "\\\\",
      '\\"',
      "\\u00e9",
      "é",
      "–",
      "€",
      "日",
      "😀",
      "Ā",
      ",",
      ":",
      "[",
      "]",
      "{",
      "}",
      [0xe2, 0x82],
      [0x80],
      [0xf0, 0x9f],
    ];
    let seed = 12345;
    const random = (n: number): number => (seed = (seed * 1103515245 + 12345) >>> 0) % n;
    const decoder = new JsonTextDecoder();
    let parsed = 0;
    for (let round = 0; round < 3000; round++) {
      const parts: (string | number[])[] = ['["'];
      for (let k = random(12); k > 0; k--) parts.push(pieces[random(pieces.length)]!);
      parts.push('"]');
      const bytes = bytesOf(...parts);
      const got = outcome(decoder.decode(bytes));
      assert.deepEqual(got, outcome(plain.decode(bytes)), `bytes ${Array.from(bytes)}`);
      if (got !== "throws") parsed++;
    }
    assert.ok(parsed > 300, `only ${parsed} of the random texts parsed`);
  });

  test("every alignment of the bytes in their buffer and every length is scanned whole", () => {
    const decoder = new JsonTextDecoder();
    for (let offset = 0; offset < 8; offset++) {
      for (let length = 0; length < 70; length++) {
        for (const at of [0, length >> 1, length - 1]) {
          if (at < 0) continue;
          const chars = Array.from({ length }, () => "a");
          chars[at] = "–";
          const text = JSON.stringify(chars.join(""));
          const encoded = utf8.encode(text);
          const buffer = new Uint8Array(offset + encoded.length + 8);
          buffer.set(encoded, offset);
          const view = buffer.subarray(offset, offset + encoded.length);
          const decoded = decoder.decode(view);
          assert.equal(JSON.parse(decoded), JSON.parse(text));
          assert.equal(NON_ASCII.test(decoded), false, `${offset}/${length}/${at}`);
        }
      }
    }
  });

  test("the buffer is reused: a decoded text does not change with the next call", () => {
    const decoder = new JsonTextDecoder();
    const first = decoder.decode(utf8.encode('["–first–"]'));
    decoder.decode(utf8.encode('["–second, longer than the first–"]'));
    assert.deepEqual(JSON.parse(first), ["–first–"]);
  });
});
