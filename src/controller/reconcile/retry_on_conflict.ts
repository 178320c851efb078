/**
 * Read-modify-write with optimistic concurrency, as client-go's `retry.RetryOnConflict`: an
 * update that loses the race (409 Conflict) is done again on a fresh read, a bounded number of
 * times with a short backoff.
 * @module
 */
import { KubeApiError } from "../../client/errors.ts";
import type { KubeClient } from "../../client/kube_client.ts";
import type { ResourceDescriptor } from "../../client/resource.ts";
import type { KubeObjectLike } from "../../client/types.ts";
import { type Clock, sleep, systemClock } from "../../util/clock.ts";
import {
  checkClock,
  checkFunction,
  checkOptionsObject,
  checkSignal,
  requireNonEmptyString,
  requireNumber,
} from "../../util/validate.ts";
import { describeValue } from "../../util/values.ts";

/**
 * How often and how long {@linkcode retryOnConflict} tries, as client-go's `wait.Backoff`:
 * at most `steps` attempts; before each retry it waits `durationMs` (times `factor` after each
 * wait, at most `capMs`), plus up to `jitter` times that at random. client-go's `DefaultRetry`
 * is `{ steps: 5, durationMs: 10, factor: 1, jitter: 0.1 }` (the default here);
 * its `DefaultBackoff`, for writes that race with other controllers, is
 * `{ steps: 4, durationMs: 10, factor: 5, jitter: 0.1 }`.
 *
 * @example
 * ```ts
 * import type { RetryBackoff } from "@kinformer/kinformer/controller";
 * import assert from "node:assert/strict";
 * const defaultBackoff: RetryBackoff = { steps: 4, durationMs: 10, factor: 5, jitter: 0.1 };
 * assert.equal(defaultBackoff.steps, 4);
 * ```
 */
export interface RetryBackoff {
  /** Attempts at most (1: no retry). */
  steps: number;
  /** Wait before the first retry, in ms. */
  durationMs: number;
  /** Growth of the wait after each retry. @default 1 */
  factor?: number | undefined;
  /** Up to this fraction of the wait is added at random. @default 0 */
  jitter?: number | undefined;
  /** Largest wait before jitter, in ms. @default Infinity */
  capMs?: number | undefined;
}

/** Options of {@linkcode retryOnConflict}. */
export interface RetryOnConflictOptions {
  /**
   * Attempts and waits.
   * @default { steps: 5, durationMs: 10, factor: 1, jitter: 0.1 } (client-go's DefaultRetry)
   */
  backoff?: RetryBackoff | undefined;
  /**
   * Which errors are worth another attempt (client-go's `retry.OnError`).
   * @default isConflict
   */
  retriable?: ((error: unknown) => boolean) | undefined;
  /** Stops waiting between attempts: rejects with the signal's reason. @default undefined */
  signal?: AbortSignal | undefined;
  /** Time source of the waits. @default systemClock */
  clock?: Clock | undefined;
  /** Random source in [0, 1) for jitter. @default Math.random */
  random?: (() => number) | undefined;
}

/**
 * Whether `error` is the API server's 409 `Conflict`: a write based on a `resourceVersion` that
 * is no longer current (apimachinery's `IsConflict`). A 409 `AlreadyExists` is not.
 *
 * @example
 * ```ts
 * import { isConflict } from "@kinformer/kinformer/controller";
 * import { KubeApiError } from "@kinformer/kinformer/client";
 * import assert from "node:assert/strict";
 * assert.equal(isConflict(KubeApiError.fromStatus({ kind: "Status", code: 409, reason: "Conflict" })), true);
 * assert.equal(isConflict(KubeApiError.fromStatus({ kind: "Status", code: 409, reason: "AlreadyExists" })), false);
 * ```
 */
export function isConflict(error: unknown): boolean {
  return error instanceof KubeApiError &&
    (error.reason === "Conflict" || (error.reason === "" && error.code === 409));
}

function checkBackoff(b: RetryBackoff): void {
  if (typeof b !== "object" || b === null) {
    throw new TypeError(`backoff must be an object, got ${describeValue(b)}`);
  }
  requireNumber(b.steps, "backoff.steps", { min: 1, integer: true });
  requireNumber(b.durationMs, "backoff.durationMs", { min: 0 });
  if (b.factor !== undefined) requireNumber(b.factor, "backoff.factor", { min: 0 });
  if (b.jitter !== undefined) requireNumber(b.jitter, "backoff.jitter", { min: 0 });
  if (b.capMs !== undefined) {
    requireNumber(b.capMs, "backoff.capMs", { min: 0, allowInfinity: true });
  }
}

/**
 * Calls `fn` until it succeeds, retrying while it fails with a retriable error (a 409 Conflict
 * by default) and `backoff.steps` allows; resolves with its result, or rejects with its last
 * error (the conflict itself once the attempts are used up, any other error at once). `fn`
 * must read the object again on every attempt and apply its change to that fresh copy;
 * `attempt` counts from 0. Waits are bounded: with the default at most four of about 10 ms.
 *
 * @example
 * ```ts
 * import { configmaps, KubeClient, type KubeObject } from "@kinformer/kinformer/client";
 * import { retryOnConflict } from "@kinformer/kinformer/controller";
 * import { SimulatedCluster } from "@kinformer/kinformer/testing";
 * import assert from "node:assert/strict";
 *
 * type ConfigMap = KubeObject & { data?: Record<string, string> };
 * const cluster = new SimulatedCluster();
 * const client = new KubeClient({ server: "http://sim", fetch: cluster.fetch });
 * const read = () => client.get<ConfigMap>(configmaps, "counter", { namespace: "default" });
 * await client.create<ConfigMap>(configmaps, { metadata: { name: "counter", namespace: "default" }, data: { n: "0" } });
 * const stale = await read();
 * await client.replace<ConfigMap>(configmaps, { ...stale, data: { n: "1" } }); // someone else wrote first
 *
 * const result = await retryOnConflict(async (attempt) => {
 *   // Attempt 0 writes from the stale copy (409); attempt 1 reads again.
 *   const cm = attempt === 0 ? stale : await read();
 *   cm.data = { n: String(Number(cm.data?.n) + 1) };
 *   return await client.replace<ConfigMap>(configmaps, cm);
 * });
 * assert.equal(result.data?.n, "2");
 * cluster.close();
 * ```
 */
export async function retryOnConflict<T>(
  fn: (attempt: number) => Promise<T> | T,
  options: RetryOnConflictOptions = {},
): Promise<T> {
  if (typeof fn !== "function") {
    throw new TypeError(`retryOnConflict: fn must be a function, got ${describeValue(fn)}`);
  }
  checkOptionsObject(options, "retryOnConflict");
  const backoff = options.backoff ?? { steps: 5, durationMs: 10, factor: 1, jitter: 0.1 };
  checkBackoff(backoff);
  checkFunction(options.retriable, "retriable");
  checkSignal(options.signal, "signal");
  checkClock(options.clock, "clock");
  checkFunction(options.random, "random");
  const retriable = options.retriable ?? isConflict;
  const clock = options.clock ?? systemClock;
  const random = options.random ?? Math.random;
  let wait = backoff.durationMs;
  for (let attempt = 0;; attempt++) {
    options.signal?.throwIfAborted();
    try {
      return await fn(attempt);
    } catch (error) {
      if (attempt + 1 >= backoff.steps || !retriable(error)) throw error;
    }
    const base = Math.min(wait, backoff.capMs ?? Infinity);
    await sleep(base + base * (backoff.jitter ?? 0) * random(), {
      clock,
      signal: options.signal,
    });
    wait = base * (backoff.factor ?? 1);
  }
}

/** Options of {@linkcode updateWithRetry}. */
export interface UpdateWithRetryOptions<T extends KubeObjectLike> extends RetryOnConflictOptions {
  /** The object's resource (its descriptor types `mutate`'s object). */
  resource: ResourceDescriptor<T>;
  /** The object's name. */
  name: string;
  /** The object's namespace (namespaced resources). @default undefined */
  namespace?: string | undefined;
  /**
   * Changes a fresh copy of the object, in place or by returning a new one; `false` means
   * nothing to write (then no request is made and the fresh copy is returned). Called once
   * per attempt, each time on a newly read object.
   */
  mutate: (object: T) => T | void | false | Promise<T | void | false>;
  /** Write only the status (`/status`): for conditions and other status fields. @default undefined */
  subresource?: "status" | undefined;
  /** Field manager of the write. @default undefined */
  fieldManager?: string | undefined;
}

/**
 * Read-modify-write of one object, retried on conflict: reads it, lets `mutate` change it, and
 * writes it back with its `resourceVersion` (a PUT, so the server refuses it with 409 Conflict if
 * anyone wrote in between); a conflict starts over with a fresh read, as
 * {@linkcode retryOnConflict} allows. Resolves with the object the server stored.
 *
 * @example
 * ```ts
 * import { KubeClient } from "@kinformer/kinformer/client";
 * import { setCondition, updateWithRetry } from "@kinformer/kinformer/controller";
 * import { SimulatedCluster, widgets } from "@kinformer/kinformer/testing";
 * import assert from "node:assert/strict";
 *
 * const cluster = new SimulatedCluster();
 * const client = new KubeClient({ server: "http://sim", fetch: cluster.fetch });
 * await client.create(widgets, { metadata: { name: "w1", namespace: "default", generation: 1 }, spec: { size: 1 } });
 * const updated = await updateWithRetry(client, {
 *   resource: widgets,
 *   namespace: "default",
 *   name: "w1",
 *   subresource: "status",
 *   mutate: (widget) => {
 *     const status = (widget.status ?? {}) as { conditions?: [] };
 *     widget.status = {
 *       ...status,
 *       conditions: setCondition(status.conditions, {
 *         type: "Ready", status: "True", reason: "Available", observedGeneration: widget.metadata.generation,
 *       }),
 *     };
 *   },
 * });
 * assert.equal((updated.status as { conditions: { status: string }[] }).conditions[0]?.status, "True");
 * cluster.close();
 * ```
 */
export async function updateWithRetry<T extends KubeObjectLike>(
  client: KubeClient,
  options: UpdateWithRetryOptions<T>,
): Promise<T> {
  checkOptionsObject(options, "updateWithRetry");
  if (options === undefined) throw new TypeError("updateWithRetry: options are required");
  requireNonEmptyString(options.name, "name");
  if (typeof options.mutate !== "function") {
    throw new TypeError(`mutate must be a function, got ${describeValue(options.mutate)}`);
  }
  if (options.subresource !== undefined && options.subresource !== "status") {
    throw new TypeError(`subresource must be "status", got ${describeValue(options.subresource)}`);
  }
  const { resource, name, namespace, mutate, subresource, fieldManager, signal } = options;
  return await retryOnConflict(async () => {
    const fresh = await client.get(resource, name, { namespace, signal });
    const result = await mutate(fresh);
    if (result === false) return fresh;
    const next = result ?? fresh;
    return await client.replace(resource, next, {
      namespace,
      subresource,
      fieldManager,
      signal,
    });
  }, options);
}
