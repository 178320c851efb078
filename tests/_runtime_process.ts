// Helpers for tests that run other programs (deno, bun, node, workerd, esbuild, chromium):
// where the repository and its binaries are, child processes that are always reaped, temporary
// directories, and esbuild bundles. Works under Deno, Bun and Node (node:* APIs only).
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";

/** The repository root: the parent of this file's folder (tests/ or .node-tests/), else the cwd. */
export const ROOT: string = (() => {
  const candidates = [process.cwd()];
  try {
    candidates.unshift(fileURLToPath(new URL("..", import.meta.url)));
  } catch {
    // Not a file URL; the working directory remains.
  }
  return candidates.find((dir) => existsSync(join(dir, "deno.json"))) ?? process.cwd();
})();

/**
 * The flag (Node, Bun, esbuild) under which the package's own name resolves to its sources
 * (package.json's `kinformer-source` condition): the examples import `@kinformer/kinformer` as
 * user code does. Deno resolves the name through deno.json without it.
 */
export const SOURCE_CONDITION = "--conditions=kinformer-source";

/** Path of an installed binary in node_modules/.bin. */
export function bin(name: string): string {
  return join(ROOT, "node_modules", ".bin", name);
}

/** Why a test cannot run when `path` does not exist, else undefined. */
export function missingBinary(path: string, what: string): string | undefined {
  return existsSync(path) ? undefined : `${what} is not installed (${path} not found)`;
}

/** Environment for children: no colours, no update checks, no inherited FORCE_COLOR. */
export function childEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v !== undefined && k !== "FORCE_COLOR") env[k] = v;
  }
  return { ...env, NO_COLOR: "1", DENO_NO_UPDATE_CHECK: "1", ...extra };
}

/** How a child ended. */
export interface Exit {
  code: number | null;
  signal: string | null;
}

/** Options of {@linkcode startProcess}. */
export interface StartOptions {
  cwd?: string;
  env?: Record<string, string>;
  /** Open fd 3 as a pipe (workerd's `--control-fd=3`). @default false */
  controlPipe?: boolean;
  /** Kill the child if it still runs after this long (a safety net, not an assertion). @default 15000 */
  killAfterMs?: number;
}

/** A running child whose output is captured; `kill()` it in a `finally`. */
export class ChildHandle {
  readonly command: string;
  readonly child: ChildProcess;
  readonly exited: Promise<Exit>;
  #stdout = "";
  #stderr = "";
  #control = "";
  #waiters = new Set<() => void>();
  #exit: Exit | undefined;
  #killTimer: ReturnType<typeof setTimeout>;

  constructor(command: string, args: readonly string[], options: StartOptions = {}) {
    this.command = command;
    this.child = spawn(command, args, {
      cwd: options.cwd ?? ROOT,
      env: options.env ?? childEnv(),
      stdio: options.controlPipe ? ["ignore", "pipe", "pipe", "pipe"] : ["ignore", "pipe", "pipe"],
    });
    const listen = (stream: unknown, add: (text: string) => void): void => {
      const s = stream as { on(ev: "data", fn: (d: unknown) => void): void } | null;
      s?.on("data", (d) => {
        add(String(d));
        for (const wake of [...this.#waiters]) wake();
      });
    };
    listen(this.child.stdout, (t) => (this.#stdout += t));
    listen(this.child.stderr, (t) => (this.#stderr += t));
    if (options.controlPipe) listen(this.child.stdio[3], (t) => (this.#control += t));
    this.exited = new Promise<Exit>((resolve) => {
      const done = (exit: Exit): void => {
        if (this.#exit !== undefined) return;
        this.#exit = exit;
        clearTimeout(this.#killTimer);
        for (const wake of [...this.#waiters]) wake();
        resolve(exit);
      };
      this.child.once("error", (error) => {
        this.#stderr += `\nspawn failed: ${String(error)}`;
        done({ code: null, signal: "spawn-error" });
      });
      this.child.once("close", (code, signal) => done({ code, signal }));
    });
    this.#killTimer = setTimeout(() => {
      this.#stderr += `\n(killed: still running after ${options.killAfterMs ?? 15_000} ms)`;
      this.child.kill("SIGKILL");
    }, options.killAfterMs ?? 15_000);
  }

  get stdout(): string {
    return this.#stdout;
  }
  get stderr(): string {
    return this.#stderr;
  }
  /** Everything printed, for assertion messages. */
  get output(): string {
    return `--- ${this.command} stdout\n${this.#stdout}\n--- stderr\n${this.#stderr}`;
  }

  /**
   * Resolves with the first match of `pattern` in stdout (`"stdout"`) or fd 3 (`"control"`);
   * rejects if the child exits without printing it.
   */
  async waitFor(
    pattern: RegExp,
    where: "stdout" | "control" = "stdout",
  ): Promise<RegExpMatchArray> {
    for (;;) {
      const text = where === "stdout" ? this.#stdout : this.#control;
      const match = text.match(pattern);
      if (match !== null) return match;
      if (this.#exit !== undefined) {
        throw new Error(
          `${this.command} exited (${
            JSON.stringify(this.#exit)
          }) before printing ${pattern}\n${this.output}`,
        );
      }
      await new Promise<void>((resolve) => {
        const wake = (): void => {
          this.#waiters.delete(wake);
          resolve();
        };
        this.#waiters.add(wake);
      });
    }
  }

  /** Terminates the child (SIGTERM, then SIGKILL if it lingers) and waits for it to exit. */
  async kill(): Promise<Exit> {
    if (this.#exit === undefined) {
      this.child.kill("SIGTERM");
      const hard = setTimeout(() => this.child.kill("SIGKILL"), 2_000);
      try {
        await this.exited;
      } finally {
        clearTimeout(hard);
      }
    }
    clearTimeout(this.#killTimer);
    return await this.exited;
  }
}

/** Starts a child process. */
export function startProcess(
  command: string,
  args: readonly string[],
  options?: StartOptions,
): ChildHandle {
  return new ChildHandle(command, args, options);
}

/** Runs a child to completion (killed in any case) and returns its exit and output. */
export async function runProcess(
  command: string,
  args: readonly string[],
  options?: StartOptions,
): Promise<Exit & { stdout: string; stderr: string; output: string }> {
  const child = startProcess(command, args, options);
  try {
    const exit = await child.exited;
    return { ...exit, stdout: child.stdout, stderr: child.stderr, output: child.output };
  } finally {
    await child.kill();
  }
}

/** Runs `fn` with a fresh temporary directory, removed afterwards. */
export async function withTempDir<T>(prefix: string, fn: (dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), `kinformer-${prefix}-`));
  try {
    return await fn(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * Bundles `entry` (relative to the repository) into `outfile` with the esbuild CLI: one ESM
 * file for Workers or browsers, nothing external.
 */
export async function bundle(
  entry: string,
  outfile: string,
  platform: "browser" | "neutral",
): Promise<void> {
  const result = await runProcess(bin("esbuild"), [
    join(ROOT, entry),
    "--bundle",
    "--format=esm",
    `--platform=${platform}`,
    "--target=es2022",
    SOURCE_CONDITION,
    `--outfile=${outfile}`,
    "--log-level=warning",
  ]);
  if (result.code !== 0) throw new Error(`esbuild ${entry} failed\n${result.output}`);
}

/**
 * Resolves once `condition()` holds, checking every 10 ms; rejects with `what` after
 * `limitMs`. For state that another process changes (a connection it closes), where no event
 * tells this one; the limit bounds the test, it is not a timing assertion.
 */
export async function eventually(
  condition: () => boolean,
  what: string,
  limitMs = 5_000,
): Promise<void> {
  for (let waited = 0; !condition(); waited += 10) {
    if (waited >= limitMs) throw new Error(`still not true after ${limitMs} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
