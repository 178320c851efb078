/**
 * The parts of a config host that Node's process APIs give: the environment, `ENOENT`, the
 * path list separator, exec plugins through `node:child_process`, the terminal and standard
 * error. Node's host and Bun's (Bun runs these Node APIs) both use them.
 * Internal.
 * @module
 */
import process from "node:process";
import { isatty } from "node:tty";
import { runNodeCommand } from "./_run_command.ts";
import type { ConfigHost } from "../../config/config_loader_options.ts";

/** A {@linkcode ConfigHost} but for its `runtime`, `readFile` and `transport`. */
export const processHostParts: Pick<
  ConfigHost,
  "isNotFound" | "env" | "pathListSeparator" | "runCommand" | "stdinIsTerminal" | "writeStderr"
> = {
  isNotFound: (error) => (error as { code?: unknown } | null)?.code === "ENOENT",
  env: (name) => process.env[name],
  pathListSeparator: process.platform === "win32" ? ";" : ":",
  runCommand: runNodeCommand,
  stdinIsTerminal: () => isatty(0),
  writeStderr: (chunk) => process.stderr.write(chunk),
};
