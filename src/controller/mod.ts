/**
 * Run a controller: informer events become keys on a rate-limited work queue, and workers
 * reconcile each key until the signal aborts. Errors retry with backoff; a key is never
 * reconciled by two workers at once; stopping lets in-flight work finish. Several replicas
 * coordinate through Leases: {@linkcode LeaderElector} (one replica reconciles) or
 * {@linkcode ShardCoordinator} (the keys are split among them), both usable through
 * `runController({ leaderElection })` / `runController({ sharding })`.
 *
 * What an operator needs besides, each usable on its own: {@linkcode EventRecorder}
 * (Kubernetes Events as client-go writes them: series, rate limit, background writes),
 * {@linkcode finalizer} (cleanup before deletion), conditions ({@linkcode setCondition} and
 * friends), {@linkcode retryOnConflict} / {@linkcode updateWithRetry} (read-modify-write), and
 * {@linkcode Manager}: several controllers sharing informers and one leader election, with
 * `/healthz`, `/readyz` and `/metrics` (controller-runtime's metric names) as a `fetch` handler.
 * `runManager` from `@kinformer/kinformer/controller/deno`, `/bun` or `/node` serves it and stops
 * it gracefully on SIGTERM. `examples/operator/` puts it all together.
 *
 * ## Guides
 * - [Controllers](https://github.com/kinformer/kinformer/blob/main/docs/controllers.md):
 *   work queue, runController, sources, predicates, server-side apply, events, finalizers,
 *   conditions, the Manager.
 * - [Migrating from client-node and client-go](https://github.com/kinformer/kinformer/blob/main/docs/migrating.md):
 *   from @kubernetes/client-node and client-go concepts.
 * - [Running in production](https://github.com/kinformer/kinformer/blob/main/docs/production.md):
 *   memory, health and metrics, the consistency check, failure handling, benchmarks.
 * - [Several replicas: leader election and sharding](https://github.com/kinformer/kinformer/blob/main/docs/replicas.md):
 *   leader election and sharding.
 *
 * @example
 * ```ts
 * import { runController, type InformerLike } from "@kinformer/kinformer/controller";
 * import assert from "node:assert/strict";
 *
 * type Obj = { metadata: { namespace?: string; name?: string } };
 * const informer: InformerLike<Obj> = {
 *   addEventHandler(handler) {
 *     handler.onAdd?.({ metadata: { namespace: "default", name: "web" } }, true);
 *     return { hasSynced: () => true, remove: () => {} };
 *   },
 * };
 *
 * const stop = new AbortController();
 * const reconciled: string[] = [];
 * await runController({
 *   informers: [informer],
 *   signal: stop.signal,
 *   workers: 2,
 *   reconcile: async (key, { signal }) => {
 *     if (!signal.aborted) reconciled.push(key);
 *     stop.abort();
 *     return { requeueAfterMs: 60_000 }; // check again in a minute
 *   },
 * });
 * assert.deepEqual(reconciled, ["default/web"]);
 * ```
 * @module
 */
export type {
  InformerEventHandlerLike,
  InformerLike,
  InformerRegistrationLike,
} from "./reconcile/informer_like.ts";
export { runController } from "./reconcile/run_controller.ts";
export { Controller, type ControllerHealth } from "./reconcile/controller.ts";
export type {
  ControllerMetricsHooks,
  ControllerOptions,
  ReconcileContext,
  ReconcileOutcome,
  ReconcileResult,
  RunControllerOptions,
} from "./reconcile/controller_options.ts";
export type { ErrorContext, ErrorPhase, OnError } from "../util/error_context.ts";
export { LifecycleError, type LifecycleState } from "../util/lifecycle.ts";
export {
  type ControllerSource,
  type OwnerResource,
  owns,
  type SourceKeys,
  type SourceOptions,
  watches,
} from "./reconcile/sources.ts";
export {
  annotationsChanged,
  generationChanged,
  labelsChanged,
  type UpdatePredicate,
} from "./reconcile/predicates.ts";
export {
  type LeaderElectionCallbacks,
  LeaderElector,
  type LeaderElectorHealth,
  type LeaderElectorOptions,
} from "./leases/leader_election.ts";
export {
  LeaseLock,
  type LeaseLockOptions,
  type LeaseRecord,
  type LeaseSnapshot,
  leaseSnapshot,
} from "./leases/lease_lock.ts";
export { DeadlineError, LeaseLostError } from "./leases/lease_errors.ts";
export type { LeaseTimingOptions, LeaseTimings } from "./leases/lease_timing.ts";
export { ShardCoordinator } from "./leases/shard_coordinator.ts";
export type {
  ShardCallbacks,
  ShardCoordinatorHealth,
  ShardCoordinatorOptions,
  ShardPermit,
} from "./leases/shard_coordinator_options.ts";
export { assignShards, shardOf } from "./leases/shard_assignment.ts";
export {
  type Condition,
  type ConditionInput,
  findCondition,
  hasCondition,
  removeCondition,
  setCondition,
  type SetConditionOptions,
} from "./reconcile/conditions.ts";
export {
  isConflict,
  type RetryBackoff,
  retryOnConflict,
  type RetryOnConflictOptions,
  updateWithRetry,
  type UpdateWithRetryOptions,
} from "./reconcile/retry_on_conflict.ts";
export { finalizer, FinalizerError, type FinalizerOptions } from "./reconcile/finalizer.ts";
export {
  type EventInput,
  EventRecorder,
  type EventRecorderHealth,
  type EventRecorderOptions,
  type ObjectReference,
} from "./events/event_recorder.ts";
export {
  Manager,
  type ManagerHealth,
  type ManagerOptions,
  type Runnable,
} from "./manager/manager.ts";
