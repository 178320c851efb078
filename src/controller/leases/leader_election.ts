/**
 * Leader election on a `coordination.k8s.io/v1` Lease, with client-go's semantics and
 * defaults: among the replicas that run a {@linkcode LeaderElector} on the same Lease, at most
 * one believes it leads at any time, and a new one leads soon after the leader crashes.
 * @module
 */
import { Observers } from "./_observers.ts";
import type { KubeClient } from "../../client/kube_client.ts";
import { type Clock, sleep, systemClock } from "../../util/clock.ts";
import type { OnError } from "../../util/error_context.ts";
import { ErrorReporter } from "../../util/error_reporter.ts";
import type { LifecycleState } from "../../util/lifecycle.ts";
import {
  checkBoolean,
  checkClock,
  checkFunction,
  checkOptionsObject,
  requireNonEmptyString,
} from "../../util/validate.ts";
import { BackgroundLoop } from "./_background_loop.ts";
import { type AttemptResult, LeaseClaim } from "./_lease_claim.ts";
import {
  jittered,
  type LeaseTimingOptions,
  type LeaseTimings,
  resolveTimings,
} from "./lease_timing.ts";
import { LeaseTerm } from "./_lease_term.ts";
import { LeaseLock } from "./lease_lock.ts";

/**
 * Callbacks of a {@linkcode LeaderElector}: in its options, or added with
 * {@linkcode LeaderElector.observe}. Each is called synchronously as the event happens and not
 * awaited; an error thrown (or the rejection of an async callback) goes to `onError`.
 *
 * @example
 * ```ts
 * import type { LeaderElectionCallbacks } from "@kinformer/kinformer/controller";
 * import assert from "node:assert/strict";
 * const seen: string[] = [];
 * const callbacks: LeaderElectionCallbacks = {
 *   onStartedLeading: (signal) => signal.addEventListener("abort", () => seen.push("lost")),
 *   onStoppedLeading: () => seen.push("standing by"),
 *   onNewLeader: (identity) => seen.push(`leader is ${identity}`),
 * };
 * callbacks.onNewLeader?.("replica-a");
 * assert.deepEqual(seen, ["leader is replica-a"]);
 * ```
 */
export interface LeaderElectionCallbacks {
  /**
   * This replica became the leader. `signal` aborts the moment it stops leading (lease lost,
   * not renewed in time, or the elector stopped); leader-only work must stop then.
   */
  onStartedLeading?: ((signal: AbortSignal) => void) | undefined;
  /** This replica stopped leading (called once per term, after the term's signal aborted). */
  onStoppedLeading?: (() => void) | undefined;
  /**
   * The lease names a new holder (this replica included). A released lease (no holder) is not
   * reported.
   */
  onNewLeader?: ((identity: string) => void) | undefined;
}

/** Constructor options of {@linkcode LeaderElector}. */
export interface LeaderElectorOptions extends LeaseTimingOptions, LeaderElectionCallbacks {
  /** The client the Lease is read and written with. */
  client: KubeClient;
  /** Namespace of the Lease. */
  namespace: string;
  /** Name of the Lease: one per group of replicas electing a leader. */
  name: string;
  /** This replica's identity, unique among the candidates (e.g. the pod name). */
  identity: string;
  /**
   * On stop, give the lease up (holder `""`) once leading has stopped, so another replica takes
   * over at once instead of after the lease duration.
   * @default true
   */
  releaseOnStop?: boolean | undefined;
  /**
   * Time source: every deadline is measured on it.
   * @default the system clock (`Date.now` and the global timers)
   */
  clock?: Clock | undefined;
  /**
   * Random source in [0, 1) for jitter.
   * @default Math.random
   */
  random?: (() => number) | undefined;
  /**
   * Told about failed attempts (network errors, server errors, timeouts: phase `lease`,
   * `detail` the request) and throwing callbacks (phase `callback`), with the one
   * `ErrorContext` of kinformer (`kind` what the error is). Conflicts (another candidate
   * wrote first) are normal and not reported. It replaces the default printing. If it throws,
   * that error is rethrown on a microtask.
   * @default prints as every long-running object of kinformer does: the first error of each
   * kind at once (`leader election default/ctl (lease default/ctl): lease forbidden (403):
   * ...; retrying every retry period (next in 2 s)`), then at most one line per kind per minute with a
   * count, and one line when its requests succeed again
   */
  onError?: OnError | undefined;
}

/**
 * A snapshot of a {@linkcode LeaderElector}.
 *
 * @example
 * ```ts
 * import type { LeaderElectorHealth } from "@kinformer/kinformer/controller";
 * import assert from "node:assert/strict";
 * const h: LeaderElectorHealth = {
 *   state: "running", activity: "candidate", identity: "b", leader: "a", leading: false, leaseTransitions: 3,
 * };
 * assert.equal(h.leading, h.leader === h.identity);
 * ```
 */
export interface LeaderElectorHealth {
  /**
   * Where the elector is in its life, as every long-running object of kinformer says it:
   * `idle` before `start`, `running` from `start`, `stopping` while it stops leading and
   * releases the lease, `stopped` (it can be started again).
   */
  state: LifecycleState;
  /** Its role: `idle` before `start`, `candidate`, `leading`, `stopped` once stopped. */
  activity: "idle" | "candidate" | "leading" | "stopped";
  /** This replica's identity. */
  identity: string;
  /** The holder named by the last record seen, if any. */
  leader: string | undefined;
  /** Whether this replica leads now. */
  leading: boolean;
  /** While leading: when it stops unless renewed (own clock, ms since the epoch). */
  leadingUntil?: number;
  /** `leaseTransitions` of the last record seen. */
  leaseTransitions: number;
  /** The newest error, with its time. */
  lastError?: { message: string; at: number };
}

/**
 * Elects one leader among replicas through a Lease, the way client-go does:
 *
 * - a candidate polls the Lease every `retryPeriodMs`, and takes it over only once
 *   `leaseDurationSeconds` have passed **on its own clock** since it last saw the record change
 *   (then at once: it does not wait for its next poll); every write is conditional on the
 *   `resourceVersion` it read, so of two candidates only one wins (409 for the other);
 * - the leader renews every `retryPeriodMs` and stops leading at `start of its last successful
 *   renewal + renewDeadlineMs` (own clock), even if a renewal is still in flight: a response
 *   arriving later cannot extend it. Others wait at least `leaseDurationMs` from a moment after
 *   that renewal committed, so the leader has stopped `leaseDurationMs - renewDeadlineMs`
 *   before anyone else could start. This assumes the replicas' clocks run at about the same
 *   rate (any offset is fine; a clock running 1.5x faster than another is not, with the
 *   defaults): client-go's assumption;
 * - on stop it stops leading, then releases the lease (holder `""`) so the next leader starts
 *   at once;
 * - a replica that lost the lease campaigns again.
 *
 * Liveness: after the leader crashes or is cut off, a candidate leads within
 * `leaseDurationMs + retryPeriodMs` of the leader's last successful renewal, plus request
 * latency. Errors and conflicts wait a jittered retry period.
 *
 * @example
 * ```ts
 * import { KubeClient } from "@kinformer/kinformer/client";
 * import { LeaderElector } from "@kinformer/kinformer/controller";
 * import { ManualClock, SimulatedCluster } from "@kinformer/kinformer/testing";
 * import assert from "node:assert/strict";
 *
 * const clock = new ManualClock();
 * const cluster = new SimulatedCluster({ clock });
 * const client = new KubeClient({ server: "http://sim", fetch: cluster.fetch });
 * const started: string[] = [];
 * const elector = (identity: string) =>
 *   new LeaderElector({
 *     client, namespace: "default", name: "my-controller", identity, clock,
 *     onStartedLeading: () => started.push(identity),
 *   });
 * const a = elector("a");
 * const b = elector("b");
 * a.start();
 * await clock.advance(100);
 * b.start();
 * await clock.advance(4_000);
 * assert.deepEqual(started, ["a"]);
 * assert.equal(b.leader, "a");
 *
 * await a.stop(); // a stops leading and releases the lease: b takes over on its next poll
 * await clock.advance(2_000);
 * assert.deepEqual(started, ["a", "b"]);
 * await b.stop();
 * cluster.close();
 * ```
 */
export class LeaderElector implements AsyncDisposable {
  /** This replica's identity. */
  readonly identity: string;
  /** The validated timings. */
  readonly timings: LeaseTimings;
  readonly #claim: LeaseClaim;
  readonly #clock: Clock;
  readonly #random: () => number;
  readonly #releaseOnStop: boolean;
  readonly #observers: Observers<LeaderElectionCallbacks>;
  #activity: LeaderElectorHealth["activity"] = "idle";
  #term: LeaseTerm | undefined;
  #reported = "";
  /** The running campaign, from `start` until it has released. */
  readonly #background: BackgroundLoop;

  /** Validates the options; starts no I/O. */
  constructor(options: LeaderElectorOptions) {
    checkOptionsObject(options, "LeaderElector");
    if (options === undefined) throw new TypeError("LeaderElector: options are required");
    requireNonEmptyString(options.identity, "identity");
    checkClock(options.clock, "clock");
    checkFunction(options.random, "random");
    checkFunction(options.onError, "onError");
    checkFunction(options.onStartedLeading, "onStartedLeading");
    checkFunction(options.onStoppedLeading, "onStoppedLeading");
    checkFunction(options.onNewLeader, "onNewLeader");
    checkBoolean(options.releaseOnStop, "releaseOnStop");
    this.timings = resolveTimings(options);
    const lock = new LeaseLock({
      client: options.client,
      namespace: options.namespace,
      name: options.name,
    });
    this.identity = options.identity;
    this.#clock = options.clock ?? systemClock;
    this.#random = options.random ?? Math.random;
    this.#releaseOnStop = options.releaseOnStop ?? true;
    const source = `leader election ${lock.describe()}`;
    this.#observers = new Observers(
      this.#clock,
      new ErrorReporter({ source, onError: options.onError, clock: this.#clock }),
      { action: "retrying every retry period", inMs: this.timings.retryPeriodMs },
    );
    this.#background = new BackgroundLoop(source, "the elector stopped");
    this.#claim = new LeaseClaim(lock, this.identity, this.#clock, this.timings);
    const { onStartedLeading, onStoppedLeading, onNewLeader } = options;
    if (onStartedLeading || onStoppedLeading || onNewLeader) {
      this.#observers.add({ onStartedLeading, onStoppedLeading, onNewLeader });
    }
  }

  /** `namespace/name` of the Lease. */
  get lease(): string {
    return this.#claim.lock.describe();
  }

  /** The holder named by the last record seen, or undefined (none seen, or released). */
  get leader(): string | undefined {
    return this.#claim.holder === "" ? undefined : this.#claim.holder;
  }

  /**
   * Whether this replica leads now: it won the lease, and its renew deadline (own clock) has
   * not passed.
   */
  isLeader(): boolean {
    return this.#term !== undefined && this.#term.active(this.#clock.now());
  }

  /** While leading, the signal that aborts when leadership ends; otherwise undefined. */
  get leadershipSignal(): AbortSignal | undefined {
    return this.isLeader() ? this.#term!.signal : undefined;
  }

  /** Adds callbacks; returns a function that removes them. */
  observe(callbacks: LeaderElectionCallbacks): () => void {
    const entry = { ...callbacks };
    return this.#observers.add(entry);
  }

  /** A snapshot for health checks and dashboards. */
  health(): LeaderElectorHealth {
    const h: LeaderElectorHealth = {
      state: this.#background.state,
      activity: this.#activity,
      identity: this.identity,
      leader: this.leader,
      leading: this.isLeader(),
      leaseTransitions: this.#claim.snapshot?.record.leaseTransitions ?? 0,
    };
    if (h.leading) h.leadingUntil = this.#term!.until;
    if (this.#observers.lastError !== undefined) h.lastError = { ...this.#observers.lastError };
    return h;
  }

  /**
   * Starts campaigning in the background and returns at once: tries to lead, leads while it
   * can renew, campaigns again after losing the lease. Idempotent while running (the first
   * call's `signal` counts); aborting `signal` is the same as {@linkcode LeaderElector.stop}.
   * An elector that has stopped can be started again (a restart); while it stops, `start()`
   * throws. Failed requests never stop it (they go to `onError`).
   *
   * @throws {TypeError} when `options.signal` is not an AbortSignal.
   * @throws {LifecycleError} while a stop is under way: await `stop()` first.
   */
  start(options: { signal?: AbortSignal | undefined } = {}): void {
    this.#background.start(options, "LeaderElector.start", async (signal) => {
      this.#activity = "candidate";
      try {
        await this.#campaign(signal);
      } finally {
        this.#endTerm("the elector stopped");
        if (this.#releaseOnStop) await this.#release();
        this.#activity = "stopped";
      }
    });
  }

  /**
   * Stops: stops leading (the term's signal aborts), releases the lease (`releaseOnStop`), and
   * resolves once every request and timer is done. Idempotent; resolves at once when not
   * running.
   */
  stop(): Promise<void> {
    return this.#background.stop();
  }

  /** Same as {@linkcode LeaderElector.stop}, for `await using`. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.stop();
  }

  /** Whether the elector runs now (between `start` and the end of `stop`). */
  get running(): boolean {
    return this.#background.running;
  }

  async #campaign(signal: AbortSignal): Promise<void> {
    const t = this.timings;
    while (!signal.aborted) {
      const result = await this.#attempt(signal);
      if (signal.aborted) return;
      this.#reportLeader();
      let wait: number;
      const leading = this.#term !== undefined && !this.#term.ended;
      if (result === "held" && (leading || this.#claim.held(this.#clock.now()))) {
        if (leading) this.#term!.extend(this.#claim.heldUntil);
        else this.#startTerm();
        wait = t.retryPeriodMs;
      } else if (result === "held") {
        // The write succeeded, but its answer came after the deadline it would have granted.
        wait = t.retryPeriodMs;
      } else if (leading && result !== "taken") {
        wait = t.retryPeriodMs; // keep trying to renew until the deadline ends the term
      } else {
        if (leading) this.#endTerm(`the lease is held by ${this.#claim.holder}`);
        const expires = this.#claim.expiresAt();
        wait = result === "taken" && expires !== undefined
          ? Math.min(t.retryPeriodMs, Math.max(0, expires - this.#clock.now()))
          : jittered(t, this.#random);
      }
      try {
        await sleep(wait, { clock: this.#clock, signal });
      } catch {
        return;
      }
    }
  }

  /** One attempt, bounded by the term's deadline (leading) or a renew deadline (candidate). */
  async #attempt(signal: AbortSignal): Promise<AttemptResult | "failed"> {
    const term = this.#term;
    const within = term !== undefined && !term.ended
      ? term.until - this.#clock.now()
      : this.timings.renewDeadlineMs;
    const result = await this.#observers.request(
      signal,
      within,
      `lease ${this.lease}`,
      (s) => this.#claim.attempt(s),
    );
    return result ?? "failed";
  }

  #startTerm(): void {
    this.#term = new LeaseTerm(
      this.#clock,
      this.#claim.heldUntil,
      `leadership of ${this.lease}`,
      () => this.#stopped(),
    );
    this.#activity = "leading";
    const signal = this.#term.signal;
    this.#observers.notify((o) => o.onStartedLeading?.(signal));
  }

  #endTerm(reason: string): void {
    if (this.#term?.end(reason)) this.#stopped();
  }

  #stopped(): void {
    this.#claim.drop();
    if (this.#activity === "leading") this.#activity = "candidate";
    this.#observers.notify((o) => o.onStoppedLeading?.());
  }

  async #release(): Promise<void> {
    await this.#observers.request(
      new AbortController().signal,
      this.timings.renewDeadlineMs,
      `releasing lease ${this.lease}`,
      (s) => this.#claim.release(s),
    );
    this.#reportLeader();
  }

  #reportLeader(): void {
    const holder = this.#claim.holder;
    if (holder === "" || holder === this.#reported) return;
    this.#reported = holder;
    this.#observers.notify((o) => o.onNewLeader?.(holder));
  }
}
