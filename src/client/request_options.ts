/**
 * The options of each client request, their validation, and their conversion to query
 * parameters (apart from the client, so the rules can be read and tested on their own).
 * @module
 */
import type { AnyResourceDescriptor } from "./resource.ts";
import type { KubeObjectLike } from "./types.ts";
import type { WatchTransport } from "./watch_transport.ts";
import { checkBoolean, checkFunction, checkNumber, checkString } from "../util/validate.ts";
import { describeValue, isRecord } from "../util/values.ts";
import type { TraceContext } from "./trace_context.ts";

/** A query parameter value; `undefined` leaves the parameter out. */
export type QueryValue = string | number | boolean | undefined;

/** Options of {@linkcode KubeClient.request}. */
export interface KubeRequestOptions {
  /**
   * HTTP method.
   * @default "GET"
   */
  method?: string | undefined;
  /**
   * Query parameters, encoded with `URLSearchParams`; `undefined` values are left out.
   * @default {}
   */
  query?: Record<string, QueryValue> | undefined;
  /**
   * Request body, sent as JSON (`JSON.stringify`) with `Content-Type: application/json`
   * unless `headers` sets another content type. `undefined` sends no body.
   * @default undefined
   */
  body?: unknown;
  /**
   * Headers for this request only; they override client headers of the same name.
   * @default {}
   */
  headers?: Record<string, string> | undefined;
  /**
   * Aborts the request; the promise then rejects with the signal's reason.
   * @default undefined
   */
  signal?: AbortSignal | undefined;
  /**
   * The W3C trace context this request belongs to (sent as `traceparent`/`tracestate`).
   * @default the client's `traceContext`
   */
  trace?: TraceContext | undefined;
}

/** Value of `resourceVersionMatch`. */
export type ResourceVersionMatch = "Exact" | "NotOlderThan";

/** Options of {@linkcode KubeClient.list} (one page). */
export interface ListOptions {
  /**
   * Namespace to list; absent or `""` lists every namespace (or a cluster-scoped resource).
   * @default undefined
   */
  namespace?: string | undefined;
  /**
   * Label selector in its string form, e.g. `app=web,tier!=db`.
   * @default undefined
   */
  labelSelector?: string | undefined;
  /**
   * Field selector in its string form, e.g. `spec.nodeName=node-1`.
   * @default undefined
   */
  fieldSelector?: string | undefined;
  /**
   * Page size (a positive integer); the answer carries `metadata.continue` when more remain.
   * @default undefined (the server sends everything)
   */
  limit?: number | undefined;
  /**
   * `metadata.continue` of the previous page.
   * @default undefined
   */
  continue?: string | undefined;
  /**
   * Resource version to serve the list at: absent or `""` for a consistent read, `"0"` for
   * any (possibly stale) state from the watch cache.
   * @default undefined
   */
  resourceVersion?: string | undefined;
  /**
   * How `resourceVersion` is interpreted.
   * @default undefined
   */
  resourceVersionMatch?: ResourceVersionMatch | undefined;
  /**
   * Aborts the request and the reading of the body.
   * @default undefined
   */
  signal?: AbortSignal | undefined;
  /**
   * The W3C trace context this request belongs to (sent as `traceparent`/`tracestate`).
   * @default the client's `traceContext`
   */
  trace?: TraceContext | undefined;
  /**
   * Called once with the page's `metadata.continue` token (`""` on the last page) as soon as
   * it is seen at the head of the body, before the rest of the page has arrived, so the next
   * page can be requested while this one is still being read (pipelined paging). Not called
   * when the head does not carry the token before `items`.
   * @default undefined
   */
  onContinue?: ((token: string) => void) | undefined;
  /**
   * Called each time a chunk of the body arrives, with the bytes received so far: a heartbeat
   * for an idle timer (a large list over a slow link keeps delivering bytes for a long time).
   * @default undefined
   */
  onProgress?: ((receivedBytes: number) => void) | undefined;
}

/** Options of {@linkcode KubeClient.watch}. */
export interface WatchOptions {
  /**
   * Namespace to watch; absent or `""` watches every namespace (or a cluster-scoped resource).
   * @default undefined
   */
  namespace?: string | undefined;
  /**
   * Label selector in its string form.
   * @default undefined
   */
  labelSelector?: string | undefined;
  /**
   * Field selector in its string form.
   * @default undefined
   */
  fieldSelector?: string | undefined;
  /**
   * Watch changes after this resource version; absent sends the current state first.
   * @default undefined
   */
  resourceVersion?: string | undefined;
  /**
   * Ask for BOOKMARK events.
   * @default undefined
   */
  allowWatchBookmarks?: boolean | undefined;
  /**
   * Server-side timeout of the watch, in whole seconds (a non-negative integer). The client
   * never puts a whole-request timeout on a watch.
   * @default undefined (the server's default)
   */
  timeoutSeconds?: number | undefined;
  /**
   * Streaming list: send the current state as events, then a bookmark. Needs
   * `resourceVersionMatch: "NotOlderThan"`.
   * @default undefined
   */
  sendInitialEvents?: boolean | undefined;
  /**
   * How `resourceVersion` is interpreted (with `sendInitialEvents`).
   * @default undefined
   */
  resourceVersionMatch?: ResourceVersionMatch | undefined;
  /**
   * `"http"`: a chunked HTTP response. `"websocket"`: the same watch over a WebSocket.
   * `"auto"`: WebSocket in browsers, HTTP elsewhere (see `WatchTransport`).
   * @default the client's `watchTransport` ("http" unless set)
   */
  transport?: WatchTransport | undefined;
  /**
   * Aborts the request and, with a real `fetch`, the body stream.
   * @default undefined
   */
  signal?: AbortSignal | undefined;
  /**
   * The W3C trace context this request belongs to (sent as `traceparent`/`tracestate`).
   * @default the client's `traceContext`
   */
  trace?: TraceContext | undefined;
}

/**
 * A subresource that {@linkcode KubeClient.get}, `replace`, `patch` and `apply` can address:
 * `status` (only the object's `status` changes; the object type is the resource's own) or
 * `scale` (an `autoscaling/v1` {@linkcode Scale} whose `spec.replicas` is the object's).
 */
export type Subresource = "status" | "scale";

/** Options of {@linkcode KubeClient.get}. */
export interface GetOptions {
  /**
   * Namespace of the object; required for namespaced resources.
   * @default undefined
   */
  namespace?: string | undefined;
  /**
   * Read this subresource of the object instead (`scale` answers a `Scale`).
   * @default undefined
   */
  subresource?: Subresource | undefined;
  /**
   * Aborts the request.
   * @default undefined
   */
  signal?: AbortSignal | undefined;
  /**
   * The W3C trace context this request belongs to (sent as `traceparent`/`tracestate`).
   * @default the client's `traceContext`
   */
  trace?: TraceContext | undefined;
}

/** What every write takes: who writes, and whether it is only a trial. */
export interface WriteCommonOptions {
  /**
   * Name of the writer, recorded in `metadata.managedFields` (query `fieldManager`): at most
   * 128 printable characters. Without it the server derives one from the user agent.
   * @default undefined
   */
  fieldManager?: string | undefined;
  /**
   * A dry run (query `dryRun=All`): the server validates and answers what it would store, and
   * stores nothing.
   * @default false
   */
  dryRun?: boolean | undefined;
  /**
   * Aborts the request.
   * @default undefined
   */
  signal?: AbortSignal | undefined;
  /**
   * The W3C trace context this request belongs to (sent as `traceparent`/`tracestate`).
   * @default the client's `traceContext`
   */
  trace?: TraceContext | undefined;
}

/** Options of {@linkcode KubeClient.create} and {@linkcode KubeClient.replace}. */
export interface WriteOptions extends WriteCommonOptions {
  /**
   * Namespace of the object; defaults to `object.metadata.namespace` for namespaced
   * resources. Both set but different is a TypeError.
   * @default undefined
   */
  namespace?: string | undefined;
  /**
   * Replace this subresource (`replace` only): `status` changes only the status, `scale`
   * takes a {@linkcode Scale}. A `create` with it is a TypeError.
   * @default undefined
   */
  subresource?: Subresource | undefined;
}

/** Kind of patch and its `Content-Type`. */
export type PatchType = "merge" | "strategic" | "json";

/** Options of {@linkcode KubeClient.patch}. */
export interface PatchOptions extends WriteCommonOptions {
  /**
   * Namespace of the object; required for namespaced resources.
   * @default undefined
   */
  namespace?: string | undefined;
  /**
   * `merge` (JSON merge patch, RFC 7386), `strategic` (strategic merge patch, built-in types
   * only) or `json` (JSON patch, RFC 6902: an array of operations). Server-side apply is
   * {@linkcode KubeClient.apply}.
   * @default "merge"
   */
  type?: PatchType | undefined;
  /**
   * Patch this subresource (`scale` patches a {@linkcode Scale}).
   * @default undefined
   */
  subresource?: Subresource | undefined;
}

/** Options of {@linkcode KubeClient.apply} (server-side apply). */
export interface ApplyOptions extends WriteCommonOptions {
  /**
   * Name of the applier: required. The server records which fields it set, and a later apply
   * by the same manager that leaves a field out removes it (unless another manager owns it).
   */
  fieldManager: string;
  /**
   * Take over fields another manager owns with a different value, instead of the 409
   * Conflict (`FieldManagerConflict` causes) the server answers by default.
   * @default false
   */
  force?: boolean | undefined;
  /**
   * Namespace of the object; defaults to `object.metadata.namespace` for namespaced
   * resources. Both set but different is a TypeError.
   * @default undefined
   */
  namespace?: string | undefined;
  /**
   * Apply to this subresource: `status` (only status fields count) or `scale` (a
   * {@linkcode Scale}).
   * @default undefined
   */
  subresource?: Subresource | undefined;
}

/** Conditions the stored object must meet for a delete to happen (else 409 Conflict). */
export interface DeletePreconditions {
  /** The object's `metadata.uid`: protects against deleting a re-created namesake. */
  uid?: string | undefined;
  /** The object's `metadata.resourceVersion`: deletes only the version you have seen. */
  resourceVersion?: string | undefined;
}

/** Options of {@linkcode KubeClient.delete}. */
export interface DeleteOptions {
  /**
   * Namespace of the object; required for namespaced resources.
   * @default undefined
   */
  namespace?: string | undefined;
  /**
   * Whether and how dependents are garbage-collected.
   * @default undefined (the resource's default)
   */
  propagationPolicy?: "Foreground" | "Background" | "Orphan" | undefined;
  /**
   * Grace period in whole seconds (a non-negative integer); `0` deletes immediately.
   * @default undefined (the object's default)
   */
  gracePeriodSeconds?: number | undefined;
  /**
   * Delete only if the stored object still has this uid and/or resourceVersion (sent in a
   * `DeleteOptions` body); otherwise the server answers 409 Conflict.
   * @default undefined
   */
  preconditions?: DeletePreconditions | undefined;
  /**
   * A dry run (query `dryRun=All`): nothing is deleted.
   * @default false
   */
  dryRun?: boolean | undefined;
  /**
   * Aborts the request.
   * @default undefined
   */
  signal?: AbortSignal | undefined;
  /**
   * The W3C trace context this request belongs to (sent as `traceparent`/`tracestate`).
   * @default the client's `traceContext`
   */
  trace?: TraceContext | undefined;
}

/** The Content-Type of each patch type. Internal. */
export const PATCH_CONTENT_TYPES: Readonly<Record<PatchType, string>> = {
  merge: "application/merge-patch+json",
  strategic: "application/strategic-merge-patch+json",
  json: "application/json-patch+json",
};

/** Throws unless `value` is a `resourceVersionMatch`. */
function checkMatch(value: unknown): void {
  if (value !== undefined && value !== "Exact" && value !== "NotOlderThan") {
    throw new TypeError(
      `options.resourceVersionMatch must be "Exact" or "NotOlderThan", got ${describeValue(value)}`,
    );
  }
}

/**
 * The namespace a create/replace goes to: the option, else the object's own (if namespaced).
 * Internal.
 */
export function objectNamespace(
  resource: AnyResourceDescriptor,
  object: KubeObjectLike,
  option: string | undefined,
): string | undefined {
  if (!isRecord(object) || !isRecord(object.metadata)) {
    throw new TypeError(
      `object must be a Kubernetes object with metadata, got ${describeValue(object)}`,
    );
  }
  const metadataNamespace: unknown = object.metadata.namespace;
  const own = resource.namespaced && typeof metadataNamespace === "string" &&
      metadataNamespace !== ""
    ? metadataNamespace
    : undefined;
  const given = option === "" ? undefined : option;
  if (given !== undefined && own !== undefined && given !== own) {
    throw new TypeError(
      `options.namespace ${describeValue(given)} differs from object.metadata.namespace ${
        describeValue(own)
      }`,
    );
  }
  return given ?? own;
}

/** The Content-Type of a server-side apply patch (JSON is valid YAML). Internal. */
export const APPLY_CONTENT_TYPE = "application/apply-patch+yaml";

/** Longest `fieldManager` the API server accepts. Internal. */
const MAX_FIELD_MANAGER_LENGTH = 128;

/** Throws unless `value` is a usable `subresource`. Internal. */
export function checkSubresource(value: unknown): void {
  if (value !== undefined && value !== "status" && value !== "scale") {
    throw new TypeError(
      `options.subresource must be "status" or "scale", got ${describeValue(value)}`,
    );
  }
}

/**
 * Validates `fieldManager` and `dryRun` and turns them into query parameters (`fieldManager`,
 * `dryRun=All`). `required` makes `fieldManager` mandatory (server-side apply). Internal.
 */
export function writeQuery(
  options: Pick<WriteCommonOptions, "fieldManager" | "dryRun"> | undefined,
  required = false,
): Record<string, QueryValue> {
  const manager = options?.fieldManager;
  if (manager !== undefined || required) {
    if (typeof manager !== "string" || manager === "") {
      throw new TypeError(
        `options.fieldManager must be a non-empty string${
          required ? " (server-side apply needs one)" : ""
        }, got ${describeValue(manager)}`,
      );
    }
    if (manager.length > MAX_FIELD_MANAGER_LENGTH || !/^[\x20-\x7e]+$/.test(manager)) {
      throw new TypeError(
        `options.fieldManager must be at most ${MAX_FIELD_MANAGER_LENGTH} printable ASCII ` +
          `characters, got ${describeValue(manager)}`,
      );
    }
  }
  checkBoolean(options?.dryRun, "options.dryRun");
  return { fieldManager: manager, dryRun: options?.dryRun ? "All" : undefined };
}

/** The checked `preconditions` of a delete, or undefined when there are none. Internal. */
export function deletePreconditions(
  preconditions: DeletePreconditions | undefined,
): Record<string, string> | undefined {
  if (preconditions === undefined) return undefined;
  if (!isRecord(preconditions)) {
    throw new TypeError(
      `options.preconditions must be an object, got ${describeValue(preconditions)}`,
    );
  }
  const p: Record<string, string> = {};
  for (const field of ["uid", "resourceVersion"] as const) {
    const value: unknown = preconditions[field];
    checkString(value, `options.preconditions.${field}`);
    if (typeof value === "string") p[field] = value;
  }
  return p;
}

/** Validates list options and turns them into query parameters. Internal. */
export function listQuery(options: ListOptions | undefined): Record<string, QueryValue> {
  checkNumber(options?.limit, "options.limit", { min: 1, integer: true });
  checkString(options?.labelSelector, "options.labelSelector");
  checkString(options?.fieldSelector, "options.fieldSelector");
  checkString(options?.continue, "options.continue");
  checkString(options?.resourceVersion, "options.resourceVersion");
  checkMatch(options?.resourceVersionMatch);
  checkFunction(options?.onContinue, "options.onContinue");
  checkFunction(options?.onProgress, "options.onProgress");
  return {
    labelSelector: options?.labelSelector,
    fieldSelector: options?.fieldSelector,
    limit: options?.limit,
    continue: options?.continue,
    resourceVersion: options?.resourceVersion,
    resourceVersionMatch: options?.resourceVersionMatch,
  };
}

/** Validates watch options and turns them into query parameters (`watch=1`). Internal. */
export function watchQuery(options: WatchOptions | undefined): Record<string, QueryValue> {
  checkNumber(options?.timeoutSeconds, "options.timeoutSeconds", { min: 0, integer: true });
  checkString(options?.labelSelector, "options.labelSelector");
  checkString(options?.fieldSelector, "options.fieldSelector");
  checkString(options?.resourceVersion, "options.resourceVersion");
  checkBoolean(options?.allowWatchBookmarks, "options.allowWatchBookmarks");
  checkBoolean(options?.sendInitialEvents, "options.sendInitialEvents");
  checkMatch(options?.resourceVersionMatch);
  return {
    watch: 1,
    labelSelector: options?.labelSelector,
    fieldSelector: options?.fieldSelector,
    resourceVersion: options?.resourceVersion,
    resourceVersionMatch: options?.resourceVersionMatch,
    allowWatchBookmarks: options?.allowWatchBookmarks,
    sendInitialEvents: options?.sendInitialEvents,
    timeoutSeconds: options?.timeoutSeconds,
  };
}
