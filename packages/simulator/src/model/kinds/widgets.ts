/**
 * The custom resource the simulated cluster serves next to the built-in ones.
 * @module
 */
import type { ResourceDescriptor } from "@kinformer/kinformer/client";
import type { CustomObject } from "@kinformer/kinformer/client";

/** The desired state of a {@linkcode Widget}. */
export interface WidgetSpec {
  /** How many of it. */
  size?: number;
  /** Its colour. */
  color?: string;
  /** Anything else. */
  [field: string]: unknown;
}

/** The observed state of a {@linkcode Widget} (written through the `status` subresource). */
export interface WidgetStatus {
  /** Whether it is ready. */
  ready?: boolean;
  /** Anything else. */
  [field: string]: unknown;
}

/** An `example.com/v1` Widget, the custom resource the simulated cluster serves. */
export type Widget = CustomObject<WidgetSpec, WidgetStatus>;

/**
 * `example.com/v1` Widgets: a namespaced custom resource (short name `wg`) served by
 * {@linkcode SimulatedCluster} under `/apis/example.com/v1`, with a `status` subresource.
 *
 * @example
 * ```ts
 * import { SimulatedCluster, widgets } from "@kinformer/simulator";
 * import assert from "node:assert/strict";
 * const cluster = new SimulatedCluster();
 * cluster.create(widgets, { metadata: { name: "w1", namespace: "default" }, spec: { size: 3 } });
 * const w1 = cluster.get(widgets, { namespace: "default", name: "w1" });
 * assert.equal(w1?.kind, "Widget");
 * assert.equal(w1?.spec?.size, 3);
 * cluster.close();
 * ```
 */
export const widgets: ResourceDescriptor<Widget> = Object.freeze({
  group: "example.com",
  version: "v1",
  resource: "widgets",
  kind: "Widget",
  namespaced: true,
});
