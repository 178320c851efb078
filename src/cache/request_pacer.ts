/**
 * When the reflector's next request may start: the backoff after failures, a server's
 * `Retry-After`, and the bound on how often requests start, composed around the reflector's
 * loop (as kube-rs's `StreamBackoff` wraps its watcher) rather than decided inside it.
 * @module
 */
import { KubeApiError } from "../client/errors.ts";
import type { Backoff } from "../util/backoff.ts";
import type { FailureWait } from "./reflector_state.ts";

/**
 * The longest delay a server can ask for with `Retry-After` (or `retryAfterSeconds` in a
 * Status) that the reflector honours, in ms: one minute, twice the backoff cap. A longer one is
 * clamped to it, so a proxy sending nonsense cannot park the informer for hours. It is also
 * the delay between attempts of a request the server says it can never answer as configured
 * (406 Not Acceptable, kind `unsupported`).
 */
export const MAX_RETRY_AFTER_MS = 60_000;

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

/**
 * The reflector's recovery, around its loop: told how each request ended, it answers how long
 * to wait before the next one. A failure owes the delay its {@linkcode FailureWait} says (the
 * backoff's next, or the server's `Retry-After` if longer, both clamped to
 * {@linkcode MAX_RETRY_AFTER_MS}; or that longest delay); a watch closed too soon owes the
 * backoff's next; anything else passes the {@linkcode RequestPacer}. A start that waits a debt
 * is spaced already, so the pacer counts only the others. A streaming list that completed and
 * closed continues as its watch at once, outside the pacer (which counted the stream). A
 * connection that works (a watch's first line, a completed list) resets the backoff. Internal.
 */
export class Recovery {
  readonly #backoff: Backoff;
  readonly #pacer: RequestPacer;
  /** Delay owed by how the last request ended, in ms (0: none). */
  #owed = 0;
  /** The next start continues a completed streaming list: not counted by the pacer. */
  #continuing = false;

  /** Recovers with `backoff` (the user's) and paces with `pacing` (the library's own). */
  constructor(backoff: Backoff, pacing: Backoff) {
    this.#backoff = backoff;
    this.#pacer = new RequestPacer(pacing);
  }

  /** How long to wait before the next request start, in ms (consumes what is owed). */
  nextDelay(): number {
    const owed = this.#owed;
    const continuing = this.#continuing;
    this.#owed = 0;
    this.#continuing = false;
    return continuing || owed > 0 ? owed : this.#pacer.nextDelay();
  }

  /** A request failed; returns the delay it owes (ms), 0 for none. */
  failed(wait: FailureWait, error: unknown): number {
    const owed = wait === "none"
      ? 0
      : wait === "longest"
      ? MAX_RETRY_AFTER_MS
      : Math.max(backoffDelay(this.#backoff), retryAfterMs(error));
    this.#owed = owed;
    this.#continuing = false;
    return owed;
  }

  /**
   * The server closed a watch cleanly: a healthy one owes nothing, an empty short one the
   * backoff's next delay; `continuing` (a completed streaming list) starts its watch at once.
   */
  closed(healthy: boolean, continuing: boolean): void {
    this.#owed = healthy ? 0 : this.#backoff.next();
    this.#continuing = continuing;
  }

  /** The connection works (a watch's first line, a completed list): back off from the start. */
  connected(): void {
    this.#backoff.reset();
  }

  /** A watch ended after `durationMs` (a long one restores the pacer's burst). */
  watchEnded(durationMs: number): void {
    this.#pacer.watchEnded(durationMs);
  }
}

/** The backoff's next delay, or 0 when a custom backoff answers nonsense (NaN, negative). */
function backoffDelay(backoff: Backoff): number {
  const ms = backoff.next();
  return typeof ms === "number" && ms > 0 ? Math.min(ms, MAX_RETRY_AFTER_MS) : 0;
}

/** The delay a server asked for (already validated by the client), clamped, in ms. */
function retryAfterMs(error: unknown): number {
  if (!(error instanceof KubeApiError) || error.retryAfterSeconds === undefined) return 0;
  return Math.min(error.retryAfterSeconds * 1000, MAX_RETRY_AFTER_MS);
}
