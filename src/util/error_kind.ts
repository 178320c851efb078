/**
 * How errors are filed: the {@linkcode ErrorKind} every error class of the client, watch and
 * cache layers carries from where it is raised, and the fallback for errors from elsewhere.
 * @module
 */

/**
 * How an error is filed (the keys of an informer's `health().errors`, the `kind` of an
 * `onError` context, and the `kind` field of kinformer's error classes):
 *
 * - `expired`: 410 (Expired, or Gone from servers up to 1.17): relist;
 * - `too-large-rv`: 504 with a ResourceVersionTooLarge cause: relist consistently;
 * - `unauthorized` (401), `forbidden` (403), `not-found` (404);
 * - `unsupported`: 406 Not Acceptable, e.g. a metadata-only request to a server that cannot
 *   serve one: it cannot succeed as configured, so it is retried only at the longest backoff;
 * - `invalid`: 400 or 422 (a request the server refuses as written, e.g. a resource version it
 *   cannot parse), or an argument that does not parse (a selector);
 * - `rate-limited` (429), `server` (5xx), `network` (no HTTP answer, or the body broke off);
 * - `decode`: a malformed or oversized watch line, an HTML page, an unknown event type;
 * - `inactivity`: a watch or a LIST response went silent past the idle limit;
 * - `initial-events-timeout`: a streaming list never finished (or showed it never will);
 * - `checkpoint`: a `resumeFrom` checkpoint was refused (the informer lists instead);
 * - `transform`: the `transform` option threw (the object is skipped);
 * - `handler`: a listener, an index function or a metrics hook threw;
 * - `mutation`: a cached object was changed in place (only with `detectMutations`);
 * - `drift`: a consistency check found the cache differing from the server;
 * - `config`: a cluster configuration that cannot be read or used (`ClusterConfigError`,
 *   `KubeconfigParseError`, `YamlSyntaxError` of `@kinformer/kinformer/config`);
 * - `credentials`: an exec credential plugin gave no usable credential (`ExecCredentialError`):
 *   a request needing it fails before it is sent, and is retried on the backoff;
 * - `other`: anything else.
 *
 * A watch over a WebSocket that fails (`WebSocketWatchError`) is filed by how it ended: a
 * failed handshake, an abnormal closure (1006, no close frame) or a queue overflow is `network`;
 * the server's close codes for data it could not send or that was malformed (1002 protocol
 * error, 1003 unsupported data, 1007 invalid payload, 1009 message too big) are `decode`; 1008
 * (policy violation) is `forbidden`; 1011 to 1014 (server error, restart, try again later, bad
 * gateway) are `server`; any other code is `other` (`network` when the close was not clean).
 * A request that got no HTTP answer is a `KubeNetworkError`: `network`, or the kind of its cause
 * when the cause is one of kinformer's (an exec plugin failing in the transport: `credentials`).
 *
 * @example
 * ```ts
 * import type { ErrorKind } from "@kinformer/kinformer/client";
 * import { KubeApiError } from "@kinformer/kinformer/client";
 * import assert from "node:assert/strict";
 * const kind: ErrorKind = new KubeApiError({ code: 429 }).kind;
 * assert.equal(kind, "rate-limited");
 * ```
 */
export type ErrorKind =
  | "expired"
  | "too-large-rv"
  | "unauthorized"
  | "forbidden"
  | "not-found"
  | "unsupported"
  | "invalid"
  | "rate-limited"
  | "server"
  | "network"
  | "decode"
  | "inactivity"
  | "initial-events-timeout"
  | "checkpoint"
  | "transform"
  | "handler"
  | "mutation"
  | "drift"
  | "config"
  | "credentials"
  | "other";

/** Every {@linkcode ErrorKind}, to tell a kinformer error's `kind` from another `kind` field. */
const KINDS: ReadonlySet<string> = new Set<ErrorKind>([
  "expired",
  "too-large-rv",
  "unauthorized",
  "forbidden",
  "not-found",
  "unsupported",
  "invalid",
  "rate-limited",
  "server",
  "network",
  "decode",
  "inactivity",
  "initial-events-timeout",
  "checkpoint",
  "transform",
  "handler",
  "mutation",
  "drift",
  "config",
  "credentials",
  "other",
]);

/**
 * The kind of any thrown value: the `kind` an error carries when it is an {@linkcode ErrorKind};
 * otherwise `foreign` when given (what an error of no kind is where it was caught: `handler` for
 * a throw of user code), else `network` for a `TypeError` (how `fetch` and body streams fail:
 * user code such as a transform or a handler runs inside its own try/catch, so a TypeError
 * reaching a request loop is the network's), and `other` for anything else. Internal.
 */
export function errorKindOf(error: unknown, foreign?: ErrorKind): ErrorKind {
  return ownKindOf(error) ?? foreign ?? (error instanceof TypeError ? "network" : "other");
}

/** The {@linkcode ErrorKind} `error` carries itself, if any (no fallback). Internal. */
export function ownKindOf(error: unknown): ErrorKind | undefined {
  if (typeof error === "object" && error !== null) {
    const kind = (error as { kind?: unknown }).kind;
    if (typeof kind === "string" && KINDS.has(kind)) return kind as ErrorKind;
  }
  return undefined;
}
