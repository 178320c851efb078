/**
 * Errors the reflector raises itself, and the classification of every error it meets.
 * @module
 */
import { KubeApiError, KubeNetworkError } from "../client/errors.ts";
import { WebSocketWatchError } from "../client/websocket_watch_error.ts";
import { WatchDecodeError } from "../watch/decode_error.ts";
import { LineTooLongError } from "../watch/line_splitter.ts";
import { DriftError } from "./drift_error.ts";

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
 * How the reflector files an error (the keys of `health().errors`):
 * `expired` (410: relist), `too-large-rv` (504 ResourceVersionTooLarge: consistent relist),
 * `unauthorized` (401), `forbidden` (403), `not-found` (404), `invalid` (400/422),
 * `rate-limited` (429), `server` (5xx), `network`, `decode` (a malformed or oversized line,
 * an HTML page, an unknown event type, a non-string resource version), `inactivity` (a watch
 * or a LIST response went silent), `initial-events-timeout`, `transform` (the `transform` option
 * threw; the object is skipped), `handler` (a listener or index function threw), `mutation`
 * (a cached object was changed in place; only with `detectMutations`), `drift` (a consistency
 * check found the cache differing from the server: a {@linkcode DriftError}), `other`.
 *
 * A watch over a WebSocket that fails (`WebSocketWatchError`) is filed by how it ended: a
 * failed handshake, an abnormal closure (1006, no close frame) or a queue overflow is `network`;
 * the server's close codes for data it could not send or that was malformed (1002 protocol
 * error, 1003 unsupported data, 1007 invalid payload, 1009 message too big) are `decode`; 1008
 * (policy violation) is `forbidden`; 1011 to 1014 (server error, restart, try again later, bad
 * gateway) are `server`; any other code is `other` (`network` when the close was not clean).
 */
export type ErrorKind =
  | "expired"
  | "too-large-rv"
  | "unauthorized"
  | "forbidden"
  | "not-found"
  | "invalid"
  | "rate-limited"
  | "server"
  | "network"
  | "decode"
  | "inactivity"
  | "initial-events-timeout"
  | "transform"
  | "handler"
  | "mutation"
  | "drift"
  | "other";

/**
 * Files an error under an {@linkcode ErrorKind}.
 *
 * @example
 * ```ts
 * import { classifyError } from "@kinformer/kinformer/cache";
 * import { KubeApiError } from "@kinformer/kinformer/client";
 * import assert from "node:assert/strict";
 * assert.equal(classifyError(new KubeApiError({ code: 429 })), "rate-limited");
 * assert.equal(classifyError(new KubeApiError({ code: 410 })), "expired");
 * ```
 */
export function classifyError(error: unknown): ErrorKind {
  if (error instanceof KubeApiError) {
    if (error.isResourceVersionTooLarge) return "too-large-rv";
    if (error.isExpired) return "expired";
    switch (error.code) {
      case 401:
        return "unauthorized";
      case 403:
        return "forbidden";
      case 404:
        return "not-found";
      case 400:
      case 422:
        return "invalid";
      case 429:
        return "rate-limited";
    }
    return error.code >= 500 ? "server" : "other";
  }
  if (error instanceof KubeNetworkError) return "network";
  if (error instanceof WebSocketWatchError) return webSocketErrorKind(error);
  if (error instanceof WatchDecodeError || error instanceof LineTooLongError) return "decode";
  if (error instanceof WatchInactivityError || error instanceof ListInactivityError) {
    return "inactivity";
  }
  if (error instanceof InitialEventsTimeoutError) return "initial-events-timeout";
  if (error instanceof DriftError) return "drift";
  // Fetch and body-stream failures surface as TypeError; user code (transform, handlers, index
  // functions) runs inside its own try/catch, so a TypeError reaching here is the network's.
  if (error instanceof TypeError) return "network";
  return "other";
}

/** How a failed WebSocket watch is filed (see {@linkcode ErrorKind}). */
function webSocketErrorKind(error: WebSocketWatchError): ErrorKind {
  if (error.phase !== "stream") return "network";
  switch (error.code) {
    case 1002:
    case 1003:
    case 1007:
    case 1009:
      return "decode";
    case 1008:
      return "forbidden";
    case 1011:
    case 1012:
    case 1013:
    case 1014:
      return "server";
    case 1006:
    case 1015:
    case undefined:
      return "network";
  }
  // Deno's WebSocket reports an abnormal closure as code 0, not clean.
  return error.wasClean ? "other" : "network";
}
