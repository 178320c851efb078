/**
 * Turning a Kubernetes watch response body into typed events: bytes are split into lines (at
 * most `maxLineLength` bytes each, else a {@linkcode LineTooLongError}), each line is parsed into a {@linkcode WatchEvent}, an ERROR event
 * becomes a thrown `KubeApiError`, and anything that is not an event becomes a
 * {@linkcode WatchDecodeError} naming the line.
 *
 * ## Guides
 * - [Migrating from client-node and client-go](https://github.com/kinformer/kinformer/blob/main/docs/migrating.md):
 *   from @kubernetes/client-node and client-go concepts.
 * - [Running in production](https://github.com/kinformer/kinformer/blob/main/docs/production.md):
 *   memory, health and metrics, the consistency check, failure handling, benchmarks.
 *
 * @example
 * ```ts
 * import { decodeWatchStream, WatchDecodeError } from "@kinformer/kinformer/watch";
 * import { KubeApiError } from "@kinformer/kinformer/client";
 * import assert from "node:assert/strict";
 *
 * const body = new Response(
 *   [
 *     '{"type":"ADDED","object":{"kind":"Pod","apiVersion":"v1","metadata":{"name":"café-1","resourceVersion":"10"}}}',
 *     '{"type":"BOOKMARK","object":{"kind":"Pod","apiVersion":"v1","metadata":{"resourceVersion":"11","annotations":{"k8s.io/initial-events-end":"true"}}}}',
 *     '{"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","status":"Failure","code":410,"reason":"Expired","message":"too old resource version: 5 (11)"}}',
 *   ].join("\n") + "\n",
 * ).body!;
 *
 * const seen: string[] = [];
 * const watching = async () => {
 *   for await (const event of decodeWatchStream(body)) {
 *     switch (event.type) {
 *       case "BOOKMARK":
 *         seen.push(`at ${event.resourceVersion}, initial list done: ${event.initialEventsEnd}`);
 *         break;
 *       default:
 *         seen.push(`${event.type} ${event.object.metadata.name}`);
 *     }
 *   }
 * };
 * // The ERROR event is thrown, after the events before it: 410 Expired means "relist".
 * await assert.rejects(watching(), (err) => err instanceof KubeApiError && err.isExpired);
 * assert.deepEqual(seen, ["ADDED café-1", "at 11, initial list done: true"]);
 *
 * // A line that is not an event is a WatchDecodeError naming it.
 * const html = new Response("<html>Bad Gateway</html>\n").body!;
 * await assert.rejects(Array.fromAsync(decodeWatchStream(html)), (err) => {
 *   assert.ok(err instanceof WatchDecodeError);
 *   assert.equal(err.reason, "html");
 *   assert.equal(err.lineNumber, 1);
 *   return true;
 * });
 * ```
 * @module
 */
export {
  decodeWatchStream,
  type DecodeWatchStreamOptions,
  type WatchBody,
  WatchDecoderStream,
  type WatchDecoderStreamOptions,
} from "./watch_decoder.ts";
export { type WatchBookmarkEvent, type WatchEvent, type WatchObjectEvent } from "./watch_event.ts";
export {
  WatchDecodeError,
  type WatchDecodeErrorOptions,
  type WatchDecodeReason,
} from "./decode_error.ts";
export { LineTooLongError, type LineTooLongErrorOptions } from "./line_splitter.ts";
