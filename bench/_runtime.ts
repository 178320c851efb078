// Runtime glue for the benchmark processes (runtime sniffing is fine here, in bench code):
// command-line arguments, forced garbage collection and heap size on Deno, Bun and Node.

interface ProcessLike {
  argv: string[];
  memoryUsage(): { heapUsed: number; rss: number };
  cpuUsage(): { user: number; system: number };
  stdout: { write(text: string): unknown };
  exit(code?: number): void;
}

const proc = (globalThis as unknown as { process: ProcessLike }).process;

/** Which runtime runs this process. */
export const runtime: "deno" | "bun" | "node" = "Deno" in globalThis
  ? "deno"
  : "Bun" in globalThis
  ? "bun"
  : "node";

/** Arguments after the script name. */
export function args(): string[] {
  if (runtime === "deno") return (globalThis as unknown as { Deno: { args: string[] } }).Deno.args;
  return proc.argv.slice(2);
}

/** The value after `--name`, or `fallback`. */
export function option(name: string, fallback?: string): string {
  const a = args();
  const i = a.indexOf(`--${name}`);
  const value = i >= 0 ? a[i + 1] : fallback;
  if (value === undefined) throw new TypeError(`missing --${name}`);
  return value;
}

/** `option` as a number. */
export function numberOption(name: string, fallback?: number): number {
  const value = Number(option(name, fallback === undefined ? undefined : String(fallback)));
  if (!Number.isFinite(value)) throw new TypeError(`--${name} must be a number`);
  return value;
}

/**
 * A full, synchronous garbage collection. Needs `--expose-gc` on Node and
 * `--v8-flags=--expose-gc` on Deno; Bun has `Bun.gc(true)`.
 */
export function gc(): void {
  const g = globalThis as unknown as { gc?: () => void; Bun?: { gc(force: boolean): void } };
  if (g.Bun !== undefined) {
    g.Bun.gc(true);
    return;
  }
  if (g.gc === undefined) throw new Error("no gc(): run with --expose-gc");
  // Twice: the first pass may leave weakly held or finalizable objects for the second.
  g.gc();
  g.gc();
}

/** Bytes of JavaScript heap in use (V8 or JavaScriptCore). */
export function heapUsed(): number {
  return proc.memoryUsage().heapUsed;
}

/** CPU time of this process so far (every thread: the main one, GC helpers, I/O), in ms. */
export function cpuMs(): number {
  const { user, system } = proc.cpuUsage();
  return (user + system) / 1000;
}

/** Heap in use right after a full collection. */
export function heapAfterGc(): number {
  gc();
  return heapUsed();
}

/** Prints the one JSON result line the orchestrator reads, then exits. */
export function report(result: unknown): void {
  proc.stdout.write(`BENCH_RESULT ${JSON.stringify(result)}\n`);
  proc.exit(0);
}
