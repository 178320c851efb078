/**
 * The listeners of one informer (client-go's sharedProcessor): who gets which event, each
 * listener's resync schedule, and what `health()` reports about them.
 * @module
 */
import type { KubeObjectLike } from "../client/types.ts";
import type { Clock, TimerHandle } from "../util/clock.ts";
import type { ListenerHealth } from "./informer_health.ts";
import type { InformerEvent } from "./informer_event.ts";
import type { Listener } from "./listener.ts";

/**
 * Every listener of an informer. An event goes to all of them, except a resync (an `update`
 * whose `object === oldObject`), which goes only to the listeners whose resync period is due.
 * Internal.
 */
export class ListenerSet<T extends KubeObjectLike> {
  readonly #clock: Clock;
  readonly #requeue: () => void;
  readonly #listeners = new Set<Listener<T>>();
  /** The listeners due for a resync, while one is delivered. */
  #due: Set<Listener<T>> | undefined;
  #timer: TimerHandle | undefined;
  #timerAt = Infinity;
  #stopped = false;

  /**
   * `requeue` re-delivers the cache as resync events (the informer queues `Sync` deltas and
   * drains them); it is called when a listener's resync period comes due.
   */
  constructor(clock: Clock, requeue: () => void) {
    this.#clock = clock;
    this.#requeue = requeue;
  }

  /** Adds `listener` (already holding its initial population) and schedules its resync. */
  add(listener: Listener<T>): void {
    this.#listeners.add(listener);
    if (listener.resyncPeriodMs > 0) {
      listener.nextResyncAt = this.#clock.now() + listener.resyncPeriodMs;
      this.#schedule();
    }
  }

  /** Closes `listener` and forgets it. */
  remove(listener: Listener<T>): void {
    listener.close();
    this.#listeners.delete(listener);
  }

  /** Delivers one event: a resync only to the listeners due for one, anything else to all. */
  deliver(event: InformerEvent<T>): void {
    if (event.type === "update" && event.object === event.oldObject) {
      const due = this.#due;
      if (due !== undefined) { for (const l of due) l.push(event); }
      return;
    }
    for (const l of this.#listeners) l.push(event);
  }

  /** The cache holds a complete list: every listener that has not had its marker gets it. */
  synced(): void {
    const event: InformerEvent<T> = { type: "synced" };
    for (const l of this.#listeners) if (!l.syncQueued) l.push(event);
  }

  /** The largest backlog. */
  maxBacklog(): number {
    let max = 0;
    for (const l of this.#listeners) if (l.backlog > max) max = l.backlog;
    return max;
  }

  /** Each listener, for `health()`. */
  health(): ListenerHealth[] {
    return [...this.#listeners].map((l) => ({
      backlog: l.backlog,
      highWater: l.highWater,
      synced: l.synced,
      overflow: l.policy,
    }));
  }

  /** Closes every listener and cancels the resync timer. */
  close(): void {
    this.#stopped = true;
    if (this.#timer !== undefined) this.#clock.clearTimeout(this.#timer);
    this.#timer = undefined;
    for (const l of this.#listeners) l.close();
    this.#listeners.clear();
  }

  /** Sets the one timer for the earliest resync due. */
  #schedule(): void {
    let next = Infinity;
    for (const l of this.#listeners) if (l.nextResyncAt < next) next = l.nextResyncAt;
    if (next === Infinity || next >= this.#timerAt || this.#stopped) return;
    if (this.#timer !== undefined) this.#clock.clearTimeout(this.#timer);
    this.#timerAt = next;
    this.#timer = this.#clock.setTimeout(() => this.#tick(), Math.max(0, next - this.#clock.now()));
  }

  #tick(): void {
    this.#timer = undefined;
    this.#timerAt = Infinity;
    if (this.#stopped) return;
    const now = this.#clock.now();
    const due = new Set<Listener<T>>();
    for (const l of this.#listeners) {
      if (l.nextResyncAt <= now) {
        due.add(l);
        l.nextResyncAt = now + l.resyncPeriodMs;
      }
    }
    if (due.size > 0) {
      this.#due = due;
      try {
        this.#requeue();
      } finally {
        this.#due = undefined;
      }
    }
    this.#schedule();
  }
}
