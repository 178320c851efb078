/**
 * The Kubernetes API client of kinformer: resource descriptors and paths, a small
 * `fetch`-based {@linkcode KubeClient} (list one page, watch, get, create, replace, patch,
 * delete), the object types it reads and the typed errors it throws.
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
 *
 * @example
 * ```ts
 * import { KubeApiError, KubeClient, pods } from "@kinformer/kinformer/client";
 * import assert from "node:assert/strict";
 *
 * // `fetch` defaults to globalThis.fetch; any `(request: Request) => Promise<Response>` works,
 * // here a stand-in that answers one pod list and a 404 for everything else.
 * const client = new KubeClient({
 *   server: "http://127.0.0.1:8001",
 *   token: () => "rotating-token",
 *   fetch: (request) => {
 *     const url = new URL(request.url);
 *     if (url.pathname === "/api/v1/namespaces/default/pods") {
 *       return Promise.resolve(Response.json({
 *         kind: "PodList",
 *         apiVersion: "v1",
 *         metadata: { resourceVersion: "100" },
 *         items: [{ metadata: { name: "web-1", namespace: "default" } }],
 *       }));
 *     }
 *     return Promise.resolve(Response.json(
 *       { kind: "Status", status: "Failure", code: 404, reason: "NotFound", message: "not found" },
 *       { status: 404 },
 *     ));
 *   },
 * });
 *
 * const list = await client.list(pods, { namespace: "default", labelSelector: "app=web" });
 * assert.equal(list.metadata.resourceVersion, "100");
 * assert.deepEqual(list.items.map((p) => p.metadata.name), ["web-1"]);
 *
 * await assert.rejects(client.get(pods, "missing", { namespace: "default" }), (error) => {
 *   assert.ok(error instanceof KubeApiError);
 *   assert.equal(error.code, 404);
 *   assert.equal(error.reason, "NotFound");
 *   return true;
 * });
 * ```
 * @module
 */
export type {
  CustomObject,
  KubeList,
  KubeObject,
  KubeObjectLike,
  ListMeta,
  ManagedFieldsEntry,
  ObjectMeta,
  ObjectMetaLike,
  OwnerReference,
  OwnerReferenceLike,
  Scale,
  Status,
  StatusCause,
  StatusDetails,
} from "./types.ts";
export type { ApplyConfiguration } from "./apply_configuration.ts";
export { defineResource } from "./define_resource.ts";
export { isStatus } from "./types.ts";
export { KubeApiError, KubeNetworkError } from "./errors.ts";
export {
  compareResourceVersion,
  ResourceVersionNotComparableError,
} from "./compare_resource_version.ts";
export { discoverResources } from "./discovery.ts";
export { newTraceContext } from "./trace_context.ts";
export type { NewTraceContextOptions, TraceContext, TraceContextSource } from "./trace_context.ts";
export type { DiscoveredResource, DiscoverOptions } from "./discovery.ts";
export type { KubeApiErrorOptions } from "./errors.ts";
export type { ErrorKind } from "../util/error_kind.ts";
export {
  configmaps,
  coreEvents,
  cronjobs,
  customresourcedefinitions,
  daemonsets,
  deployments,
  endpoints,
  eventsV1,
  ingresses,
  jobs,
  leases,
  namespaces,
  nodes,
  persistentvolumeclaims,
  persistentvolumes,
  pods,
  replicasets,
  resourcePath,
  secrets,
  serviceaccounts,
  services,
  statefulsets,
} from "./resource.ts";
export type {
  AnyResourceDescriptor,
  ObjectKind,
  ObjectOf,
  ResourceDescriptor,
  ResourcePathOptions,
  UntypedResourceDescriptor,
} from "./resource.ts";
export { KubeClient } from "./kube_client.ts";
export type {
  ApplyOptions,
  DeleteOptions,
  DeletePreconditions,
  GetOptions,
  KubeClientOptions,
  KubeRequestOptions,
  ListOptions,
  PatchOptions,
  PatchType,
  QueryValue,
  ResourceVersionMatch,
  Subresource,
  TokenSource,
  WatchOptions,
  WriteCommonOptions,
  WriteOptions,
} from "./kube_client.ts";
export type { WatchTransport } from "./watch_transport.ts";
export type { WebSocketClientOptions } from "./websocket_watch.ts";
export { fetchWebSocket, globalWebSocket } from "./websocket_factory.ts";
export type {
  SocketEvent,
  WebSocketFactory,
  WebSocketInit,
  WebSocketLike,
} from "./websocket_factory.ts";
export { WebSocketWatchError } from "./websocket_watch_error.ts";
export type { WebSocketWatchErrorOptions } from "./websocket_watch_error.ts";
export {
  LabelSelector,
  labelSelectorFromObject,
  parseLabelSelector,
  SelectorParseError,
} from "./label_selector.ts";
export type {
  LabelOperator,
  LabelRequirement,
  LabelSelectorObject,
  LabelSelectorRequirementObject,
} from "./label_selector.ts";
export { FieldSelector, parseFieldSelector } from "./field_selector.ts";
export type { FieldRequirement } from "./field_selector.ts";
export { metadataOnly } from "./metadata_only.ts";
export type { MetadataResourceDescriptor, PartialObjectMetadata } from "./metadata_only.ts";
