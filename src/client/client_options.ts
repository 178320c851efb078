/**
 * The options of {@linkcode KubeClient} and their validation (apart from the class, so the
 * rules read on their own).
 * @module
 */
import type { Clock } from "../util/clock.ts";
import { systemClock } from "../util/clock.ts";
import { checkBoolean, checkFunction, requireNonEmptyString } from "../util/validate.ts";
import { describeValue } from "../util/values.ts";
import { checkHeaderValue, parseServer, toHeaders } from "./http.ts";
import type { WebSocketClientOptions } from "./websocket_watch.ts";

import { checkTraceContext, type TraceContext, type TraceContextSource } from "./trace_context.ts";
/**
 * The user agent sent when {@linkcode KubeClientOptions.userAgent} is not set.
 */
export const DEFAULT_USER_AGENT = "kinformer/0.1.0";

/**
 * A bearer token, or a function asked for one before every request (rotating tokens). The
 * function gets the request's `signal` (to give up waiting, e.g. on an exec plugin); it may
 * return `undefined` to send no `Authorization` header this time (a credential source that
 * gave a client certificate instead).
 */
export type TokenSource =
  | string
  | ((options: { signal?: AbortSignal | undefined }) =>
    | string
    | undefined
    | Promise<string | undefined>);

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
   * request (with the request's `signal`), so rotated tokens (projected service account
   * tokens) are picked up; `undefined` from it sends no `Authorization` header; an error it
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
   * The W3C trace context of requests that give none (`trace` in their options): a context,
   * or a function asked at each request (return `undefined` for none). Each request then
   * sends `traceparent` (and `tracestate`), so kube-apiserver's spans join that trace.
   * @default undefined (no trace headers)
   */
  traceContext?: TraceContextSource | undefined;
  /**
   * Time source, used to turn a `Retry-After` HTTP date into seconds.
   * @default the system clock (`Date.now` and the global timers)
   */
  clock?: Clock | undefined;
  /**
   * Whether `fetch` reads a gzip-compressed streaming list. kube-apiserver 1.37 answers a
   * streaming list (`sendInitialEvents=true`) with `Content-Encoding: gzip` when asked for gzip
   * (`WatchListCompression`, beta, on by default), closing a gzip member at every flush: the
   * body is many concatenated gzip members, about one per event. Node's `fetch`, Bun's `fetch`
   * and the Node transport (`createNodeFetch`, `node:zlib`) read every member; Deno's `fetch`
   * (2.9) and Chromium's read the first one only and report a clean end, so the list would stop
   * short.
   *
   * `false`: HTTP streaming lists ask for `Accept-Encoding: identity` (as kube-rs does), which
   * every server version answers uncompressed; so every runtime reads them, except browsers,
   * which do not let a page set that header (informers there stream over a WebSocket, or LIST:
   * see `initialList`). `true`: the header is left to `fetch` (gzip), for a `fetch` that reads
   * every member: a watch-list then moves a fraction of the bytes. Set nothing else: a client
   * `headers` entry `accept-encoding` is sent as given either way.
   * @default false
   */
  watchListCompression?: boolean | undefined;
}

/** Client options validated, with defaults. Internal. */
export interface ResolvedClientOptions {
  base: string;
  token: TokenSource | undefined;
  headers: Headers;
  fetch: (input: Request) => Promise<Response>;
  clock: Clock;
  onUnauthorized: ((request: Request) => void) | undefined;
  /** Whether HTTP streaming lists leave `Accept-Encoding` to `fetch` (else `identity`). */
  watchListCompression: boolean;
  /** The trace context of a request that gives none. */
  traceContext: () => TraceContext | undefined;
}

/** Validates `options` (a TypeError naming a bad option, never showing a secret). Internal. */
export function resolveClientOptions(options: KubeClientOptions): ResolvedClientOptions {
  if (typeof options !== "object" || options === null) {
    throw new TypeError(`options must be an object, got ${String(options)}`);
  }
  const base = parseServer(options.server);

  const token = options.token;
  if (token !== undefined && typeof token !== "function") {
    if (typeof token !== "string" || token === "") {
      throw new TypeError(
        `options.token must be a non-empty string or a function, got ${describeValue(token)}`,
      );
    }
    checkHeaderValue("options.token", `Bearer ${token}`);
  }

  const userAgent = options.userAgent ?? DEFAULT_USER_AGENT;
  requireNonEmptyString(userAgent, "options.userAgent");
  checkHeaderValue("options.userAgent", userAgent);
  const headers = new Headers({ "accept": "application/json", "user-agent": userAgent });
  if (options.headers !== undefined) {
    const extra = toHeaders("options.headers", options.headers);
    for (const [name, value] of extra) headers.set(name, value);
  }

  let fetch: (input: Request) => Promise<Response>;
  if (options.fetch !== undefined) {
    checkFunction(options.fetch, "options.fetch");
    fetch = options.fetch;
  } else {
    if (typeof globalThis.fetch !== "function") {
      throw new TypeError("options.fetch is required: this runtime has no global fetch");
    }
    // Called through globalThis so `this` is right on runtimes that check it (Workers).
    fetch = (request) => globalThis.fetch(request);
  }

  checkFunction(options.onUnauthorized, "options.onUnauthorized");

  const clock = options.clock ?? systemClock;
  if (typeof clock !== "object" || clock === null || typeof clock.now !== "function") {
    throw new TypeError(`options.clock must be a Clock, got ${describeValue(clock)}`);
  }
  checkBoolean(options.watchListCompression, "options.watchListCompression");
  const source = options.traceContext;
  const traceContext = typeof source === "function"
    ? () => checkTraceContext(source(), "options.traceContext()")
    : ((fixed) => () => fixed)(checkTraceContext(source, "options.traceContext"));
  return {
    base,
    token,
    headers,
    fetch,
    clock,
    onUnauthorized: options.onUnauthorized,
    watchListCompression: options.watchListCompression ?? false,
    traceContext,
  };
}
