import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { KubeApiError } from "../../src/client/errors.ts";
import type { KubeObject } from "../../src/client/types.ts";
import {
  decodeWatchStream,
  LineTooLongError,
  type WatchBody,
  WatchDecodeError,
  WatchDecoderStream,
  type WatchEvent,
} from "../../src/watch/mod.ts";
import { PODS_WATCH, PODS_WATCH_EXPIRED } from "../fixtures/pods_watch.ts";

const utf8 = new TextEncoder();
const FIXTURE = utf8.encode(PODS_WATCH);

type Chunk = string | Uint8Array;

interface Source {
  stream: ReadableStream<Uint8Array>;
  /** Reasons passed to the stream's `cancel` callback, one per call. */
  cancelled: unknown[];
  /** How many times the stream asked for data. */
  pulls(): number;
}

/** A body that hands out `chunks` one per pull, then closes (or errors with `error`). */
function source(chunks: readonly Chunk[], options: { error?: unknown } = {}): Source {
  const cancelled: unknown[] = [];
  let next = 0;
  let pulls = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller): void {
      pulls++;
      const chunk = chunks[next++];
      if (chunk !== undefined) {
        controller.enqueue(typeof chunk === "string" ? utf8.encode(chunk) : chunk);
      } else if (options.error !== undefined) controller.error(options.error);
      else controller.close();
    },
    cancel(reason): void {
      cancelled.push(reason);
    },
  }, { highWaterMark: 0 });
  return { stream, cancelled, pulls: () => pulls };
}

/** A body that never produces data: every read stays pending until it is cancelled. */
function silentSource(): Source {
  const cancelled: unknown[] = [];
  const stream = new ReadableStream<Uint8Array>({
    cancel(reason): void {
      cancelled.push(reason);
    },
  }, { highWaterMark: 0 });
  return { stream, cancelled, pulls: () => 0 };
}

/** A body with exactly these chunks, already queued (the cheapest stream for bulk tests). */
function queued(chunks: readonly Uint8Array[]): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({
    start(controller): void {
      for (const chunk of chunks) controller.enqueue(chunk);
      controller.close();
    },
  });
}

/**
 * The same chunks as an async iterable (what a transport's faster body view is): an iterator
 * object whose `return()` ends it at once, like the Node transport's.
 */
function iterable(chunks: readonly Uint8Array[]): AsyncIterable<Uint8Array> {
  return {
    [Symbol.asyncIterator](): AsyncIterator<Uint8Array> {
      let next = 0;
      return {
        next: () =>
          Promise.resolve(
            next < chunks.length
              ? { done: false, value: chunks[next++]! }
              : { done: true, value: undefined },
          ),
        return: () => {
          next = chunks.length;
          return Promise.resolve({ done: true, value: undefined });
        },
      };
    },
  };
}

/** Both kinds of body the decoder takes, built from the same chunks. */
const BODY_KINDS: [string, (chunks: readonly Uint8Array[]) => WatchBody][] = [
  ["ReadableStream", queued],
  ["AsyncIterable", iterable],
];

async function collect<T extends KubeObject = KubeObject>(
  iterator: AsyncIterable<WatchEvent<T>>,
): Promise<WatchEvent<T>[]> {
  const events: WatchEvent<T>[] = [];
  for await (const event of iterator) events.push(event);
  return events;
}

/** Collects events until the iterator throws; returns both. */
async function collectUntilError(
  iterator: AsyncIterable<WatchEvent>,
): Promise<{ events: WatchEvent[]; error: unknown }> {
  const events: WatchEvent[] = [];
  try {
    for await (const event of iterator) events.push(event);
  } catch (error) {
    return { events, error };
  }
  assert.fail("expected the stream to fail");
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

function line(event: unknown): string {
  return JSON.stringify(event) + "\n";
}

function pod(name: string, resourceVersion = "1"): KubeObject {
  return { kind: "Pod", apiVersion: "v1", metadata: { name, namespace: "shop", resourceVersion } };
}

function bookmark(resourceVersion: string, initialEventsEnd = false): KubeObject {
  return {
    kind: "Pod",
    apiVersion: "v1",
    metadata: {
      resourceVersion,
      ...(initialEventsEnd ? { annotations: { "k8s.io/initial-events-end": "true" } } : {}),
    },
  };
}

function name(event: WatchEvent | undefined): string | undefined {
  return event?.type === "BOOKMARK"
    ? `BOOKMARK@${event.resourceVersion}`
    : event?.object.metadata.name;
}

/** Byte range of each line of a recording, `end` just past its newline. */
function linesOf(bytes: Uint8Array): { start: number; end: number }[] {
  const lines: { start: number; end: number }[] = [];
  for (
    let start = 0, nl = bytes.indexOf(10);
    nl !== -1;
    start = nl + 1, nl = bytes.indexOf(10, start)
  ) {
    lines.push({ start, end: nl + 1 });
  }
  return lines;
}

/** `text` with every non-ASCII UTF-16 unit written as a JSON `\u` escape (the same JSON). */
function asciiJson(text: string): string {
  return text.replace(
    /[\u0080-\uffff]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

const PODS_WATCH_ASCII = asciiJson(PODS_WATCH);
/** The recording as sent, and in ASCII: [name, bytes, text]. */
const RECORDINGS: [string, Uint8Array, string][] = [
  ["the recorded pod watch", FIXTURE, PODS_WATCH],
  ["the recorded pod watch in ASCII", utf8.encode(PODS_WATCH_ASCII), PODS_WATCH_ASCII],
];

const EXPECTED_FIXTURE = await collect(decodeWatchStream(queued([FIXTURE])));
const EXPECTED_FIXTURE_JSON = JSON.stringify(EXPECTED_FIXTURE);

describe("decodeWatchStream", () => {
  describe("the recorded pod watch", () => {
    test("decodes into the 13 recorded events, in order", () => {
      assert.deepEqual(
        EXPECTED_FIXTURE.map((e) => `${e.type} ${name(e)}`),
        [
          "ADDED checkout-7d9f8b6c4d-x2k8p",
          "ADDED checkout-7d9f8b6c4d-q9vzt",
          "ADDED review-bot-0",
          "BOOKMARK BOOKMARK@48250",
          "ADDED checkout-7d9f8b6c4d-m4wnl",
          "MODIFIED checkout-7d9f8b6c4d-m4wnl",
          "MODIFIED checkout-7d9f8b6c4d-m4wnl",
          "MODIFIED checkout-7d9f8b6c4d-x2k8p",
          "BOOKMARK BOOKMARK@48305",
          "MODIFIED checkout-7d9f8b6c4d-x2k8p",
          "DELETED checkout-7d9f8b6c4d-x2k8p",
          "MODIFIED review-bot-0",
          "BOOKMARK BOOKMARK@48377",
        ],
      );
    });

    test("yields each line's parsed JSON, BOOKMARKs with resourceVersion and initialEventsEnd added", () => {
      const reference = PODS_WATCH.trimEnd().split("\n").map((text) => {
        const event = JSON.parse(text);
        if (event.type !== "BOOKMARK") return event;
        const rv = event.object.metadata.resourceVersion;
        const end = event.object.metadata.annotations?.["k8s.io/initial-events-end"] === "true";
        return { ...event, resourceVersion: rv, initialEventsEnd: end };
      });
      assert.deepEqual(EXPECTED_FIXTURE, reference);
    });

    test("keeps non-ASCII text and JSON escapes intact", () => {
      const first = EXPECTED_FIXTURE[0]!;
      const bot = EXPECTED_FIXTURE[11]!;
      assert.equal(first.object.metadata.annotations?.["kinformer.dev/owner"], "José Müller (R&D)");
      assert.equal(
        bot.object.metadata.annotations?.["kinformer.dev/description"],
        "レビューボット v2 — résumés en français et 日本語 🚀✨",
      );
      const spec = bot.object["spec"] as { containers: { env: { value: string }[] }[] };
      assert.equal(spec.containers[0]?.env[0]?.value, "こんにちは 👋");
    });

    test("types BOOKMARKs with their resourceVersion and the initial-events-end marker", () => {
      const bookmarks = EXPECTED_FIXTURE.filter((e) => e.type === "BOOKMARK");
      assert.deepEqual(
        bookmarks.map((b) => b.type === "BOOKMARK" && [b.resourceVersion, b.initialEventsEnd]),
        [["48250", true], ["48305", false], ["48377", false]],
      );
      assert.equal(bookmarks[0]?.object.kind, "Pod");
    });
  });

  // The same recording in ASCII (its non-ASCII text as \u escapes: the same events), where the
  // decoder takes the whole lines of a chunk as one run of text.
  for (const [recording, FIXTURE, FIXTURE_TEXT] of RECORDINGS) {
    const FIXTURE_LINES = linesOf(FIXTURE);
    for (const [kind, body] of BODY_KINDS) {
      describe(`${recording} from a ${kind}`, () => {
        test("gives identical events when split into two chunks at every byte position", async () => {
          // A cut can only affect the line it falls in and what follows it, so each cut is
          // replayed on that line followed by the recording's last line (a short BOOKMARK). To
          // keep this fast, the replays of one line's cuts share one body, one after the other:
          // replay c is cut at its byte c, and its second part shares a chunk with the first
          // part of replay c + 1 (each replay starts on a fresh line, like a new body).
          const last = FIXTURE_LINES.length - 1;
          const tail = FIXTURE.subarray(FIXTURE_LINES[last]!.start);
          for (let k = 0; k <= last; k++) {
            const { start, end } = FIXTURE_LINES[k]!;
            const window = k === last ? tail : concat(FIXTURE.subarray(start, end), tail);
            const expected = k === last
              ? [EXPECTED_FIXTURE[k]!]
              : [EXPECTED_FIXTURE[k]!, EXPECTED_FIXTURE[last]!];
            const expectedJson = expected.map((event) => JSON.stringify(event));
            const cuts = k === last ? window.length + 1 : end - start;
            const chunks = [window.subarray(0, 0)];
            for (let cut = 0; cut < cuts; cut++) {
              chunks[chunks.length - 1] = concat(chunks.at(-1)!, window.subarray(0, cut));
              chunks.push(window.subarray(cut));
            }
            let seen = 0;
            for await (const event of decodeWatchStream(body(chunks))) {
              const i = seen++ % expected.length;
              if (JSON.stringify(event) !== expectedJson[i]) {
                const cut = Math.floor((seen - 1) / expected.length);
                assert.deepEqual(event, expected[i], `cut at byte ${start + cut}`);
              }
            }
            assert.equal(seen, cuts * expected.length);
          }
        });

        test("gives identical events for the whole recording split into two chunks", async () => {
          const cuts = new Set<number>([0, FIXTURE.length]);
          for (let cut = 1; cut < FIXTURE.length; cut += 101) cuts.add(cut);
          for (const { end } of FIXTURE_LINES) for (let d = -3; d <= 3; d++) cuts.add(end + d);
          for (const cut of cuts) {
            if (cut < 0 || cut > FIXTURE.length) continue;
            const events = await collect(
              decodeWatchStream(body([FIXTURE.subarray(0, cut), FIXTURE.subarray(cut)])),
            );
            if (JSON.stringify(events) !== EXPECTED_FIXTURE_JSON) {
              assert.deepEqual(events, EXPECTED_FIXTURE, `cut at byte ${cut}`);
            }
          }
        });

        test("gives identical events when split into three chunks at sampled positions", async () => {
          for (let a = 0; a <= FIXTURE.length; a += 409) {
            for (let b = a; b <= FIXTURE.length; b += 787) {
              const chunks = [FIXTURE.subarray(0, a), FIXTURE.subarray(a, b), FIXTURE.subarray(b)];
              const events = await collect(decodeWatchStream(body(chunks)));
              if (JSON.stringify(events) !== EXPECTED_FIXTURE_JSON) {
                assert.deepEqual(events, EXPECTED_FIXTURE, `cuts at bytes ${a} and ${b}`);
              }
            }
          }
        });

        test("gives identical events when it arrives one byte at a time", async () => {
          const chunks = Array.from(FIXTURE, (_, i) => FIXTURE.subarray(i, i + 1));
          assert.deepEqual(await collect(decodeWatchStream(body(chunks))), EXPECTED_FIXTURE);
        });

        test("gives identical events with \\r\\n line endings, \\r and \\n in different chunks", async () => {
          const crlf = utf8.encode(FIXTURE_TEXT.replaceAll("\n", "\r\n"));
          const chunks: Uint8Array[] = [];
          let start = 0;
          for (let i = crlf.indexOf(13); i !== -1; i = crlf.indexOf(13, i + 1)) {
            chunks.push(crlf.subarray(start, i + 1)); // ends with \r; the next chunk starts with \n
            start = i + 1;
          }
          chunks.push(crlf.subarray(start));
          assert.equal(chunks.length, 14);
          assert.deepEqual(await collect(decodeWatchStream(body(chunks))), EXPECTED_FIXTURE);
        });
      });
    }
  }

  test("reassembles a multi-byte UTF-8 character split across chunks", async () => {
    const bytes = utf8.encode(line({ type: "ADDED", object: pod("日本語-🚀") }));
    const start = bytes.indexOf(0xe6); // first byte of 日
    for (const cut of [start + 1, start + 2, bytes.indexOf(0xf0) + 2]) {
      const events = await collect(
        decodeWatchStream(queued([bytes.subarray(0, cut), bytes.subarray(cut)])),
      );
      assert.equal(name(events[0]), "日本語-🚀", `cut at byte ${cut}`);
    }
  });

  test("delivers every event of a chunk before reading the next chunk", async () => {
    const src = source([FIXTURE]);
    const iterator = decodeWatchStream(src.stream);
    for (let i = 0; i < 13; i++) {
      const result = await iterator.next();
      assert.equal(result.done, false);
      assert.equal(src.pulls(), 1, `event ${i} needed another read`);
    }
    assert.deepEqual(await iterator.next(), { done: true, value: undefined });
    assert.equal(src.pulls(), 2);
  });

  test("ignores empty and blank lines", async () => {
    const body = "\n\n" + line({ type: "ADDED", object: pod("a") }) + "\r\n  \n\t\n" +
      line({ type: "DELETED", object: pod("a") }) + "\n";
    const events = await collect(decodeWatchStream(source([body]).stream));
    assert.deepEqual(events.map((e) => e.type), ["ADDED", "DELETED"]);
  });

  test("delivers a final event that lacks its newline", async () => {
    const body = line({ type: "ADDED", object: pod("a") }) +
      JSON.stringify({ type: "MODIFIED", object: pod("a", "2") });
    const events = await collect(
      decodeWatchStream(source([body.slice(0, 50), body.slice(50)]).stream),
    );
    assert.deepEqual(events.map((e) => e.type), ["ADDED", "MODIFIED"]);
  });

  test("passes the whole object through and types it with the caller's object type", async () => {
    interface Pod extends KubeObject {
      spec: { nodeName: string };
    }
    const object = { ...pod("a"), spec: { nodeName: "worker-a" } };
    const events = await collect(
      decodeWatchStream<Pod>(source([line({ type: "ADDED", object })]).stream),
    );
    const event = events[0];
    assert.ok(event !== undefined && event.type !== "BOOKMARK");
    assert.equal(event.object.spec.nodeName, "worker-a");
    assert.deepEqual(event.object, object);
  });

  describe("whole lines of a chunk decoded at once when they are ASCII", () => {
    test("the ASCII recording is ASCII and holds the recording's events", async () => {
      assert.ok(!/[\u0080-\uffff]/.test(PODS_WATCH_ASCII));
      const ascii = RECORDINGS[1]![1];
      assert.deepEqual(await collect(decodeWatchStream(queued([ascii]))), EXPECTED_FIXTURE);
    });

    test("a multi-byte character in a chunk's lines changes no event, in that chunk or later ones", async () => {
      // 300 chunks of three lines; every fifth has a non-ASCII name in its middle line.
      const chunks: Uint8Array[] = [];
      const expected: string[] = [];
      for (let c = 0; c < 300; c++) {
        let body = "";
        for (let l = 0; l < 3; l++) {
          const podName = c % 5 === 0 && l === 1 ? `日本語-🚀-${c}` : `pod-${c}-${l}`;
          expected.push(podName);
          body += line({ type: "MODIFIED", object: pod(podName, String(c * 3 + l)) });
        }
        chunks.push(utf8.encode(body));
      }
      for (const [kind, body] of BODY_KINDS) {
        const events = await collect(decodeWatchStream(body(chunks)));
        assert.deepEqual(events.map(name), expected, kind);
      }
    });

    test("an error in the middle of a run names its own line and byte offset, after the events before it", async () => {
      const good = JSON.stringify({ type: "ADDED", object: pod("a") }) + "\r\n";
      const bad = '{"type":"MODIFIED","object":' + "\r\n";
      const src = source([good + "\r\n" + good + bad + good]);
      const { events, error } = await collectUntilError(decodeWatchStream(src.stream));
      assert.equal(events.length, 2);
      assert.ok(error instanceof WatchDecodeError);
      assert.equal(error.reason, "malformed-json");
      assert.equal(error.lineNumber, 4);
      assert.equal(error.byteOffset, 2 * good.length + 2);
      assert.equal(error.snippet, '{"type":"MODIFIED","object":');
      assert.deepEqual(src.cancelled, [error]);
    });

    test("a 410 ERROR in the middle of a run is thrown after the events before it, none after", async () => {
      const good = line({ type: "ADDED", object: pod("a") });
      const src = source([good + good + PODS_WATCH_EXPIRED.trimEnd() + "\n" + good + good]);
      const { events, error } = await collectUntilError(decodeWatchStream(src.stream));
      assert.equal(events.length, 2);
      assert.ok(error instanceof KubeApiError);
      assert.equal(error.isExpired, true);
    });

    /** The events and the error of `bytes` as one chunk, and as one chunk per line. */
    async function bothWays(bytes: Uint8Array): Promise<string[]> {
      const perLine = linesOf(bytes).map(({ start, end }) => bytes.subarray(start, end));
      const results: string[] = [];
      for (const chunks of [[bytes], perLine]) {
        const { events, error } = await collectUntilError(decodeWatchStream(queued(chunks)));
        assert.ok(error instanceof WatchDecodeError);
        results.push(JSON.stringify({ events, ...error, message: error.message }));
      }
      return results;
    }

    test("an invalid UTF-8 byte reads as U+FFFD and keeps later offsets right, as line by line", async () => {
      const first = utf8.encode('{"type":"ADDED","object":{"metadata":{"name":"a?"}}}\n');
      first[first.indexOf(0x3f)] = 0xff; // the "?": a byte that is never valid UTF-8
      const bytes = concat(first, utf8.encode(line({ type: "ADDED", object: pod("b") }) + "x\n"));
      const [whole, perLine] = await bothWays(bytes);
      assert.equal(whole, perLine);
      const { events, lineNumber, byteOffset } = JSON.parse(whole!);
      assert.deepEqual(events.map(name), ["a\ufffd", "b"]);
      assert.equal(lineNumber, 3);
      assert.equal(byteOffset, bytes.length - 2);
    });

    test("a malformed line ending in \\r\\n reads as line by line, message included", async () => {
      const good = JSON.stringify({ type: "ADDED", object: pod("a") }) + "\r\n";
      for (const bad of ["x", "{", "[1,", '{"type":"ADDED" x}', "<html>"]) {
        const [whole, perLine] = await bothWays(utf8.encode(good + good + bad + "\r\n" + good));
        assert.equal(whole, perLine, bad);
        assert.doesNotMatch(JSON.parse(whole!).message, /\\r/, bad);
      }
    });

    test("lines after a run are numbered on from it, in the same chunk and later ones", async () => {
      const good = line({ type: "ADDED", object: pod("a") });
      for (const chunks of [[good + "\n" + good + "x"], [good + "\n" + good, "x"]]) {
        const { events, error } = await collectUntilError(decodeWatchStream(source(chunks).stream));
        assert.equal(events.length, 2);
        assert.ok(error instanceof WatchDecodeError);
        assert.equal(error.reason, "truncated");
        assert.equal(error.lineNumber, 4);
        assert.equal(error.byteOffset, 2 * good.length + 1);
      }
      const src = source([good + good, "x\n" + good]);
      const { error } = await collectUntilError(decodeWatchStream(src.stream));
      assert.ok(error instanceof WatchDecodeError);
      assert.equal(error.lineNumber, 3);
      assert.equal(error.byteOffset, 2 * good.length);
    });

    test("a byte-order mark at the start of a line is dropped, as line by line", async () => {
      const bom = new Uint8Array([0xef, 0xbb, 0xbf]);
      const bytes = concat(
        concat(utf8.encode(line({ type: "ADDED", object: pod("a") })), bom),
        utf8.encode(line({ type: "ADDED", object: pod("b") }) + "x\n"),
      );
      const [whole, perLine] = await bothWays(bytes);
      assert.equal(whole, perLine);
      assert.deepEqual(JSON.parse(whole!).events.map(name), ["a", "b"]);
    });
  });

  describe("malformed input", () => {
    test("a line that is not JSON throws WatchDecodeError naming the line and showing its start", async () => {
      const good = line({ type: "ADDED", object: pod("a") });
      const bad = '{"type":"MODIFIED","object":{"metadata":{"name":"a"}' + "x".repeat(300) + "\n";
      const src = source([good + "\n" + bad + good]);
      const { events, error } = await collectUntilError(decodeWatchStream(src.stream));
      assert.deepEqual(events.map((e) => e.type), ["ADDED"]);
      assert.ok(error instanceof WatchDecodeError);
      assert.equal(error.name, "WatchDecodeError");
      assert.equal(error.reason, "malformed-json");
      assert.equal(error.lineNumber, 3);
      assert.equal(error.byteOffset, utf8.encode(good).length + 1);
      assert.equal(error.snippet, bad.slice(0, 120));
      assert.ok(error.cause instanceof SyntaxError);
      assert.match(error.message, /^line 3 \(byte \d+\) of the watch stream is not valid JSON/);
      assert.ok(error.message.includes(JSON.stringify(bad.slice(0, 120))));
      assert.deepEqual(src.cancelled, [error]);
    });

    test("a one-character line is reported too, not skipped", async () => {
      const body = line({ type: "ADDED", object: pod("a") }) + "x\n";
      const { events, error } = await collectUntilError(decodeWatchStream(source([body]).stream));
      assert.equal(events.length, 1);
      assert.ok(error instanceof WatchDecodeError);
      assert.equal(error.reason, "malformed-json");
      assert.equal(error.lineNumber, 2);
      assert.equal(error.snippet, "x");
    });

    test("a bad line with characters above U+00FF is quoted as it came, not escaped", async () => {
      for (
        const bad of ['{"type":"ADDED","object":{"metadata":{"name":"日本–"}},}', '{"a":"\\–"}']
      ) {
        const first = line({ type: "ADDED", object: pod("日本語-🚀") });
        // One chunk (its lines decoded as one run), and one line a chunk.
        for (const chunks of [[first + bad + "\n"], [first, bad + "\n"]]) {
          const { events, error } = await collectUntilError(
            decodeWatchStream(source(chunks).stream),
          );
          assert.equal(events.length, 1);
          assert.equal(events[0]!.object.metadata.name, "日本語-🚀");
          assert.ok(error instanceof WatchDecodeError);
          assert.equal(error.reason, "malformed-json");
          assert.equal(error.snippet, bad);
          assert.equal(error.lineNumber, 2);
          assert.equal(error.byteOffset, utf8.encode(first).length);
        }
      }
    });

    test("a snippet never ends in half of a surrogate pair", async () => {
      const bad = "x".repeat(119) + "🚀" + "\n";
      const { error } = await collectUntilError(decodeWatchStream(source([bad]).stream));
      assert.ok(error instanceof WatchDecodeError);
      assert.equal(error.snippet, "x".repeat(119));
    });

    test("valid JSON that is not a watch event throws kind not-an-event", async () => {
      const cases: [unknown, RegExp][] = [
        [[1, 2], /expected a JSON object/],
        [{ object: pod("a") }, /"type" is missing/],
        [{ type: "ADDED" }, /"object" is missing/],
        [{ type: "ADDED", object: "pod" }, /"object" is missing or not an object/],
        [{ type: "ADDED", object: { kind: "Pod" } }, /"object.metadata" is missing/],
        [{ type: "BOOKMARK", object: { metadata: {} } }, /resourceVersion/],
        [{ type: "SYNC", object: pod("a") }, /unknown type "SYNC"/],
        [{ kind: "Status", code: 500 }, /"type" is missing/],
      ];
      for (const [value, detail] of cases) {
        const { error } = await collectUntilError(decodeWatchStream(source([line(value)]).stream));
        assert.ok(error instanceof WatchDecodeError, JSON.stringify(value));
        assert.equal(error.reason, "not-an-event");
        assert.equal(error.lineNumber, 1);
        assert.match(error.message, detail);
      }
    });

    test("an HTML page (a proxy's error page) throws kind html with a message saying so", async () => {
      const page = "  <!DOCTYPE html>\n<html><head><title>502 Bad Gateway</title></head></html>\n";
      const src = source([page]);
      const { events, error } = await collectUntilError(decodeWatchStream(src.stream));
      assert.deepEqual(events, []);
      assert.ok(error instanceof WatchDecodeError);
      assert.equal(error.reason, "html");
      assert.equal(error.lineNumber, 1);
      assert.equal(error.snippet, "  <!DOCTYPE html>");
      assert.match(error.message, /HTML page/);
      assert.equal(src.cancelled.length, 1);
    });

    test("an HTML page without a final newline is still reported as html", async () => {
      const { error } = await collectUntilError(
        decodeWatchStream(source(["<html><body>Forbidden</body></html>"]).stream),
      );
      assert.ok(error instanceof WatchDecodeError);
      assert.equal(error.reason, "html");
    });

    test("a stream that ends in the middle of an event throws kind truncated after the complete events", async () => {
      const good = line({ type: "ADDED", object: pod("a") });
      const cutOff = JSON.stringify({ type: "MODIFIED", object: pod("a", "2") }).slice(0, 40);
      const { events, error } = await collectUntilError(
        decodeWatchStream(source([good, good + cutOff]).stream),
      );
      assert.equal(events.length, 2);
      assert.ok(error instanceof WatchDecodeError);
      assert.equal(error.reason, "truncated");
      assert.equal(error.lineNumber, 3);
      assert.equal(error.byteOffset, 2 * utf8.encode(good).length);
      assert.equal(error.snippet, cutOff);
      assert.match(error.message, /ended in the middle of line 3/);
    });

    test("a line longer than maxLineLength throws LineTooLongError and cancels the body", async () => {
      const small = line({ type: "ADDED", object: pod("a") });
      const big = line({ type: "ADDED", object: { ...pod("b"), data: "x".repeat(500) } });
      const src = source([small + big.slice(0, 100), big.slice(100, 300), big.slice(300)]);
      const { events, error } = await collectUntilError(
        decodeWatchStream(src.stream, { maxLineLength: 256 }),
      );
      assert.deepEqual(events.map(name), ["a"]);
      assert.ok(error instanceof LineTooLongError);
      assert.equal(error.limit, 256);
      assert.equal(error.lineNumber, 2);
      assert.equal(src.pulls(), 2, "stopped reading at the chunk that passed the limit");
      assert.deepEqual(src.cancelled, [error]);
    });

    test("rejects an invalid maxLineLength with a RangeError naming the option", () => {
      assert.throws(
        () => decodeWatchStream(source([]).stream, { maxLineLength: 0 }),
        (err) => err instanceof RangeError && /maxLineLength/.test(err.message),
      );
    });
  });

  describe("ERROR events", () => {
    test("a 410 Expired ERROR throws a KubeApiError that isExpired, after the earlier events", async () => {
      const body = line({ type: "ADDED", object: pod("a") }) + PODS_WATCH_EXPIRED;
      const src = source([body]);
      const { events, error } = await collectUntilError(decodeWatchStream(src.stream));
      assert.equal(events.length, 1);
      assert.ok(error instanceof KubeApiError);
      assert.equal(error.code, 410);
      assert.equal(error.reason, "Expired");
      assert.equal(error.isExpired, true);
      assert.equal(error.status?.message, "too old resource version: 48102 (48377)");
      assert.deepEqual(src.cancelled, [error]);
    });

    test("a 410 Gone ERROR (servers up to 1.17) throws a KubeApiError that isExpired", async () => {
      const status = {
        kind: "Status",
        apiVersion: "v1",
        status: "Failure",
        code: 410,
        reason: "Gone",
      };
      const { error } = await collectUntilError(
        decodeWatchStream(source([line({ type: "ERROR", object: status })]).stream),
      );
      assert.ok(error instanceof KubeApiError);
      assert.equal(error.reason, "Gone");
      assert.equal(error.isExpired, true);
    });

    test("a 500 ERROR throws a KubeApiError with code 500 that is not expired", async () => {
      const status = {
        kind: "Status",
        apiVersion: "v1",
        status: "Failure",
        code: 500,
        reason: "InternalError",
        message: 'an error on the server ("etcd leader changed") has prevented the request',
      };
      const { error } = await collectUntilError(
        decodeWatchStream(source([line({ type: "ERROR", object: status })]).stream),
      );
      assert.ok(error instanceof KubeApiError);
      assert.equal(error.code, 500);
      assert.equal(error.reason, "InternalError");
      assert.equal(error.isExpired, false);
      assert.match(error.message, /etcd leader changed/);
    });
  });

  describe("BOOKMARK events", () => {
    test("carry resourceVersion and initialEventsEnd, and the object as sent", async () => {
      const body = line({ type: "BOOKMARK", object: bookmark("10", true) }) +
        line({ type: "BOOKMARK", object: bookmark("11") });
      const events = await collect(decodeWatchStream(source([body]).stream));
      assert.deepEqual(events, [
        {
          type: "BOOKMARK",
          object: bookmark("10", true),
          resourceVersion: "10",
          initialEventsEnd: true,
        },
        {
          type: "BOOKMARK",
          object: bookmark("11"),
          resourceVersion: "11",
          initialEventsEnd: false,
        },
      ]);
    });

    test('an initial-events-end annotation other than "true" does not end the initial events', async () => {
      const object = {
        ...bookmark("12"),
        metadata: { resourceVersion: "12", annotations: { "k8s.io/initial-events-end": "false" } },
      };
      const [event] = await collect(
        decodeWatchStream(source([line({ type: "BOOKMARK", object })]).stream),
      );
      assert.ok(event?.type === "BOOKMARK");
      assert.equal(event.initialEventsEnd, false);
    });
  });

  describe("releasing the body", () => {
    test("break in for-await cancels the body and releases its lock", async () => {
      const src = source([FIXTURE, FIXTURE]);
      let seen = 0;
      for await (const _event of decodeWatchStream(src.stream)) {
        if (++seen === 2) break;
      }
      assert.deepEqual(src.cancelled, [undefined]);
      assert.equal(src.stream.locked, false);
      assert.equal(src.pulls(), 1);
    });

    test("return() before the first next() cancels the body too", async () => {
      const src = source([FIXTURE]);
      const iterator = decodeWatchStream(src.stream);
      assert.deepEqual(await iterator.return?.(), { done: true, value: undefined });
      assert.deepEqual(src.cancelled, [undefined]);
      assert.deepEqual(await iterator.next(), { done: true, value: undefined });
    });

    test("the end of the body releases the lock, and later next() calls stay done", async () => {
      const src = source([line({ type: "ADDED", object: pod("a") })]);
      const iterator = decodeWatchStream(src.stream);
      assert.equal((await iterator.next()).done, false);
      assert.deepEqual(await iterator.next(), { done: true, value: undefined });
      assert.equal(src.stream.locked, false);
      assert.deepEqual(await iterator.next(), { done: true, value: undefined });
    });

    test("a failed stream is not read again: next() after the error is done", async () => {
      const src = source(["not json\n", line({ type: "ADDED", object: pod("a") })]);
      const iterator = decodeWatchStream(src.stream);
      await assert.rejects(iterator.next(), WatchDecodeError);
      assert.deepEqual(await iterator.next(), { done: true, value: undefined });
      assert.equal(src.pulls(), 1);
      assert.equal(src.stream.locked, false);
    });

    test("an error from the body itself is rethrown as is, after the events already read", async () => {
      const failure = new TypeError("connection reset");
      const src = source([line({ type: "ADDED", object: pod("a") })], { error: failure });
      const { events, error } = await collectUntilError(decodeWatchStream(src.stream));
      assert.equal(events.length, 1);
      assert.equal(error, failure);
      assert.equal(src.stream.locked, false);
    });

    test("a missing body or a bad signal is refused at once with a TypeError", () => {
      const noBody = null as unknown as ReadableStream<Uint8Array>;
      assert.throws(
        () => decodeWatchStream(noBody),
        /body must be a ReadableStream or an AsyncIterable of Uint8Array, got null/,
      );
      const signal = { aborted: "no" } as unknown as AbortSignal;
      assert.throws(
        () => decodeWatchStream(source([]).stream, { signal }),
        /signal must be an AbortSignal/,
      );
    });

    test("a body of text chunks instead of bytes fails with a TypeError and is cancelled", async () => {
      const src = source([]);
      const text = new ReadableStream<string>({
        pull: (controller) => controller.enqueue("{}\n"),
        cancel: (reason) => void src.cancelled.push(reason),
      });
      const iterator = decodeWatchStream(text as unknown as ReadableStream<Uint8Array>);
      await assert.rejects(iterator.next(), /must be Uint8Array bytes, got string/);
      assert.equal(src.cancelled.length, 1);
    });

    test("a body that is already locked is refused at once", () => {
      const src = source([]);
      const reader = src.stream.getReader();
      try {
        assert.throws(() => decodeWatchStream(src.stream), TypeError);
      } finally {
        reader.releaseLock();
      }
    });
  });

  describe("abort signal", () => {
    test("aborting while a read is pending rejects with the reason and cancels the body", async () => {
      const src = silentSource();
      const controller = new AbortController();
      const iterator = decodeWatchStream(src.stream, { signal: controller.signal });
      const pending = iterator.next();
      const reason = new Error("informer stopped");
      controller.abort(reason);
      await assert.rejects(pending, (err) => err === reason);
      assert.deepEqual(src.cancelled, [reason]);
      assert.equal(src.stream.locked, false);
      assert.deepEqual(await iterator.next(), { done: true, value: undefined });
    });

    test("aborting between events rejects the next call instead of delivering queued events", async () => {
      const controller = new AbortController();
      const src = source([FIXTURE]);
      const iterator = decodeWatchStream(src.stream, { signal: controller.signal });
      assert.equal((await iterator.next()).done, false);
      controller.abort();
      await assert.rejects(iterator.next(), (err) => err === controller.signal.reason);
      assert.equal(src.cancelled.length, 1);
    });

    test("an already aborted signal cancels the body and rejects the first call", async () => {
      const src = source([FIXTURE]);
      const reason = new Error("too late");
      const iterator = decodeWatchStream(src.stream, { signal: AbortSignal.abort(reason) });
      assert.deepEqual(src.cancelled, [reason]);
      await assert.rejects(iterator.next(), (err) => err === reason);
      assert.equal(src.pulls(), 0);
    });

    test("the abort listener is removed on every exit", async () => {
      const exits: [string, (iterator: AsyncIterableIterator<WatchEvent>) => Promise<unknown>][] = [
        ["end", (it) => collect(it)],
        ["error", (it) => assert.rejects(collect(it))],
        ["return", (it) => it.next().then(() => it.return?.())],
      ];
      for (const [exit, run] of exits) {
        const signal = new AbortController().signal;
        let listeners = 0;
        const add = signal.addEventListener.bind(signal);
        const remove = signal.removeEventListener.bind(signal);
        signal.addEventListener = (...args: Parameters<typeof add>) => {
          listeners++;
          add(...args);
        };
        signal.removeEventListener = (...args: Parameters<typeof remove>) => {
          listeners--;
          remove(...args);
        };
        const body = exit === "error" ? "{" : line({ type: "ADDED", object: pod("a") });
        const iterator = decodeWatchStream(source([body, body]).stream, { signal });
        assert.equal(listeners, 1, exit);
        await run(iterator);
        assert.equal(listeners, 0, exit);
      }
    });
  });

  describe("an AsyncIterable body", () => {
    /** An iterable that yields `chunks`, then waits (or ends), recording `return()` calls. */
    function recordingIterable(chunks: readonly Uint8Array[], options: { end?: boolean } = {}) {
      const returned: unknown[] = [];
      let pending: ((result: IteratorResult<Uint8Array>) => void) | undefined;
      let next = 0;
      const body: AsyncIterable<Uint8Array> = {
        [Symbol.asyncIterator]: () => ({
          next: () => {
            if (next < chunks.length) {
              return Promise.resolve({ done: false, value: chunks[next++]! });
            }
            if (options.end === true) return Promise.resolve({ done: true, value: undefined });
            return new Promise<IteratorResult<Uint8Array>>((resolve) => (pending = resolve));
          },
          return: (reason?: unknown) => {
            returned.push(reason);
            pending?.({ done: true, value: undefined });
            return Promise.resolve({ done: true, value: undefined });
          },
        }),
      };
      return { body, returned };
    }

    test("break in for-await calls the iterator's return() once", async () => {
      const { body, returned } = recordingIterable([FIXTURE, FIXTURE]);
      let seen = 0;
      for await (const _event of decodeWatchStream(body)) {
        if (++seen === 2) break;
      }
      assert.deepEqual(returned, [undefined]);
    });

    test("the end of the iterable ends the events without calling return()", async () => {
      const { body, returned } = recordingIterable([FIXTURE], { end: true });
      assert.deepEqual(await collect(decodeWatchStream(body)), EXPECTED_FIXTURE);
      assert.deepEqual(returned, []);
    });

    test("aborting while a next() is pending rejects with the reason and calls return(reason)", async () => {
      const { body, returned } = recordingIterable([]);
      const controller = new AbortController();
      const iterator = decodeWatchStream(body, { signal: controller.signal });
      const pending = iterator.next();
      const reason = new Error("informer stopped");
      controller.abort(reason);
      await assert.rejects(pending, (err) => err === reason);
      assert.deepEqual(returned, [reason]);
      assert.deepEqual(await iterator.next(), { done: true, value: undefined });
    });

    test("an async generator that cannot be interrupted still lets an abort through at once", async () => {
      let finished = false;
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      async function* stuck(): AsyncGenerator<Uint8Array> {
        try {
          await gate; // a source that ignores return() while it waits
          yield FIXTURE;
        } finally {
          finished = true;
        }
      }
      const controller = new AbortController();
      const iterator = decodeWatchStream(stuck(), { signal: controller.signal });
      const pending = iterator.next();
      controller.abort(new Error("stop"));
      await assert.rejects(pending, /stop/);
      release(); // the generator then runs its queued return() and finishes
      await new Promise((resolve) => setTimeout(resolve, 0));
      assert.equal(finished, true);
    });

    test("an error from the iterable is rethrown as is, after the events already read", async () => {
      const failure = new Error("socket hang up");
      async function* failing(): AsyncGenerator<Uint8Array> {
        yield utf8.encode(line({ type: "ADDED", object: pod("a") }));
        throw failure;
      }
      const { events, error } = await collectUntilError(decodeWatchStream(failing()));
      assert.equal(events.length, 1);
      assert.equal(error, failure);
    });
  });

  test("concurrent next() calls are answered in order", async () => {
    const body = [1, 2, 3].map((i) => line({ type: "ADDED", object: pod(`p${i}`) }));
    const iterator = decodeWatchStream(source(body).stream);
    const results = await Promise.all([1, 2, 3, 4].map(() => iterator.next()));
    assert.deepEqual(results.map((r) => (r.done ? "done" : name(r.value))), [
      "p1",
      "p2",
      "p3",
      "done",
    ]);
  });
});

describe("WatchDecoderStream", () => {
  async function readAll(stream: ReadableStream<WatchEvent>): Promise<WatchEvent[]> {
    const reader = stream.getReader();
    const events: WatchEvent[] = [];
    try {
      for (let r = await reader.read(); !r.done; r = await reader.read()) events.push(r.value);
    } finally {
      reader.releaseLock();
    }
    return events;
  }

  test("decodes the recorded watch split at sampled positions, like decodeWatchStream", async () => {
    for (let cut = 0; cut <= FIXTURE.length; cut += 97) {
      const body = queued([FIXTURE.subarray(0, cut), FIXTURE.subarray(cut)]);
      const events = await readAll(body.pipeThrough(new WatchDecoderStream()));
      assert.equal(JSON.stringify(events), EXPECTED_FIXTURE_JSON, `cut at byte ${cut}`);
    }
  });

  test("delivers a final event that lacks its newline", async () => {
    const body = queued([utf8.encode(JSON.stringify({ type: "ADDED", object: pod("a") }))]);
    assert.deepEqual((await readAll(body.pipeThrough(new WatchDecoderStream()))).map(name), ["a"]);
  });

  test("errors the stream with a KubeApiError on an ERROR event", async () => {
    const body = queued([utf8.encode(PODS_WATCH_EXPIRED)]);
    await assert.rejects(
      readAll(body.pipeThrough(new WatchDecoderStream())),
      (err) => err instanceof KubeApiError && err.isExpired,
    );
  });

  test("errors the stream with kind truncated when the body ends mid-event", async () => {
    const body = queued([FIXTURE.subarray(0, 100)]);
    await assert.rejects(
      readAll(body.pipeThrough(new WatchDecoderStream())),
      (err) => err instanceof WatchDecodeError && err.reason === "truncated",
    );
  });

  test("rejects an invalid maxLineLength with a RangeError naming the option", () => {
    assert.throws(() => new WatchDecoderStream({ maxLineLength: -1 }), /maxLineLength/);
  });
});
