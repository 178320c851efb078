/**
 * What informer listeners receive.
 * @module
 */
import type { KubeObject, KubeObjectLike } from "../client/types.ts";

/**
 * A change delivered to an informer listener, discriminated on `type`:
 * - `add`: a new object; `isInInitialList` is true for objects delivered as part of the
 *   listener's initial population (the initial list, or the cache replayed to a late listener).
 * - `update`: `object` replaced `oldObject`. A resync delivers `object === oldObject`.
 * - `delete`: `object` is the last known state; `finalStateUnknown` is true when the deletion
 *   happened while disconnected and was inferred from a relist (no tombstone to unwrap).
 * - `synced`: this listener has now received every object of its initial population.
 *
 * An object whose `metadata.uid` changed under the same key arrives as `delete` then `add`.
 *
 * @example
 * ```ts
 * import type { InformerEvent } from "@kinformer/kinformer";
 * import assert from "node:assert/strict";
 * function describe(ev: InformerEvent): string {
 *   switch (ev.type) {
 *     case "add": return `add ${ev.object.metadata.name}`;
 *     case "update": return `update ${ev.object.metadata.name}`;
 *     case "delete": return `delete ${ev.object.metadata.name}${ev.finalStateUnknown ? " (inferred)" : ""}`;
 *     case "synced": return "synced";
 *   }
 * }
 * assert.equal(describe({ type: "synced" }), "synced");
 * const gone = { metadata: { namespace: "default", name: "web-1" } };
 * const inferred = describe({ type: "delete", object: gone, finalStateUnknown: true });
 * assert.equal(inferred, "delete web-1 (inferred)");
 * ```
 */
export type InformerEvent<T extends KubeObjectLike = KubeObject> =
  | { readonly type: "add"; readonly object: T; readonly isInInitialList: boolean }
  | { readonly type: "update"; readonly object: T; readonly oldObject: T }
  | { readonly type: "delete"; readonly object: T; readonly finalStateUnknown: boolean }
  | { readonly type: "synced" };

/** What a listener does with events its consumer has not taken yet. */
export type OverflowPolicy = "grow" | "coalesce";
