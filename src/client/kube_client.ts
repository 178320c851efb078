/**
 * A small Kubernetes API client on `fetch`: one request at a time, typed errors, no retries
 * (the reflector owns retrying and backoff).
 * @module
 */
import type { Clock } from "../util/clock.ts";
import { systemClock } from "../util/clock.ts";
import { abortable } from "../util/abort.ts";
import { describeValue, isRecord } from "../util/values.ts";
import { KubeApiError, KubeNetworkError } from "./errors.ts";
import type { KubeApiErrorOptions } from "./errors.ts";
import {
  appendQuery,
  checkHeaderValue,
  parseRetryAfter,
  parseServer,
  resolvePath,
  toHeaders,
} from "./http.ts";
import {
  type DeleteOptions,
  type GetOptions,
  type KubeRequestOptions,
  type ListOptions,
  listQuery,
  objectNamespace,
  PATCH_CONTENT_TYPES,
  type PatchOptions,
  requireName,
  type WatchOptions,
  watchQuery,
  type WriteOptions,
} from "./request_options.ts";
import { resourcePath } from "./resource.ts";
import type { ResourceDescriptor } from "./resource.ts";
import {
  continueTokenPeeker,
  discardBody,
  ERROR_BODY_LIMIT,
  parseStatus,
  readJsonObject,
  readText,
  type ReadTextHooks,
  snippet,
} from "./response_body.ts";
import type { KubeList, KubeObject, Status } from "./types.ts";
import { resolveWatchTransport } from "./watch_transport.ts";
import {
  openWebSocketWatch,
  resolveWebSocketOptions,
  type WebSocketClientOptions,
  type WebSocketSettings,
} from "./websocket_watch.ts";

export type {
  DeleteOptions,
  GetOptions,
  KubeRequestOptions,
  ListOptions,
  PatchOptions,
  PatchType,
  QueryValue,
  ResourceVersionMatch,
  WatchOptions,
  WriteOptions,
} from "./request_options.ts";

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

/** A bearer token, or a function asked for one before every request (rotating tokens). */
export type TokenSource = string | (() => string | Promise<string>);

/**
 * Constructor options of {@linkcode KubeClient}; the WebSocket ones (`watchTransport`,
 * `webSocket`, `webSocketOrigin`, `webSocketProtocol`) are described in
 * {@linkcode WebSocketClientOptions}.
 */
export interface KubeClientOptions extends WebSocketClientOptions {
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
  #webSocket: WebSocketSettings;

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
    this.#webSocket = resolveWebSocketOptions(options, this.#base);
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

    const url = resolvePath(this.#base, path);
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
      response = await abortable(this.#fetch(request), signal, discardBody);
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
    const path = resourcePath(resource, { namespace: options?.namespace });
    const onContinue = options?.onContinue;
    const query = listQuery(options);
    const body = await this.#readObject(
      "GET",
      path,
      {
        query,
        signal: options?.signal,
      },
      {
        peek: onContinue === undefined ? undefined : continueTokenPeeker(onContinue),
        onProgress: options?.onProgress,
      },
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
   * With `transport: "websocket"` (or the client's `watchTransport`) the same URL is opened as
   * a WebSocket, the token sent as a subprotocol; the Response resolves once the socket is open
   * and its body carries the messages, one event per line (see `WebSocketClientOptions`).
   *
   * @throws {KubeApiError} / {@linkcode KubeNetworkError} as {@linkcode KubeClient.request};
   * over a WebSocket, a `WebSocketWatchError` when it does not open (and the body fails with
   * one when it closes abnormally).
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
    const path = resourcePath(resource, { namespace: options?.namespace });
    const query = watchQuery(options);
    const transport = options?.transport ?? this.#webSocket.transport;
    if (resolveWatchTransport(transport, "options.transport") === "http") {
      return await this.request(path, { query, signal: options?.signal });
    }
    const url = resolvePath(this.#base, path);
    appendQuery(url, query);
    const signal = options?.signal;
    const token = () => this.#currentToken(signal);
    return await openWebSocketWatch(this.#webSocket, {
      url,
      token,
      headers: this.#headers,
      signal,
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
   * `reading` as in `readText`.
   */
  async #readObject(
    method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE",
    path: string,
    options: Omit<KubeRequestOptions, "method">,
    reading?: ReadTextHooks,
  ): Promise<Record<string, unknown>> {
    const response = await this.request(path, { ...options, method });
    return await readJsonObject(response, `${method} ${path}`, options.signal, reading);
  }

  async #currentToken(signal: AbortSignal | undefined): Promise<string | undefined> {
    const source = this.#token;
    if (typeof source !== "function") return source;
    const token = await abortable(Promise.resolve(source()), signal);
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
