/**
 * One term of holding a lease: an AbortSignal that aborts when the term ends, and a timer that
 * ends it at the holder's own deadline (`until`, on its own clock) unless it is extended first.
 * Internal.
 * @module
 */
import type { Clock, TimerHandle } from "../../util/clock.ts";
import { LeaseLostError } from "./lease_errors.ts";

/** A term that ends by itself at `until` unless {@linkcode LeaseTerm.extend}ed. */
export class LeaseTerm {
  readonly #controller = new AbortController();
  readonly #clock: Clock;
  readonly #onLapse: () => void;
  readonly #what: string;
  #until: number;
  #timer: TimerHandle | undefined;

  /** Starts a term ending at `until`; `onLapse` is called if it ends that way. */
  constructor(clock: Clock, until: number, what: string, onLapse: () => void) {
    this.#clock = clock;
    this.#until = until;
    this.#what = what;
    this.#onLapse = onLapse;
    this.#arm();
  }

  /** Aborts when the term ends; the reason is a {@linkcode LeaseLostError}. */
  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** The holder's deadline on its own clock. */
  get until(): number {
    return this.#until;
  }

  /** Whether the term has ended. */
  get ended(): boolean {
    return this.#controller.signal.aborted;
  }

  /** Whether the term is on at `now`: not ended, and before the deadline. */
  active(now: number): boolean {
    return !this.ended && now < this.#until;
  }

  /** Moves the deadline later (a renewal). */
  extend(until: number): void {
    if (this.ended || until <= this.#until) return;
    this.#until = until;
    this.#arm();
  }

  /** Ends the term now; false when it had already ended. */
  end(reason: string): boolean {
    if (this.ended) return false;
    if (this.#timer !== undefined) this.#clock.clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#controller.abort(new LeaseLostError(`${this.#what}: ${reason}`));
    return true;
  }

  #arm(): void {
    if (this.#timer !== undefined) this.#clock.clearTimeout(this.#timer);
    this.#timer = this.#clock.setTimeout(() => {
      this.#timer = undefined;
      if (this.end("not renewed within the renew deadline")) this.#onLapse();
    }, this.#until - this.#clock.now());
  }
}
