/**
 * The bound on how often the reflector starts requests, whatever the server does.
 * @module
 */
import type { Backoff } from "../util/backoff.ts";

/**
 * Request starts (LIST rounds and watches) allowed back to back before pacing begins.
 */
export const PACER_BURST = 5;

/**
 * A watch that stays open this long (ms) shows a working connection: the burst is restored.
 */
export const PACER_STABLE_WATCH_MS = 1_000;

/**
 * Spaces the reflector's request starts once they come too often. Up to {@linkcode PACER_BURST}
 * starts go out at once; after that each start waits the next delay of `backoff` (growing, with
 * jitter) until a watch stays open for {@linkcode PACER_STABLE_WATCH_MS}. So a server or proxy
 * that ends every watch at once (after one event, or with an error the reflector would
 * otherwise retry at once) sees a short burst, then requests spaced further and further apart.
 * Internal.
 */
export class RequestPacer {
  readonly #backoff: Backoff;
  #starts = 0;

  /** Paces with `backoff` (its delays space the starts after the burst). */
  constructor(backoff: Backoff) {
    this.#backoff = backoff;
  }

  /** Counts a start; returns the delay (ms) to wait before it. */
  nextDelay(): number {
    if (this.#starts < PACER_BURST) {
      this.#starts++;
      return 0;
    }
    return this.#backoff.next();
  }

  /** A watch lasted `durationMs`: a long enough one restores the burst. */
  watchEnded(durationMs: number): void {
    if (durationMs < PACER_STABLE_WATCH_MS) return;
    this.#starts = 0;
    this.#backoff.reset();
  }
}
