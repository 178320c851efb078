/**
 * The clusters of a fleet: engaging and disengaging them, each one's informer and client, its
 * state, reason and last error, and what `health()` says of it. The merged view and stream
 * they feed are the fleet's (`fleet.ts`). Internal.
 * @module
 */
import { KubeClient } from "../client/kube_client.ts";
import type { KubeObjectLike } from "../client/types.ts";
import type { HandlerRegistration } from "../cache/event_handler.ts";
import type { Indexer } from "../cache/indexer.ts";
import { createInformer, type SharedInformer } from "../cache/informer.ts";
import type { InformerMetrics } from "../cache/informer_metrics.ts";
import { objectKey } from "../cache/object_key.ts";
import { onAbort } from "../util/abort.ts";
import { exponentialBackoff } from "../util/backoff.ts";
import type { Clock, TimerHandle } from "../util/clock.ts";
import type { ErrorPhase } from "../util/error_context.ts";
import type { ErrorReporter, ReportDetails } from "../util/error_reporter.ts";
import { messageOf } from "../util/values.ts";
import {
  type ClusterError,
  type ClusterFailure,
  type ClusterHealth,
  type ClusterState,
  failureOf,
  type FleetHealth,
} from "./cluster_state.ts";
import type { FleetEvent } from "./fleet_event.ts";
import type {
  ClusterClientInit,
  ClusterTarget,
  EngageOptions,
  FleetOptions,
} from "./fleet_options.ts";
import type { FleetStore } from "./fleet_store.ts";

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

/** One engaged cluster. */
export interface Member<T extends KubeObjectLike> {
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

/** The fleet's parts a {@linkcode ClusterSet} works with. */
export interface ClusterSetOptions<T extends KubeObjectLike> {
  /** The fleet's options (the informers', the connectors' backoff, the policies). */
  options: FleetOptions<T>;
  clock: Clock;
  /** The fleet's one reporter: every cluster's errors, each named by its cluster. */
  reporter: ErrorReporter;
  /** The merged view: each cluster's part of it is opened, hidden and closed here. */
  store: FleetStore<T>;
  /** Tells the fleet's stream an event of a cluster. */
  emit: (event: FleetEvent<T>) => void;
  /** A cluster moved: the fleet looks at its lifecycle and its waiters. */
  wake: () => void;
}

/**
 * The engaged clusters of a fleet, and the clusters removed most recently (for `health()`):
 * each engaged one's client (built by its connector, retried on the backoff), its informer
 * feeding its part of the merged view, its state and the timers of the fleet's policies.
 */
export class ClusterSet<T extends KubeObjectLike> {
  #options: FleetOptions<T>;
  #clock: Clock;
  #reporter: ErrorReporter;
  #store: FleetStore<T>;
  #emit: (event: FleetEvent<T>) => void;
  #wake: () => void;
  #members = new Map<string, Member<T>>();
  #removed = new Map<string, ClusterHealth>();

  constructor(options: ClusterSetOptions<T>) {
    this.#options = options.options;
    this.#clock = options.clock;
    this.#reporter = options.reporter;
    this.#store = options.store;
    this.#emit = options.emit;
    this.#wake = options.wake;
  }

  /** The engaged clusters by name, in the order they were engaged. */
  get members(): ReadonlyMap<string, Member<T>> {
    return this.#members;
  }

  /** Whether `name` was disengaged (and not engaged again since). */
  removed(name: string): boolean {
    return this.#removed.has(name);
  }

  /** The state of `cluster` (`removed` for one disengaged), or `undefined` if never engaged. */
  state(cluster: string): ClusterState | undefined {
    return this.#members.get(cluster)?.state ?? this.#removed.get(cluster)?.state;
  }

  /**
   * Engages a cluster (the fleet has checked the call): replaces one engaged under the same
   * name, builds the client if `target` is a connector, then starts the informer.
   */
  engage(name: string, target: ClusterTarget, options: EngageOptions<T>): void {
    if (this.#members.has(name)) this.drop(name, "replaced");
    this.#removed.delete(name);
    const member: Member<T> = {
      name,
      controller: new AbortController(),
      part: this.#store.open(name),
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
    member.unlisten = onAbort(options.signal, () => void this.drop(name, "disengaged"));
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
  }

  /** Every cluster's health (the engaged ones, then the removed), counts per state, objects. */
  health(): Omit<FleetHealth, "state"> {
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
    return { clusters, states, objects };
  }

  /** Removes a cluster; resolves once its informer has stopped. */
  drop(name: string, reason: string): Promise<void> {
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
    this.#store.close(name);
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
    this.#store.setHidden(member.name, true);
  }

  /** A hidden cluster recovered: its objects come back into the view. */
  #show(member: Member<T>): void {
    member.hidden = false;
    this.#store.setHidden(member.name, false);
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
}
