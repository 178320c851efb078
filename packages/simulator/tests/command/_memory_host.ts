// A CommandHost in memory for the command's tests: files in a Map, output in strings, and a
// serve that only reports a URL (nothing listens; the tests that need a server are in
// tests/adapters/cli_test.ts).
import type { CommandHost } from "../../src/command/run_command.ts";

/** A CommandHost whose files, environment and output the test reads and sets. */
export interface MemoryHost extends CommandHost {
  readonly files: Map<string, string>;
  readonly environment: Record<string, string>;
  readonly stdout: string[];
  isTerminal: boolean;
  readonly stderr: string[];
  /** Servers started and not closed. */
  readonly serving: Set<string>;
}

/** A fresh host; `files` are there at start. */
export function memoryHost(files: Record<string, string> = {}): MemoryHost {
  const map = new Map(Object.entries(files));
  const environment: Record<string, string> = {};
  const stdout: string[] = [];
  const stderr: string[] = [];
  const serving = new Set<string>();
  let port = 40000;
  return {
    files: map,
    environment,
    stdout,
    stderr,
    serving,
    serve: (_handler, options) => {
      const url = `https://${options.hostname}:${options.port || ++port}`;
      serving.add(url);
      return Promise.resolve({
        url,
        close: () => {
          serving.delete(url);
          return Promise.resolve();
        },
      });
    },
    readTextFile: (path) => Promise.resolve(map.get(path)),
    writeTextFile: (path, text) => {
      map.set(path, text);
      return Promise.resolve();
    },
    removeFile: (path) => {
      map.delete(path);
      return Promise.resolve();
    },
    listFiles: (dir) =>
      Promise.resolve(
        [...map.keys()].filter((p) => p.startsWith(`${dir}/`)).map((p) => p.slice(dir.length + 1)),
      ),
    env: (name) => environment[name],
    homeDir: "/home/me",
    pathListSeparator: ":",
    out: (text) => void stdout.push(text),
    err: (text) => void stderr.push(text),
    isTerminal: false,
  };
}
