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
import { onAbort } from "../../util/abort.ts";

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
    const chunks: Uint8Array[] = [];
    let size = 0;
    let settled = false;
    const finish = (): boolean => {
      if (settled) return false;
      settled = true;
      stopListening();
      return true;
    };
    const stop = (): void => {
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
    };
    const stopListening = onAbort(signal, () => {
      if (!finish()) return;
      stop();
      reject(signal.reason);
    });
    child.stdout?.on("data", (chunk: Uint8Array) => {
      if (settled) return;
      chunks.push(chunk);
      size += chunk.byteLength;
      if (size > command.maxStdoutBytes && finish()) {
        // Too much to be a credential: stop reading and stop the plugin; the caller refuses
        // what it got (longer than the limit).
        stop();
        resolve({ exitCode: 1, stdout: text(chunks) });
      }
    });
    child.stderr?.on("data", (chunk: Uint8Array) => {
      if (!settled) command.onStderr(chunk);
    });
    child.once("error", (error) => {
      if (finish()) reject(error);
    });
    child.once("close", (code, killedBy) => {
      if (!finish()) return;
      resolve({
        exitCode: code ?? (killedBy === null ? 1 : 128 + (SIGNAL_NUMBERS[killedBy] ?? 0)),
        stdout: text(chunks),
      });
    });
  });
}

const SIGNAL_NUMBERS: Record<string, number> = { SIGHUP: 1, SIGINT: 2, SIGKILL: 9, SIGTERM: 15 };

function text(chunks: readonly Uint8Array[]): string {
  const decoder = new TextDecoder();
  let out = "";
  for (const chunk of chunks) out += decoder.decode(chunk, { stream: true });
  return out + decoder.decode();
}
