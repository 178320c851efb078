/**
 * Tunnels for the Node transport's `proxy-url`: HTTP `CONNECT` through an `http:` or `https:`
 * proxy, and SOCKS5 (`socks5:`/`socks5h:`, no authentication or user/password), on `node:net`
 * and `node:tls` (internal).
 * @module
 */
import { Buffer } from "node:buffer";
import net from "node:net";
import tls from "node:tls";
import { messageOf } from "../../util/values.ts";
import { redactUrl } from "../../client/http.ts";
import { basicAuthorization } from "../../config/_user_auth.ts";

/** The proxy's port, with each scheme's default. */
export function proxyPort(proxy: URL): number {
  if (proxy.port !== "") return Number(proxy.port);
  return proxy.protocol === "https:" ? 443 : proxy.protocol === "http:" ? 80 : 1080;
}

/** `Proxy-Authorization` for a proxy URL with credentials, else undefined. */
export function proxyAuthorization(proxy: URL): string | undefined {
  if (proxy.username === "" && proxy.password === "") return undefined;
  return basicAuthorization(decodeURIComponent(proxy.username), decodeURIComponent(proxy.password));
}

/** `host` without the brackets of an IPv6 literal. */
export function bareHost(host: string): string {
  return host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host;
}

/**
 * Opens a connection to `target.host:target.port` through `proxy` and resolves the raw socket
 * (TLS to the target, if any, is the caller's; `target.tls` verifies an `https:` proxy).
 * Rejects with an Error naming the proxy (without its credentials) and what it answered.
 */
export function openTunnel(
  proxy: URL,
  target: { host: string; port: number; tls: tls.ConnectionOptions },
): Promise<net.Socket> {
  const { host, port } = target;
  const proxyHost = bareHost(proxy.hostname);
  const tunnelPort = proxyPort(proxy);
  const socket: net.Socket = proxy.protocol === "https:"
    ? tls.connect({
      ...target.tls,
      host: proxyHost,
      port: tunnelPort,
      servername: servernameFor(proxyHost),
    })
    : net.connect({ host: proxyHost, port: tunnelPort });
  const where = `proxy ${redactUrl(proxy.href)}`;
  const handshake = proxy.protocol === "http:" || proxy.protocol === "https:"
    ? connectHandshake(socket, proxy, host, port)
    : socksHandshake(socket, proxy, host, port);
  return handshake.then(() => socket, (error: unknown) => {
    socket.destroy();
    throw new Error(`${where}: ${messageOf(error)}`, { cause: error });
  });
}

/** SNI name for a host: none for IP literals (TLS forbids them). */
export function servernameFor(host: string): string | undefined {
  return net.isIP(host) === 0 ? host : undefined;
}

/** Reads exact byte counts or up to a separator from a socket during a handshake. */
class HandshakeReader {
  readonly #socket: net.Socket;
  #buffer: Buffer = Buffer.alloc(0);
  #wake: (() => void) | undefined;
  #failure: Error | undefined;

  constructor(socket: net.Socket) {
    this.#socket = socket;
    socket.on("data", this.#onData);
    socket.once("error", this.#onError);
    socket.once("close", this.#onClose);
  }

  readonly #onData = (chunk: Buffer): void => {
    this.#buffer = this.#buffer.length === 0 ? chunk : Buffer.concat([this.#buffer, chunk]);
    this.#wake?.();
  };
  readonly #onError = (error: Error): void => {
    this.#failure ??= error;
    this.#wake?.();
  };
  readonly #onClose = (): void => {
    this.#failure ??= new Error("the proxy closed the connection during the handshake");
    this.#wake?.();
  };

  async #until(ready: () => boolean): Promise<void> {
    while (!ready()) {
      if (this.#failure !== undefined) throw this.#failure;
      if (this.#buffer.length > 16 * 1024) throw new Error("the proxy's answer is too long");
      await new Promise<void>((resolve) => (this.#wake = resolve));
      this.#wake = undefined;
    }
  }

  /** The next `n` bytes. */
  async bytes(n: number): Promise<Buffer> {
    await this.#until(() => this.#buffer.length >= n);
    const out = this.#buffer.subarray(0, n);
    this.#buffer = this.#buffer.subarray(n);
    return out;
  }

  /** Bytes up to and including `separator`. */
  async through(separator: string): Promise<Buffer> {
    await this.#until(() => this.#buffer.indexOf(separator) >= 0);
    return this.bytes(this.#buffer.indexOf(separator) + separator.length);
  }

  /** Stops listening and hands bytes read past the handshake back to the socket. */
  detach(): void {
    this.#socket.off("data", this.#onData);
    this.#socket.off("error", this.#onError);
    this.#socket.off("close", this.#onClose);
    this.#socket.pause();
    if (this.#buffer.length > 0) this.#socket.unshift(this.#buffer);
  }
}

async function connectHandshake(
  socket: net.Socket,
  proxy: URL,
  host: string,
  port: number,
): Promise<void> {
  const reader = new HandshakeReader(socket);
  try {
    const authority = `${net.isIPv6(host) ? `[${host}]` : host}:${port}`;
    const auth = proxyAuthorization(proxy);
    socket.write(
      `CONNECT ${authority} HTTP/1.1\r\nHost: ${authority}\r\n` +
        (auth === undefined ? "" : `Proxy-Authorization: ${auth}\r\n`) + "\r\n",
    );
    const head = (await reader.through("\r\n\r\n")).toString("latin1");
    const statusLine = head.slice(0, head.indexOf("\r\n"));
    const status = /^HTTP\/1\.[01] (\d{3})/.exec(statusLine);
    if (status === null) throw new Error(`not an HTTP answer to CONNECT: ${statusLine}`);
    if (status[1] !== "200") throw new Error(`CONNECT ${authority} refused: ${statusLine}`);
  } finally {
    reader.detach();
  }
}

const SOCKS_REPLIES: Record<number, string> = {
  1: "general failure",
  2: "connection not allowed by ruleset",
  3: "network unreachable",
  4: "host unreachable",
  5: "connection refused",
  6: "TTL expired",
  7: "command not supported",
  8: "address type not supported",
};

async function socksHandshake(
  socket: net.Socket,
  proxy: URL,
  host: string,
  port: number,
): Promise<void> {
  const reader = new HandshakeReader(socket);
  try {
    const withPassword = proxy.username !== "" || proxy.password !== "";
    socket.write(Uint8Array.from(withPassword ? [5, 2, 0, 2] : [5, 1, 0]));
    const [version, method] = await reader.bytes(2);
    if (version !== 5) throw new Error("not a SOCKS5 proxy");
    if (method === 2 && withPassword) {
      const user = Buffer.from(decodeURIComponent(proxy.username));
      const password = Buffer.from(decodeURIComponent(proxy.password));
      if (user.length > 255 || password.length > 255) {
        throw new Error("SOCKS5 user and password must be at most 255 bytes each");
      }
      socket.write(
        Buffer.concat([
          Uint8Array.from([1, user.length]),
          user,
          Uint8Array.from([password.length]),
          password,
        ]),
      );
      const [, status] = await reader.bytes(2);
      if (status !== 0) throw new Error("the SOCKS5 proxy refused the user and password");
    } else if (method !== 0) {
      throw new Error(
        method === 0xff
          ? "the SOCKS5 proxy accepts none of the offered authentication methods"
          : `the SOCKS5 proxy chose an unknown authentication method ${method}`,
      );
    }
    socket.write(Buffer.concat([Uint8Array.from([5, 1, 0]), socksAddress(host), portBytes(port)]));
    const [, reply, , type] = await reader.bytes(4);
    if (reply !== 0) {
      throw new Error(
        `SOCKS5 connect to ${host}:${port} failed: ${SOCKS_REPLIES[reply!] ?? `reply ${reply}`}`,
      );
    }
    const addressLength = type === 1 ? 4 : type === 4 ? 16 : (await reader.bytes(1))[0]!;
    await reader.bytes(addressLength + 2);
  } finally {
    reader.detach();
  }
}

function socksAddress(host: string): Uint8Array {
  if (net.isIPv4(host)) return Uint8Array.from([1, ...host.split(".").map(Number)]);
  if (net.isIPv6(host)) {
    const bytes = new Uint8Array(17);
    bytes[0] = 4;
    const [head = "", tail = ""] = host.split("::");
    const groups = (part: string): number[] =>
      part === "" ? [] : part.split(":").map((g) => parseInt(g, 16));
    const left = groups(head);
    const right = host.includes("::") ? groups(tail) : [];
    const all = [...left, ...new Array(8 - left.length - right.length).fill(0), ...right];
    all.forEach((g, i) => {
      bytes[1 + 2 * i] = g >> 8;
      bytes[2 + 2 * i] = g & 0xff;
    });
    return bytes;
  }
  const name = Buffer.from(host);
  if (name.length > 255) throw new Error(`host name too long for SOCKS5: ${host}`);
  return Buffer.concat([Uint8Array.from([3, name.length]), name]);
}

function portBytes(port: number): Uint8Array {
  return Uint8Array.from([port >> 8, port & 0xff]);
}
