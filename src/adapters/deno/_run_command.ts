/**
 * Runs an exec credential plugin with `Deno.Command`, as kubectl runs it: no shell; stderr
 * passed on as it is written; stdin this process's for an interactive run, else none; stdout
 * read up to a limit; stopped with the processes it started (its own process group, on POSIX,
 * for a run without a terminal) when the signal aborts. Internal.
 * @module
 */
import type { ExecCommand, ExecCommandResult } from "../../config/exec_command.ts";
import { trackCommandRun } from "../_command_run.ts";

/** The part of the `Deno` namespace this file uses. */
interface DenoProcessApi {
  build: { os: string };
  kill(pid: number, signal: "SIGKILL"): void;
  Command: new (command: string, options: {
    args: string[];
    env: Record<string, string>;
    stdin: "inherit" | "null";
    stdout: "piped";
    stderr: "piped";
    detached: boolean;
    windowsRawArguments?: boolean;
  }) => { spawn(): DenoChild };
}

interface DenoChild {
  readonly pid: number;
  readonly stdout: ReadableStream<Uint8Array>;
  readonly stderr: ReadableStream<Uint8Array>;
  readonly status: Promise<{ code: number; signal: string | null }>;
  kill(signal: "SIGKILL"): void;
}

function deno(): DenoProcessApi {
  const api = (globalThis as unknown as { Deno?: DenoProcessApi }).Deno;
  if (api === undefined) throw new TypeError("this exec plugin runner runs on Deno only");
  return api;
}

/**
 * Runs `command` with `Deno.Command`; rejects with Deno's error (`Deno.errors.NotFound` for a
 * missing program) when it cannot start, and with the signal's reason when `command.signal`
 * aborts.
 */
export function runDenoCommand(command: ExecCommand): Promise<ExecCommandResult> {
  return new Promise((resolve, reject) => {
    const { signal } = command;
    if (signal.aborted) return reject(signal.reason);
    const api = deno();
    // A run without a terminal gets its own process group, so stopping it stops whatever it
    // started too; an interactive one stays in ours, keeping the terminal (and Ctrl-C).
    const group = api.build.os !== "windows" && command.stdin === "null";
    let child: DenoChild;
    try {
      child = new api.Command(command.command, {
        args: [...command.args],
        env: { ...command.env },
        stdin: command.stdin,
        stdout: "piped",
        stderr: "piped",
        detached: group,
      }).spawn();
    } catch (error) {
      reject(error);
      return;
    }
    const out = child.stdout.getReader();
    const err = child.stderr.getReader();
    let exited = false;
    const run = trackCommandRun(command, () => {
      if (!exited) {
        try {
          if (group) api.kill(-child.pid, "SIGKILL");
          else child.kill("SIGKILL");
        } catch {
          try {
            child.kill("SIGKILL"); // the group is gone already: the process itself, if left
          } catch {
            // Gone too.
          }
        }
      }
      out.cancel().catch(() => {});
      err.cancel().catch(() => {});
    }, { resolve, reject });
    const readStdout = async (): Promise<void> => {
      for (;;) {
        const { done, value } = await out.read();
        if (done || run.settled) return;
        run.stdout(value);
      }
    };
    const readStderr = async (): Promise<void> => {
      for (;;) {
        const { done, value } = await err.read();
        if (done) return;
        run.stderr(value);
      }
    };
    const status = child.status.then((s) => {
      exited = true;
      return s;
    });
    Promise.all([readStdout(), readStderr(), status]).then(
      ([, , s]) => run.exited(s.code),
      (error: unknown) => run.failed(error),
    );
  });
}
