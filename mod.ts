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
 * Subpaths: `/client` (API client, resources, selectors), `/kubernetes-types` (the built-in
 * descriptors typed with the optional `kubernetes-types` package), `/watch` (watch-stream decoder),
 * `/cache` (informer machinery), `/queue` (work queues and rate limiters), `/controller`
 * (controller runner), `/testing` (simulated API server, manual clock), `/metrics`
 * (Prometheus text format), `/config` (kubeconfig and in-cluster configuration); per runtime,
 * `/config/deno`, `/config/bun`, `/config/node` and `/testing/deno`, `/testing/bun`,
 * `/testing/node`.
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
 * @module
 */
export * from "./src/client/mod.ts";
export * from "./src/watch/mod.ts";
export * from "./src/cache/mod.ts";
export * from "./src/queue/mod.ts";
export * from "./src/controller/mod.ts";
