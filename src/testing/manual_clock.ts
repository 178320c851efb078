/**
 * A clock that only moves when a test says so.
 * @module
 */
import type { Clock, TimerHandle } from "../util/clock.ts";

interface Timer {
  id: number;
  due: number;
  fn: () => void;
}

/** Yields to the event loop so pending promise callbacks and I/O callbacks can run. */
function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => globalThis.setTimeout(resolve, 0));
}

/**
 * A {@linkcode Clock} whose time moves only through {@linkcode ManualClock.advance}; timers
 * fire in due order, with the event loop allowed to run between them, so async code reacting
 * to one timer can schedule the next before time moves on. Tests never sleep for real.
 *
 * @example
 * ```ts
 * import { ManualClock } from "@kinformer/kinformer/testing";
 * import assert from "node:assert/strict";
 * const clock = new ManualClock(1_000);
 * let fired = false;
 * clock.setTimeout(() => { fired = true; }, 500);
 * await clock.advance(499);
 * assert.equal(fired, false);
 * await clock.advance(1);
 * assert.equal(fired, true);
 * assert.equal(clock.now(), 1_500);
 * ```
 */
export class ManualClock implements Clock {
  #now: number;
  #timers: Timer[] = [];
  #nextId = 1;

  /** Starts at `start` milliseconds since the epoch. */
  constructor(start = 1_700_000_000_000) {
    this.#now = start;
  }

  /** Current time in milliseconds. */
  now(): number {
    return this.#now;
  }

  /** Schedules `fn` at `now() + ms`. */
  setTimeout(fn: () => void, ms: number): TimerHandle {
    const timer = { id: this.#nextId++, due: this.#now + Math.max(0, ms), fn };
    this.#timers.push(timer);
    return timer.id;
  }

  /** Cancels a pending timer. */
  clearTimeout(handle: TimerHandle): void {
    const i = this.#timers.findIndex((t) => t.id === handle);
    if (i >= 0) this.#timers.splice(i, 1);
  }

  /** Number of timers not yet fired (a leak check after `stop()`). */
  get pendingTimers(): number {
    return this.#timers.length;
  }

  /**
   * Moves time forward by `ms`, firing every timer that falls due, earliest first, and letting
   * the event loop run after each one (and once before starting).
   */
  async advance(ms: number): Promise<void> {
    const target = this.#now + ms;
    await this.flush();
    for (;;) {
      let next: Timer | undefined;
      for (const t of this.#timers) {
        if (t.due <= target && (next === undefined || t.due < next.due)) next = t;
      }
      if (next === undefined) break;
      this.#timers.splice(this.#timers.indexOf(next), 1);
      this.#now = Math.max(this.#now, next.due);
      next.fn();
      await this.flush();
    }
    this.#now = target;
    await this.flush();
  }

  /** Lets the event loop run a few turns without moving time. */
  async flush(turns = 3): Promise<void> {
    for (let i = 0; i < turns; i++) await yieldToEventLoop();
  }
}
