/**
 * The churn driver of {@linkcode SimulatedCluster}: seeded random creates, updates, deletes,
 * re-creates (same name, new uid) and label flips (moving objects in and out of a selector),
 * either N at once or at a rate on the cluster's clock.
 * @module
 */
import type { AnyResourceDescriptor } from "../../client/resource.ts";

/** Relative weights of the churn operations (non-negative; at least one positive). */
export interface ChurnMix {
  /** Create a new object. @default 1 */
  create?: number;
  /** Update an object (an annotation changes; spec and labels stay). @default 4 */
  update?: number;
  /** Delete an object. @default 1 */
  delete?: number;
  /** Delete an object and create it again under the same name (new uid). @default 0.5 */
  recreate?: number;
  /** Flip the `labelKey` label between `"true"` and `"false"`. @default 1 */
  labelFlip?: number;
}

/** Options of {@linkcode SimulatedCluster.churn}. */
export interface ChurnOptions {
  /** Resource to churn. */
  resource: AnyResourceDescriptor;
  /**
   * Namespaces objects are created in and picked from (ignored for cluster-scoped resources).
   * @default ["default"]
   */
  namespaces?: readonly string[];
  /**
   * Operation weights.
   * @default { create: 1, update: 4, delete: 1, recreate: 0.5, labelFlip: 1 }
   */
  mix?: ChurnMix;
  /**
   * Label flipped by `labelFlip` and set (to `"true"` or `"false"`) on created objects, so a
   * watch with `labelKey=true` sees objects enter and leave its selector.
   * @default "selected"
   */
  labelKey?: string;
  /**
   * Prefix of the names of created objects (`{prefix}-{n}`).
   * @default "churn"
   */
  namePrefix?: string;
}

/** Options of {@linkcode SimulatedCluster.startChurn}. */
export interface StartChurnOptions extends ChurnOptions {
  /** Operations per second on the cluster's clock (positive). */
  ratePerSecond: number;
  /**
   * Stops the churn when aborted.
   * @default undefined
   */
  signal?: AbortSignal;
}

/** How many operations of each kind ran. */
export interface ChurnStats {
  /** Total operations. */
  steps: number;
  /** Objects created. */
  create: number;
  /** Objects updated. */
  update: number;
  /** Objects deleted. */
  delete: number;
  /** Objects deleted and created again. */
  recreate: number;
  /** Label flips. */
  labelFlip: number;
}

/** A running churn started by {@linkcode SimulatedCluster.startChurn}. */
export interface ChurnHandle extends Disposable {
  /** Counts so far. */
  readonly stats: Readonly<ChurnStats>;
  /** Whether it still runs. */
  readonly running: boolean;
  /** Stops it (idempotent); its timer is cleared. */
  stop(): void;
}
