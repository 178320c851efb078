/**
 * The informer machinery: reflector, DeltaFIFO, indexer, listers, shared informer, factory.
 *
 * ```ts
 * import { createInformer } from "@kinformer/kinformer/cache";
 * import { KubeClient, pods } from "@kinformer/kinformer/client";
 * import { SimulatedCluster } from "@kinformer/kinformer/testing";
 * import assert from "node:assert/strict";
 * const cluster = new SimulatedCluster();
 * cluster.create(pods, { metadata: { namespace: "default", name: "web-1" } });
 * const informer = createInformer(new KubeClient({ server: "http://sim", fetch: cluster.fetch }), { resource: pods });
 * informer.start();
 * await informer.waitForSync();
 * assert.equal(informer.store.size, 1);
 * await informer.stop();
 * cluster.close();
 * ```
 *
 * ## Guides
 * - [Getting started](https://github.com/kinformer/kinformer/blob/main/docs/getting-started.md):
 *   install and a first informer on each runtime.
 * - [Informers](https://github.com/kinformer/kinformer/blob/main/docs/informers.md):
 *   events, handlers, listers, indexes, selectors, resync, overflow, transforms, types, the
 *   factory, your own store.
 * - [Serverless and browsers](https://github.com/kinformer/kinformer/blob/main/docs/serverless-and-browsers.md):
 *   checkpoints, catch-up runs, Cloudflare Workers, browsers, WebSocket watches.
 * - [Controllers](https://github.com/kinformer/kinformer/blob/main/docs/controllers.md):
 *   work queue, runController, sources, predicates, server-side apply, events, finalizers,
 *   conditions, the Manager.
 * - [Migrating from client-node and client-go](https://github.com/kinformer/kinformer/blob/main/docs/migrating.md):
 *   from @kubernetes/client-node and client-go concepts.
 * - [Running in production](https://github.com/kinformer/kinformer/blob/main/docs/production.md):
 *   memory, health and metrics, the consistency check, failure handling, benchmarks.
 * @module
 */
export { createInformer, SharedInformer } from "./informer.ts";
export type {
  CheckpointLimits,
  ConsistencyCheckOptions,
  ConsistencyCheckResult,
  ConsistencyHealth,
  ErrorContext,
  ErrorPhase,
  EventHandler,
  EventsOptions,
  HandlerRegistration,
  InformerCheckpoint,
  InformerHealth,
  InformerMetrics,
  InformerOptions,
  ListenerHealth,
  ListenerOptions,
} from "./informer.ts";
export type { ConsistencyOutcome, ConsistencyReason } from "./consistency_check_options.ts";
export type { DriftEntry, ObjectVersion } from "./consistency_compare.ts";
export { DriftError } from "./drift_error.ts";
export type { DriftErrorInit } from "./drift_error.ts";
export { SharedInformerFactory } from "./factory.ts";
export type { InformerForOptions, SharedInformerFactoryOptions } from "./factory.ts";
export type { InformerLease } from "./informer_lease.ts";
export {
  DEFAULT_DISCOVERY_INTERVAL_MS,
  DiscoveryInformerFactory,
} from "./discovery_informer_factory.ts";
export type { DiscoveryInformerFactoryOptions } from "./discovery_informer_factory.ts";
export type { InformerEvent, OverflowPolicy } from "./informer_event.ts";
export { Indexer, NAMESPACE_INDEX } from "./indexer.ts";
export type { IndexerOptions, Indexers, IndexFunc, Store } from "./indexer.ts";
export { ValueInterner } from "./value_interner.ts";
export type { ValueInternerOptions } from "./value_interner.ts";
export { CompactCodec } from "./compact_store.ts";
export type { CompactCodecOptions, ObjectCodec } from "./compact_store.ts";
export type { CacheMemoryMode } from "./informer_options.ts";
export { serverWriteTime } from "./event_lag.ts";
export type { EventLagHealth } from "./event_lag.ts";
export { Lister, NamespaceLister } from "./lister.ts";
export type { ListerListOptions } from "./lister.ts";
export { CheckpointError } from "./checkpoint_error.ts";
export type { CheckpointErrorOptions, CheckpointProblem } from "./checkpoint_error.ts";
export { StoreWriter } from "./store_writer.ts";
export type { StoreWriterOptions, WritableStore } from "./store_writer.ts";
export { DeltaFIFO } from "./delta_fifo.ts";
export type { Delta, DeltaFIFOOptions, DeltaType, KnownObjects } from "./delta_fifo.ts";
export { objectKey, splitObjectKey } from "./object_key.ts";
export type { InitialListMode } from "./reflector_state.ts";
export { watcher } from "./watcher.ts";
export { MutationError } from "./mutation_detector.ts";
export type { WatcherEvent, WatcherOptions } from "./watcher.ts";
export type { ReflectorState, RelistReason } from "./reflector.ts";
export {
  InitialEventsTimeoutError,
  ListInactivityError,
  WatchInactivityError,
} from "./reflector_errors.ts";
export type { InitialEventsTimeoutOptions } from "./reflector_errors.ts";
export type { Backoff, BackoffOptions } from "../util/backoff.ts";
export type { Clock, TimerHandle } from "../util/clock.ts";
export { LifecycleError } from "../util/lifecycle.ts";
export type { LifecycleState } from "../util/lifecycle.ts";
export type { OnError } from "../util/error_context.ts";
