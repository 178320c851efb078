/**
 * One consumer's buffer of informer events.
 * @module
 */
import type { KubeObject, KubeObjectLike } from "../client/types.ts";
import { RingBuffer } from "../util/ring_buffer.ts";
import type { InformerEvent, OverflowPolicy } from "./informer_event.ts";
import { objectKey } from "./object_key.ts";

const SKIPPED = Symbol("skipped");
/** Dead slots tolerated before a compaction is considered. */
const COMPACT_MIN_SKIPPED = 32;
type Slot<T extends KubeObjectLike> = InformerEvent<T> | typeof SKIPPED;

/**
 * A listener's pending events in a growable ring buffer, so a slow consumer never blocks the
 * reflector or the other listeners. With the `"coalesce"` policy, pending events for one key
 * merge (add+update = add, update+update = update from the first old object, add+delete =
 * nothing, update+delete = delete; delete+add stay two events), so at most two events per key
 * wait and memory is bounded by the number of keys. Events the consumer already took are never
 * merged into, and the `synced` marker is never merged. Replaying the delivered events onto the
 * consumer's state always yields the producer's latest state of every key.
 * Internal: consumers see it through `events()` and `addEventHandler`.
 */
export class Listener<T extends KubeObjectLike = KubeObject> {
  readonly policy: OverflowPolicy;
  /** Resync period in ms (0 = never). */
  readonly resyncPeriodMs: number;
  /** Next resync due time (informer's clock). */
  nextResyncAt = Infinity;
  /** True once the consumer has taken the `synced` marker. */
  synced = false;
  /** True once the `synced` marker was queued. */
  syncQueued = false;
  #buffer = new RingBuffer<Slot<T>>(64);
  #pending = new Map<string, number>();
  #skipped = 0;
  #closed = false;
  #wake: (() => void) | undefined;
  #highWater = 0;

  /** Told of each event as the consumer takes it (event lag). */
  readonly #onTaken: ((event: InformerEvent<T>) => void) | undefined;

  constructor(
    policy: OverflowPolicy,
    resyncPeriodMs: number,
    onTaken?: (event: InformerEvent<T>) => void,
  ) {
    this.policy = policy;
    this.resyncPeriodMs = resyncPeriodMs;
    this.#onTaken = onTaken;
  }

  /** Events waiting for the consumer. */
  get backlog(): number {
    return this.#buffer.length - this.#skipped;
  }

  /** Largest backlog seen. */
  get highWater(): number {
    return this.#highWater;
  }

  /** Buffer slots allocated (memory indicator). */
  get capacity(): number {
    return this.#buffer.capacity;
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** Queues an event (no-op once closed). */
  push(event: InformerEvent<T>): void {
    if (this.#closed) return;
    if (event.type === "synced") this.syncQueued = true;
    if (this.policy === "coalesce" && event.type !== "synced") this.#coalesce(event);
    else this.#buffer.push(event);
    const backlog = this.backlog;
    if (backlog > this.#highWater) this.#highWater = backlog;
    const wake = this.#wake;
    if (wake !== undefined) {
      this.#wake = undefined;
      wake();
    }
  }

  /** Takes the next event, or `undefined` when none is waiting. */
  shift(): InformerEvent<T> | undefined {
    for (;;) {
      const pos = this.#buffer.start;
      const slot = this.#buffer.shift();
      if (slot === undefined) return undefined;
      if (slot === SKIPPED) {
        this.#skipped--;
        continue;
      }
      if (this.policy === "coalesce" && slot.type !== "synced") {
        const key = objectKey(slot.object);
        if (this.#pending.get(key) === pos) this.#pending.delete(key);
      }
      if (slot.type === "synced") this.synced = true;
      this.#onTaken?.(slot);
      return slot;
    }
  }

  /** Resolves when an event is waiting or the listener closes. */
  wait(): Promise<void> {
    if (this.backlog > 0 || this.#closed) return Promise.resolve();
    return new Promise((resolve) => {
      const previous = this.#wake;
      this.#wake = previous === undefined ? resolve : () => {
        previous();
        resolve();
      };
    });
  }

  /** Calls `fn` when the next event arrives (for push-style consumers). */
  onWake(fn: () => void): void {
    void this.wait().then(fn);
  }

  /** Stops accepting events, drops the backlog and wakes a waiting consumer. */
  close(): void {
    this.#closed = true;
    this.#buffer.clear();
    this.#pending.clear();
    this.#skipped = 0;
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }

  #coalesce(event: Exclude<InformerEvent<T>, { type: "synced" }>): void {
    const key = objectKey(event.object);
    const pos = this.#pending.get(key);
    const prev = pos === undefined ? undefined : this.#buffer.at(pos);
    if (pos === undefined || prev === undefined || prev === SKIPPED || prev.type === "synced") {
      this.#pending.set(key, this.#buffer.push(event));
      return;
    }
    let merged: InformerEvent<T> | typeof SKIPPED | undefined;
    if (prev.type === "add") {
      if (event.type === "update") {
        merged = { type: "add", object: event.object, isInInitialList: prev.isInInitialList };
      } else if (event.type === "delete") merged = SKIPPED;
    } else if (prev.type === "update") {
      if (event.type === "update") {
        merged = { type: "update", object: event.object, oldObject: prev.oldObject };
      } else if (event.type === "delete") merged = event;
    }
    if (merged === undefined) {
      // delete followed by add (a new uid): both must be seen.
      this.#pending.set(key, this.#buffer.push(event));
      return;
    }
    this.#buffer.set(pos, merged);
    if (merged === SKIPPED) {
      this.#pending.delete(key);
      this.#skipped++;
      // Compact once the dead slots outnumber the live events (and a few more): the buffer then
      // never holds more than about twice the live events, which coalescing bounds by 2 per
      // key, and each compaction is paid for by as many merges as it moves events.
      if (this.#skipped > COMPACT_MIN_SKIPPED && this.#skipped > this.backlog) this.#compact();
    }
  }

  #compact(): void {
    const live: InformerEvent<T>[] = [];
    for (const slot of this.#buffer) if (slot !== SKIPPED) live.push(slot);
    this.#buffer.clear();
    this.#pending.clear();
    this.#skipped = 0;
    for (const ev of live) {
      const pos = this.#buffer.push(ev);
      if (ev.type !== "synced") this.#pending.set(objectKey(ev.object), pos);
    }
  }
}
