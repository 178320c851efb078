/**
 * A simulated Kubernetes API server: a `fetch(Request) => Response` handler with real list,
 * watch, write and discovery semantics, an in-process control API, fault injection and a churn
 * driver. Serve it over HTTP with one of the runtime adapters (`serve_deno.ts`,
 * `serve_bun.ts`, `serve_node.ts`) or pass `cluster.fetch` to a client directly.
 * @module
 */
import { KubeApiError } from "../client/errors.ts";
import { parseFieldSelector } from "../client/field_selector.ts";
import { parseLabelSelector } from "../client/label_selector.ts";
import type { ResourceDescriptor } from "../client/resource.ts";
import type { KubeObject, Status } from "../client/types.ts";
import { type Clock, systemClock } from "../util/clock.ts";
import { BodyChannel, type ChannelEnv, type Chunking } from "./_channel.ts";
import type { HandlerContext } from "./_context.ts";
import { discovery } from "./_discovery.ts";
import { handleList } from "./_list.ts";
import { jsonPatch, mergePatch } from "./_patch.ts";
import { isRecord } from "../util/values.ts";
import { resourceId, type ResourceInfo, SERVED_RESOURCES } from "./_resources.ts";
import { Rng } from "./_rng.ts";
import { route } from "./_router.ts";
import {
  badRequest,
  COMMON_HEADERS,
  internalError,
  jsonResponse,
  methodNotAllowed,
  objectNotFound,
  pathNotFound,
  serviceUnavailable,
  statusResponse,
  tooManyRequests,
  unauthorized,
  unsupportedMediaType,
} from "./_status.ts";
import { objectKey, type ResourceState, Store, type Version } from "./_store.ts";
import { handleWatch } from "./_watch.ts";
import {
  _Churner,
  _startChurn,
  type ChurnHandle,
  type ChurnOptions,
  type ChurnStats,
  type StartChurnOptions,
} from "./churn.ts";
import { ClusterFaults, type RequestVerb } from "./faults.ts";
import { _fixtureFor } from "./fixtures.ts";
import { _clientCertUser } from "./_serve_tls.ts";

/** Constructor options of {@linkcode SimulatedCluster}. */
export interface SimulatedClusterOptions {
  /**
   * Time source for timestamps, bookmarks, `timeoutSeconds`, chunk delays and churn. Pass a
   * `ManualClock` in tests.
   * @default systemClock
   */
  clock?: Clock;
  /**
   * Seed of every random choice (uids, generated names, chunk sizes, churn).
   * @default 1
   */
  seed?: number;
  /**
   * When set, requests without `Authorization: Bearer <token>` get a 401 Status, unless a
   * client certificate authenticated them (served over HTTPS with `tls.clientCa`).
   * @default undefined (no authentication)
   */
  token?: string;
  /**
   * Events kept per resource for watch resumption and for serving older snapshots (exact
   * lists, continue tokens). Older resourceVersions answer 410.
   * @default 10000
   */
  historyLimit?: number;
  /**
   * Interval of BOOKMARK events on watches with `allowWatchBookmarks=true`.
   * @default 60000
   */
  bookmarkIntervalMs?: number;
  /**
   * Whether streaming lists (`sendInitialEvents=true`) are enabled; when off they get 422.
   * @default true
   */
  watchList?: boolean;
  /**
   * Logs every request: `true` prints one line with `console.log`, a function receives it.
   * @default false
   */
  logRequests?: boolean | ((request: RecordedRequest) => void);
  /**
   * Bytes a watch may have queued (unread by its client) before the server closes it as too
   * slow, like the real API server does; the client then re-watches from its last RV. Large
   * by default so synchronous bursts (`churn(100_000)`) reach a reader that has not read yet.
   * @default 1073741824 (1 GiB)
   */
  maxWatchBufferBytes?: number;
}

/** One request as the simulated cluster saw it. */
export interface RecordedRequest {
  /** HTTP method. */
  method: string;
  /** URL path. */
  path: string;
  /** Query parameters (last value wins). */
  query: Record<string, string>;
  /** What was asked. */
  verb: RequestVerb;
  /** Plural resource name, for resource requests. */
  resource?: string;
  /** Namespace from the path. */
  namespace?: string;
  /** Object name from the path. */
  name?: string;
  /** User a verified client certificate authenticated the request as (its CN), over HTTPS. */
  user?: string;
}

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

/** Builds objects for {@linkcode SimulatedCluster.seed}. */
export type SeedFactory = (index: number) => KubeObject;

function positiveInteger(option: string, value: unknown): number {
  if (typeof value !== "number" || !Number.isInteger(value) || value < 1) {
    throw new RangeError(`${option} must be a positive integer, got ${String(value)}`);
  }
  return value;
}

/**
 * A simulated Kubernetes API server. `cluster.fetch` answers list, watch, get, create,
 * update, patch and delete requests for pods, configmaps, namespaces and widgets (a custom
 * resource), plus discovery, with the real server's wire format, resourceVersion semantics,
 * paging, bookmarks, streaming lists and Status errors. The control API changes state
 * directly; `faults` injects failures; `churn`/`startChurn` generate load.
 *
 * @example
 * ```ts
 * import { KubeClient, pods } from "@kinformer/kinformer/client";
 * import { ManualClock, SimulatedCluster } from "@kinformer/kinformer/testing";
 *
 * const clock = new ManualClock();
 * const cluster = new SimulatedCluster({ clock, token: "t0k3n" });
 * cluster.create(pods, { metadata: { name: "web-1", namespace: "default", labels: { app: "web" } } });
 *
 * const client = new KubeClient({ server: "http://sim", token: "t0k3n", fetch: cluster.fetch });
 * const list = await client.list(pods, { labelSelector: "app=web" });
 * console.log(list.items.map((p) => p.metadata.name), list.metadata.resourceVersion); // ["web-1"] "2"
 *
 * const watch = await client.watch(pods, { resourceVersion: list.metadata.resourceVersion });
 * cluster.delete(pods, { namespace: "default", name: "web-1" });
 * const reader = watch.body!.pipeThrough(new TextDecoderStream()).getReader();
 * console.log((await reader.read()).value); // {"type":"DELETED","object":{"kind":"Pod",...}}
 * await reader.cancel();
 * cluster.close();
 * ```
 */
export class SimulatedCluster implements Disposable {
  /** The request handler; bound, so it can be passed around (`new KubeClient({ fetch })`). */
  readonly fetch: (request: Request) => Promise<Response>;
  /** Fault injection switches. */
  readonly faults: ClusterFaults;
  readonly #clock: Clock;
  readonly #rng: Rng;
  readonly #store: Store;
  readonly #token: string | undefined;
  readonly #bookmarkIntervalMs: number;
  readonly #watchList: boolean;
  readonly #log: ((request: RecordedRequest) => void) | undefined;
  readonly #maxWatchBuffer: number;
  readonly #resources: readonly ResourceInfo[] = SERVED_RESOURCES;
  readonly #requests: RecordedRequest[] = [];
  readonly #channels = new Set<BodyChannel>();
  readonly #watches = new Set<{ drop(): void; close(): void; shutdown?(): void }>();
  readonly #churns = new Set<ChurnHandle>();
  readonly #ctx: HandlerContext;
  #closed = false;

  /** Creates an empty cluster (no I/O, no timers). */
  constructor(options?: SimulatedClusterOptions) {
    const o = options ?? {};
    if (typeof o !== "object") throw new TypeError("options must be an object");
    this.#clock = o.clock ?? systemClock;
    const seed = o.seed ?? 1;
    if (typeof seed !== "number" || !Number.isFinite(seed)) {
      throw new RangeError(`options.seed must be a finite number, got ${String(seed)}`);
    }
    if (o.token !== undefined && (typeof o.token !== "string" || o.token === "")) {
      throw new TypeError(`options.token must be a non-empty string, got ${String(o.token)}`);
    }
    this.#token = o.token;
    const historyLimit = positiveInteger("options.historyLimit", o.historyLimit ?? 10_000);
    this.#bookmarkIntervalMs = positiveInteger(
      "options.bookmarkIntervalMs",
      o.bookmarkIntervalMs ?? 60_000,
    );
    this.#maxWatchBuffer = positiveInteger(
      "options.maxWatchBufferBytes",
      o.maxWatchBufferBytes ?? 1024 * 1024 * 1024,
    );
    if (o.watchList !== undefined && typeof o.watchList !== "boolean") {
      throw new TypeError(`options.watchList must be a boolean, got ${String(o.watchList)}`);
    }
    this.#watchList = o.watchList ?? true;
    const log = o.logRequests;
    if (log !== undefined && typeof log !== "boolean" && typeof log !== "function") {
      throw new TypeError("options.logRequests must be a boolean or a function");
    }
    this.#log = log === true
      ? (r) => console.log(`[sim] ${r.method} ${r.path}${queryText(r.query)} (${r.verb})`)
      : log === false
      ? undefined
      : log;
    this.#rng = new Rng(seed);
    this.#store = new Store(this.#clock, this.#rng, historyLimit, this.#resources);
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
    const clock = this.#clock;
    const chunkRng = new Rng(seed ^ 0x5eed);
    const env: ChannelEnv = {
      clock,
      rng: chunkRng,
      get stalled(): boolean {
        return faults.stalled;
      },
      get chunking(): Chunking | undefined {
        return faults.chunking;
      },
    };
    const watchList = this.#watchList;
    this.#ctx = {
      store: this.#store,
      env,
      bookmarkIntervalMs: this.#bookmarkIntervalMs,
      maxWatchBufferBytes: this.#maxWatchBuffer,
      get watchListEnabled(): boolean {
        return watchList && !faults.watchListDisabled;
      },
      get omitInitialEventsEnd(): boolean {
        return faults.omittingInitialEventsEnd;
      },
      takeDropAfter: (state) => faults.takeDropAfter(state.info.id),
      track: (c) => this.#channels.add(c),
      untrack: (c) => this.#channels.delete(c),
      addWatch: (w) => this.#watches.add(w),
      removeWatch: (w) => this.#watches.delete(w),
    };
    this.fetch = (request: Request): Promise<Response> => this.#handle(request);
  }

  /** The current (global) resourceVersion, as a decimal string. */
  get resourceVersion(): string {
    return String(this.#store.rv);
  }

  /** Every request received so far, oldest first (a copy). */
  get requests(): RecordedRequest[] {
    return [...this.#requests];
  }

  /** Forgets the recorded requests. */
  clearRequests(): void {
    this.#requests.length = 0;
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
    for (const churn of [...this.#churns]) churn.stop();
    for (const w of [...this.#watches]) {
      if (w.shutdown) w.shutdown();
      else w.close();
    }
    for (const c of [...this.#channels]) c.shutdown();
    this.faults._releaseAll();
  }

  /** Same as {@linkcode SimulatedCluster.close}. */
  [Symbol.dispose](): void {
    this.close();
  }

  #state(resource: ResourceDescriptor): ResourceState {
    if (typeof resource !== "object" || resource === null) {
      throw new TypeError(`resource must be a ResourceDescriptor, got ${String(resource)}`);
    }
    const state = this.#store.state(resourceId(resource));
    if (!state) {
      throw new TypeError(
        `the simulated cluster does not serve ${resourceId(resource)}; it serves ${
          this.#resources.map((r) => r.id).join(", ")
        }`,
      );
    }
    return state;
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
   * @throws {KubeApiError} 409 AlreadyExists, 422 Invalid.
   */
  create(resource: ResourceDescriptor, object: KubeObject): KubeObject {
    this.#checkOpen();
    return this.#store.create(this.#state(resource), object, { writer: "control" }).toObject();
  }

  /**
   * Replaces an object as if by a PUT (including its status). A `metadata.resourceVersion`
   * must be the current one.
   *
   * @throws {KubeApiError} 404 NotFound, 409 Conflict, 422 Invalid.
   */
  update(resource: ResourceDescriptor, object: KubeObject): KubeObject {
    this.#checkOpen();
    return this.#store.update(this.#state(resource), object, { writer: "control" }).toObject();
  }

  /**
   * Applies a JSON merge patch (RFC 7386) to an object.
   *
   * @throws {KubeApiError} 404 NotFound, 409 Conflict (a stale resourceVersion in the patch).
   */
  patch(resource: ResourceDescriptor, ref: ObjectRef, patch: Record<string, unknown>): KubeObject {
    this.#checkOpen();
    const state = this.#state(resource);
    const current = this.#find(state, ref);
    if (!isRecord(patch)) throw new TypeError("patch must be an object (a JSON merge patch)");
    const next = mergePatch(current.toObject(), patch) as KubeObject;
    return this.#store.update(state, next, { writer: "control" }).toObject();
  }

  /**
   * Deletes an object and returns its last state. An object with finalizers only gets a
   * `deletionTimestamp`; it goes once an update empties `metadata.finalizers`.
   *
   * @throws {KubeApiError} 404 NotFound.
   */
  delete(resource: ResourceDescriptor, ref: ObjectRef): KubeObject {
    this.#checkOpen();
    const state = this.#state(resource);
    checkRef(ref);
    return this.#store.delete(state, ref.namespace, ref.name).version.toObject();
  }

  /** One object (a copy), or undefined. */
  get(resource: ResourceDescriptor, ref: ObjectRef): KubeObject | undefined {
    const state = this.#state(resource);
    checkRef(ref);
    const ns = state.info.desc.namespaced ? ref.namespace || "default" : undefined;
    return state.objects.get(objectKey(ns, ref.name))?.toObject();
  }

  /** Current objects (copies, with kind and apiVersion), sorted by namespace/name. */
  list(resource: ResourceDescriptor, options?: ClusterListOptions): KubeObject[] {
    const state = this.#state(resource);
    const label = parseLabelSelector(options?.labelSelector ?? "");
    const field = parseFieldSelector(options?.fieldSelector ?? "");
    const ns = options?.namespace;
    const out: KubeObject[] = [];
    for (const v of state.snapshotAt(this.#store.rv)!) {
      if (ns && v.item.metadata.namespace !== ns) continue;
      if (!label.matches(v.item.metadata.labels) || !field.matches(v.item)) continue;
      out.push(v.toObject());
    }
    return out;
  }

  /**
   * Bulk-creates `count` objects fast (for benchmarks): `factory(i)` builds object `i`; by
   * default realistic fixtures (`podFixture` for pods: 2-4 KB each, spread over namespaces
   * `ns-0`..`ns-9`). Objects are taken as they are, not copied.
   */
  seed(resource: ResourceDescriptor, count: number, factory?: SeedFactory): void {
    this.#checkOpen();
    const state = this.#state(resource);
    if (!Number.isInteger(count) || count < 0) {
      throw new RangeError(`count must be a non-negative integer, got ${String(count)}`);
    }
    const make = factory ?? _fixtureFor(state.info.desc.kind);
    const start = state.objects.size;
    for (let i = 0; i < count; i++) {
      this.#store.create(state, make(start + i), { writer: "control", adopt: true });
    }
  }

  /** Runs `steps` random mutations now (seeded, deterministic) and returns what ran. */
  churn(steps: number, options: ChurnOptions): ChurnStats {
    this.#checkOpen();
    if (!Number.isInteger(steps) || steps < 0) {
      throw new RangeError(`steps must be a non-negative integer, got ${String(steps)}`);
    }
    const churner = new _Churner(this.#store, this.#state(options.resource), this.#rng, options);
    for (let i = 0; i < steps; i++) churner.step();
    return { ...churner.stats };
  }

  /**
   * Starts random mutations at `ratePerSecond` on the cluster's clock, until `stop()`, the
   * signal, or `close()`.
   */
  startChurn(options: StartChurnOptions): ChurnHandle {
    this.#checkOpen();
    const rate = options.ratePerSecond;
    if (typeof rate !== "number" || !(rate > 0) || !Number.isFinite(rate)) {
      throw new RangeError(`options.ratePerSecond must be a positive number, got ${String(rate)}`);
    }
    const churner = new _Churner(this.#store, this.#state(options.resource), this.#rng, options);
    const handle = _startChurn(churner, this.#clock, rate, options.signal, (h) => {
      this.#churns.delete(h);
    });
    if (handle.running) this.#churns.add(handle);
    return handle;
  }

  #find(state: ResourceState, ref: ObjectRef): Version {
    checkRef(ref);
    const ns = state.info.desc.namespaced ? ref.namespace || "default" : undefined;
    const v = state.objects.get(objectKey(ns, ref.name));
    if (!v) {
      throw KubeApiError.fromStatus(
        objectNotFound(state.info.desc.resource, state.info.desc.group, ref.name),
      );
    }
    return v;
  }

  // ---------------------------------------------------------------- HTTP

  async #handle(request: Request): Promise<Response> {
    if (request.signal?.aborted) throw request.signal.reason;
    if (this.#closed) {
      return statusResponse(serviceUnavailable("apiserver is shutting down"), {
        "Retry-After": "1",
      });
    }
    const url = new URL(request.url);
    const method = request.method.toUpperCase();
    if (method === "OPTIONS") return preflight(request);
    const r = route(method, url.pathname, url.searchParams, this.#resources);
    const verb: RequestVerb = r.kind === "discovery" ? "discovery" : r.verb;
    const record: RecordedRequest = {
      method,
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      verb,
    };
    if (r.kind === "resource") {
      record.resource = r.info.desc.resource;
      if (r.namespace !== undefined) record.namespace = r.namespace;
      if (r.name !== undefined) record.name = r.name;
    }
    const certUser = _clientCertUser(request);
    if (certUser !== undefined) record.user = certUser;
    this.#requests.push(record);
    this.#log?.(record);

    if (this.#token !== undefined && certUser === undefined) {
      const auth = request.headers.get("authorization");
      if (auth !== `Bearer ${this.#token}`) return statusResponse(unauthorized());
    }
    const failure = this.faults.takeFailure(verb);
    if (failure) {
      const retry = { "Retry-After": String(failure.retryAfterSeconds) };
      if (failure.status === 429) return tooManyRequests(failure.retryAfterSeconds);
      if (failure.status === 503) {
        return statusResponse(
          serviceUnavailable("the server is currently unable to handle the request"),
          retry,
        );
      }
      return statusResponse(internalError("simulated failure"));
    }
    if (this.faults.stalled) {
      await this.faults.whenResumed(request.signal);
      if (this.#closed) {
        return statusResponse(serviceUnavailable("apiserver is shutting down"), {
          "Retry-After": "1",
        });
      }
    }
    try {
      switch (r.kind) {
        case "discovery":
          return discovery(url.pathname, this.#resources, url.host) ??
            statusResponse(pathNotFound());
        case "notFound":
          return statusResponse(pathNotFound());
        case "methodNotAllowed":
          return statusResponse(methodNotAllowed());
        case "resource":
          return await this.#resource(request, url, r);
      }
    } catch (error) {
      if (error instanceof KubeApiError && error.status) return statusResponse(error.status);
      return statusResponse(internalError(error instanceof Error ? error.message : String(error)));
    }
  }

  async #resource(
    request: Request,
    url: URL,
    r: Extract<ReturnType<typeof route>, { kind: "resource" }>,
  ): Promise<Response> {
    const state = this.#store.state(r.info.id)!;
    const info = state.info;
    const query = url.searchParams;
    switch (r.verb) {
      case "list":
        return handleList(this.#ctx, { state, namespace: r.namespace, query });
      case "watch": {
        let q = query;
        if (r.name !== undefined) {
          q = new URLSearchParams(query);
          const fs = q.get("fieldSelector");
          q.set("fieldSelector", `${fs ? fs + "," : ""}metadata.name=${r.name}`);
        }
        return handleWatch(this.#ctx, {
          state,
          namespace: r.namespace,
          query: q,
          signal: request.signal ?? undefined,
        });
      }
      case "get": {
        const v = this.#find(state, {
          name: r.name!,
          ...(r.namespace ? { namespace: r.namespace } : {}),
        });
        return jsonResponse(v.json, 200);
      }
      case "create": {
        const body = await readBody(request);
        const v = this.#store.create(state, body, {
          namespace: r.namespace,
          writer: "http",
          adopt: true,
        });
        return jsonResponse(v.json, 201);
      }
      case "update": {
        const body = await readBody(request);
        const v = this.#store.update(state, body, {
          namespace: r.namespace,
          name: r.name,
          writer: "http",
          subresource: r.subresource,
        });
        return jsonResponse(v.json, 200);
      }
      case "patch": {
        const contentType = (request.headers.get("content-type") ?? "").split(";")[0]!.trim();
        const body = await readBody(request);
        const current = this.#find(state, {
          name: r.name!,
          ...(r.namespace ? { namespace: r.namespace } : {}),
        });
        let next: unknown;
        if (
          contentType === "application/merge-patch+json" ||
          contentType === "application/strategic-merge-patch+json"
        ) {
          if (!isRecord(body)) {
            throw KubeApiError.fromStatus(badRequest("a merge patch must be a JSON object"));
          }
          next = mergePatch(current.toObject(), body);
        } else if (contentType === "application/json-patch+json") {
          next = jsonPatch(current.toObject(), body);
        } else {
          throw KubeApiError.fromStatus(unsupportedMediaType(contentType));
        }
        const v = this.#store.update(state, next, {
          namespace: r.namespace,
          name: r.name,
          writer: "http",
          subresource: r.subresource,
        });
        return jsonResponse(v.json, 200);
      }
      case "delete": {
        const text = await request.text();
        let preconditions: { uid?: string; resourceVersion?: string } | undefined;
        if (text.trim() !== "") {
          let parsed: unknown;
          try {
            parsed = JSON.parse(text);
          } catch {
            throw KubeApiError.fromStatus(badRequest("the body of the request is not valid JSON"));
          }
          if (isRecord(parsed) && isRecord(parsed.preconditions)) {
            preconditions = parsed.preconditions as typeof preconditions;
          }
        }
        const { version, removed } = this.#store.delete(state, r.namespace, r.name!, preconditions);
        if (removed && !info.deleteReturnsObject) {
          const details: Record<string, unknown> = { name: r.name };
          if (info.desc.group) details.group = info.desc.group;
          details.kind = info.desc.resource;
          details.uid = version.item.metadata.uid;
          const s: Status = {
            kind: "Status",
            apiVersion: "v1",
            metadata: {},
            status: "Success",
            details: details as Status["details"] & object,
          };
          return jsonResponse(JSON.stringify(s), 200);
        }
        return jsonResponse(version.json, 200);
      }
    }
  }
}

function checkRef(ref: ObjectRef): void {
  if (!isRecord(ref) || typeof ref.name !== "string" || ref.name === "") {
    throw new TypeError("ref must be { namespace?: string, name: string } with a non-empty name");
  }
}

async function readBody(request: Request): Promise<unknown> {
  const text = await request.text();
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw KubeApiError.fromStatus(badRequest("the body of the request is not valid JSON"));
  }
}

function preflight(request: Request): Response {
  const asked = request.headers.get("access-control-request-headers");
  return new Response(null, {
    status: 204,
    headers: {
      ...COMMON_HEADERS,
      "Access-Control-Allow-Methods": "GET, POST, PUT, PATCH, DELETE, OPTIONS",
      "Access-Control-Allow-Headers": asked ?? "Authorization, Content-Type, Accept",
      "Access-Control-Max-Age": "600",
    },
  });
}

function queryText(query: Record<string, string>): string {
  const q = new URLSearchParams(query).toString();
  return q ? `?${q}` : "";
}
