/**
 * What `Fleet.events()` yields: an informer's events, each saying its cluster, and the
 * clusters' state changes.
 * @module
 */
import type { KubeObject, KubeObjectLike } from "../client/types.ts";
import type { ClusterState } from "./cluster_state.ts";

/**
 * One event of a fleet's merged stream. Object events are those of the cluster's informer
 * (`add`, `update`, `delete`, in order per cluster) with the cluster's name; `synced` says a
 * cluster's initial list has been delivered; `state` says a cluster changed state (it became
 * unreachable, recovered, was removed). Replaying the object events onto a map keyed by
 * `fleetKey(ev.cluster, ev.object)` yields the fleet's merged view: a cluster's removal, and
 * the `delete` policy hiding an unreachable cluster, arrive as `delete` events
 * (`finalStateUnknown: true`) for each of its objects; a hidden cluster's return as `add`s.
 *
 * @example
 * ```ts
 * import type { FleetEvent } from "@kinformer/kinformer/fleet";
 * import assert from "node:assert/strict";
 * const describe = (ev: FleetEvent): string => {
 *   switch (ev.type) {
 *     case "add":
 *     case "update":
 *     case "delete":
 *       return `${ev.type} ${ev.cluster}|${ev.object.metadata.name}`;
 *     case "synced":
 *       return `${ev.cluster} synced`;
 *     case "state":
 *       return `${ev.cluster} is ${ev.state}`;
 *   }
 * };
 * assert.equal(describe({ type: "state", cluster: "eu-1", state: "unreachable", reason: "timeout" }), "eu-1 is unreachable");
 * ```
 */
export type FleetEvent<T extends KubeObjectLike = KubeObject> =
  | {
    readonly type: "add";
    readonly cluster: string;
    readonly object: T;
    readonly isInInitialList: boolean;
  }
  | { readonly type: "update"; readonly cluster: string; readonly object: T; readonly oldObject: T }
  | {
    readonly type: "delete";
    readonly cluster: string;
    readonly object: T;
    readonly finalStateUnknown: boolean;
  }
  | { readonly type: "synced"; readonly cluster: string }
  | {
    readonly type: "state";
    readonly cluster: string;
    readonly state: ClusterState;
    readonly reason: string;
  };
