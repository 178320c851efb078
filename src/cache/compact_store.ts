/**
 * The compact cache representation: each object kept as its JSON text, decoded on read
 * behind a small cache of recently used objects.
 * @module
 */
import { JsonTextDecoder } from "../util/json_text_decoder.ts";

/**
 * How an `Indexer` holds its objects: `encode` at insert (given the object itself and its key),
 * `decode` at read. The identity codec keeps objects as they are.
 */
export interface ObjectCodec<T> {
  /** The form to hold `object` in, under `key`. */
  encode(object: T, key: string): unknown;
  /** The object back from what `encode` returned for `key`. */
  decode(stored: unknown, key: string): T;
  /** `key`'s `stored` form was deleted or replaced: what was remembered of it goes. */
  forget(key: string, stored: unknown): void;
  /** Estimated heap bytes of what is held (the encoded forms and any decoded copies). */
  bytes(): number;
}

/** Options of {@linkcode CompactCodec}. */
export interface CompactCodecOptions {
  /** Decoded objects kept for repeated reads (least recently used go first). @default 1024 */
  recent?: number | undefined;
}

/** Per-entry overhead of a held string (header, map slot), in bytes. */
const ENTRY_BYTES = 40;
/** Assumed heap size of one decoded object in the recent cache (a ~3 KB pod parsed). */
const DECODED_BYTES = 6_000;

/**
 * Holds each object as its JSON text with every character above U+007F escaped (`\uXXXX`), so
 * that engines keep it at one byte per character: V8 and JavaScriptCore store a whole string
 * at two bytes per character as soon as one character needs it, and a pod with one non-Latin
 * annotation would otherwise double. A read (`decode`) parses the text again (`JSON.parse`),
 * except for the `recent` objects last written or read, which are kept decoded: the object an
 * event carries is the one a read right after it returns. About 0.45x the heap of plainly
 * parsed pods at the price of a `JSON.parse` per read of an object not recently used; see
 * `docs/production.md` (Memory) for measured figures.
 *
 * @example
 * ```ts
 * import { CompactCodec, Indexer } from "@kinformer/kinformer/cache";
 * import type { KubeObject } from "@kinformer/kinformer";
 * import assert from "node:assert/strict";
 * const cache = new Indexer<KubeObject>({}, { codec: new CompactCodec<KubeObject>({ recent: 1 }) });
 * cache.set({ metadata: { namespace: "ns", name: "a", annotations: { note: "grüß dich ✓" } } });
 * cache.set({ metadata: { namespace: "ns", name: "b" } });
 * assert.equal(cache.get("ns/a")?.metadata.annotations?.note, "grüß dich ✓"); // decoded again
 * assert.deepEqual(cache.byIndex("namespace", "ns").map((o) => o.metadata.name), ["a", "b"]);
 * ```
 */
export class CompactCodec<T> implements ObjectCodec<T> {
  readonly #limit: number;
  /** Decoded objects by key, least recently used first. */
  readonly #recent = new Map<string, T>();
  #held = 0;
  #entries = 0;

  /** A codec keeping `options.recent` decoded objects. */
  constructor(options: CompactCodecOptions = {}) {
    const recent = options.recent ?? 1024;
    if (!Number.isInteger(recent) || recent < 0) {
      throw new RangeError(`recent must be a non-negative integer, got ${recent}`);
    }
    this.#limit = recent;
  }

  encode(object: T, key: string): unknown {
    const text = oneByteJson(object);
    this.#held += text.length;
    this.#entries++;
    this.#remember(key, object);
    return text;
  }

  decode(stored: unknown, key: string): T {
    const recent = this.#recent.get(key);
    if (recent !== undefined) {
      // Most recently used goes last.
      this.#recent.delete(key);
      this.#recent.set(key, recent);
      return recent;
    }
    const object = JSON.parse(stored as string) as T;
    this.#remember(key, object);
    return object;
  }

  forget(key: string, stored: unknown): void {
    this.#recent.delete(key);
    if (typeof stored === "string") {
      this.#held -= stored.length;
      this.#entries--;
    }
  }

  bytes(): number {
    return this.#held + this.#entries * ENTRY_BYTES + this.#recent.size * DECODED_BYTES;
  }

  #remember(key: string, object: T): void {
    if (this.#limit === 0) return;
    this.#recent.delete(key);
    this.#recent.set(key, object);
    if (this.#recent.size > this.#limit) {
      const oldest = this.#recent.keys().next().value as string;
      this.#recent.delete(oldest);
    }
  }
}

const NON_ASCII = /[\u0080-\uffff]/;
const utf8Encoder = new TextEncoder();
const asciiJson = new JsonTextDecoder();

/**
 * `JSON.stringify(value)` as a one-byte string: characters above U+007F escaped (`\uXXXX`),
 * as list pages and watch lines are decoded (a string built by `replace` from a two-byte one
 * would stay two-byte on V8).
 */
function oneByteJson(value: unknown): string {
  const text = JSON.stringify(value);
  if (!NON_ASCII.test(text)) return text;
  return asciiJson.decode(utf8Encoder.encode(text));
}
