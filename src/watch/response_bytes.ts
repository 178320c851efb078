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
 *
 * @example
 * ```ts
 * import { RESPONSE_BYTES, responseBytes } from "@kinformer/kinformer/watch";
 * import assert from "node:assert/strict";
 * const chunks = [new TextEncoder().encode("hello\n")];
 * const response = Object.assign(new Response(null), {
 *   [RESPONSE_BYTES]: (): AsyncIterable<Uint8Array> => (async function* () { yield* chunks; })(),
 * });
 * const body = responseBytes(response);
 * assert.ok(body !== null && !(body instanceof ReadableStream)); // the transport's view
 * const received: Uint8Array[] = [];
 * for await (const chunk of body) received.push(chunk);
 * assert.deepEqual(received, chunks);
 * ```
 */
export const RESPONSE_BYTES: unique symbol = Symbol.for("kinformer.responseBytes");

/**
 * A response body as bytes: an `AsyncIterable<Uint8Array>` when the transport attached one
 * under {@linkcode RESPONSE_BYTES} and the standard body is untouched, else `response.body`.
 * The iterable's `return()` must end the body at once, also while a `next()` is pending (that
 * is how a stopped watch releases its connection).
 *
 * @example
 * ```ts
 * import { responseBytes } from "@kinformer/kinformer/watch";
 * import assert from "node:assert/strict";
 * const response = new Response("{}\n");
 * assert.equal(responseBytes(response), response.body); // a plain Response has no faster view
 * ```
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
