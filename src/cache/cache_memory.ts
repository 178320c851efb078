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

/** Updated objects waiting to be shared at most; past it, an update is shared as it comes. */
const PENDING_MAX = 2048;

/** Updated objects shared per task (then the task yields to I/O and queues the next one). */
const FLUSH_BATCH = 256;

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
  /** The cached version of an object (to skip pending updates already replaced or deleted). */
  readonly #current: (object: T) => T | undefined;
  /**
   * Updated objects (in the cache as decoded) to share later, each with the shared version it
   * replaced (a chain of updates to one object keeps the oldest shared one: only the newest
   * waits).
   */
  readonly #pending = new Map<T, T>();
  #timer: ReturnType<typeof setTimeout> | undefined;

  /**
   * `mode`; with `detectMutations`, `"shared"` shares nothing (the detector sees writes).
   * `current` answers the cached version of an object (shared mode shares updates later).
   */
  constructor(
    mode: CacheMemoryMode,
    detectMutations: boolean,
    current: (object: T) => T | undefined = () => undefined,
  ) {
    this.#current = current;
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
      // costs about what that one did, so only objects new to the cache move the mean. That
      // walk costs about what decoding did, so it is deferred off the watch's hot path (see
      // `#flush`), unless too many wait already.
      if (previous !== undefined) {
        const base = this.#pending.get(previous) ?? previous;
        this.#pending.delete(previous);
        if (this.#pending.size >= PENDING_MAX) return interner.internLike(object, base);
        this.#pending.set(object, base);
        this.#timer ??= setTimeout(() => this.#flush(), 0);
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

  /**
   * Shares up to a batch of the updated objects waiting, oldest first, in place (each still
   * the cached version, or not yet written over the version it replaces; one replaced or
   * deleted since is dropped unshared); queues the rest.
   * A handler got the object as decoded: its parts equal to the previous version's become
   * those (equal, frozen) parts a task later, so its content never changes, only which parts
   * are frozen.
   */
  #flush(): void {
    this.#timer = undefined;
    const interner = this.#interner!;
    let n = 0;
    for (const [object, base] of this.#pending) {
      if (n++ === FLUSH_BATCH) break;
      this.#pending.delete(object);
      // Still to come (a relist's page is cached when the list ends) or cached: shared.
      const current = this.#current(object);
      if (current === object || current === base) interner.internLike(object, base);
    }
    if (this.#pending.size > 0) this.#timer = setTimeout(() => this.#flush(), 0);
  }

  /** Shares every update still waiting now (tests; and the informer's stop, with `close`). */
  settle(): void {
    while (this.#pending.size > 0) this.#flush();
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  /** Drops the updates waiting (unshared: they stay as decoded) and the queued task. */
  close(): void {
    this.#pending.clear();
    if (this.#timer !== undefined) clearTimeout(this.#timer);
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
