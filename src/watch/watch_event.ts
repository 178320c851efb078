/**
 * The typed events a watch stream yields.
 * @module
 */
import type { KubeObject, KubeObjectLike } from "../client/types.ts";

/**
 * Annotation (value `"true"`) on the BOOKMARK that ends a streaming list's initial events.
 */
export const INITIAL_EVENTS_END_ANNOTATION = "k8s.io/initial-events-end";

/**
 * An ADDED, MODIFIED or DELETED event carrying the object (for DELETED, its last state).
 *
 * @example
 * ```ts
 * import type { WatchObjectEvent } from "@kinformer/kinformer/watch";
 * import assert from "node:assert/strict";
 * const event: WatchObjectEvent = { type: "ADDED", object: { metadata: { name: "web-1" } } };
 * assert.equal(event.object.metadata.name, "web-1");
 * ```
 */
export interface WatchObjectEvent<T extends KubeObjectLike = KubeObject> {
  /** What happened to the object. */
  type: "ADDED" | "MODIFIED" | "DELETED";
  /** The object (for DELETED, its last known state). */
  object: T;
}

/**
 * A BOOKMARK: the server's resourceVersion advanced; no object changed. Its `object` has only
 * `kind`, `apiVersion` and `metadata.resourceVersion` (plus the
 * `k8s.io/initial-events-end: "true"` annotation when it ends a streaming list's initial events).
 *
 * @example
 * ```ts
 * import type { WatchBookmarkEvent } from "@kinformer/kinformer/watch";
 * import assert from "node:assert/strict";
 * const event: WatchBookmarkEvent = {
 *   type: "BOOKMARK",
 *   object: { kind: "Pod", apiVersion: "v1", metadata: { resourceVersion: "12" } },
 *   resourceVersion: "12",
 *   initialEventsEnd: false,
 * };
 * assert.equal(event.resourceVersion, event.object.metadata.resourceVersion);
 * ```
 */
export interface WatchBookmarkEvent {
  /** Always `BOOKMARK`. */
  type: "BOOKMARK";
  /** The bookmark object, as sent. */
  object: KubeObject;
  /** `object.metadata.resourceVersion`: where a new watch may resume. */
  resourceVersion: string;
  /** True when the bookmark carries the `k8s.io/initial-events-end: "true"` annotation. */
  initialEventsEnd: boolean;
}

/**
 * One decoded watch event, discriminated on `type`. ERROR events are not yielded: the decoder
 * throws them as a `KubeApiError`.
 *
 * @example
 * ```ts
 * import type { WatchEvent } from "@kinformer/kinformer/watch";
 * import assert from "node:assert/strict";
 * function describe(event: WatchEvent): string {
 *   switch (event.type) {
 *     case "BOOKMARK":
 *       return `bookmark at ${event.resourceVersion}`;
 *     default:
 *       return `${event.type} ${event.object.metadata.name}`;
 *   }
 * }
 * const deleted: WatchEvent = { type: "DELETED", object: { metadata: { name: "web-1" } } };
 * assert.equal(describe(deleted), "DELETED web-1");
 * const bookmark: WatchEvent = {
 *   type: "BOOKMARK",
 *   object: { metadata: { resourceVersion: "12" } },
 *   resourceVersion: "12",
 *   initialEventsEnd: false,
 * };
 * assert.equal(describe(bookmark), "bookmark at 12");
 * ```
 */
export type WatchEvent<T extends KubeObjectLike = KubeObject> =
  | WatchObjectEvent<T>
  | WatchBookmarkEvent;
