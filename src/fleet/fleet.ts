/**
 * A fleet: one resource watched in many clusters, engaged and disengaged while it runs, with
 * one merged view, one event stream and a state per cluster. This file is the merged view
 * and stream, the fleet's lifecycle and its waits; the clusters themselves (their informers,
 * clients, states and health) are a `ClusterSet` (`_cluster_set.ts`).
 * @module
 */
import { KubeClient } from "../client/kube_client.ts";
import type { KubeObject, KubeObjectLike } from "../client/types.ts";
import type { InformerCheckpoint } from "../cache/checkpoint.ts";
import type { SharedInformer } from "../cache/informer.ts";
import { type Clock, systemClock } from "../util/clock.ts";
import { ErrorReporter } from "../util/error_reporter.ts";
import { Lifecycle, LifecycleError } from "../util/lifecycle.ts";
import { checkNumber } from "../util/validate.ts";
import { explainAbort } from "../util/wait_for.ts";
import { FleetListener } from "./_fleet_listener.ts";
import { ClusterSet, type Member } from "./_cluster_set.ts";
import { checkClusterName } from "./cluster_key.ts";
import type { ClusterState, FleetHealth } from "./cluster_state.ts";
import type { FleetEvent } from "./fleet_event.ts";
import { FleetLister } from "./fleet_lister.ts";
import {
  type ClusterTarget,
  type EngageOptions,
  type FleetOptions,
  type FleetSyncOptions,
  validateFleetOptions,
  validateSyncOptions,
} from "./fleet_options.ts";
import { FleetStore } from "./fleet_store.ts";

/** Clusters a sync wait that timed out names, at most. */
const NAMED_PENDING = 5;

/** How errors and printed lines name a fleet: `"fleet pods"`, `"fleet widgets.example.com"`. */
function fleetSource(resource: { resource: string; group?: string | undefined }): string {
  return `fleet ${resource.resource}${resource.group ? `.${resource.group}` : ""}`;
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
  /** The engaged clusters (and the ones removed most recently). */
  #clusters: ClusterSet<T>;
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
    this.#clusters = new ClusterSet<T>({
      options,
      clock: this.#clock,
      reporter: this.#reporter,
      store: this.store,
      emit: (event) => this.#emit(event),
      wake: () => this.#wake(),
    });
  }

  /** The names of the engaged clusters, in the order they were engaged. */
  clusters(): string[] {
    return [...this.#clusters.members.keys()];
  }

  /** The state of `cluster` (`removed` for one disengaged), or `undefined` if never engaged. */
  state(cluster: string): ClusterState | undefined {
    return this.#clusters.state(cluster);
  }

  /** The informer of `cluster`, once its client is ready (for `verify()`, its own health). */
  informer(cluster: string): SharedInformer<T> | undefined {
    return this.#clusters.members.get(cluster)?.informer;
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
    this.#clusters.engage(name, target, options);
    return true;
  }

  /**
   * Disengages a cluster: stops its informer, removes its handler, frees its part of the merged
   * view (a `delete` event per object, then a `state` event `removed`). Resolves once its
   * connections are released; does nothing for a name not engaged.
   */
  async disengage(name: string): Promise<void> {
    const stopped = this.#clusters.drop(name, "disengaged");
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
    const stops = [...this.#clusters.members.keys()].map((name) =>
      this.#clusters.drop(name, "fleet stopped")
    );
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
          if (this.#clusters.removed(name)) {
            gone = name;
            return "failed";
          }
        }
        if (options.clusters.every((name) => done(this.#clusters.members.get(name)))) return "done";
      } else if (options.min !== undefined) {
        let n = 0;
        for (const m of this.#clusters.members.values()) if (done(m)) n++;
        if (n >= options.min) return "done";
      } else if ([...this.#clusters.members.values()].every(done)) return "done";
      return "pending";
    };
    return this.#life.wait(check, {
      signal: options.signal,
      failure: () =>
        gone === undefined
          ? new Error(`${this.#source} stopped before the clusters synced`)
          : new Error(`cluster "${gone}" was removed before it synced`),
      aborted: (reason) => {
        const pending = options.clusters ?? [...this.#clusters.members.keys()];
        const waited = pending.filter((name) => !done(this.#clusters.members.get(name)));
        const members = waited.map((name) => this.#clusters.members.get(name));
        const last = members.reduce<Member<T> | undefined>(
          (a, m) => (m?.lastError?.at ?? -Infinity) > (a?.lastError?.at ?? -Infinity) ? m : a,
          undefined,
        );
        const named = waited.slice(0, NAMED_PENDING).map((name) =>
          `${name} (${this.#clusters.members.get(name)?.state ?? "not engaged"})`
        ).join(", ") +
          (waited.length > NAMED_PENDING ? ` and ${waited.length - NAMED_PENDING} more` : "");
        const synced = [...this.#clusters.members.values()].filter(done).length;
        return explainAbort(reason, {
          what: options.min === undefined || options.clusters !== undefined
            ? `${this.#source}: clusters ${named} not synced`
            : `${this.#source}: ${synced} of the ${options.min} clusters wanted synced (${named})`,
          hint: this.#clusters.members.size === 0 ? "; no cluster is engaged" : undefined,
          waitedMs: this.#clock.now() - waiting,
          lastError: last?.lastErrorValue,
        });
      },
    }).then(() => [...this.#clusters.members.values()].filter((m) => m.synced).map((m) => m.name));
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
    for (const m of this.#clusters.members.values()) {
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
    for (const m of this.#clusters.members.values()) {
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
    return { state: this.#life.state, ...this.#clusters.health() };
  }

  #emit(event: FleetEvent<T>): void {
    for (const listener of this.#listeners) listener.push(event);
  }

  /** A cluster moved: the fleet runs once every cluster has synced or failed; waiters look. */
  #wake(): void {
    if (this.#life.state === "starting") {
      let settled = true;
      for (const m of this.#clusters.members.values()) {
        settled &&= m.synced || m.failure !== undefined;
      }
      if (settled) this.#life.started();
    }
    this.#life.waiters.wake();
  }
}
