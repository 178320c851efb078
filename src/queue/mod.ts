/**
 * Work queues for controllers, with client-go semantics: a deduplicating FIFO that never
 * hands one key to two workers at once ({@linkcode WorkQueue}), delayed adds on a single
 * timer ({@linkcode DelayingQueue}), and retries paced by rate limiters
 * ({@linkcode RateLimitingQueue}, {@linkcode defaultControllerRateLimiter}).
 *
 * ## Guides
 * - [Controllers](https://github.com/kinformer/kinformer/blob/main/docs/controllers.md):
 *   work queue, runController, sources, predicates, server-side apply, events, finalizers,
 *   conditions, the Manager.
 * - [Migrating from client-node and client-go](https://github.com/kinformer/kinformer/blob/main/docs/migrating.md):
 *   from @kubernetes/client-node and client-go concepts.
 *
 * @example
 * ```ts
 * import { RateLimitingQueue } from "@kinformer/kinformer/queue";
 * import assert from "node:assert/strict";
 *
 * const reconciled: string[] = [];
 * const queue = new RateLimitingQueue<string>({ name: "pods" });
 * queue.add("default/web");
 * queue.add("default/web"); // already pending: deduplicated
 *
 * const next = await queue.get();
 * if (!next.shutdown) {
 *   try {
 *     reconciled.push(next.item); // your reconcile(next.item) here
 *     queue.forget(next.item); // success: reset its backoff
 *   } catch {
 *     queue.addRateLimited(next.item); // failure: retry after 5 ms, 10 ms, 20 ms ...
 *   } finally {
 *     queue.done(next.item);
 *   }
 * }
 * assert.deepEqual(reconciled, ["default/web"]);
 * assert.equal(queue.metrics().adds, 1);
 * await queue.stop({ drain: true });
 * ```
 * @module
 */
export {
  type DurationSummary,
  WorkQueue,
  type WorkQueueGetOptions,
  type WorkQueueGetResult,
  type WorkQueueMetrics,
  type WorkQueueMetricsHooks,
  type WorkQueueOptions,
  type WorkQueueStopOptions,
} from "./work_queue.ts";
export {
  DelayingQueue,
  type DelayingQueueMetrics,
  type DelayingQueueOptions,
} from "./delaying_queue.ts";
export {
  BucketRateLimiter,
  type BucketRateLimiterOptions,
  defaultControllerRateLimiter,
  ItemExponentialFailureRateLimiter,
  type ItemExponentialFailureRateLimiterOptions,
  MaxOfRateLimiter,
  type RateLimiter,
} from "./rate_limiter.ts";
export { RateLimitingQueue, type RateLimitingQueueOptions } from "./rate_limiting_queue.ts";
