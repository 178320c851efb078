/**
 * Waiting for a condition that an owner signals (internal).
 * @module
 */
import { onAbort } from "./abort.ts";

/** What a waited-for condition is now. */
export type WaitState = "done" | "failed" | "pending";

/**
 * Resolves once `check()` says `"done"`, rejects with `failure` once it says `"failed"` (an
 * Error with that message, or what the function returns), or with the signal's reason on abort. The owner calls every function in `waiters` when the condition
 * may have changed; a waiter removes itself once settled, and its abort listener is released.
 */
export function waitFor(
  waiters: Set<() => void>,
  check: () => WaitState,
  failure: string | (() => unknown),
  signal?: AbortSignal,
): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const settle = (state: WaitState): void => {
      if (state === "done") resolve();
      else reject(typeof failure === "string" ? new Error(failure) : failure());
    };
    const first = check();
    if (first !== "pending") return settle(first);
    if (signal?.aborted) return reject(signal.reason);
    const wake = (): void => {
      const state = check();
      if (state === "pending") return;
      waiters.delete(wake);
      release();
      settle(state);
    };
    waiters.add(wake);
    const release = onAbort(signal, () => {
      waiters.delete(wake);
      reject(signal?.reason);
    });
  });
}
