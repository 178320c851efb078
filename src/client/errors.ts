/**
 * Typed errors for answers from (or failures reaching) the Kubernetes API.
 * @module
 */
import type { Status } from "./types.ts";
import { type ErrorKind, ownKindOf } from "../util/error_kind.ts";
import { messageOf } from "../util/values.ts";

/**
 * How many characters of a non-JSON error body an error keeps for its message.
 */
export const BODY_SNIPPET_LENGTH = 200;

/** Constructor options of {@linkcode KubeApiError}. */
export interface KubeApiErrorOptions {
  /** HTTP status code (or the `code` of a Status inside a watch ERROR event). */
  code: number;
  /** The decoded Kubernetes Status, when the body was one. */
  status?: Status;
  /** Seconds from a `Retry-After` header or `status.details.retryAfterSeconds`. */
  retryAfterSeconds?: number;
  /** Start of a body that was not a Status (plain text, HTML from a proxy). */
  bodySnippet?: string;
  /** Method and URL of the request, for the message. */
  request?: string;
  /** Underlying cause. */
  cause?: unknown;
}

/**
 * An error answer from the Kubernetes API: a non-2xx response or a watch ERROR event.
 * Carries the decoded `Status` when there was one, else the start of the body, and its
 * {@linkcode ErrorKind} (`expired` for 410, `unsupported` for 406, ...).
 *
 * @example
 * ```ts
 * import { KubeApiError } from "@kinformer/kinformer/client";
 * import assert from "node:assert/strict";
 * const err = KubeApiError.fromStatus({ kind: "Status", code: 410, reason: "Expired", message: "too old resource version" });
 * assert.ok(err.isExpired);
 * assert.equal(err.code, 410);
 * assert.equal(err.reason, "Expired");
 * assert.equal(err.kind, "expired");
 * ```
 */
export class KubeApiError extends Error {
  /** Always `"KubeApiError"`. */
  override name = "KubeApiError";
  /**
   * How the error is filed, from the code and the Status: `expired` (410), `too-large-rv` (a
   * ResourceVersionTooLarge cause), `unauthorized` (401), `forbidden` (403), `not-found` (404),
   * `unsupported` (406), `invalid` (400, 422), `rate-limited` (429), `server` (5xx), else `other`.
   */
  readonly kind: ErrorKind;
  /** HTTP status code, or the Status code of a watch ERROR event. */
  readonly code: number;
  /** Status `reason` (e.g. `Expired`, `NotFound`), or `""` when the body was not a Status. */
  readonly reason: string;
  /** The decoded Status, when the body was one. */
  readonly status: Status | undefined;
  /** Seconds to wait before retrying, from `Retry-After` or the Status details. */
  readonly retryAfterSeconds: number | undefined;
  /** Start of a non-Status body (plain text 429, HTML page from a proxy). */
  readonly bodySnippet: string | undefined;

  /** Builds an error; prefer {@linkcode KubeApiError.fromStatus} for a decoded Status. */
  constructor(options: KubeApiErrorOptions) {
    const { code, status, bodySnippet, request } = options;
    const what = status?.message ?? (bodySnippet === undefined ? "" : JSON.stringify(bodySnippet));
    const reason = status?.reason ?? "";
    // A 406 will be answered the same way however often it is retried: say so.
    const hint = code === 406
      ? " (the server cannot answer in the format asked for, e.g. metadata only for this" +
        " resource: this request cannot succeed as configured)"
      : "";
    super(
      `${request ? request + ": " : ""}Kubernetes API error ${code}${reason ? " " + reason : ""}${
        what ? ": " + what : ""
      }${hint}`,
      options.cause === undefined ? undefined : { cause: options.cause },
    );
    this.code = code;
    this.reason = reason;
    this.status = status;
    // A proxy or a broken server may send anything here: only a non-negative number counts.
    this.retryAfterSeconds = seconds(options.retryAfterSeconds) ??
      seconds(status?.details?.retryAfterSeconds);
    this.bodySnippet = bodySnippet;
    this.kind = this.isResourceVersionTooLarge
      ? "too-large-rv"
      : this.isExpired
      ? "expired"
      : kindOfCode(code);
  }

  /** Builds an error from a Kubernetes Status (as found in a watch ERROR event). */
  static fromStatus(status: Status, request?: string): KubeApiError {
    const options: KubeApiErrorOptions = { code: status.code ?? 500, status };
    if (request !== undefined) options.request = request;
    return new KubeApiError(options);
  }

  /** True for 410 (`Expired`, or `Gone` from servers up to 1.17): the client must relist. */
  get isExpired(): boolean {
    return this.code === 410 || this.reason === "Expired" || this.reason === "Gone";
  }

  /** True when the server said the requested resourceVersion is newer than it has. */
  get isResourceVersionTooLarge(): boolean {
    return this.status?.details?.causes?.some((c) =>
      (c.reason ?? c.type) === "ResourceVersionTooLarge"
    ) ??
      false;
  }
}

/**
 * The request never got an HTTP answer (connection refused, reset, DNS, TLS, or a credential
 * the transport could not get). The original error is the `cause`.
 *
 * @example
 * ```ts
 * import { KubeNetworkError } from "@kinformer/kinformer/client";
 * import assert from "node:assert/strict";
 * const err = new KubeNetworkError("GET http://127.0.0.1:1/api", new TypeError("fetch failed"));
 * assert.equal(err.message, "GET http://127.0.0.1:1/api: network error: fetch failed");
 * assert.ok(err.cause instanceof TypeError);
 * ```
 */
export class KubeNetworkError extends Error {
  /** Always `"KubeNetworkError"`. */
  override name = "KubeNetworkError";
  /**
   * `"network"`, or the kind of `cause` when it is one of kinformer's errors, e.g.
   * `"credentials"` when an exec plugin failed in the transport (`ExecCredentialError`).
   */
  readonly kind: ErrorKind;
  /** Builds the error for `request` (method and URL) caused by `cause`. */
  constructor(request: string, cause: unknown) {
    super(`${request}: network error: ${messageOf(cause)}`, { cause });
    this.kind = ownKindOf(cause) ?? "network";
  }
}

/** The kind of an HTTP error code that is neither expired nor a too-large resource version. */
function kindOfCode(code: number): ErrorKind {
  switch (code) {
    case 401:
      return "unauthorized";
    case 403:
      return "forbidden";
    case 404:
      return "not-found";
    case 406:
      return "unsupported";
    case 400:
    case 422:
      return "invalid";
    case 429:
      return "rate-limited";
  }
  return code >= 500 ? "server" : "other";
}

/** `value` when it is a finite, non-negative number of seconds; otherwise undefined. */
function seconds(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : undefined;
}
