/**
 * The WebSocket handshake of the simulated cluster, with the real API server's rules:
 *
 * 1. CORS first, as for every request (the simulated cluster is stricter than kube-apiserver,
 *    whose `--cors-allowed-origins` refuses nothing: here a disallowed `Origin` gets 403).
 * 2. The bearer-protocol authenticator: a subprotocol `base64url.bearer.authorization.k8s.io.<t>`
 *    is a credential; two of them, a bad base64url encoding, a token that is not UTF-8, or a
 *    token offered without any other protocol are refused (401). An accepted token's protocol
 *    is removed from the offer. (A request that an `Authorization` header or a client
 *    certificate authenticates keeps it, as on the real server, whose header authenticator
 *    runs first: the handshake then fails on two protocols.)
 * 3. The watch request is validated as over HTTP (400, 422, 504 before any upgrade).
 * 4. The handshake of `golang.org/x/net/websocket`: no `Origin` (or `null`, or one that does not
 *    parse) is 403; two or more remaining protocols are 400; one is echoed; none, none echoed.
 *
 * An accepted handshake is answered with a 200 whose `Upgrade: websocket` header tells the
 * serve adapter (or the in-process socket) to switch protocols, whose `Sec-WebSocket-Protocol`
 * is the protocol to echo, and whose body holds the messages, one per line.
 * @module
 */
import { BEARER_PROTOCOL_PREFIX } from "@kinformer/kinformer/internal";
import { COMMON_HEADERS, fail, status, statusResponse } from "../../core/status.ts";

/** Whether `request` asks to upgrade to a WebSocket (`GET` with `Upgrade: websocket`). */
export function isWebSocketUpgrade(request: Request): boolean {
  if (request.method.toUpperCase() !== "GET") return false;
  const upgrade = request.headers.get("upgrade");
  return upgrade !== null &&
    upgrade.split(",").some((token) => token.trim().toLowerCase() === "websocket");
}

/** The subprotocols a request offers, in order (`Sec-WebSocket-Protocol`, comma separated). */
function offeredProtocols(request: Request): string[] {
  const header = request.headers.get("sec-websocket-protocol");
  if (header === null) return [];
  return header.split(",").map((p) => p.trim()).filter((p) => p !== "");
}

/** What the bearer-protocol authenticator made of a handshake. */
export type ProtocolAuth =
  | { readonly kind: "none" }
  | { readonly kind: "refused"; readonly response: Response }
  | { readonly kind: "token"; readonly token: string; readonly remaining: readonly string[] };

function unauthorizedBecause(why: string): Response {
  return statusResponse(status(401, "Unauthorized", `Unauthorized: ${why}`));
}

/** Decodes base64url without padding; undefined when it is not that. */
function decodeBase64Url(text: string): Uint8Array | undefined {
  if (!/^[A-Za-z0-9_-]*$/.test(text) || text.length % 4 === 1) return undefined;
  const padded = text.replace(/-/g, "+").replace(/_/g, "/") +
    "=".repeat((4 - (text.length % 4)) % 4);
  try {
    return Uint8Array.from(atob(padded), (c) => c.charCodeAt(0));
  } catch {
    return undefined;
  }
}

/** The bearer-protocol authenticator (step 2 above); never shows the token in a message. */
export function authenticateProtocol(request: Request): ProtocolAuth {
  let token: string | undefined;
  const remaining: string[] = [];
  for (const protocol of offeredProtocols(request)) {
    if (!protocol.startsWith(BEARER_PROTOCOL_PREFIX)) {
      remaining.push(protocol);
      continue;
    }
    if (token !== undefined) {
      return {
        kind: "refused",
        response: unauthorizedBecause("multiple base64.bearer.authorization tokens specified"),
      };
    }
    const bytes = decodeBase64Url(protocol.slice(BEARER_PROTOCOL_PREFIX.length));
    if (bytes === undefined) {
      return {
        kind: "refused",
        response: unauthorizedBecause("invalid base64.bearer.authorization token encoding"),
      };
    }
    try {
      token = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
    } catch {
      return {
        kind: "refused",
        response: unauthorizedBecause("invalid base64.bearer.authorization token"),
      };
    }
  }
  if (token === undefined || token === "") return { kind: "none" };
  if (remaining.length === 0) {
    return { kind: "refused", response: unauthorizedBecause("missing additional subprotocol") };
  }
  return { kind: "token", token, remaining };
}

/** The request as the handler sees it once its bearer protocol was accepted and removed. */
export function withoutBearerProtocol(request: Request, remaining: readonly string[]): Request {
  const headers = new Headers(request.headers);
  if (remaining.length === 0) headers.delete("sec-websocket-protocol");
  else headers.set("sec-websocket-protocol", remaining.join(","));
  return new Request(request.url, { method: request.method, headers, signal: request.signal });
}

/**
 * Step 4: throws the handshake's refusal (a `KubeApiError` carrying a Status, which the HTTP
 * front answers with), or returns the protocol to echo (undefined: none).
 */
export function checkHandshake(request: Request): string | undefined {
  const origin = request.headers.get("origin");
  let parsed: URL | undefined;
  try {
    parsed = origin === null || origin === "null" ? undefined : new URL(origin);
  } catch {
    parsed = undefined;
  }
  if (parsed === undefined) {
    fail(status(
      403,
      "Forbidden",
      "websocket handshake refused: the request has no Origin header (browsers send one; " +
        "set it on other clients, e.g. KubeClient's webSocketOrigin)",
    ));
  }
  const protocols = offeredProtocols(request);
  if (protocols.length > 1) {
    fail(status(
      400,
      "BadRequest",
      `websocket handshake refused: ${protocols.length} subprotocols offered; the server echoes ` +
        "exactly one (offer one besides the bearer token's)",
    ));
  }
  return protocols[0];
}

/** The answer that accepts a handshake: see the module doc. */
export function acceptedHandshake(
  body: ReadableStream<Uint8Array>,
  protocol: string | undefined,
): Response {
  const headers: Record<string, string> = {
    ...COMMON_HEADERS,
    "Content-Type": "application/json",
    "Upgrade": "websocket",
  };
  if (protocol !== undefined) headers["Sec-WebSocket-Protocol"] = protocol;
  return new Response(body, { status: 200, headers });
}

/**
 * Whether `response` accepts a WebSocket handshake (a 200 with `Upgrade: websocket`), and with
 * which protocol; undefined when it refuses it (then it is the HTTP answer to send).
 */
export function acceptedProtocol(
  response: Response,
): { protocol: string | undefined } | undefined {
  if (response.status !== 200) return undefined;
  if (response.headers.get("upgrade")?.toLowerCase() !== "websocket") return undefined;
  return { protocol: response.headers.get("sec-websocket-protocol") ?? undefined };
}
