/**
 * The callbacks of a lease-based coordinator (leader elector, shard coordinator) and where
 * their errors (and those of its Lease requests) go. Internal.
 * @module
 */
import type { Clock } from "../util/clock.ts";
import { withDeadline } from "./lease_timing.ts";
import { messageOf } from "../util/values.ts";

/**
 * Observers of one coordinator: each is called synchronously and not awaited; a throw, or the
 * rejection of an async callback, goes to `onError` (and `lastError`), never further.
 */
export class Observers<C> {
  readonly #clock: Clock;
  readonly #onError: (error: unknown) => void;
  readonly #set = new Set<C>();
  /** The last error reported, for `health()`. */
  lastError: { message: string; at: number } | undefined;

  constructor(clock: Clock, onError: (error: unknown) => void) {
    this.#clock = clock;
    this.#onError = onError;
  }

  /** Adds `observer`; returns the function that removes it. */
  add(observer: C): () => void {
    this.#set.add(observer);
    return () => void this.#set.delete(observer);
  }

  /** Calls every observer. */
  notify(call: (observer: C) => unknown): void {
    for (const o of [...this.#set]) {
      try {
        const r = call(o);
        if (r instanceof Promise) r.catch((error: unknown) => this.report(error));
      } catch (error) {
        this.report(error);
      }
    }
  }

  /**
   * Runs one request, `fn`, with a deadline `withinMs` from now ({@linkcode withDeadline});
   * its failure is reported (unless `signal` aborted: that is the coordinator stopping) and
   * gives undefined.
   */
  async request<T>(
    signal: AbortSignal,
    withinMs: number,
    what: string,
    fn: (signal: AbortSignal) => Promise<T>,
  ): Promise<T | undefined> {
    const at = this.#clock.now() + Math.max(0, withinMs);
    try {
      return await withDeadline(signal, this.#clock, at, what, fn);
    } catch (error) {
      if (!signal.aborted) this.report(error);
      return undefined;
    }
  }

  /** Records `error` and hands it to `onError` (whose own throw goes nowhere). */
  report(error: unknown): void {
    this.lastError = {
      message: messageOf(error),
      at: this.#clock.now(),
    };
    try {
      this.#onError(error);
    } catch {
      // An onError that throws has nowhere else to go; the coordinator keeps running.
    }
  }
}
