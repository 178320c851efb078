/**
 * Finalizers, as kube-rs' `finalizer()` and controller-runtime's `controllerutil` handle them:
 * the controller's finalizer is on the object before any external work, cleanup runs once the
 * object is being deleted, and the finalizer comes off only after cleanup succeeded.
 * @module
 */
import { KubeApiError } from "../../client/errors.ts";
import type { KubeClient } from "../../client/kube_client.ts";
import type { ResourceDescriptor } from "../../client/resource.ts";
import type { KubeObjectLike } from "../../client/types.ts";
import { checkOptionsObject, checkString } from "../../util/validate.ts";
import { describeValue, messageOf } from "../../util/values.ts";
import { isDnsSubdomain } from "../../util/dns_names.ts";
import { type ErrorKind, errorKindOf } from "../../util/error_kind.ts";
import { retryOnConflict, type RetryOnConflictOptions } from "./retry_on_conflict.ts";

/**
 * Adding or removing a finalizer failed (after retrying conflicts): `phase` says which, `cause`
 * is the API error and `kind` its kind. The object is unchanged by this attempt; reconciling
 * again retries.
 *
 * @example
 * ```ts
 * import { FinalizerError } from "@kinformer/kinformer/controller";
 * import assert from "node:assert/strict";
 * const error = new FinalizerError("remove", "example.com/cleanup", "default/w1", new Error("503"));
 * assert.equal(error.phase, "remove");
 * assert.equal(error.kind, "other"); // its cause's kind
 * assert.match(error.message, /removing finalizer example.com\/cleanup from default\/w1: 503/);
 * ```
 */
export class FinalizerError extends Error {
  /** Always `"FinalizerError"`. */
  override name = "FinalizerError";
  /** `add`: putting the finalizer on failed; `remove`: taking it off after cleanup failed. */
  readonly phase: "add" | "remove";
  /** The finalizer. */
  readonly finalizer: string;
  /** `namespace/name` (or `name`) of the object. */
  readonly object: string;
  /** How it is filed: the kind of its cause (`forbidden`, `server`, `network`, ...). */
  readonly kind: ErrorKind;

  /** Builds the error; `cause` is the API error. */
  constructor(phase: "add" | "remove", finalizer: string, object: string, cause: unknown) {
    super(
      `${phase === "add" ? "adding" : "removing"} finalizer ${finalizer} ${
        phase === "add" ? "to" : "from"
      } ${object}: ${messageOf(cause)}`,
      { cause },
    );
    this.phase = phase;
    this.finalizer = finalizer;
    this.object = object;
    this.kind = errorKindOf(cause);
  }
}

/** Options of {@linkcode finalizer}. */
export interface FinalizerOptions<T extends KubeObjectLike, R> {
  /** The client the finalizer is written with. */
  client: KubeClient;
  /** The object's resource. */
  resource: ResourceDescriptor<T>;
  /**
   * The finalizer: a qualified name owned by this controller, e.g.
   * `example.com/cleanup-bucket` (other controllers' finalizers are never touched).
   */
  finalizer: string;
  /**
   * The normal reconcile, run while the object is not being deleted; the finalizer is on the
   * object (and on the server) by then, so external resources it makes are cleaned up later.
   */
  apply: (object: T) => R | Promise<R>;
  /**
   * Removes what `apply` made outside the cluster, once the object is being deleted. Must be
   * idempotent: it runs again when it threw (the error propagates and the reconcile is
   * retried) and may run again if removing the finalizer failed.
   */
  cleanup: (object: T) => R | Promise<R>;
  /** Field manager of the finalizer writes. @default undefined */
  fieldManager?: string | undefined;
  /** Aborts the requests (and waits between conflict retries). @default undefined */
  signal?: AbortSignal | undefined;
  /**
   * Conflict retries of the finalizer writes (each on a fresh read).
   * @default retryOnConflict's (client-go's DefaultRetry)
   */
  backoff?: RetryOnConflictOptions["backoff"];
}

const QUALIFIED_NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;

function checkFinalizerName(value: unknown): asserts value is string {
  if (typeof value === "string" && value.length <= 316) {
    const slash = value.indexOf("/");
    const name = slash < 0 ? value : value.slice(slash + 1);
    const prefix = slash < 0 ? undefined : value.slice(0, slash);
    if (
      name.length >= 1 && name.length <= 63 && QUALIFIED_NAME.test(name) &&
      (prefix === undefined || isDnsSubdomain(prefix))
    ) return;
  }
  throw new TypeError(
    `finalizer must be a qualified name such as "example.com/cleanup", got ${describeValue(value)}`,
  );
}

/** The metadata fields of finalizers (not in `ObjectMetaLike`: client-node types them apart). */
function lifecycleOf(
  object: KubeObjectLike,
): { finalizers?: unknown; deletionTimestamp?: unknown } | undefined {
  return object.metadata as { finalizers?: unknown; deletionTimestamp?: unknown } | undefined;
}

/** `metadata.finalizers` (only its strings). */
function finalizersOf(object: KubeObjectLike): string[] {
  const list = lifecycleOf(object)?.finalizers;
  return Array.isArray(list) ? list.filter((f): f is string => typeof f === "string") : [];
}

/** `namespace/name` or `name`. */
function describeObject(object: KubeObjectLike): string {
  const meta = object.metadata;
  return meta?.namespace ? `${meta.namespace}/${meta.name}` : `${meta?.name}`;
}

/**
 * Runs one reconcile of `object` under the controller's finalizer, the way kube-rs'
 * `finalizer()` does:
 *
 * | `deletionTimestamp` | finalizer on the object | what happens |
 * | --- | --- | --- |
 * | not set | no | the finalizer is added, then `apply` runs on the updated object |
 * | not set | yes | `apply` runs |
 * | set | yes | `cleanup` runs; once it resolves the finalizer is removed |
 * | set | no | nothing: resolves `undefined` (someone else's finalizers hold the object) |
 *
 * Writes are conflict-safe: a JSON merge patch of `metadata.finalizers` carrying the
 * `resourceVersion` it was computed from (the server answers 409 Conflict if the object
 * changed), retried on a fresh read, so a finalizer another controller added meanwhile is kept
 * and only this one is added or removed. No finalizer is added to an object being deleted (the
 * API server forbids it). When the object is gone (404) it resolves `undefined`.
 *
 * Resolves with what `apply` or `cleanup` returned (e.g. a `ReconcileResult`). Their errors
 * propagate as they are, so the controller retries the key with backoff; a failed finalizer
 * write rejects with a {@linkcode FinalizerError}.
 *
 * @example
 * ```ts
 * import { KubeClient } from "@kinformer/kinformer/client";
 * import { finalizer } from "@kinformer/kinformer/controller";
 * import { SimulatedCluster, widgets } from "@kinformer/kinformer/testing";
 * import assert from "node:assert/strict";
 *
 * const cluster = new SimulatedCluster();
 * const client = new KubeClient({ server: "http://sim", fetch: cluster.fetch });
 * const buckets = new Set<string>(); // an external system
 * const reconcile = async (name: string) => {
 *   const widget = await client.get(widgets, name, { namespace: "default" });
 *   return await finalizer(widget, {
 *     client,
 *     resource: widgets,
 *     finalizer: "example.com/bucket",
 *     apply: (w) => void buckets.add(w.metadata.name!),
 *     cleanup: (w) => void buckets.delete(w.metadata.name!),
 *   });
 * };
 *
 * await client.create(widgets, { metadata: { name: "w1", namespace: "default" } });
 * await reconcile("w1");
 * assert.deepEqual([...buckets], ["w1"]);
 * assert.deepEqual(cluster.get(widgets, { namespace: "default", name: "w1" })?.metadata.finalizers, ["example.com/bucket"]);
 *
 * await client.delete(widgets, "w1", { namespace: "default" }); // held by the finalizer
 * await reconcile("w1");
 * assert.deepEqual([...buckets], []);
 * assert.equal(cluster.get(widgets, { namespace: "default", name: "w1" }), undefined); // gone
 * cluster.close();
 * ```
 */
export async function finalizer<T extends KubeObjectLike, R>(
  object: T,
  options: FinalizerOptions<T, R>,
): Promise<R | undefined> {
  checkOptionsObject(options, "finalizer");
  if (options === undefined) throw new TypeError("finalizer: options are required");
  checkFinalizerName(options.finalizer);
  if (typeof options.apply !== "function") {
    throw new TypeError(`apply must be a function, got ${describeValue(options.apply)}`);
  }
  if (typeof options.cleanup !== "function") {
    throw new TypeError(`cleanup must be a function, got ${describeValue(options.cleanup)}`);
  }
  checkString(options.fieldManager, "fieldManager");
  const meta = object?.metadata;
  if (typeof meta?.name !== "string" || meta.name === "") {
    throw new TypeError(
      `finalizer: the object must have metadata.name, got ${describeValue(meta)}`,
    );
  }
  const { client, resource, finalizer: name, signal } = options;
  const namespace = resource.namespaced ? meta.namespace : undefined;
  const what = describeObject(object);

  /**
   * Writes `change(finalizers)` as a merge patch with the resourceVersion it was computed from;
   * on a conflict reads the object again and asks `decide` whether the write is still due.
   * Resolves the object the server stored, the fresh object when no write was due, or
   * undefined when the object is gone.
   */
  const write = async (
    phase: "add" | "remove",
    first: T,
    due: (object: T) => boolean,
    change: (finalizers: readonly string[]) => string[],
  ): Promise<T | undefined> => {
    let current: T | undefined = first;
    try {
      return await retryOnConflict(async (attempt) => {
        if (attempt > 0) {
          current = await getOrUndefined();
          if (current === undefined) return undefined;
        }
        if (!due(current!)) return current;
        const patch = {
          metadata: {
            resourceVersion: current!.metadata?.resourceVersion,
            finalizers: change(finalizersOf(current!)),
          },
        };
        try {
          return await client.patch(resource, name_(current!), patch, {
            namespace,
            fieldManager: options.fieldManager,
            signal,
          });
        } catch (error) {
          if (error instanceof KubeApiError && error.code === 404) return undefined;
          throw error;
        }
      }, { backoff: options.backoff, signal });
    } catch (error) {
      if (signal?.aborted && error === signal.reason) throw error;
      throw new FinalizerError(phase, name, what, error);
    }
  };
  const name_ = (o: T): string => o.metadata!.name!;
  const getOrUndefined = async (): Promise<T | undefined> => {
    try {
      return await client.get(resource, meta.name!, { namespace, signal });
    } catch (error) {
      if (error instanceof KubeApiError && error.code === 404) return undefined;
      throw error;
    }
  };
  const has = (o: T): boolean => finalizersOf(o).includes(name);
  const deleting = (o: T): boolean => lifecycleOf(o)?.deletionTimestamp != null;

  const runCleanup = async (o: T): Promise<R | undefined> => {
    if (!has(o)) return undefined;
    const result = await options.cleanup(o);
    await write("remove", o, has, (list) => list.filter((f) => f !== name));
    return result;
  };

  if (!deleting(object)) {
    let current: T | undefined = object;
    if (!has(object)) {
      current = await write(
        "add",
        object,
        (o) => !deleting(o) && !has(o),
        (list) => [...list, name],
      );
      if (current === undefined) return undefined;
      // Deleted meanwhile: the finalizer was not added; cleanup is due if it is there.
      if (deleting(current)) return await runCleanup(current);
    }
    return await options.apply(current);
  }
  return await runCleanup(object);
}
