/**
 * CORS of the simulated cluster, so browser code (a page or a Web Worker on another origin)
 * can call it, and only the browser code the developer meant: by default pages served from
 * loopback. A request with an `Origin` header that is not allowed (and is not the cluster's own
 * loopback origin, see `ownOrigin`) gets 403 before it is routed, preflight or not, so a web page visited while the test
 * server runs can neither read from it nor write to it with a "simple" (unpreflighted) request,
 * nor open a WebSocket to it. Requests without `Origin` (kubectl, `KubeClient`'s HTTP requests
 * outside browsers) are served as before, without CORS headers. (kube-apiserver is laxer: its
 * `--cors-allowed-origins` only decides which origins get CORS headers, and refuses nothing.)
 * @module
 */
import { describeValue } from "@kinformer/kinformer/internal";
import { COMMON_HEADERS, status, statusResponse } from "../core/status.ts";

/**
 * The default `corsAllowedOrigins`: pages served from loopback, on any port, over HTTP or
 * HTTPS.
 *
 * @example
 * ```ts
 * import { LOOPBACK_ORIGINS, SimulatedCluster } from "@kinformer/simulator";
 * import assert from "node:assert/strict";
 * // Loopback plus a development host on the LAN:
 * const cluster = new SimulatedCluster({
 *   corsAllowedOrigins: [...LOOPBACK_ORIGINS, "http://devbox.lan:5173"],
 * });
 * const list = (origin: string) =>
 *   cluster.fetch(new Request("http://sim/api/v1/pods", { headers: { Origin: origin } }));
 * assert.equal((await list("http://localhost:5173")).status, 200);
 * assert.equal((await list("http://devbox.lan:5173")).status, 200);
 * assert.equal((await list("https://example.com")).status, 403); // any other page is refused
 * cluster.close();
 * ```
 */
export const LOOPBACK_ORIGINS: readonly string[] = Object.freeze([
  "http://localhost:*",
  "http://127.0.0.1:*",
  "http://[::1]:*",
  "https://localhost:*",
  "https://127.0.0.1:*",
  "https://[::1]:*",
]);

/** Request headers a preflight may ask for: what `KubeClient` sends. */
const ALLOWED_HEADERS = "Accept, Authorization, Content-Type, User-Agent";
const ALLOWED_METHODS = "GET, POST, PUT, PATCH, DELETE, OPTIONS";
const EXPOSED_HEADERS = "Content-Type, Content-Length, Retry-After, Warning, Audit-Id, Date";

/** `scheme://host` with an optional `:port` or `:*`; `host` may be a bracketed IPv6 address. */
const ORIGIN_PATTERN_RE =
  /^[a-z][a-z0-9+.-]*:\/\/(\[[0-9a-f:.]+\]|[^\s/?#@:[\]]+)(:([0-9]+|\*))?$/i;

type Matcher = (origin: string) => boolean;

function compile(entry: unknown, index: number): Matcher {
  const where = `options.corsAllowedOrigins[${index}]`;
  if (entry instanceof RegExp) {
    return (origin) => {
      entry.lastIndex = 0;
      return entry.test(origin);
    };
  }
  if (typeof entry !== "string") {
    throw new TypeError(`${where} must be a string or a RegExp, got ${describeValue(entry)}`);
  }
  if (entry === "*") return () => true;
  if (entry !== "null" && !ORIGIN_PATTERN_RE.test(entry)) {
    throw new TypeError(
      `${where} must be an origin such as "https://app.example:8443" (the port may be *), "null" or "*", got ${
        describeValue(entry)
      }`,
    );
  }
  if (!entry.endsWith(":*")) return (origin) => origin === entry;
  const base = entry.slice(0, -2);
  return (origin) =>
    origin === base ||
    (origin.startsWith(base + ":") && /^[0-9]{1,5}$/.test(origin.slice(base.length + 1)));
}

/** Requests made in the same process by `cluster.webSocket` (no browser involved). */
const inProcess = new WeakSet<Request>();

/** Marks `request` as made by the in-process WebSocket of the cluster. */
export function markInProcess(request: Request): void {
  inProcess.add(request);
}

/**
 * Whether `origin` is the cluster's own origin, where that cannot be a web page: a non-browser
 * WebSocket client sends the server's origin (as `KubeClient` does by default), and such a
 * same-origin request is no CORS matter. Only for a loopback host or the in-process WebSocket:
 * a page that DNS rebinding points at the cluster also sends "its own" origin, with its own
 * host name, and stays refused.
 */
function ownOrigin(request: Request, origin: string): boolean {
  const url = new URL(request.url);
  if (origin !== url.origin) return false;
  if (inProcess.has(request)) return true;
  const host = url.hostname;
  return host === "localhost" || host === "[::1]" || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/** Which origins may call the cluster, and the CORS headers of its answers. */
export class CorsPolicy {
  readonly #matchers: readonly Matcher[];

  /** Validates `options.corsAllowedOrigins` (undefined: {@linkcode LOOPBACK_ORIGINS}). */
  constructor(allowed: ReadonlyArray<string | RegExp> | undefined) {
    const list = allowed ?? LOOPBACK_ORIGINS;
    if (!Array.isArray(list)) {
      throw new TypeError(
        `options.corsAllowedOrigins must be an array of origins or RegExps, got ${
          describeValue(list)
        }`,
      );
    }
    this.#matchers = list.map((entry, i) => compile(entry, i));
  }

  /** Whether a request with this `Origin` header may be served. */
  allows(origin: string): boolean {
    return this.#matchers.some((m) => m(origin));
  }

  /**
   * The answer to give before routing: 403 for a request from an origin that is not allowed,
   * 204 for a preflight (`OPTIONS`); undefined when the request goes on.
   */
  intercept(request: Request, method: string): Response | undefined {
    const origin = request.headers.get("origin");
    if (origin !== null && !this.allows(origin) && !ownOrigin(request, origin)) {
      return statusResponse(
        status(
          403,
          "Forbidden",
          `origin ${
            describeValue(origin)
          } is not allowed by the simulated cluster (see its corsAllowedOrigins option)`,
        ),
      );
    }
    if (method !== "OPTIONS") return undefined;
    const preflight = new Response(null, {
      status: 204,
      headers: {
        ...COMMON_HEADERS,
        "Access-Control-Allow-Methods": ALLOWED_METHODS,
        "Access-Control-Allow-Headers": ALLOWED_HEADERS,
        "Access-Control-Max-Age": "600",
      },
    });
    return this.decorate(request, preflight);
  }

  /**
   * Adds the CORS headers to the answer to a request that passed
   * {@linkcode CorsPolicy.intercept} (in place; returns it).
   */
  decorate(request: Request, response: Response): Response {
    const origin = request.headers.get("origin");
    if (origin === null) return response;
    response.headers.set("Access-Control-Allow-Origin", origin);
    response.headers.set("Access-Control-Expose-Headers", EXPOSED_HEADERS);
    response.headers.append("Vary", "Origin");
    return response;
  }
}
