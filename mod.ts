/**
 * kinformer: Kubernetes informers for every JavaScript runtime (Deno, Bun, Node, Cloudflare
 * Workers, browsers), on Web standard APIs only, with zero runtime dependencies.
 *
 * A shared informer lists and watches one resource, keeps a local indexed cache in step with
 * the API server through every failure a real cluster throws at it (dropped connections, 410
 * Gone, throttling, half-open watches), and tells any number of listeners what changed.
 *
 * ```ts
 * import { createInformer, KubeClient, pods } from "@kinformer/kinformer";
 * import { SimulatedCluster } from "@kinformer/kinformer/testing";
 * import assert from "node:assert/strict";
 *
 * const cluster = new SimulatedCluster(); // or: new KubeClient({ server: "https://my-cluster", token })
 * cluster.create(pods, { metadata: { namespace: "default", name: "web-1" } });
 * const client = new KubeClient({ server: "http://sim.local", fetch: cluster.fetch });
 *
 * await using informer = createInformer(client, { resource: pods, namespace: "default" });
 * informer.start();
 * const added: string[] = [];
 * for await (const ev of informer.events()) {
 *   if (ev.type === "add") added.push(ev.object.metadata.name!);
 *   if (ev.type === "synced") break;
 * }
 * assert.deepEqual(added, ["web-1"]);
 * assert.ok(informer.store.get("default/web-1")?.metadata.uid);
 * cluster.close();
 * ```
 *
 * This module has what most programs need: the client, objects and resource descriptors (the
 * built-in ones and `defineResource`), selectors, `createInformer`, the factory, the lister,
 * `watcher()`, the event and handler types, and the error classes a caller catches. Everything
 * else is on the subpath of its layer: `/client` (the whole API client: request options, write
 * types, `eventsV1`, WebSocket watches), `/kubernetes-types` (the built-in descriptors typed with
 * the optional `kubernetes-types` package), `/watch` (watch-stream decoder), `/cache` (the
 * informer machinery: `DeltaFIFO`, `Indexer`, `StoreWriter`, checkpoints, consistency checks),
 * `/queue` (work queues and rate limiters), `/controller` (controllers, leader election,
 * sharding, the operator toolkit), `/testing` (simulated API server, manual clock), `/metrics`
 * (Prometheus text format), `/config` (kubeconfig and in-cluster configuration), `/fleet`
 * (multi-cluster informers: a fleet of clusters, one merged view); per runtime,
 * `/config/deno`, `/config/bun`, `/config/node` (configuration loaders), `/testing/deno`,
 * `/testing/bun`, `/testing/node` (HTTP servers for the simulated cluster) and
 * `/controller/deno`, `/controller/bun`, `/controller/node` (`runManager`).
 *
 * ## Guides
 * - [Getting started](https://github.com/kinformer/kinformer/blob/main/docs/getting-started.md):
 *   install and a first informer on each runtime.
 * - [Informers](https://github.com/kinformer/kinformer/blob/main/docs/informers.md):
 *   events, handlers, listers, indexes, selectors, resync, overflow, transforms, types, the
 *   factory, your own store.
 * - [Cluster access](https://github.com/kinformer/kinformer/blob/main/docs/cluster-access.md):
 *   kubeconfig rules, in-cluster, exec plugins, proxies, TLS per runtime.
 * - [Serverless and browsers](https://github.com/kinformer/kinformer/blob/main/docs/serverless-and-browsers.md):
 *   checkpoints, catch-up runs, Cloudflare Workers, browsers, WebSocket watches.
 * - [Controllers](https://github.com/kinformer/kinformer/blob/main/docs/controllers.md):
 *   work queue, runController, sources, predicates, server-side apply, events, finalizers,
 *   conditions, the Manager.
 * - [Migrating from client-node and client-go](https://github.com/kinformer/kinformer/blob/main/docs/migrating.md):
 *   from @kubernetes/client-node and client-go concepts.
 * - [Running in production](https://github.com/kinformer/kinformer/blob/main/docs/production.md):
 *   memory, health and metrics, the consistency check, failure handling, benchmarks.
 * - [Several replicas: leader election and sharding](https://github.com/kinformer/kinformer/blob/main/docs/replicas.md):
 *   leader election and sharding.
 * - [Testing your controller with the simulated cluster](https://github.com/kinformer/kinformer/blob/main/docs/testing.md):
 *   the simulated cluster, faults, churn, ManualClock, kubectl against it.
 * - [Fleets: one program, many clusters](https://github.com/kinformer/kinformer/blob/main/docs/fleet.md):
 *   engaged clusters and their states, the merged view and events, providers, fleet controllers.
 * @module
 */
// The root module: what most programs need. Everything else is on the subpath of its layer
// (the module doc above lists them); internals are not exported at all. The list is explicit
// and tests/mod_test.ts pins it, so growth is deliberate (at most 60 names; scripts/docs.mjs
// --check counts them).

// Client: the API client, objects and their metadata, resources and their descriptors.
export { isStatus, KubeApiError, KubeClient, KubeNetworkError } from "./src/client/mod.ts";
export type {
  ErrorKind,
  KubeClientOptions,
  KubeList,
  KubeObject,
  KubeObjectLike,
  ObjectMeta,
  PartialObjectMetadata,
  ResourceDescriptor,
  Status,
} from "./src/client/mod.ts";
export { defineResource, metadataOnly } from "./src/client/mod.ts";

// Built-in resource descriptors.
export {
  configmaps,
  coreEvents,
  cronjobs,
  customresourcedefinitions,
  daemonsets,
  deployments,
  endpoints,
  ingresses,
  jobs,
  leases,
  namespaces,
  nodes,
  persistentvolumeclaims,
  persistentvolumes,
  pods,
  replicasets,
  secrets,
  serviceaccounts,
  services,
  statefulsets,
} from "./src/client/mod.ts";

// Selectors.
export { FieldSelector, LabelSelector, SelectorParseError } from "./src/client/mod.ts";

// Informers: the informer, the factory, the lister, watcher(), events and handlers.
export {
  createInformer,
  Lister,
  SharedInformer,
  SharedInformerFactory,
  watcher,
} from "./src/cache/mod.ts";
export type {
  ErrorContext,
  EventHandler,
  EventsOptions,
  HandlerRegistration,
  InformerEvent,
  InformerHealth,
  InformerOptions,
  LifecycleState,
  OnError,
  WatcherEvent,
  WatcherOptions,
} from "./src/cache/mod.ts";

// Errors an informer reports.
export { CheckpointError, DriftError, LifecycleError } from "./src/cache/mod.ts";
export { WatchDecodeError } from "./src/watch/mod.ts";
