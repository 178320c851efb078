import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { LineSplitter, type RunHandler } from "../../src/watch/line_splitter.ts";
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

/** Where a line sits in the fixture: enough to compare splits without decoding text. */
interface Span {
  lineNumber: number;
  byteOffset: number;
  length: number;
}

/**
 * Spans of the lines `push` delivers for `chunks`, all
 * subarrays of `bytes`. A line that is a view of `bytes` must be the view at its own offset; a
 * joined line must hold the same bytes as `bytes` at its offset.
 */
function spans(bytes: Uint8Array, chunks: Uint8Array[]): Span[] {
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
    splitter.push(chunk, (line, lineNumber, byteOffset) => {
      check(line, byteOffset);
      out.push({ lineNumber, byteOffset, length: line.length });
    });
  }
  assert.equal(splitter.finish(), undefined);
  return out;
}

/** What `push` with a run handler delivered: lines, runs, and the lines cut from taken runs. */
interface RunResult {
  /** Every line, from `onLine` or cut from a taken run, in order. */
  lines: Line[];
  /** The runs offered, as text, with their first line's number and offset. */
  runs: Line[];
}

/**
 * Pushes `chunks` with a run handler that takes a run when `take(run)` says so, cutting it
 * into lines as the splitter would (`\r` before `\n` removed, empty lines skipped but counted).
 */
function splitRuns(
  chunks: readonly (string | Uint8Array)[],
  take: (run: string) => boolean,
  splitter: LineSplitter = new LineSplitter(),
): RunResult {
  const result: RunResult = { lines: [], runs: [] };
  const onLine = (line: Uint8Array, lineNumber: number, byteOffset: number): void => {
    result.lines.push({ text: text.decode(line), lineNumber, byteOffset });
  };
  const onRun: RunHandler = (run, lineNumber, byteOffset) => {
    result.runs.push({ text: text.decode(run), lineNumber, byteOffset });
    if (!take(text.decode(run))) return 0;
    let count = 0;
    let start = 0;
    for (;;) {
      const newline = run.indexOf(10, start);
      const end = newline === -1 ? run.length : newline;
      const stop = end > start && run[end - 1] === 13 ? end - 1 : end;
      if (stop > start) {
        onLine(run.subarray(start, stop), lineNumber + count, byteOffset + start);
      }
      count++;
      if (newline === -1) return count;
      start = newline + 1;
    }
  };
  for (const chunk of chunks) {
    splitter.push(typeof chunk === "string" ? utf8.encode(chunk) : chunk, onLine, onRun);
  }
  assert.equal(splitter.finish(), undefined);
  return result;
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
    const expected = spans(bytes, [bytes]);
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
      const result = spans(bytes, [bytes.subarray(0, cut), bytes.subarray(cut)]);
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

  describe("runs of whole lines (onRun)", () => {
    test("offers the whole lines of a chunk as one run, from a line start to the last newline", () => {
      const result = splitRuns(["ab", "c\nd\r\ne\n\nf\ng", "h\n"], () => true);
      assert.deepEqual(result.runs, [{ text: "d\r\ne\n\nf", lineNumber: 2, byteOffset: 4 }]);
      assert.deepEqual(result.lines, [
        { text: "abc", lineNumber: 1, byteOffset: 0 }, // spans chunks: never in a run
        { text: "d", lineNumber: 2, byteOffset: 4 },
        { text: "e", lineNumber: 3, byteOffset: 7 },
        { text: "f", lineNumber: 5, byteOffset: 10 },
        { text: "gh", lineNumber: 6, byteOffset: 12 }, // numbered after the run's lines
      ]);
    });

    test("a declined run reaches onLine line by line, with the same numbers and offsets", () => {
      const chunks = ["ab", "c\nd\r\ne\n\nf\ng", "h\n"];
      const declined = splitRuns(chunks, () => false);
      assert.equal(declined.runs.length, 1);
      assert.deepEqual(declined.lines, split(chunks).lines);
    });

    test("offers no run for a chunk with fewer than two whole lines of its own", () => {
      assert.deepEqual(splitRuns(["a\nb", "\n"], () => true).runs, []);
      assert.deepEqual(splitRuns(["a", "b\nc\n"], () => true).runs, []);
      assert.deepEqual(splitRuns(["a\nb\n"], () => true).runs, [
        { text: "a\nb", lineNumber: 1, byteOffset: 0 },
      ]);
    });

    test("offers no run longer than maxLineLength, so each line is still checked", () => {
      const splitter = new LineSplitter({ maxLineLength: 4 });
      assert.throws(() => splitRuns(["ok\nabcde\nnext\n"], () => true, splitter), (err) => {
        assert.ok(err instanceof LineTooLongError);
        assert.equal(err.lineNumber, 2);
        return true;
      });
      const fits = splitRuns(["a\nb\r\n"], () => true, new LineSplitter({ maxLineLength: 4 }));
      assert.deepEqual(fits.runs.map((r) => r.text), ["a\nb\r"]);
    });

    test("gives the same lines for the fixture split at every byte, runs taken or declined", () => {
      const bytes = utf8.encode(PODS_WATCH);
      const expected = JSON.stringify(split([bytes]).lines);
      let offered = 0;
      for (let cut = 0; cut <= bytes.length; cut++) {
        const chunks = [bytes.subarray(0, cut), bytes.subarray(cut)];
        // Declining every run is the plain path (above); here all, and every other one.
        for (const take of [() => true, (run: string) => run.length % 2 === 0]) {
          const result = splitRuns(chunks, take);
          offered += result.runs.length;
          if (JSON.stringify(result.lines) !== expected) {
            assert.deepEqual(result.lines, split([bytes]).lines, `cut at byte ${cut}`);
          }
        }
      }
      assert.ok(offered > bytes.length, "runs were offered");
    });

    test("propagates an error thrown by the run handler", () => {
      const boom = new Error("boom");
      const lines: string[] = [];
      assert.throws(
        () =>
          new LineSplitter().push(utf8.encode("a\nb\nc"), (l) => lines.push(text.decode(l)), () => {
            throw boom;
          }),
        (err) => err === boom,
      );
      assert.deepEqual(lines, []);
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
