/**
 * A small Kubernetes API client on `fetch`: one request at a time, typed errors, no retries
 * (the reflector owns retrying and backoff).
 * @module
 */
import type { Clock } from "../util/clock.ts";

import { abortable } from "../util/abort.ts";
import { describeValue } from "../util/values.ts";
import { checkSignal } from "../util/validate.ts";
import { KubeNetworkError } from "./errors.ts";
import { checkTraceContext, setTraceHeaders, type TraceContext } from "./trace_context.ts";
import { appendQuery, checkHeaderValue, resolvePath, toHeaders } from "./http.ts";
import {
  type ApplyOptions,
  type DeleteOptions,
  type GetOptions,
  type KubeRequestOptions,
  type ListOptions,
  type PatchOptions,
  type WatchOptions,
  watchQuery,
  type WriteOptions,
} from "./request_options.ts";
import { isMetadataOnly, METADATA_ACCEPT, toPartialObjectMetadata } from "./metadata_only.ts";
import { resourcePath } from "./resource.ts";
import type { AnyResourceDescriptor, ResourceDescriptor } from "./resource.ts";
import type { ApplyConfiguration } from "./apply_configuration.ts";
import {
  applyRequest,
  createRequest,
  deleteRequest,
  getRequest,
  type ObjectRequest,
  patchRequest,
  replaceRequest,
} from "./write_requests.ts";
import { apiErrorOf, discardBody, readJsonObject, type ReadTextHooks } from "./response_body.ts";
import { decodeListPage, fetchListPage } from "./list_page.ts";
import type { KubeList, KubeObject, KubeObjectLike, Scale, Status } from "./types.ts";
import { resolveWatchTransport } from "./watch_transport.ts";
import {
  type KubeClientOptions,
  resolveClientOptions,
  type TokenSource,
} from "./client_options.ts";
import {
  openWebSocketWatch,
  resolveWebSocketOptions,
  type WebSocketSettings,
} from "./websocket_watch.ts";

export { DEFAULT_USER_AGENT } from "./client_options.ts";
export type { KubeClientOptions, TokenSource } from "./client_options.ts";
export type {
  ApplyOptions,
  DeleteOptions,
  DeletePreconditions,
  GetOptions,
  KubeRequestOptions,
  ListOptions,
  PatchOptions,
  PatchType,
  QueryValue,
  ResourceVersionMatch,
  Subresource,
  WatchOptions,
  WriteCommonOptions,
  WriteOptions,
} from "./request_options.ts";

/**
 * A Kubernetes API client on `fetch` (Web standard APIs only). It adds the server URL,
 * bearer token and headers, turns non-2xx answers into {@linkcode KubeApiError} and failed
 * connections into {@linkcode KubeNetworkError}, and never retries: retrying and backoff
 * belong to the caller (the reflector). The constructor does no I/O.
 *
 * @example
 * ```ts
 * import { KubeClient, pods } from "@kinformer/kinformer/client";
 * import assert from "node:assert/strict";
 * // Any `(request: Request) => Promise<Response>` works as `fetch`: here a canned answer.
 * const urls: string[] = [];
 * const client = new KubeClient({
 *   server: "http://127.0.0.1:8001",
 *   fetch: (request) => {
 *     urls.push(request.url);
 *     return Promise.resolve(Response.json({
 *       kind: "PodList",
 *       apiVersion: "v1",
 *       metadata: { resourceVersion: "42" },
 *       items: [{ metadata: { name: "web-1", namespace: "default" } }],
 *     }));
 *   },
 * });
 * const list = await client.list(pods, { namespace: "default", labelSelector: "app=web" });
 * assert.equal(list.metadata.resourceVersion, "42");
 * assert.deepEqual(list.items.map((p) => p.metadata.name), ["web-1"]);
 * assert.deepEqual(urls, ["http://127.0.0.1:8001/api/v1/namespaces/default/pods?labelSelector=app%3Dweb"]);
 * ```
 */
export class KubeClient {
  #base: string;
  #token: TokenSource | undefined;
  #headers: Headers;
  #fetch: (input: Request) => Promise<Response>;
  #clock: Clock;
  #onUnauthorized: ((request: Request) => void) | undefined;
  #traceContext: () => TraceContext | undefined;
  #webSocket: WebSocketSettings;
  #watchListCompression: boolean;

  /** Validates `options`; throws TypeError naming a bad option. Starts no I/O. */
  constructor(options: KubeClientOptions) {
    const o = resolveClientOptions(options);
    this.#base = o.base;
    this.#token = o.token;
    this.#headers = o.headers;
    this.#fetch = o.fetch;
    this.#clock = o.clock;
    this.#onUnauthorized = o.onUnauthorized;
    this.#traceContext = o.traceContext;
    this.#webSocket = resolveWebSocketOptions(options, this.#base);
    this.#watchListCompression = o.watchListCompression;
  }

  /**
   * The server URL requests go to, without a trailing slash.
   *
   * @example
   * ```ts
   * import { KubeClient } from "@kinformer/kinformer/client";
   * import assert from "node:assert/strict";
   * const client = new KubeClient({ server: "http://127.0.0.1:8001/k8s/" });
   * assert.equal(client.server, "http://127.0.0.1:8001/k8s");
   * ```
   */
  get server(): string {
    return this.#base;
  }

  /**
   * How this client's watches reach the server when a watch does not say: `"http"` or
   * `"websocket"` (`watchTransport: "auto"` resolved for this runtime).
   *
   * @example
   * ```ts
   * import { KubeClient } from "@kinformer/kinformer/client";
   * import assert from "node:assert/strict";
   * assert.equal(new KubeClient({ server: "http://127.0.0.1:8001" }).watchTransport, "http");
   * const ws = new KubeClient({ server: "http://127.0.0.1:8001", watchTransport: "websocket" });
   * assert.equal(ws.watchTransport, "websocket");
   * ```
   */
  get watchTransport(): "http" | "websocket" {
    return resolveWatchTransport(this.#webSocket.transport);
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
   * import assert from "node:assert/strict";
   * const client = new KubeClient({
   *   server: "http://127.0.0.1:8001",
   *   fetch: (request) =>
   *     Promise.resolve(Response.json({ gitVersion: "v1.35.0", path: new URL(request.url).pathname })),
   * });
   * const response = await client.request("/version");
   * assert.deepEqual(await response.json(), { gitVersion: "v1.35.0", path: "/version" });
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
    checkSignal(signal, "options.signal");
    if (signal?.aborted) throw signal.reason;

    const url = resolvePath(this.#base, path);
    if (options?.query !== undefined) appendQuery(url, options.query);
    const label = `${method.toUpperCase()} ${url.pathname}${url.search}`;

    const headers = new Headers(this.#headers);
    const token = await this.#currentToken(signal);
    if (token !== undefined) headers.set("authorization", `Bearer ${token}`);
    setTraceHeaders(headers, this.#trace(options?.trace));
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
    const error = await apiErrorOf(response, label, signal, this.#clock.now());
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
   * import assert from "node:assert/strict";
   * let query = "";
   * const client = new KubeClient({
   *   server: "http://127.0.0.1:8001",
   *   fetch: (request) => {
   *     query = new URL(request.url).search;
   *     const metadata = { resourceVersion: "7", continue: "abc" };
   *     return Promise.resolve(Response.json({ kind: "ConfigMapList", metadata, items: [] }));
   *   },
   * });
   * const page = await client.list(configmaps, { namespace: "default", limit: 500, resourceVersion: "0" });
   * assert.equal(query, "?limit=500&resourceVersion=0");
   * assert.equal(page.metadata.continue, "abc"); // pass it as `continue` for the next page
   * ```
   */
  async list<T extends KubeObjectLike = KubeObject>(
    resource: ResourceDescriptor<T>,
    options?: ListOptions,
  ): Promise<KubeList<T>> {
    // Read as bytes and decoded item by item: no page-sized string (see list_body.ts).
    return decodeListPage<T>(await fetchListPage(this, resource, options)) as KubeList<T>;
  }

  /**
   * Starts a watch (`watch=1`) and returns the 2xx Response whose body is the stream of
   * newline-separated JSON events; decoding it is the caller's job. No whole-request timeout
   * is applied: use `timeoutSeconds` (server side) and an inactivity timer on the body.
   *
   * A streaming list over HTTP (`sendInitialEvents: true`) asks for `Accept-Encoding: identity`
   * unless the client says `watchListCompression: true` (see {@linkcode KubeClientOptions}).
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
   * import assert from "node:assert/strict";
   * const bookmark = '{"type":"BOOKMARK","object":{"kind":"Pod","apiVersion":"v1","metadata":{"resourceVersion":"9"}}}';
   * let query = "";
   * const client = new KubeClient({
   *   server: "http://127.0.0.1:8001",
   *   fetch: (request) => {
   *     query = new URL(request.url).search;
   *     return Promise.resolve(new Response(bookmark + "\n"));
   *   },
   * });
   * const controller = new AbortController();
   * const response = await client.watch(pods, {
   *   resourceVersion: "8",
   *   allowWatchBookmarks: true,
   *   timeoutSeconds: 300,
   *   signal: controller.signal,
   * });
   * assert.equal(query, "?watch=1&resourceVersion=8&allowWatchBookmarks=true&timeoutSeconds=300");
   * assert.equal(await response.text(), bookmark + "\n"); // or: decodeWatchStream(response.body)
   * controller.abort();
   * ```
   */
  async watch(resource: AnyResourceDescriptor, options?: WatchOptions): Promise<Response> {
    const path = resourcePath(resource, { namespace: options?.namespace });
    const query = watchQuery(options);
    const metadata = isMetadataOnly(resource);
    const transport = options?.transport ?? this.#webSocket.transport;
    if (resolveWatchTransport(transport, "options.transport") === "http") {
      const headers: Record<string, string> = {};
      if (metadata) headers.accept = METADATA_ACCEPT;
      // A streaming list may come as concatenated gzip members (kube-apiserver 1.37), which
      // some runtimes' fetch cut after the first: ask for it uncompressed unless told the
      // fetch reads them (see KubeClientOptions.watchListCompression).
      if (
        options?.sendInitialEvents === true && !this.#watchListCompression &&
        !this.#headers.has("accept-encoding")
      ) headers["accept-encoding"] = "identity";
      return await this.request(path, {
        query,
        signal: options?.signal,
        trace: options?.trace,
        headers,
      });
    }
    const url = resolvePath(this.#base, path);
    appendQuery(url, query);
    const signal = options?.signal;
    const token = () => this.#currentToken(signal);
    const headers = new Headers(this.#headers);
    // Where the runtime's WebSocket can send headers (not in browsers: there the server sends
    // whole objects and the informer keeps their metadata).
    if (metadata) headers.set("accept", METADATA_ACCEPT);
    setTraceHeaders(headers, this.#trace(options?.trace));
    return await openWebSocketWatch(this.#webSocket, {
      url,
      token,
      headers,
      signal,
    });
  }

  /**
   * Reads one object (or, with `subresource`, its `status` or its `scale`).
   *
   * @throws {KubeApiError} with code 404 / reason `NotFound` when it does not exist.
   *
   * @example
   * ```ts
   * import { KubeClient, namespaces } from "@kinformer/kinformer/client";
   * import assert from "node:assert/strict";
   * const client = new KubeClient({
   *   server: "http://127.0.0.1:8001",
   *   fetch: async () => Response.json({ kind: "Namespace", apiVersion: "v1", metadata: { name: "default" } }),
   * });
   * const ns = await client.get(namespaces, "default");
   * assert.equal(ns.metadata.name, "default");
   * ```
   */
  get<T extends KubeObjectLike = KubeObject>(
    resource: ResourceDescriptor<T>,
    name: string,
    options: GetOptions & { subresource: "scale" },
  ): Promise<Scale>;
  /** Reads one object, or its `status` subresource (the same type). */
  get<T extends KubeObjectLike = KubeObject>(
    resource: ResourceDescriptor<T>,
    name: string,
    options?: GetOptions,
  ): Promise<T>;
  async get<T extends KubeObjectLike>(
    resource: ResourceDescriptor<T>,
    name: string,
    options?: GetOptions,
  ): Promise<T | Scale> {
    const object = await this.#send(getRequest(resource, name, options), options);
    // A server that ignored the metadata-only Accept sent the whole object: keep what was asked.
    if (isMetadataOnly(resource) && options?.subresource === undefined) {
      return toPartialObjectMetadata(object) as unknown as T;
    }
    return object as unknown as T | Scale;
  }

  /**
   * Creates `object` (POST to the collection) and returns the object the server stored. With
   * `dryRun`, the server only answers what it would store.
   *
   * @example
   * ```ts
   * import { KubeClient, configmaps } from "@kinformer/kinformer/client";
   * import assert from "node:assert/strict";
   * const client = new KubeClient({
   *   server: "http://127.0.0.1:8001",
   *   fetch: async (request) => new Response(await request.text(), { status: 201 }), // an echo
   * });
   * const created = await client.create(configmaps, {
   *   apiVersion: "v1",
   *   kind: "ConfigMap",
   *   metadata: { name: "settings", namespace: "default" },
   *   data: { mode: "fast" },
   * }, { fieldManager: "my-tool" });
   * assert.equal(created.metadata.name, "settings");
   * assert.deepEqual(created.data, { mode: "fast" });
   * ```
   */
  async create<T extends KubeObjectLike = KubeObject>(
    resource: ResourceDescriptor<T>,
    object: NoInfer<T>,
    options?: WriteOptions,
  ): Promise<NoInfer<T>> {
    return await this.#send(createRequest(resource, object, options), options) as T;
  }

  /**
   * Replaces `object` (PUT); name and namespace come from `object.metadata`. Set
   * `metadata.resourceVersion` for an optimistic-concurrency update (409 Conflict when stale).
   * With `subresource: "status"` only the status changes; with `"scale"` the object is a
   * {@linkcode Scale}.
   *
   * @example
   * ```ts
   * import { KubeClient, configmaps } from "@kinformer/kinformer/client";
   * import assert from "node:assert/strict";
   * const client = new KubeClient({
   *   server: "http://127.0.0.1:8001",
   *   fetch: async (request) => new Response(await request.text()), // an echo
   * });
   * const updated = await client.replace(configmaps, {
   *   metadata: { name: "settings", namespace: "default", resourceVersion: "12" },
   *   data: { mode: "safe" },
   * });
   * assert.deepEqual(updated.data, { mode: "safe" });
   * ```
   */
  replace<T extends KubeObjectLike = KubeObject>(
    resource: ResourceDescriptor<T>,
    object: Scale,
    options: WriteOptions & { subresource: "scale" },
  ): Promise<Scale>;
  /** Replaces an object, or only its status with `subresource: "status"`. */
  replace<T extends KubeObjectLike = KubeObject>(
    resource: ResourceDescriptor<T>,
    object: NoInfer<T>,
    options?: WriteOptions,
  ): Promise<NoInfer<T>>;
  async replace<T extends KubeObjectLike>(
    resource: ResourceDescriptor<T>,
    object: T | Scale,
    options?: WriteOptions,
  ): Promise<T | Scale> {
    return await this.#send(replaceRequest(resource, object, options), options) as
      | T
      | Scale;
  }

  /**
   * Patches one object (or a subresource) and returns the result. `type` picks the
   * `Content-Type`: `application/merge-patch+json` (default),
   * `application/strategic-merge-patch+json` or `application/json-patch+json` (then `patch`
   * must be an array of operations). Server-side apply is {@linkcode KubeClient.apply}.
   *
   * @example
   * ```ts
   * import { KubeClient, deployments } from "@kinformer/kinformer/client";
   * import assert from "node:assert/strict";
   * const client = new KubeClient({
   *   server: "http://127.0.0.1:8001",
   *   fetch: async (request) =>
   *     Response.json({ metadata: { name: "web" }, contentType: request.headers.get("content-type") }),
   * });
   * const patched = await client.patch(deployments, "web", { spec: { replicas: 3 } }, { namespace: "default" });
   * assert.equal(patched.contentType, "application/merge-patch+json");
   * ```
   */
  patch<T extends KubeObjectLike = KubeObject>(
    resource: ResourceDescriptor<T>,
    name: string,
    patch: unknown,
    options: PatchOptions & { subresource: "scale" },
  ): Promise<Scale>;
  /** Patches an object, or its `status` subresource. */
  patch<T extends KubeObjectLike = KubeObject>(
    resource: ResourceDescriptor<T>,
    name: string,
    patch: unknown,
    options?: PatchOptions,
  ): Promise<T>;
  async patch<T extends KubeObjectLike>(
    resource: ResourceDescriptor<T>,
    name: string,
    patch: unknown,
    options?: PatchOptions,
  ): Promise<T | Scale> {
    return await this.#send(patchRequest(resource, name, patch, options), options) as
      | T
      | Scale;
  }

  /**
   * Server-side apply: sends the fields `fieldManager` has an opinion about (a partial
   * object); the server creates the object or merges them in, records them as that manager's
   * in `metadata.managedFields`, and removes fields this manager applied before and leaves out
   * now. A field another manager owns with a different value is a 409 Conflict whose
   * `Status.details.causes` (type `FieldManagerConflict`) name each field and manager, unless
   * `force` takes it over. `apiVersion` and `kind` are filled in from the descriptor when
   * absent. With `subresource` it applies to `status` or `scale` (a {@linkcode Scale}).
   *
   * @throws {KubeApiError} 409 `Conflict` with `FieldManagerConflict` causes.
   * @throws {TypeError} without `fieldManager` or `metadata.name`.
   *
   * @example
   * ```ts
   * import { configmaps, KubeClient } from "@kinformer/kinformer/client";
   * import { SimulatedCluster } from "@kinformer/kinformer/testing";
   * import assert from "node:assert/strict";
   * const cluster = new SimulatedCluster();
   * const client = new KubeClient({ server: "http://sim", fetch: cluster.fetch });
   * const cm = await client.apply(configmaps, {
   *   metadata: { name: "settings", namespace: "default" },
   *   data: { mode: "fast" },
   * }, { fieldManager: "my-controller" });
   * assert.equal(cm.metadata.managedFields?.[0]?.manager, "my-controller");
   * cluster.close();
   * ```
   */
  apply<T extends KubeObjectLike = KubeObject>(
    resource: ResourceDescriptor<T>,
    object: ApplyConfiguration<Scale>,
    options: ApplyOptions & { subresource: "scale" },
  ): Promise<Scale>;
  /** Server-side apply to an object, or to its `status` subresource. */
  apply<T extends KubeObjectLike = KubeObject>(
    resource: ResourceDescriptor<T>,
    object: ApplyConfiguration<NoInfer<T>>,
    options: ApplyOptions,
  ): Promise<NoInfer<T>>;
  async apply<T extends KubeObjectLike>(
    resource: ResourceDescriptor<T>,
    object: ApplyConfiguration<T> | ApplyConfiguration<Scale>,
    options: ApplyOptions,
  ): Promise<T | Scale> {
    return await this.#send(applyRequest(resource, object, options), options) as
      | T
      | Scale;
  }

  /**
   * Deletes one object. The server answers either a `Status` (`status: "Success"`) or the
   * object itself (still present, e.g. while finalizers run); narrow with `isStatus`.
   * `preconditions` (uid, resourceVersion) make it conditional (409 Conflict otherwise).
   *
   * @example
   * ```ts
   * import { isStatus, KubeClient, pods } from "@kinformer/kinformer/client";
   * import assert from "node:assert/strict";
   * const client = new KubeClient({
   *   server: "http://127.0.0.1:8001",
   *   fetch: async () => Response.json({ kind: "Status", apiVersion: "v1", status: "Success", code: 200 }),
   * });
   * const result = await client.delete(pods, "web-1", { namespace: "default", gracePeriodSeconds: 0 });
   * // A Status: the pod is gone (the pod itself, with `metadata.deletionTimestamp`, if finalizers run).
   * assert.ok(isStatus(result));
   * assert.equal(result.status, "Success");
   * ```
   */
  async delete<T extends KubeObjectLike = KubeObject>(
    resource: ResourceDescriptor<T>,
    name: string,
    options?: DeleteOptions,
  ): Promise<T | Status> {
    return await this.#send(deleteRequest(resource, name, options), options) as
      | T
      | Status;
  }

  /**
   * Sends one request whose 2xx answer is a JSON object (or a `Status`), and reads that object;
   * `reading` as in `readText`.
   */
  async #send(
    { method, path, ...options }: ObjectRequest,
    call: { signal?: AbortSignal | undefined; trace?: TraceContext | undefined } | undefined,
    reading?: ReadTextHooks,
  ): Promise<Record<string, unknown>> {
    const signal = call?.signal;
    const response = await this.request(path, { ...options, method, signal, trace: call?.trace });
    return await readJsonObject(response, `${method} ${path}`, signal, reading);
  }

  /** The trace context of a request: its own (validated), else the client's. */
  #trace(own: TraceContext | undefined): TraceContext | undefined {
    return checkTraceContext(own, "options.trace") ?? this.#traceContext();
  }

  async #currentToken(signal: AbortSignal | undefined): Promise<string | undefined> {
    const source = this.#token;
    if (typeof source !== "function") return source;
    const token = await abortable(Promise.resolve(source({ signal })), signal);
    if (token === undefined) return undefined;
    if (typeof token !== "string" || token === "") {
      throw new TypeError(
        `options.token() must return a non-empty string or undefined, got ${describeValue(token)}`,
      );
    }
    checkHeaderValue("options.token()", `Bearer ${token}`);
    return token;
  }
}
