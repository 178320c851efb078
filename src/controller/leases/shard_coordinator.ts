/**
 * Sharded controllers: N replicas split the key space. Keys hash into a fixed number of
 * shards; each shard is a Lease, held by one replica at a time with the leader-election rules;
 * which replica should hold which shard follows from the live members (each replica renews a
 * member Lease) by consistent hashing with bounded loads.
 * @module
 */
import { Observers } from "./_observers.ts";
import type { KubeClient } from "../../client/kube_client.ts";
import { leases } from "../../client/resource.ts";
import { type Clock, sleep, systemClock } from "../../util/clock.ts";
import { ErrorReporter } from "../../util/error_reporter.ts";
import {
  checkClock,
  checkFunction,
  checkNumber,
  checkOptionsObject,
  requireNonEmptyString,
} from "../../util/validate.ts";
import { BackgroundLoop } from "./_background_loop.ts";
import { describeValue } from "../../util/values.ts";
import { LeaseClaim } from "./_lease_claim.ts";
import { jittered, type LeaseTimings, resolveTimings } from "./lease_timing.ts";
import { LeaseTerm } from "./_lease_term.ts";
import { LeaseLock, leaseSnapshot } from "./lease_lock.ts";
import { assignShards, SHARD_COUNT, shardOf } from "./shard_assignment.ts";
import {
  memberLeaseName,
  SHARD_GROUP_LABEL,
  SHARD_ROLE_LABEL,
  type ShardCallbacks,
  type ShardCoordinatorHealth,
  type ShardCoordinatorOptions,
  type ShardPermit,
} from "./shard_coordinator_options.ts";
import { isDnsLabel } from "../../util/dns_names.ts";

interface Slot {
  readonly index: number;
  readonly claim: LeaseClaim;
  term: LeaseTerm | undefined;
  /** Stopped, still holding the lease until its permits exit, then released. */
  draining: boolean;
  inflight: number;
  wake: (() => void) | undefined;
}

/**
 * Splits keys among replicas, each key owned by at most one replica at a time.
 *
 * How: keys hash into `shards` shards ({@linkcode shardOf}). Every `retryPeriodMs` each replica
 * renews its member Lease, lists the group's Leases, computes the owner of every shard from the
 * live members ({@linkcode assignShards}: same inputs, same answer on every replica), renews
 * the shard Leases it holds, takes the ones it should own once they are free or expired, and
 * gives up the ones it should no longer own: it stops them (their signal aborts), waits for
 * their permits to exit, then releases the Lease so the new owner starts at once. A shard Lease
 * follows the {@linkcode LeaderElector} rules (own clock, observed changes, renew deadline,
 * conditional writes), so a replica stops a shard before its Lease could pass to another. A
 * crashed replica's member and shard Leases expire on the others' clocks within
 * `leaseDurationMs + retryPeriodMs`, and its shards move; a new replica takes a fair share
 * within a few retry periods.
 *
 * Requests per replica and retry period: one member renewal, one LIST of the group's Leases,
 * one renewal per owned shard. RBAC: `leases` `get`, `list`, `create`, `update`, `delete`
 * (departed members' Leases are deleted).
 *
 * @example
 * ```ts
 * import { KubeClient } from "@kinformer/kinformer/client";
 * import { ShardCoordinator } from "@kinformer/kinformer/controller";
 * import { ManualClock, SimulatedCluster } from "@kinformer/kinformer/testing";
 * import assert from "node:assert/strict";
 *
 * const clock = new ManualClock();
 * const cluster = new SimulatedCluster({ clock });
 * const client = new KubeClient({ server: "http://sim", fetch: cluster.fetch });
 * const replica = (identity: string) =>
 *   new ShardCoordinator({ client, namespace: "default", name: "ctl", identity, shards: 8, clock });
 * const a = replica("a");
 * const b = replica("b");
 * a.start();
 * b.start();
 * await clock.advance(10_000);
 * assert.equal(a.ownedShards().length + b.ownedShards().length, 8);
 * assert.deepEqual(a.ownedShards().filter((s) => b.ownedShards().includes(s)), []);
 * const permit = a.enter("default/web-1") ?? b.enter("default/web-1"); // exactly one owns it
 * permit?.exit();
 * await Promise.all([a.stop(), b.stop()]);
 * cluster.close();
 * ```
 */
export class ShardCoordinator implements AsyncDisposable {
  /** This replica's identity. */
  readonly identity: string;
  /** Group name. */
  readonly name: string;
  /** Namespace of the Leases. */
  readonly namespace: string;
  /** Number of shards. */
  readonly shardCount: number;
  /** The validated timings. */
  readonly timings: LeaseTimings;
  readonly #client: KubeClient;
  readonly #clock: Clock;
  readonly #random: () => number;
  readonly #observers: Observers<ShardCallbacks>;
  readonly #member: LeaseClaim;
  readonly #others = new Map<string, LeaseClaim>();
  readonly #slots: Slot[] = [];
  #members: string[] = [];
  /** The running group membership, from `start` until released. */
  readonly #background: BackgroundLoop;

  /** Validates the options; starts no I/O. */
  constructor(options: ShardCoordinatorOptions) {
    checkOptionsObject(options, "ShardCoordinator");
    if (options === undefined) throw new TypeError("ShardCoordinator: options are required");
    requireNonEmptyString(options.identity, "identity");
    requireNonEmptyString(options.namespace, "namespace");
    if (
      typeof options.name !== "string" || !isDnsLabel(options.name, 50)
    ) {
      throw new TypeError(
        `name must be a DNS label of at most 50 characters (lowercase letters, digits, '-'), got ${
          describeValue(options.name)
        }`,
      );
    }
    checkNumber(options.shards, "shards", SHARD_COUNT);
    checkClock(options.clock, "clock");
    checkFunction(options.random, "random");
    checkFunction(options.onError, "onError");
    checkFunction(options.onShardStarted, "onShardStarted");
    checkFunction(options.onShardStopped, "onShardStopped");
    checkFunction(options.onMembersChanged, "onMembersChanged");
    this.timings = resolveTimings(options);
    this.identity = options.identity;
    this.name = options.name;
    this.namespace = options.namespace;
    this.shardCount = options.shards ?? 16;
    this.#client = options.client;
    this.#clock = options.clock ?? systemClock;
    this.#random = options.random ?? Math.random;
    const source = `shard coordinator ${this.namespace}/${this.name} (${this.identity})`;
    this.#observers = new Observers(
      this.#clock,
      new ErrorReporter({ source, onError: options.onError, clock: this.#clock }),
      { action: "retrying every retry period", inMs: this.timings.retryPeriodMs },
    );
    this.#background = new BackgroundLoop(source, "the coordinator stopped");
    const lock = (name: string, role: "member" | "shard"): LeaseLock =>
      new LeaseLock({
        client: options.client,
        namespace: options.namespace,
        name,
        labels: { [SHARD_GROUP_LABEL]: this.name, [SHARD_ROLE_LABEL]: role },
      });
    this.#member = new LeaseClaim(
      lock(memberLeaseName(this.name, this.identity), "member"),
      this.identity,
      this.#clock,
      this.timings,
    );
    for (let i = 0; i < this.shardCount; i++) {
      this.#slots.push({
        index: i,
        claim: new LeaseClaim(
          lock(`${this.name}-shard-${i}`, "shard"),
          this.identity,
          this.#clock,
          this.timings,
        ),
        term: undefined,
        draining: false,
        inflight: 0,
        wake: undefined,
      });
    }
    const { onShardStarted, onShardStopped, onMembersChanged } = options;
    if (onShardStarted || onShardStopped || onMembersChanged) {
      this.#observers.add({ onShardStarted, onShardStopped, onMembersChanged });
    }
  }

  /** The shard of `key` ({@linkcode shardOf} with this group's shard count). */
  shardOf(key: string): number {
    return shardOf(key, this.shardCount);
  }

  /** Whether this replica owns `shard` now (held, renew deadline not passed, not stopping). */
  ownsShard(shard: number): boolean {
    const slot = this.#slots[shard];
    return slot?.term !== undefined && slot.term.active(this.#clock.now());
  }

  /** Whether this replica owns the shard of `key` now. */
  owns(key: string): boolean {
    return this.ownsShard(this.shardOf(key));
  }

  /** The shards this replica owns now, ascending. */
  ownedShards(): number[] {
    return this.#slots.filter((s) => this.ownsShard(s.index)).map((s) => s.index);
  }

  /** Live members (sorted identities) as this replica last saw them. */
  members(): string[] {
    return [...this.#members];
  }

  /**
   * A permit to work on `key` now, or undefined when this replica does not own its shard.
   * While a permit is out, the shard is not released to another replica (it can still be lost
   * if renewals fail: then the permit's signal aborts).
   */
  enter(key: string): ShardPermit | undefined {
    const shard = this.shardOf(key);
    const slot = this.#slots[shard]!;
    const term = slot.term;
    if (term === undefined || !term.active(this.#clock.now())) return undefined;
    slot.inflight++;
    let open = true;
    return {
      shard,
      signal: term.signal,
      exit: () => {
        if (!open) return;
        open = false;
        slot.inflight--;
        if (slot.inflight === 0) slot.wake?.();
      },
    };
  }

  /** Adds callbacks; returns a function that removes them. */
  observe(callbacks: ShardCallbacks): () => void {
    const entry = { ...callbacks };
    return this.#observers.add(entry);
  }

  /** A snapshot for health checks and dashboards. */
  health(): ShardCoordinatorHealth {
    const running = this.#background.running;
    const h: ShardCoordinatorHealth = {
      state: this.#background.state,
      activity: !running
        ? (this.#background.state === "idle" ? "idle" : "stopped")
        : this.ownedShards().length > 0
        ? "leading"
        : "candidate",
      identity: this.identity,
      shards: this.shardCount,
      owned: this.ownedShards(),
      members: this.members(),
    };
    if (this.#observers.lastError !== undefined) h.lastError = { ...this.#observers.lastError };
    return h;
  }

  /**
   * Starts taking part in the group in the background and returns at once. Idempotent while
   * running (the first call's `signal` counts); aborting `signal` is the same as
   * {@linkcode ShardCoordinator.stop}. A stopped coordinator can be started again (a
   * restart); while it stops, `start()` throws. Failed requests never stop it (they go to
   * `onError`).
   *
   * @throws {TypeError} when `options.signal` is not an AbortSignal.
   * @throws {LifecycleError} while a stop is under way: await `stop()` first.
   */
  start(options: { signal?: AbortSignal | undefined } = {}): void {
    this.#background.start(options, "ShardCoordinator.start", async (signal) => {
      try {
        await this.#loop(signal);
      } finally {
        await this.#shutdown();
      }
    });
  }

  /**
   * Stops every owned shard, waits for their permits (at most until each shard's deadline),
   * releases the shard Leases, deletes this replica's member Lease, and resolves once every
   * request and timer is done. Idempotent; resolves at once when not running.
   */
  stop(): Promise<void> {
    return this.#background.stop();
  }

  /** Same as {@linkcode ShardCoordinator.stop}, for `await using`. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.stop();
  }

  /** Whether the coordinator runs now (between `start` and the end of `stop`). */
  get running(): boolean {
    return this.#background.running;
  }

  async #loop(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      const ok = await this.#tick(signal);
      if (signal.aborted) break;
      try {
        await sleep(ok ? this.#nextWait() : jittered(this.timings, this.#random), {
          clock: this.#clock,
          signal,
        });
      } catch {
        break;
      }
    }
  }

  /** One round: member renewal, list, assignment, shard actions. False when the list failed. */
  async #tick(signal: AbortSignal): Promise<boolean> {
    const t = this.timings;
    await this.#request(
      signal,
      t.renewDeadlineMs,
      "renewing the member lease",
      (s) => this.#member.attempt(s),
    );
    const listed = await this.#request(
      signal,
      t.renewDeadlineMs,
      "listing leases",
      (s) => this.#list(s),
    );
    if (signal.aborted) return false;
    this.#updateMembers();
    const owners = assignShards(this.#members, this.shardCount);
    await Promise.all(
      this.#slots.map((slot) =>
        this.#step(slot, owners[slot.index] === this.identity, listed === true, signal)
      ),
    );
    if (listed === true) await this.#collectDeparted(signal);
    return listed === true;
  }

  async #list(signal: AbortSignal): Promise<true> {
    const list = await this.#client.list(leases, {
      namespace: this.namespace,
      labelSelector: `${SHARD_GROUP_LABEL}=${this.name}`,
      signal,
    });
    const at = this.#clock.now();
    const seenShards = new Set<number>();
    const seenMembers = new Set<string>();
    const prefix = `${this.name}-shard-`;
    for (const item of list.items) {
      const name = item.metadata.name ?? "";
      const role = item.metadata.labels?.[SHARD_ROLE_LABEL];
      const snapshot = leaseSnapshot(item);
      if (role === "shard" && name.startsWith(prefix)) {
        const index = Number(name.slice(prefix.length));
        const slot = this.#slots[index];
        if (slot === undefined || String(index) !== name.slice(prefix.length)) continue;
        seenShards.add(index);
        slot.claim.observe(snapshot, at);
      } else if (role === "member") {
        if (name === this.#member.lock.name) {
          this.#member.observe(snapshot, at);
          continue;
        }
        seenMembers.add(name);
        let claim = this.#others.get(name);
        if (claim === undefined) {
          claim = new LeaseClaim(
            new LeaseLock({ client: this.#client, namespace: this.namespace, name }),
            this.identity,
            this.#clock,
            this.timings,
          );
          this.#others.set(name, claim);
        }
        claim.observe(snapshot, at);
      }
    }
    for (const slot of this.#slots) if (!seenShards.has(slot.index)) slot.claim.observeAbsent();
    for (const name of [...this.#others.keys()]) {
      if (!seenMembers.has(name)) this.#others.delete(name);
    }
    return true;
  }

  #updateMembers(): void {
    const now = this.#clock.now();
    const live = new Set<string>();
    if (this.#member.held(now)) live.add(this.identity);
    for (const claim of this.#others.values()) {
      const holder = claim.holder;
      if (holder !== "" && holder !== this.identity && !claim.claimable(now)) live.add(holder);
    }
    const members = [...live].sort();
    if (members.join("\u0000") === this.#members.join("\u0000")) return;
    this.#members = members;
    this.#observers.notify((o) => o.onMembersChanged?.(members));
  }

  /** Renews, takes, stops or releases one shard. */
  async #step(slot: Slot, desired: boolean, listed: boolean, signal: AbortSignal): Promise<void> {
    const t = this.timings;
    const term = slot.term;
    if (term !== undefined && !term.ended) {
      if (desired) {
        const result = await this.#request(
          signal,
          term.until - this.#clock.now(),
          `renewing shard ${slot.index}`,
          (s) => slot.claim.attempt(s),
        );
        if (result === "held" && !term.ended) term.extend(slot.claim.heldUntil);
        else if (result === "taken") this.#stopShard(slot, "another replica holds its lease");
        return;
      }
      // Rebalancing: stop now, keep the lease until the permits exit, then release it.
      slot.draining = true;
      this.#stopShard(slot, "another replica should own it", false);
    }
    if (slot.draining) {
      if (slot.inflight === 0) {
        slot.draining = false;
        await this.#request(
          signal,
          t.renewDeadlineMs,
          `releasing shard ${slot.index}`,
          (s) => slot.claim.release(s),
        );
      } else if (slot.claim.held(this.#clock.now())) {
        await this.#request(
          signal,
          slot.claim.heldUntil - this.#clock.now(),
          `keeping shard ${slot.index} while it drains`,
          (s) => slot.claim.attempt(s),
        );
      } else {
        slot.draining = false; // lapsed: nothing left to release
      }
      return;
    }
    if (!desired) {
      // Still named in a Lease we no longer use (a term that lapsed): give it back now rather
      // than make its next owner wait for it to expire.
      if (listed && slot.claim.holder === this.identity && slot.inflight === 0) {
        await this.#request(
          signal,
          t.renewDeadlineMs,
          `releasing shard ${slot.index}`,
          (s) => slot.claim.release(s),
        );
      }
      return;
    }
    if (!slot.claim.claimable(this.#clock.now())) return;
    const result = await this.#request(
      signal,
      t.renewDeadlineMs,
      `taking shard ${slot.index}`,
      (s) => slot.claim.attempt(s, listed),
    );
    if (result === "held" && slot.claim.held(this.#clock.now()) && !signal.aborted) {
      this.#startShard(slot);
    }
  }

  #startShard(slot: Slot): void {
    const term = new LeaseTerm(
      this.#clock,
      slot.claim.heldUntil,
      `shard ${slot.index} of ${this.name}`,
      () => {
        slot.claim.drop();
        this.#observers.notify((o) => o.onShardStopped?.(slot.index));
      },
    );
    slot.term = term;
    this.#observers.notify((o) => o.onShardStarted?.(slot.index, term.signal));
  }

  /** Ends the shard's term; `drop` also stops believing the lease is held. */
  #stopShard(slot: Slot, reason: string, drop = true): void {
    if (slot.term?.end(reason)) {
      if (drop) slot.claim.drop();
      this.#observers.notify((o) => o.onShardStopped?.(slot.index));
    }
  }

  /** Deletes member Leases released or expired for more than a lease duration. */
  async #collectDeparted(signal: AbortSignal): Promise<void> {
    const now = this.#clock.now();
    for (const [name, claim] of [...this.#others]) {
      const expires = claim.expiresAt();
      const gone = claim.holder === "" ||
        (expires !== undefined && now >= expires + this.timings.leaseDurationMs);
      if (!gone) continue;
      this.#others.delete(name);
      await this.#request(
        signal,
        this.timings.renewDeadlineMs,
        `deleting lease ${name}`,
        (s) => claim.lock.delete(s),
      );
    }
  }

  /** Until the next tick: a retry period, or sooner when a lease we watch expires. */
  #nextWait(): number {
    const now = this.#clock.now();
    let wait = this.timings.retryPeriodMs;
    const consider = (at: number | undefined): void => {
      if (at !== undefined && at > now) wait = Math.min(wait, at - now);
    };
    for (const claim of this.#others.values()) consider(claim.expiresAt());
    for (const slot of this.#slots) consider(slot.claim.expiresAt());
    return wait;
  }

  async #shutdown(): Promise<void> {
    const stopping = this.#slots.filter((s) => s.term !== undefined && !s.term.ended);
    for (const slot of stopping) {
      slot.draining = true;
      this.#stopShard(slot, "the coordinator stopped", false);
    }
    const t = this.timings;
    const releases = this.#slots.filter((s) => s.draining).map(async (slot) => {
      slot.draining = false;
      if (slot.inflight > 0) {
        const drained = await this.#waitDrained(slot, slot.claim.heldUntil);
        if (!drained) return; // still busy at its deadline: let the lease expire instead
      }
      await this.#request(
        new AbortController().signal,
        t.renewDeadlineMs,
        `releasing shard ${slot.index}`,
        (s) => slot.claim.release(s),
      );
    });
    await Promise.all(releases);
    this.#member.drop();
    await this.#request(
      new AbortController().signal,
      t.renewDeadlineMs,
      "deleting the member lease",
      (s) => this.#member.lock.delete(s),
    );
    this.#members = [];
  }

  /** Resolves true once the slot's permits exited, false at `until` on the clock. */
  #waitDrained(slot: Slot, until: number): Promise<boolean> {
    return new Promise((resolve) => {
      const timer = this.#clock.setTimeout(() => {
        slot.wake = undefined;
        resolve(false);
      }, until - this.#clock.now());
      slot.wake = () => {
        this.#clock.clearTimeout(timer);
        slot.wake = undefined;
        resolve(true);
      };
    });
  }

  /** Runs one request with a deadline; errors are reported and give undefined. */
  #request<T>(
    signal: AbortSignal,
    withinMs: number,
    what: string,
    fn: (signal: AbortSignal) => Promise<T>,
  ): Promise<T | undefined> {
    return this.#observers.request(signal, withinMs, `${what} (${this.identity})`, fn);
  }
}
