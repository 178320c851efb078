/**
 * A fleet: one resource watched in many clusters, engaged and disengaged while it runs, with
 * one merged view, one event stream and a state per cluster.
 * @module
 */
import { KubeClient } from "../client/kube_client.ts";
import type { KubeObject, KubeObjectLike } from "../client/types.ts";
import type { InformerCheckpoint } from "../cache/checkpoint.ts";
import type { HandlerRegistration } from "../cache/event_handler.ts";
import type { Indexer } from "../cache/indexer.ts";
import { createInformer, type SharedInformer } from "../cache/informer.ts";
import type { InformerMetrics } from "../cache/informer_metrics.ts";
import { objectKey } from "../cache/object_key.ts";
import { onAbort } from "../util/abort.ts";
import { exponentialBackoff } from "../util/backoff.ts";
import { type Clock, systemClock, type TimerHandle } from "../util/clock.ts";
import type { ErrorPhase } from "../util/error_context.ts";
import { ErrorReporter, type ReportDetails } from "../util/error_reporter.ts";
import { Lifecycle, LifecycleError } from "../util/lifecycle.ts";
import { checkNumber } from "../util/validate.ts";
import { messageOf } from "../util/values.ts";
import { explainAbort } from "../util/wait_for.ts";
import { FleetListener } from "./_fleet_listener.ts";
import { checkClusterName } from "./cluster_key.ts";
import {
  type ClusterError,
  type ClusterFailure,
  type ClusterHealth,
  type ClusterState,
  failureOf,
  type FleetHealth,
} from "./cluster_state.ts";
import type { FleetEvent } from "./fleet_event.ts";
import { FleetLister } from "./fleet_lister.ts";
import {
  type ClusterClientInit,
  type ClusterTarget,
  type EngageOptions,
  type FleetOptions,
  type FleetSyncOptions,
  validateFleetOptions,
  validateSyncOptions,
} from "./fleet_options.ts";
import { FleetStore } from "./fleet_store.ts";

/** Where an informer's error is a failed request: the ones that can fail a cluster. */
const REQUESTS: ReadonlySet<ErrorPhase> = new Set<ErrorPhase>(["list", "stream", "watch"]);

/** An error of the user's code (a transform) on its way through the informer. */
class UserCodeError extends Error {
  override readonly name = "UserCodeError";
  /** Filed as the transform's, never as the cluster's. */
  readonly kind = "transform";
  constructor(cause: unknown) {
    super("transform threw", { cause });
  }
}

/**
 * A cluster that had not synced `syncTimeoutMs` after it was engaged (its informer goes on
 * trying; the cluster is `unreachable` until it syncs).
 */
class ClusterSyncTimeoutError extends Error {
  override readonly name = "ClusterSyncTimeoutError";
  /** Filed as a connection that went silent. */
  readonly kind = "inactivity";
  constructor(ms: number) {
    super(`not synced ${ms} ms after it was engaged`);
  }
}

/** Removed clusters `health()` remembers. */
const REMOVED_KEPT = 100;

/** Clusters a sync wait that timed out names, at most. */
const NAMED_PENDING = 5;

/** How errors and printed lines name a fleet: `"fleet pods"`, `"fleet widgets.example.com"`. */
function fleetSource(resource: { resource: string; group?: string | undefined }): string {
  return `fleet ${resource.resource}${resource.group ? `.${resource.group}` : ""}`;
}

/** One engaged cluster. */
interface Member<T extends KubeObjectLike> {
  readonly name: string;
  /** Aborted on disengage: stops the informer and a pending connector. */
  readonly controller: AbortController;
  /** The fleet's copy of its cache (the merged view's part), fed by its informer's events. */
  readonly part: Indexer<T>;
  informer: SharedInformer<T> | undefined;
  registration: HandlerRegistration | undefined;
  /** Releases the connections of a client the fleet built. */
  close: (() => void) | undefined;
  /** The informer's initial list is in the merged view. */
  synced: boolean;
  failure: ClusterFailure | undefined;
  state: ClusterState;
  reason: string;
  since: number;
  lastError: ClusterError | undefined;
  /** The last error itself: the `cause` of a sync wait that timed out. */
  lastErrorValue: unknown;
  hidden: boolean;
  /** The `deleteAfterMs` timer of the unreachable policy. */
  grace: TimerHandle | undefined;
  /** The retry timer of a connector that failed. */
  retry: TimerHandle | undefined;
  /** The `syncTimeoutMs` timer, until the cluster first syncs. */
  deadline: TimerHandle | undefined;
  unlisten: () => void;
}

/**
 * One resource watched in many clusters (multicluster-runtime's engaged clusters, kcp's
 * cluster-aware keys): `engage(name, client)` starts an informer for the cluster, and
 * `disengage(name)` (or aborting the engagement's signal) stops it, removes its handlers and
 * frees its part of the cache. Clusters come and go while the fleet runs, one at a time or from
 * a provider (`staticClusters`, `kubeconfigContexts`, `kubeconfigSecrets`).
 *
 * What it guarantees:
 * - clusters are independent: one that hangs, refuses or fails never delays another's sync,
 *   events or reads, and `waitForSync` waits only for the clusters (or the count) asked for;
 * - the merged view ({@linkcode Fleet.store}, {@linkcode Fleet.lister}) and the merged stream
 *   ({@linkcode Fleet.events}) agree: replaying the stream yields the view, and a cluster's
 *   view is its informer's cache (eventually, per object in order);
 * - each cluster has a state (connecting, syncing, synced, unreachable, forbidden, missing,
 *   removed) with a reason and its last error, in {@linkcode Fleet.health}; a failed cluster
 *   keeps retrying on its informer's backoff and rejoins the view when it recovers;
 * - a failed cluster's objects are kept and marked stale, or hidden after a grace period (the
 *   `unreachable` option);
 * - nothing of a disengaged cluster remains: no request, timer, handler or object;
 * - errors of every cluster go through one reporter: to `onError` with the one `ErrorContext`
 *   (`source` `"fleet pods"`, `cluster` its name), or printed by default, never silent and
 *   never a flood: each cluster's first error of each kind at once, then at most one line per
 *   cluster and kind per minute, and at most 5 lines a minute in all (beyond them, one line a
 *   minute counts and names the clusters not printed); a recovered cluster's line while others
 *   still fail, and one for the fleet once none fails;
 * - the fleet has the one lifecycle in `health().state` (idle, starting until every engaged
 *   cluster has synced or failed, running, stopping, stopped) and runs once.
 *
 * @example
 * ```ts
 * import { Fleet } from "@kinformer/kinformer/fleet";
 * import { KubeClient, pods } from "@kinformer/kinformer/client";
 * import { SimulatedCluster } from "@kinformer/kinformer/testing";
 * import assert from "node:assert/strict";
 * const eu = new SimulatedCluster({ autoCreateNamespaces: true });
 * const us = new SimulatedCluster({ autoCreateNamespaces: true });
 * eu.create(pods, { metadata: { namespace: "web", name: "api" } });
 * us.create(pods, { metadata: { namespace: "web", name: "api" } });
 * await using fleet = new Fleet({ resource: pods });
 * fleet.engage("eu", new KubeClient({ server: "http://eu", fetch: eu.fetch }));
 * fleet.engage("us", new KubeClient({ server: "http://us", fetch: us.fetch }));
 * await fleet.waitForSync();
 * assert.deepEqual(fleet.store.listKeys().sort(), ["eu|web/api", "us|web/api"]);
 * await fleet.disengage("us");
 * assert.deepEqual(fleet.store.listKeys(), ["eu|web/api"]);
 * assert.equal(fleet.health().clusters.find((c) => c.name === "us")?.state, "removed");
 * eu.close();
 * us.close();
 * ```
 */
export class Fleet<T extends KubeObjectLike = KubeObject> implements AsyncDisposable {
  /** The merged cache: fleet keys, indexes by cluster and by cluster and namespace. */
  readonly store: FleetStore<T>;
  /** Selector-aware reads over the merged cache, and per cluster. */
  readonly lister: FleetLister<T>;
  #options: FleetOptions<T>;
  #clock: Clock;
  #members = new Map<string, Member<T>>();
  #removed = new Map<string, ClusterHealth>();
  #listeners = new Set<FleetListener<T>>();
  /** Names the fleet in errors and printed lines: `"fleet pods"`. */
  readonly #source: string;
  /** The one reporting path of every cluster's errors: `onError`, or the default printing. */
  readonly #reporter: ErrorReporter;
  /**
   * idle (nothing engaged yet), starting (until every engaged cluster has synced or failed),
   * running, stopping, stopped; runs once.
   */
  readonly #life: Lifecycle;
  /** The stop under way (or done). */
  #stopping: Promise<void> | undefined;

  /** Creates an empty fleet; nothing runs until a cluster is engaged. */
  constructor(options: FleetOptions<T>) {
    validateFleetOptions(options);
    this.#options = options;
    this.#clock = options.clock ?? systemClock;
    this.#source = fleetSource(options.resource);
    this.#reporter = new ErrorReporter({
      source: this.#source,
      onError: options.onError,
      clock: this.#clock,
      // Per cluster: one cluster's error never hides another's; a cap keeps a fleet quiet.
      groupBy: "cluster",
    });
    this.#life = new Lifecycle(this.#source, { restartable: false });
    this.store = new FleetStore<T>(options.indexers ?? {});
    this.lister = new FleetLister<T>(this.store);
  }

  /** The names of the engaged clusters, in the order they were engaged. */
  clusters(): string[] {
    return [...this.#members.keys()];
  }

  /** The state of `cluster` (`removed` for one disengaged), or `undefined` if never engaged. */
  state(cluster: string): ClusterState | undefined {
    return this.#members.get(cluster)?.state ?? this.#removed.get(cluster)?.state;
  }

  /** The informer of `cluster`, once its client is ready (for `verify()`, its own health). */
  informer(cluster: string): SharedInformer<T> | undefined {
    return this.#members.get(cluster)?.informer;
  }

  /**
   * Engages a cluster: builds its client if `target` is a function (`connecting`), then lists
   * and watches the resource there (`syncing`, then `synced`). Engaging a name already engaged
   * replaces that cluster (its objects leave the view, the new ones come in). The first
   * engagement starts the fleet (`health().state` `starting`). Returns false, doing nothing,
   * for a name the `clusters` option refuses or an engagement whose signal has aborted. Throws
   * a `TypeError` for a name that is empty or holds `|`, and a `LifecycleError` once the fleet
   * is stopping or stopped (a fleet runs once).
   */
  engage(name: string, target: ClusterTarget, options: EngageOptions<T> = {}): boolean {
    checkClusterName(name, "name");
    if (!(target instanceof KubeClient) && typeof target !== "function") {
      throw new TypeError(`target must be a KubeClient or a function, got ${typeof target}`);
    }
    this.#refuseStopped("engage()");
    if (options.signal?.aborted) return false;
    if (this.#options.clusters !== undefined && !this.#options.clusters(name)) return false;
    this.#life.start();
    if (this.#members.has(name)) this.#drop(name, "replaced");
    this.#removed.delete(name);
    const member: Member<T> = {
      name,
      controller: new AbortController(),
      part: this.store.open(name),
      informer: undefined,
      registration: undefined,
      close: undefined,
      synced: false,
      failure: undefined,
      state: target instanceof KubeClient ? "syncing" : "connecting",
      reason: target instanceof KubeClient ? "listing" : "building the client",
      since: this.#clock.now(),
      lastError: undefined,
      lastErrorValue: undefined,
      hidden: false,
      grace: undefined,
      retry: undefined,
      deadline: undefined,
      unlisten: () => {},
    };
    this.#members.set(name, member);
    member.unlisten = onAbort(options.signal, () => void this.disengage(name));
    const limit = this.#options.syncTimeoutMs;
    if (limit !== undefined) {
      member.deadline = this.#clock.setTimeout(() => {
        member.deadline = undefined;
        if (!member.synced && member.failure === undefined) {
          this.#failed(member, new ClusterSyncTimeoutError(limit), {
            phase: "list",
            action: "going on trying; the cluster is unreachable until it syncs",
          });
        }
      }, limit);
    }
    this.#emit({ type: "state", cluster: name, state: member.state, reason: member.reason });
    if (target instanceof KubeClient) this.#start(member, target, options);
    else this.#connect(member, target, options);
    this.#wake();
    return true;
  }

  /**
   * Disengages a cluster: stops its informer, removes its handler, frees its part of the merged
   * view (a `delete` event per object, then a `state` event `removed`). Resolves once its
   * connections are released; does nothing for a name not engaged.
   */
  async disengage(name: string): Promise<void> {
    const stopped = this.#drop(name, "disengaged");
    await stopped;
  }

  /**
   * Stops every cluster and ends every event stream; resolves once every connection is
   * released. Idempotent. A fleet runs once: `engage()` and `events()` after it throw a
   * `LifecycleError`.
   */
  stop(): Promise<void> {
    if (this.#life.stop()) this.#stopping = this.#release();
    return this.#stopping ?? Promise.resolve();
  }

  async #release(): Promise<void> {
    const stops = [...this.#members.keys()].map((name) => this.#drop(name, "fleet stopped"));
    await Promise.all(stops);
    for (const listener of this.#listeners) listener.close();
    this.#listeners.clear();
    this.#reporter.close();
    this.#life.stopped();
  }

  /** Throws the `LifecycleError` of a call that needs a fleet not stopped. */
  #refuseStopped(call: string): void {
    const state = this.#life.state;
    if (state === "stopping" || state === "stopped") {
      throw new LifecycleError(
        this.#source,
        state,
        `was stopped: ${call} after stop() is refused (a fleet runs once: create a new one)`,
      );
    }
  }

  /** Same as {@linkcode Fleet.stop}, for `await using`. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.stop();
  }

  /**
   * Resolves with the names of the synced clusters once the clusters asked for are synced:
   * those named in `clusters`, at least `min` of them, or (neither given) every engaged one. One
   * cluster never holds up a wait that does not name it. With `settle`, a cluster in a failure
   * state counts as done too. Rejects when a named cluster is removed, or when the fleet stops
   * first. When `signal` aborts (`AbortSignal.timeout(30_000)`), rejects with an error that
   * says which clusters it waited for and where they stand, with the signal reason's `name`
   * (`TimeoutError`) and their last error as `cause`: `fleet pods: clusters eu (unreachable)
   * not synced after 30 s: last error TypeError: fetch failed`.
   *
   * @example
   * ```ts
   * import { Fleet } from "@kinformer/kinformer/fleet";
   * import { KubeClient, pods } from "@kinformer/kinformer/client";
   * import { SimulatedCluster } from "@kinformer/kinformer/testing";
   * import assert from "node:assert/strict";
   * const locked = new SimulatedCluster({ authorization: [] }); // every request gets 403
   * await using fleet = new Fleet({ resource: pods, onError: () => {} });
   * fleet.engage("locked", new KubeClient({ server: "http://locked", fetch: locked.fetch }));
   * await fleet.waitForSync({ settle: true }); // it has answered: forbidden
   * const ac = new AbortController();
   * ac.abort(new DOMException("timed out", "TimeoutError")); // as AbortSignal.timeout() does
   * await assert.rejects(fleet.waitForSync({ signal: ac.signal }), (error: Error) => {
   *   assert.equal(error.name, "TimeoutError");
   *   assert.match(error.message, /^fleet pods: clusters locked \(forbidden\) not synced after \d+ ms: last error .*forbidden/);
   *   assert.equal((error.cause as { code?: number }).code, 403);
   *   return true;
   * });
   * locked.close();
   * ```
   */
  waitForSync(options: FleetSyncOptions = {}): Promise<string[]> {
    validateSyncOptions(options);
    const waiting = this.#clock.now();
    let gone: string | undefined;
    const done = (m: Member<T> | undefined): boolean =>
      m !== undefined && (m.synced || (options.settle === true && m.failure !== undefined));
    const check = (): "done" | "failed" | "pending" => {
      if (this.#life.state === "stopping" || this.#life.state === "stopped") return "failed";
      if (options.clusters !== undefined) {
        for (const name of options.clusters) {
          if (this.#removed.has(name)) {
            gone = name;
            return "failed";
          }
        }
        if (options.clusters.every((name) => done(this.#members.get(name)))) return "done";
      } else if (options.min !== undefined) {
        let n = 0;
        for (const m of this.#members.values()) if (done(m)) n++;
        if (n >= options.min) return "done";
      } else if ([...this.#members.values()].every(done)) return "done";
      return "pending";
    };
    return this.#life.wait(check, {
      signal: options.signal,
      failure: () =>
        gone === undefined
          ? new Error(`${this.#source} stopped before the clusters synced`)
          : new Error(`cluster "${gone}" was removed before it synced`),
      aborted: (reason) => {
        const pending = options.clusters ?? [...this.#members.keys()];
        const waited = pending.filter((name) => !done(this.#members.get(name)));
        const members = waited.map((name) => this.#members.get(name));
        const last = members.reduce<Member<T> | undefined>(
          (a, m) => (m?.lastError?.at ?? -Infinity) > (a?.lastError?.at ?? -Infinity) ? m : a,
          undefined,
        );
        const named = waited.slice(0, NAMED_PENDING).map((name) =>
          `${name} (${this.#members.get(name)?.state ?? "not engaged"})`
        ).join(", ") +
          (waited.length > NAMED_PENDING ? ` and ${waited.length - NAMED_PENDING} more` : "");
        const synced = [...this.#members.values()].filter(done).length;
        return explainAbort(reason, {
          what: options.min === undefined || options.clusters !== undefined
            ? `${this.#source}: clusters ${named} not synced`
            : `${this.#source}: ${synced} of the ${options.min} clusters wanted synced (${named})`,
          hint: this.#members.size === 0 ? "; no cluster is engaged" : undefined,
          waitedMs: this.#clock.now() - waiting,
          lastError: last?.lastErrorValue,
        });
      },
    }).then(() => [...this.#members.values()].filter((m) => m.synced).map((m) => m.name));
  }

  /**
   * Streams the merged events: first, per cluster, its objects in view as `add`
   * (`isInInitialList: true`) and its `synced` if it has synced, then live events of every
   * cluster, each with its cluster, and `state` events. Ends when the signal aborts, the
   * iterator is returned or the fleet stops. Each call has its own buffer, so a slow consumer
   * holds up no cluster and no other consumer. The buffer grows meanwhile, up to `maxBacklog`
   * live events (default: no bound; the initial replay does not count): a consumer further behind is ended
   * with a `RangeError` at its next `next()`, and calls `events()` again to start over from
   * the current view. A fleet runs once: `events()` after `stop()` throws a `LifecycleError`.
   *
   * @example
   * ```ts
   * import { Fleet } from "@kinformer/kinformer/fleet";
   * import { configmaps, KubeClient } from "@kinformer/kinformer/client";
   * import { SimulatedCluster } from "@kinformer/kinformer/testing";
   * import assert from "node:assert/strict";
   * const a = new SimulatedCluster({ autoCreateNamespaces: true });
   * a.create(configmaps, { metadata: { namespace: "default", name: "settings" } });
   * await using fleet = new Fleet({ resource: configmaps });
   * fleet.engage("a", new KubeClient({ server: "http://a", fetch: a.fetch }));
   * const seen: string[] = [];
   * for await (const ev of fleet.events()) {
   *   if (ev.type === "add") seen.push(`${ev.cluster}: ${ev.object.metadata.name}`);
   *   if (ev.type === "synced") break;
   * }
   * assert.deepEqual(seen, ["a: settings"]);
   * a.close();
   * ```
   */
  events(
    options: { signal?: AbortSignal | undefined; maxBacklog?: number | undefined } = {},
  ): AsyncIterableIterator<FleetEvent<T>> & AsyncDisposable {
    checkNumber(options.maxBacklog, "maxBacklog", { min: 1 });
    this.#refuseStopped("events()");
    const listener = new FleetListener<T>(options.maxBacklog);
    for (const m of this.#members.values()) {
      if (m.hidden) continue;
      for (const object of m.part.values()) {
        listener.replay({ type: "add", cluster: m.name, object, isInInitialList: true });
      }
      if (m.synced) listener.replay({ type: "synced", cluster: m.name });
    }
    this.#listeners.add(listener);
    return listener.iterator(() => this.#listeners.delete(listener), options.signal);
  }

  /**
   * A checkpoint per synced cluster (see `SharedInformer.checkpoint`), to resume each one in a
   * later run: pass `informer: { resumeFrom }` to `engage`, or return it from
   * `informerOptions`. Clusters not synced are left out.
   */
  checkpoints(
    options: { includeObjects?: boolean | undefined } = {},
  ): Record<string, InformerCheckpoint<T>> {
    const out: Record<string, InformerCheckpoint<T>> = {};
    for (const m of this.#members.values()) {
      if (m.informer?.hasSynced()) out[m.name] = m.informer.checkpoint(options);
    }
    return out;
  }

  /**
   * A snapshot: the fleet's own state (`idle` until a cluster is engaged, `starting` until
   * every engaged cluster has synced or failed, `running`, `stopping`, `stopped`), and every
   * cluster's state, reason, last error and objects.
   */
  health(): FleetHealth {
    const clusters: ClusterHealth[] = [];
    const states: Partial<Record<ClusterState, number>> = {};
    let objects = 0;
    for (const m of this.#members.values()) {
      const h = this.#healthOf(m);
      clusters.push(h);
      states[m.state] = (states[m.state] ?? 0) + 1;
      objects += h.objects;
    }
    clusters.push(...this.#removed.values());
    return { state: this.#life.state, clusters, states, objects };
  }

  #healthOf(m: Member<T>): ClusterHealth {
    return {
      name: m.name,
      state: m.state,
      reason: m.reason,
      objects: m.hidden ? 0 : m.part.size,
      stale: m.failure !== undefined,
      hidden: m.hidden,
      since: m.since,
      lastError: m.lastError,
    };
  }

  /** Runs a connector until it gives a client (retrying on the backoff) or the cluster goes. */
  #connect(
    member: Member<T>,
    connector: (signal: AbortSignal) => Promise<KubeClient | ClusterClientInit>,
    options: EngageOptions<T>,
  ): void {
    const signal = member.controller.signal;
    const backoff = exponentialBackoff(this.#clock, this.#options.connectBackoff);
    const attempt = (): void => {
      member.retry = undefined;
      let pending: Promise<KubeClient | ClusterClientInit>;
      try {
        pending = connector(signal);
      } catch (error) {
        pending = Promise.reject(error);
      }
      pending.then(
        (result) => {
          if (signal.aborted) {
            if (!(result instanceof KubeClient)) result.close?.();
            return;
          }
          const client = result instanceof KubeClient ? result : new KubeClient(result);
          if (!(result instanceof KubeClient)) member.close = result.close;
          this.#setState(member, "syncing", "listing");
          this.#start(member, client, options);
        },
        (error: unknown) => {
          if (signal.aborted) return;
          const delay = backoff.next();
          this.#failed(member, error, {
            phase: "credentials",
            action: "building the client again with backoff",
            retryInMs: delay,
          });
          member.retry = this.#clock.setTimeout(attempt, delay);
        },
      );
    };
    attempt();
  }

  /** Starts the cluster's informer and feeds its events into the merged view. */
  #start(member: Member<T>, client: KubeClient, options: EngageOptions<T>): void {
    const own = {
      ...this.#options.informerOptions?.(member.name),
      ...options.informer,
    };
    const progress = (): void => this.#progress(member);
    const guard = (fn: () => void): void => {
      try {
        fn();
      } catch (error) {
        this.#report(member, error, { phase: "callback", detail: "metrics", action: "going on" });
      }
    };
    const user = own.metrics;
    // The fleet learns of progress from the informer's metric hooks, the user's run too.
    const metrics: InformerMetrics = {
      ...user,
      onList: (ms, items, pages) => {
        if (user?.onList !== undefined) guard(() => user.onList?.(ms, items, pages));
        progress();
      },
      onWatchEvent: (type) => {
        if (user?.onWatchEvent !== undefined) guard(() => user.onWatchEvent?.(type));
        progress();
      },
    };
    const transform = own.transform;
    const informer = createInformer<T>(client, {
      ...own,
      resource: this.#options.resource,
      namespace: this.#options.namespace,
      labelSelector: this.#options.labelSelector,
      fieldSelector: this.#options.fieldSelector,
      clock: this.#clock,
      metrics,
      // A transform that throws says nothing about the cluster: its error is marked so.
      ...(transform === undefined ? {} : {
        transform: (object: T): T => {
          try {
            return transform(object);
          } catch (error) {
            throw new UserCodeError(error);
          }
        },
      }),
      // The informer's errors, with its context, through the fleet's one reporter.
      onError: (error, context) => {
        const { kind, source: _source, ...details } = context;
        if (error instanceof UserCodeError) {
          this.#report(member, error.cause, { ...details, foreignKind: "transform" });
        } else if (REQUESTS.has(details.phase) && failureOf(kind) !== undefined) {
          this.#failed(member, error, { ...details, foreignKind: kind });
        } else this.#report(member, error, { ...details, foreignKind: kind });
      },
    });
    member.informer = informer;
    // Pending deliveries of a cluster disengaged meanwhile change nothing.
    const live = (): boolean => this.#members.get(member.name) === member;
    /** Writes `object` into the cluster's part; false when an index function refused it. */
    const write = (object: T): { ok: boolean; old: T | undefined } => {
      try {
        return { ok: true, old: member.part.set(object) };
      } catch (error) {
        this.#report(member, error, {
          phase: "handler",
          detail: "index",
          key: objectKey(object),
          action: "leaving the object out of the merged view",
        });
        return { ok: false, old: undefined };
      }
    };
    member.registration = informer.addEventHandler({
      onAdd: (object, isInInitialList) => {
        if (!live() || !write(object).ok || member.hidden) return;
        this.#emit({ type: "add", cluster: member.name, object, isInInitialList });
      },
      onUpdate: (_old, object) => {
        if (!live()) return;
        const { ok, old } = write(object);
        if (!ok || member.hidden) return;
        // An object an index function refused before arrives now: for the view, an add.
        this.#emit(
          old === undefined
            ? { type: "add", cluster: member.name, object, isInInitialList: false }
            : { type: "update", cluster: member.name, object, oldObject: old },
        );
      },
      onDelete: (object, finalStateUnknown) => {
        if (!live()) return;
        const gone = member.part.delete(objectKey(object));
        if (gone !== undefined && !member.hidden) {
          this.#emit({ type: "delete", cluster: member.name, object, finalStateUnknown });
        }
      },
      onSynced: () => {
        if (!live()) return;
        member.synced = true;
        if (member.deadline !== undefined) this.#clock.clearTimeout(member.deadline);
        member.deadline = undefined;
        if (!member.hidden) this.#emit({ type: "synced", cluster: member.name });
        this.#progress(member);
        this.#wake();
      },
      // A cluster resumed from a checkpoint starts with its objects: the view needs them too.
    }, { replayCache: true });
    void informer.start({ signal: member.controller.signal });
  }

  /** A request of the cluster succeeded: it leaves a failure state. */
  #progress(member: Member<T>): void {
    if (this.#members.get(member.name) !== member) return;
    const wasFailed = member.failure !== undefined;
    member.failure = undefined;
    if (member.grace !== undefined) {
      this.#clock.clearTimeout(member.grace);
      member.grace = undefined;
    }
    if (member.synced) {
      if (member.hidden) this.#show(member);
      if (member.state !== "synced") this.#setState(member, "synced", "synced");
    } else if (wasFailed || member.state !== "syncing") {
      this.#setState(member, "syncing", "listing");
    }
    if (wasFailed) {
      // One line (by default) for the cluster, or for the fleet once no cluster fails any more.
      let failing = false;
      for (const m of this.#members.values()) failing ||= m.failure !== undefined;
      if (failing) this.#reporter.healthy(member.name);
      else this.#reporter.healthy();
      this.#wake();
    }
  }

  /** An error that puts the cluster in a failure state (then reported). */
  #failed(member: Member<T>, error: unknown, details: ReportDetails): void {
    if (this.#members.get(member.name) !== member) return;
    const { kind } = this.#reporter.context(error, details);
    member.lastError = { kind, message: messageOf(error), at: this.#clock.now() };
    member.lastErrorValue = error;
    const failure = failureOf(kind) ?? "unreachable";
    const first = member.failure === undefined;
    member.failure = failure;
    this.#setState(member, failure, `${kind}: ${messageOf(error)}`);
    const policy = this.#options.unreachable;
    if (first && policy !== undefined && policy !== "keep" && !member.hidden) {
      member.grace = this.#clock.setTimeout(() => {
        member.grace = undefined;
        if (member.failure !== undefined && this.#members.get(member.name) === member) {
          this.#hide(member);
        }
      }, policy.deleteAfterMs);
    }
    this.#report(member, error, details);
    this.#wake();
  }

  /** Reports an error of `member` (its name as the context's `cluster`). */
  #report(member: Member<T>, error: unknown, details: ReportDetails): void {
    this.#reporter.report(error, { ...details, cluster: member.name });
  }

  /** The `delete` policy's grace ran out: the cluster's objects leave the view. */
  #hide(member: Member<T>): void {
    for (const object of member.part.values()) {
      this.#emit({ type: "delete", cluster: member.name, object, finalStateUnknown: true });
    }
    member.hidden = true;
    this.store.setHidden(member.name, true);
  }

  /** A hidden cluster recovered: its objects come back into the view. */
  #show(member: Member<T>): void {
    member.hidden = false;
    this.store.setHidden(member.name, false);
    for (const object of member.part.values()) {
      this.#emit({ type: "add", cluster: member.name, object, isInInitialList: false });
    }
    if (member.synced) this.#emit({ type: "synced", cluster: member.name });
  }

  #setState(member: Member<T>, state: ClusterState, reason: string): void {
    if (member.state === state && member.reason === reason) return;
    const changed = member.state !== state;
    member.state = state;
    member.reason = reason;
    if (changed) {
      member.since = this.#clock.now();
      this.#emit({ type: "state", cluster: member.name, state, reason });
    }
  }

  /** Removes a cluster; resolves once its informer has stopped. */
  #drop(name: string, reason: string): Promise<void> {
    const member = this.#members.get(name);
    if (member === undefined) return Promise.resolve();
    this.#members.delete(name);
    member.unlisten();
    member.controller.abort(new DOMException(`cluster ${reason}`, "AbortError"));
    if (member.grace !== undefined) this.#clock.clearTimeout(member.grace);
    if (member.retry !== undefined) this.#clock.clearTimeout(member.retry);
    if (member.deadline !== undefined) this.#clock.clearTimeout(member.deadline);
    member.registration?.remove();
    if (!member.hidden) {
      for (const object of member.part.values()) {
        this.#emit({ type: "delete", cluster: name, object, finalStateUnknown: true });
      }
    }
    this.store.close(name);
    this.#reporter.forget(name);
    member.state = "removed";
    member.reason = reason;
    member.since = this.#clock.now();
    this.#emit({ type: "state", cluster: name, state: "removed", reason });
    this.#removed.set(name, { ...this.#healthOf(member), objects: 0, stale: false, hidden: false });
    if (this.#removed.size > REMOVED_KEPT) {
      const oldest = this.#removed.keys().next().value;
      if (oldest !== undefined) this.#removed.delete(oldest);
    }
    this.#wake();
    const informer = member.informer;
    const close = member.close;
    return (informer?.stop() ?? Promise.resolve()).finally(() => close?.());
  }

  #emit(event: FleetEvent<T>): void {
    for (const listener of this.#listeners) listener.push(event);
  }

  /** A cluster moved: the fleet runs once every cluster has synced or failed; waiters look. */
  #wake(): void {
    if (this.#life.state === "starting") {
      let settled = true;
      for (const m of this.#members.values()) settled &&= m.synced || m.failure !== undefined;
      if (settled) this.#life.started();
    }
    this.#life.waiters.wake();
  }
}
