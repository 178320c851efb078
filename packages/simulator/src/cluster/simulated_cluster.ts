/**
 * A simulated Kubernetes API server: a `fetch(Request) => Response` handler with real list,
 * watch, write and discovery semantics, an in-process control API, fault injection and a churn
 * driver. Serve it over HTTP with one of the runtime adapters (`@kinformer/kinformer/testing/deno`,
 * `/testing/bun`, `/testing/node`) or pass `cluster.fetch` to a client directly.
 * @module
 */
import { parseFieldSelector } from "@kinformer/kinformer/client";
import { parseLabelSelector } from "@kinformer/kinformer/client";
import type { AnyResourceDescriptor, ResourceDescriptor } from "@kinformer/kinformer/client";
import type { KubeObject, KubeObjectLike } from "@kinformer/kinformer/client";
import type { WebSocketFactory } from "@kinformer/kinformer/client";
import type { Clock } from "@kinformer/kinformer/cache";
import { requireNonEmptyString, requireNumber } from "@kinformer/kinformer/internal";
import { describeValue, isRecord } from "@kinformer/kinformer/internal";
import { BodyChannel, type ChannelEnv } from "../handlers/reads/response_body.ts";
import { resolveClusterOptions, type SimulatedClusterOptions } from "./cluster_options.ts";
import type { HandlerContext, OpenWatch } from "../handlers/reads/handler_context.ts";
import { CorsPolicy } from "../server/cors.ts";
import { handleRequest, type HttpEnv } from "../server/request_pipeline.ts";
import { gzipIfAsked } from "../server/gzip.ts";
import { InProcessWebSocket } from "../server/_in_process_websocket.ts";
import { mergePatch } from "../handlers/writes/merge_patch.ts";
import { type RecordedRequest, RequestLog } from "../server/request_log.ts";
import { resourceId, type ResourceInfo } from "../model/registry/served_resources.ts";
import { Rng } from "@kinformer/kinformer/internal";
import { Store } from "../store/object_store.ts";
import { keyOf } from "@kinformer/kinformer/internal";
import type { ResourceState } from "../store/resource_state.ts";
import { findObject } from "../handlers/writes/single_object.ts";
import {
  Churner,
  type ChurnHandle,
  type ChurnOptions,
  type ChurnStats,
  startChurn,
  type StartChurnOptions,
} from "./faults/churn.ts";
import { type Chunking, ClusterFaults } from "../handlers/faults/cluster_faults.ts";
import { fixtureFor } from "./faults/_fixture_for_kind.ts";
import type { ServedView } from "../handlers/reads/served_view.ts";
import { ClusterControllers } from "./controllers/cluster_controllers.ts";
import { ServedApi } from "../handlers/served_api.ts";
import { CrdController } from "./controllers/crd_controller.ts";
import type { DiscoveryModel } from "../handlers/reads/discovery.ts";
import type { OpenApiDocuments } from "../model/openapi/openapi_documents.ts";
import { fail, pathNotFound } from "../core/status.ts";

export type { SimulatedClusterOptions } from "./cluster_options.ts";
export type { ServedResource } from "../model/registry/served_resources.ts";
export { LOOPBACK_ORIGINS } from "../server/cors.ts";
export type { RecordedRequest } from "../server/request_log.ts";

/** Addresses one object in the control API. */
export interface ObjectRef {
  /** Namespace (namespaced resources; `default` when absent). */
  namespace?: string;
  /** Name. */
  name: string;
}

/** Options of {@linkcode SimulatedCluster.list}. */
export interface ClusterListOptions {
  /** Only this namespace. @default undefined (all) */
  namespace?: string;
  /** Label selector text. @default "" */
  labelSelector?: string;
  /** Field selector text. @default "" */
  fieldSelector?: string;
}

/** Options of {@linkcode SimulatedCluster.delete}. */
export interface ClusterDeleteOptions {
  /**
   * What becomes of the object's dependents (objects whose `metadata.ownerReferences` name it):
   * `Background` deletes the object now and its dependents after it, `Foreground` keeps it
   * (with a `deletionTimestamp` and the `foregroundDeletion` finalizer) until the dependents
   * that block it (`blockOwnerDeletion: true`) are gone, `Orphan` keeps the dependents and
   * removes their references to it.
   * @default undefined (the object's GC finalizers, else the resource's default: `Background`, `Orphan` for jobs and replication controllers)
   */
  propagationPolicy?: "Background" | "Foreground" | "Orphan";
}

/** Builds objects for {@linkcode SimulatedCluster.seed}. */
export type SeedFactory = (index: number) => KubeObject;

/**
 * A simulated Kubernetes API server. `cluster.fetch` answers list, watch, get, create,
 * update, patch (server-side apply included) and delete requests for pods, configmaps,
 * namespaces, deployments, leases (`coordination.k8s.io/v1`, with MicroTime checks), Events
 * (core and `events.k8s.io/v1`, one stored resource), widgets (a custom resource) and
 * CustomResourceDefinitions (one created through the API is served at once, with the status,
 * name conflicts and cleanup of kube-apiserver's; the `resources` option's are listed), plus
 * discovery (legacy and aggregated), OpenAPI v3 and self reviews, with the real server's wire
 * format, resourceVersion semantics, paging, bookmarks, streaming lists, server-side Tables,
 * field validation, authorization, managed fields, status and scale subresources, dry runs and
 * Status errors. The control API changes state directly; `faults` injects failures;
 * `churn`/`startChurn` generate load.
 *
 * @example
 * ```ts
 * import { KubeClient, pods } from "@kinformer/kinformer/client";
 * import { ManualClock } from "@kinformer/kinformer/testing";
 * import { SimulatedCluster } from "@kinformer/simulator";
 * import assert from "node:assert/strict";
 *
 * const clock = new ManualClock();
 * const cluster = new SimulatedCluster({ clock, token: "t0k3n" });
 * cluster.create(pods, { metadata: { name: "web-1", namespace: "default", labels: { app: "web" } } });
 *
 * const client = new KubeClient({ server: "http://sim", token: "t0k3n", fetch: cluster.fetch });
 * const list = await client.list(pods, { labelSelector: "app=web" });
 * assert.deepEqual(list.items.map((p) => p.metadata.name), ["web-1"]);
 * assert.equal(list.metadata.resourceVersion, "2");
 *
 * const watch = await client.watch(pods, { resourceVersion: list.metadata.resourceVersion });
 * cluster.delete(pods, { namespace: "default", name: "web-1" });
 * const reader = watch.body!.pipeThrough(new TextDecoderStream()).getReader();
 * const event = JSON.parse((await reader.read()).value!); // one line: {"type":"DELETED",...}
 * assert.equal(event.type, "DELETED");
 * assert.equal(event.object.metadata.name, "web-1");
 * await reader.cancel();
 * cluster.close();
 * ```
 */
export class SimulatedCluster implements Disposable {
  /** The request handler; bound, so it can be passed around (`new KubeClient({ fetch })`). */
  readonly fetch: (request: Request) => Promise<Response>;
  /**
   * Opens WebSockets to this cluster in the same process, no network involved: pass it as
   * `KubeClient`'s `webSocket` option to watch over WebSockets on a `ManualClock`. It behaves as
   * a browser's `WebSocket` does: the handshake follows the real API server's rules (see the
   * README), a refused one is an `error` and a `close` with code 1006 (no status), each watch
   * event is one message, a dropped watch closes with 1006. The serve adapters serve the same
   * over real sockets.
   *
   * @example
   * ```ts
   * import { configmaps, KubeClient } from "@kinformer/kinformer/client";
   * import { SimulatedCluster } from "@kinformer/simulator";
   * import assert from "node:assert/strict";
   * const cluster = new SimulatedCluster({ token: "s3cret" });
   * cluster.create(configmaps, { metadata: { namespace: "default", name: "a" } });
   * const client = new KubeClient({
   *   server: "http://sim.test",
   *   token: "s3cret",
   *   fetch: cluster.fetch,
   *   webSocket: cluster.webSocket,
   *   watchTransport: "websocket",
   * });
   * const ac = new AbortController();
   * const response = await client.watch(configmaps, { signal: ac.signal });
   * const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
   * assert.match((await reader.read()).value!, /^\{"type":"ADDED"/);
   * assert.equal(cluster.requests.at(-1)?.webSocket, true);
   * ac.abort();
   * cluster.close();
   * ```
   */
  readonly webSocket: WebSocketFactory;
  /** Fault injection switches. */
  readonly faults: ClusterFaults;
  readonly #clock: Clock;
  readonly #rng: Rng;
  readonly #store: Store;
  readonly #api: ServedApi;
  readonly #requestLog: RequestLog;
  readonly #channels = new Set<BodyChannel>();
  readonly #watches = new Set<OpenWatch>();
  readonly #churns = new Set<ChurnHandle>();
  readonly #controllers: ClusterControllers;
  readonly #crds: CrdController;
  #closed = false;

  /** Creates an empty cluster (no I/O, no timers). */
  constructor(options?: SimulatedClusterOptions) {
    const o = resolveClusterOptions(options);
    this.#clock = o.clock;
    this.#requestLog = new RequestLog(o.requestLogLimit, o.logRequests);
    const cors = new CorsPolicy(o.corsAllowedOrigins);
    this.#rng = new Rng(o.seed);
    this.#store = new Store(this.#clock, this.#rng, o.resources, {
      historyLimit: o.historyLimit,
      maxJsonDepth: o.maxJsonDepth,
      autoCreateNamespaces: o.autoCreateNamespaces,
      bootstrapRng: new Rng(o.seed ^ 0x6e5),
    });
    this.#controllers = new ClusterControllers(this.#store, this.#clock);
    const api = this.#api = new ServedApi(this.#store, o.resources);
    api.onState = (state) => this.#controllers.observeState(state);
    this.#crds = new CrdController(this.#store, api, this.#clock, new Rng(o.seed ^ 0xc7d));
    this.faults = new ClusterFaults({
      dropOpenWatches: () => {
        const open = [...this.#watches];
        for (const w of open) w.drop();
        return open.length;
      },
      resumeBodies: () => {
        for (const c of this.#channels) c.poke();
      },
      compactHistory: () => this.#store.compact(),
    });
    const faults = this.faults;
    const env: ChannelEnv = {
      clock: this.#clock,
      rng: new Rng(o.seed ^ 0x5eed),
      get stalled(): boolean {
        return faults.stalled;
      },
      get chunking(): Chunking | undefined {
        return faults.chunking;
      },
      get listChunking(): Chunking | undefined {
        return faults.listChunking;
      },
    };
    const watchList = o.watchList;
    const ctx: HandlerContext = {
      store: this.#store,
      env,
      bookmarkIntervalMs: o.bookmarkIntervalMs,
      maxWatchBufferBytes: o.maxWatchBufferBytes,
      get watchListEnabled(): boolean {
        return watchList && !faults.watchListDisabled;
      },
      get omitInitialEventsEnd(): boolean {
        return faults.omittingInitialEventsEnd;
      },
      watchCache: o.watchCache,
      // A request routed just before its resource stopped being served finds it gone.
      view: (info) => api.view(info.id) ?? fail(pathNotFound()),
      takeWatchFaults: (state) => faults.takeWatchFaults(state.info.id),
      takeCloseAfterInitialEventsEnd: (state) =>
        faults.takeCloseAfterInitialEventsEnd(state.info.id),
      takeEventFault: (state, type) => faults.takeEventFault(state.info.id, type),
      track: (c) => this.#channels.add(c),
      untrack: (c) => this.#channels.delete(c),
      addWatch: (w) => this.#watches.add(w),
      removeWatch: (w) => this.#watches.delete(w),
    };
    const http: HttpEnv = {
      ctx,
      writes: {
        store: this.#store,
        limits: { maxRequestBodyBytes: o.maxRequestBodyBytes, maxJsonDepth: o.maxJsonDepth },
        now: () => this.#clock.now(),
      },
      get resources(): readonly ResourceInfo[] {
        return api.resources;
      },
      get discovery(): DiscoveryModel {
        return api.discovery;
      },
      get openapi(): OpenApiDocuments {
        return api.openapi;
      },
      authorization: o.authorization,
      faults,
      requestLog: this.#requestLog,
      cors,
      token: o.token,
      isClosed: () => this.#closed,
    };
    const gzip = { watchListCompression: o.watchListCompression };
    this.fetch = (request: Request): Promise<Response> =>
      gzipIfAsked(request, handleRequest(http, request), gzip);
    this.webSocket = (url, init) => new InProcessWebSocket(url, init, this.fetch);
  }

  /** The current (global) resourceVersion, as a decimal string. */
  get resourceVersion(): string {
    return String(this.#store.rv);
  }

  /**
   * The requests received so far, oldest first (a copy): the last `requestLogLimit` of them
   * (10,000 by default).
   */
  get requests(): RecordedRequest[] {
    return this.#requestLog.entries();
  }

  /** Forgets the recorded requests. */
  clearRequests(): void {
    this.#requestLog.clear();
  }

  /** Number of objects stored, of every resource. */
  get objectCount(): number {
    let count = 0;
    for (const state of this.#store.states) count += state.objects.size;
    return count;
  }

  /** Number of watches currently open. */
  get openWatches(): number {
    return this.#watches.size;
  }

  /** Whether {@linkcode SimulatedCluster.close} was called. */
  get closed(): boolean {
    return this.#closed;
  }

  /**
   * Ends every watch (cleanly, after what is queued), stops every churn and clears every
   * timer. Later requests get 503. Idempotent.
   */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#controllers.close();
    this.#crds.close();
    for (const churn of [...this.#churns]) churn.stop();
    for (const w of [...this.#watches]) w.shutdown();
    for (const c of [...this.#channels]) c.shutdown();
    this.faults.reset(); // waiting (stalled) requests are released and answered 503
  }

  /** Same as {@linkcode SimulatedCluster.close}. */
  [Symbol.dispose](): void {
    this.close();
  }

  /** The served view of `resource` (its storage state, and conversions for a view). */
  #served(resource: AnyResourceDescriptor): ServedView {
    if (typeof resource !== "object" || resource === null) {
      throw new TypeError(`resource must be a ResourceDescriptor, got ${String(resource)}`);
    }
    const view = this.#api.view(resourceId(resource));
    if (!view) {
      throw new TypeError(
        `the simulated cluster does not serve ${resourceId(resource)}; it serves ${
          this.#api.resources.map((r) => r.id).join(", ")
        }`,
      );
    }
    return view;
  }

  /** The state that stores `resource`'s objects. */
  #state(resource: AnyResourceDescriptor): ResourceState {
    return this.#served(resource).state;
  }

  /** `object` (in `view`'s form) as stored, checked as a write through `view` would be. */
  #stored(view: ServedView, object: unknown, create: boolean): unknown {
    const convert = view.info.view;
    if (convert === undefined || !isRecord(object)) return object;
    const name = isRecord(object.metadata) ? String(object.metadata.name ?? "") : "";
    convert.check?.(object, name, create);
    return convert.stored(object);
  }

  /** A write of the control API: `object` (in `view`'s form) created or updated, as served. */
  #write(view: ServedView, object: unknown, verb: "create" | "update"): unknown {
    const stored = this.#stored(view, object, verb === "create");
    const options = { writer: "control" } as const;
    return view.toObject(
      verb === "create"
        ? this.#store.create(view.state, stored, options)
        : this.#store.update(view.state, stored, options),
    );
  }

  #checkOpen(): void {
    if (this.#closed) throw new TypeError("the simulated cluster is closed");
  }

  // ---------------------------------------------------------------- control API

  /**
   * Creates an object as if by a POST (uid, resourceVersion, creationTimestamp and generation
   * are assigned; `generateName` works; `status` given here is kept). Namespaced objects
   * without a namespace go to `default`.
   *
   * @throws {KubeApiError} 409 AlreadyExists, 422 Invalid, 400 BadRequest (an object that
   * could not be served as JSON: nested deeper than `maxJsonDepth`, cyclic, or holding a BigInt).
   */
  create<T extends KubeObjectLike = KubeObject>(
    resource: ResourceDescriptor<T>,
    object: NoInfer<T>,
  ): NoInfer<T> {
    this.#checkOpen();
    return this.#write(this.#served(resource), object, "create") as T;
  }

  /**
   * Replaces an object as if by a PUT (including its status). A `metadata.resourceVersion`
   * must be the current one.
   *
   * @throws {KubeApiError} 404 NotFound, 409 Conflict, 422 Invalid, 400 BadRequest (as for
   * `create`).
   */
  update<T extends KubeObjectLike = KubeObject>(
    resource: ResourceDescriptor<T>,
    object: NoInfer<T>,
  ): NoInfer<T> {
    this.#checkOpen();
    return this.#write(this.#served(resource), object, "update") as T;
  }

  /**
   * Applies a JSON merge patch (RFC 7386) to an object.
   *
   * @throws {KubeApiError} 404 NotFound, 409 Conflict (a stale resourceVersion in the patch),
   * 400 BadRequest (a patch or result nested deeper than `maxJsonDepth`).
   */
  patch<T extends KubeObjectLike = KubeObject>(
    resource: ResourceDescriptor<T>,
    ref: ObjectRef,
    patch: Record<string, unknown>,
  ): NoInfer<T> {
    this.#checkOpen();
    const view = this.#served(resource);
    checkRef(ref);
    const current = findObject(view.state, ref.namespace, ref.name);
    if (!isRecord(patch)) throw new TypeError("patch must be an object (a JSON merge patch)");
    this.#store.assertServable(patch, "the patch");
    const next = mergePatch(view.toObject(current), patch);
    return this.#write(view, next, "update") as T;
  }

  /**
   * Deletes an object as a DELETE would and returns its last state. An object with finalizers
   * only gets a `deletionTimestamp`; it goes once an update empties `metadata.finalizers`. The
   * garbage collector then handles its dependents as `options.propagationPolicy` says, and a
   * deleted namespace is emptied and removed by the namespace controller: both run in the
   * cluster's turn 10 ms later (their reaction time; on a `ManualClock`, when the test advances
   * it that far: `await clock.advance(10)`).
   *
   * @throws {KubeApiError} 404 NotFound; 403 Forbidden for `default`, `kube-system`, `kube-public`.
   *
   * @example
   * ```ts
   * import { configmaps, deployments } from "@kinformer/kinformer/client";
   * import { ManualClock } from "@kinformer/kinformer/testing";
   * import { SimulatedCluster } from "@kinformer/simulator";
   * import assert from "node:assert/strict";
   * const clock = new ManualClock();
   * const cluster = new SimulatedCluster({ clock });
   * const web = cluster.create(deployments, { metadata: { name: "web", namespace: "default" } });
   * cluster.create(configmaps, {
   *   metadata: {
   *     name: "web-config",
   *     namespace: "default",
   *     ownerReferences: [{ apiVersion: "apps/v1", kind: "Deployment", name: "web", uid: web.metadata.uid!, blockOwnerDeletion: true }],
   *   },
   * });
   * const owner = cluster.delete(deployments, { namespace: "default", name: "web" }, {
   *   propagationPolicy: "Foreground",
   * });
   * assert.deepEqual(owner.metadata.finalizers, ["foregroundDeletion"]); // waits for its dependents
   * await clock.advance(10); // the garbage collector's turn
   * assert.deepEqual(cluster.list(configmaps), []);
   * assert.deepEqual(cluster.list(deployments), []);
   * cluster.close();
   * ```
   */
  delete<T extends KubeObjectLike = KubeObject>(
    resource: ResourceDescriptor<T>,
    ref: ObjectRef,
    options?: ClusterDeleteOptions,
  ): T {
    this.#checkOpen();
    const view = this.#served(resource);
    checkRef(ref);
    const policy = options?.propagationPolicy;
    if (
      policy !== undefined && policy !== "Background" && policy !== "Foreground" &&
      policy !== "Orphan"
    ) {
      throw new TypeError(
        `options.propagationPolicy must be "Background", "Foreground" or "Orphan", got ${
          describeValue(policy)
        }`,
      );
    }
    return view.toObject(
      this.#store.delete(view.state, ref.namespace, ref.name, { propagationPolicy: policy })
        .version,
    ) as unknown as T;
  }

  /** One object (a copy), or undefined. */
  get<T extends KubeObjectLike = KubeObject>(
    resource: ResourceDescriptor<T>,
    ref: ObjectRef,
  ): T | undefined {
    const view = this.#served(resource);
    checkRef(ref);
    const ns = view.state.info.desc.namespaced ? ref.namespace || "default" : undefined;
    const v = view.state.objects.get(keyOf(ns, ref.name));
    return v === undefined ? undefined : view.toObject(v) as unknown as T;
  }

  /** Current objects (copies, with kind and apiVersion), sorted by namespace/name. */
  list<T extends KubeObjectLike = KubeObject>(
    resource: ResourceDescriptor<T>,
    options?: ClusterListOptions,
  ): T[] {
    const view = this.#served(resource);
    const label = parseLabelSelector(options?.labelSelector ?? "");
    const field = parseFieldSelector(options?.fieldSelector ?? "");
    const ns = options?.namespace;
    const out: T[] = [];
    for (const v of view.state.snapshotAt(this.#store.rv)!) {
      if (ns && v.item.metadata.namespace !== ns) continue;
      if (!label.matches(v.item.metadata.labels) || !field.matches(view.item(v))) continue;
      out.push(view.toObject(v) as unknown as T);
    }
    return out;
  }

  /**
   * Bulk-creates `count` objects fast (for benchmarks): `factory(i)` builds object `i`; by
   * default realistic fixtures (`podFixture` for pods: 2-4 KB each, spread over namespaces
   * `ns-0`..`ns-9`). Objects are taken as they are, not copied.
   */
  seed(resource: AnyResourceDescriptor, count: number, factory?: SeedFactory): void {
    this.#checkOpen();
    const state = this.#state(resource);
    requireNumber(count, "count", { min: 0, integer: true });
    const make = factory ?? fixtureFor(state.info.desc.kind);
    const start = state.objects.size;
    for (let i = 0; i < count; i++) {
      this.#store.create(state, make(start + i), {
        writer: "control",
        adopt: true,
        provisionNamespace: true,
      });
    }
  }

  /** Creates the namespaces a churn fills (the Churner has checked its options). */
  #provision(options: ChurnOptions): void {
    if (!this.#state(options.resource).info.desc.namespaced) return;
    for (const ns of options.namespaces ?? ["default"]) this.#store.provisionNamespace(ns);
  }

  /** Runs `steps` random mutations now (seeded, deterministic) and returns what ran. */
  churn(steps: number, options: ChurnOptions): ChurnStats {
    this.#checkOpen();
    requireNumber(steps, "steps", { min: 0, integer: true });
    const churner = new Churner(this.#store, this.#state(options.resource), this.#rng, options);
    this.#provision(options);
    for (let i = 0; i < steps; i++) churner.step();
    return { ...churner.stats };
  }

  /**
   * Starts random mutations at `ratePerSecond` on the cluster's clock, until `stop()`, the
   * signal, or `close()`.
   */
  startChurn(options: StartChurnOptions): ChurnHandle {
    this.#checkOpen();
    const rate = requireNumber(options.ratePerSecond, "options.ratePerSecond", {
      min: 0,
      minExclusive: true,
    });
    const churner = new Churner(this.#store, this.#state(options.resource), this.#rng, options);
    this.#provision(options);
    const handle = startChurn(churner, this.#clock, rate, options.signal, (h) => {
      this.#churns.delete(h);
    });
    if (handle.running) this.#churns.add(handle);
    return handle;
  }
}

function checkRef(ref: ObjectRef): void {
  if (!isRecord(ref)) {
    throw new TypeError(
      `ref must be { namespace?: string, name: string }, got ${describeValue(ref)}`,
    );
  }
  requireNonEmptyString(ref.name, "ref.name");
}
