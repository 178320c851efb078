/**
 * The options of a fleet, of one engagement, and their validation.
 * @module
 */
import type { KubeClient } from "../client/kube_client.ts";
import type { KubeClientOptions } from "../client/client_options.ts";
import type { ResourceDescriptor } from "../client/resource.ts";
import type { KubeObject, KubeObjectLike } from "../client/types.ts";
import type { Indexers } from "../cache/indexer.ts";
import type { InformerOptions } from "../cache/informer_options.ts";
import type { Clock } from "../util/clock.ts";
import type { BackoffOptions } from "../util/backoff.ts";
import type { OnError } from "../util/error_context.ts";
import {
  checkClock,
  checkFunction,
  checkNumber,
  checkOptionsObject,
  checkSignal,
} from "../util/validate.ts";
import { describeValue } from "../util/values.ts";

/**
 * The informer options a fleet lets differ per cluster: everything but what the fleet owns
 * (the resource, the indexes, the clock, `onError`). A `transform` here shapes one cluster's
 * objects; `resumeFrom` resumes one cluster from its checkpoint.
 */
export type ClusterInformerOptions<T extends KubeObjectLike = KubeObject> = Omit<
  InformerOptions<T>,
  "resource" | "indexers" | "clock" | "onError"
>;

/** Client options that may come with a way to release their connections (a loader's result). */
export type ClusterClientInit = KubeClientOptions & { close?: (() => void) | undefined };

/**
 * How a fleet reaches a cluster: a ready `KubeClient`, or a function that builds one (or its
 * options) when the cluster is engaged. A function's cluster is `connecting` until it resolves;
 * when it rejects, the cluster is `unreachable` and it is called again on the backoff. A
 * `close()` of returned options runs when the cluster is disengaged.
 */
export type ClusterTarget =
  | KubeClient
  | ((signal: AbortSignal) => Promise<KubeClient | ClusterClientInit>);

/**
 * What happens to the objects of a cluster that fails (unreachable, forbidden, missing):
 * `"keep"` leaves them in the merged view, marked stale (`health()`, the `state` event);
 * `{ deleteAfterMs }` hides them (a `delete` event each) once the cluster has failed that long,
 * and shows them again (an `add` each) when it recovers.
 */
export type UnreachablePolicy = "keep" | { deleteAfterMs: number };

/** Options of `new Fleet()`. */
export interface FleetOptions<T extends KubeObjectLike = KubeObject> {
  /** The resource to watch in every cluster (e.g. `pods`, or `metadataOnly(pods)`). */
  resource: ResourceDescriptor<T>;
  /** Only this namespace in every cluster. @default undefined (all namespaces) */
  namespace?: string | undefined;
  /** Label selector in every cluster. @default undefined */
  labelSelector?: string | undefined;
  /** Field selector in every cluster. @default undefined */
  fieldSelector?: string | undefined;
  /** Index functions applied to every current and future cluster. @default {} */
  indexers?: Indexers<T> | undefined;
  /**
   * Which clusters this fleet covers (e.g. those where a CRD is installed): `engage()` of a
   * name it refuses does nothing and returns false. @default every cluster
   */
  clusters?: ((name: string) => boolean) | undefined;
  /** Informer options per cluster (a transform, a page size, a checkpoint). @default none */
  informerOptions?: ((cluster: string) => ClusterInformerOptions<T>) | undefined;
  /** What happens to a failed cluster's objects. @default "keep" */
  unreachable?: UnreachablePolicy | undefined;
  /**
   * A cluster not synced this long after it was engaged is `unreachable` (reason `not synced
   * ... ms after it was engaged`) until it syncs, so `waitForSync({ settle: true })` stops
   * waiting for it; its informer goes on trying. Without it, a cluster whose connections hang
   * turns unreachable at its informer's idle limit (`inactivityTimeoutMs`, 150 s by default).
   * @default undefined (no limit)
   */
  syncTimeoutMs?: number | undefined;
  /** Backoff between attempts of a connector that failed. @default 800 ms x2 to 30 s */
  connectBackoff?: BackoffOptions | undefined;
  /** Time source (timers of the policy and the connectors; every informer's). @default systemClock */
  clock?: Clock | undefined;
  /**
   * Told of every error of every cluster; the fleet goes on. The context (one shape in all of
   * kinformer) says what the error is (`kind`), where it happened (`phase`: `list`, `watch`,
   * `credentials` for a connector, `handler` for an index function, ...), the fleet as `source`
   * (`"fleet pods"`), the cluster's name as `cluster`, and what the fleet does about it. A
   * throwing `onError` is reported as uncaught.
   *
   * @default the default printing: the first error of each kind at once, naming its cluster
   * (`fleet pods (cluster eu): list forbidden (403): ...; retrying with backoff`), then at
   * most one line per cluster and kind per minute with a count of those not printed, at most 5
   * lines a minute in all (beyond them, one line a minute counts what was not printed and
   * names a few clusters per kind), a line for a cluster that recovers while others still
   * fail, and one when no cluster is failing any more. Every cluster's state and last error are
   * in `health()`.
   */
  onError?: OnError | undefined;
}

/** Options of `Fleet.engage()`. */
export interface EngageOptions<T extends KubeObjectLike = KubeObject> {
  /** Disengages the cluster when it aborts. @default undefined */
  signal?: AbortSignal | undefined;
  /** Informer options of this cluster, over the fleet's `informerOptions`. @default none */
  informer?: ClusterInformerOptions<T> | undefined;
}

/** Options of `Fleet.waitForSync()`. */
export interface FleetSyncOptions {
  /**
   * The clusters to wait for, by name (a name not engaged yet is waited for; one removed
   * rejects). @default every engaged cluster
   */
  clusters?: readonly string[] | undefined;
  /** Instead of `clusters`: resolve once at least this many engaged clusters are synced. */
  min?: number | undefined;
  /**
   * Also count a cluster in a failure state (unreachable, forbidden, missing) as done: the
   * wait ends when every cluster waited for is synced or has failed. @default false
   */
  settle?: boolean | undefined;
  /** Rejects with its reason on abort. @default undefined */
  signal?: AbortSignal | undefined;
}

/** Checks the fleet's options up front; errors name the option. Internal. */
export function validateFleetOptions<T extends KubeObjectLike>(o: FleetOptions<T>): void {
  if (typeof o !== "object" || o === null) throw new TypeError("fleet options are required");
  const r = o.resource;
  if (typeof r !== "object" || r === null || typeof r.resource !== "string") {
    throw new TypeError(`resource must be a ResourceDescriptor, got ${describeValue(r)}`);
  }
  checkOptionsObject(o.indexers, "indexers");
  checkFunction(o.clusters, "clusters");
  checkFunction(o.informerOptions, "informerOptions");
  checkFunction(o.onError, "onError");
  checkClock(o.clock, "clock");
  checkNumber(o.syncTimeoutMs, "syncTimeoutMs", { min: 0 });
  checkOptionsObject(o.connectBackoff, "connectBackoff");
  const u = o.unreachable;
  if (u !== undefined && u !== "keep") {
    if (typeof u !== "object" || u === null) {
      throw new TypeError(
        `unreachable must be "keep" or { deleteAfterMs }, got ${describeValue(u)}`,
      );
    }
    checkNumber(u.deleteAfterMs, "unreachable.deleteAfterMs", { min: 0 });
    if (u.deleteAfterMs === undefined) {
      throw new TypeError("unreachable.deleteAfterMs is required");
    }
  }
}

/** Checks the options of `waitForSync`. Internal. */
export function validateSyncOptions(o: FleetSyncOptions): void {
  checkOptionsObject(o, "options");
  checkNumber(o.min, "options.min", { min: 0, integer: true });
  checkSignal(o.signal, "options.signal");
  if (o.clusters !== undefined && !Array.isArray(o.clusters)) {
    throw new TypeError(`options.clusters must be an array, got ${describeValue(o.clusters)}`);
  }
  if (o.clusters !== undefined && o.min !== undefined) {
    throw new TypeError("options.clusters and options.min exclude each other");
  }
}
