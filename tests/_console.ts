// Catching what the library prints by default (the ErrorReporter of src/util/error_reporter.ts
// prints with console.error and console.warn): the test swaps both for functions that keep the
// lines, and restores them.

/**
 * The lines printed until `restore()`, each as `error <line>` or `warn <line>`; `firstError`
 * resolves when the first `console.error` line is printed.
 */
export function captureConsole(): {
  lines: string[];
  firstError: Promise<void>;
  restore: () => void;
} {
  const lines: string[] = [];
  const { error, warn } = console;
  let printedError!: () => void;
  const firstError = new Promise<void>((resolve) => printedError = resolve);
  console.error = (...args: unknown[]): void => {
    lines.push(`error ${args.join(" ")}`);
    printedError();
  };
  console.warn = (...args: unknown[]): void => void lines.push(`warn ${args.join(" ")}`);
  return {
    lines,
    firstError,
    restore: () => {
      console.error = error;
      console.warn = warn;
    },
  };
}
