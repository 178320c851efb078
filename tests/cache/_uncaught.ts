// Catching what the library reports as uncaught (`reportError` in src/util/report_error.ts
// rethrows on a fresh microtask): the test swaps `queueMicrotask` for one that runs the task a
// microtask later, as the runtime would, but hands its throw to `onError` instead of the
// runtime's uncaught-error handling (which would fail the test run).

/** Catches throws of `queueMicrotask` tasks until the returned function restores it. */
export function catchUncaught(onError: (error: unknown) => void): () => void {
  const original = globalThis.queueMicrotask;
  globalThis.queueMicrotask = (task: () => void): void => {
    void Promise.resolve().then(() => {
      try {
        task();
      } catch (error) {
        onError(error);
      }
    });
  };
  return () => {
    globalThis.queueMicrotask = original;
  };
}
