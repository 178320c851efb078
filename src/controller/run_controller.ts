/**
 * Runs a controller: informer events become keys on a rate-limited work queue, and a fixed
 * number of workers reconcile those keys until the signal aborts.
 * @module
 */
import type { KubeObject } from "../client/types.ts";
import { objectKey } from "../cache/object_key.ts";
import { type Clock, systemClock } from "../util/clock.ts";
import { linkedController } from "../util/abort.ts";
import { RateLimitingQueue } from "../queue/rate_limiting_queue.ts";
import { reportError } from "../util/report_error.ts";
import {
  checkBoolean,
  checkClock,
  checkFunction,
  checkNumber,
  checkOptionsObject,
  requireSignal,
} from "../util/validate.ts";
import type { UpdatePredicate } from "./predicates.ts";
import type { ControllerSource, SourceKeys } from "./sources.ts";
import { type KeyPermit, ownershipFrom, OwnershipGate } from "./_ownership.ts";
import { waitUntilSynced } from "./_synced.ts";
import type { LeaderElector, LeaderElectorOptions } from "./leader_election.ts";
import type { ShardCoordinator } from "./shard_coordinator.ts";
import type { ShardCoordinatorOptions } from "./shard_coordinator_options.ts";

/**
 * Event callbacks the runner registers on an informer. The shape matches kinformer's shared
 * informer; any object with these methods works.
 *
 * @example
 * ```ts
 * import type { InformerEventHandlerLike } from "@kinformer/kinformer/controller";
 * import assert from "node:assert/strict";
 * const added: string[] = [];
 * const handler: InformerEventHandlerLike<{ metadata: { name: string } }> = {
 *   onAdd: (obj, isInInitialList) => void added.push(`${obj.metadata.name} ${isInInitialList}`),
 * };
 * handler.onAdd?.({ metadata: { name: "web" } }, true);
 * assert.deepEqual(added, ["web true"]);
 * ```
 */
export interface InformerEventHandlerLike<O> {
  /** An object appeared; `isInInitialList` is true while the first list is delivered. */
  onAdd?(obj: O, isInInitialList: boolean): void;
  /** An object changed (or a resync re-delivered it with `oldObj === newObj`). */
  onUpdate?(oldObj: O, newObj: O): void;
  /** An object went away; `finalStateUnknown` when a relist noticed it, not a watch event. */
  onDelete?(obj: O, finalStateUnknown: boolean): void;
}

/**
 * What registering a handler on an informer returns.
 *
 * @example
 * ```ts
 * import type { InformerRegistrationLike } from "@kinformer/kinformer/controller";
 * import assert from "node:assert/strict";
 * const registration: InformerRegistrationLike = { hasSynced: () => true, remove: () => {} };
 * assert.equal(registration.hasSynced(), true);
 * ```
 */
export interface InformerRegistrationLike {
  /** True once this handler has received every object of the informer's initial list. */
  hasSynced(): boolean;
  /** Unregisters the handler. */
  remove(): void | Promise<void>;
  /**
   * Optional: resolves once `hasSynced()` is true, so the runner need not poll. Should reject
   * with the signal's reason when it aborts.
   */
  waitForSync?(options?: { signal?: AbortSignal | undefined }): Promise<unknown>;
}

/**
 * The part of an informer that {@linkcode runController} uses. Structural, so kinformer's
 * informers, test fakes and adapters all fit.
 *
 * @example
 * ```ts
 * import type { InformerLike } from "@kinformer/kinformer/controller";
 * import assert from "node:assert/strict";
 * // An informer with a fixed set of objects, synced at once.
 * const objects = [{ metadata: { namespace: "default", name: "web" } }];
 * const informer: InformerLike<(typeof objects)[number]> = {
 *   addEventHandler(handler) {
 *     for (const obj of objects) handler.onAdd?.(obj, true);
 *     return { hasSynced: () => true, remove: () => {} };
 *   },
 * };
 * const names: string[] = [];
 * informer.addEventHandler({ onAdd: (obj) => void names.push(obj.metadata.name) });
 * assert.deepEqual(names, ["web"]);
 * ```
 */
export interface InformerLike<O = unknown> {
  /** Registers `handler`; it first receives the current cache as adds. */
  addEventHandler(handler: InformerEventHandlerLike<O>): InformerRegistrationLike;
  /**
   * Optional: starts the informer until `signal` aborts. If it returns a promise, the runner
   * waits for it before resolving, so it must settle once `signal` aborts.
   */
  start?(signal?: AbortSignal): void | Promise<void>;
  /**
   * Optional: resolves once the informer's cache has synced (kinformer's `SharedInformer`
   * has it). Used when a registration has no `waitForSync`; the runner then polls the
   * registration's own `hasSynced()`, which can lag behind the informer's.
   */
  waitForSync?(options?: { signal?: AbortSignal | undefined }): Promise<unknown>;
}

/**
 * What a reconcile function may return: `requeueAfterMs` schedules the key again after that
 * many milliseconds (its error backoff is reset), for periodic re-checks.
 */
export interface ReconcileResult {
  /** Reconcile the key again after this many milliseconds (0 = as soon as possible). */
  requeueAfterMs?: number;
}

/** The second argument of a reconcile function. */
export interface ReconcileContext {
  /** Aborts when the controller stops; long work should stop early and throw. */
  signal: AbortSignal;
  /** How many times this key has been retried after errors since it last succeeded. */
  numRequeues: number;
}

/** Options of {@linkcode runController}. */
export interface RunControllerOptions<O = unknown> {
  /**
   * Informers whose events enqueue keys. For informers of different kinds, name the union:
   * `runController<Pod | ReplicaSet>({ ... })`.
   */
  informers: readonly InformerLike<O>[];
  /**
   * Brings the world in line with the desired state of `key`. Throwing (or rejecting)
   * retries the key with the queue's rate limiter and reports the error to `onError`.
   */
  reconcile: (
    key: string,
    ctx: ReconcileContext,
  ) => Promise<ReconcileResult | void> | ReconcileResult | void;
  /** Stops the controller: no new keys are taken, in-flight reconciles finish. */
  signal: AbortSignal;
  /**
   * The queue keys go through; it is shut down when the controller stops.
   * @default new RateLimitingQueue<string>({ clock, name: "controller" })
   */
  queue?: RateLimitingQueue<string>;
  /**
   * Number of keys reconciled at once (one key is never reconciled twice at once).
   * @default 1
   */
  workers?: number;
  /**
   * Maps an object from an event to the key(s) to reconcile, or `undefined` for none (for
   * example the owner's key of a child object). Updates enqueue the keys of both the old and
   * the new object.
   * @default `namespace/name`, or `name` for cluster-scoped objects
   */
  keyFor?: (obj: O) => string | readonly string[] | undefined;
  /**
   * An update of an object of `informers` enqueues its key only when at least one of these
   * returns true, e.g. `[generationChanged]` so that the controller's own status writes do not
   * wake it. Adds and deletes always enqueue. A predicate that throws is reported to `onError`
   * and the update enqueues.
   * @default [] (every update enqueues)
   */
  updatePredicates?: readonly UpdatePredicate<O>[];
  /**
   * More informers whose events enqueue keys of this controller: objects it owns
   * ({@linkcode owns}: mapped to their controller through `metadata.ownerReferences`) and other
   * objects it watches ({@linkcode watches}: mapped by a function), each with its own update
   * predicates. Their informers are started and waited for like `informers`.
   * @default []
   */
  sources?: readonly ControllerSource[];
  /**
   * Told about every error: a failed reconcile (with its key), or a failing `keyFor`, source
   * mapping or predicate (key `undefined`). If it throws, the controller stops and
   * `runController` rejects with that error.
   * @default logs with `console.error`
   */
  onError?: (error: unknown, key: string | undefined) => void;
  /**
   * Time source for the default queue and for polling `hasSynced()`.
   * @default systemClock
   */
  clock?: Clock;
  /**
   * Call each informer's `start(signal)`. Turn off for informers started elsewhere (for
   * example by a shared factory).
   * @default true
   */
  startInformers?: boolean;
  /**
   * How often `hasSynced()` is polled for registrations that offer no `waitForSync`.
   * @default 100
   */
  syncPollIntervalMs?: number;
  /**
   * Run as one of several replicas, only the elected leader reconciling: a
   * {@linkcode LeaderElector}, or its options (then `clock` and `onError` default to the
   * controller's). Every replica keeps its informers synced; a replica campaigns once its caches
   * are synced, and on becoming leader it enqueues every key from them. `ctx.signal` aborts when
   * leadership ends. On stop, in-flight reconciles finish before the lease is released.
   * @default undefined (this process alone reconciles)
   */
  leaderElection?: LeaderElector | LeaderElectorOptions;
  /**
   * Split the keys among replicas: a {@linkcode ShardCoordinator}, or its options (then `clock`
   * and `onError` default to the controller's). A key is reconciled only by the replica that
   * owns its shard; when a replica gains a shard it enqueues that shard's keys from its caches
   * (and the keys of deletions seen in the last two lease durations). `ctx.signal` aborts
   * when the shard is lost; a shard is released only after its reconciles finished. Cannot be
   * combined with `leaderElection`.
   * @default undefined
   */
  sharding?: ShardCoordinator | ShardCoordinatorOptions;
}

function defaultOnError(error: unknown, key: string | undefined): void {
  console.error(
    key === undefined ? "kinformer controller:" : `kinformer controller: ${key}:`,
    error,
  );
}

/** True for the error an aborted `signal` makes async work throw. */
function isAbortError(error: unknown, signal: AbortSignal): boolean {
  return signal.aborted &&
    (error === signal.reason ||
      (typeof error === "object" && error !== null &&
        (error as { name?: unknown }).name === "AbortError"));
}

/**
 * Runs a controller until `signal` aborts:
 *
 * 1. registers a handler on every informer that enqueues the key(s) of each added, updated
 *    and deleted object, then starts the informers (unless `startInformers: false`);
 * 2. waits until every registration's `hasSynced()` is true (its `waitForSync` if it has one,
 *    else polling on the clock every `syncPollIntervalMs`);
 * 3. runs `workers` loops that take a key, call `reconcile(key, ctx)` and then: on success
 *    `forget` the key (or `addAfter` it when `requeueAfterMs` is returned), on error
 *    `addRateLimited` it and call `onError`; the key is always marked `done`.
 *
 * When `signal` aborts, workers stop taking keys and in-flight reconciles finish (their
 * `ctx.signal` aborts so they can stop early); then the handlers are removed, the queue is
 * shut down, started informers are awaited, and the promise resolves. It rejects only when
 * something fatal happened: invalid options, `onError` or an informer threw, an informer's
 * `start` rejected.
 *
 * @example
 * ```ts
 * import { runController, type InformerLike } from "@kinformer/kinformer/controller";
 * import assert from "node:assert/strict";
 *
 * type Obj = { metadata: { namespace?: string; name?: string } };
 * const informer: InformerLike<Obj> = {
 *   addEventHandler(handler) {
 *     handler.onAdd?.({ metadata: { namespace: "default", name: "web" } }, true);
 *     return { hasSynced: () => true, remove: () => {} };
 *   },
 * };
 *
 * const stop = new AbortController();
 * const reconciled: string[] = [];
 * await runController({
 *   informers: [informer],
 *   signal: stop.signal,
 *   reconcile: async (key) => {
 *     reconciled.push(key);
 *     stop.abort();
 *   },
 * });
 * assert.deepEqual(reconciled, ["default/web"]);
 * ```
 */
export async function runController<O = unknown>(options: RunControllerOptions<O>): Promise<void> {
  checkOptionsObject(options, "runController");
  if (options === undefined) throw new TypeError("runController: options are required");
  if (!Array.isArray(options.informers)) {
    throw new TypeError("informers must be an array of informers");
  }
  options.informers.forEach((informer: unknown, i) => {
    if (
      typeof informer !== "object" || informer === null ||
      typeof (informer as InformerLike).addEventHandler !== "function"
    ) {
      throw new TypeError(`informers[${i}] must have an addEventHandler() method`);
    }
  });
  if (typeof options.reconcile !== "function") {
    throw new TypeError("reconcile must be a function");
  }
  requireSignal(options.signal, "signal");
  checkNumber(options.workers, "workers", { min: 1, integer: true });
  checkFunction(options.keyFor, "keyFor");
  checkFunction(options.onError, "onError");
  checkClock(options.clock, "clock");
  checkNumber(options.syncPollIntervalMs, "syncPollIntervalMs", {
    min: 0,
    minExclusive: true,
  });
  if (options.queue !== undefined && !(options.queue instanceof RateLimitingQueue)) {
    throw new TypeError("queue must be a RateLimitingQueue");
  }
  checkBoolean(options.startInformers, "startInformers");
  const feeds = controllerFeeds(options);

  const clock = options.clock ?? systemClock;
  const queue = options.queue ?? new RateLimitingQueue<string>({ clock, name: "controller" });
  const workers = options.workers ?? 1;
  const keyFor = options.keyFor ?? ((obj: O): string => objectKey(obj as KubeObject));
  const onError = options.onError ?? defaultOnError;
  const pollMs = options.syncPollIntervalMs ?? 100;
  const reconcile = options.reconcile;
  // Leader election or sharding: only keys this replica owns are queued and reconciled.
  // Built (and its options validated) before anything is started or listened to.
  const ownership = ownershipFrom(options, clock, (error) => report(error, undefined));

  // Our own signal: aborted by the caller's signal or by a fatal error.
  const stop = new AbortController();
  let failure: { error: unknown } | undefined;
  let finished = false;
  const fail = (error: unknown): void => {
    if (finished) {
      reportError(error);
      return;
    }
    failure ??= { error };
    if (!stop.signal.aborted) stop.abort(error);
  };
  const report = (error: unknown, key: string | undefined): void => {
    try {
      onError(error, key);
    } catch (thrown) {
      fail(thrown);
    }
  };
  const onCallerAbort = (): void => stop.abort(options.signal.reason);
  if (options.signal.aborted) stop.abort(options.signal.reason);
  else options.signal.addEventListener("abort", onCallerAbort, { once: true });

  /** The keys of one object of a feed (the primary informers' through `keyFor`). */
  const keysOf = (feed: Feed, obj: unknown): readonly string[] => {
    let mapped: SourceKeys;
    try {
      mapped = feed.keysFor === undefined ? keyFor(obj as O) : feed.keysFor(obj as never);
    } catch (error) {
      report(error, undefined);
      return [];
    }
    if (mapped === undefined) return [];
    if (typeof mapped === "string") return [mapped];
    if (Array.isArray(mapped) && mapped.every((k) => typeof k === "string")) return mapped;
    report(
      new TypeError(`${feed.what} must return a string, an array of strings or undefined`),
      undefined,
    );
    return [];
  };
  const primary = feeds.find((f) => f.keysFor === undefined);
  // With leader election or sharding, only keys this replica owns are queued; on gaining
  // ownership the gate replays the primary informers' caches through keyFor.
  const gate = ownership === undefined ? undefined : new OwnershipGate<O>(ownership, {
    informers: options.informers,
    clock,
    pollMs,
    keysOf: (obj) => primary === undefined ? [] : keysOf(primary, obj),
    enqueue: (key) => queue.add(key),
    report: (error) => report(error, undefined),
  });
  /** Adds the keys of `objects` (each key once, so an update's old and new do not double). */
  const enqueue = (feed: Feed, deleted: boolean, ...objects: unknown[]): void => {
    const keys = new Set<string>();
    for (const obj of objects) for (const key of keysOf(feed, obj)) keys.add(key);
    for (const key of keys) {
      if (gate === undefined || gate.admit(key, deleted)) queue.add(key);
    }
  };
  const passes = (feed: Feed, oldObj: unknown, newObj: unknown): boolean => {
    if (feed.predicates.length === 0) return true;
    for (const predicate of feed.predicates) {
      try {
        if (predicate(oldObj as never, newObj as never)) return true;
      } catch (error) {
        report(error, undefined);
        return true;
      }
    }
    return false;
  };
  const handlerFor = (feed: Feed): InformerEventHandlerLike<unknown> => ({
    onAdd: (obj) => enqueue(feed, false, obj),
    onUpdate: (oldObj, newObj) => {
      if (!passes(feed, oldObj, newObj)) return;
      if (oldObj === newObj) enqueue(feed, false, newObj);
      else enqueue(feed, false, newObj, oldObj);
    },
    onDelete: (obj) => enqueue(feed, true, obj),
  });

  const registrations: InformerRegistrationLike[] = [];
  const running: Promise<void>[] = [];

  const worker = async (): Promise<void> => {
    while (!stop.signal.aborted) {
      let key: string;
      try {
        const next = await queue.get({ signal: stop.signal });
        if (next.shutdown) return;
        key = next.item;
      } catch (error) {
        if (isAbortError(error, stop.signal)) return;
        throw error;
      }
      const permit = gate?.enter(key);
      if (gate !== undefined && permit === undefined) {
        // Not ours (any more): whoever owns it now reconciles it.
        queue.forget(key);
        queue.done(key);
        continue;
      }
      try {
        await reconcileOnce(key, permit);
      } finally {
        permit?.exit();
        queue.done(key);
      }
    }
  };

  const reconcileOnce = async (key: string, permit: KeyPermit | undefined): Promise<void> => {
    let result: ReconcileResult | void;
    // With a permit, ctx.signal also aborts when ownership of the key ends.
    const link = permit === undefined ? undefined : linkedController(stop.signal);
    const onLost = (): void => link!.controller.abort(permit!.signal.reason);
    if (permit !== undefined) {
      if (permit.signal.aborted) onLost();
      else permit.signal.addEventListener("abort", onLost, { once: true });
    }
    const signal = link?.controller.signal ?? stop.signal;
    try {
      result = await reconcile(key, { signal, numRequeues: queue.numRequeues(key) });
    } catch (error) {
      if (isAbortError(error, signal)) return;
      queue.addRateLimited(key);
      report(error, key);
      return;
    } finally {
      permit?.signal.removeEventListener("abort", onLost);
      link?.release();
    }
    const after = typeof result === "object" && result !== null ? result.requeueAfterMs : undefined;
    if (after === undefined) {
      queue.forget(key);
      return;
    }
    if (typeof after !== "number" || !(after >= 0) || !Number.isFinite(after)) {
      queue.addRateLimited(key);
      report(
        new RangeError(
          `reconcile returned requeueAfterMs ${String(after)}; expected a finite number >= 0`,
        ),
        key,
      );
      return;
    }
    queue.forget(key);
    queue.addAfter(key, after);
  };

  try {
    for (const feed of feeds) {
      registrations.push(feed.informer.addEventHandler(handlerFor(feed)));
    }
    if (options.startInformers ?? true) {
      for (const informer of new Set(feeds.map((f) => f.informer))) {
        const started = informer.start?.(stop.signal);
        if (started !== undefined) {
          running.push(
            Promise.resolve(started).then(undefined, (error: unknown) => {
              if (!isAbortError(error, stop.signal)) fail(error);
            }),
          );
        }
      }
    }
    try {
      const wait = { clock, pollMs, signal: stop.signal };
      await Promise.all(registrations.map((r, i) => waitUntilSynced(r, feeds[i]!.informer, wait)));
    } catch (error) {
      if (!isAbortError(error, stop.signal)) throw error;
    }
    if (!stop.signal.aborted) {
      // The election (or the group) runs until every reconcile has finished, so the lease is
      // released only after the work it guards.
      const gateStop = new AbortController();
      const gateRun = gate?.run(gateStop.signal).then(undefined, fail);
      try {
        await Promise.all(
          Array.from({ length: workers }, () => worker().then(undefined, fail)),
        );
      } finally {
        gateStop.abort(new Error("controller stopped"));
        await gateRun;
      }
    }
  } catch (error) {
    fail(error);
  } finally {
    for (const registration of registrations) {
      try {
        await registration.remove();
      } catch (error) {
        failure ??= { error };
      }
    }
    queue.shutDown();
    if (!stop.signal.aborted) stop.abort(new Error("controller stopped"));
    await Promise.all(running);
    options.signal.removeEventListener("abort", onCallerAbort);
    finished = true;
  }
  if (failure !== undefined) throw failure.error;
}

/** One informer the runner listens to, and how its objects become keys. */
interface Feed {
  informer: InformerLike<unknown>;
  /** The mapping of a source; `undefined` for `informers` (the runner's `keyFor`). */
  keysFor: ((object: never) => SourceKeys) | undefined;
  predicates: readonly UpdatePredicate<never>[];
  /** What maps objects, for error messages. */
  what: string;
}

/** The informers and sources of `options` as feeds, checked. */
function controllerFeeds<O>(options: RunControllerOptions<O>): Feed[] {
  const predicates = options.updatePredicates ?? [];
  if (!Array.isArray(predicates)) throw new TypeError("updatePredicates must be an array");
  predicates.forEach((p, i) => checkFunction(p, `updatePredicates[${i}]`));
  const feeds: Feed[] = options.informers.map((informer) => ({
    informer: informer as InformerLike<unknown>,
    keysFor: undefined,
    predicates: predicates as readonly UpdatePredicate<never>[],
    what: "keyFor",
  }));
  const sources = options.sources ?? [];
  if (!Array.isArray(sources)) throw new TypeError("sources must be an array of owns()/watches()");
  sources.forEach((source: unknown, i) => {
    const s = source as Partial<ControllerSource> | null;
    if (
      typeof s !== "object" || s === null || typeof s.keysFor !== "function" ||
      typeof s.informer?.addEventHandler !== "function" || !Array.isArray(s.updatePredicates)
    ) {
      throw new TypeError(`sources[${i}] must be made by owns() or watches()`);
    }
    feeds.push({
      informer: s.informer as InformerLike<unknown>,
      keysFor: s.keysFor,
      predicates: s.updatePredicates,
      what: `sources[${i}]`,
    });
  });
  return feeds;
}
