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

/**
 * Hands `error` to a user's `onError` callback with its `context`. A callback that throws
 * breaks nothing and is not lost: its throw is reported with {@linkcode reportError}. The one
 * way the client, watch and cache layers give an error to user code (a user callback that
 * throws, such as a handler or a transform, is itself reported through here).
 */
export function callOnError<C>(
  onError: ((error: unknown, context: C) => void) | undefined,
  error: unknown,
  context: C,
): void {
  if (onError === undefined) return;
  try {
    onError(error, context);
  } catch (thrown) {
    reportError(thrown);
  }
}
