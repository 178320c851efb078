/**
 * An informer's cache representation (`memory` option): what happens to each object as it
 * enters the cache, and the estimate of the heap the cache holds. Internal.
 * @module
 */
import { CompactCodec, type ObjectCodec } from "./compact_store.ts";
import type { CacheMemoryMode } from "./informer_options.ts";
import { ValueInterner } from "./value_interner.ts";
import { type Clock, systemClock, type TimerHandle } from "../util/clock.ts";

/** Objects between two size samples of a `"plain"` cache. */
const PLAIN_SAMPLE_EVERY = 32;

/**
 * Updated objects waiting to be shared at most, when the cache holds fewer objects (else the
 * cache's size: deduplicated per object, only updates of objects deleted since can go past it).
 * Past it, the oldest one waiting is shared at once.
 */
const PENDING_MIN = 4096;

/** A slice of sharing work ends after this many objects, or after {@linkcode SLICE_MS}. */
const SLICE_ITEMS = 256;

/** A slice of sharing work ends after this long (then it yields to I/O). */
const SLICE_MS = 4;

/**
 * While updates keep coming, a slice of sharing is followed by a pause 24 times its length (at
 * least a millisecond, the clock's grain): sharing takes at most 4% of the time.
 */
const BUSY_PAUSE_FACTOR = 24;

/** Where the informer's `CacheMemory` finds the cache and the time. */
export interface CacheMemoryContext<T> {
  /** The cached version of an object (shared mode shares updates later). */
  current?: ((object: T) => T | undefined) | undefined;
  /** Objects in the cache (bounds the updates waiting to be shared). @default () => 0 */
  size?: (() => number) | undefined;
  /** Times the slices of sharing. @default systemClock */
  clock?: Clock | undefined;
}

/**
 * One informer's representation (see `InformerOptions.memory`). `admit` runs on every object after the user's transform;
 * `codec` goes to the informer's `Indexer`; `estimatedBytes` answers `health().memory`.
 *
 * In shared mode, an update (a new version of a cached object) is cached as decoded and shared
 * later, as background work with a budget: in slices of at most 256 objects or 4 ms, each
 * followed, while updates keep coming, by a pause of 24 times its length (so a saturated watch
 * loses at most about 4% of its time to sharing), and back to back (yielding to I/O between
 * slices) once no update came since the last slice. Updates wait deduplicated per object (a
 * newer version replaces the one waiting, which is never walked), at most as many as the cache
 * holds objects (at least 4,096); past that, the oldest is shared at once.
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
  /** The cached version of an object (to skip pending updates already replaced or deleted). */
  readonly #current: (object: T) => T | undefined;
  readonly #size: () => number;
  readonly #clock: Clock;
  /**
   * Updated objects (in the cache as decoded) to share later, oldest first, each with the
   * shared version it replaced (a chain of updates to one object keeps the oldest shared one:
   * only the newest waits).
   */
  readonly #pending = new Map<T, T>();
  #timer: TimerHandle | undefined;
  /** Updates admitted so far, and as of the last slice (more since: updates keep coming). */
  #arrivals = 0;
  #arrivalsSeen = 0;
  /** The clock's time before which no slice starts while updates keep coming. */
  #resumeAt = 0;

  /**
   * `mode`; with `detectMutations`, `"shared"` shares nothing (the detector sees writes).
   * `context` gives the cache's versions and size and the clock.
   */
  constructor(
    mode: CacheMemoryMode,
    detectMutations: boolean,
    context: CacheMemoryContext<T> = {},
  ) {
    this.#current = context.current ?? (() => undefined);
    this.#size = context.size ?? (() => 0);
    this.#clock = context.clock ?? systemClock;
    this.mode = mode === "shared" && detectMutations ? "plain" : mode;
    this.codec = this.mode === "compact" ? new CompactCodec<T>() : undefined;
    // Compact mode interns too: the objects of a list under way are held decoded until the
    // list is complete, and shared they take about half the peak heap. Its tables are kept
    // small there, since what they hold (canonical strings and subtrees) is held besides the
    // cache's text.
    this.#interner = this.mode === "plain"
      ? undefined
      : new ValueInterner(this.mode === "compact" ? { capacity: 8192 } : {});
    this.wantsPrevious = this.mode === "shared";
  }

  /**
   * The object to cache in place of `object` (shared parts replaced by their first copy).
   * `previous` is the cached version of it, if any (parts equal to it become its parts): a
   * watch's update, shared later (see the class; a list's object goes to `admitListed`).
   */
  admit(object: T, previous?: T | undefined): T {
    const interner = this.#interner;
    if (interner !== undefined) {
      // A new version shares its unchanged parts with the cached one, which it replaces: it
      // costs about what that one did, so only objects new to the cache move the mean. That
      // walk costs about what decoding did, so for a watch's update it is background work.
      if (previous !== undefined) {
        const pending = this.#pending;
        const base = pending.get(previous) ?? previous;
        pending.delete(previous);
        pending.set(object, base);
        this.#arrivals++;
        if (pending.size > PENDING_MIN && pending.size > this.#size()) this.#shareOldest();
        if (this.#timer === undefined) {
          const wait = Math.max(0, this.#resumeAt - this.#clock.now());
          this.#timer = this.#clock.setTimeout(() => this.#slice(), wait);
        }
        return object;
      }
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

  /**
   * `admit` for an object of a list (a relist's changed or new objects): shared at once,
   * never deferred. A list's objects are held until the list ends, so a deferred one would
   * live (and be promoted) as decoded, beside the version it replaces; shared now, its
   * unchanged parts are the cached version's and only its own parts survive.
   */
  admitListed(object: T, previous?: T | undefined): T {
    const interner = this.#interner;
    if (interner === undefined || previous === undefined) return this.admit(object);
    return interner.internLike(object, this.#pending.get(previous) ?? previous);
  }

  /** One slice of sharing (see the class), then the next one queued if any update waits. */
  #slice(): void {
    this.#timer = undefined;
    const clock = this.#clock;
    const start = clock.now();
    for (let n = 1; n <= SLICE_ITEMS && this.#pending.size > 0; n++) {
      this.#shareOldest();
      if ((n & 15) === 0 && clock.now() - start >= SLICE_MS) break;
    }
    const end = clock.now();
    const pause = Math.max(1, end - start) * BUSY_PAUSE_FACTOR;
    this.#resumeAt = end + pause;
    // Updates came since the last slice: the watch is busy, the next slice waits its turn.
    const busy = this.#arrivals !== this.#arrivalsSeen;
    this.#arrivalsSeen = this.#arrivals;
    if (this.#pending.size > 0) {
      this.#timer = clock.setTimeout(() => this.#slice(), busy ? pause : 0);
    }
  }

  /**
   * Shares the oldest update waiting, in place, if it is still the cached version or not yet
   * written over the version it replaces; one replaced or deleted since is dropped unshared.
   * A handler got the object as decoded: its parts equal to the previous version's become
   * those (equal, frozen) parts later, so its content never changes, only which parts are
   * frozen.
   */
  #shareOldest(): void {
    for (const [object, base] of this.#pending) {
      this.#pending.delete(object);
      // Still to come (a relist's page is cached when the list ends) or cached: shared.
      const current = this.#current(object);
      if (current === object || current === base) this.#interner!.internLike(object, base);
      return;
    }
  }

  /** Shares every update still waiting now (tests; and the informer's stop, with `close`). */
  settle(): void {
    while (this.#pending.size > 0) this.#shareOldest();
    this.#cancel();
  }

  /** Drops the updates waiting (unshared: they stay as decoded) and the queued slice. */
  close(): void {
    this.#pending.clear();
    this.#cancel();
  }

  #cancel(): void {
    if (this.#timer !== undefined) this.#clock.clearTimeout(this.#timer);
    this.#timer = undefined;
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
