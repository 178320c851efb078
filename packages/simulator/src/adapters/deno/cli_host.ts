/**
 * The `kinformer-sim` command's host on Deno: `Deno.*` files, environment and standard output,
 * and the Deno.serve adapter; SIGINT and SIGTERM stop it.
 * @module
 */
import type { CommandHost } from "../../command/run_command.ts";
import { serve } from "./serve.ts";

declare const Deno: {
  args: string[];
  build: { os: string };
  env: { get(name: string): string | undefined };
  errors: { NotFound: new (...args: never[]) => Error };
  readTextFile(path: string): Promise<string>;
  writeTextFile(path: string, data: string, options?: { mode?: number }): Promise<void>;
  mkdir(path: string, options?: { recursive?: boolean }): Promise<void>;
  remove(path: string): Promise<void>;
  readDir(path: string): AsyncIterable<{ name: string; isFile: boolean }>;
  stdout: { writeSync(data: Uint8Array): number; isTerminal(): boolean };
  stderr: { writeSync(data: Uint8Array): number };
  addSignalListener(signal: "SIGINT" | "SIGTERM", handler: () => void): void;
  removeSignalListener(signal: "SIGINT" | "SIGTERM", handler: () => void): void;
  exitCode: number;
};

const encoder = new TextEncoder();

/** Writes all of `text` to a synchronous Deno writer. */
function writeAll(writer: { writeSync(data: Uint8Array): number }, text: string): void {
  let bytes = encoder.encode(text);
  while (bytes.length > 0) bytes = bytes.subarray(writer.writeSync(bytes));
}

/** The host: this process's files, environment and standard streams. */
export const denoCommandHost: CommandHost = {
  serve: (handler, options) => serve(handler, options),
  readTextFile: async (path) => {
    try {
      return await Deno.readTextFile(path);
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) return undefined;
      throw error;
    }
  },
  writeTextFile: async (path, text) => {
    const at = Math.max(path.lastIndexOf("/"), path.lastIndexOf("\\"));
    if (at > 0) await Deno.mkdir(path.slice(0, at), { recursive: true });
    await Deno.writeTextFile(path, text, { mode: 0o600 });
  },
  removeFile: async (path) => {
    try {
      await Deno.remove(path);
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    }
  },
  listFiles: async (dir) => {
    const names: string[] = [];
    for await (const entry of Deno.readDir(dir)) if (entry.isFile) names.push(entry.name);
    return names;
  },
  env: (name) => Deno.env.get(name),
  homeDir: Deno.env.get("HOME") ?? Deno.env.get("USERPROFILE"),
  pathListSeparator: Deno.build.os === "windows" ? ";" : ":",
  out: (text) => writeAll(Deno.stdout, text),
  err: (text) => writeAll(Deno.stderr, text),
  isTerminal: Deno.stdout.isTerminal(),
};

/** Runs the command with `Deno.args`, stopping at SIGINT or SIGTERM; sets the exit code. */
export async function main(): Promise<void> {
  const stop = new AbortController();
  const onSignal = (): void => stop.abort();
  const signals = Deno.build.os === "windows"
    ? ["SIGINT"] as const
    : ["SIGINT", "SIGTERM"] as const;
  for (const s of signals) Deno.addSignalListener(s, onSignal);
  const { runCommand } = await import("../../command/run_command.ts");
  Deno.exitCode = await runCommand(Deno.args, denoCommandHost, stop.signal);
  for (const s of signals) Deno.removeSignalListener(s, onSignal);
}
