/**
 * Errors the reflector raises itself: its idle limits.
 * @module
 */
import type { ErrorKind } from "../util/error_kind.ts";

/**
 * A watch sent nothing (no event, no bookmark) for longer than the inactivity limit; the
 * reflector assumes a half-open connection and reconnects from the last resource version.
 *
 * @example
 * ```ts
 * import { WatchInactivityError } from "@kinformer/kinformer/cache";
 * import assert from "node:assert/strict";
 * const error = new WatchInactivityError(120_000);
 * assert.equal(error.inactivityMs, 120_000);
 * assert.match(error.message, /watch sent nothing for 120000 ms/);
 * ```
 */
export class WatchInactivityError extends Error {
  /** The error class name. */
  override name = "WatchInactivityError";
  /** Always `"inactivity"`. */
  readonly kind: ErrorKind = "inactivity";
  /** The limit that passed, in ms. */
  readonly inactivityMs: number;
  /** Builds the error for a limit of `inactivityMs`. */
  constructor(inactivityMs: number) {
    super(`watch sent nothing for ${inactivityMs} ms; reconnecting (half-open connection?)`);
    this.inactivityMs = inactivityMs;
  }
}

/**
 * A LIST response sent no bytes for longer than the inactivity limit (a half-open connection,
 * or a server that stopped mid-body); the reflector retries. A list that keeps delivering bytes
 * is never cut, however long it takes.
 *
 * @example
 * ```ts
 * import { ListInactivityError } from "@kinformer/kinformer/cache";
 * import assert from "node:assert/strict";
 * assert.match(new ListInactivityError(150_000).message, /no bytes for 150000 ms/);
 * ```
 */
export class ListInactivityError extends Error {
  /** The error class name. */
  override name = "ListInactivityError";
  /** Always `"inactivity"`. */
  readonly kind: ErrorKind = "inactivity";
  /** The limit that passed, in ms. */
  readonly inactivityMs: number;
  /** Builds the error for a limit of `inactivityMs`. */
  constructor(inactivityMs: number) {
    super(`list response sent no bytes for ${inactivityMs} ms; retrying (half-open connection?)`);
    this.inactivityMs = inactivityMs;
  }
}

/** What {@linkcode InitialEventsTimeoutError} says besides its limit. */
export interface InitialEventsTimeoutOptions {
  /** The stream ended before its end bookmark (rather than going quiet). @default false */
  closed?: boolean | undefined;
  /**
   * What the stream showed before its end bookmark that a streaming list of kube-apiserver
   * does not: a plain `bookmark` (no `k8s.io/initial-events-end` annotation), or a `MODIFIED`
   * or `DELETED` event that kept arriving without the end bookmark. @default undefined
   */
  unexpected?: "bookmark" | "MODIFIED" | "DELETED" | undefined;
}

/**
 * A streaming list (`sendInitialEvents`) did not finish: it stopped making progress (no initial
 * object, and no byte of one, for the limit) before its `k8s.io/initial-events-end` bookmark,
 * or ended without it, or showed what a server that implements streaming lists never sends
 * before it (a plain bookmark; a MODIFIED or DELETED event) and did not finish within the
 * limit. The reflector falls back to a paged LIST for this relist and tries streaming again
 * at the next one.
 *
 * @example
 * ```ts
 * import { InitialEventsTimeoutError } from "@kinformer/kinformer/cache";
 * import assert from "node:assert/strict";
 * const error = new InitialEventsTimeoutError(60_000);
 * assert.equal(error.name, "InitialEventsTimeoutError");
 * assert.equal(error.kind, "initial-events-timeout");
 * assert.equal(error.timeoutMs, 60_000);
 * const odd = new InitialEventsTimeoutError(10_000, { unexpected: "bookmark" });
 * assert.match(odd.message, /bookmark without k8s.io\/initial-events-end/);
 * ```
 */
export class InitialEventsTimeoutError extends Error {
  /** The error class name. */
  override name = "InitialEventsTimeoutError";
  /** Always `"initial-events-timeout"`. */
  readonly kind: ErrorKind = "initial-events-timeout";
  /** The limit that passed, in ms. */
  readonly timeoutMs: number;
  /** What the stream showed that a streaming list does not, if anything. */
  readonly unexpected: "bookmark" | "MODIFIED" | "DELETED" | undefined;

  /**
   * Builds the error for a limit of `timeoutMs`. `options` may also be a boolean: the old
   * form of `{ closed }`.
   */
  constructor(timeoutMs: number, options: InitialEventsTimeoutOptions | boolean = {}) {
    const o = typeof options === "boolean" ? { closed: options } : options;
    const odd = o.unexpected === undefined
      ? ""
      : ` (it sent ${
        o.unexpected === "bookmark"
          ? "a bookmark without k8s.io/initial-events-end"
          : `a ${o.unexpected} event`
      } first: the server does not seem to implement streaming lists)`;
    super(
      o.closed === true
        ? `streaming list ended before its initial-events-end bookmark${odd}; falling back to LIST`
        : `streaming list made no progress for ${timeoutMs} ms before its initial-events-end bookmark${odd}; falling back to LIST`,
    );
    this.timeoutMs = timeoutMs;
    this.unexpected = o.unexpected;
  }
}
