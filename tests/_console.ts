// Catching what the library prints by default (the ErrorReporter of src/util/error_reporter.ts
// prints with console.error and console.warn): the test swaps both for functions that keep the
// lines, and restores them.

/** The lines printed until `restore()`, each as `error <line>` or `warn <line>`. */
export function captureConsole(): { lines: string[]; restore: () => void } {
  const lines: string[] = [];
  const { error, warn } = console;
  console.error = (...args: unknown[]): void => void lines.push(`error ${args.join(" ")}`);
  console.warn = (...args: unknown[]): void => void lines.push(`warn ${args.join(" ")}`);
  return {
    lines,
    restore: () => {
      console.error = error;
      console.warn = warn;
    },
  };
}
