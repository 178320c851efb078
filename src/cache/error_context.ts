/**
 * What an `onError` callback learns besides the error: one context type for the informer,
 * `watcher()` and the factory.
 * @module
 */
import type { ErrorKind } from "../util/error_kind.ts";

/**
 * Where an error happened: `list` (a LIST, or a checkpoint refused before the first one),
 * `stream` (a streaming list), `watch`, `handler` (a listener, an index function, a metrics
 * hook), `check` (a consistency check), `discovery` (reading what resources the server serves).
 */
export type ErrorPhase = "list" | "stream" | "watch" | "handler" | "check" | "discovery";

/**
 * The context of an `onError` call.
 *
 * @example
 * ```ts
 * import type { ErrorContext } from "@kinformer/kinformer/cache";
 * import assert from "node:assert/strict";
 * const seen: string[] = [];
 * const onError = (_error: unknown, context: ErrorContext): void => {
 *   seen.push(`${context.kind} during ${context.phase}, retry in ${context.retryInMs} ms`);
 * };
 * onError(new Error("boom"), { kind: "server", phase: "watch", retryInMs: 800 });
 * assert.deepEqual(seen, ["server during watch, retry in 800 ms"]);
 * ```
 */
export interface ErrorContext {
  /** How the error is filed. */
  kind: ErrorKind;
  /** What was going on. */
  phase: ErrorPhase;
  /** Delay before the next attempt, in ms (0 for errors that wait for nothing). */
  retryInMs: number;
}
