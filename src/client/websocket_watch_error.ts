/**
 * The typed error of a watch over a WebSocket that failed or closed abnormally.
 * @module
 */
import type { ErrorKind } from "../util/error_kind.ts";

/** Options of {@linkcode WebSocketWatchError}. */
export interface WebSocketWatchErrorOptions {
  /**
   * `"handshake"`: the WebSocket never opened (refused, unreachable, or the server answered
   * the upgrade with an HTTP error, whose status a standard `WebSocket` does not show).
   * `"stream"`: it opened and then closed abnormally. `"queue"`: the consumer fell so far behind
   * that the client closed it.
   */
  phase: "handshake" | "stream" | "queue";
  /** The close code, when a close event came. */
  code?: number | undefined;
  /** The close reason sent by the server (possibly empty). */
  reason?: string | undefined;
  /** Whether the closing handshake completed (a close frame was exchanged). */
  wasClean?: boolean | undefined;
  /** The request (method and URL, no credential), for the message. */
  request?: string | undefined;
  /** Extra words for the message. */
  detail?: string | undefined;
  /** Underlying cause (an error thrown by the WebSocket factory, an `error` event). */
  cause?: unknown;
}

/**
 * A watch over a WebSocket failed: it never opened (`phase: "handshake"`), it closed without a
 * normal close (`phase: "stream"`: an abnormal closure, code 1006, or an error code the server
 * sent), or its messages piled up unread (`phase: "queue"`). A normal close (1000, 1001, or a
 * clean close without a code) is the end of the watch, not an error, exactly like the end of a
 * chunked HTTP watch.
 *
 * Its {@linkcode WebSocketWatchError.kind} follows the close code: an abnormal closure or a
 * handshake failure is `network`, a message the server calls undecodable (1002, 1003, 1007,
 * 1009) is `decode`, 1008 (policy) is `forbidden`, a server error (1011 to 1014) is `server`,
 * anything else `other` (`network` when the close was not clean).
 *
 * @example
 * ```ts
 * import { WebSocketWatchError } from "@kinformer/kinformer/client";
 * import assert from "node:assert/strict";
 * const error = new WebSocketWatchError({
 *   phase: "stream",
 *   code: 1006,
 *   wasClean: false,
 *   request: "WATCH ws://127.0.0.1:8001/api/v1/pods?watch=1",
 * });
 * assert.equal(error.code, 1006);
 * assert.equal(error.kind, "network");
 * assert.match(error.message, /closed abnormally \(code 1006\)/);
 * ```
 */
export class WebSocketWatchError extends Error {
  /** Always `"WebSocketWatchError"`. */
  override name = "WebSocketWatchError";
  /** Where it failed: before opening, while open, or on the client's queue. */
  readonly phase: "handshake" | "stream" | "queue";
  /** The close code, when a close event came (1006: no close frame, the connection dropped). */
  readonly code: number | undefined;
  /** The close reason (empty when the server sent none). */
  readonly reason: string;
  /** Whether the closing handshake completed. */
  readonly wasClean: boolean;
  /** How the error is filed, from the phase and the close code (see above). */
  readonly kind: ErrorKind;

  /** Builds the error; the message never holds a credential (only what `options` says). */
  constructor(options: WebSocketWatchErrorOptions) {
    const { phase, code, request } = options;
    const reason = options.reason ?? "";
    const what = phase === "handshake"
      ? "WebSocket handshake failed (refused, unreachable, or an HTTP error answer, whose status a WebSocket does not show)"
      : phase === "queue"
      ? "WebSocket watch closed by the client: unread messages piled up"
      : `WebSocket closed ${options.wasClean === true ? "with an error" : "abnormally"}`;
    const codeText = code === undefined ? "" : ` (code ${code}${reason ? `: ${reason}` : ""})`;
    const detail = options.detail === undefined ? "" : `: ${options.detail}`;
    super(
      `${request ? request + ": " : ""}${what}${codeText}${detail}`,
      options.cause === undefined ? undefined : { cause: options.cause },
    );
    this.phase = phase;
    this.code = code;
    this.reason = reason;
    this.wasClean = options.wasClean ?? false;
    this.kind = phase === "stream" ? closeCodeKind(code, this.wasClean) : "network";
  }
}

/** How a WebSocket watch that closed with `code` while open is filed. */
function closeCodeKind(code: number | undefined, wasClean: boolean): ErrorKind {
  switch (code) {
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
  return wasClean ? "other" : "network";
}
