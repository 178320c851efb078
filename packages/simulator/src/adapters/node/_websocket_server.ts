/**
 * The server side of RFC 6455 over a raw socket, for the `node:http` adapter (whose `upgrade`
 * event hands over the socket): the opening handshake's answer, frames out (text, close, pong),
 * frames in (masked, as a client must send them; data is read and ignored, as the API server
 * ignores what a watch client sends; a close is answered; a ping is ponged). No runtime APIs
 * here: the socket is described by the little this needs, and SHA-1 comes from Web Crypto.
 * @module
 */
import { readMessages } from "../../server/websocket_messages.ts";

/** The GUID RFC 6455 appends to the client's key before hashing (section 1.3). */
const GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";

/** Opcodes (RFC 6455 section 5.2). */
const CONTINUATION = 0x0;
const TEXT = 0x1;
const CLOSE = 0x8;
const PING = 0x9;
const PONG = 0xa;

/** Largest frame accepted from a client (a watch client sends nothing but control frames). */
const MAX_CLIENT_FRAME = 64 * 1024;

/** What the session needs of a socket (a `node:net` socket fits). */
export interface RawSocket {
  write(bytes: Uint8Array): boolean;
  end(): void;
  destroy(): void;
  readonly destroyed: boolean;
  on(event: "data", listener: (chunk: Uint8Array) => void): unknown;
  on(event: "close" | "drain" | "end", listener: () => void): unknown;
  on(event: "error", listener: (error: unknown) => void): unknown;
  off(event: "drain" | "close", listener: () => void): unknown;
}

/** What emits `drain` and `close`: a socket, a `node:http` response. */
export interface Drainable {
  on(event: "drain" | "close", listener: () => void): unknown;
  off(event: "drain" | "close", listener: () => void): unknown;
}

/** Resolves at the next `drain` of `stream`, or at its `close` (then nothing will drain). */
export function drained(stream: Drainable): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      stream.off("drain", done);
      stream.off("close", done);
      resolve();
    };
    stream.on("drain", done);
    stream.on("close", done);
  });
}

/** `Sec-WebSocket-Accept` for a client's `Sec-WebSocket-Key`. */
export async function acceptKey(key: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-1", new TextEncoder().encode(key.trim() + GUID));
  return btoa(String.fromCharCode(...new Uint8Array(digest)));
}

/** The `101 Switching Protocols` answer, as bytes. */
export async function switchingProtocols(
  key: string,
  protocol: string | undefined,
): Promise<Uint8Array> {
  const lines = [
    "HTTP/1.1 101 Switching Protocols",
    "Upgrade: websocket",
    "Connection: Upgrade",
    `Sec-WebSocket-Accept: ${await acceptKey(key)}`,
  ];
  if (protocol !== undefined) lines.push(`Sec-WebSocket-Protocol: ${protocol}`);
  return new TextEncoder().encode(lines.join("\r\n") + "\r\n\r\n");
}

/** An HTTP answer written on a socket that asked to upgrade (a refused handshake). */
export async function httpAnswer(response: Response): Promise<Uint8Array> {
  const body = new Uint8Array(await response.arrayBuffer());
  const lines = [`HTTP/1.1 ${response.status} ${response.statusText || "Refused"}`];
  response.headers.forEach((value, name) => {
    if (name !== "content-length" && name !== "connection" && name !== "upgrade") {
      lines.push(`${name}: ${value}`);
    }
  });
  lines.push(`Content-Length: ${body.byteLength}`, "Connection: close");
  const head = new TextEncoder().encode(lines.join("\r\n") + "\r\n\r\n");
  const out = new Uint8Array(head.byteLength + body.byteLength);
  out.set(head);
  out.set(body, head.byteLength);
  return out;
}

/** One server frame (never masked). */
export function encodeFrame(opcode: number, payload: Uint8Array, fin = true): Uint8Array {
  const length = payload.byteLength;
  const head = length < 126 ? 2 : length < 65536 ? 4 : 10;
  const frame = new Uint8Array(head + length);
  frame[0] = (fin ? 0x80 : 0) | opcode;
  if (length < 126) frame[1] = length;
  else if (length < 65536) {
    frame[1] = 126;
    new DataView(frame.buffer).setUint16(2, length);
  } else {
    frame[1] = 127;
    new DataView(frame.buffer).setBigUint64(2, BigInt(length));
  }
  frame.set(payload, head);
  return frame;
}

/** A close frame with `code` (and no reason). */
export function closeFrame(code: number): Uint8Array {
  const payload = new Uint8Array(2);
  new DataView(payload.buffer).setUint16(0, code);
  return encodeFrame(CLOSE, payload);
}

/** A frame read from a client. */
interface ClientFrame {
  readonly opcode: number;
  readonly payload: Uint8Array;
}

/** Reads a client's frames from its bytes; throws a close code (a number) on a protocol error. */
export class FrameReader {
  #buffer = new Uint8Array(0);

  /** Adds bytes; returns the frames they complete. */
  push(chunk: Uint8Array): ClientFrame[] {
    const joined = new Uint8Array(this.#buffer.byteLength + chunk.byteLength);
    joined.set(this.#buffer);
    joined.set(chunk, this.#buffer.byteLength);
    const frames: ClientFrame[] = [];
    let at = 0;
    for (;;) {
      if (joined.byteLength - at < 2) break;
      const b0 = joined[at]!;
      const b1 = joined[at + 1]!;
      if ((b1 & 0x80) === 0) throw 1002; // a client must mask its frames
      if ((b0 & 0x70) !== 0) throw 1002; // no extension was negotiated
      let length = b1 & 0x7f;
      let head = 2;
      if (length === 126) {
        if (joined.byteLength - at < 4) break;
        length = (joined[at + 2]! << 8) | joined[at + 3]!;
        head = 4;
      } else if (length === 127) {
        if (joined.byteLength - at < 10) break;
        const big = new DataView(joined.buffer, joined.byteOffset + at + 2, 8).getBigUint64(0);
        if (big > BigInt(MAX_CLIENT_FRAME)) throw 1009;
        length = Number(big);
        head = 10;
      }
      if (length > MAX_CLIENT_FRAME) throw 1009;
      const opcode = b0 & 0x0f;
      if (opcode >= 0x8 && (length > 125 || (b0 & 0x80) === 0)) throw 1002;
      if (joined.byteLength - at < head + 4 + length) break;
      const mask = joined.subarray(at + head, at + head + 4);
      const payload = joined.slice(at + head + 4, at + head + 4 + length);
      for (let i = 0; i < payload.byteLength; i++) payload[i]! ^= mask[i & 3]!;
      frames.push({ opcode, payload });
      at += head + 4 + length;
    }
    this.#buffer = joined.slice(at);
    return frames;
  }
}

/**
 * Serves one accepted WebSocket on `socket` (after the 101): each message of `body` goes out as
 * text frames (a fragment per chunk of a line split across chunks, so the chunking fault shows);
 * the end of the body sends a close frame (1000) and ends the socket; a failed body (a dropped
 * connection) destroys the socket, so the client sees an abnormal closure (1006). A close from
 * the client is answered and cancels the body, as does the socket going away (`abort`).
 * `head` holds bytes the client sent right after its handshake.
 */
export function serveSession(
  socket: RawSocket,
  body: ReadableStream<Uint8Array>,
  head: Uint8Array,
  abort: AbortController,
): Promise<void> {
  const reader = new FrameReader();
  let closeSent = false;
  const write = (bytes: Uint8Array): Promise<void> | undefined => {
    if (socket.destroyed) return undefined;
    if (socket.write(bytes)) return undefined;
    return drained(socket);
  };
  const sendClose = (code: number): void => {
    if (closeSent) return;
    closeSent = true;
    write(closeFrame(code));
  };
  const onData = (chunk: Uint8Array): void => {
    let frames: ClientFrame[];
    try {
      frames = reader.push(chunk);
    } catch (code) {
      sendClose(typeof code === "number" ? code : 1002);
      socket.end();
      abort.abort(new Error("WebSocket protocol error"));
      return;
    }
    for (const frame of frames) {
      if (frame.opcode === PING) write(encodeFrame(PONG, frame.payload));
      else if (frame.opcode === CLOSE) {
        const code = frame.payload.byteLength >= 2
          ? (frame.payload[0]! << 8) | frame.payload[1]!
          : 1000;
        sendClose(code === 1005 || code === 1006 ? 1000 : code);
        socket.end();
        abort.abort(new Error("WebSocket closed by the client"));
      }
    }
  };
  socket.on("data", onData);
  socket.on("close", () => abort.abort(new Error("client disconnected")));
  socket.on("error", () => abort.abort(new Error("client connection failed")));
  if (head.byteLength > 0) onData(head);
  let first = true;
  return readMessages(body, (bytes, fin) => {
    const frame = encodeFrame(first ? TEXT : CONTINUATION, bytes, fin);
    first = fin;
    return write(frame);
  }, abort.signal).then((ended) => {
    if (ended === "error") socket.destroy();
    else if (ended === "end") {
      sendClose(1000);
      socket.end();
    }
  });
}
