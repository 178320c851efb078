/**
 * Abort helpers: listening for an abort, a controller linked to a parent signal, and a promise
 * that gives up on abort. Every abort listener of the library goes through {@linkcode onAbort}.
 * Internal.
 * @module
 */

/**
 * Calls `listener` once when `signal` aborts, or at once when it already has, and returns the
 * function that stops listening (call it when done, so nothing accumulates on a long-lived
 * signal). An `undefined` signal never aborts.
 */
export function onAbort(signal: AbortSignal | undefined, listener: () => void): () => void {
  if (signal === undefined) return noop;
  if (signal.aborted) {
    listener();
    return noop;
  }
  signal.addEventListener("abort", listener, { once: true });
  return () => signal.removeEventListener("abort", listener);
}

function noop(): void {}

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
  const release = onAbort(parent, () => controller.abort(parent?.reason));
  return { controller, release };
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
    const release = onAbort(signal, () => {
      settled = true;
      reject(signal.reason);
    });
    promise.then(
      (value) => {
        release();
        if (!settled) {
          settled = true;
          resolve(value);
        } else late?.(value);
      },
      (error: unknown) => {
        release();
        if (!settled) {
          settled = true;
          reject(error);
        }
      },
    );
  });
}
