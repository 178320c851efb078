/**
 * UTF-8 JSON bytes decoded to an ASCII string, one byte a character in every engine. Internal.
 *
 * V8 (Node, Deno, Chrome, Workers) keeps a string at one byte a character only while every
 * character is at most U+00FF, and JavaScriptCore (Bun) makes any non-ASCII text its
 * `TextDecoder` decodes 16-bit; `JSON.parse` of such a text makes every string value it holds
 * two-byte as well (on V8, the uid, name and IPs of a pod whose annotation has one en dash). In
 * valid JSON a non-ASCII character can only stand inside a string, where the escape `\uXXXX`
 * parses to the same text; so each one is rewritten as that escape before decoding, and only
 * the string values that hold such a character are two-byte after the parse. On a 50,000-pod
 * sync whose pods carry one en dash each, on Node 24: the settled cache 146 -> 124 MB, the
 * sync's allocation 715 -> 588 MB (the decoded text is half the size), decode + parse CPU
 * within 3% either way (the scan for non-ASCII bytes, 16 at a time, pays for itself).
 *
 * What stays as it is, so that a bad body fails exactly as before: a character after an odd
 * number of backslashes (escaping it would turn an invalid escape into a valid `\\`), and any
 * byte that does not start a well-formed UTF-8 sequence (the decoder replaces it as before).
 * @module
 */

const BACKSLASH = 0x5c;
/** The lowest lead byte of a well-formed UTF-8 sequence (C0 and C1 only start overlong ones). */
const MULTI_BYTE_LEAD = 0xc2;
const HEX = new TextEncoder().encode("0123456789abcdef");

/**
 * Decodes UTF-8 JSON text with its non-ASCII characters written as `\uXXXX` escapes (the same
 * JSON value, held one byte a character). For JSON only: the text of a bare string would
 * change. Internal.
 */
export class JsonTextDecoder {
  readonly #utf8 = new TextDecoder();
  #buffer = new Uint8Array(0);
  /**
   * Whether the last text had nothing to escape. Then the next is decoded first and its length
   * checked (as many characters as bytes: nothing to escape), which costs nothing; else its
   * bytes are scanned first, sparing a decode that would be thrown away.
   */
  #plain = true;

  /** The JSON text in `bytes` (as `TextDecoder` decodes them, but for the escapes). */
  decode(bytes: Uint8Array): string {
    if (this.#plain) {
      const text = this.#utf8.decode(bytes);
      // A well-formed multi-byte sequence decodes to fewer characters than its bytes (and a
      // malformed one to at most as many): equal lengths mean nothing to escape.
      if (text.length === bytes.length) return text;
    }
    const escaped = this.escape(bytes);
    this.#plain = escaped === bytes;
    return this.#utf8.decode(escaped);
  }

  /**
   * `bytes` when they hold no non-ASCII character; otherwise the escaped copy, a view of this
   * decoder's buffer valid until the next call.
   */
  escape(bytes: Uint8Array): Uint8Array {
    const n = bytes.length;
    const words = wordsOf(bytes);
    let i = nextNonAscii(bytes, words, 0);
    if (i === n) return bytes;
    // The output grows by at most two bytes a byte (two bytes become six, four become twelve),
    // so with the input copied to [2n, 3n) the output written from 0 never overtakes it: both
    // move with native copies inside one buffer.
    if (this.#buffer.length < 3 * n) this.#buffer = new Uint8Array(3 * n);
    const buffer = this.#buffer;
    const input = 2 * n;
    buffer.set(bytes, input);
    let o = 0;
    let copied = 0;
    while (i < n) {
      const length = sequenceLength(bytes, i);
      if (length > 0 && evenBackslashesBefore(bytes, i)) {
        buffer.copyWithin(o, input + copied, input + i);
        o = writeEscape(buffer, o + i - copied, codePoint(bytes, i, length));
        i += length;
        copied = i;
      } else {
        i++;
      }
      i = nextNonAscii(bytes, words, i);
    }
    if (copied === 0) return bytes;
    buffer.copyWithin(o, input + copied, input + n);
    return buffer.subarray(0, o + n - copied);
  }
}

/** A view of the 4-byte words inside `bytes` (from its first 4-aligned byte), or undefined. */
function wordsOf(bytes: Uint8Array): Int32Array | undefined {
  const start = (bytes.byteOffset + 3) & ~3;
  const count = (bytes.byteOffset + bytes.length - start) >> 2;
  return count > 0 ? new Int32Array(bytes.buffer, start, count) : undefined;
}

/** The high bit of each byte of a word (0x80808080 as an int32). */
const HIGH_BITS = 0x80808080 | 0;

/**
 * The index of the first byte at or after `from` that is not ASCII, or `bytes.length`. Sixteen
 * bytes at a time where `words` covers them (on Node 24 about 0.3 ns a byte, against 1.7 ns
 * for a loop over bytes).
 */
function nextNonAscii(bytes: Uint8Array, words: Int32Array | undefined, from: number): number {
  const n = bytes.length;
  let i = from;
  if (words !== undefined) {
    const base = ((bytes.byteOffset + 3) & ~3) - bytes.byteOffset; // where words[0] starts
    let w = i <= base ? 0 : (i - base + 3) >> 2;
    for (const head = Math.min(n, base + 4 * w); i < head; i++) {
      if (bytes[i]! >= 0x80) return i;
    }
    const count = words.length;
    for (; w < count; w += 4) {
      const high = w + 3 < count
        ? (words[w]! | words[w + 1]! | words[w + 2]! | words[w + 3]!) & HIGH_BITS
        : HIGH_BITS;
      if (high !== 0) {
        const end = Math.min(base + 4 * Math.min(w + 4, count), n);
        for (let k = base + 4 * w; k < end; k++) if (bytes[k]! >= 0x80) return k;
      }
    }
    i = Math.max(i, base + 4 * count);
  }
  for (; i < n; i++) if (bytes[i]! >= 0x80) return i;
  return n;
}

/** The length of the well-formed multi-byte UTF-8 sequence at `i`, or 0. */
function sequenceLength(b: Uint8Array, i: number): number {
  const lead = b[i]!;
  if (lead < MULTI_BYTE_LEAD || lead > 0xf4) return 0;
  const c1 = b[i + 1];
  if (c1 === undefined || (c1 & 0xc0) !== 0x80) return 0;
  if (lead < 0xe0) return 2;
  const c2 = b[i + 2];
  if (c2 === undefined || (c2 & 0xc0) !== 0x80) return 0;
  if (lead < 0xf0) {
    if (lead === 0xe0 && c1 < 0xa0) return 0; // overlong
    if (lead === 0xed && c1 > 0x9f) return 0; // a surrogate
    return 3;
  }
  const c3 = b[i + 3];
  if (c3 === undefined || (c3 & 0xc0) !== 0x80) return 0;
  if (lead === 0xf0 && c1 < 0x90) return 0; // overlong
  if (lead === 0xf4 && c1 > 0x8f) return 0; // above U+10FFFF
  return 4;
}

/** The code point of the well-formed sequence of `length` bytes at `i`. */
function codePoint(b: Uint8Array, i: number, length: number): number {
  if (length === 2) return ((b[i]! & 0x1f) << 6) | (b[i + 1]! & 0x3f);
  if (length === 3) return ((b[i]! & 0x0f) << 12) | ((b[i + 1]! & 0x3f) << 6) | (b[i + 2]! & 0x3f);
  return ((b[i]! & 0x07) << 18) | ((b[i + 1]! & 0x3f) << 12) | ((b[i + 2]! & 0x3f) << 6) |
    (b[i + 3]! & 0x3f);
}

/** Whether an even number of backslashes (none included) stands right before `i`. */
function evenBackslashesBefore(b: Uint8Array, i: number): boolean {
  let k = i;
  while (k > 0 && b[k - 1] === BACKSLASH) k--;
  return (i - k) % 2 === 0;
}

/** Writes `cp` as one `\uXXXX` escape, or a surrogate pair of them; returns the new end. */
function writeEscape(out: Uint8Array, o: number, cp: number): number {
  if (cp > 0xffff) {
    const v = cp - 0x10000;
    o = writeUnit(out, o, 0xd800 | (v >> 10));
    return writeUnit(out, o, 0xdc00 | (v & 0x3ff));
  }
  return writeUnit(out, o, cp);
}

function writeUnit(out: Uint8Array, o: number, unit: number): number {
  out[o] = BACKSLASH;
  out[o + 1] = 0x75; // u
  out[o + 2] = HEX[unit >> 12]!;
  out[o + 3] = HEX[(unit >> 8) & 0xf]!;
  out[o + 4] = HEX[(unit >> 4) & 0xf]!;
  out[o + 5] = HEX[unit & 0xf]!;
  return o + 6;
}
