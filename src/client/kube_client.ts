/**
 * A small Kubernetes API client on `fetch`: one request at a time, typed errors, no retries
 * (the reflector owns retrying and backoff).
 * @module
 */
import type { Clock } from "../util/clock.ts";
import { systemClock } from "../util/clock.ts";
import { BODY_SNIPPET_LENGTH, KubeApiError, KubeNetworkError } from "./errors.ts";
import type { KubeApiErrorOptions } from "./errors.ts";
import { resourcePath } from "./resource.ts";
import type { ResourceDescriptor } from "./resource.ts";
import { isStatus } from "./types.ts";
import type { KubeList, KubeObject, Status } from "./types.ts";
import { describeValue, isRecord } from "../util/values.ts";

/**
 * The user agent sent when {@linkcode KubeClientOptions.userAgent} is not set.
 *
 * @example
 * ```ts
 * import { DEFAULT_USER_AGENT } from "@kinformer/kinformer/client";
 * console.log(DEFAULT_USER_AGENT); // "kinformer/0.1.0"
 * ```
 */
export const DEFAULT_USER_AGENT = "kinformer/0.1.0";

/** Bytes of a non-2xx body read to decode a Status or cut a snippet; the rest is cancelled. */
const ERROR_BODY_LIMIT = 64 * 1024;

/** A bearer token, or a function asked for one before every request (rotating tokens). */
export type TokenSource = string | (() => string | Promise<string>);

/** Constructor options of {@linkcode KubeClient}. */
export interface KubeClientOptions {
  /**
   * Absolute `http:` or `https:` URL of the API server. A path prefix is kept, so
   * `http://127.0.0.1:8001/k8s` works behind `kubectl proxy --api-prefix=/k8s`; a trailing
   * slash is ignored.
   */
  server: string;
  /**
   * Bearer token sent as `Authorization: Bearer <token>`. A function is called before every
   * request, so rotated tokens (projected service account tokens) are picked up; an error it
   * throws fails that request unchanged.
   * @default undefined (no `Authorization` header)
   */
  token?: TokenSource | undefined;
  /**
   * Told when the server answers 401 Unauthorized, with the `Request` that was refused (its
   * `Authorization` header shows the credential used), before the request rejects with its
   * {@linkcode KubeApiError}: the hook for credential sources that cache, e.g. an exec
   * plugin's token, to drop it so that the next request (the caller retries, as the informer
   * does on its backoff) gets a fresh one. An error it throws fails that request instead.
   * @default undefined
   */
  onUnauthorized?: ((request: Request) => void) | undefined;
  /**
   * Extra headers sent with every request (after the defaults, before per-request headers).
   * @default {}
   */
  headers?: Record<string, string> | undefined;
  /**
   * The function that performs requests. It is always called with one `Request` argument, so
   * a `(request) => Promise<Response>` handler such as a simulated API server can be passed
   * as-is.
   * @default globalThis.fetch
   */
  fetch?: ((input: Request) => Promise<Response>) | undefined;
  /**
   * `User-Agent` header value. (Some browsers silently drop it.)
   * @default "kinformer/0.1.0"
   */
  userAgent?: string | undefined;
  /**
   * Time source, used to turn a `Retry-After` HTTP date into seconds.
   * @default systemClock
   */
  clock?: Clock | undefined;
}

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
   * Called once with the page's `metadata.continue` token (`""` on the last page) as soon as
   * it is seen at the head of the body, before the rest of the page has arrived, so the next
   * page can be requested while this one is still being read (pipelined paging). Not called
   * when the head does not carry the token before `items`.
   * @default undefined
   */
  onContinue?: ((token: string) => void) | undefined;
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
   * Aborts the request and, with a real `fetch`, the body stream.
   * @default undefined
   */
  signal?: AbortSignal | undefined;
}

/** Options of {@linkcode KubeClient.get}. */
export interface GetOptions {
  /**
   * Namespace of the object; required for namespaced resources.
   * @default undefined
   */
  namespace?: string | undefined;
  /**
   * Aborts the request.
   * @default undefined
   */
  signal?: AbortSignal | undefined;
}

/** Options of {@linkcode KubeClient.create} and {@linkcode KubeClient.replace}. */
export interface WriteOptions {
  /**
   * Namespace of the object; defaults to `object.metadata.namespace` for namespaced
   * resources. Both set but different is a TypeError.
   * @default undefined
   */
  namespace?: string | undefined;
  /**
   * Aborts the request.
   * @default undefined
   */
  signal?: AbortSignal | undefined;
}

/** Kind of patch and its `Content-Type`. */
export type PatchType = "merge" | "strategic" | "json";

/** Options of {@linkcode KubeClient.patch}. */
export interface PatchOptions {
  /**
   * Namespace of the object; required for namespaced resources.
   * @default undefined
   */
  namespace?: string | undefined;
  /**
   * `merge` (JSON merge patch, RFC 7386), `strategic` (strategic merge patch, built-in types
   * only) or `json` (JSON patch, RFC 6902: an array of operations).
   * @default "merge"
   */
  type?: PatchType | undefined;
  /**
   * Aborts the request.
   * @default undefined
   */
  signal?: AbortSignal | undefined;
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
   * Aborts the request.
   * @default undefined
   */
  signal?: AbortSignal | undefined;
}

const PATCH_CONTENT_TYPES: Readonly<Record<PatchType, string>> = {
  merge: "application/merge-patch+json",
  strategic: "application/strategic-merge-patch+json",
  json: "application/json-patch+json",
};

/**
 * A Kubernetes API client on `fetch` (Web standard APIs only). It adds the server URL,
 * bearer token and headers, turns non-2xx answers into {@linkcode KubeApiError} and failed
 * connections into {@linkcode KubeNetworkError}, and never retries: retrying and backoff
 * belong to the caller (the reflector). The constructor does no I/O.
 *
 * @example
 * ```ts
 * import { KubeClient, pods } from "@kinformer/kinformer/client";
 * // Any `(request: Request) => Promise<Response>` works as `fetch`: here a canned answer.
 * const client = new KubeClient({
 *   server: "http://127.0.0.1:8001",
 *   fetch: (request) =>
 *     Promise.resolve(Response.json({
 *       kind: "PodList",
 *       apiVersion: "v1",
 *       metadata: { resourceVersion: "42" },
 *       items: [{ metadata: { name: "web-1", namespace: "default" } }],
 *     })),
 * });
 * const list = await client.list(pods, { namespace: "default", labelSelector: "app=web" });
 * console.log(list.metadata.resourceVersion, list.items.length); // "42" 1
 * ```
 */
export class KubeClient {
  #base: string;
  #token: TokenSource | undefined;
  #headers: Headers;
  #fetch: (input: Request) => Promise<Response>;
  #clock: Clock;
  #onUnauthorized: ((request: Request) => void) | undefined;

  /** Validates `options`; throws TypeError naming a bad option. Starts no I/O. */
  constructor(options: KubeClientOptions) {
    if (typeof options !== "object" || options === null) {
      throw new TypeError(`options must be an object, got ${String(options)}`);
    }
    this.#base = parseServer(options.server);

    const token = options.token;
    if (token !== undefined && typeof token !== "function") {
      if (typeof token !== "string" || token === "") {
        throw new TypeError(
          `options.token must be a non-empty string or a function, got ${describeValue(token)}`,
        );
      }
      checkHeaderValue("options.token", `Bearer ${token}`);
    }
    this.#token = token;

    const userAgent = options.userAgent ?? DEFAULT_USER_AGENT;
    if (typeof userAgent !== "string" || userAgent === "") {
      throw new TypeError(
        `options.userAgent must be a non-empty string, got ${describeValue(userAgent)}`,
      );
    }
    checkHeaderValue("options.userAgent", userAgent);
    this.#headers = new Headers({ "accept": "application/json", "user-agent": userAgent });
    if (options.headers !== undefined) {
      const extra = toHeaders("options.headers", options.headers);
      for (const [name, value] of extra) this.#headers.set(name, value);
    }

    if (options.fetch !== undefined) {
      if (typeof options.fetch !== "function") {
        throw new TypeError(
          `options.fetch must be a function, got ${describeValue(options.fetch)}`,
        );
      }
      this.#fetch = options.fetch;
    } else {
      if (typeof globalThis.fetch !== "function") {
        throw new TypeError("options.fetch is required: this runtime has no global fetch");
      }
      // Called through globalThis so `this` is right on runtimes that check it (Workers).
      this.#fetch = (request) => globalThis.fetch(request);
    }

    if (options.onUnauthorized !== undefined && typeof options.onUnauthorized !== "function") {
      throw new TypeError(
        `options.onUnauthorized must be a function, got ${describeValue(options.onUnauthorized)}`,
      );
    }
    this.#onUnauthorized = options.onUnauthorized;

    const clock = options.clock ?? systemClock;
    if (typeof clock !== "object" || clock === null || typeof clock.now !== "function") {
      throw new TypeError(`options.clock must be a Clock, got ${describeValue(clock)}`);
    }
    this.#clock = clock;
  }

  /**
   * The server URL requests go to, without a trailing slash.
   *
   * @example
   * ```ts
   * import { KubeClient } from "@kinformer/kinformer/client";
   * console.log(new KubeClient({ server: "http://127.0.0.1:8001/k8s/" }).server);
   * // "http://127.0.0.1:8001/k8s"
   * ```
   */
  get server(): string {
    return this.#base;
  }

  /**
   * Sends one request to `path` (below the server URL, starting with `/`) and returns the
   * Response when its status is 2xx, body unread.
   *
   * @throws {KubeApiError} for any other status: with the decoded `Status` when the body is
   * one, else with the first 200 characters of the body as `bodySnippet`; `Retry-After`
   * (seconds or an HTTP date) becomes `retryAfterSeconds`.
   * @throws {KubeNetworkError} when `fetch` rejects (connection refused, reset, DNS, TLS),
   * with the original error as `cause`.
   * @throws the signal's reason, unchanged, when `signal` aborts.
   *
   * @example
   * ```ts
   * import { KubeClient } from "@kinformer/kinformer/client";
   * const client = new KubeClient({
   *   server: "http://127.0.0.1:8001",
   *   fetch: (request) => Promise.resolve(Response.json({ gitVersion: "v1.35.0", path: new URL(request.url).pathname })),
   * });
   * const response = await client.request("/version");
   * console.log(await response.json());
   * ```
   */
  async request(path: string, options?: KubeRequestOptions): Promise<Response> {
    if (typeof path !== "string" || !path.startsWith("/")) {
      throw new TypeError(`path must be a string starting with "/", got ${describeValue(path)}`);
    }
    const method = options?.method ?? "GET";
    if (typeof method !== "string" || !/^[A-Za-z]+$/.test(method)) {
      throw new TypeError(
        `options.method must be an HTTP method name, got ${describeValue(method)}`,
      );
    }
    const signal = options?.signal;
    if (signal !== undefined && !(signal instanceof AbortSignal)) {
      throw new TypeError(`options.signal must be an AbortSignal, got ${describeValue(signal)}`);
    }
    if (signal?.aborted) throw signal.reason;

    const url = new URL(this.#base + path);
    if (options?.query !== undefined) appendQuery(url, options.query);
    const label = `${method.toUpperCase()} ${url.pathname}${url.search}`;

    const headers = new Headers(this.#headers);
    const token = await this.#currentToken(signal);
    if (token !== undefined) headers.set("authorization", `Bearer ${token}`);
    const init: RequestInit = { method: method.toUpperCase(), headers };
    if (options?.body !== undefined) {
      const json = JSON.stringify(options.body);
      if (json === undefined) {
        throw new TypeError(
          `options.body is not JSON-serializable: ${describeValue(options.body)}`,
        );
      }
      init.body = json;
      headers.set("content-type", "application/json");
    }
    if (options?.headers !== undefined) {
      for (const [name, value] of toHeaders("options.headers", options.headers)) {
        headers.set(name, value);
      }
    }
    if (signal !== undefined) init.signal = signal;
    const request = new Request(url, init);

    let response: Response;
    try {
      response = await raceAbort(this.#fetch(request), signal, discardBody);
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      throw new KubeNetworkError(`${init.method} ${url.href}`, error);
    }
    if (response.ok) return response;
    const error = await this.#apiError(response, label, signal);
    if (response.status === 401) this.#onUnauthorized?.(request);
    throw error;
  }

  /**
   * Lists one page of `resource`. Paging (`limit` + `continue`) is the caller's loop.
   * Missing `items` or `metadata` in the answer are normalised to `[]` and `{}`.
   *
   * @throws {KubeApiError} / {@linkcode KubeNetworkError} as {@linkcode KubeClient.request};
   * a body that fails mid-read is a {@linkcode KubeNetworkError} too.
   * @throws {TypeError} when the 2xx body is not a JSON object.
   *
   * @example
   * ```ts
   * import { KubeClient, configmaps } from "@kinformer/kinformer/client";
   * const client = new KubeClient({
   *   server: "http://127.0.0.1:8001",
   *   fetch: () =>
   *     Promise.resolve(Response.json({ kind: "ConfigMapList", metadata: { resourceVersion: "7", continue: "abc" }, items: [] })),
   * });
   * const page = await client.list(configmaps, { namespace: "default", limit: 500, resourceVersion: "0" });
   * console.log(page.metadata.continue); // "abc"
   * ```
   */
  async list<T extends KubeObject = KubeObject>(
    resource: ResourceDescriptor,
    options?: ListOptions,
  ): Promise<KubeList<T>> {
    const limit = options?.limit;
    if (limit !== undefined && (!Number.isInteger(limit) || limit < 1)) {
      throw new RangeError(`options.limit must be a positive integer, got ${describeValue(limit)}`);
    }
    checkString("options.labelSelector", options?.labelSelector);
    checkString("options.fieldSelector", options?.fieldSelector);
    checkString("options.continue", options?.continue);
    checkString("options.resourceVersion", options?.resourceVersion);
    checkMatch(options?.resourceVersionMatch);
    const path = resourcePath(resource, { namespace: options?.namespace });
    const onContinue = options?.onContinue;
    if (onContinue !== undefined && typeof onContinue !== "function") {
      throw new TypeError(
        `options.onContinue must be a function, got ${describeValue(onContinue)}`,
      );
    }
    const body = await this.#readObject(
      "GET",
      path,
      {
        query: {
          labelSelector: options?.labelSelector,
          fieldSelector: options?.fieldSelector,
          limit,
          continue: options?.continue,
          resourceVersion: options?.resourceVersion,
          resourceVersionMatch: options?.resourceVersionMatch,
        },
        signal: options?.signal,
      },
      onContinue === undefined ? undefined : continueTokenPeeker(onContinue),
    );
    const list = body as unknown as KubeList<T>;
    if (list.metadata === undefined || list.metadata === null) list.metadata = {};
    if (list.items === undefined || list.items === null) list.items = [];
    if (!Array.isArray(list.items)) {
      throw new TypeError(
        `GET ${path}: list answer has non-array items: ${describeValue(list.items)}`,
      );
    }
    return list;
  }

  /**
   * Starts a watch (`watch=1`) and returns the 2xx Response whose body is the stream of
   * newline-separated JSON events; decoding it is the caller's job. No whole-request timeout
   * is applied: use `timeoutSeconds` (server side) and an inactivity timer on the body.
   *
   * @throws {KubeApiError} / {@linkcode KubeNetworkError} as {@linkcode KubeClient.request}.
   *
   * @example
   * ```ts
   * import { KubeClient, pods } from "@kinformer/kinformer/client";
   * const client = new KubeClient({
   *   server: "http://127.0.0.1:8001",
   *   fetch: () => Promise.resolve(new Response('{"type":"BOOKMARK","object":{"kind":"Pod","apiVersion":"v1","metadata":{"resourceVersion":"9"}}}\n')),
   * });
   * const controller = new AbortController();
   * const response = await client.watch(pods, {
   *   resourceVersion: "8",
   *   allowWatchBookmarks: true,
   *   timeoutSeconds: 300,
   *   signal: controller.signal,
   * });
   * console.log(await response.text());
   * controller.abort();
   * ```
   */
  async watch(resource: ResourceDescriptor, options?: WatchOptions): Promise<Response> {
    const timeoutSeconds = options?.timeoutSeconds;
    if (timeoutSeconds !== undefined && (!Number.isInteger(timeoutSeconds) || timeoutSeconds < 0)) {
      throw new RangeError(
        `options.timeoutSeconds must be a non-negative integer, got ${
          describeValue(timeoutSeconds)
        }`,
      );
    }
    checkString("options.labelSelector", options?.labelSelector);
    checkString("options.fieldSelector", options?.fieldSelector);
    checkString("options.resourceVersion", options?.resourceVersion);
    checkBoolean("options.allowWatchBookmarks", options?.allowWatchBookmarks);
    checkBoolean("options.sendInitialEvents", options?.sendInitialEvents);
    checkMatch(options?.resourceVersionMatch);
    const path = resourcePath(resource, { namespace: options?.namespace });
    return await this.request(path, {
      query: {
        watch: 1,
        labelSelector: options?.labelSelector,
        fieldSelector: options?.fieldSelector,
        resourceVersion: options?.resourceVersion,
        resourceVersionMatch: options?.resourceVersionMatch,
        allowWatchBookmarks: options?.allowWatchBookmarks,
        sendInitialEvents: options?.sendInitialEvents,
        timeoutSeconds,
      },
      signal: options?.signal,
    });
  }

  /**
   * Reads one object.
   *
   * @throws {KubeApiError} with code 404 / reason `NotFound` when it does not exist.
   *
   * @example
   * ```ts
   * import { KubeClient, namespaces } from "@kinformer/kinformer/client";
   * const client = new KubeClient({
   *   server: "http://127.0.0.1:8001",
   *   fetch: () => Promise.resolve(Response.json({ kind: "Namespace", apiVersion: "v1", metadata: { name: "default" } })),
   * });
   * const ns = await client.get(namespaces, "default");
   * console.log(ns.metadata.name); // "default"
   * ```
   */
  async get<T extends KubeObject = KubeObject>(
    resource: ResourceDescriptor,
    name: string,
    options?: GetOptions,
  ): Promise<T> {
    const path = resourcePath(resource, { namespace: options?.namespace, name: requireName(name) });
    return await this.#readObject("GET", path, { signal: options?.signal }) as T;
  }

  /**
   * Creates `object` (POST to the collection) and returns the object the server stored.
   *
   * @example
   * ```ts
   * import { KubeClient, configmaps } from "@kinformer/kinformer/client";
   * const client = new KubeClient({
   *   server: "http://127.0.0.1:8001",
   *   fetch: async (request) => new Response(await request.text(), { status: 201 }),
   * });
   * const created = await client.create(configmaps, {
   *   apiVersion: "v1",
   *   kind: "ConfigMap",
   *   metadata: { name: "settings", namespace: "default" },
   *   data: { mode: "fast" },
   * });
   * console.log(created.metadata.name); // "settings"
   * ```
   */
  async create<T extends KubeObject = KubeObject>(
    resource: ResourceDescriptor,
    object: T,
    options?: WriteOptions,
  ): Promise<T> {
    const namespace = objectNamespace(resource, object, options?.namespace);
    if (resource.namespaced && namespace === undefined) {
      throw new TypeError(
        "options.namespace or object.metadata.namespace is required to create a namespaced object",
      );
    }
    const path = resourcePath(resource, { namespace });
    return await this.#readObject("POST", path, { body: object, signal: options?.signal }) as T;
  }

  /**
   * Replaces `object` (PUT); name and namespace come from `object.metadata`. Set
   * `metadata.resourceVersion` for an optimistic-concurrency update (409 Conflict when stale).
   *
   * @example
   * ```ts
   * import { KubeClient, configmaps } from "@kinformer/kinformer/client";
   * const client = new KubeClient({
   *   server: "http://127.0.0.1:8001",
   *   fetch: async (request) => new Response(await request.text()),
   * });
   * const updated = await client.replace(configmaps, {
   *   metadata: { name: "settings", namespace: "default", resourceVersion: "12" },
   *   data: { mode: "safe" },
   * });
   * console.log(updated.data); // { mode: "safe" }
   * ```
   */
  async replace<T extends KubeObject = KubeObject>(
    resource: ResourceDescriptor,
    object: T,
    options?: WriteOptions,
  ): Promise<T> {
    const namespace = objectNamespace(resource, object, options?.namespace);
    const name = object.metadata.name;
    if (typeof name !== "string" || name === "") {
      throw new TypeError(
        `object.metadata.name is required to replace, got ${describeValue(name)}`,
      );
    }
    const path = resourcePath(resource, { namespace, name });
    return await this.#readObject("PUT", path, { body: object, signal: options?.signal }) as T;
  }

  /**
   * Patches one object and returns the result. `type` picks the `Content-Type`:
   * `application/merge-patch+json` (default), `application/strategic-merge-patch+json` or
   * `application/json-patch+json` (then `patch` must be an array of operations).
   *
   * @example
   * ```ts
   * import { KubeClient, deployments } from "@kinformer/kinformer/client";
   * const client = new KubeClient({
   *   server: "http://127.0.0.1:8001",
   *   fetch: (request) =>
   *     Promise.resolve(Response.json({ metadata: { name: "web" }, contentType: request.headers.get("content-type") })),
   * });
   * const patched = await client.patch(deployments, "web", { spec: { replicas: 3 } }, { namespace: "default" });
   * console.log(patched.contentType); // "application/merge-patch+json"
   * ```
   */
  async patch<T extends KubeObject = KubeObject>(
    resource: ResourceDescriptor,
    name: string,
    patch: unknown,
    options?: PatchOptions,
  ): Promise<T> {
    const type = options?.type ?? "merge";
    if (!Object.hasOwn(PATCH_CONTENT_TYPES, type)) {
      throw new TypeError(
        `options.type must be "merge", "strategic" or "json", got ${describeValue(type)}`,
      );
    }
    if (type === "json" ? !Array.isArray(patch) : !isRecord(patch)) {
      throw new TypeError(
        `patch must be ${
          type === "json" ? "an array of operations" : "an object"
        } for a ${type} patch, got ${describeValue(patch)}`,
      );
    }
    const path = resourcePath(resource, { namespace: options?.namespace, name: requireName(name) });
    return await this.#readObject("PATCH", path, {
      body: patch,
      headers: { "content-type": PATCH_CONTENT_TYPES[type] },
      signal: options?.signal,
    }) as T;
  }

  /**
   * Deletes one object. The server answers either a `Status` (`status: "Success"`) or the
   * object itself (still present, e.g. while finalizers run); narrow with `isStatus`.
   *
   * @example
   * ```ts
   * import { isStatus, KubeClient, pods } from "@kinformer/kinformer/client";
   * const client = new KubeClient({
   *   server: "http://127.0.0.1:8001",
   *   fetch: () => Promise.resolve(Response.json({ kind: "Status", apiVersion: "v1", status: "Success", code: 200 })),
   * });
   * const result = await client.delete(pods, "web-1", { namespace: "default", gracePeriodSeconds: 0 });
   * console.log(isStatus(result) ? "gone" : `terminating since ${result.metadata.deletionTimestamp}`);
   * ```
   */
  async delete<T extends KubeObject = KubeObject>(
    resource: ResourceDescriptor,
    name: string,
    options?: DeleteOptions,
  ): Promise<T | Status> {
    const grace = options?.gracePeriodSeconds;
    if (grace !== undefined && (!Number.isInteger(grace) || grace < 0)) {
      throw new RangeError(
        `options.gracePeriodSeconds must be a non-negative integer, got ${describeValue(grace)}`,
      );
    }
    const policy = options?.propagationPolicy;
    if (policy !== undefined && !["Foreground", "Background", "Orphan"].includes(policy)) {
      throw new TypeError(
        `options.propagationPolicy must be "Foreground", "Background" or "Orphan", got ${
          describeValue(policy)
        }`,
      );
    }
    const path = resourcePath(resource, { namespace: options?.namespace, name: requireName(name) });
    return await this.#readObject("DELETE", path, {
      query: { propagationPolicy: policy, gracePeriodSeconds: grace },
      signal: options?.signal,
    }) as T | Status;
  }

  /**
   * Sends one request whose 2xx answer is a JSON object (or a `Status`), and reads that object;
   * `peek` as in `readText`.
   */
  async #readObject(
    method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE",
    path: string,
    options: Omit<KubeRequestOptions, "method">,
    peek?: (head: string) => boolean,
  ): Promise<Record<string, unknown>> {
    const response = await this.request(path, { ...options, method });
    return await readJsonObject(response, `${method} ${path}`, options.signal, peek);
  }

  async #currentToken(signal: AbortSignal | undefined): Promise<string | undefined> {
    const source = this.#token;
    if (typeof source !== "function") return source;
    const token = await raceAbort(Promise.resolve(source()), signal);
    if (typeof token !== "string" || token === "") {
      throw new TypeError(
        `options.token() must return a non-empty string, got ${describeValue(token)}`,
      );
    }
    checkHeaderValue("options.token()", `Bearer ${token}`);
    return token;
  }

  async #apiError(
    response: Response,
    request: string,
    signal: AbortSignal | undefined,
  ): Promise<KubeApiError> {
    const options: KubeApiErrorOptions = { code: response.status, request };
    const retryAfter = parseRetryAfter(response.headers.get("retry-after"), this.#clock.now());
    if (retryAfter !== undefined) options.retryAfterSeconds = retryAfter;
    let text: string;
    try {
      text = await readText(response, signal, ERROR_BODY_LIMIT);
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      // The status line is the news; the failed body read is kept as the cause.
      options.cause = error;
      return new KubeApiError(options);
    }
    const status = parseStatus(text);
    if (status !== undefined) options.status = status;
    else options.bodySnippet = snippet(text);
    return new KubeApiError(options);
  }
}

/** Parses and normalises `options.server`. */
function parseServer(server: unknown): string {
  if (typeof server !== "string" || server === "") {
    throw new TypeError(
      `options.server must be a non-empty URL string, got ${describeValue(server)}`,
    );
  }
  let url: URL;
  try {
    url = new URL(server);
  } catch (error) {
    throw new TypeError(`options.server must be an absolute URL, got ${JSON.stringify(server)}`, {
      cause: error,
    });
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new TypeError(
      `options.server must be an http: or https: URL, got ${JSON.stringify(server)}`,
    );
  }
  if (url.username !== "" || url.password !== "") {
    throw new TypeError(
      "options.server must not carry credentials in the URL; use options.token or options.headers",
    );
  }
  if (url.search !== "" || url.hash !== "") {
    throw new TypeError(
      `options.server must not have a query or fragment, got ${JSON.stringify(server)}`,
    );
  }
  return url.origin + url.pathname.replace(/\/+$/, "");
}

/** Builds a Headers object, rethrowing bad names or values as a TypeError naming `option`. */
function toHeaders(option: string, headers: Record<string, string>): Headers {
  if (typeof headers !== "object" || headers === null || Array.isArray(headers)) {
    throw new TypeError(`${option} must be an object of header names to values`);
  }
  for (const [name, value] of Object.entries(headers)) {
    if (typeof value !== "string") {
      throw new TypeError(
        `${option}[${JSON.stringify(name)}] must be a string, got ${describeValue(value)}`,
      );
    }
  }
  try {
    return new Headers(headers);
  } catch (error) {
    throw new TypeError(`${option} has an invalid header: ${messageOf(error)}`, { cause: error });
  }
}

function checkHeaderValue(option: string, value: string): void {
  try {
    new Headers({ "x-check": value });
  } catch (error) {
    throw new TypeError(`${option} is not a valid header value: ${messageOf(error)}`, {
      cause: error,
    });
  }
  if (/[\r\n\0]/.test(value)) {
    throw new TypeError(`${option} must not contain line breaks or NUL`);
  }
}

function appendQuery(url: URL, query: Record<string, QueryValue>): void {
  if (typeof query !== "object" || query === null) {
    throw new TypeError(`options.query must be an object, got ${describeValue(query)}`);
  }
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined) continue;
    if (typeof value !== "string" && typeof value !== "number" && typeof value !== "boolean") {
      throw new TypeError(
        `options.query[${JSON.stringify(name)}] must be a string, number or boolean, got ${
          describeValue(value)
        }`,
      );
    }
    url.searchParams.append(name, String(value));
  }
}

function checkString(option: string, value: unknown): void {
  if (value !== undefined && typeof value !== "string") {
    throw new TypeError(`${option} must be a string, got ${describeValue(value)}`);
  }
}

function checkBoolean(option: string, value: unknown): void {
  if (value !== undefined && typeof value !== "boolean") {
    throw new TypeError(`${option} must be a boolean, got ${describeValue(value)}`);
  }
}

function checkMatch(value: unknown): void {
  if (value !== undefined && value !== "Exact" && value !== "NotOlderThan") {
    throw new TypeError(
      `options.resourceVersionMatch must be "Exact" or "NotOlderThan", got ${describeValue(value)}`,
    );
  }
}

function requireName(name: unknown): string {
  if (typeof name !== "string" || name === "") {
    throw new TypeError(`name must be a non-empty string, got ${describeValue(name)}`);
  }
  return name;
}

/** The namespace a create/replace goes to: the option, else the object's own (if namespaced). */
function objectNamespace(
  resource: ResourceDescriptor,
  object: KubeObject,
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
      `options.namespace ${JSON.stringify(given)} differs from object.metadata.namespace ${
        JSON.stringify(own)
      }`,
    );
  }
  return given ?? own;
}

/** The decoded Status when `text` is a JSON object with `kind: "Status"`. */
function parseStatus(text: string): Status | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined; // Not JSON: the caller keeps a snippet of the text instead.
  }
  return isStatus(parsed) ? parsed : undefined;
}

/** The first {@linkcode BODY_SNIPPET_LENGTH} characters, never ending on half a surrogate pair. */
function snippet(text: string): string {
  if (text.length <= BODY_SNIPPET_LENGTH) return text;
  let cut = text.slice(0, BODY_SNIPPET_LENGTH);
  const last = cut.charCodeAt(cut.length - 1);
  if (last >= 0xd800 && last <= 0xdbff) cut = cut.slice(0, -1);
  return cut;
}

/**
 * `Retry-After` as whole seconds: delta-seconds as sent, an HTTP date as the seconds from
 * `now` (rounded up, never negative). Anything else is ignored.
 */
function parseRetryAfter(value: string | null, now: number): number | undefined {
  if (value === null) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed);
  // HTTP dates always name the weekday and the zone (`Wed, 21 Oct 2015 07:28:00 GMT`).
  if (!/^[A-Za-z]{3},/.test(trimmed) || !/GMT$/.test(trimmed)) return undefined;
  const at = Date.parse(trimmed);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, Math.ceil((at - now) / 1000));
}

/**
 * Looks at the head of a list body for `metadata.continue` (the API server writes `metadata`
 * before `items`) and hands it over once; returns true when done looking.
 */
function continueTokenPeeker(onContinue: (token: string) => void): (head: string) => boolean {
  return (head) => {
    const items = head.indexOf('"items"');
    const region = items < 0 ? head : head.slice(0, items);
    const m = /"continue"\s*:\s*"((?:[^"\\]|\\.)*)"/.exec(region);
    if (m !== null) {
      onContinue(JSON.parse(`"${m[1]}"`) as string);
      return true;
    }
    // Past `items` (or 64 KiB of head) without the token: give up, read on sequentially.
    return items >= 0 || head.length > 65_536;
  };
}

/**
 * Reads a body as text, at most `maxBytes` (the rest is cancelled). An abort of `signal`
 * cancels the body and rethrows the signal's reason, even when the stream ignores the signal.
 * `peek` is shown the text so far after each chunk until it returns true.
 */
async function readText(
  response: Response,
  signal: AbortSignal | undefined,
  maxBytes: number,
  peek?: (head: string) => boolean,
): Promise<string> {
  const body = response.body;
  if (body === null) return "";
  if (signal?.aborted) {
    cancelQuietly(body.cancel(signal.reason));
    throw signal.reason;
  }
  const reader = body.getReader();
  const onAbort = (): void => cancelQuietly(reader.cancel(signal?.reason));
  signal?.addEventListener("abort", onAbort, { once: true });
  const decoder = new TextDecoder();
  const parts: string[] = [];
  let received = 0;
  let finished = false;
  /** The text so far, kept only while `peek` still looks. */
  let head = "";
  try {
    while (true) {
      let chunk: ReadableStreamReadResult<Uint8Array>;
      try {
        chunk = await reader.read();
      } catch (error) {
        if (signal?.aborted) throw signal.reason;
        throw error;
      }
      if (signal?.aborted) throw signal.reason;
      if (chunk.done) {
        finished = true;
        break;
      }
      const room = maxBytes - received;
      received += chunk.value.byteLength;
      if (chunk.value.byteLength >= room) {
        parts.push(decoder.decode(chunk.value.subarray(0, room), { stream: true }));
        break;
      }
      const text = decoder.decode(chunk.value, { stream: true });
      parts.push(text);
      if (peek !== undefined) {
        head += text;
        if (peek(head)) {
          peek = undefined;
          head = "";
        }
      }
    }
    parts.push(decoder.decode());
    return parts.join("");
  } finally {
    signal?.removeEventListener("abort", onAbort);
    if (!finished) cancelQuietly(reader.cancel());
    reader.releaseLock();
  }
}

/** Reads a 2xx body as a JSON object; a failed read is a {@linkcode KubeNetworkError}. */
async function readJsonObject(
  response: Response,
  request: string,
  signal: AbortSignal | undefined,
  peek?: (head: string) => boolean,
): Promise<Record<string, unknown>> {
  let text: string;
  try {
    text = await readText(response, signal, Infinity, peek);
  } catch (error) {
    if (signal?.aborted) throw signal.reason;
    throw new KubeNetworkError(`${request} (reading the body)`, error);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new TypeError(
      `${request}: answer is not JSON (status ${response.status}): ${
        JSON.stringify(snippet(text))
      }`,
      { cause: error },
    );
  }
  if (!isRecord(parsed)) {
    throw new TypeError(
      `${request}: answer is not a JSON object: ${JSON.stringify(snippet(text))}`,
    );
  }
  return parsed;
}

/**
 * Like `promise`, but rejects with the signal's reason as soon as `signal` aborts, for
 * `fetch` functions that ignore the signal. A value arriving after the abort goes to `late`.
 */
function raceAbort<T>(
  promise: Promise<T>,
  signal: AbortSignal | undefined,
  late?: (value: T) => void,
): Promise<T> {
  if (signal === undefined) return promise;
  return new Promise<T>((resolve, reject) => {
    let settled = false;
    const onAbort = (): void => {
      settled = true;
      reject(signal.reason);
    };
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        if (!settled) {
          settled = true;
          resolve(value);
        } else late?.(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        // After an abort, a rejection is the fetch noticing that abort: the reason was thrown.
        if (!settled) {
          settled = true;
          reject(error);
        }
      },
    );
  });
}

/** Releases the body of a response nobody will read (it arrived after an abort). */
function discardBody(response: Response): void {
  if (response.body !== null && !response.bodyUsed) cancelQuietly(response.body.cancel());
}

/**
 * Cancelling a body we are discarding can reject (an errored stream rejects with its stored
 * error); that error was already surfaced, or belongs to a body nobody reads.
 */
function cancelQuietly(promise: Promise<void>): void {
  promise.catch(() => undefined);
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
