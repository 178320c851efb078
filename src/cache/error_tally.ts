/**
 * The informer's tally of listing and watching errors: a count per kind and the last error,
 * for `health()` (`errors`, `lastError`) and as the `cause` of a `waitForSync` that timed out.
 * Reporting the error is the error reporter's job; this only remembers it.
 * @module
 */
import type { Clock } from "../util/clock.ts";
import type { ErrorKind } from "../util/error_kind.ts";
import { messageOf } from "../util/values.ts";

/** The last error as `health().lastError` shows it (a message, never the value). */
export interface LastError {
  /** Its kind. */
  kind: ErrorKind;
  /** Its message. */
  message: string;
  /** When it was recorded, by the informer's clock. */
  at: number;
}

/** Counts errors by kind and keeps the last one. Internal to the informer. */
export class ErrorTally {
  readonly #clock: Clock;
  #counts: Partial<Record<ErrorKind, number>> = {};
  #last: LastError | undefined;
  #lastValue: unknown;

  constructor(clock: Clock) {
    this.#clock = clock;
  }

  /** Counts `error` as one of `kind` and makes it the last error. */
  record(error: unknown, kind: ErrorKind): void {
    this.#counts[kind] = (this.#counts[kind] ?? 0) + 1;
    this.#last = { kind, message: messageOf(error), at: this.#clock.now() };
    this.#lastValue = error;
  }

  /** A copy of the counts, with `drift` set to `driftChecks` when there were any. */
  counts(driftChecks: number): Partial<Record<ErrorKind, number>> {
    return driftChecks > 0 ? { ...this.#counts, drift: driftChecks } : { ...this.#counts };
  }

  /** The last error, as `health()` shows it. */
  get last(): LastError | undefined {
    return this.#last;
  }

  /** The last error itself (the `cause` of a `waitForSync` that timed out). */
  get lastValue(): unknown {
    return this.#lastValue;
  }
}
