/**
 * Runs an exec credential plugin with `node:child_process` (Node, and Bun through its Node
 * compatibility), as kubectl runs it: no shell; stderr passed on as it is written; stdin this
 * process's for an interactive run, else none; stdout read up to a limit; stopped with the
 * processes it started (its own process group, on POSIX, for a run without a terminal) when
 * the signal aborts. Internal.
 * @module
 */
import { spawn } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import process from "node:process";
import type { ExecCommand, ExecCommandResult } from "../../config/exec_command.ts";
import { trackCommandRun } from "../_command_run.ts";

/**
 * Runs `command` without a shell; rejects with the spawn error (code `ENOENT` for a missing
 * program) when it cannot start, and with the signal's reason when `command.signal` aborts.
 */
export function runNodeCommand(command: ExecCommand): Promise<ExecCommandResult> {
  return new Promise((resolve, reject) => {
    const { signal } = command;
    if (signal.aborted) return reject(signal.reason);
    // A run without a terminal gets its own process group, so stopping it stops whatever it
    // started too; an interactive one stays in ours, keeping the terminal (and Ctrl-C).
    const group = process.platform !== "win32" && command.stdin === "null";
    let child: ChildProcess;
    try {
      child = spawn(command.command, [...command.args], {
        env: { ...process.env, ...command.env },
        stdio: [command.stdin === "inherit" ? "inherit" : "ignore", "pipe", "pipe"],
        windowsHide: true,
        detached: group,
      });
    } catch (error) {
      reject(error);
      return;
    }
    const run = trackCommandRun(command, () => {
      if (child.exitCode === null && child.signalCode === null) {
        try {
          if (group && child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
          else child.kill("SIGKILL");
        } catch {
          child.kill("SIGKILL"); // the group is gone already: the process itself, if left
        }
      }
      child.stdout?.destroy();
      child.stderr?.destroy();
    }, { resolve, reject });
    child.stdout?.on("data", (chunk: Uint8Array) => run.stdout(chunk));
    child.stderr?.on("data", (chunk: Uint8Array) => run.stderr(chunk));
    child.once("error", (error) => run.failed(error, false));
    child.once("close", (code, killedBy) => {
      run.exited(code ?? (killedBy === null ? 1 : 128 + (SIGNAL_NUMBERS[killedBy] ?? 0)));
    });
  });
}

const SIGNAL_NUMBERS: Record<string, number> = { SIGHUP: 1, SIGINT: 2, SIGKILL: 9, SIGTERM: 15 };
