/**
 * The error raised when a watch body is not the newline-delimited JSON event stream it should be.
 * @module
 */
import type { ErrorKind } from "../util/error_kind.ts";
import { truncate } from "../util/values.ts";

/** How many characters of the offending line {@linkcode WatchDecodeError.snippet} keeps. */
const SNIPPET_LENGTH = 120;

/**
 * What was wrong with the line:
 * - `malformed-json`: the line is not valid JSON;
 * - `not-an-event`: valid JSON, but not `{"type": <known type>, "object": {...}}`;
 * - `html`: an HTML page (a proxy or load balancer answered instead of the API server);
 * - `truncated`: the stream ended in the middle of a line.
 */
export type WatchDecodeReason = "malformed-json" | "not-an-event" | "html" | "truncated";

/** Constructor options of {@linkcode WatchDecodeError}. */
export interface WatchDecodeErrorOptions {
  /** What was wrong. */
  reason: WatchDecodeReason;
  /** 1-based number of the offending line in the stream. */
  lineNumber: number;
  /** Stream offset of the offending line's first byte. */
  byteOffset: number;
  /** Text of the offending line; the error keeps its first 120 characters. */
  line: string;
  /** Specifics appended to the message, e.g. the JSON parser's complaint. */
  detail?: string;
  /** Underlying error, e.g. the `SyntaxError` from `JSON.parse`. */
  cause?: unknown;
}

/**
 * A watch body line that could not be decoded into an event. The message names the line, its
 * byte offset and shows its start.
 *
 * @example
 * ```ts
 * import { decodeWatchStream, WatchDecodeError } from "@kinformer/kinformer/watch";
 * import assert from "node:assert/strict";
 * const body = new Response('{"type":"ADDED","object":{"metadata":{}}}\n{"type":\n').body!;
 * const types: string[] = [];
 * const watching = async () => {
 *   for await (const event of decodeWatchStream(body)) types.push(event.type);
 * };
 * await assert.rejects(watching(), (err) => {
 *   assert.ok(err instanceof WatchDecodeError);
 *   assert.equal(err.kind, "decode");
 *   assert.equal(err.reason, "malformed-json");
 *   assert.equal(err.lineNumber, 2);
 *   assert.equal(err.snippet, '{"type":');
 *   return true;
 * });
 * assert.deepEqual(types, ["ADDED"]); // the event before the bad line was delivered
 * ```
 */
export class WatchDecodeError extends Error {
  /** Always `"WatchDecodeError"`. */
  override name = "WatchDecodeError";
  /** Always `"decode"`. */
  readonly kind: ErrorKind = "decode";
  /** What was wrong. */
  readonly reason: WatchDecodeReason;
  /** 1-based number of the offending line in the stream (empty lines count). */
  readonly lineNumber: number;
  /** Stream offset of the offending line's first byte. */
  readonly byteOffset: number;
  /** The first 120 characters of the offending line. */
  readonly snippet: string;

  /** Builds the error; the message is derived from the options. */
  constructor(options: WatchDecodeErrorOptions) {
    const { lineNumber, byteOffset, detail } = options;
    const reason = options.reason;
    const snippet = truncate(options.line, SNIPPET_LENGTH);
    const shown = JSON.stringify(snippet) + (snippet.length < options.line.length ? "..." : "");
    const where = `line ${lineNumber} (byte ${byteOffset})`;
    let what: string;
    switch (reason) {
      case "malformed-json":
        what = `${where} of the watch stream is not valid JSON`;
        break;
      case "not-an-event":
        what = `${where} of the watch stream is not a watch event`;
        break;
      case "html":
        what = `${where} of the watch stream is an HTML page, not a watch event ` +
          `(a proxy or load balancer probably answered instead of the Kubernetes API server)`;
        break;
      case "truncated":
        what = `the watch stream ended in the middle of ${where}`;
        break;
    }
    super(
      `${what}${detail ? ` (${detail})` : ""}: ${shown}`,
      options.cause === undefined ? undefined : { cause: options.cause },
    );
    this.reason = reason;
    this.lineNumber = lineNumber;
    this.byteOffset = byteOffset;
    this.snippet = snippet;
  }
}
