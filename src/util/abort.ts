/**
 * Abort helpers: a controller linked to a parent signal, and a promise that gives up on abort.
 * Internal.
 * @module
 */

/** A controller that aborts when its parent does; `release()` unhooks it from the parent. */
export interface LinkedController {
  /** Aborts with the parent's reason when the parent aborts, or when `abort()` is called. */
  readonly controller: AbortController;
  /** Removes the listener on the parent (call when done, so nothing accumulates on it). */
  release(): void;
}

/** A controller that aborts when `parent` aborts (at once if it already has). */
export function linkedController(parent: AbortSignal | undefined): LinkedController {
  const controller = new AbortController();
  if (parent === undefined) return { controller, release: () => {} };
  const onAbort = (): void => controller.abort(parent.reason);
  if (parent.aborted) controller.abort(parent.reason);
  else parent.addEventListener("abort", onAbort, { once: true });
  return { controller, release: () => parent.removeEventListener("abort", onAbort) };
}

/**
 * Settles like `promise`, but rejects with the signal's reason as soon as `signal` aborts, for
 * work that ignores the signal. A value arriving after the abort goes to `late` (to release
 * it); a rejection after the abort is dropped (it is that same abort being noticed).
 */
export function abortable<T>(
  promise: Promise<T>,
  signal: AbortSignal | undefined,
  late?: (value: T) => void,
): Promise<T> {
  if (signal === undefined) return promise;
  return new Promise<T>((resolve, reject) => {
    let settled = false;
    const onAbort = (): void => {
      settled = true;
      reject(signal.reason);
    };
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        if (!settled) {
          settled = true;
          resolve(value);
        } else late?.(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        if (!settled) {
          settled = true;
          reject(error);
        }
      },
    );
  });
}
