/**
 * gzip for the simulated API server's answers, the way kube-apiserver compresses them: when the
 * request's `Accept-Encoding` allows gzip, an answer whose body reaches 128 KiB is sent with
 * `Content-Encoding: gzip`, compressed as it streams (`CompressionStream`, a Web standard);
 * smaller answers and ordinary watch streams go as they are. A streaming list (a watch with
 * `sendInitialEvents=true`) is compressed whatever its size, as kube-apiserver 1.37 does with
 * `WatchListCompression` (beta, on by default): the server closes a gzip member at every flush,
 * so the body is many concatenated gzip members, one per chunk the client reads (roughly one per
 * event). Clients that do not ask (an in-process `cluster.fetch` call) never get gzip. Internal.
 * @module
 */

/** Bodies from this size on are compressed (kube-apiserver's `defaultGzipThresholdBytes`). */
export const GZIP_THRESHOLD_BYTES = 128 * 1024;

/** Whether an `Accept-Encoding` value allows gzip (`gzip` or `*`, with a `q` above 0). */
export function acceptsGzip(header: string | null): boolean {
  if (header === null) return false;
  for (const part of header.split(",")) {
    const [coding = "", ...params] = part.split(";").map((s) => s.trim().toLowerCase());
    if (coding !== "gzip" && coding !== "x-gzip" && coding !== "*") continue;
    const q = params.find((p) => p.startsWith("q="));
    if (q === undefined || Number(q.slice(2)) > 0) return true;
  }
  return false;
}

/** Whether the request is a watch (its answer is an event stream). */
function isWatch(url: URL): boolean {
  const watch = url.searchParams.get("watch");
  return watch === "1" || watch === "true" || url.pathname.includes("/watch/");
}

/** Options of {@linkcode gzipIfAsked}. */
export interface GzipOptions {
  /** Whether streaming lists are compressed, one gzip member per flush (kube-apiserver 1.37). */
  readonly watchListCompression: boolean;
}

/**
 * `response`, gzip-compressed when `request` asked for gzip and its body reaches
 * {@linkcode GZIP_THRESHOLD_BYTES} (read ahead up to that size to tell), or is a streaming
 * list's (one gzip member per chunk, with `watchListCompression`); as it was otherwise.
 */
export async function gzipIfAsked(
  request: Request,
  answer: Response | Promise<Response>,
  options: GzipOptions,
): Promise<Response> {
  const response = await answer;
  if (
    response.status !== 200 || response.body === null || response.headers.has("content-encoding") ||
    !acceptsGzip(request.headers.get("accept-encoding"))
  ) return response;
  // An accepted WebSocket handshake (a 200 with `Upgrade`, see websocket_handshake.ts) carries
  // the messages to frame: WebSocket watches are never gzip-encoded.
  if (response.headers.has("upgrade")) return response;
  const url = new URL(request.url);
  if (isWatch(url)) {
    return options.watchListCompression && url.searchParams.get("sendInitialEvents") === "true"
      ? gzipPerFlush(response)
      : response;
  }
  const reader = response.body.getReader();
  const head: Uint8Array[] = [];
  let size = 0;
  let ended = false;
  try {
    while (size < GZIP_THRESHOLD_BYTES) {
      const { done, value } = await reader.read();
      if (done) {
        ended = true;
        break;
      }
      head.push(value);
      size += value.byteLength;
    }
  } catch (error) {
    reader.releaseLock();
    throw error;
  }
  const headers = new Headers(response.headers);
  const init = { status: response.status, statusText: response.statusText, headers };
  if (ended) {
    const whole = new Uint8Array(size);
    let at = 0;
    for (const chunk of head) {
      whole.set(chunk, at);
      at += chunk.byteLength;
    }
    return new Response(whole, init);
  }
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of head) controller.enqueue(chunk);
    },
    async pull(controller) {
      const { done, value } = await reader.read();
      if (done) controller.close();
      else controller.enqueue(value);
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  }, { highWaterMark: 0 });
  markGzip(headers);
  return new Response(body.pipeThrough(gzipStream()), init);
}

/** `headers` of a gzip-encoded answer. */
function markGzip(headers: Headers): void {
  headers.set("content-encoding", "gzip");
  headers.delete("content-length");
  headers.append("vary", "Accept-Encoding");
}

function gzipStream(): TransformStream<Uint8Array, Uint8Array> {
  return new CompressionStream("gzip") as unknown as TransformStream<Uint8Array, Uint8Array>;
}

/**
 * `bytes` as one complete gzip member. (Through the stream's own writer and reader: about twice
 * as fast as wrapping it in `Response`s, measured on Deno and Bun; a member still costs about
 * 0.5 ms there and 2 ms on Node, so a gzip-asking client's 10,000-event streaming list takes
 * seconds longer to serve than an identity one.)
 */
export async function gzipMember(bytes: Uint8Array): Promise<Uint8Array> {
  const stream = gzipStream();
  const writer = stream.writable.getWriter();
  const written = Promise.all([writer.write(bytes), writer.close()]);
  const reader = stream.readable.getReader();
  const parts: Uint8Array[] = [];
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    parts.push(value);
  }
  await written;
  return parts.length === 1 ? parts[0]! : concat(parts);
}

/**
 * A streaming list's answer as kube-apiserver 1.37 sends it: the server flushes after every
 * event it writes, and every flush closes a gzip member, so each event line of the body (and
 * each piece of a chunk cut elsewhere) becomes one complete gzip member. Pulled one chunk at a
 * time, so a slow reader still holds the server back.
 */
function gzipPerFlush(response: Response): Response {
  const reader = response.body!.getReader();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { done, value } = await reader.read();
      if (done) controller.close();
      else controller.enqueue(concat(await Promise.all(flushes(value).map(gzipMember))));
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  }, { highWaterMark: 0 });
  const headers = new Headers(response.headers);
  markGzip(headers);
  return new Response(body, {
    status: response.status,
    statusText: response.statusText,
    headers,
  });
}

/** `chunk` cut after every newline: what the server flushes, one event at a time. */
function flushes(chunk: Uint8Array): Uint8Array[] {
  const out: Uint8Array[] = [];
  let from = 0;
  for (let at = chunk.indexOf(10); at !== -1; at = chunk.indexOf(10, at + 1)) {
    out.push(chunk.subarray(from, at + 1));
    from = at + 1;
  }
  if (from < chunk.byteLength) out.push(chunk.subarray(from));
  return out;
}

function concat(parts: Uint8Array[]): Uint8Array {
  const whole = new Uint8Array(parts.reduce((n, p) => n + p.byteLength, 0));
  let at = 0;
  for (const part of parts) {
    whole.set(part, at);
    at += part.byteLength;
  }
  return whole;
}
