/**
 * The bookkeeping of one exec plugin run that the Deno and Node runners share: it settles once
 * (exit, failure, too much stdout, or the signal aborting, whichever comes first), keeps stdout
 * up to the limit, passes stderr on while open, and stops the plugin when the run ends before
 * it does. The runners start the process and feed it. Internal; no runtime APIs here.
 * @module
 */
import type { ExecCommand, ExecCommandResult } from "../config/exec_command.ts";
import { onAbort } from "../util/abort.ts";

/** One run, as its runner feeds it: see {@linkcode trackCommandRun}. */
export interface CommandRun {
  /** Whether the run has resolved or rejected. */
  readonly settled: boolean;
  /** Keeps a chunk of stdout; past `maxStdoutBytes`, stops the plugin and resolves exit code 1. */
  stdout(chunk: Uint8Array): void;
  /** Passes a chunk of stderr on to `onStderr` while the run is open. */
  stderr(chunk: Uint8Array): void;
  /** The plugin exited (its output read): resolves with its exit code and stdout. */
  exited(exitCode: number): void;
  /** Rejects with `error`, first stopping the plugin unless `stopPlugin` is false. */
  failed(error: unknown, stopPlugin?: boolean): void;
}

/**
 * Tracks a started run of `command`: `stop` kills the plugin (its process group) and closes its
 * pipes; `resolve`/`reject` settle the runner's promise, each at most once, and the signal's
 * listener is removed when they do.
 */
export function trackCommandRun(
  command: ExecCommand,
  stop: () => void,
  settle: { resolve(result: ExecCommandResult): void; reject(error: unknown): void },
): CommandRun {
  const chunks: Uint8Array[] = [];
  let size = 0;
  let settled = false;
  const finish = (): boolean => {
    if (settled) return false;
    settled = true;
    stopListening();
    return true;
  };
  const failed = (error: unknown, stopPlugin = true): void => {
    if (!finish()) return;
    if (stopPlugin) stop();
    settle.reject(error);
  };
  // Assigned after: a signal aborted already calls the listener (and finish()) at once.
  let stopListening = (): void => {};
  stopListening = onAbort(command.signal, () => failed(command.signal.reason));
  return {
    get settled(): boolean {
      return settled;
    },
    stdout(chunk) {
      if (settled) return;
      chunks.push(chunk);
      size += chunk.byteLength;
      if (size > command.maxStdoutBytes && finish()) {
        // Too much to be a credential: stop reading and stop the plugin; the caller refuses
        // what it got (longer than the limit).
        stop();
        settle.resolve({ exitCode: 1, stdout: text(chunks) });
      }
    },
    stderr(chunk) {
      if (!settled) command.onStderr(chunk);
    },
    exited(exitCode) {
      if (finish()) settle.resolve({ exitCode, stdout: text(chunks) });
    },
    failed,
  };
}

function text(chunks: readonly Uint8Array[]): string {
  const decoder = new TextDecoder();
  let out = "";
  for (const chunk of chunks) out += decoder.decode(chunk, { stream: true });
  return out + decoder.decode();
}
