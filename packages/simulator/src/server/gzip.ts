/**
 * gzip for the simulated API server's answers, the way kube-apiserver compresses them: when the
 * request's `Accept-Encoding` allows gzip, an answer whose body reaches 128 KiB is sent with
 * `Content-Encoding: gzip`, compressed as it streams (`CompressionStream`, a Web standard);
 * smaller answers and watch streams (kube-apiserver never compresses those) go as they are.
 * Clients that do not ask (an in-process `cluster.fetch` call) never get gzip. Internal.
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

/** Whether the request is a watch (its answer is an event stream, never compressed). */
function isWatch(url: URL): boolean {
  const watch = url.searchParams.get("watch");
  return watch === "1" || watch === "true" || url.pathname.includes("/watch/");
}

/**
 * `response`, gzip-compressed when `request` asked for gzip and its body reaches
 * {@linkcode GZIP_THRESHOLD_BYTES} (read ahead up to that size to tell); as it was otherwise.
 */
export async function gzipIfAsked(
  request: Request,
  answer: Response | Promise<Response>,
): Promise<Response> {
  const response = await answer;
  if (
    response.status !== 200 || response.body === null || response.headers.has("content-encoding") ||
    !acceptsGzip(request.headers.get("accept-encoding")) || isWatch(new URL(request.url))
  ) return response;
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
  headers.set("content-encoding", "gzip");
  headers.delete("content-length");
  headers.append("vary", "Accept-Encoding");
  const gzip = new CompressionStream("gzip") as unknown as TransformStream<Uint8Array, Uint8Array>;
  return new Response(body.pipeThrough(gzip), init);
}
