/**
 * How a watch reaches the API server: a chunked HTTP response or a WebSocket.
 * @module
 */
import { checkOneOf } from "../util/validate.ts";

/**
 * The transport of a watch. `"http"`: one long chunked HTTP response per watch (the API server's
 * usual answer). `"websocket"`: the same URL and query over a WebSocket (`ws:`/`wss:`), one
 * watch event per message. `"auto"`: WebSocket in browsers, HTTP elsewhere.
 *
 * Why a browser wants WebSockets: over HTTP/1.1 a page (or worker) has six connections per
 * origin, and every informer's watch holds one for minutes, so a seventh informer, or any other
 * request to that origin, waits. Browsers do not draw WebSockets from that pool. Over HTTP/2
 * (an `https:` API server that negotiates it) watches share one connection and the limit does
 * not bite; WebSockets still work there.
 */
export type WatchTransport = "http" | "websocket" | "auto";

/** Every {@linkcode WatchTransport}. Internal. */
export const WATCH_TRANSPORTS: readonly WatchTransport[] = ["http", "websocket", "auto"];

/**
 * The transport `transport` stands for here: `"auto"` is `"websocket"` in a browser (a page or a
 * Web Worker), `"http"` elsewhere; `undefined` is `"http"`. A browser is recognised by its
 * `navigator.userAgent`, which starts with `Mozilla/` in every browser and never in Deno
 * (`Deno/…`), Bun (`Bun/…`), Node (`Node.js/…`) or Cloudflare Workers (`Cloudflare-Workers`):
 * the one place kinformer asks what it runs on.
 *
 * @throws {TypeError} for anything but a {@linkcode WatchTransport} or `undefined`.
 */
export function resolveWatchTransport(
  transport: WatchTransport | undefined,
  option = "transport",
): "http" | "websocket" {
  checkOneOf(transport, option, WATCH_TRANSPORTS);
  if (transport === "auto") return isBrowser() ? "websocket" : "http";
  return transport ?? "http";
}

/**
 * Whether a streaming list (`sendInitialEvents=true`) over `transport` reads whole here, whatever
 * the server compresses. A WebSocket watch is never gzip-encoded. Over HTTP, kube-apiserver 1.37
 * gzips a streaming list when asked for gzip, one gzip member per flush; outside a browser the
 * client asks for `identity` (or has a `fetch` that reads every member), but a page cannot set
 * `Accept-Encoding`, and Chromium's `fetch` (like Deno's) delivers the first member and ends the
 * body cleanly: the list would stop short every time. So: false for HTTP in a browser. Internal.
 */
export function streamsWholeLists(transport: "http" | "websocket"): boolean {
  return transport === "websocket" || !isBrowser();
}

/** Whether this code runs in a browser (page or worker). Internal. */
function isBrowser(): boolean {
  const agent = (globalThis as { navigator?: { userAgent?: unknown } }).navigator?.userAgent;
  return typeof agent === "string" && agent.startsWith("Mozilla/");
}
