/**
 * The command line of `kinformer-sim`: its options, their defaults and their checks. No runtime
 * APIs here.
 * @module
 */

/** What the command runs with, once its arguments are read. */
export interface CommandOptions {
  /** Port; 0 picks a free one. */
  port: number;
  /** Interface to listen on. */
  host: string;
  /** Kubeconfig file to write or merge into; undefined: `$KUBECONFIG`'s first, else `~/.kube/config`. */
  kubeconfig: string | undefined;
  /** Name of the context (and its cluster and user). */
  context: string;
  /** Name of the fixture set to start with. */
  fixtures: string;
  /** Folder of manifests to apply at start. */
  manifests: string | undefined;
  /** Seed of the cluster's random choices (churn, names). */
  seed: number | undefined;
  /** Random pod changes per second in namespace `default`; 0: none. */
  churn: number;
  /** Seconds between dropping every open watch; 0: never. */
  dropWatchesEvery: number;
  /** Seconds between compactions of the watch history; 0: never. */
  compactEvery: number;
  /** Largest chunk of a response body in bytes; 0: whole bodies. */
  chunkBytes: number;
  /** Seconds between status lines when the output is not a terminal. */
  statusEvery: number;
}

/**
 * Wrong command-line arguments: the message says which and what is expected.
 *
 * @example
 * ```ts
 * import { CommandUsageError, parseCommandArgs } from "@kinformer/simulator/command";
 * import assert from "node:assert/strict";
 * assert.throws(() => parseCommandArgs(["--port", "http"]), CommandUsageError);
 * ```
 */
export class CommandUsageError extends TypeError {
  /** The error's name. */
  override readonly name = "CommandUsageError";
}

/**
 * The help text (`--help`).
 *
 * @example
 * ```ts
 * import { USAGE } from "@kinformer/simulator/command";
 * import assert from "node:assert/strict";
 * assert.match(USAGE, /^Usage: kinformer-sim/);
 * ```
 */
export const USAGE = `Usage: kinformer-sim [options]

Starts a simulated Kubernetes API server on HTTPS (a CA made at start) and writes a context
for it into a kubeconfig; runs until Ctrl-C or SIGTERM, then takes the context out again.

  --port N                 port to listen on (default 0: a free one)
  --host HOST              interface to listen on (default 127.0.0.1)
  --kubeconfig PATH        kubeconfig to add the context to (default: the first file of
                           $KUBECONFIG, else ~/.kube/config; created when missing)
  --context NAME           name of the context, cluster and user (default kinformer-sim)
  --fixtures NAME          objects to start with: demo (default; pods web-1, web-2, api-1 and
                           configmap settings in namespace default) or none
  --manifests DIR          also apply the .yaml, .yml and .json files of DIR at start
  --seed N                 seed of the random choices (churn), for a repeatable run
  --churn RATE             random pod creates/updates/deletes per second in namespace default
  --drop-watches-every S   drop every open watch each S seconds (clients re-watch)
  --compact-every S        compact the watch history each S seconds (old versions get 410)
  --chunk-bytes N          send response bodies in chunks of at most N bytes
  --status-every S         seconds between status lines when output is not a terminal (10)
  --help                   this text
`;

const NUMBERS = {
  "--port": { key: "port", min: 0, max: 65535, integer: true },
  "--seed": { key: "seed", min: 0, max: 2 ** 32 - 1, integer: true },
  "--churn": { key: "churn", min: 0, max: 100_000, integer: false },
  "--drop-watches-every": { key: "dropWatchesEvery", min: 0, max: 86_400, integer: false },
  "--compact-every": { key: "compactEvery", min: 0, max: 86_400, integer: false },
  "--chunk-bytes": { key: "chunkBytes", min: 0, max: 2 ** 30, integer: true },
  "--status-every": { key: "statusEvery", min: 0.1, max: 86_400, integer: false },
} as const;

const STRINGS = {
  "--host": "host",
  "--kubeconfig": "kubeconfig",
  "--context": "context",
  "--fixtures": "fixtures",
  "--manifests": "manifests",
} as const;

/**
 * Reads `args` (`--name value` or `--name=value`); `"help"` for `--help`/`-h`. Throws a
 * {@linkcode CommandUsageError} for an unknown option, a missing value or a value out of range.
 *
 * @example
 * ```ts
 * import { parseCommandArgs } from "@kinformer/simulator/command";
 * import assert from "node:assert/strict";
 * const options = parseCommandArgs(["--port", "6443", "--fixtures=none"]);
 * assert.ok(options !== "help");
 * assert.equal(options.port, 6443);
 * assert.equal(options.context, "kinformer-sim");
 * ```
 */
export function parseCommandArgs(args: readonly string[]): CommandOptions | "help" {
  const options: CommandOptions = {
    port: 0,
    host: "127.0.0.1",
    kubeconfig: undefined,
    context: "kinformer-sim",
    fixtures: "demo",
    manifests: undefined,
    seed: undefined,
    churn: 0,
    dropWatchesEvery: 0,
    compactEvery: 0,
    chunkBytes: 0,
    statusEvery: 10,
  };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === "--help" || arg === "-h") return "help";
    const eq = arg.indexOf("=");
    const flag = eq > 0 && arg.startsWith("--") ? arg.slice(0, eq) : arg;
    const known = flag in NUMBERS || flag in STRINGS;
    if (!known) throw new CommandUsageError(`unknown option ${JSON.stringify(arg)} (see --help)`);
    let value: string | undefined = eq > 0 && arg.startsWith("--") ? arg.slice(eq + 1) : args[++i];
    if (value === undefined || value === "") {
      throw new CommandUsageError(`${flag} needs a value (see --help)`);
    }
    if (flag in STRINGS) {
      options[STRINGS[flag as keyof typeof STRINGS]] = value;
      continue;
    }
    const rule = NUMBERS[flag as keyof typeof NUMBERS];
    const n = Number(value.trim());
    if (
      value.trim() === "" || !Number.isFinite(n) || n < rule.min || n > rule.max ||
      (rule.integer && !Number.isInteger(n))
    ) {
      throw new CommandUsageError(
        `${flag} must be ${
          rule.integer ? "an integer" : "a number"
        } from ${rule.min} to ${rule.max}, got ${JSON.stringify(value)}`,
      );
    }
    value = undefined;
    options[rule.key] = n;
  }
  return options;
}
