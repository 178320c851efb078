/**
 * A LIST answer's body decoded item by item. Internal.
 *
 * A page of 500 pods is about 1.5 MB of JSON. Decoded whole it is one string over V8's
 * large-object threshold (about 128 KB), and such a string that is alive when the young
 * generation is collected (it is, while `JSON.parse` reads it) moves to the old generation at
 * once and stays there until the next full collection: on Node 24, 50k pods, the old
 * generation held about 40-60 MB of dead page strings at the sync's peak heap. Here the page's
 * chunks, as they arrived, are cut into items by a scanner (`ListScanner`, a resumable state
 * machine: where it is in the envelope, the nesting, an open string and a pending escape carry
 * over a chunk boundary), and the items are decoded and parsed in runs of at most 32 KB: every
 * temporary is a small young object, no page-sized string or array is ever made (an item that
 * straddles chunks is copied alone; Bun counts array buffers in its heap), and a page of
 * parsed objects is never needed at once.
 *
 * Following every byte in JavaScript cost about a quarter of parsing them (Node 24, pages of
 * 500 pods), so only the first items are: the bytes between two items (`},{"metadata":` as the
 * API server writes them) are learnt from them, and a run of items is then cut at the last
 * such separator before 32 KB (a search that skips most bytes) and parsed as one JSON array.
 * The parse checks the cut: an object ends where parsing it from its start ends, so the run
 * parses only when the cut falls right after an item; a separator inside an item (a nested
 * array of objects keyed alike) makes it fail, and that item is scanned byte by byte (after 4
 * such misses, the rest of the page). CPU per page of 500 pods in 64 KB chunks against
 * `JSON.parse` of the page's whole text (interleaved, median of rounds): Node 24 1.02-1.05x,
 * Bun 1.06-1.12x, Deno 1.16-1.23x, where following every byte cost 1.38-1.40x, 1.33-1.67x and
 * 1.44-1.52x (what is left is mostly garbage collection: the runs' text is young memory, a
 * page's whole text is not). Not with `known` (below): each item's bytes are read for its
 * identity anyway.
 *
 * An item whose `metadata` (uid and resourceVersion, read from the bytes) says the caller
 * holds it already is not decoded at all: a relist of an unchanged cluster parses nothing.
 *
 * Anything the scanner does not expect (not an object, `items` not an array of objects, a key
 * that needs escaping rules, a broken item, a cut body) sends the whole body down the plain
 * path: its chunks decoded as one text and parsed whole, so bad bodies fail exactly as a plain
 * `JSON.parse` makes them fail (the items handed to the reader before the scanner gave up are
 * handed again). An item taken as known is checked for balanced brackets and closed strings
 * only (it is not parsed).
 *
 * Decision: a page is scanned when its turn comes, from its chunks kept until then, not while
 * it arrives. The pager reads the next page while this one is still arriving, and the reader
 * (transform, cache sharing, `known`) must see the items in list order, page after page; a body
 * that fails mid-read must stay a network error, not a parse error; and the plain path needs
 * the whole body for its errors. The chunks are what the transport allocated anyway (one
 * copy of a page, garbage once it is decoded); what is gone is the page-sized joined copy
 * (and before it, the page-sized string). `ListScanner` takes chunks one by one (`push`,
 * `finish`), so it can be fed as they arrive where none of this holds.
 * @module
 */
import { isMetadataOnly, toPartialObjectMetadata } from "./metadata_only.ts";
import type { AnyResourceDescriptor } from "./resource.ts";
import { listOf, parseJsonObject } from "./response_body.ts";
import {
  BACKSLASH,
  BAILED,
  CLOSE_BRACE,
  CLOSE_BRACKET,
  COLON,
  COMMA,
  isDelimiter,
  isSpace,
  MAX_DEPTH,
  OPEN_BRACE,
  OPEN_BRACKET,
  parseSpan,
  QUOTE,
  type Scan,
} from "./_list_bytes.ts";
export type { ListItemIdentity } from "./_list_bytes.ts";
import type { ListItemIdentity } from "./_list_bytes.ts";
import { JsonTextDecoder } from "../util/json_text_decoder.ts";
import { ItemScanner } from "./list_item_scanner.ts";
import type { KubeList, KubeObjectLike } from "./types.ts";

/** A decoded list whose items are whatever its reader made of them. Internal. */
export type DecodedList<T> = Omit<KubeList<KubeObjectLike>, "items"> & { items: T[] };

/** How the items of a list body become what the caller keeps. Internal. */
export interface ListItemReader<T> {
  /** One decoded item as the caller keeps it; undefined drops it. */
  item(object: KubeObjectLike): T | undefined;
  /**
   * The object the caller already holds for an item of this identity, kept in place of
   * decoding it; undefined decodes it. Asked only for items whose metadata has a uid and a
   * resourceVersion.
   */
  known?: ((identity: ListItemIdentity) => T | undefined) | undefined;
}

/** What a body is decoded as, for its errors. */
export interface ListBodyContext {
  /** The request (`GET /api/v1/pods?limit=500`), for messages. */
  request: string;
  /** The request's path, for the non-array-items message. */
  path: string;
  /** The HTTP status, for messages. */
  status: number;
  resource: AnyResourceDescriptor;
}

/** Passes items through unchanged. */
const AS_IS: ListItemReader<KubeObjectLike> = { item: (object) => object };

/**
 * The list in `body` (its chunks as they arrived, or one array), its items through `reader`
 * (in order). Missing `items` or `metadata` become `[]` and `{}`; a body that is not JSON, or
 * not an object, is a `TypeError` (as `parseJsonObject` makes it), items that are not an array
 * too. A metadata-only resource's items are cut to their metadata before `reader` sees them.
 */
export function decodeListBody<T = KubeObjectLike>(
  body: Uint8Array | readonly Uint8Array[],
  context: ListBodyContext,
  reader: ListItemReader<T> = AS_IS as ListItemReader<T>,
): DecodedList<T> {
  const chunks = body instanceof Uint8Array ? [body] : body;
  const metadataOnly = isMetadataOnly(context.resource);
  const item = metadataOnly
    ? (object: KubeObjectLike) =>
      reader.item(
        typeof object === "object" && object !== null ? toPartialObjectMetadata(object) : object,
      )
    : reader.item;
  const scanner = new ListScanner<T>({ item, known: reader.known });
  for (const chunk of chunks) if (!scanner.push(chunk)) break;
  const scanned = scanner.finish();
  let list: DecodedList<T>;
  if (scanned !== undefined) {
    list = listOf(scanned, context.path) as unknown as DecodedList<T>;
  } else {
    // The plain path: one text, one parse, the errors of a plain parse.
    const raw = listOf(
      parseJsonObject(decodeText(chunks), context.request, context.status),
      context.path,
    );
    const items: T[] = [];
    for (const object of raw.items) {
      const out = item(object);
      if (out !== undefined) items.push(out);
    }
    list = raw as unknown as DecodedList<T>;
    list.items = items;
  }
  if (metadataOnly && list.kind !== "PartialObjectMetadataList") {
    // A server that ignored the metadata-only Accept sent whole objects: keep what was asked.
    list.kind = "PartialObjectMetadataList";
    list.apiVersion = "meta.k8s.io/v1";
  }
  return list;
}

/** The text of a body's chunks, decoded as `readText` decodes it. */
function decodeText(chunks: readonly Uint8Array[]): string {
  const decoder = new TextDecoder();
  const parts: string[] = [];
  for (const chunk of chunks) parts.push(decoder.decode(chunk, { stream: true }));
  parts.push(decoder.decode());
  return parts.join("");
}

// ------------------------------------------------------------------------------ the scanner

const BOM = [0xef, 0xbb, 0xbf];

// Where the envelope scanner is: each state names what the next significant byte must be.
/** Before the top-level `{` (a byte order mark and whitespace allowed). */
const START = 0;
/** After `{`: a key or `}`. */
const FIRST_KEY = 1;
/** After `,`: a key. */
const NEXT_KEY = 2;
/** Inside a top-level key. */
const IN_KEY = 3;
/** After a key: `:`. */
const COLON_NEXT = 4;
/** After `:`: a value. */
const VALUE_NEXT = 5;
/** Inside a top-level string, object or array value. */
const IN_VALUE = 6;
/** Inside a top-level number, `true`, `false` or `null`. */
const IN_SCALAR = 7;
/** After a top-level value: `,` or `}`. */
const AFTER_VALUE = 8;
/** After `"items": [`: an item or `]`. */
const FIRST_ITEM = 9;
/** After an item's `,`: an item. */
const NEXT_ITEM = 10;
/** Inside an item. */
const IN_ITEM = 11;
/** After an item: `,` or `]`. */
const AFTER_ITEM = 12;
/** After the top-level `}`: whitespace only. */
const END = 13;
/** An item begun in an earlier chunk, kept unread (`#pending`) until a separator shows. */
const PENDING_ITEM = 14;

/**
 * The most bytes of items parsed at once (unless one item is longer): the text stays a small
 * young string (a two-byte one at most 64 KB, under V8's large-object threshold). 16 KB and
 * 128 KB runs cost the same CPU on Node 24.
 */
const RUN_BYTES = 32 * 1024;
/** Runs that failed to parse (a separator inside an item) before a page stops trying them. */
const MAX_RUN_MISSES = 4;
/** Return of `#run`: the run did not parse, scan the item byte by byte. */
const NO_RUN = -1;
/** Return of `#run`: no separator before the chunk's end, keep the item for the next chunk. */
const RUN_PENDING = -2;

/**
 * The top-level object of a list body, read chunk by chunk as the bytes arrive (`push` each
 * chunk, then `finish`), its `items` handed to the reader one by one as each one's last byte
 * arrives. A resumable state machine: where it is in the envelope, and inside a value or an
 * item its nesting, whether it is inside a string and whether an escape is pending, carry over
 * a chunk boundary. A value or item that straddles chunks is copied alone (its pieces joined);
 * one inside a chunk is a view of it. `finish` gives undefined when the body was anything but
 * a well-formed object with at most one `items` array of objects (the plain path's case).
 */
export class ListScanner<T> {
  readonly #items: ItemScanner<T>;
  /** Whether the reader has `known` (items are then scanned for their identity). */
  readonly #known: boolean;
  readonly #decoder = new TextDecoder();
  /** Decodes runs and items one byte a character (see JsonTextDecoder). */
  readonly #json = new JsonTextDecoder();
  readonly #stack = new Uint8Array(MAX_DEPTH);
  readonly #out: Record<string, unknown> = {};
  #list: T[] | undefined;
  /** The reader's `item`, for the items of a run. */
  readonly #item: (object: KubeObjectLike) => T | undefined;
  /**
   * The bytes between two items (the first's closing brace through the second's first key and
   * its colon, e.g. `},{"metadata":`), learnt from the first two; then runs of items are cut
   * at its last occurrence and parsed at once (see `#run`). Undefined: not learnt yet.
   */
  #separator: Uint8Array | undefined;
  /** Shift tables of the separator's searches (backwards, forwards), by byte. */
  #back = new Uint8Array(256);
  #ahead = new Uint8Array(256);
  /** Whether runs are tried (not with `known`, which must look into every item). */
  #runs: boolean;
  #runMisses = 0;
  /** Set while a kept item is read byte by byte after all. */
  #replaying = false;
  /** An item begun near the last chunk's end (state `PENDING_ITEM`), from its `{`. */
  #pending: Uint8Array[] = [];
  /** Where the last item read in the current chunk ends (its `}`); -1: none. */
  #lastEnd = -1;
  /** Where a run's bytes are put between brackets to be decoded. */
  #scratch = new Uint8Array(0);
  #state = START;
  #bailed = false;
  /** How many bytes of a byte order mark were seen at the very start; 3: past it. */
  #bom = 0;
  /** Inside a value or item: nesting, in a string, an escape pending. */
  #depth = 0;
  #inString = false;
  #escape = false;
  /** The key whose value is being read. */
  #key = "";
  /** The pieces of the current key, value or item from earlier chunks. */
  #pieces: Uint8Array[] = [];
  /** Where the current key, value or item starts in the current chunk (0 when it began in an earlier one); -1: none. */
  #from = -1;

  constructor(reader: Scan<T>) {
    this.#items = new ItemScanner(reader, this.#json);
    this.#known = reader.known !== undefined;
    this.#item = reader.item;
    this.#runs = !this.#known;
  }

  /**
   * Reads the next chunk; false once the scanner gave up (the rest need not be pushed). An
   * error thrown by the reader's `item` or `known` is theirs and is thrown on.
   */
  push(b: Uint8Array): boolean {
    if (this.#bailed) return false;
    try {
      this.#push(b);
      return true;
    } catch (error) {
      if (error !== BAILED) throw error;
      this.#bailed = true;
      this.#pieces = [];
      this.#pending = [];
      return false;
    }
  }

  /** The list read, or undefined when the body needs the plain path (see the class). */
  finish(): Record<string, unknown> | undefined {
    if (!this.#bailed && this.#state === PENDING_ITEM) {
      try {
        this.#replay();
      } catch (error) {
        if (error !== BAILED) throw error;
        this.#bailed = true;
      }
    }
    if (this.#bailed || this.#state !== END) return undefined;
    return this.#out;
  }

  #push(b: Uint8Array): void {
    const n = b.length;
    let i = 0;
    // TextDecoder drops a UTF-8 byte order mark at the start: so does the plain path.
    while (this.#bom < 3 && i < n) {
      if (b[i] === BOM[this.#bom]) {
        this.#bom++;
        i++;
      } else if (this.#bom === 0) this.#bom = 3;
      else throw BAILED; // part of a mark: the plain path decodes and fails it
    }
    if (this.#state === PENDING_ITEM) i = this.#resume(b, i);
    else this.#lastEnd = -1;
    while (i < n) {
      const state = this.#state;
      if (state === IN_ITEM || state === IN_VALUE || state === IN_KEY) {
        const end = this.#composite(b, i);
        if (end < 0) break;
        const span = this.#span(b, end);
        i = end;
        if (state === IN_ITEM) {
          const out = this.#items.read(span);
          if (out !== undefined) this.#list!.push(out);
          this.#state = AFTER_ITEM;
          this.#lastEnd = end - 1;
        } else if (state === IN_VALUE) {
          this.#out[this.#key] = this.#parse(span);
          this.#state = AFTER_VALUE;
        } else {
          this.#key = this.#keyOf(span);
          this.#state = COLON_NEXT;
        }
        continue;
      }
      if (state === IN_SCALAR) {
        const start = i;
        while (i < n && !isDelimiter(b[i]!)) i++;
        if (i === n) break;
        if (i === start && this.#pieces.length === 0) throw BAILED;
        this.#out[this.#key] = this.#parse(this.#span(b, i));
        this.#state = AFTER_VALUE;
        continue; // the delimiter is read in AFTER_VALUE
      }
      const c = b[i]!;
      if (isSpace(c)) {
        i++;
        continue;
      }
      switch (state) {
        case START:
          if (c !== OPEN_BRACE) throw BAILED;
          this.#state = FIRST_KEY;
          break;
        case FIRST_KEY:
        case NEXT_KEY:
          if (c === CLOSE_BRACE && state === FIRST_KEY) this.#state = END;
          else if (c === QUOTE) {
            this.#begin(i);
            this.#state = IN_KEY;
            continue;
          } else throw BAILED;
          break;
        case COLON_NEXT:
          if (c !== COLON) throw BAILED;
          this.#state = VALUE_NEXT;
          break;
        case VALUE_NEXT: {
          const key = this.#key;
          if (key === "__proto__" || key === "items" && Object.hasOwn(this.#out, key)) {
            throw BAILED; // a key assignment would treat otherwise than JSON.parse; a second items
          }
          if (key === "items" && c === OPEN_BRACKET) {
            this.#list = [];
            this.#out.items = this.#list;
            this.#state = FIRST_ITEM;
            break;
          }
          if (c === QUOTE || c === OPEN_BRACE || c === OPEN_BRACKET) {
            this.#begin(i);
            this.#state = IN_VALUE;
            continue;
          }
          if (isDelimiter(c)) throw BAILED;
          this.#begin(i);
          this.#state = IN_SCALAR;
          continue;
        }
        case AFTER_VALUE:
          if (c === COMMA) this.#state = NEXT_KEY;
          else if (c === CLOSE_BRACE) this.#state = END;
          else throw BAILED;
          break;
        case FIRST_ITEM:
        case NEXT_ITEM:
          if (c === CLOSE_BRACKET && state === FIRST_ITEM) this.#state = AFTER_VALUE;
          else if (c === OPEN_BRACE) {
            if (this.#runs && !this.#replaying) {
              if (this.#separator === undefined) {
                if (this.#lastEnd >= 0) this.#learn(b, this.#lastEnd, i);
              } else {
                const end = this.#run(b, i);
                if (end >= 0) {
                  this.#state = AFTER_ITEM;
                  i = end;
                  continue;
                }
                if (end === RUN_PENDING) {
                  this.#pending.push(b.subarray(i));
                  this.#state = PENDING_ITEM;
                  return;
                }
              }
            }
            this.#begin(i);
            this.#state = IN_ITEM;
            // With `known`, an item inside this chunk is scanned once, its identity on the way.
            const end = this.#known ? this.#items.scan(b, i) : -1;
            if (end >= 0) {
              this.#from = -1;
              const out = this.#items.take(i, end);
              if (out !== undefined) this.#list!.push(out);
              this.#state = AFTER_ITEM;
              this.#lastEnd = end - 1;
              i = end;
            }
            continue;
          } else throw BAILED; // an item that is not an object: plain path
          break;
        case AFTER_ITEM:
          if (c === COMMA) this.#state = NEXT_ITEM;
          else if (c === CLOSE_BRACKET) this.#state = AFTER_VALUE;
          else throw BAILED;
          break;
        default: // END: only whitespace may follow the top-level object
          throw BAILED;
      }
      i++;
    }
    // A key, value or item goes on in the next chunk: keep its piece of this one.
    if (this.#from >= 0) {
      if (this.#from < n) this.#pieces.push(b.subarray(this.#from));
      this.#from = 0;
    }
  }

  // --------------------------------------------------------------------------- runs of items
  // See the module's doc: after the first items, runs of items are cut at the separator learnt
  // from them and parsed as one array; the parse checks the cut.

  /**
   * Learns the separator from the end of an item (`}` at `end`) and the item starting at
   * `start`: the bytes from that `}` through the first key of the next item and its colon.
   */
  #learn(b: Uint8Array, end: number, start: number): void {
    const n = b.length;
    let k = start + 1;
    while (k < n && isSpace(b[k]!)) k++;
    if (b[k] !== QUOTE) return;
    for (k++; k < n && b[k] !== QUOTE; k++) if (b[k] === BACKSLASH) return;
    for (k++; k < n && isSpace(b[k]!); k++);
    if (k >= n || b[k] !== COLON || k + 1 - end > 255) return;
    const separator = b.slice(end, k + 1);
    const m = separator.length;
    this.#back.fill(m);
    this.#ahead.fill(m);
    for (let j = m - 1; j >= 1; j--) this.#back[separator[j]!] = j;
    for (let j = 0; j < m - 1; j++) this.#ahead[separator[j]!] = m - 1 - j;
    this.#separator = separator;
  }

  /**
   * Reads a run of items starting at `i` (an item's `{`): up to the last separator before
   * `RUN_BYTES`, or, an item being longer, up to the first one after. Returns the index after
   * the run's last item, `RUN_PENDING` when no separator follows in `b` (the item goes on in
   * the next chunk, or is the last), or `NO_RUN` when the run does not parse (the item is
   * then scanned).
   */
  #run(b: Uint8Array, i: number): number {
    const n = b.length;
    const to = Math.min(n, i + RUN_BYTES);
    let at = this.#lastSeparator(b, i + 1, to);
    if (at < 0 && to < n) {
      at = this.#firstSeparator(b, Math.max(i + 1, to - this.#separator!.length + 1), n);
    }
    if (at < 0) return RUN_PENDING;
    if (!this.#parseRun(NONE, b.subarray(i, at + 1))) return NO_RUN;
    this.#lastEnd = at;
    return at + 1;
  }

  /**
   * Goes on with the item kept from earlier chunks: its run ends at the first separator of `b`
   * (from `i`); without one, `b` is kept too (an item longer than a chunk). When the run does
   * not parse, the kept bytes are read byte by byte after all (`#replay`). Returns where to go
   * on in `b`.
   */
  #resume(b: Uint8Array, i: number): number {
    const at = this.#firstSeparator(b, i, b.length);
    if (at < 0) {
      this.#pending.push(b.subarray(i));
      return b.length;
    }
    if (this.#parseRun(this.#pending, b.subarray(i, at + 1))) {
      this.#pending = [];
      this.#state = AFTER_ITEM;
      this.#lastEnd = at;
      return at + 1;
    }
    this.#replay();
    this.#lastEnd = -1;
    return i;
  }

  /** Reads the kept item (and whatever follows it in its chunks) byte by byte. */
  #replay(): void {
    const pending = this.#pending;
    this.#pending = [];
    this.#state = NEXT_ITEM; // at its `{`, where FIRST_ITEM reads the same
    this.#replaying = true;
    try {
      for (const piece of pending) this.#push(piece);
    } finally {
      this.#replaying = false;
    }
  }

  /**
   * Parses a run (items and the separators between them: the kept pieces, then `last`) as an
   * array and hands its items on; false when it does not parse. The bracketed bytes are put
   * together in a kept buffer and decoded at once: joining strings instead cost about 10% of
   * the parse on Node 24 (V8 flattens the joined string, a second copy of the text).
   */
  #parseRun(kept: readonly Uint8Array[], last: Uint8Array): boolean {
    let size = last.length + 2;
    for (const piece of kept) size += piece.length;
    if (this.#scratch.length < size) {
      this.#scratch = new Uint8Array(Math.max(size, RUN_BYTES + 2));
      this.#scratch[0] = OPEN_BRACKET;
    }
    const scratch = this.#scratch;
    let at = 1;
    for (const piece of kept) {
      scratch.set(piece, at);
      at += piece.length;
    }
    scratch.set(last, at);
    scratch[size - 1] = CLOSE_BRACKET;
    let items: unknown[];
    try {
      items = JSON.parse(this.#json.decode(scratch.subarray(0, size))) as unknown[];
    } catch {
      if (++this.#runMisses === MAX_RUN_MISSES) this.#runs = false;
      return false;
    }
    const list = this.#list!;
    const item = this.#item;
    for (let k = 0; k < items.length; k++) {
      const out = item(items[k] as KubeObjectLike);
      if (out !== undefined) list.push(out);
    }
    return true;
  }

  /** Where the last separator wholly inside `[from, to)` of `b` starts, or -1 (Horspool). */
  #lastSeparator(b: Uint8Array, from: number, to: number): number {
    const separator = this.#separator!;
    const m = separator.length;
    const first = separator[0];
    const shift = this.#back;
    for (let a = to - m; a >= from;) {
      const c = b[a]!;
      if (c === first) {
        let k = 1;
        while (k < m && b[a + k] === separator[k]) k++;
        if (k === m) return a;
      }
      a -= shift[c]!;
    }
    return -1;
  }

  /** Where the first separator wholly inside `[from, to)` of `b` starts, or -1 (Horspool). */
  #firstSeparator(b: Uint8Array, from: number, to: number): number {
    const separator = this.#separator!;
    const m = separator.length;
    const last = separator[m - 1];
    const shift = this.#ahead;
    for (let e = from + m - 1; e < to;) {
      const c = b[e]!;
      if (c === last) {
        let k = m - 2;
        while (k >= 0 && b[e - m + 1 + k] === separator[k]) k--;
        if (k < 0) return e - m + 1;
      }
      e += shift[c]!;
    }
    return -1;
  }

  /** Starts a key, value or item at `i`. */
  #begin(i: number): void {
    this.#from = i;
    this.#depth = 0;
    this.#inString = false;
    this.#escape = false;
  }

  /** The current key, value or item, ending at `end` of `b`: a view, or its pieces joined. */
  #span(b: Uint8Array, end: number): Uint8Array {
    const from = this.#from;
    this.#from = -1;
    const pieces = this.#pieces;
    if (pieces.length === 0) return b.subarray(from, end);
    this.#pieces = [];
    let size = end;
    for (const piece of pieces) size += piece.length;
    const out = new Uint8Array(size);
    let at = 0;
    for (const piece of pieces) {
      out.set(piece, at);
      at += piece.length;
    }
    out.set(b.subarray(0, end), at);
    return out;
  }

  /**
   * The end of the string, object or array going on at `i` (brackets matched, strings and
   * escapes followed), or -1 when it goes on past `b` (its state kept for the next chunk). The
   * hot loop: compares inline, skips strings in an inner loop.
   */
  #composite(b: Uint8Array, i: number): number {
    const n = b.length;
    const stack = this.#stack;
    let depth = this.#depth;
    if (this.#inString) {
      // A string cut by the last chunk's end, maybe right after a backslash.
      if (this.#escape) {
        if (i >= n) return -1;
        i++;
        this.#escape = false;
      }
      i = this.#restOfString(b, i);
      if (i < 0) return -1;
      if (depth === 0) return i;
    }
    while (i < n) {
      const c = b[i++]!;
      if (c === QUOTE) {
        i = this.#restOfString(b, i);
        if (i < 0) {
          this.#depth = depth;
          return -1;
        }
        if (depth === 0) return i; // a key or a string value
        continue;
      }
      if (c === OPEN_BRACE || c === OPEN_BRACKET) {
        if (depth === MAX_DEPTH) throw BAILED;
        stack[depth++] = c + 2; // `{` + 2 is `}`, `[` + 2 is `]`
        continue;
      }
      if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
        if (depth === 0 || stack[--depth] !== c) throw BAILED;
        if (depth === 0) {
          this.#depth = 0;
          return i;
        }
      }
    }
    this.#depth = depth;
    return -1;
  }

  /**
   * The index after the closing quote of the string going on at `i`, or -1 when it goes on
   * past `b` (then `#inString`, and `#escape` when `b` ends on a backslash).
   */
  #restOfString(b: Uint8Array, i: number): number {
    const n = b.length;
    while (i < n) {
      const d = b[i++];
      if (d === QUOTE) {
        this.#inString = false;
        return i;
      }
      if (d === BACKSLASH) {
        if (i === n) {
          this.#inString = true;
          this.#escape = true;
          return -1;
        }
        i++;
      }
    }
    this.#inString = true;
    return -1;
  }

  /** A top-level key (quotes included), decoded (escapes through JSON.parse). */
  #keyOf(span: Uint8Array): string {
    if (span.includes(BACKSLASH)) return JSON.parse(this.#decoder.decode(span)) as string;
    return this.#decoder.decode(span.subarray(1, span.length - 1));
  }

  /** A top-level value, parsed; a syntax error leaves for the plain path. */
  #parse(span: Uint8Array): unknown {
    return parseSpan(this.#json, span);
  }
}

const NONE: readonly Uint8Array[] = [];
