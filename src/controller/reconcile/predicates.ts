/**
 * Update predicates: which updates of a watched object are worth a reconcile.
 * @module
 */
import type { KubeObjectLike } from "../../client/types.ts";

/**
 * Decides whether an update (`oldObj` became `newObj`) enqueues its key. A resync delivers
 * `oldObj === newObj`. Adds and deletes always enqueue.
 */
export type UpdatePredicate<O> = (oldObj: O, newObj: O) => boolean;

/** Whether two string maps (labels, annotations) differ; absent equals empty. */
function mapsDiffer(
  a: { readonly [key: string]: string } | undefined,
  b: { readonly [key: string]: string } | undefined,
): boolean {
  const left = a ?? {};
  const right = b ?? {};
  const keys = Object.keys(left);
  if (keys.length !== Object.keys(right).length) return true;
  return keys.some((k) => !Object.hasOwn(right, k) || left[k] !== right[k]);
}

/**
 * True when `metadata.generation` changed: the spec changed. Status-only writes (through the
 * status subresource) and metadata-only changes do not bump the generation, so a controller
 * that writes its own status is not woken by it; resyncs do not pass either.
 *
 * @example
 * ```ts
 * import { generationChanged } from "@kinformer/kinformer/controller";
 * import assert from "node:assert/strict";
 * const before = { metadata: { name: "w", generation: 1 }, status: { ready: false } };
 * const statusOnly = { ...before, status: { ready: true } };
 * assert.equal(generationChanged(before, { metadata: { name: "w", generation: 2 } }), true);
 * assert.equal(generationChanged(before, statusOnly), false);
 * ```
 */
export function generationChanged(oldObj: KubeObjectLike, newObj: KubeObjectLike): boolean {
  return oldObj.metadata?.generation !== newObj.metadata?.generation;
}

/**
 * True when `metadata.labels` changed (added, removed or changed values).
 *
 * @example
 * ```ts
 * import { labelsChanged } from "@kinformer/kinformer/controller";
 * import assert from "node:assert/strict";
 * const before = { metadata: { labels: { app: "web" } } };
 * assert.equal(labelsChanged(before, { metadata: { labels: { app: "api" } } }), true);
 * assert.equal(labelsChanged(before, { metadata: { labels: { app: "web" } } }), false);
 * ```
 */
export function labelsChanged(oldObj: KubeObjectLike, newObj: KubeObjectLike): boolean {
  return mapsDiffer(oldObj.metadata?.labels, newObj.metadata?.labels);
}

/**
 * True when `metadata.annotations` changed.
 *
 * @example
 * ```ts
 * import { annotationsChanged } from "@kinformer/kinformer/controller";
 * import assert from "node:assert/strict";
 * const before = { metadata: { annotations: { note: "a" } } };
 * assert.equal(annotationsChanged(before, { metadata: {} }), true);
 * assert.equal(annotationsChanged(before, { metadata: { annotations: { note: "a" } } }), false);
 * ```
 */
export function annotationsChanged(oldObj: KubeObjectLike, newObj: KubeObjectLike): boolean {
  return mapsDiffer(oldObj.metadata?.annotations, newObj.metadata?.annotations);
}
