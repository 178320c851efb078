/**
 * The step between the DeltaFIFO and the cache: what one key's deltas do to the cached object,
 * and what listeners are told. A pure function (client-go keeps `processDeltas` out of the
 * shared informer for the same reason), tested on its own.
 * @module
 */
import type { KubeObjectLike } from "../client/types.ts";
import type { Delta } from "./delta_fifo.ts";
import type { InformerEvent } from "./informer_event.ts";

/** The result of {@linkcode processDeltas}. */
export interface DeltaOutcome<T extends KubeObjectLike> {
  /** What the cache holds under the key afterwards; `undefined` when nothing. */
  cached: T | undefined;
  /**
   * What listeners are told, in order. A resync is an `update` whose `object === oldObject`:
   * it goes only to the listeners due for one.
   */
  events: InformerEvent<T>[];
}

/**
 * Applies one key's deltas to `cached` (the object the cache holds under that key). The three
 * spellings of one change meet here: the wire's `ADDED`/`MODIFIED`/`DELETED` became the
 * DeltaFIFO's `Added`/`Updated`/`Deleted`/`Replaced`/`Sync`, and leave as the listeners'
 * `add`/`update`/`delete`.
 *
 * - A delete carries the last known object (the cached one for a relist's tombstone) and is
 *   told even for a key the cache never held (a consumer resumed from a checkpoint may know it).
 * - A relist (`Replaced`) that finds the same uid and resourceVersion changes nothing and keeps
 *   the shared cached object.
 * - A new uid under a known key (deleted and re-created while away) is a `delete` then an `add`.
 * - `Sync` re-delivers the cached object as `update` with `object === oldObject`.
 *
 * Pure: returns the new state and the events, changes nothing.
 */
export function processDeltas<T extends KubeObjectLike>(
  cached: T | undefined,
  deltas: readonly Delta<T>[],
  isInInitialList: boolean,
): DeltaOutcome<T> {
  const events: InformerEvent<T>[] = [];
  let current = cached;
  for (const delta of deltas) {
    const old = current;
    const object = delta.object;
    switch (delta.type) {
      case "Deleted": {
        if (old === undefined) {
          if (!delta.finalStateUnknown) {
            events.push({ type: "delete", object, finalStateUnknown: false });
          }
          continue;
        }
        current = undefined;
        const unknown = delta.finalStateUnknown === true;
        events.push({ type: "delete", object: unknown ? old : object, finalStateUnknown: unknown });
        continue;
      }
      case "Sync":
        if (old !== undefined) events.push({ type: "update", object: old, oldObject: old });
        continue;
      case "Replaced":
        if (
          old !== undefined && old.metadata?.uid === object.metadata?.uid &&
          old.metadata?.resourceVersion !== undefined &&
          old.metadata?.resourceVersion === object.metadata?.resourceVersion
        ) {
          continue; // a relist found it unchanged: nothing to tell, keep the shared object
        }
    }
    current = object;
    if (old === undefined) {
      events.push({ type: "add", object, isInInitialList });
    } else if (
      old.metadata?.uid !== object.metadata?.uid && old.metadata?.uid && object.metadata?.uid
    ) {
      // Deleted and re-created under the same name while we were not looking.
      events.push({ type: "delete", object: old, finalStateUnknown: true });
      events.push({ type: "add", object, isInInitialList });
    } else {
      events.push({ type: "update", object, oldObject: old });
    }
  }
  return { cached: current, events };
}
