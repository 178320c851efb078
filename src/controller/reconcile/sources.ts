/**
 * Event sources of a controller besides its own objects: objects it owns (mapped to their
 * controller through `metadata.ownerReferences`) and other objects it watches (mapped by a
 * function), as controller-runtime's `Owns()`/`Watches()` and kube-rs' `owns()`/`watches()`.
 * @module
 */
import type { KubeObjectLike } from "../../client/types.ts";
import { checkFunction } from "../../util/validate.ts";
import { describeValue } from "../../util/values.ts";
import type { UpdatePredicate } from "./predicates.ts";
import type { InformerLike } from "./informer_like.ts";

/** Keys a source maps one object to: one, several, or none (`undefined`). */
export type SourceKeys = string | readonly string[] | undefined;

/**
 * A source of keys for {@linkcode runController}: an informer, how its objects map to the
 * controller's keys, and which of its updates count. Made by {@linkcode owns} or
 * {@linkcode watches}, which keep the informer's object type for the mapping.
 */
export interface ControllerSource {
  /** The informer whose events map to keys (started by the runner unless told not to). */
  readonly informer: InformerLike<never>;
  /** The keys one object maps to. */
  readonly keysFor: (object: never) => SourceKeys;
  /** An update enqueues only when one of these returns true (none: every update does). */
  readonly updatePredicates: readonly UpdatePredicate<never>[];
}

/** Options of {@linkcode owns} and {@linkcode watches}. */
export interface SourceOptions<O> {
  /**
   * An update of a watched object enqueues only when at least one of these returns true, e.g.
   * `[generationChanged, labelsChanged]`.
   * @default [] (every update enqueues)
   */
  updatePredicates?: readonly UpdatePredicate<O>[] | undefined;
}

/** What {@linkcode owns} needs to know about the owner's resource: any descriptor fits. */
export interface OwnerResource {
  /** API group of the owner (`""` or absent for the core group). */
  readonly group?: string | undefined;
  /** Kind of the owner. */
  readonly kind: string;
  /** Whether owners live in a namespace (then in their object's namespace). */
  readonly namespaced: boolean;
}

function checkInformer(informer: unknown, where: string): void {
  if (
    typeof informer !== "object" || informer === null ||
    typeof (informer as InformerLike).addEventHandler !== "function"
  ) {
    throw new TypeError(`${where}: informer must have an addEventHandler() method`);
  }
}

function checkPredicates(value: unknown, where: string): readonly UpdatePredicate<never>[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) {
    throw new TypeError(
      `${where}: options.updatePredicates must be an array of functions, got ${
        describeValue(value)
      }`,
    );
  }
  value.forEach((p, i) => checkFunction(p, `${where}: options.updatePredicates[${i}]`));
  return value as readonly UpdatePredicate<never>[];
}

/** The group of an `apiVersion` (`apps` for `apps/v1`, `""` for `v1`). */
function groupOf(apiVersion: string): string {
  const slash = apiVersion.indexOf("/");
  return slash < 0 ? "" : apiVersion.slice(0, slash);
}

/**
 * Objects this controller owns: each event of `informer` enqueues the key of the object's
 * controller, the owner reference with `controller: true` whose group and kind are `owner`'s
 * (its version does not matter). The key is `namespace/name` (the owned object's namespace)
 * for a namespaced owner, `name` for a cluster-scoped one; objects without such a reference
 * enqueue nothing. An update enqueues the owners of both the old and the new object, so a
 * change of owner reaches both.
 *
 * @example
 * ```ts
 * import { owns } from "@kinformer/kinformer/controller";
 * import { deployments, type KubeObject } from "@kinformer/kinformer";
 * import assert from "node:assert/strict";
 *
 * const informer = { addEventHandler: () => ({ hasSynced: () => true, remove: () => {} }) };
 * const source = owns(informer, deployments);
 * const replicaSet: KubeObject = {
 *   metadata: {
 *     namespace: "default",
 *     name: "web-7c9",
 *     ownerReferences: [{ apiVersion: "apps/v1", kind: "Deployment", name: "web", uid: "u1", controller: true }],
 *   },
 * };
 * assert.equal((source.keysFor as (o: KubeObject) => unknown)(replicaSet), "default/web");
 * ```
 */
export function owns<C extends KubeObjectLike>(
  informer: InformerLike<C>,
  owner: OwnerResource,
  options: SourceOptions<C> = {},
): ControllerSource {
  checkInformer(informer, "owns()");
  if (typeof owner !== "object" || owner === null || typeof owner.kind !== "string") {
    throw new TypeError(`owns(): owner must be a resource descriptor, got ${describeValue(owner)}`);
  }
  const group = owner.group ?? "";
  const keysFor = (object: C): SourceKeys => {
    const meta = object.metadata;
    const ref = meta?.ownerReferences?.find((r) =>
      r.controller === true && r.kind === owner.kind && groupOf(r.apiVersion) === group
    );
    if (ref === undefined) return undefined;
    if (!owner.namespaced) return ref.name;
    return meta?.namespace ? `${meta.namespace}/${ref.name}` : undefined;
  };
  return {
    informer,
    keysFor,
    updatePredicates: checkPredicates(options.updatePredicates, "owns()"),
  };
}

/**
 * Other objects this controller watches: each event of `informer` enqueues the keys `map`
 * returns for the object (for an update: for the old and the new object). `map` throwing is
 * reported to the runner's `onError` and enqueues nothing.
 *
 * @example
 * ```ts
 * import { watches } from "@kinformer/kinformer/controller";
 * import assert from "node:assert/strict";
 *
 * type Secret = { metadata: { namespace?: string; name?: string; labels?: Record<string, string> } };
 * const informer = { addEventHandler: () => ({ hasSynced: () => true, remove: () => {} }) };
 * // Every Widget named in a Secret's `widget` label is reconciled when the Secret changes.
 * const source = watches<Secret>(informer, (secret) => {
 *   const widget = secret.metadata.labels?.widget;
 *   return widget ? `${secret.metadata.namespace}/${widget}` : undefined;
 * });
 * const secret: Secret = { metadata: { namespace: "default", name: "s", labels: { widget: "w1" } } };
 * assert.equal((source.keysFor as (o: Secret) => unknown)(secret), "default/w1");
 * ```
 */
export function watches<W>(
  informer: InformerLike<W>,
  map: (object: W) => SourceKeys,
  options: SourceOptions<W> = {},
): ControllerSource {
  checkInformer(informer, "watches()");
  if (typeof map !== "function") {
    throw new TypeError(`watches(): map must be a function, got ${describeValue(map)}`);
  }
  return {
    informer,
    keysFor: map,
    updatePredicates: checkPredicates(options.updatePredicates, "watches()"),
  };
}
