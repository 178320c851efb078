import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { LineSplitter } from "../../src/watch/line_splitter.ts";
import { LineTooLongError } from "../../src/watch/mod.ts";
import { PODS_WATCH } from "../fixtures/pods_watch.ts";

const utf8 = new TextEncoder();
const text = new TextDecoder();

interface Line {
  text: string;
  lineNumber: number;
  byteOffset: number;
}

/** Pushes `chunks` through `splitter`, returning the lines and the trailing text (if any). */
function split(
  chunks: readonly (string | Uint8Array)[],
  splitter: LineSplitter = new LineSplitter(),
): { lines: Line[]; rest: string | undefined } {
  const lines: Line[] = [];
  const onLine = (line: Uint8Array, lineNumber: number, byteOffset: number): void => {
    lines.push({ text: text.decode(line), lineNumber, byteOffset });
  };
  for (const chunk of chunks) {
    splitter.push(typeof chunk === "string" ? utf8.encode(chunk) : chunk, onLine);
  }
  const rest = splitter.finish();
  return { lines, rest: rest === undefined ? undefined : text.decode(rest) };
}

/** Like {@linkcode split}, through `pushLines`: each run is cut back into lines here. */
function splitRuns(
  chunks: readonly (string | Uint8Array)[],
  splitter: LineSplitter = new LineSplitter(),
): { lines: Line[]; rest: string | undefined; runs: number } {
  const lines: Line[] = [];
  let runs = 0;
  const onLines = (run: Uint8Array, firstLineNumber: number, byteOffset: number): void => {
    runs++;
    let start = 0;
    for (let index = 0;; index++) {
      const newline = run.indexOf(10, start);
      const end = newline === -1 ? run.length : newline;
      const line = text.decode(run.subarray(start, end)).replace(/\r$/, "");
      if (line !== "") {
        lines.push({
          text: line,
          lineNumber: firstLineNumber + index,
          byteOffset: byteOffset + start,
        });
      }
      if (newline === -1) break;
      start = newline + 1;
    }
  };
  for (const chunk of chunks) {
    splitter.pushLines(typeof chunk === "string" ? utf8.encode(chunk) : chunk, onLines);
  }
  const rest = splitter.finish();
  return { lines, rest: rest === undefined ? undefined : text.decode(rest), runs };
}

/** Where a line sits in the fixture: enough to compare splits without decoding text. */
interface Span {
  lineNumber: number;
  byteOffset: number;
  length: number;
}

/**
 * Spans of the lines `push` (or `pushLines`, cut back into lines) delivers for `chunks`, all
 * subarrays of `bytes`. A line that is a view of `bytes` must be the view at its own offset; a
 * joined line must hold the same bytes as `bytes` at its offset.
 */
function spans(bytes: Uint8Array, chunks: Uint8Array[], runs: boolean): Span[] {
  const out: Span[] = [];
  const check = (line: Uint8Array, byteOffset: number): void => {
    if (line.buffer === bytes.buffer) {
      assert.equal(line.byteOffset - bytes.byteOffset, byteOffset, "a view at the wrong place");
    } else {
      for (let i = 0; i < line.length; i++) {
        if (line[i] !== bytes[byteOffset + i]) assert.fail(`joined line at ${byteOffset} differs`);
      }
    }
  };
  const splitter = new LineSplitter();
  for (const chunk of chunks) {
    if (!runs) {
      splitter.push(chunk, (line, lineNumber, byteOffset) => {
        check(line, byteOffset);
        out.push({ lineNumber, byteOffset, length: line.length });
      });
      continue;
    }
    splitter.pushLines(chunk, (run, firstLineNumber, runOffset) => {
      check(run, runOffset);
      let start = 0;
      for (let index = 0;; index++) {
        const newline = run.indexOf(10, start);
        let end = newline === -1 ? run.length : newline;
        if (end > start && run[end - 1] === 13) end--;
        if (end > start) {
          out.push({
            lineNumber: firstLineNumber + index,
            byteOffset: runOffset + start,
            length: end - start,
          });
        }
        if (newline === -1) break;
        start = newline + 1;
      }
    });
  }
  assert.equal(splitter.finish(), undefined);
  return out;
}

function sameSpans(a: Span[], b: Span[]): boolean {
  return a.length === b.length && a.every((span, i) => {
    const other = b[i]!;
    return span.lineNumber === other.lineNumber && span.byteOffset === other.byteOffset &&
      span.length === other.length;
  });
}

function texts(result: { lines: Line[] }): string[] {
  return result.lines.map((line) => line.text);
}

describe("LineSplitter", () => {
  test("splits on \\n and reports 1-based line numbers and the byte offset of each line", () => {
    const result = split(["ab\ncdé\nf\n"]);
    assert.deepEqual(result.lines, [
      { text: "ab", lineNumber: 1, byteOffset: 0 },
      { text: "cdé", lineNumber: 2, byteOffset: 3 },
      { text: "f", lineNumber: 3, byteOffset: 8 },
    ]);
    assert.equal(result.rest, undefined);
  });

  test("hands a line that lies inside one chunk over as a view of that chunk, without copying", () => {
    const chunk = utf8.encode('{"a":1}\n{"b":2}\n');
    const views: Uint8Array[] = [];
    new LineSplitter().push(chunk, (line) => views.push(line));
    assert.equal(views.length, 2);
    for (const view of views) assert.equal(view.buffer, chunk.buffer);
    assert.deepEqual(views.map((v) => v.byteOffset), [0, 8]);
  });

  test("joins a line spanning several chunks into one array", () => {
    const result = split(['{"a"', ":", "1}\n{", "}\n"]);
    assert.deepEqual(result.lines, [
      { text: '{"a":1}', lineNumber: 1, byteOffset: 0 },
      { text: "{}", lineNumber: 2, byteOffset: 8 },
    ]);
  });

  test("skips empty lines but still counts them for line numbers and offsets", () => {
    const result = split(["\n\na\n\r\n\nb\n\n"]);
    assert.deepEqual(result.lines, [
      { text: "a", lineNumber: 3, byteOffset: 2 },
      { text: "b", lineNumber: 6, byteOffset: 7 },
    ]);
  });

  test("strips a trailing \\r, also when \\r and \\n arrive in different chunks", () => {
    assert.deepEqual(texts(split(["a\r\nb\r", "\nc\r\n"])), ["a", "b", "c"]);
    assert.deepEqual(texts(split(["a\r", "\n", "b", "\r", "\n"])), ["a", "b"]);
  });

  test("keeps a \\r that is not right before the newline", () => {
    assert.deepEqual(texts(split(["a\rb\n\rc\n"])), ["a\rb", "\rc"]);
  });

  test("reassembles a multi-byte UTF-8 character cut by a chunk boundary", () => {
    const bytes = utf8.encode("日本語 🚀\n");
    for (let cut = 1; cut < bytes.length; cut++) {
      const result = split([bytes.subarray(0, cut), bytes.subarray(cut)]);
      assert.deepEqual(texts(result), ["日本語 🚀"], `cut at byte ${cut}`);
    }
  });

  test("gives the same lines, numbers and offsets for the fixture split at every byte", () => {
    const bytes = utf8.encode(PODS_WATCH);
    const expected = spans(bytes, [bytes], false);
    assert.deepEqual(expected.map((s) => s.lineNumber), [
      1,
      2,
      3,
      4,
      5,
      6,
      7,
      8,
      9,
      10,
      11,
      12,
      13,
    ]);
    for (let cut = 0; cut <= bytes.length; cut++) {
      const result = spans(bytes, [bytes.subarray(0, cut), bytes.subarray(cut)], false);
      if (!sameSpans(result, expected)) assert.deepEqual(result, expected, `cut at byte ${cut}`);
    }
  });

  test("gives the same lines when the fixture arrives one byte at a time", () => {
    const bytes = utf8.encode(PODS_WATCH);
    const expected = split([bytes]);
    const chunks = Array.from(bytes, (_, i) => bytes.subarray(i, i + 1));
    assert.deepEqual(split(chunks), expected);
    assert.equal(expected.lines.length, 13);
  });

  test("empty chunks change nothing, also in the middle of a line", () => {
    const empty = new Uint8Array(0);
    const chunks = [empty, utf8.encode("a"), empty, utf8.encode("b\r"), empty, utf8.encode("\nc")];
    assert.deepEqual(split(chunks), {
      lines: [{ text: "ab", lineNumber: 1, byteOffset: 0 }],
      rest: "c",
    });
    const runs = splitRuns(chunks);
    assert.deepEqual([runs.lines, runs.rest], [
      [{ text: "ab", lineNumber: 1, byteOffset: 0 }],
      "c",
    ]);
  });

  test("finish() returns the bytes after the last newline, without a trailing \\r", () => {
    assert.equal(split(["a\nbc"]).rest, "bc");
    assert.equal(split(["a\nb", "c\r"]).rest, "bc");
    assert.equal(split(["a\n"]).rest, undefined);
    assert.equal(split(["a\n\r"]).rest, undefined);
    assert.equal(split([]).rest, undefined);
  });

  test("lineNumber and lineOffset locate the incomplete line before finish()", () => {
    const splitter = new LineSplitter();
    splitter.push(utf8.encode("a\n\nbc"), () => {});
    assert.equal(splitter.lineNumber, 3);
    assert.equal(splitter.lineOffset, 3);
    assert.equal(splitter.pendingLength, 2);
  });

  test("finish() and reset() start a new stream: numbering and offsets restart", () => {
    const splitter = new LineSplitter();
    splitter.push(utf8.encode("a\nb"), () => {});
    splitter.finish();
    assert.deepEqual(split(["c\n"], splitter).lines, [{ text: "c", lineNumber: 1, byteOffset: 0 }]);

    splitter.push(utf8.encode("x\npartial"), () => {});
    splitter.reset();
    assert.equal(splitter.pendingLength, 0);
    assert.deepEqual(split(["d\n"], splitter).lines, [{ text: "d", lineNumber: 1, byteOffset: 0 }]);
  });

  test("propagates an error thrown by the line handler", () => {
    const boom = new Error("boom");
    assert.throws(
      () =>
        new LineSplitter().push(utf8.encode("a\n"), () => {
          throw boom;
        }),
      (err) => err === boom,
    );
  });

  describe("pushLines", () => {
    test("hands over all whole lines of a chunk in one call, as a view of the chunk", () => {
      const chunk = utf8.encode('{"a":1}\r\n\n{"b":2}\n{"c"');
      const runs: [string, number, number][] = [];
      const splitter = new LineSplitter();
      splitter.pushLines(chunk, (run, first, offset) => {
        assert.equal(run.buffer, chunk.buffer);
        runs.push([text.decode(run), first, offset]);
      });
      assert.deepEqual(runs, [['{"a":1}\r\n\n{"b":2}', 1, 0]]);
      assert.equal(splitter.lineNumber, 4);
      assert.equal(splitter.lineOffset, 18);
    });

    test("delivers a line continued from earlier chunks on its own, joined and without its \r", () => {
      const runs: [string, number, number][] = [];
      const splitter = new LineSplitter();
      const onLines = (run: Uint8Array, first: number, offset: number): void => {
        runs.push([text.decode(run), first, offset]);
      };
      splitter.pushLines(utf8.encode("ab"), onLines);
      splitter.pushLines(utf8.encode("c\r"), onLines);
      splitter.pushLines(utf8.encode("\nd\ne\n"), onLines);
      assert.deepEqual(runs, [["abc", 1, 0], ["d\ne", 2, 5]]);
    });

    test("gives the same lines as push() for the fixture split at every byte", () => {
      const bytes = utf8.encode(PODS_WATCH);
      const expected = spans(bytes, [bytes], false);
      assert.equal(splitRuns([bytes]).runs, 1);
      assert.deepEqual(spans(bytes, [bytes], true), expected);
      for (let cut = 0; cut <= bytes.length; cut++) {
        const result = spans(bytes, [bytes.subarray(0, cut), bytes.subarray(cut)], true);
        if (!sameSpans(result, expected)) assert.deepEqual(result, expected, `cut at byte ${cut}`);
      }
    });

    test("gives the same lines as push() for short, empty and \\r\\n lines", () => {
      for (
        const input of [["x\n"], ["\n\na\n\r\n\nb\n\n"], ["a\r", "\n\r", "\nb", "\n"], ["\r\n"]]
      ) {
        assert.deepEqual(splitRuns(input).lines, split(input).lines, JSON.stringify(input));
      }
    });

    test("accepts a line of exactly maxLineLength bytes, with either line ending", () => {
      const splitter = new LineSplitter({ maxLineLength: 4 });
      assert.deepEqual(
        splitRuns(["abcd\nefgh\r\nij", "kl\r\n"], splitter).lines.map((l) => l.text),
        [
          "abcd",
          "efgh",
          "ijkl",
        ],
      );
    });

    test("gives the same lines as push() one byte at a time and with \r\n endings", () => {
      const crlf = utf8.encode(PODS_WATCH.replaceAll("\n", "\r\n") + "\n\r\n");
      const chunks = Array.from(crlf, (_, i) => crlf.subarray(i, i + 1));
      const expected = split([crlf]);
      assert.deepEqual(splitRuns(chunks).lines, expected.lines);
      assert.deepEqual(splitRuns([crlf]).lines, expected.lines);
    });

    test("delivers the lines before an oversized line, then throws LineTooLongError", () => {
      const splitter = new LineSplitter({ maxLineLength: 4 });
      const runs: string[] = [];
      assert.throws(
        () =>
          splitter.pushLines(
            utf8.encode("ab\ncd\nabcde\nnext\n"),
            (r) => runs.push(text.decode(r)),
          ),
        (err) => err instanceof LineTooLongError && err.lineNumber === 3 && err.byteOffset === 6,
      );
      assert.deepEqual(runs, ["ab\ncd"]);
    });

    test("throws when an unterminated line passes the limit and skips the rest of it", () => {
      const splitter = new LineSplitter({ maxLineLength: 4 });
      assert.throws(() => splitRuns(["ok\n123", "45"], splitter), LineTooLongError);
      assert.equal(splitter.pendingLength, 0);
      assert.deepEqual(splitRuns(["67\nnext\n"], splitter).lines, [
        { text: "next", lineNumber: 3, byteOffset: 11 },
      ]);
    });
  });

  describe("maxLineLength", () => {
    test("accepts a line of exactly maxLineLength bytes, with either line ending", () => {
      const splitter = new LineSplitter({ maxLineLength: 4 });
      assert.deepEqual(texts(split(["abcd\nefgh\r", "\nij", "kl\r\n"], splitter)), [
        "abcd",
        "efgh",
        "ijkl",
      ]);
      assert.equal(new LineSplitter({ maxLineLength: 4 }).finish(), undefined);
    });

    test("throws LineTooLongError with the limit, line number and offset of a complete long line", () => {
      const splitter = new LineSplitter({ maxLineLength: 4 });
      const seen: string[] = [];
      assert.throws(
        () => splitter.push(utf8.encode("ok\nabcde\nnext\n"), (l) => seen.push(text.decode(l))),
        (err) => {
          assert.ok(err instanceof LineTooLongError);
          assert.equal(err.name, "LineTooLongError");
          assert.equal(err.limit, 4);
          assert.equal(err.lineNumber, 2);
          assert.equal(err.byteOffset, 3);
          assert.match(err.message, /line 2 .*4 bytes.*maxLineLength/);
          return true;
        },
      );
      assert.deepEqual(seen, ["ok"]);
    });

    test("throws as soon as an unterminated line passes the limit and drops what it held", () => {
      const splitter = new LineSplitter({ maxLineLength: 8 });
      splitter.push(utf8.encode("12345"), () => {});
      assert.equal(splitter.pendingLength, 5);
      assert.throws(() => splitter.push(utf8.encode("6789"), () => {}), LineTooLongError);
      assert.equal(splitter.pendingLength, 0);
    });

    test("keeps memory bounded while a newline never comes: the rest of the long line is skipped", () => {
      const splitter = new LineSplitter({ maxLineLength: 8 });
      assert.throws(() => splitter.push(utf8.encode("0123456789"), () => {}), LineTooLongError);
      for (let i = 0; i < 100; i++) {
        splitter.push(new Uint8Array(1024).fill(0x61), () => {});
        assert.equal(splitter.pendingLength, 0);
      }
      const result = split(["tail\nnext\n"], splitter);
      assert.deepEqual(result.lines, [{ text: "next", lineNumber: 2, byteOffset: 102_415 }]);
    });

    test("rejects a maxLineLength that is not a positive integer, naming the option", () => {
      for (const bad of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
        assert.throws(() => new LineSplitter({ maxLineLength: bad }), (err) => {
          assert.ok(err instanceof RangeError);
          assert.match(err.message, /maxLineLength/);
          return true;
        });
      }
    });
  });
});
