/**
 * The hook between a transport and the watch decoder: a transport that has a cheaper way to
 * hand over a response's bytes than its Web `ReadableStream` (the Node transport of
 * `@kinformer/kinformer/config/node` reads `node:http`'s chunks directly) attaches it to the
 * `Response` under {@linkcode RESPONSE_BYTES}; {@linkcode responseBytes} takes it, else the
 * standard body. Web-standard code only: any runtime may run it.
 * @module
 */

/**
 * The property key (a registered symbol, so that separately bundled entry points agree) under
 * which a transport puts a function returning a faster view of the response body. Calling the
 * function takes the body: the `Response`'s own `body` must not be read afterwards.
 */
export const RESPONSE_BYTES: unique symbol = Symbol.for("kinformer.responseBytes");

/**
 * A response body as bytes: an `AsyncIterable<Uint8Array>` when the transport attached one
 * under {@linkcode RESPONSE_BYTES} and the standard body is untouched, else `response.body`.
 * The iterable's `return()` must end the body at once, also while a `next()` is pending (that
 * is how a stopped watch releases its connection).
 */
export function responseBytes(
  response: Response,
): AsyncIterable<Uint8Array> | ReadableStream<Uint8Array> | null {
  const take = (response as { [RESPONSE_BYTES]?: unknown })[RESPONSE_BYTES];
  if (typeof take === "function" && !response.bodyUsed && response.body?.locked !== true) {
    const bytes: unknown = take.call(response);
    if (bytes !== undefined && bytes !== null) return bytes as AsyncIterable<Uint8Array>;
  }
  return response.body;
}
