/**
 * Waiting for a condition that an owner signals: the one waiter helper of every long-running
 * object (syncs, lifecycle states, resource versions). Internal.
 * @module
 */
import { onAbort } from "./abort.ts";
import { formatDuration, messageOf } from "./values.ts";

/** What a waited-for condition is now. */
export type WaitState = "done" | "failed" | "pending";

/** Options of {@linkcode Waiters.wait}. */
export interface WaitOptions {
  /** Stops waiting: the promise rejects with {@linkcode WaitOptions.aborted}'s error. */
  signal?: AbortSignal | undefined;
  /** The rejection when the condition says `"failed"`. */
  failure: () => unknown;
  /**
   * The rejection when `signal` aborts, given its reason.
   * @default the signal's reason
   */
  aborted?: ((reason: unknown) => unknown) | undefined;
}

/**
 * The waiters of one owner: {@linkcode Waiters.wait} resolves once its check says `"done"`,
 * rejects once it says `"failed"` or the signal aborts. The owner calls
 * {@linkcode Waiters.wake} whenever a condition may have changed; a waiter removes itself once
 * settled, and its abort listener is released.
 */
export class Waiters {
  readonly #set = new Set<() => void>();

  /** How many waiters are pending. */
  get size(): number {
    return this.#set.size;
  }

  /**
   * Re-checks every pending waiter. Called once per watch event (the informer's resource
   * version moved): with nobody waiting it allocates nothing.
   */
  wake(): void {
    if (this.#set.size === 0) return;
    for (const wake of [...this.#set]) wake();
  }

  /** Waits until `check()` settles (see {@linkcode Waiters}). */
  wait(check: () => WaitState, options: WaitOptions): Promise<void> {
    const { signal, failure, aborted } = options;
    return new Promise<void>((resolve, reject) => {
      const settle = (state: WaitState): void => {
        if (state === "done") resolve();
        else reject(failure());
      };
      const first = check();
      if (first !== "pending") return settle(first);
      const abort = (): void => reject(aborted ? aborted(signal?.reason) : signal?.reason);
      if (signal?.aborted) return abort();
      const wake = (): void => {
        const state = check();
        if (state === "pending") return;
        this.#set.delete(wake);
        release();
        settle(state);
      };
      this.#set.add(wake);
      const release = onAbort(signal, () => {
        this.#set.delete(wake);
        abort();
      });
    });
  }
}

/** What {@linkcode explainAbort} says about a wait that was cut short. */
export interface AbortExplanation {
  /** What was awaited, as a clause: `"pods informer not synced"`. */
  what: string;
  /** How long it was awaited, in ms. */
  waitedMs: number;
  /** The last error of the awaited object, if any: the explanation's `cause`. */
  lastError?: unknown;
  /** Appended to the message: `"; start() was never called"`. @default "" */
  hint?: string | undefined;
}

/**
 * The rejection of a wait whose signal fired, in words: `"pods informer not synced after 30 s:
 * last error 403 Forbidden: ..."` (or, with no error to blame, the reason's message in
 * parentheses: `"... after 30 s (signal timed out)"`). It keeps the reason's `name` (`TimeoutError` from
 * `AbortSignal.timeout()`, `AbortError`), so code that checks the name still works, and
 * carries the last error as `cause` (the signal's reason when there was none).
 */
export function explainAbort(reason: unknown, explanation: AbortExplanation): Error {
  const { what, waitedMs, lastError, hint = "" } = explanation;
  const last = lastError === undefined
    ? ` (${messageOf((reason as { message?: unknown } | undefined)?.message ?? reason)})`
    : `: last error ${messageOf(lastError)}`;
  const error = new Error(`${what} after ${formatDuration(waitedMs)}${last}${hint}`, {
    cause: lastError ?? reason,
  });
  const name = (reason as { name?: unknown } | undefined)?.name;
  error.name = typeof name === "string" && name !== "" ? name : "AbortError";
  return error;
}
