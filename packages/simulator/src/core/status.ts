/**
 * Builders for the Kubernetes `Status` objects and error responses the simulated cluster
 * returns, shaped like the real API server's (field order included).
 * @module
 */
import { KubeApiError } from "@kinformer/kinformer/client";
import type { Status, StatusDetails } from "@kinformer/kinformer/client";
import { describeValue } from "@kinformer/kinformer/internal";

/** Headers every response carries (CORS headers are added by `cors.ts`, per origin). */
export const COMMON_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  "Cache-Control": "no-cache, private",
});

/** A Status object with the real server's field order. */
export function status(
  code: number,
  reason: string,
  message: string,
  details?: object,
): Status {
  const s: Status = {
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Failure",
    message,
    reason,
  };
  s.details = (details ?? {}) as StatusDetails;
  s.code = code;
  return s;
}

/** A JSON response with the common headers. */
export function jsonResponse(
  body: string,
  code: number,
  extraHeaders?: Record<string, string>,
): Response {
  return new Response(body, {
    status: code,
    headers: { ...COMMON_HEADERS, "Content-Type": "application/json", ...extraHeaders },
  });
}

/** An error response carrying `s` (its `code` is the HTTP status; `Retry-After` from details). */
export function statusResponse(s: Status, extraHeaders?: Record<string, string>): Response {
  const retry = s.details?.retryAfterSeconds;
  const headers = retry === undefined
    ? extraHeaders
    : { "Retry-After": String(retry), ...extraHeaders };
  return jsonResponse(JSON.stringify(s), s.code ?? 500, headers);
}

/** Throws `s` as a {@linkcode KubeApiError}; the HTTP front answers it as a Status response. */
export function fail(s: Status): never {
  throw KubeApiError.fromStatus(s);
}

/** Names a resource in messages the way the API server does: `pods`, `widgets.example.com`. */
export function qualifiedResource(resource: string, group: string | undefined): string {
  return group ? `${resource}.${group}` : resource;
}

/** The `details` of an object-level error. */
export function objectDetails(
  name: string,
  resource: string,
  group: string | undefined,
): StatusDetails {
  const d: StatusDetails = { name };
  if (group) d.group = group;
  d.kind = resource;
  return d;
}

/** 404 for a path no handler serves. */
export function pathNotFound(): Status {
  return status(404, "NotFound", "the server could not find the requested resource");
}

/** 404 for a missing object. */
export function objectNotFound(resource: string, group: string | undefined, name: string): Status {
  return status(
    404,
    "NotFound",
    `${qualifiedResource(resource, group)} "${name}" not found`,
    objectDetails(name, resource, group),
  );
}

/** 409 AlreadyExists. */
export function alreadyExists(resource: string, group: string | undefined, name: string): Status {
  return status(
    409,
    "AlreadyExists",
    `${qualifiedResource(resource, group)} "${name}" already exists`,
    objectDetails(name, resource, group),
  );
}

/** 409 Conflict for a stale `resourceVersion`. */
export function conflict(resource: string, group: string | undefined, name: string): Status {
  return status(
    409,
    "Conflict",
    `Operation cannot be fulfilled on ${
      qualifiedResource(resource, group)
    } "${name}": the object has been modified; please apply your changes to the latest version and try again`,
    objectDetails(name, resource, group),
  );
}

/** 409 Conflict for a `uid` precondition that does not name the stored object. */
export function uidConflict(
  resource: string,
  name: string,
  given: unknown,
  actual: string | undefined,
): Status {
  return status(
    409,
    "Conflict",
    `Operation cannot be fulfilled on ${resource} "${name}": Precondition failed: UID in precondition: ${given}, UID in object meta: ${actual}`,
    { name, kind: resource },
  );
}

/** 400 BadRequest. */
export function badRequest(message: string): Status {
  return status(400, "BadRequest", message);
}

/** 401 Unauthorized. */
export function unauthorized(): Status {
  return status(401, "Unauthorized", "Unauthorized");
}

/** 405 MethodNotAllowed. */
export function methodNotAllowed(): Status {
  return status(
    405,
    "MethodNotAllowed",
    "the server does not allow this method on the requested resource",
  );
}

/** One field problem of a 422 Invalid. */
export interface FieldProblem {
  /** `FieldValueForbidden`, `FieldValueRequired`, `FieldValueInvalid`, `FieldValueNotSupported`. */
  reason: string;
  /** Field path. */
  field: string;
  /** Human-readable problem, without the field. */
  message: string;
}

/** 422 Invalid for `kind` `name` (`ListOptions` for bad query options). */
export function invalid(
  kind: string,
  group: string,
  name: string,
  problems: FieldProblem[],
): Status {
  const text = problems.map((p) => `${p.field}: ${p.message}`).join(", ");
  const what = group ? `${kind}.${group}` : kind;
  return status(
    422,
    "Invalid",
    `${what} "${name}" is invalid: ${problems.length > 1 ? "[" + text + "]" : text}`,
    {
      name,
      group,
      kind,
      causes: problems.map((p) => ({ reason: p.reason, message: p.message, field: p.field })),
    },
  );
}

/** 410 Expired. */
export function expired(message: string): Status {
  return status(410, "Expired", message);
}

/** 504 for a `resourceVersion` newer than the server has (client-go retries). */
export function resourceVersionTooLarge(requested: string, current: number): Status {
  return status(
    504,
    "Timeout",
    `Too large resource version: ${requested}, current: ${current}`,
    {
      causes: [{ reason: "ResourceVersionTooLarge", message: "Too large resource version" }],
      retryAfterSeconds: 1,
    },
  );
}

/** 500 InternalError. */
export function internalError(message: string): Status {
  return status(500, "InternalError", `Internal error occurred: ${message}`, {
    causes: [{ message }],
  });
}

/** 503 ServiceUnavailable. */
export function serviceUnavailable(message: string): Status {
  return status(503, "ServiceUnavailable", message, { retryAfterSeconds: 1 });
}

/** 413 for a request body over `limit` bytes, worded like kube-apiserver's. */
export function requestEntityTooLarge(limit: number): Status {
  return status(413, "RequestEntityTooLarge", `Request entity too large: limit is ${limit}`);
}

/** 415 UnsupportedMediaType, listing the media types `accepted` (and what came, when given). */
export function unsupportedMediaType(accepted: readonly string[], got?: string): Status {
  return status(
    415,
    "UnsupportedMediaType",
    `the body of the request was in an unknown format - accepted media types include: ${
      accepted.join(", ")
    }${got === undefined ? "" : `; got ${describeValue(got)}`}`,
  );
}

/**
 * 415 for a protobuf request body: the simulated cluster reads JSON (and YAML for apply) only.
 * kubectl sends protobuf from its typed commands (`kubectl create configmap`, `create
 * namespace`); `kubectl apply`, `create -f` and `edit` send JSON.
 */
export function protobufNotSupported(): Status {
  return status(
    415,
    "UnsupportedMediaType",
    'the body of the request was in an unknown format - accepted media types include: application/json, application/merge-patch+json, application/strategic-merge-patch+json, application/json-patch+json, application/apply-patch+yaml; the simulated cluster does not decode "application/vnd.kubernetes.protobuf": send the object as JSON (kubectl apply -f and kubectl create -f do)',
  );
}

/**
 * 403 Forbidden for `resource` (`pods`, `deployments.apps`; empty for a non-resource path) and
 * `name` (empty when the request names no object), worded as kube-apiserver's.
 */
export function forbidden(
  resource: string,
  group: string,
  name: string,
  message: string,
): Status {
  const qualified = qualifiedResource(resource, group);
  const text = resource === ""
    ? `forbidden: ${message}`
    : name === ""
    ? `${qualified} is forbidden: ${message}`
    : `${qualified} ${describeValue(name)} is forbidden: ${message}`;
  const details: StatusDetails = {};
  if (name !== "") details.name = name;
  if (group !== "") details.group = group;
  if (resource !== "") details.kind = resource;
  return status(403, "Forbidden", text, details);
}

/** The plain-text 429 of the API server's rate limiter. */
export function tooManyRequests(retryAfter: number | string): Response {
  return new Response("Too many requests, please try again later.\n", {
    status: 429,
    headers: {
      ...COMMON_HEADERS,
      "Content-Type": "text/plain; charset=utf-8",
      "Retry-After": String(retryAfter),
      "X-Content-Type-Options": "nosniff",
    },
  });
}
