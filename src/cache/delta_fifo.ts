/**
 * DeltaFIFO: the queue between the reflector and the cache, holding every change per key.
 * @module
 */
import type { KubeObject, KubeObjectLike } from "../client/types.ts";
import { RingBuffer } from "../util/ring_buffer.ts";
import { objectKey } from "./object_key.ts";

/** What happened to an object. `Replaced` comes from a (re)list, `Sync` from a resync. */
export type DeltaType = "Added" | "Updated" | "Deleted" | "Replaced" | "Sync";

/**
 * One change. A `Deleted` delta with `finalStateUnknown: true` is a tombstone: the object
 * vanished while the watch was down, and `object` is the last state the cache knew.
 */
export interface Delta<T extends KubeObjectLike = KubeObject> {
  /** Kind of change. */
  type: DeltaType;
  /** The object after the change (for a delete, its last known state). */
  object: T;
  /** True for tombstones produced by {@linkcode DeltaFIFO.replace}. */
  finalStateUnknown?: boolean;
}

/** The keys and objects the consumer already holds (the informer's cache). */
export interface KnownObjects<T> {
  /** The object the consumer holds under `key`. */
  get(key: string): T | undefined;
  /** Every key the consumer holds. */
  listKeys(): string[];
}

/** Options of {@linkcode DeltaFIFO}. */
export interface DeltaFIFOOptions<T> {
  /** The consumer's state, used to find objects that vanished during a disconnect. */
  knownObjects?: KnownObjects<T>;
  /** Key function. @default objectKey */
  keyOf?: (object: T) => string;
}

/**
 * A queue of per-key delta lists. Keys leave in the order they first entered; all deltas of a
 * key leave together. Two consecutive `Deleted` deltas merge into one (a tombstone never
 * replaces a delete that knows the final state). `replace` (a relist)
 * queues `Replaced` for every listed object and a tombstone for every known key the list no
 * longer has. `hasSynced()` turns true once the first `replace`'s keys have all been popped.
 *
 * @example
 * ```ts
 * import { DeltaFIFO } from "@kinformer/kinformer/cache";
 * import assert from "node:assert/strict";
 * const fifo = new DeltaFIFO();
 * fifo.add({ metadata: { namespace: "ns", name: "a", resourceVersion: "1" } });
 * fifo.update({ metadata: { namespace: "ns", name: "a", resourceVersion: "2" } });
 * const [key, deltas] = fifo.pop()!;
 * assert.equal(key, "ns/a");
 * assert.deepEqual(deltas.map((d) => d.type), ["Added", "Updated"]);
 * ```
 */
export class DeltaFIFO<T extends KubeObjectLike = KubeObject> {
  #items = new Map<string, Delta<T>[]>();
  #queue = new RingBuffer<string>(64);
  #knownObjects: KnownObjects<T> | undefined;
  #keyOf: (object: T) => string;
  #populated = false;
  #initialPopulationCount = 0;

  /** Creates an empty queue. */
  constructor(options: DeltaFIFOOptions<T> = {}) {
    this.#knownObjects = options.knownObjects;
    this.#keyOf = options.keyOf ?? objectKey;
  }

  /** Number of keys waiting. */
  get length(): number {
    return this.#items.size;
  }

  /**
   * True once every key queued by the first `replace` (listed objects and tombstones) has been
   * popped; an empty first `replace` is synced at once. As in client-go, an `add`, `update` or
   * `delete` before any `replace` makes the queue count as synced immediately.
   */
  hasSynced(): boolean {
    return this.#populated && this.#initialPopulationCount === 0;
  }

  /** Queues an `Added` delta. */
  add(object: T): void {
    this.#populated = true;
    this.#push("Added", object);
  }

  /** Queues an `Updated` delta. */
  update(object: T): void {
    this.#populated = true;
    this.#push("Updated", object);
  }

  /** Queues a `Deleted` delta carrying the object's last state. */
  delete(object: T): void {
    this.#populated = true;
    this.#push("Deleted", object);
  }

  /**
   * A full list: queues `Replaced` for each object and a tombstone for each key the consumer
   * knows (or that is queued) that the list no longer contains.
   */
  replace(list: readonly T[]): void {
    const keys = new Set<string>();
    for (const object of list) {
      const key = this.#keyOf(object);
      keys.add(key);
      this.#push("Replaced", object, key);
    }
    const known = this.#knownObjects;
    if (known !== undefined) {
      for (const key of known.listKeys()) {
        if (keys.has(key)) continue;
        const last = this.#lastQueued(key) ?? known.get(key);
        if (last === undefined) continue;
        this.#push("Deleted", last, key, true);
      }
    }
    // Keys only queued (never popped) that the list lacks are deleted too.
    for (const [key, deltas] of this.#items) {
      if (keys.has(key) || known?.get(key) !== undefined) continue;
      const last = deltas[deltas.length - 1]!;
      if (last.type === "Deleted") continue;
      this.#push("Deleted", last.object, key, true);
    }
    if (!this.#populated) {
      this.#populated = true;
      // Every key queued now (listed, tombstoned, or queued before) must leave before the
      // first list is fully delivered; keys leave in order, so counting pops is enough.
      this.#initialPopulationCount = this.#items.size;
    }
  }

  /** Queues a `Sync` delta for every known key that has nothing queued (a resync). */
  resync(): void {
    const known = this.#knownObjects;
    if (known === undefined) return;
    for (const key of known.listKeys()) {
      if (this.#items.has(key)) continue;
      const object = known.get(key);
      if (object !== undefined) this.#push("Sync", object, key);
    }
  }

  /** Removes and returns the oldest key with all its deltas, or `undefined` when empty. */
  pop(): [string, Delta<T>[]] | undefined {
    for (;;) {
      const key = this.#queue.shift();
      if (key === undefined) return undefined;
      const deltas = this.#items.get(key);
      if (deltas === undefined) continue;
      this.#items.delete(key);
      if (this.#initialPopulationCount > 0) this.#initialPopulationCount--;
      return [key, deltas];
    }
  }

  /** The deltas queued for `key` (a copy), for inspection. */
  get(key: string): Delta<T>[] | undefined {
    const d = this.#items.get(key);
    return d === undefined ? undefined : [...d];
  }

  #lastQueued(key: string): T | undefined {
    const deltas = this.#items.get(key);
    return deltas === undefined ? undefined : deltas[deltas.length - 1]!.object;
  }

  #push(type: DeltaType, object: T, key = this.#keyOf(object), finalStateUnknown = false): void {
    const delta: Delta<T> = finalStateUnknown
      ? { type, object, finalStateUnknown }
      : { type, object };
    const deltas = this.#items.get(key);
    if (deltas === undefined) {
      this.#items.set(key, [delta]);
      this.#queue.push(key);
      return;
    }
    const last = deltas[deltas.length - 1]!;
    if (type === "Deleted" && last.type === "Deleted") {
      // As client-go: keep the newer delete unless it is a tombstone (the older one knows the
      // final state, or is a tombstone too).
      if (!finalStateUnknown) deltas[deltas.length - 1] = delta;
      return;
    }
    deltas.push(delta);
  }
}
