/**
 * `defineResource`: a resource descriptor together with the type of its objects.
 * @module
 */
import { describeValue } from "../util/values.ts";
import { type ResourceDescriptor, resourceKey } from "./resource.ts";
import type { KubeObject, KubeObjectLike } from "./types.ts";

/**
 * Declares a resource's descriptor and, through its type parameter, the type of its objects:
 * informers, listers, handlers, `runController` and the client then all use that type. The
 * fields are checked (a `TypeError` names a bad one) and the descriptor is frozen. When the
 * object type's `kind` is a literal (as in `kubernetes-types`), `kind` must be that literal.
 *
 * @throws {TypeError} when `version`, `resource` or `kind` is not a non-empty string, `group` is
 * not a string, or `namespaced` is not a boolean.
 *
 * @example
 * ```ts
 * import { createInformer } from "@kinformer/kinformer";
 * import { type CustomObject, defineResource, KubeClient } from "@kinformer/kinformer/client";
 * import assert from "node:assert/strict";
 *
 * type Widget = CustomObject<{ size: number }, { ready?: boolean }>;
 * const widgets = defineResource<Widget>({
 *   group: "example.com",
 *   version: "v1",
 *   resource: "widgets",
 *   kind: "Widget",
 *   namespaced: true,
 * });
 * const client = new KubeClient({ server: "http://127.0.0.1:8001" });
 * const informer = createInformer(client, { resource: widgets }); // SharedInformer<Widget>
 * const sizes: number[] = informer.store.list().map((w) => w.spec?.size ?? 0);
 * assert.deepEqual(sizes, []);
 * ```
 */
export function defineResource<T extends KubeObjectLike = KubeObject>(
  descriptor: ResourceDescriptor<T>,
): ResourceDescriptor<T> {
  if (typeof descriptor !== "object" || descriptor === null) {
    throw new TypeError(`descriptor must be an object, got ${describeValue(descriptor)}`);
  }
  const { group, version, resource, kind, namespaced } = descriptor;
  if (typeof kind !== "string" || kind === "") {
    throw new TypeError(`descriptor.kind must be a non-empty string, got ${describeValue(kind)}`);
  }
  if (typeof namespaced !== "boolean") {
    throw new TypeError(
      `descriptor.namespaced must be a boolean, got ${describeValue(namespaced)}`,
    );
  }
  const out: ResourceDescriptor<T> = group === undefined || group === ""
    ? { version, resource, kind, namespaced }
    : { group, version, resource, kind, namespaced };
  resourceKey(out); // checks group, version and resource
  return Object.freeze(out);
}
