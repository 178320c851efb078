/**
 * The callbacks of a lease-based coordinator (leader elector, shard coordinator) and where
 * their errors (and those of its Lease requests) go: the one reporting path,
 * {@linkcode ErrorReporter}. Internal.
 * @module
 */
import type { Clock } from "../../util/clock.ts";
import { withDeadline } from "./lease_timing.ts";
import { messageOf } from "../../util/values.ts";
import type { ErrorReporter } from "../../util/error_reporter.ts";

/**
 * Observers of one coordinator: each is called synchronously and not awaited; a throw, or the
 * rejection of an async callback, is reported (phase `callback`) and kept as `lastError`. An
 * `onError` that throws is rethrown on a microtask (reported as uncaught), never swallowed.
 */
export class Observers<C> {
  readonly #clock: Clock;
  readonly #reporter: ErrorReporter;
  /** What the coordinator does after a failed request, and when it tries again. */
  readonly #retry: { action: string; inMs: number };
  readonly #set = new Set<C>();
  /** The last error reported, for `health()`. */
  lastError: { message: string; at: number } | undefined;

  constructor(clock: Clock, reporter: ErrorReporter, retry: { action: string; inMs: number }) {
    this.#clock = clock;
    this.#reporter = reporter;
    this.#retry = retry;
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
        if (r instanceof Promise) r.catch((error: unknown) => this.#callbackFailed(error));
      } catch (error) {
        this.#callbackFailed(error);
      }
    }
  }

  /**
   * Runs one request, `fn`, with a deadline `withinMs` from now ({@linkcode withDeadline});
   * its failure is reported (phase `lease`, `detail` what it was) unless `signal` aborted (that is
   * the coordinator stopping) and gives undefined. A success after failures is reported as
   * healthy again.
   */
  async request<T>(
    signal: AbortSignal,
    withinMs: number,
    what: string,
    fn: (signal: AbortSignal) => Promise<T>,
  ): Promise<T | undefined> {
    const at = this.#clock.now() + Math.max(0, withinMs);
    try {
      const result = await withDeadline(signal, this.#clock, at, what, fn);
      this.#reporter.healthy();
      return result;
    } catch (error) {
      if (!signal.aborted) {
        this.#record(error);
        this.#reporter.report(error, {
          phase: "lease",
          detail: what,
          action: this.#retry.action,
          retryInMs: this.#retry.inMs,
        });
      }
      return undefined;
    }
  }

  #callbackFailed(error: unknown): void {
    this.#record(error);
    this.#reporter.report(error, { phase: "callback", action: "going on" });
  }

  #record(error: unknown): void {
    this.lastError = { message: messageOf(error), at: this.#clock.now() };
  }
}
