/**
 * Cache keys: `namespace/name` for namespaced objects, `name` for cluster-scoped ones.
 * @module
 */
import type { KubeObjectLike } from "../client/types.ts";
import { describeValue } from "../util/values.ts";

/**
 * The cache key of an object: `namespace/name`, or `name` when it has no namespace.
 * Throws a `TypeError` for an object without `metadata.name`.
 *
 * @example
 * ```ts
 * import { objectKey } from "@kinformer/kinformer/cache";
 * import assert from "node:assert/strict";
 * assert.equal(objectKey({ metadata: { namespace: "default", name: "web-1" } }), "default/web-1");
 * assert.equal(objectKey({ metadata: { name: "kube-system" } }), "kube-system");
 * assert.throws(() => objectKey({ metadata: {} }), TypeError);
 * ```
 */
export function objectKey(object: KubeObjectLike): string {
  const meta = object.metadata;
  const name = meta?.name;
  if (!name) throw new TypeError(`object has no metadata.name: ${describeValue(meta)}`);
  return keyOf(meta.namespace, name);
}

/**
 * The key of the object named `name` in `namespace` (none or `""`: cluster-scoped), the same as
 * {@linkcode objectKey} gives; for code that has the names, not the object (the simulated
 * cluster's store). Internal: not exported from `@kinformer/kinformer/cache`.
 */
export function keyOf(namespace: string | undefined, name: string): string {
  return namespace ? `${namespace}/${name}` : name;
}

/**
 * Splits a cache key into namespace (`""` for cluster-scoped) and name.
 *
 * @example
 * ```ts
 * import { splitObjectKey } from "@kinformer/kinformer/cache";
 * import assert from "node:assert/strict";
 * assert.deepEqual(splitObjectKey("default/web-1"), { namespace: "default", name: "web-1" });
 * assert.deepEqual(splitObjectKey("kube-system"), { namespace: "", name: "kube-system" });
 * ```
 */
export function splitObjectKey(key: string): { namespace: string; name: string } {
  const slash = key.indexOf("/");
  return slash < 0
    ? { namespace: "", name: key }
    : { namespace: key.slice(0, slash), name: key.slice(slash + 1) };
}
