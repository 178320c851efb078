/**
 * A push-based splitter that turns a byte stream into newline-terminated lines without
 * decoding text: bytes in, byte lines out.
 * @module
 */
import type { ErrorKind } from "../util/error_kind.ts";
import { checkNumber } from "../util/validate.ts";

const LF = 0x0a;
const CR = 0x0d;

/** Default {@linkcode LineSplitterOptions.maxLineLength}: 16 MiB. */
const DEFAULT_MAX_LINE_LENGTH = 16 * 1024 * 1024;

/** Options of {@linkcode LineSplitter}. */
export interface LineSplitterOptions {
  /**
   * Longest line accepted, in bytes, not counting the line ending. A longer line throws a
   * {@linkcode LineTooLongError} as soon as the limit is passed, so memory stays bounded even
   * when a newline never comes. Must be a positive integer.
   * @default {16777216} (16 MiB)
   */
  maxLineLength?: number;
}

/** Receives one line: its bytes (without `\n` / `\r\n`), 1-based line number and byte offset. */
export type LineHandler = (line: Uint8Array, lineNumber: number, byteOffset: number) => void;

/**
 * Offered a run of whole lines at once: the bytes from the start of a line to the chunk's last
 * `\n` (excluded), so the lines are separated by `\n` and may end in `\r`, and may be empty;
 * with the 1-based number and the byte offset of its first line. Returns how many lines it took:
 * all of them (the number of `\n` in the run plus one), or 0 to have them cut and handed to the
 * {@linkcode LineHandler} one by one instead.
 */
export type RunHandler = (run: Uint8Array, lineNumber: number, byteOffset: number) => number;

/** Constructor options of {@linkcode LineTooLongError}. */
export interface LineTooLongErrorOptions {
  /** The configured limit in bytes. */
  limit: number;
  /** 1-based number of the offending line. */
  lineNumber: number;
  /** Stream offset of the offending line's first byte. */
  byteOffset: number;
}

/**
 * A watch line grew past `maxLineLength` (an option of the decoder, the informer and
 * `watcher()`). The bytes held for that line are already dropped.
 *
 * @example
 * ```ts
 * import { decodeWatchStream, LineTooLongError } from "@kinformer/kinformer/watch";
 * import assert from "node:assert/strict";
 * const body = new Response(`{"type":"ADDED","object":{"metadata":{"name":"${"x".repeat(64)}"}}}\n`).body!;
 * await assert.rejects(async () => {
 *   for await (const _ of decodeWatchStream(body, { maxLineLength: 16 })) assert.fail("no event");
 * }, (err) => {
 *   assert.ok(err instanceof LineTooLongError);
 *   assert.equal(err.limit, 16);
 *   assert.equal(err.lineNumber, 1);
 *   assert.equal(err.byteOffset, 0);
 *   return true;
 * });
 * ```
 */
export class LineTooLongError extends Error {
  /** Always `"LineTooLongError"`. */
  override name = "LineTooLongError";
  /** Always `"decode"`. */
  readonly kind: ErrorKind = "decode";
  /** The configured limit in bytes. */
  readonly limit: number;
  /** 1-based number of the offending line. */
  readonly lineNumber: number;
  /** Stream offset of the offending line's first byte. */
  readonly byteOffset: number;

  /** Builds the error for the line at `lineNumber` that exceeded `limit`. */
  constructor(options: LineTooLongErrorOptions) {
    super(
      `line ${options.lineNumber} (byte ${options.byteOffset}) is longer than the limit of ` +
        `${options.limit} bytes (maxLineLength)`,
    );
    this.limit = options.limit;
    this.lineNumber = options.lineNumber;
    this.byteOffset = options.byteOffset;
  }
}

/**
 * Splits bytes on `\n` (0x0A). A trailing `\r` is removed from each line (also when `\r` and
 * `\n` arrive in different chunks) and empty lines are skipped, though they still count for
 * line numbers. Bytes are never decoded, so a multi-byte UTF-8 character cut by a chunk boundary
 * is whole again in the line.
 *
 * A line that lies inside one chunk is handed over as a `subarray` view of that chunk, without
 * copying. A line spanning chunks is kept as a list of views and joined once, when its newline
 * arrives. Hence chunks must not be modified after they are pushed (chunks from a Web
 * `ReadableStream` never are).
 *
 * When a line passes `maxLineLength`, the push throws a {@linkcode LineTooLongError}; lines
 * after it in that same chunk are not delivered. The bytes of the oversized line are dropped,
 * and the rest of it (up to its newline) is skipped by later pushes.
 */
export class LineSplitter {
  readonly #maxLineLength: number;
  /** Views of the current incomplete line, in order. */
  #fragments: Uint8Array[] = [];
  /** Sum of the fragments' lengths. */
  #pendingLength = 0;
  /** Number of the line being assembled (1-based). */
  #lineNumber = 1;
  /** Stream offset where the line being assembled starts. */
  #lineOffset = 0;
  /** Stream offset of the first byte of the next chunk. */
  #streamOffset = 0;
  /** True after a LineTooLongError until the oversized line's newline has gone by. */
  #skipping = false;

  /** Creates a splitter; see {@linkcode LineSplitterOptions}. */
  constructor(options: LineSplitterOptions = {}) {
    const max = options.maxLineLength ?? DEFAULT_MAX_LINE_LENGTH;
    checkNumber(max, "maxLineLength", { min: 1, integer: true });
    this.#maxLineLength = max;
  }

  /** 1-based number of the line now being assembled (the next line to complete). */
  get lineNumber(): number {
    return this.#lineNumber;
  }

  /** Stream byte offset where the line now being assembled starts. */
  get lineOffset(): number {
    return this.#lineOffset;
  }

  /** Bytes held for the incomplete line. */
  get pendingLength(): number {
    return this.#pendingLength;
  }

  /**
   * Feeds a chunk and calls `onLine` synchronously for every line it completes.
   * Throws {@linkcode LineTooLongError} when a line exceeds the limit; an error thrown by
   * `onLine` propagates too, after the line it was given has been consumed.
   *
   * With `onRun`, the lines that lie whole inside the chunk, when there are two or more and
   * their bytes together are within `maxLineLength` (so none of them can be too long), are first
   * offered to `onRun` as one run; those it declines go to `onLine`. An error thrown by `onRun`
   * propagates with the whole run consumed.
   */
  push(chunk: Uint8Array, onLine: LineHandler, onRun?: RunHandler): void {
    const chunkOffset = this.#streamOffset;
    const length = chunk.length;
    let start = this.#enter(chunk);
    const max = this.#maxLineLength;
    let offer = onRun;
    while (start < length) {
      const newline = chunk.indexOf(LF, start);
      if (newline === -1) {
        this.#keep(chunk.subarray(start), chunkOffset + length);
        return;
      }
      if (offer !== undefined && this.#pendingLength === 0) {
        const run = offer;
        offer = undefined; // one offer per chunk
        const last = chunk.lastIndexOf(LF);
        if (last > newline && last - start <= max) {
          const lineNumber = this.#lineNumber;
          const lineOffset = this.#lineOffset;
          this.#lineOffset = chunkOffset + last + 1;
          const taken = run(chunk.subarray(start, last), lineNumber, lineOffset);
          if (taken > 0) {
            this.#lineNumber = lineNumber + taken;
            start = last + 1;
            continue;
          }
          this.#lineOffset = lineOffset;
        }
      }
      let line: Uint8Array;
      if (this.#pendingLength === 0) {
        line = chunk.subarray(start, newline);
      } else {
        line = this.#join(chunk, start, newline);
      }
      const lineNumber = this.#lineNumber;
      const lineOffset = this.#lineOffset;
      this.#lineNumber = lineNumber + 1;
      this.#lineOffset = chunkOffset + newline + 1;
      start = newline + 1;

      let end = line.length;
      if (end > 0 && line[end - 1] === CR) end--;
      if (end > max) throw this.#tooLong(lineNumber, lineOffset);
      if (end === 0) continue;
      onLine(end === line.length ? line : line.subarray(0, end), lineNumber, lineOffset);
    }
  }

  /**
   * Ends the stream: returns the bytes after the last newline (without a trailing `\r`), or
   * `undefined` when there are none, and resets the splitter for a new stream. Read
   * {@linkcode LineSplitter.lineNumber} and {@linkcode LineSplitter.lineOffset} first to locate
   * the returned bytes.
   */
  finish(): Uint8Array | undefined {
    const fragments = this.#fragments;
    const total = this.#pendingLength;
    this.reset();
    if (total === 0) return undefined;
    let rest: Uint8Array = fragments.length === 1 ? fragments[0]! : concat(fragments, total);
    if (rest[rest.length - 1] === CR) rest = rest.subarray(0, rest.length - 1);
    return rest.length === 0 ? undefined : rest;
  }

  /** Drops any partial line and restarts line numbers and offsets, as for a new stream. */
  reset(): void {
    this.#fragments = [];
    this.#pendingLength = 0;
    this.#lineNumber = 1;
    this.#lineOffset = 0;
    this.#streamOffset = 0;
    this.#skipping = false;
  }

  /**
   * Accounts for a new chunk and skips what is left of an oversized line; returns the index
   * where the chunk's next line starts (the chunk's length when the skip goes on).
   */
  #enter(chunk: Uint8Array): number {
    const chunkOffset = this.#streamOffset;
    this.#streamOffset = chunkOffset + chunk.length;
    if (!this.#skipping) return 0;
    const newline = chunk.indexOf(LF);
    if (newline === -1) return chunk.length;
    this.#skipping = false;
    this.#lineNumber++;
    this.#lineOffset = chunkOffset + newline + 1;
    return newline + 1;
  }

  #tooLong(lineNumber: number, byteOffset: number): LineTooLongError {
    return new LineTooLongError({ limit: this.#maxLineLength, lineNumber, byteOffset });
  }

  /** Holds `piece` (ending at stream offset `end`) as part of the incomplete line. */
  #keep(piece: Uint8Array, end: number): void {
    const pending = this.#pendingLength + piece.length;
    const max = this.#maxLineLength;
    // One byte of slack: a `\r` at the very end may be the first half of a `\r\n` ending.
    if (pending > max && !(pending === max + 1 && piece[piece.length - 1] === CR)) {
      const error = this.#tooLong(this.#lineNumber, this.#lineOffset);
      this.#fragments = [];
      this.#pendingLength = 0;
      this.#skipping = true;
      this.#lineOffset = end;
      throw error;
    }
    this.#fragments.push(piece);
    this.#pendingLength = pending;
  }

  /** Joins the held fragments with `chunk[start, newline)` into one fresh array. */
  #join(chunk: Uint8Array, start: number, newline: number): Uint8Array {
    const fragments = this.#fragments;
    fragments.push(chunk.subarray(start, newline));
    const line = concat(fragments, this.#pendingLength + newline - start);
    this.#fragments = [];
    this.#pendingLength = 0;
    return line;
  }
}

function concat(parts: readonly Uint8Array[], total: number): Uint8Array {
  const out = new Uint8Array(total);
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}
