/**
 * The callbacks of a lease-based coordinator (leader elector, shard coordinator) and where
 * their errors (and those of its Lease requests) go. Internal.
 * @module
 */
import type { Clock } from "../util/clock.ts";
import { withDeadline } from "./lease_timing.ts";
import { messageOf } from "../util/values.ts";
import { reportError } from "../util/report_error.ts";

/**
 * What the `onError` of a {@linkcode LeaderElector} or a {@linkcode ShardCoordinator} learns
 * besides the error: `request` for a failed Lease request (network, server, timeout), `callback`
 * for a callback of yours that threw (or whose promise rejected).
 *
 * @example
 * ```ts
 * import type { CoordinationErrorContext } from "@kinformer/kinformer/controller";
 * import assert from "node:assert/strict";
 * const context: CoordinationErrorContext = { kind: "callback" };
 * assert.equal(context.kind, "callback");
 * ```
 */
export interface CoordinationErrorContext {
  /** Where the error comes from. */
  kind: "request" | "callback";
}

/**
 * Observers of one coordinator: each is called synchronously and not awaited; a throw, or the
 * rejection of an async callback, goes to `onError` (kind `callback`) and `lastError`. An
 * `onError` that throws is rethrown on a microtask (reported as uncaught), never swallowed.
 */
export class Observers<C> {
  readonly #clock: Clock;
  readonly #onError: (error: unknown, context: CoordinationErrorContext) => void;
  readonly #set = new Set<C>();
  /** The last error reported, for `health()`. */
  lastError: { message: string; at: number } | undefined;

  constructor(
    clock: Clock,
    onError: (error: unknown, context: CoordinationErrorContext) => void,
  ) {
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
        if (r instanceof Promise) r.catch((error: unknown) => this.report(error, "callback"));
      } catch (error) {
        this.report(error, "callback");
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
      if (!signal.aborted) this.report(error, "request");
      return undefined;
    }
  }

  /**
   * Records `error` and hands it to `onError`; an `onError` that throws is rethrown on a
   * microtask (the coordinator keeps running).
   */
  report(error: unknown, kind: CoordinationErrorContext["kind"]): void {
    this.lastError = {
      message: messageOf(error),
      at: this.#clock.now(),
    };
    try {
      this.#onError(error, { kind });
    } catch (thrown) {
      reportError(thrown);
    }
  }
}
