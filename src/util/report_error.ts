/**
 * Reports an error thrown by a user callback without letting it corrupt the caller's state:
 * the error is rethrown on a fresh microtask, the way an `EventTarget` reports a throwing
 * listener, so it reaches the runtime's uncaught-error handling instead of vanishing.
 * Internal.
 * @module
 */

/** Rethrows `error` asynchronously so it is reported as uncaught, never lost. */
export function reportError(error: unknown): void {
  queueMicrotask(() => {
    throw error;
  });
}
