/**
 * A zero-dependency `fetch` for Kubernetes API servers on `node:http` / `node:https`: what the
 * Node loader uses, because Node's global `fetch` takes no CA, client certificate, server
 * name or proxy. It runs on Deno and Bun too, through their Node compatibility.
 *
 * - TLS: the cluster CA (`ca`, replacing the system roots, as kubectl does), a client
 *   certificate and key, `tls-server-name` (SNI and the name the certificate is checked
 *   against), and `insecure-skip-tls-verify` only when the configuration says so, never
 *   together with a CA.
 * - Connections are kept alive and reused (one pool per `createNodeFetch`); `close()` ends them.
 * - `proxyUrl`: `http:`/`https:` proxies (`CONNECT` for https servers, absolute URLs for http
 *   ones; TLS to an `https:` proxy is verified with the CA, as Go's transport does) and
 *   `socks5:`/`socks5h:`, with credentials from the URL. Proxy variables in the environment
 *   are not read here: the loaders decide (see `TransportConfig.proxyUrl`).
 * - The request's `AbortSignal` aborts the request and its body at once, releasing the socket.
 * - Response bodies stream. Besides the standard `body`, the `Response` carries the socket's
 *   chunks under an internal symbol (`RESPONSE_BYTES`, `src/watch/response_bytes.ts`), which
 *   the informer's watch reads without a Web stream in between.
 * - Request bodies are read whole and sent with `Content-Length` (Kubernetes writes are small
 *   JSON documents). Redirects are not followed.
 * - Compression: requests ask for gzip (`Accept-Encoding: gzip`, as Go's transport does; the
 *   API server compresses LIST and GET answers over 128 KiB), or `identity` with
 *   `disableCompression`, unless the request sets the header itself. gzip, deflate and br
 *   answers are decoded as they stream (`node:zlib`), for `body` and `RESPONSE_BYTES` alike.
 * - Failures reject with a `TypeError` (as `fetch` does) whose message says what went wrong,
 *   e.g. which certificate check failed, with the Node error as `cause`.
 * @module
 */
import type { IncomingMessage } from "node:http";
import http from "node:http";
import https from "node:https";
import type { Duplex, Readable } from "node:stream";
import tls from "node:tls";
import zlib from "node:zlib";
import { RESPONSE_BYTES } from "../../watch/response_bytes.ts";
import type { HostFetch, TransportConfig } from "../../config/config_loader_options.ts";
import { headerLinesOf } from "../../config/_header_lines.ts";
import { bareHost, openTunnel, proxyAuthorization, proxyPort, servernameFor } from "./_proxy.ts";
import { checkTlsMaterial } from "./_tls.ts";
import { parseProxyUrl } from "../../config/_proxy_url.ts";
import { onAbort } from "../../util/abort.ts";
import { describeValue } from "../../util/values.ts";

/** Statuses whose responses have no body (`Response` refuses one). */
const NULL_BODY_STATUS = new Set([101, 103, 204, 205, 304]);

/** OpenSSL verification codes: the server's certificate chain is not trusted. */
const UNTRUSTED_CODES = new Set([
  "SELF_SIGNED_CERT_IN_CHAIN",
  "DEPTH_ZERO_SELF_SIGNED_CERT",
  "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
  "UNABLE_TO_GET_ISSUER_CERT",
  "UNABLE_TO_GET_ISSUER_CERT_LOCALLY",
  "CERT_UNTRUSTED",
  "CERT_SIGNATURE_FAILURE",
  "CERT_HAS_EXPIRED",
  "CERT_NOT_YET_VALID",
  "CERT_REVOKED",
  "INVALID_CA",
]);

/**
 * Builds a `fetch` on `node:http`/`node:https` applying `transport` (see the module
 * documentation). Call `close()` when done: it ends the pooled connections, open watches
 * included.
 *
 * @throws {TypeError} when `insecureSkipTlsVerify` comes with a CA, a client certificate
 * comes without its key (or the reverse), the CA, certificate or key is not usable PEM (or
 * the key does not match the certificate), or `proxyUrl` is not an http(s)/socks5 URL.
 *
 * @example
 * ```ts
 * import { createNodeFetch } from "@kinformer/kinformer/config/node";
 * import { KubeClient } from "@kinformer/kinformer/client";
 * import { createServer } from "node:http";
 * import assert from "node:assert/strict";
 * const server = createServer((_req, res) => res.end('{"gitVersion":"v1.35.0"}'));
 * await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
 * const { port } = server.address() as { port: number };
 * const transport = createNodeFetch({}); // pass caData, certData, keyData, ... for https
 * const client = new KubeClient({ server: `http://127.0.0.1:${port}`, fetch: transport.fetch });
 * assert.deepEqual(await (await client.request("/version")).json(), { gitVersion: "v1.35.0" });
 * transport.close();
 * await new Promise((resolve) => server.close(resolve));
 * ```
 */
export function createNodeFetch(transport: TransportConfig = {}): HostFetch {
  if (typeof transport !== "object" || transport === null) {
    throw new TypeError(`transport must be an object, got ${String(transport)}`);
  }
  if (transport.insecureSkipTlsVerify === true && transport.caData !== undefined) {
    throw new TypeError(
      "insecureSkipTlsVerify and caData cannot be used together: verify with the CA, or skip " +
        "verification (kubectl refuses both too)",
    );
  }
  if ((transport.certData === undefined) !== (transport.keyData === undefined)) {
    throw new TypeError("certData and keyData must be given together");
  }
  const secure: tls.ConnectionOptions = {
    rejectUnauthorized: transport.insecureSkipTlsVerify !== true,
  };
  if (transport.caData !== undefined) secure.ca = transport.caData;
  if (transport.certData !== undefined) secure.cert = transport.certData;
  if (transport.keyData !== undefined) secure.key = transport.keyData;
  if (transport.tlsServerName !== undefined) secure.servername = transport.tlsServerName;
  // A bad CA, certificate or key fails now, not every request (an informer would retry forever).
  checkTlsMaterial(transport);
  const proxy = transport.proxyUrl === undefined ? undefined : parseProxyUrl(transport.proxyUrl);
  const acceptEncoding = transport.disableCompression === true ? "identity" : "gzip";
  // TLS to an https: proxy is verified as Go's transport does it: with the cluster's CA (or
  // not at all with insecure-skip-tls-verify).
  const proxyTls: tls.ConnectionOptions = { rejectUnauthorized: secure.rejectUnauthorized };
  if (secure.ca !== undefined) proxyTls.ca = secure.ca;

  const agents = {
    http: proxy === undefined || proxy.protocol === "http:"
      ? new http.Agent({ keepAlive: true })
      : proxy.protocol === "https:"
      ? new https.Agent({ keepAlive: true, ...proxyTls })
      : new TunnelAgent(proxy, proxyTls, undefined),
    https: proxy === undefined
      ? new https.Agent({ keepAlive: true, ...secure })
      : new TunnelAgent(proxy, proxyTls, secure),
  };
  let closed = false;
  return {
    fetch: (request) => {
      if (closed) {
        return Promise.reject(new TypeError("this fetch was closed (close() was called)"));
      }
      return send(request, { agents, secure, proxy, acceptEncoding });
    },
    close: () => {
      if (closed) return;
      closed = true;
      agents.http.destroy();
      agents.https.destroy();
    },
  };
}

/**
 * An agent whose connections go through a proxy tunnel (CONNECT or SOCKS5), with TLS to the
 * server on top when `secure` is given. Keeps connections alive like the plain agents.
 */
class TunnelAgent extends https.Agent {
  readonly #proxy: URL;
  readonly #proxyTls: tls.ConnectionOptions;
  readonly #secure: tls.ConnectionOptions | undefined;

  constructor(
    proxy: URL,
    proxyTls: tls.ConnectionOptions,
    secure: tls.ConnectionOptions | undefined,
  ) {
    super({ keepAlive: true, ...secure });
    this.#proxy = proxy;
    this.#proxyTls = proxyTls;
    this.#secure = secure;
    // Serves http: requests too when there is no TLS on top (a SOCKS5 proxy to an http server).
    if (secure === undefined) (this as unknown as { protocol: string }).protocol = "http:";
  }

  override createConnection(
    options: http.ClientRequestArgs,
    callback?: (error: Error | null, stream: Duplex) => void,
  ): Duplex | null | undefined {
    const host = bareHost(options.host ?? options.hostname ?? "localhost");
    const port = Number(options.port ?? (this.#secure === undefined ? 80 : 443));
    openTunnel(this.#proxy, { host, port, tls: this.#proxyTls }).then((socket) => {
      if (this.#secure === undefined) {
        // The handshake left the socket paused; nothing arrives before the request is sent.
        // (Node's HTTP client reads the handle itself, Deno's needs the stream flowing.)
        socket.resume();
        callback?.(null, socket);
        return;
      }
      const servername = this.#secure.servername ?? servernameFor(host);
      const options: tls.ConnectionOptions = { ...this.#secure, socket, host };
      if (servername !== undefined) options.servername = servername;
      callback?.(null, tls.connect(options));
    }, (error: Error) => callback?.(error, undefined as unknown as Duplex));
    return undefined;
  }
}

/** What every request of one `createNodeFetch` shares. */
interface SendContext {
  agents: { http: http.Agent; https: http.Agent };
  secure: tls.ConnectionOptions;
  proxy: URL | undefined;
  /** `Accept-Encoding` for requests that do not set it. */
  acceptEncoding: string;
}

/** Sends one request; resolves its Response once the head has arrived. */
async function send(request: Request, context: SendContext): Promise<Response> {
  const { agents, secure, proxy } = context;
  const signal = request.signal;
  signal.throwIfAborted();
  const url = new URL(request.url);
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new TypeError(`only http: and https: URLs can be fetched, got ${url.protocol}`);
  }
  const isHttps = url.protocol === "https:";
  const headers: Record<string, string | string[]> = {};
  request.headers.forEach((value, name) => {
    headers[name] = value;
  });
  // Names the caller sends once per value (`Headers` joined them into one line).
  for (const [name, values] of headerLinesOf(request)) headers[name] = values;
  headers["accept-encoding"] ??= context.acceptEncoding;
  let body: Uint8Array | undefined;
  if (request.body !== null) {
    body = new Uint8Array(await request.arrayBuffer());
    headers["content-length"] = String(body.byteLength);
    signal.throwIfAborted();
  }
  const options: https.RequestOptions = {
    method: request.method,
    host: bareHost(url.hostname),
    port: url.port === "" ? (isHttps ? 443 : 80) : Number(url.port),
    path: url.pathname + url.search,
    headers,
    agent: isHttps ? agents.https : agents.http,
  };
  if (isHttps && secure.servername !== undefined) options.servername = secure.servername;
  const viaProxy = !isHttps && proxy !== undefined && proxy.protocol.startsWith("http");
  if (viaProxy) {
    // A plain-HTTP server through an HTTP(S) proxy: ask the proxy for the absolute URL.
    options.host = bareHost(proxy.hostname);
    options.port = proxyPort(proxy);
    options.path = url.href;
    if (proxy.protocol === "https:") {
      const servername = servernameFor(options.host);
      if (servername !== undefined) options.servername = servername;
    }
    headers["host"] = url.host;
    const auth = proxyAuthorization(proxy);
    if (auth !== undefined) headers["proxy-authorization"] = auth;
  }
  return await new Promise<Response>((resolve, reject) => {
    const req = (isHttps || (viaProxy && proxy.protocol === "https:") ? https : http)
      .request(options);
    let bytes: NodeBodyBytes | undefined;
    const detach = onAbort(signal, () => {
      const reason: unknown = signal.reason;
      if (bytes !== undefined) bytes.fail(reason);
      else reject(reason);
      req.destroy();
    });
    req.on("error", (error: Error) => {
      detach();
      reject(describeError(error, url, secure));
    });
    req.once("response", (res: IncomingMessage) => {
      const status = res.statusCode ?? 0;
      const responseHeaders = new Headers();
      const raw = res.rawHeaders;
      for (let i = 0; i + 1 < raw.length; i += 2) responseHeaders.append(raw[i]!, raw[i + 1]!);
      const init: ResponseInit = { status, statusText: res.statusMessage ?? "" };
      init.headers = responseHeaders;
      if (NULL_BODY_STATUS.has(status) || request.method === "HEAD") {
        res.resume();
        detach();
        resolve(new Response(null, init));
        return;
      }
      bytes = new NodeBodyBytes(decoded(res), () => {
        detach();
        if (!res.complete) req.destroy();
      });
      const response = new Response(bytes.webStream(), init);
      const view = bytes;
      Object.defineProperty(response, RESPONSE_BYTES, {
        value: () => view.take(),
        configurable: true,
      });
      resolve(response);
    });
    req.end(body);
  });
}

/** The body as sent, or decoded when the server compressed it. */
function decoded(res: IncomingMessage): Readable {
  const encoding = (res.headers["content-encoding"] ?? "").trim().toLowerCase();
  // 64 KiB output chunks (the default is 16 KiB): a quarter of the chunks for the decoder.
  const chunkSize = 64 * 1024;
  const decoder = encoding === "gzip" || encoding === "x-gzip"
    ? zlib.createGunzip({ chunkSize })
    : encoding === "deflate"
    ? zlib.createInflate({ chunkSize })
    : encoding === "br"
    ? zlib.createBrotliDecompress({ chunkSize })
    : undefined;
  if (decoder === undefined) return res;
  res.on("error", (error) => decoder.destroy(error));
  decoder.on("close", () => res.destroy());
  return res.pipe(decoder);
}

/** A TypeError like `fetch`'s, with a message that says what failed. */
function describeError(error: Error, url: URL, secure: tls.ConnectionOptions): TypeError {
  const code = (error as { code?: unknown }).code;
  const host = url.host;
  let message: string;
  if (typeof code === "string" && UNTRUSTED_CODES.has(code)) {
    message = `the certificate of ${host} failed verification: ${error.message} (${code}); ` +
      (secure.ca === undefined
        ? "no certificate-authority is configured, so the system's CAs were used"
        : "is certificate-authority the CA that signed the server's certificate?");
  } else if (code === "ERR_TLS_CERT_ALTNAME_INVALID") {
    message = `the certificate of ${host} is not valid for ` +
      `${describeValue(secure.servername ?? bareHost(url.hostname))}: ${error.message}; ` +
      "set tls-server-name to a name the certificate has";
  } else {
    message = `request to ${url.origin} failed: ${error.message}` +
      (typeof code === "string" && !error.message.includes(code) ? ` (${code})` : "");
  }
  return new TypeError(message, { cause: error });
}

type Chunk = IteratorResult<Uint8Array, undefined>;
const DONE: IteratorReturnResult<undefined> = Object.freeze({ done: true, value: undefined });

/**
 * A response body read from a Node stream: an async iterator whose `return()` destroys the
 * stream at once (also while a `next()` is pending), plus a lazy Web `ReadableStream` over the
 * same chunks. Whichever is read first owns the body.
 */
class NodeBodyBytes implements AsyncIterableIterator<Uint8Array> {
  readonly #stream: Readable;
  readonly #onFinish: () => void;
  readonly #queue: Uint8Array[] = [];
  #owner: "web" | "bytes" | undefined;
  #attached = false;
  #ended = false;
  #failure: { error: unknown } | undefined;
  #finished = false;
  #released = false;
  #waiter: { resolve(chunk: Chunk): void; reject(error: unknown): void } | undefined;

  constructor(stream: Readable, onFinish: () => void) {
    this.#stream = stream;
    this.#onFinish = onFinish;
  }

  /** The chunks, for `RESPONSE_BYTES`; undefined once the Web stream has been read. */
  take(): AsyncIterableIterator<Uint8Array> | undefined {
    if (this.#owner === "web") return undefined;
    this.#owner = "bytes";
    return this;
  }

  /** A Web stream over the chunks (pulled only when read: nothing starts before). */
  webStream(): ReadableStream<Uint8Array> {
    return new ReadableStream<Uint8Array>({
      pull: async (controller) => {
        if (this.#owner === "bytes") {
          throw new TypeError("the body was taken through RESPONSE_BYTES");
        }
        this.#owner = "web";
        const chunk = await this.next();
        if (chunk.done === true) controller.close();
        else controller.enqueue(chunk.value);
      },
      cancel: () => {
        this.#end();
      },
    }, { highWaterMark: 0 });
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  next(): Promise<Chunk> {
    const chunk = this.#queue.shift();
    if (chunk !== undefined) {
      if (this.#queue.length === 0 && !this.#ended) this.#stream.resume();
      return Promise.resolve({ done: false, value: chunk });
    }
    if (this.#failure !== undefined) {
      const { error } = this.#failure;
      this.#failure = { error: undefined };
      this.#finished = true;
      return error === undefined ? Promise.resolve(DONE) : Promise.reject(error);
    }
    if (this.#ended || this.#finished) return Promise.resolve(DONE);
    if (!this.#attached) this.#attach();
    return new Promise<Chunk>((resolve, reject) => (this.#waiter = { resolve, reject }));
  }

  /** Stops reading: destroys the stream (freeing the socket) and settles a pending `next()`. */
  return(): Promise<IteratorReturnResult<undefined>> {
    this.#end();
    return Promise.resolve(DONE);
  }

  /** Fails the body with `error` (the request's abort reason). */
  fail(error: unknown): void {
    if (this.#finished || this.#ended) return;
    this.#queue.length = 0;
    this.#failWith(error);
    this.#finish();
  }

  #end(): void {
    this.#queue.length = 0;
    const waiter = this.#waiter;
    this.#waiter = undefined;
    this.#finished = true;
    this.#finish();
    waiter?.resolve(DONE);
  }

  #attach(): void {
    this.#attached = true;
    this.#stream.on("data", this.#onData);
    this.#stream.on("end", this.#onEnd);
    this.#stream.on("error", this.#onError);
    this.#stream.on("close", this.#onClose);
  }

  readonly #onData = (chunk: Uint8Array): void => {
    const waiter = this.#waiter;
    if (waiter !== undefined) {
      this.#waiter = undefined;
      waiter.resolve({ done: false, value: chunk });
      return;
    }
    this.#queue.push(chunk);
    this.#stream.pause();
  };

  readonly #onEnd = (): void => {
    this.#ended = true;
    const waiter = this.#waiter;
    this.#waiter = undefined;
    this.#finish();
    waiter?.resolve(DONE);
  };

  readonly #onError = (error: Error): void => {
    this.#failWith(new TypeError(`the body failed: ${error.message}`, { cause: error }));
  };

  readonly #onClose = (): void => {
    if (this.#ended || this.#finished) return;
    this.#failWith(new TypeError("the connection closed before the body ended"));
  };

  #failWith(error: unknown): void {
    if (this.#failure !== undefined) return;
    const waiter = this.#waiter;
    this.#waiter = undefined;
    if (waiter !== undefined) {
      this.#failure = { error: undefined };
      this.#finished = true;
      waiter.reject(error);
    } else {
      this.#failure = { error };
    }
    this.#finish();
  }

  /** Releases the stream once: destroys it unless it ended, and tells the request. */
  #finish(): void {
    if (this.#released) return;
    this.#released = true;
    this.#stream.off("data", this.#onData);
    this.#stream.off("end", this.#onEnd);
    this.#stream.off("close", this.#onClose);
    this.#stream.off("error", this.#onError);
    // A destroyed stream may still emit an error nobody reads: keep a listener for it.
    this.#stream.on("error", ignore);
    if (!this.#ended) this.#stream.destroy();
    this.#onFinish();
  }
}

function ignore(): void {}
