/**
 * Errors the reflector raises itself: its idle limits.
 * @module
 */
import { type ErrorKind, errorKindOf } from "../util/error_kind.ts";

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

/**
 * A streaming list (`sendInitialEvents`) stopped making progress (no byte for the limit) before
 * its `k8s.io/initial-events-end` bookmark, or ended without it; the reflector falls back to a
 * paged LIST for this relist and tries streaming again at the next one.
 *
 * @example
 * ```ts
 * import { InitialEventsTimeoutError } from "@kinformer/kinformer/cache";
 * import assert from "node:assert/strict";
 * const error = new InitialEventsTimeoutError(60_000);
 * assert.equal(error.name, "InitialEventsTimeoutError");
 * assert.equal(error.timeoutMs, 60_000);
 * ```
 */
export class InitialEventsTimeoutError extends Error {
  /** The error class name. */
  override name = "InitialEventsTimeoutError";
  /** Always `"initial-events-timeout"`. */
  readonly kind: ErrorKind = "initial-events-timeout";
  /** The limit that passed, in ms. */
  readonly timeoutMs: number;
  /**
   * Builds the error for a limit of `timeoutMs`; `closed` when the stream ended before the
   * bookmark instead.
   */
  constructor(timeoutMs: number, closed = false) {
    super(
      closed
        ? "streaming list ended before its initial-events-end bookmark; falling back to LIST"
        : `streaming list made no progress for ${timeoutMs} ms before its initial-events-end bookmark; falling back to LIST`,
    );
    this.timeoutMs = timeoutMs;
  }
}

/**
 * The old name of the internal `errorKindOf` (`src/util/error_kind.ts`), kept for tests
 * outside the cache layer until they move to it. Not exported from any module entry.
 * @deprecated Read `error.kind`, or use `errorKindOf` for values of any type.
 */
export const classifyError: (error: unknown) => ErrorKind = errorKindOf;
