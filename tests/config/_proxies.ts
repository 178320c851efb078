// Loopback proxies for the transport tests: an HTTP proxy (CONNECT for https targets, absolute
// URLs for http ones) and a SOCKS5 proxy, each recording what it was asked and routing every
// target to an address of the test's choosing (so that a name that resolves nowhere, like
// `kinformer.test`, reaches a local server only through the proxy). They run on node:http and
// node:net, which Deno and Bun run too.
import { Buffer } from "node:buffer";
import { createServer, type IncomingMessage, request, type ServerResponse } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import net from "node:net";

/** Where a proxy sends a target `host:port`: `[host, port]` to connect to. */
export type Route = (host: string, port: number) => [string, number];

/** Targets go where they say (loopback names resolve to loopback anyway). */
export const DIRECT: Route = (host, port) => [host, port];

/** A running proxy. */
export interface TestProxy {
  /** Its URL, with credentials when it was given some. */
  url: string;
  /** What it was asked, one line per request or tunnel. */
  seen: string[];
  close(): Promise<void>;
}

/** Splits `host:port` (with IPv6 brackets) as CONNECT and absolute URLs give it. */
function splitTarget(authority: string): [string, number] {
  const colon = authority.lastIndexOf(":");
  return [authority.slice(0, colon).replace(/^\[|\]$/g, ""), Number(authority.slice(colon + 1))];
}

/** Options of {@linkcode httpProxy}. */
export interface HttpProxyOptions {
  /** Where targets go. @default DIRECT */
  route?: Route;
  /** Put `user:p%40ss` in the URL. @default true */
  credentials?: boolean;
  /** Serve TLS (an `https://` proxy) with this certificate and key. @default plain HTTP */
  tls?: { cert: string; key: string };
}

/**
 * An HTTP proxy on 127.0.0.1: `CONNECT host:port` opens a tunnel to `route(host, port)`; a
 * request for an absolute `http://` URL is forwarded there. Records `CONNECT host:port auth=...`
 * and `GET url auth=...` (`auth` is the `Proxy-Authorization` header, or `-`).
 */
export async function httpProxy(options: HttpProxyOptions = {}): Promise<TestProxy> {
  const { route = DIRECT, credentials = true } = options;
  const seen: string[] = [];
  const sockets = new Set<net.Socket>();
  const handle = (req: IncomingMessage, res: ServerResponse): void => {
    seen.push(`${req.method} ${req.url} auth=${req.headers["proxy-authorization"] ?? "-"}`);
    const target = new URL(req.url!);
    const [host, port] = route(target.hostname, Number(target.port || 80));
    const headers = { ...req.headers };
    delete headers["proxy-authorization"];
    const upstream = request({
      host,
      port,
      method: req.method,
      path: target.pathname + target.search,
      headers,
    }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on("error", () => res.destroy());
    req.pipe(upstream);
  };
  const server = options.tls === undefined
    ? createServer(handle)
    : createHttpsServer({ cert: options.tls.cert, key: options.tls.key }, handle);
  server.on("connect", (req: IncomingMessage, client: net.Socket, head: Buffer) => {
    seen.push(`CONNECT ${req.url} auth=${req.headers["proxy-authorization"] ?? "-"}`);
    sockets.add(client);
    const [host, port] = route(...splitTarget(req.url!));
    const upstream = net.connect(port, host, () => {
      client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    sockets.add(upstream);
    upstream.on("error", () => client.destroy());
    client.on("error", () => upstream.destroy());
  });
  server.on("connection", (s: net.Socket) => sockets.add(s));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  const scheme = options.tls === undefined ? "http" : "https";
  return {
    url: `${scheme}://${credentials ? "user:p%40ss@" : ""}127.0.0.1:${port}`,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/**
 * A SOCKS5 proxy on 127.0.0.1 (no authentication, or user/password), routing each target
 * through `route`. Records `auth user:password` and `connect host:port`. The URL carries
 * `kin:former` when `credentials` is true.
 */
export async function socksProxy(
  options: { route?: Route; credentials?: boolean } = {},
): Promise<TestProxy> {
  const { route = DIRECT, credentials = true } = options;
  const seen: string[] = [];
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    sockets.add(client);
    let buffer = Buffer.alloc(0);
    let stage = 0;
    client.on("data", (d: Buffer) => {
      buffer = Buffer.concat([buffer, d]);
      if (stage === 0 && buffer.length >= 2 && buffer.length >= 2 + buffer[1]!) {
        const methods = [...buffer.subarray(2, 2 + buffer[1]!)];
        buffer = buffer.subarray(2 + buffer[1]!);
        const method = methods.includes(2) ? 2 : 0;
        client.write(Uint8Array.from([5, method]));
        stage = method === 2 ? 1 : 2;
      }
      if (stage === 1 && buffer.length >= 2) {
        const ulen = buffer[1]!;
        if (buffer.length < 3 + ulen || buffer.length < 3 + ulen + buffer[2 + ulen]!) return;
        const user = buffer.subarray(2, 2 + ulen).toString();
        const pass = buffer.subarray(3 + ulen, 3 + ulen + buffer[2 + ulen]!).toString();
        seen.push(`auth ${user}:${pass}`);
        buffer = buffer.subarray(3 + ulen + buffer[2 + ulen]!);
        client.write(Uint8Array.from([1, 0]));
        stage = 2;
      }
      if (stage === 2 && buffer.length >= 5) {
        const type = buffer[3]!;
        const length = type === 1 ? 4 : type === 4 ? 16 : 1 + buffer[4]!;
        if (buffer.length < 4 + length + 2) return;
        const host = type === 1
          ? [...buffer.subarray(4, 8)].join(".")
          : buffer.subarray(5, 5 + buffer[4]!).toString();
        const port = buffer.readUInt16BE(4 + length);
        const rest = buffer.subarray(4 + length + 2);
        seen.push(`connect ${host}:${port}`);
        stage = 3;
        const [toHost, toPort] = route(host, port);
        const upstream = net.connect(toPort, toHost, () => {
          client.write(Uint8Array.from([5, 0, 0, 1, 127, 0, 0, 1, 0, 0]));
          if (rest.length > 0) upstream.write(rest);
          upstream.pipe(client);
          client.pipe(upstream);
        });
        sockets.add(upstream);
        upstream.on("error", () => client.destroy());
      }
    });
    client.on("error", () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `socks5://${credentials ? "kin:former@" : ""}127.0.0.1:${port}`,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** Routes every target to `127.0.0.1:port` (a name that resolves nowhere reaches the server). */
export function toLoopback(port: number): Route {
  return () => ["127.0.0.1", port];
}

/**
 * Sets environment variables for the duration of `body` (unset with `undefined`), restoring
 * the previous values afterwards.
 */
export async function withEnv<T>(
  vars: Record<string, string | undefined>,
  body: () => Promise<T>,
): Promise<T> {
  const env = (globalThis as unknown as { process: { env: Record<string, string | undefined> } })
    .process.env;
  const before = Object.fromEntries(Object.keys(vars).map((name) => [name, env[name]]));
  const apply = (values: Record<string, string | undefined>): void => {
    for (const [name, value] of Object.entries(values)) {
      if (value === undefined) delete env[name];
      else env[name] = value;
    }
  };
  apply(vars);
  try {
    return await body();
  } finally {
    apply(before);
  }
}

/** Every proxy variable unset: what `withEnv` starts from in the proxy tests. */
export const NO_PROXY_VARS: Record<string, undefined> = {
  HTTPS_PROXY: undefined,
  https_proxy: undefined,
  HTTP_PROXY: undefined,
  http_proxy: undefined,
  ALL_PROXY: undefined,
  all_proxy: undefined,
  NO_PROXY: undefined,
  no_proxy: undefined,
};
