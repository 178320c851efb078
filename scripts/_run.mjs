// The scripts' one way to run another program: where the repository and its binaries are, and
// `run`, which captures what the program prints (and echoes it, when asked).
import { spawn } from "node:child_process";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";

/** The repository root. */
export const root = resolve(import.meta.dirname, "..");

/**
 * The environment under which Node runs the repository's TypeScript (tests, examples, and the
 * processes they start): the library and packages/simulator import each other by name, and
 * scripts/_workspace_node.mjs resolves those names to this checkout's sources (Deno does so from
 * deno.json's `workspace`, Bun from tsconfig.json's `paths`).
 */
export const WORKSPACE_ENV = Object.freeze({
  NODE_OPTIONS: `--import=${pathToFileURL(join(root, "scripts", "_workspace_node.mjs")).href}`,
});

/** Path of an installed binary in node_modules/.bin. */
export const bin = (name) => join(root, "node_modules", ".bin", name);

/**
 * Runs `cmd` with `args` in `cwd` (default: the repository) and resolves, never rejects, with
 * `{ code, stdout, stderr, out }`, `out` being both streams in the order they came. With
 * `echo`, the output is also written through as it comes. The child gets NO_COLOR=1 and no
 * FORCE_COLOR (Deno treats any FORCE_COLOR value as "force colour"), plus `env`. A program that
 * cannot be started ends with code 127 and the reason in `stderr`.
 */
export function run(cmd, args, { cwd = root, env = {}, echo = false } = {}) {
  const { FORCE_COLOR: _ignored, ...inherited } = process.env;
  return new Promise((done) => {
    const child = spawn(cmd, args, {
      cwd,
      env: { ...inherited, NO_COLOR: "1", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    let out = "";
    child.stdout.setEncoding("utf8").on("data", (d) => {
      stdout += d;
      out += d;
      if (echo) process.stdout.write(d);
    });
    child.stderr.setEncoding("utf8").on("data", (d) => {
      stderr += d;
      out += d;
      if (echo) process.stderr.write(d);
    });
    child.once("error", (error) => {
      const reason = `${cmd}: ${String(error)}`;
      done({ code: 127, stdout, stderr: stderr + reason, out: out + reason });
    });
    child.once("close", (code, signal) => {
      done({ code: code ?? (signal ? 128 : 1), stdout, stderr, out });
    });
  });
}
