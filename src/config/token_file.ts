/**
 * A bearer token read from a file that is rewritten while the process runs (the kubelet
 * rotates projected service account tokens; `tokenFile` in a kubeconfig).
 * @module
 */
import type { Clock } from "../util/clock.ts";
import { systemClock } from "../util/clock.ts";
import type { OnError } from "../util/error_context.ts";
import { ErrorReporter } from "../util/error_reporter.ts";
import { requireNumber } from "../util/validate.ts";
import { ClusterConfigError } from "./errors.ts";

/**
 * How often a token file is re-read by default (milliseconds), like client-go's cached file
 * token source.
 */
export const DEFAULT_TOKEN_REFRESH_MS = 60_000;

/** Options of {@linkcode tokenFileSource}. */
export interface TokenFileSourceOptions {
  /** Reads a whole text file (a runtime's `readTextFile`, or a stub in tests). */
  readFile: (path: string) => Promise<string>;
  /**
   * Time source deciding when the cached token is stale.
   * @default the system clock (`Date.now` and the global timers)
   */
  clock?: Clock | undefined;
  /**
   * The file is read again at most once per this many milliseconds.
   * @default 60_000
   */
  refreshIntervalMs?: number | undefined;
  /**
   * Told when a re-read fails while a previous token is still cached; that token is then
   * returned and the file tried again after the next interval. A failure with no cached token
   * rejects the call instead. The context is the one `ErrorContext` of kinformer: phase
   * `credentials`, `source` `token file <path>`, `retryInMs` the interval. It replaces the
   * default printing.
   * @default prints as every long-running object of kinformer does: the first failure of each
   * kind at once (`token file /var/run/.../token: credentials error: ...; using the cached
   * token`), then at most one line per kind per minute, and one line once a read succeeds
   */
  onError?: OnError | undefined;
}

/**
 * A token read from a file: call it for the token (pass it as `KubeClientOptions.token`), and
 * call `invalidate` from `KubeClientOptions.onUnauthorized` so a 401 makes the next call read
 * the file again at once.
 */
export interface TokenFileSource {
  /** The token: the cached one while it is fresh, else the file's. */
  (): Promise<string>;
  /**
   * Makes the next call read the file again. Given the request the server refused, only when
   * it carried the cached token (several refusals at once cause one read, not several).
   */
  invalidate(request?: Request): void;
}

/**
 * Returns a function giving the token in `path`, read on first use and again when the cached
 * copy is older than `refreshIntervalMs` on `clock` (as client-go's cached file token source),
 * or at once after `invalidate` (a 401 that carried it; client-go waits for the interval).
 * Concurrent callers share one read; surrounding whitespace is trimmed; an empty file is a
 * {@linkcode ClusterConfigError} with code `InvalidFile`.
 *
 * @example
 * ```ts
 * import { tokenFileSource } from "@kinformer/kinformer/config";
 * import assert from "node:assert/strict";
 * const files = new Map([["/token", "first\n"]]);
 * const token = tokenFileSource("/token", {
 *   readFile: (path) => Promise.resolve(files.get(path) ?? ""),
 *   refreshIntervalMs: 0,
 * });
 * assert.equal(await token(), "first"); // trailing newline trimmed
 * files.set("/token", "second");
 * assert.equal(await token(), "second");
 * ```
 *
 * @example After a 401, the file is read again at once
 * ```ts
 * import { tokenFileSource } from "@kinformer/kinformer/config";
 * import assert from "node:assert/strict";
 * let text = "old";
 * const token = tokenFileSource("/token", { readFile: () => Promise.resolve(text) });
 * assert.equal(await token(), "old");
 * text = "rotated";
 * assert.equal(await token(), "old"); // cached for up to 60 s
 * token.invalidate(new Request("https://cluster.example", { headers: { authorization: "Bearer old" } }));
 * assert.equal(await token(), "rotated");
 * ```
 */
export function tokenFileSource(
  path: string,
  options: TokenFileSourceOptions,
): TokenFileSource {
  const clock = options.clock ?? systemClock;
  const interval = requireNumber(
    options.refreshIntervalMs ?? DEFAULT_TOKEN_REFRESH_MS,
    "refreshIntervalMs",
    { min: 0 },
  );
  const reporter = new ErrorReporter({
    source: `token file ${path}`,
    onError: options.onError,
    clock,
  });
  let token: string | undefined;
  let readAt = 0;
  let pending: Promise<string> | undefined;

  const read = async (): Promise<string> => {
    try {
      const text = (await options.readFile(path)).trim();
      if (text === "") {
        throw new ClusterConfigError(`token file ${path} is empty`, { code: "InvalidFile", path });
      }
      token = text;
      reporter.healthy();
      return text;
    } catch (error) {
      if (token === undefined) throw error;
      reporter.report(error, {
        phase: "credentials",
        action: "using the cached token",
        retryInMs: interval,
      });
      return token;
    } finally {
      readAt = clock.now();
      stale = false;
    }
  };

  let stale = false;
  const source = (): Promise<string> => {
    if (token !== undefined && !stale && clock.now() - readAt < interval) {
      return Promise.resolve(token);
    }
    pending ??= read().finally(() => {
      pending = undefined;
    });
    return pending;
  };
  source.invalidate = (request?: Request): void => {
    if (request === undefined || request.headers.get("authorization") === `Bearer ${token}`) {
      stale = true;
    }
  };
  return source;
}
