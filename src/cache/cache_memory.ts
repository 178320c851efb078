/**
 * An informer's cache representation (`memory` option): what happens to each object as it
 * enters the cache, and the estimate of the heap the cache holds. Internal.
 * @module
 */
import { CompactCodec, type ObjectCodec } from "./compact_store.ts";
import type { CacheMemoryMode } from "./informer_options.ts";
import { ValueInterner } from "./value_interner.ts";

/** Objects between two size samples of a `"plain"` cache. */
const PLAIN_SAMPLE_EVERY = 32;

/**
 * One informer's representation (see `InformerOptions.memory`). `admit` runs on every object after the user's transform;
 * `codec` goes to the informer's `Indexer`; `estimatedBytes` answers `health().memory`.
 */
export class CacheMemory<T> {
  readonly mode: CacheMemoryMode;
  readonly codec: ObjectCodec<T> | undefined;
  /** Whether `admit` wants the cached version (cheap to read: not in compact mode). */
  readonly wantsPrevious: boolean;
  readonly #interner: ValueInterner | undefined;
  /** Sum and count of the per-object estimates (shared, plain): their mean sizes the cache. */
  #sum = 0;
  #count = 0;
  #seen = 0;

  /** `mode`; with `detectMutations`, `"shared"` shares nothing (the detector sees writes). */
  constructor(mode: CacheMemoryMode, detectMutations: boolean) {
    this.mode = mode === "shared" && detectMutations ? "plain" : mode;
    this.codec = this.mode === "compact" ? new CompactCodec<T>() : undefined;
    // Compact mode interns too: the objects of a list under way are held decoded until the
    // list is complete, and shared they take about half the peak heap. Its tables are kept
    // small there, since what they hold (canonical strings and subtrees) is held besides the
    // cache's text.
    this.#interner = this.mode === "plain"
      ? undefined
      : new ValueInterner(this.mode === "compact" ? { generationSize: 4096 } : {});
    this.wantsPrevious = this.mode === "shared";
  }

  /**
   * The object to cache in place of `object` (shared parts replaced by their first copy).
   * `previous` is the cached version of it, if any (parts equal to it become its parts).
   */
  admit(object: T, previous?: T | undefined): T {
    const interner = this.#interner;
    if (interner !== undefined) {
      // A new version shares its unchanged parts with the cached one, which it replaces: it
      // costs about what that one did, so only objects new to the cache move the mean.
      if (previous !== undefined) return interner.internLike(object, previous);
      const out = interner.intern(object);
      this.#sum += interner.lastBytes;
      this.#count++;
      return out;
    }
    if (this.mode === "plain" && this.#seen++ % PLAIN_SAMPLE_EVERY === 0) {
      this.#sum += estimateHeapBytes(object);
      this.#count++;
    }
    return object;
  }

  /** Estimated heap bytes of a cache of `objects` objects (`held`: a codec's own figure). */
  estimatedBytes(objects: number, held: number | undefined): number {
    if (held !== undefined) return held;
    return this.#count === 0 ? 0 : Math.round(objects * (this.#sum / this.#count));
  }
}

/**
 * A rough heap size of a decoded JSON value: 32 bytes per object or array, 8 per slot, 16 plus
 * the length per string of 10 or more characters (shorter ones are shared by the engine).
 */
export function estimateHeapBytes(value: unknown, depth = 0): number {
  if (typeof value === "string") return value.length < 10 ? 0 : 16 + value.length;
  // Deeper than any Kubernetes object: not counted (and no stack overflows).
  if (typeof value !== "object" || value === null || depth > 100) return 0;
  let bytes = 32;
  if (Array.isArray(value)) {
    for (const item of value) bytes += 8 + estimateHeapBytes(item, depth + 1);
    return bytes;
  }
  const o = value as Record<string, unknown>;
  for (const key in o) bytes += 8 + estimateHeapBytes(o[key], depth + 1);
  return bytes;
}
