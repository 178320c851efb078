/**
 * What `runController` does with leader election or sharding: which keys this replica may
 * reconcile now, a permit per reconcile (whose signal aborts when ownership ends), and a replay
 * of the informers' caches when ownership starts, so a new owner reconciles every key it
 * gained, including keys deleted shortly before. Internal.
 * @module
 */
import { onAbort } from "../../util/abort.ts";
import type { Clock } from "../../util/clock.ts";
import type { OnError } from "../../util/error_context.ts";
import { LeaderElector, type LeaderElectorOptions } from "../leases/leader_election.ts";
import { ShardCoordinator } from "../leases/shard_coordinator.ts";
import type { ShardCoordinatorOptions } from "../leases/shard_coordinator_options.ts";
import type { InformerLike, InformerRegistrationLike } from "./informer_like.ts";
import { waitUntilSynced } from "./_synced.ts";

/** Permission to reconcile one key. */
export interface KeyPermit {
  /** Aborts when ownership of the key ends. */
  readonly signal: AbortSignal;
  /** The reconcile finished. */
  exit(): void;
}

/** Leader election or sharding, as the controller sees them. */
interface Ownership {
  /** Whether this replica owns `key` now. */
  owns(key: string): boolean;
  /** A permit for `key`, or undefined when not owned. */
  enter(key: string): KeyPermit | undefined;
  /** Lease duration: deletions seen this recently are replayed to a new owner (twice it). */
  readonly leaseDurationMs: number;
  /** Starts campaigning (idempotent). */
  start(): void;
  /** Stops and releases; resolves once released. */
  stop(): Promise<void>;
  /** Calls `cb(owns)` whenever this replica starts owning keys; returns an unsubscribe. */
  onAcquired(cb: (owns: (key: string) => boolean) => void): () => void;
  /** What this replica owns now, as one `owns` per term (leadership, or each shard). */
  current(): ((key: string) => boolean)[];
}

function electorOwnership(elector: LeaderElector): Ownership {
  return {
    owns: () => elector.isLeader(),
    enter: () => {
      const signal = elector.leadershipSignal;
      return signal === undefined ? undefined : { signal, exit: () => {} };
    },
    leaseDurationMs: elector.timings.leaseDurationMs,
    start: () => elector.start(),
    stop: () => elector.stop(),
    onAcquired: (cb) => elector.observe({ onStartedLeading: () => cb(() => true) }),
    current: () => elector.isLeader() ? [() => true] : [],
  };
}

function shardOwnership(coordinator: ShardCoordinator): Ownership {
  return {
    owns: (key) => coordinator.owns(key),
    enter: (key) => coordinator.enter(key),
    leaseDurationMs: coordinator.timings.leaseDurationMs,
    start: () => coordinator.start(),
    stop: () => coordinator.stop(),
    onAcquired: (cb) =>
      coordinator.observe({
        onShardStarted: (shard) => cb((key) => coordinator.shardOf(key) === shard),
      }),
    current: () =>
      coordinator.ownedShards().map((shard) => (key: string) => coordinator.shardOf(key) === shard),
  };
}

/** The `leaderElection` / `sharding` options of `runController`. */
export interface OwnershipOptions {
  /** Leader election: an elector, or the options to make one. */
  leaderElection?: LeaderElector | LeaderElectorOptions | undefined;
  /** Sharding: a coordinator, or the options to make one. */
  sharding?: ShardCoordinator | ShardCoordinatorOptions | undefined;
}

/** What the gate needs from the controller. */
export interface GateEnv<O> {
  readonly informers: readonly InformerLike<O>[];
  readonly clock: Clock;
  readonly pollMs: number;
  /** The keys of an object (errors already reported), or undefined. */
  keysOf(obj: O): readonly string[] | undefined;
  /** Puts a key on the queue. */
  enqueue(key: string): void;
  /** Reports an error (not fatal). */
  report(error: unknown): void;
}

/**
 * Builds the ownership from the options (validated: TypeError naming the option), or
 * undefined when neither is set. Options objects get the controller's clock and error handler.
 */
export function ownershipFrom(
  options: OwnershipOptions,
  clock: Clock,
  onError: OnError | undefined,
): Ownership | undefined {
  const { leaderElection, sharding } = options;
  if (leaderElection !== undefined && sharding !== undefined) {
    throw new TypeError("leaderElection and sharding cannot both be set");
  }
  if (leaderElection !== undefined) {
    if (typeof leaderElection !== "object" || leaderElection === null) {
      throw new TypeError("leaderElection must be a LeaderElector or LeaderElector options");
    }
    return electorOwnership(
      leaderElection instanceof LeaderElector
        ? leaderElection
        : new LeaderElector({ clock, onError, ...leaderElection }),
    );
  }
  if (sharding !== undefined) {
    if (typeof sharding !== "object" || sharding === null) {
      throw new TypeError("sharding must be a ShardCoordinator or ShardCoordinator options");
    }
    return shardOwnership(
      sharding instanceof ShardCoordinator
        ? sharding
        : new ShardCoordinator({ clock, onError, ...sharding }),
    );
  }
  return undefined;
}

/** Filters keys by ownership and replays the caches when ownership starts. */
export class OwnershipGate<O> {
  readonly #ownership: Ownership;
  readonly #env: GateEnv<O>;
  /** Keys of deletions this replica did not own, with when they were seen (oldest first). */
  readonly #tombstones = new Map<string, number>();
  readonly #replays = new Set<Promise<void>>();

  constructor(ownership: Ownership, env: GateEnv<O>) {
    this.#ownership = ownership;
    this.#env = env;
  }

  /** Whether an event's key goes on the queue now; a deletion not owned is remembered. */
  admit(key: string, deleted: boolean): boolean {
    if (this.#ownership.owns(key)) return true;
    if (deleted) {
      this.#tombstones.delete(key);
      this.#tombstones.set(key, this.#env.clock.now());
      this.#prune();
    }
    return false;
  }

  /** A permit to reconcile `key`, or undefined. */
  enter(key: string): KeyPermit | undefined {
    return this.#ownership.enter(key);
  }

  /**
   * Follows the election (or the group) until `signal` aborts, replaying keys whenever
   * ownership starts (and at once for what this replica already owns); with `start`, also
   * starts it, and stops it (releasing its Leases) once `signal` aborts. Resolves once
   * released (with `start`) and every replay ended.
   */
  async run(signal: AbortSignal, { start }: { start: boolean }): Promise<void> {
    const replay = (owns: (key: string) => boolean): void => {
      const running = this.#replay(owns, signal).catch((error: unknown) => {
        if (!signal.aborted) this.#env.report(error);
      });
      this.#replays.add(running);
      void running.finally(() => this.#replays.delete(running));
    };
    const unsubscribe = this.#ownership.onAcquired(replay);
    try {
      if (start) this.#ownership.start();
      else for (const owns of this.#ownership.current()) replay(owns);
      await new Promise<void>((resolve) => void onAbort(signal, resolve));
      if (start) await this.#ownership.stop();
    } finally {
      unsubscribe();
      await Promise.all([...this.#replays]);
    }
  }

  /** Enqueues every cached object's keys that `owns`, and the recent deletions it owns. */
  async #replay(owns: (key: string) => boolean, signal: AbortSignal): Promise<void> {
    this.#prune();
    for (const key of this.#tombstones.keys()) {
      if (owns(key)) this.#env.enqueue(key);
    }
    const offer = (obj: O): void => {
      for (const key of this.#env.keysOf(obj) ?? []) {
        if (owns(key) && this.#ownership.owns(key)) this.#env.enqueue(key);
      }
    };
    const registrations: InformerRegistrationLike[] = [];
    try {
      for (const informer of this.#env.informers) {
        registrations.push(informer.addEventHandler({ onAdd: offer }));
      }
      const wait = { clock: this.#env.clock, pollMs: this.#env.pollMs, signal };
      for (const registration of registrations) {
        await waitUntilSynced(registration, undefined, wait);
      }
    } finally {
      for (const registration of registrations) await registration.remove();
    }
  }

  #prune(): void {
    const oldest = this.#env.clock.now() - 2 * this.#ownership.leaseDurationMs;
    for (const [key, at] of this.#tombstones) {
      if (at >= oldest) break;
      this.#tombstones.delete(key);
    }
  }
}
