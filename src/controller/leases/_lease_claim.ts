/**
 * One candidate's view of one Lease and its attempts to take or keep it: client-go's
 * `tryAcquireOrRenew`, shared by the leader elector and the shard coordinator. Internal.
 *
 * The rules, all on the candidate's own clock (timestamps in the record are never compared
 * across processes):
 * - a lease held by another is free once `leaseDurationSeconds` (the holder's own figure) have
 *   passed since this candidate last saw the record change (`observedAt`);
 * - a successful write started at `start` lets its writer hold the lease until
 *   `start + renewDeadlineMs`; the others cannot take it before `observedAt + leaseDuration`,
 *   and `observedAt` is after the write committed, which is after `start`. So with
 *   `renewDeadline < leaseDuration` the holder stops before anyone else may start, as long as
 *   the clocks run at about the same rate (the margin, 5 s of 15 by default, absorbs rate
 *   differences over one lease duration and the time between seeing a change and recording it).
 * @module
 */
import { KubeApiError } from "../../client/errors.ts";
import type { Clock } from "../../util/clock.ts";
import { compareResourceVersions } from "../../util/resource_version.ts";
import type { LeaseLock, LeaseRecord, LeaseSnapshot } from "./lease_lock.ts";

/** What an attempt found: held by us now, held by another (still valid), or lost a race. */
export type AttemptResult = "held" | "taken" | "conflict";

/** Timings of a claim. */
export interface ClaimTimings {
  /** Own lease duration (written into the record). */
  readonly leaseDurationMs: number;
  /** How long a successful write lets us hold the lease, from the write's start. */
  readonly renewDeadlineMs: number;
}

function isConflict(error: unknown): boolean {
  return error instanceof KubeApiError && error.code === 409;
}

/** One Lease as seen by one candidate. */
export class LeaseClaim {
  readonly lock: LeaseLock;
  readonly identity: string;
  readonly #clock: Clock;
  readonly #timings: ClaimTimings;
  #snapshot: LeaseSnapshot | undefined;
  /** Whether the lease is known not to exist (from a list). */
  #absent = false;
  #observedAt = -Infinity;
  #heldUntil = -Infinity;

  constructor(lock: LeaseLock, identity: string, clock: Clock, timings: ClaimTimings) {
    this.lock = lock;
    this.identity = identity;
    this.#clock = clock;
    this.#timings = timings;
  }

  /** The last record seen (or written), if any. */
  get snapshot(): LeaseSnapshot | undefined {
    return this.#snapshot;
  }

  /** The holder in the last record seen; `""` when none or unknown. */
  get holder(): string {
    return this.#snapshot?.record.holderIdentity ?? "";
  }

  /** Until when a successful write lets us hold the lease (own clock); -Infinity when not. */
  get heldUntil(): number {
    return this.#heldUntil;
  }

  /** Whether we hold the lease at `now`. */
  held(now: number): boolean {
    return now < this.#heldUntil;
  }

  /** Stops believing we hold the lease (before a release, or when the term ended). */
  drop(): void {
    this.#heldUntil = -Infinity;
  }

  /**
   * Records a Lease read at `at` (a GET or a LIST). A record older than the one we have is
   * ignored; `observedAt` moves only when the record changed.
   */
  observe(snapshot: LeaseSnapshot, at: number): void {
    const known = this.#snapshot;
    this.#absent = false;
    if (known !== undefined) {
      if (known.resourceVersion === snapshot.resourceVersion) return;
      const order = compareResourceVersions(snapshot.resourceVersion, known.resourceVersion);
      if (order !== undefined && order < 0) return;
    }
    this.#snapshot = snapshot;
    this.#observedAt = at;
  }

  /** Records that a list did not contain the Lease. */
  observeAbsent(): void {
    this.#snapshot = undefined;
    this.#absent = true;
  }

  /**
   * When another holder's lease expires by our observation, or undefined when it is not held
   * by another (free, ours, or unknown).
   */
  expiresAt(): number | undefined {
    const record = this.#snapshot?.record;
    if (record === undefined || record.holderIdentity === "") return undefined;
    if (record.holderIdentity === this.identity) return undefined;
    return this.#observedAt + record.leaseDurationSeconds * 1000;
  }

  /** Whether we may try to write the lease at `now`: free, ours, expired, or not known. */
  claimable(now: number): boolean {
    const expires = this.expiresAt();
    return expires === undefined || now >= expires;
  }

  /**
   * One try to take or keep the lease. When we hold it, a conditional update from our last
   * write (one request); otherwise (or on a conflict) a GET, then a create or a conditional
   * update if the lease is free, ours or expired. `useObserved` skips that GET when a list has
   * just been observed. Network and server errors are thrown.
   */
  async attempt(signal: AbortSignal, useObserved = false): Promise<AttemptResult> {
    const start = this.#clock.now();
    const known = this.#snapshot;
    if (this.held(start) && known !== undefined && known.record.holderIdentity === this.identity) {
      try {
        const written = await this.lock.update(known, this.#renewal(known.record, start), signal);
        return this.#won(written, start);
      } catch (error) {
        if (!isConflict(error)) throw error;
      }
    }
    if (!useObserved || (this.#snapshot === undefined && !this.#absent)) {
      const read = await this.lock.get(signal);
      if (read === undefined) this.observeAbsent();
      else this.observe(read, this.#clock.now());
    }
    const current = this.#snapshot;
    if (current === undefined) {
      try {
        const created = await this.lock.create(this.#ours(start, 0), signal);
        return this.#won(created, start);
      } catch (error) {
        if (isConflict(error)) return "conflict";
        throw error;
      }
    }
    const record = current.record;
    if (!this.claimable(this.#clock.now())) return "taken";
    const next = record.holderIdentity === this.identity
      ? this.#renewal(record, start)
      : this.#ours(start, record.leaseTransitions + 1);
    try {
      return this.#won(await this.lock.update(current, next, signal), start);
    } catch (error) {
      if (isConflict(error)) return "conflict";
      throw error;
    }
  }

  /**
   * Gives the lease up (holder `""`) if the last record we saw is ours, so a successor need
   * not wait for it to expire. The caller must have stopped all work guarded by it. Returns
   * whether a release was written.
   */
  async release(signal: AbortSignal): Promise<boolean> {
    this.drop();
    const current = this.#snapshot;
    if (current === undefined || current.record.holderIdentity !== this.identity) return false;
    const now = this.#clock.now();
    const record: LeaseRecord = {
      holderIdentity: "",
      leaseDurationSeconds: 1,
      acquireTime: now,
      renewTime: now,
      leaseTransitions: current.record.leaseTransitions,
    };
    try {
      this.observe(await this.lock.update(current, record, signal), this.#clock.now());
      return true;
    } catch (error) {
      // Changed since our last write: not ours to release any more (even if it names our
      // identity: that may be a restarted process with the same identity). It will expire.
      if (isConflict(error)) return false;
      throw error;
    }
  }

  #won(written: LeaseSnapshot, start: number): "held" {
    this.observe(written, this.#clock.now());
    this.#heldUntil = Math.max(this.#heldUntil, start + this.#timings.renewDeadlineMs);
    return "held";
  }

  /** Our record, written at `start`: acquired then, or (a renewal) when `record` says. */
  #ours(start: number, transitions: number, acquireTime = start): LeaseRecord {
    return {
      holderIdentity: this.identity,
      leaseDurationSeconds: this.#timings.leaseDurationMs / 1000,
      acquireTime,
      renewTime: start,
      leaseTransitions: transitions,
    };
  }

  #renewal(record: LeaseRecord, start: number): LeaseRecord {
    return this.#ours(start, record.leaseTransitions, record.acquireTime ?? start);
  }
}
