/**
 * A network link on loopback for the benchmarks: a TCP proxy in front of a server that gives
 * each direction a bandwidth (bytes leave one after another at that rate) and a one-way delay
 * (each byte arrives that long after it left), and counts the bytes that cross it. A real link
 * has both; loopback has neither, which hides what compression and round trips cost.
 *
 * Each direction is a queue: a chunk read from one side is cut into segments of at most 16 KiB;
 * a segment leaves when the link is free (`max(now, previous departure) + size / rate`) and is
 * written to the other side `delayMs` later. Reading stops while more than one bandwidth-delay
 * product plus 256 KiB is queued (a router's buffer), so TCP backpressure still works end to
 * end. Runs on node:net (the bench runner is Node).
 * @module
 */
import net from "node:net";

/** Options of {@linkcode startLink}. */
export interface LinkOptions {
  /** The server to forward to. */
  target: { host: string; port: number };
  /** Bandwidth of each direction, in megabits per second. */
  mbit: number;
  /** One-way delay, in milliseconds. */
  delayMs: number;
}

/** A running link. */
export interface Link {
  /** `http://127.0.0.1:<port>`: the server, seen across the link. */
  readonly url: string;
  /** Bytes carried so far: `down` from the server, `up` to it. */
  bytes(): { down: number; up: number };
  /** Sets the byte counters back to zero. */
  reset(): void;
  /** Stops listening and closes every connection. */
  close(): Promise<void>;
}

const SEGMENT_BYTES = 16 * 1024;

/** One direction of the link between two sockets. */
class Direction {
  readonly #from: net.Socket;
  readonly #to: net.Socket;
  readonly #bytesPerMs: number;
  readonly #delayMs: number;
  readonly #limit: number;
  readonly #count: (n: number) => void;
  readonly #queue: { at: number; data: Uint8Array }[] = [];
  #queued = 0;
  #linkFreeAt = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #ended = false;

  constructor(
    from: net.Socket,
    to: net.Socket,
    options: { bytesPerMs: number; delayMs: number; count: (n: number) => void },
  ) {
    this.#from = from;
    this.#to = to;
    this.#bytesPerMs = options.bytesPerMs;
    this.#delayMs = options.delayMs;
    this.#limit = options.bytesPerMs * options.delayMs * 2 + 256 * 1024;
    this.#count = options.count;
    from.on("data", (chunk: Uint8Array) => this.#push(chunk));
    from.on("end", () => {
      this.#ended = true;
      this.#pump();
    });
  }

  #push(chunk: Uint8Array): void {
    this.#count(chunk.byteLength);
    const now = performance.now();
    for (let at = 0; at < chunk.byteLength; at += SEGMENT_BYTES) {
      const data = chunk.subarray(at, Math.min(at + SEGMENT_BYTES, chunk.byteLength));
      this.#linkFreeAt = Math.max(now, this.#linkFreeAt) + data.byteLength / this.#bytesPerMs;
      this.#queue.push({ at: this.#linkFreeAt + this.#delayMs, data });
      this.#queued += data.byteLength;
    }
    if (this.#queued > this.#limit) this.#from.pause();
    this.#pump();
  }

  /** Writes every segment that is due; sets a timer for the next one. */
  #pump(): void {
    if (this.#timer !== undefined) return;
    const now = performance.now();
    while (this.#queue.length > 0 && this.#queue[0]!.at <= now) {
      const { data } = this.#queue.shift()!;
      this.#queued -= data.byteLength;
      if (!this.#to.destroyed) this.#to.write(data);
    }
    if (this.#queued <= this.#limit && this.#from.isPaused()) this.#from.resume();
    if (this.#queue.length > 0) {
      this.#timer = setTimeout(() => {
        this.#timer = undefined;
        this.#pump();
      }, Math.max(0, this.#queue[0]!.at - now));
    } else if (this.#ended && !this.#to.destroyed) {
      this.#to.end();
    }
  }

  stop(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#queue.length = 0;
  }
}

/**
 * Starts a link to `options.target` on 127.0.0.1 (a free port).
 *
 * @example
 * ```ts ignore
 * const link = await startLink({ target: { host: "127.0.0.1", port: 8080 }, mbit: 100, delayMs: 10 });
 * // ... requests to link.url ...
 * console.log(link.bytes().down);
 * await link.close();
 * ```
 */
export async function startLink(options: LinkOptions): Promise<Link> {
  const bytesPerMs = (options.mbit * 1e6) / 8 / 1000;
  let down = 0;
  let up = 0;
  const sockets = new Set<net.Socket>();
  const directions = new Set<Direction>();
  const server = net.createServer((client) => {
    const upstream = net.connect(options.target.port, options.target.host);
    for (const socket of [client, upstream]) {
      socket.setNoDelay(true);
      sockets.add(socket);
      // An orderly end is carried across (after what is queued) by the Direction; a failed
      // connection takes the other side down at once.
      socket.on("close", (hadError: boolean) => {
        sockets.delete(socket);
        if (hadError) (socket === client ? upstream : client).destroy();
      });
      socket.on("error", () => socket.destroy());
    }
    const shape = { bytesPerMs, delayMs: options.delayMs };
    const pair = [
      new Direction(client, upstream, { ...shape, count: (n) => (up += n) }),
      new Direction(upstream, client, { ...shape, count: (n) => (down += n) }),
    ];
    for (const direction of pair) directions.add(direction);
    client.once("close", () => {
      for (const direction of pair) {
        direction.stop();
        directions.delete(direction);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    bytes: () => ({ down, up }),
    reset: () => {
      down = 0;
      up = 0;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const direction of directions) direction.stop();
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
