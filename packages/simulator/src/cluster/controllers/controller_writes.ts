/**
 * How the simulated cluster's own controllers (garbage collector, namespace controller) write:
 * read-modify-write of the stored version, as `kube-controller-manager` (its managed fields
 * recorded like any `Update`), a write that lost a race or found the object gone dropped (the
 * change that caused it queues whatever is still needed).
 * @module
 */
import { KubeApiError } from "@kinformer/kinformer/client";
import type { KubeObject } from "@kinformer/kinformer/client";
import type { Clock } from "@kinformer/kinformer/cache";
import { rfc3339, type Store, structuredCloneJson } from "../../store/object_store.ts";
import type { Version } from "../../store/object_version.ts";
import type { ResourceState } from "../../store/resource_state.ts";
import { scopeOf, updateTracker } from "../../handlers/writes/write_params.ts";

/** The field manager of the controllers' writes, as on a real cluster. */
export const CONTROLLER_MANAGER = "kube-controller-manager";

/** Writes on behalf of the cluster's controllers. */
export class ControllerWriter {
  readonly #store: Store;
  readonly #clock: Clock;

  constructor(store: Store, clock: Clock) {
    this.#store = store;
    this.#clock = clock;
  }

  /**
   * Updates `current` (or its status, with `subresource: "status"`) with what `change` does to
   * a copy of it; false when the write was refused (a conflict, or the object is gone).
   */
  update(
    state: ResourceState,
    current: Version,
    change: (item: KubeObject) => void,
    subresource?: "status",
  ): boolean {
    const item = structuredCloneJson(current.item);
    change(item);
    const info = state.info;
    const writer = {
      manager: CONTROLLER_MANAGER,
      operation: "Update" as const,
      subresource,
      apiVersion: info.apiVersion,
      time: rfc3339(this.#clock.now()),
    };
    try {
      this.#store.update(state, item, {
        writer: "control",
        adopt: false,
        subresource,
        trusted: true,
        fields: updateTracker(writer, scopeOf(info, subresource)),
      });
      return true;
    } catch (error) {
      if (error instanceof KubeApiError) return false;
      throw error;
    }
  }
}
