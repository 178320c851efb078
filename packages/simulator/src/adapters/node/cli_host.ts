/**
 * The `kinformer-sim` command's host on Node (and Bun): `node:fs`, `node:os`, `node:process`,
 * and the Node serve adapter; SIGINT and SIGTERM stop it.
 * @module
 */
import { mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import process from "node:process";
import type { CommandHost } from "../../command/run_command.ts";
import { serve } from "./serve.ts";

/** A missing file's error code. */
const isMissing = (error: unknown): boolean => (error as { code?: unknown }).code === "ENOENT";

/** The host: this process's files, environment and standard streams. */
export const nodeCommandHost: CommandHost = {
  serve: (handler, options) => serve(handler, options),
  readTextFile: async (path) => {
    try {
      return await readFile(path, "utf8");
    } catch (error) {
      if (isMissing(error)) return undefined;
      throw error;
    }
  },
  writeTextFile: async (path, text) => {
    const at = Math.max(path.lastIndexOf("/"), path.lastIndexOf("\\"));
    if (at > 0) await mkdir(path.slice(0, at), { recursive: true });
    await writeFile(path, text, { mode: 0o600 });
  },
  removeFile: (path) => rm(path, { force: true }),
  listFiles: async (dir) =>
    (await readdir(dir, { withFileTypes: true })).filter((e) => e.isFile()).map((e) => e.name),
  env: (name) => process.env[name],
  homeDir: homedir() || undefined,
  pathListSeparator: process.platform === "win32" ? ";" : ":",
  out: (text) => void process.stdout.write(text),
  err: (text) => void process.stderr.write(text),
  isTerminal: process.stdout.isTTY === true,
};

/** Runs the command with `process.argv`, stopping at SIGINT or SIGTERM; sets the exit code. */
export async function main(): Promise<void> {
  const stop = new AbortController();
  const onSignal = (): void => stop.abort();
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  const { runCommand } = await import("../../command/run_command.ts");
  process.exitCode = await runCommand(process.argv.slice(2), nodeCommandHost, stop.signal);
  process.off("SIGINT", onSignal);
  process.off("SIGTERM", onSignal);
}
