/**
 * An idle timer: fires once nothing has touched it for a limit.
 * @module
 */
import type { Clock, TimerHandle } from "./clock.ts";

/**
 * Calls `onIdle` once no {@linkcode IdleTimer.touch} has come for `limitMs`. It keeps one clock
 * timer and moves it only when it fires early, so touching costs an assignment: clearing and
 * setting a timer per watch event cost about 10% of the decode+deliver time on Deno.
 * Internal.
 */
export class IdleTimer {
  readonly #clock: Clock;
  #limitMs: number;
  #onIdle: () => void;
  #lastTouch: number;
  #handle: TimerHandle | undefined;
  #stopped = false;
  #held = false;

  /** Starts counting now. */
  constructor(clock: Clock, limitMs: number, onIdle: () => void) {
    this.#clock = clock;
    this.#limitMs = limitMs;
    this.#onIdle = onIdle;
    this.#lastTouch = clock.now();
    this.#handle = clock.setTimeout(this.#fire, limitMs);
  }

  /** Something happened at `now`: the idle time counts from here. */
  touch(now: number): void {
    this.#lastTouch = now;
  }

  /** Stops counting until {@linkcode IdleTimer.release} (the consumer, not the peer, is slow). */
  hold(): void {
    this.#held = true;
  }

  /** Counts again from `now`. */
  release(now: number): void {
    this.#held = false;
    this.#lastTouch = now;
  }

  /** Counts from now with a new limit and callback (e.g. a stream's initial phase ends). */
  restart(limitMs: number, onIdle: () => void): void {
    if (this.#stopped) return;
    this.#limitMs = limitMs;
    this.#onIdle = onIdle;
    this.#lastTouch = this.#clock.now();
    if (this.#handle !== undefined) this.#clock.clearTimeout(this.#handle);
    this.#handle = this.#clock.setTimeout(this.#fire, limitMs);
  }

  /** Cancels the timer for good. */
  stop(): void {
    this.#stopped = true;
    if (this.#handle !== undefined) this.#clock.clearTimeout(this.#handle);
    this.#handle = undefined;
  }

  readonly #fire = (): void => {
    this.#handle = undefined;
    if (this.#stopped) return;
    if (this.#held) this.#lastTouch = this.#clock.now();
    const idle = this.#clock.now() - this.#lastTouch;
    if (idle >= this.#limitMs) {
      this.#stopped = true;
      this.#onIdle();
    } else {
      this.#handle = this.#clock.setTimeout(this.#fire, this.#limitMs - idle);
    }
  };
}
