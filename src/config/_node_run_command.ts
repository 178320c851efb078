/**
 * Runs an exec credential plugin with `node:child_process` (Node, and Bun through its Node
 * compatibility): no shell, stdin closed, output collected up to a limit (internal).
 * @module
 */
import { spawn } from "node:child_process";
import { Buffer } from "node:buffer";
import process from "node:process";
import { type ExecCommand, type ExecCommandResult, STDOUT_LIMIT } from "./exec_credential.ts";

/** Bytes kept of each output stream: one past what a credential may be, which refuses it. */
const OUTPUT_LIMIT = STDOUT_LIMIT + 1;

/**
 * Runs `command` without a shell; rejects with the spawn error (code `ENOENT` for a missing
 * program) when it cannot start.
 */
export function runNodeCommand(command: ExecCommand): Promise<ExecCommandResult> {
  return new Promise((resolve, reject) => {
    let child;
    try {
      child = spawn(command.command, [...command.args], {
        env: { ...process.env, ...command.env },
        stdio: ["ignore", "pipe", "pipe"],
        windowsHide: true,
      });
    } catch (error) {
      reject(error);
      return;
    }
    const stdout = collect();
    const stderr = collect();
    child.stdout?.on("data", stdout.add);
    child.stderr?.on("data", stderr.add);
    let settled = false;
    child.once("error", (error) => {
      if (settled) return;
      settled = true;
      reject(error);
    });
    child.once("close", (code, signal) => {
      if (settled) return;
      settled = true;
      resolve({
        exitCode: code ?? (signal === null ? 1 : 128 + (signalNumbers[signal] ?? 0)),
        stdout: stdout.text(),
        stderr: stderr.text(),
      });
    });
  });
}

const signalNumbers: Record<string, number> = { SIGHUP: 1, SIGINT: 2, SIGKILL: 9, SIGTERM: 15 };

function collect(): { add(chunk: Uint8Array): void; text(): string } {
  const chunks: Uint8Array[] = [];
  let size = 0;
  return {
    add: (chunk) => {
      if (size >= OUTPUT_LIMIT) return;
      const kept = chunk.subarray(0, OUTPUT_LIMIT - size);
      chunks.push(kept);
      size += kept.byteLength;
    },
    text: () => new TextDecoder().decode(Buffer.concat(chunks, size)),
  };
}
