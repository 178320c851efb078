/**
 * Cluster-aware object keys: `cluster|namespace/name` (`cluster|name` when cluster-scoped), as
 * kcp writes the keys of its wildcard informers.
 * @module
 */
import type { KubeObjectLike } from "../client/types.ts";
import { objectKey, splitObjectKey } from "../cache/object_key.ts";
import { describeValue } from "../util/values.ts";

/** What separates the cluster from the object key in a fleet key. */
const SEPARATOR = "|";

/**
 * The fleet key of `object` in `cluster`: `cluster|namespace/name`, or `cluster|name` for a
 * cluster-scoped object. Throws a `TypeError` for a cluster name holding `|` or an object
 * without `metadata.name`.
 *
 * @example
 * ```ts
 * import { fleetKey } from "@kinformer/kinformer/fleet";
 * import assert from "node:assert/strict";
 * assert.equal(fleetKey("eu-1", { metadata: { namespace: "web", name: "api" } }), "eu-1|web/api");
 * assert.equal(fleetKey("eu-1", { metadata: { name: "node-a" } }), "eu-1|node-a");
 * ```
 */
export function fleetKey(cluster: string, object: KubeObjectLike): string {
  checkClusterName(cluster, "cluster");
  return `${cluster}${SEPARATOR}${objectKey(object)}`;
}

/** The fleet key of the object under `key` (`namespace/name` or `name`) in `cluster`. Internal. */
export function joinFleetKey(cluster: string, key: string): string {
  return `${cluster}${SEPARATOR}${key}`;
}

/**
 * The parts of a fleet key. A key without `|` is not a fleet key: `TypeError`.
 *
 * @example
 * ```ts
 * import { splitFleetKey } from "@kinformer/kinformer/fleet";
 * import assert from "node:assert/strict";
 * assert.deepEqual(splitFleetKey("eu-1|web/api"), {
 *   cluster: "eu-1",
 *   key: "web/api",
 *   namespace: "web",
 *   name: "api",
 * });
 * ```
 */
export function splitFleetKey(
  fleetKey: string,
): { cluster: string; key: string; namespace: string; name: string } {
  const bar = typeof fleetKey === "string" ? fleetKey.indexOf(SEPARATOR) : -1;
  if (bar < 0) {
    throw new TypeError(`not a fleet key (cluster|namespace/name): ${describeValue(fleetKey)}`);
  }
  const key = fleetKey.slice(bar + 1);
  return { cluster: fleetKey.slice(0, bar), key, ...splitObjectKey(key) };
}

/** Checks a cluster name: a non-empty string without `|`. Internal. */
export function checkClusterName(name: unknown, option: string): asserts name is string {
  if (typeof name !== "string" || name === "" || name.includes(SEPARATOR)) {
    throw new TypeError(
      `${option} must be a non-empty string without "${SEPARATOR}", got ${describeValue(name)}`,
    );
  }
}
