/**
 * A manager: several controllers sharing informers and one leader election (or one sharding
 * group), started and stopped together, with `/healthz`, `/readyz` and `/metrics` answered by a
 * web-standard `fetch(Request): Response` handler, as controller-runtime's manager does.
 * Serving it and catching SIGTERM are the runtime's part: `@kinformer/kinformer/controller/deno`,
 * `/bun` and `/node` (`runManager`).
 * @module
 */
import { onAbort } from "../../util/abort.ts";
import { type Clock, systemClock } from "../../util/clock.ts";
import type { ErrorContext, OnError } from "../../util/error_context.ts";
import { ErrorReporter } from "../../util/error_reporter.ts";
import { Lifecycle, type LifecycleState } from "../../util/lifecycle.ts";
import { reportError } from "../../util/report_error.ts";
import {
  checkBoolean,
  checkClock,
  checkFunction,
  checkNumber,
  checkOptionsObject,
  checkSignal,
} from "../../util/validate.ts";
import { describeValue, messageOf } from "../../util/values.ts";
import {
  type ControllerRuntimeMetrics,
  controllerRuntimeMetrics,
} from "../../metrics/controller_runtime.ts";
import { PROMETHEUS_CONTENT_TYPE } from "../../metrics/prometheus.ts";
import { Controller } from "../reconcile/controller.ts";
import type { ControllerOptions } from "../reconcile/controller_options.ts";
import type { InformerLike } from "../reconcile/informer_like.ts";
import { LeaderElector, type LeaderElectorOptions } from "../leases/leader_election.ts";
import { ShardCoordinator } from "../leases/shard_coordinator.ts";
import type { ShardCoordinatorOptions } from "../leases/shard_coordinator_options.ts";
import { type HealthCheck, healthResponse, requestTarget } from "./_health_endpoints.ts";

/**
 * Something a manager starts before its controllers and stops after them, such as an
 * {@linkcode EventRecorder}: anything with the library's lifecycle.
 *
 * @example
 * ```ts
 * import type { Runnable } from "@kinformer/kinformer/controller";
 * import assert from "node:assert/strict";
 * let running = false;
 * const runnable: Runnable = { start: () => void (running = true), stop: async () => void (running = false) };
 * runnable.start();
 * assert.equal(running, true);
 * ```
 */
export interface Runnable {
  /** Starts background work; returns at once. */
  start(options?: { signal?: AbortSignal | undefined }): void;
  /** Stops and resolves once everything is released. */
  stop(): Promise<void>;
}

/** Options of {@linkcode Manager}. */
export interface ManagerOptions {
  /**
   * One leader election for every controller: only the leader's controllers reconcile; every
   * replica keeps its caches synced and is ready. A {@linkcode LeaderElector}, or its options
   * (`clock` and `onError` default to the manager's). It campaigns once every controller's
   * caches have synced and releases the lease after the last reconcile when stopping.
   * @default undefined (every controller reconciles)
   */
  leaderElection?: LeaderElector | LeaderElectorOptions | undefined;
  /** One sharding group for every controller, instead of `leaderElection`. @default undefined */
  sharding?: ShardCoordinator | ShardCoordinatorOptions | undefined;
  /**
   * The metrics `/metrics` serves; each controller gets `metrics.controller(name)` unless its
   * options name other hooks. Leader election sets `leader_election_master_status`.
   * @default controllerRuntimeMetrics({ clock })
   */
  metrics?: ControllerRuntimeMetrics | undefined;
  /**
   * More expositions appended to `/metrics`, e.g. `prometheusMetrics()` of the informers.
   * @default []
   */
  extraMetrics?: readonly { render(): string }[] | undefined;
  /**
   * Start the controllers' informers (each once, however many controllers share it) and stop
   * them after the controllers. Turn off when they are started elsewhere.
   * @default true
   */
  startInformers?: boolean | undefined;
  /**
   * On stop, how long in-flight reconciles may go on before their `ctx.signal` aborts
   * (controller-runtime's `GracefulShutdownTimeout`). The lease is released only after the
   * last reconcile returned.
   * @default 30000
   */
  gracefulShutdownTimeoutMs?: number | undefined;
  /** Time source. @default systemClock */
  clock?: Clock | undefined;
  /**
   * Told about every error of the controllers (unless a controller has its own `onError`), the
   * coordination and the runnables, with the one `ErrorContext` of kinformer: `kind` what the
   * error is, `phase` where (a controller's phases, with `controller` its name; `lease` and
   * `callback` for the leader election or sharding; `runnable` for a runnable or informer
   * whose `stop` threw, and for a controller that stopped by itself, which stops the manager).
   * It replaces the default printing. If it throws, that error is rethrown on a microtask.
   * @default prints as every long-running object of kinformer does: each controller, the
   * coordination and the manager print the first error of each kind at once, then at most
   * one line per kind per minute with a count
   */
  onError?: OnError | undefined;
}

/**
 * A snapshot of a {@linkcode Manager}.
 *
 * @example
 * ```ts
 * import type { ManagerHealth } from "@kinformer/kinformer/controller";
 * import assert from "node:assert/strict";
 * const h: ManagerHealth = { state: "running", synced: true, leading: false, controllers: [] };
 * assert.equal(h.state, "running");
 * ```
 */
export interface ManagerHealth {
  /**
   * `idle`, `starting` (caches syncing), `running`, `stopping`, `stopped`: the one vocabulary
   * of every `health().state`. Whether this replica leads is `leading`.
   */
  state: LifecycleState;
  /** Whether every controller's caches have synced. */
  synced: boolean;
  /** Whether this replica reconciles (leads, owns a shard, or has no coordination). */
  leading: boolean;
  /** Every controller's health. */
  controllers: ReturnType<Controller["health"]>[];
  /** Why the manager stopped by itself, if it did. */
  failure?: { message: string };
}

/** The name of a lease from `namespace/name`. */
function leaseName(lease: string): string {
  return lease.slice(lease.indexOf("/") + 1);
}

/**
 * Runs several controllers as one: shared informers (started once), one leader election or
 * sharding group, one `/metrics`, and a lifecycle:
 *
 * - {@linkcode Manager.start}: starts the runnables, the informers and the controllers; once
 *   every controller's caches have synced, it is ready and the leader election (or the group)
 *   starts: a standby replica is ready too, with synced caches;
 * - {@linkcode Manager.stop}: the controllers stop taking keys at once; in-flight reconciles
 *   have `gracefulShutdownTimeoutMs` before their signal aborts; once the last one returned,
 *   the lease is released (the next leader starts at once), then the informers and runnables
 *   stop;
 * - a controller that stops by itself (its `onError` threw, an informer failed) stops the
 *   manager: `/healthz` fails and {@linkcode Manager.whenStopped} rejects.
 *
 * A manager runs once: `start()` after `stop()` throws a `LifecycleError` at once; create a
 * new one (with new controllers) to start again.
 *
 * {@linkcode Manager.fetch} answers `GET /healthz` (the manager has not failed), `GET /readyz`
 * (started and every cache synced; 500 while stopping) and `GET /metrics` (controller-runtime's
 * metrics in the Prometheus text format). Serve it with `runManager` from
 * `@kinformer/kinformer/controller/deno`, `/bun` or `/node`, which also stop the manager on
 * SIGTERM/SIGINT, or mount it in any `fetch`-style server.
 *
 * @example
 * ```ts
 * import { Manager, type InformerLike } from "@kinformer/kinformer/controller";
 * import assert from "node:assert/strict";
 *
 * type Obj = { metadata: { namespace?: string; name?: string } };
 * const informer: InformerLike<Obj> = {
 *   addEventHandler(handler) {
 *     handler.onAdd?.({ metadata: { namespace: "default", name: "web" } }, true);
 *     return { hasSynced: () => true, remove: () => {} };
 *   },
 * };
 * const reconciled: string[] = [];
 * const manager = new Manager();
 * manager.addController({ name: "web", informers: [informer], reconcile: (key) => void reconciled.push(key) });
 * manager.addController({ name: "audit", informers: [informer], reconcile: () => {} });
 * manager.start();
 * await manager.waitForSync();
 * const ready = manager.fetch(new Request("http://localhost/readyz"));
 * assert.equal(ready.status, 200);
 * await new Promise((resolve) => setTimeout(resolve, 10));
 * const metrics = await manager.fetch(new Request("http://localhost/metrics")).text();
 * assert.match(metrics, /^controller_runtime_reconcile_total\{controller="web",result="success"\} 1$/m);
 * await manager.stop();
 * assert.deepEqual(reconciled, ["default/web"]);
 * ```
 */
export class Manager implements AsyncDisposable {
  /** The metrics `/metrics` serves. */
  readonly metrics: ControllerRuntimeMetrics;
  readonly #clock: Clock;
  /** The user's `onError`, given to the controllers and the coordination built here. */
  readonly #onError: OnError | undefined;
  /** The manager's own errors: a runnable's stop, a controller that stopped by itself. */
  readonly #reporter: ErrorReporter;
  readonly #extraMetrics: readonly { render(): string }[];
  readonly #startInformers: boolean;
  readonly #graceMs: number;
  readonly #coordination: LeaderElector | ShardCoordinator | undefined;
  readonly #controllers: Controller<never>[] = [];
  readonly #runnables: Runnable[] = [];
  readonly #informers = new Set<InformerLike<unknown>>();
  readonly #informersStop = new AbortController();
  /** idle, starting (caches syncing), running, stopping, stopped; runs once. */
  readonly #life = new Lifecycle("manager", { restartable: false });
  #failure: { error: unknown } | undefined;
  #stopping: Promise<void> | undefined;
  #unlinkStart: (() => void) | undefined;
  #synced = false;
  #markStopped!: () => void;
  readonly #stopped = new Promise<void>((resolve) => (this.#markStopped = resolve));

  /** Validates the options; starts nothing. */
  constructor(options: ManagerOptions = {}) {
    checkOptionsObject(options, "Manager");
    checkClock(options.clock, "clock");
    checkFunction(options.onError, "onError");
    checkBoolean(options.startInformers, "startInformers");
    checkNumber(options.gracefulShutdownTimeoutMs, "gracefulShutdownTimeoutMs", { min: 0 });
    const extra = options.extraMetrics ?? [];
    if (!Array.isArray(extra) || extra.some((e) => typeof e?.render !== "function")) {
      throw new TypeError(
        `extraMetrics must be an array of objects with render(), got ${describeValue(extra)}`,
      );
    }
    if (options.metrics !== undefined && typeof options.metrics.render !== "function") {
      throw new TypeError(
        `metrics must come from controllerRuntimeMetrics(), got ${describeValue(options.metrics)}`,
      );
    }
    this.#clock = options.clock ?? systemClock;
    this.#onError = options.onError === undefined ? undefined : guarded(options.onError);
    this.#reporter = new ErrorReporter({
      source: "manager",
      onError: this.#onError,
      clock: this.#clock,
    });
    this.#extraMetrics = extra;
    this.#startInformers = options.startInformers ?? true;
    this.#graceMs = options.gracefulShutdownTimeoutMs ?? 30_000;
    this.metrics = options.metrics ?? controllerRuntimeMetrics({ clock: this.#clock });
    this.#coordination = this.#coordinationFrom(options);
    if (this.#coordination instanceof LeaderElector) {
      this.#coordination.observe(
        this.metrics.leaderElection(leaseName(this.#coordination.lease)),
      );
    }
  }

  /**
   * Adds a controller (before `start`): it shares the manager's leader election or sharding,
   * its informers are started by the manager, and its metrics go to the manager's `/metrics`
   * under its `name`, which must be unique. Returns the controller (not to be started or
   * stopped by hand).
   *
   * @throws {TypeError} after `start`, for a duplicate name, or for a controller that has
   * its own `leaderElection`/`sharding` while the manager has one.
   */
  addController<O>(options: ControllerOptions<O>): Controller<O> {
    if (this.#life.state !== "idle") {
      throw new TypeError("Manager.addController: controllers are added before start()");
    }
    checkOptionsObject(options, "Manager.addController");
    const name = options?.name ?? "controller";
    if (this.#controllers.some((c) => c.name === name)) {
      throw new TypeError(`Manager.addController: a controller named ${name} exists already`);
    }
    if (
      this.#coordination !== undefined &&
      (options.leaderElection !== undefined || options.sharding !== undefined)
    ) {
      throw new TypeError(
        "Manager.addController: the manager's leaderElection/sharding applies to every controller; give none to the controller",
      );
    }
    const onError = options.onError ?? this.#onError;
    const controller = new Controller<O>({
      ...options,
      name,
      clock: options.clock ?? this.#clock,
      metrics: options.metrics ?? this.metrics.controller(name),
      startInformers: false,
      shutdownGracePeriodMs: options.shutdownGracePeriodMs ?? this.#graceMs,
      ...(this.#coordination instanceof LeaderElector
        ? { leaderElection: this.#coordination, startCoordination: false }
        : this.#coordination instanceof ShardCoordinator
        ? { sharding: this.#coordination, startCoordination: false }
        : {}),
      onError,
    });
    for (const informer of options.informers) {
      this.#informers.add(informer as InformerLike<unknown>);
    }
    for (const source of options.sources ?? []) {
      this.#informers.add(source.informer as InformerLike<unknown>);
    }
    this.#controllers.push(controller as unknown as Controller<never>);
    return controller;
  }

  /**
   * Adds something started before the controllers and stopped after them (before `start`),
   * e.g. an {@linkcode EventRecorder}, so its last events are written when the manager stops.
   */
  add(runnable: Runnable): void {
    if (this.#life.state !== "idle") {
      throw new TypeError("Manager.add: runnables are added before start()");
    }
    if (typeof runnable?.start !== "function" || typeof runnable.stop !== "function") {
      throw new TypeError(`runnable must have start() and stop(), got ${describeValue(runnable)}`);
    }
    this.#runnables.push(runnable);
  }

  /**
   * Starts everything in the background (see the class) and returns at once; idempotent while
   * it runs. Aborting `signal` is the same as {@linkcode Manager.stop}.
   *
   * @throws {LifecycleError} after `stop()`: a manager runs once.
   */
  start(options: { signal?: AbortSignal | undefined } = {}): void {
    checkOptionsObject(options, "Manager.start");
    checkSignal(options.signal, "signal");
    if (!this.#life.start()) return;
    for (const runnable of this.#runnables) runnable.start();
    if (this.#startInformers) {
      for (const informer of this.#informers) {
        const started = informer.start?.({ signal: this.#informersStop.signal });
        if (started !== undefined) {
          Promise.resolve(started).then(undefined, (error: unknown) => {
            if (!this.#informersStop.signal.aborted) this.#fatal(error);
          });
        }
      }
    }
    for (const controller of this.#controllers) {
      controller.start();
      controller.whenStopped().then(
        () => {
          if (this.#life.active) this.#fatal(new Error(`controller ${controller.name} stopped`));
        },
        (error: unknown) => this.#fatal(error),
      );
    }
    void this.#whenSynced();
    this.#unlinkStart = onAbort(options.signal, () => void this.stop());
  }

  /**
   * Stops (see the class) and resolves once every controller, the lease, the informers and the
   * runnables are released. Idempotent; never rejects. A reconcile that ignores its aborted
   * `ctx.signal` holds the stop, and the lease, until it returns: the lease is never released
   * under work it guards (`runManager` exits at once on a second signal).
   */
  stop(): Promise<void> {
    this.#stopping ??= this.#stop();
    return this.#stopping;
  }

  /** Same as {@linkcode Manager.stop}, for `await using`. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.stop();
  }

  /**
   * Resolves once every controller's caches have synced; rejects with the signal's reason when
   * it aborts, or when the manager stops first.
   */
  async waitForSync(options: { signal?: AbortSignal | undefined } = {}): Promise<void> {
    checkOptionsObject(options, "Manager.waitForSync");
    checkSignal(options.signal, "signal");
    await Promise.all(this.#controllers.map((c) => c.waitForSync(options)));
  }

  /** Resolves once stopped; rejects with the error that stopped the manager by itself. */
  async whenStopped(): Promise<void> {
    await this.#stopped;
    if (this.#failure !== undefined) throw this.#failure.error;
  }

  /** Whether this replica reconciles now (leads, owns a shard, or has no coordination). */
  isLeading(): boolean {
    const c = this.#coordination;
    if (c === undefined) return this.#life.state === "running";
    return c instanceof LeaderElector ? c.isLeader() : c.ownedShards().length > 0;
  }

  /** A snapshot for health checks and dashboards. */
  health(): ManagerHealth {
    const h: ManagerHealth = {
      state: this.#life.state,
      synced: this.#synced,
      leading: this.isLeading(),
      controllers: this.#controllers.map((c) => c.health()),
    };
    if (this.#failure !== undefined) h.failure = { message: messageOf(this.#failure.error) };
    return h;
  }

  /**
   * The endpoints, as a web-standard handler: `GET`/`HEAD` `/healthz`, `/readyz` (also
   * `?verbose`, and `/healthz/<check>`, `/readyz/<check>`) and `/metrics`; 404 elsewhere, 405
   * for other methods.
   */
  readonly fetch = (request: Request): Response => {
    // Routed by the request's path alone (never by what a Host header put into its URL).
    const url = requestTarget(request);
    if (url instanceof Response) return url;
    const method = request.method;
    const known = url.pathname === "/metrics" ||
      /^\/(healthz|readyz)(\/[^/]+)?$/.test(url.pathname);
    if (!known) return new Response("404 page not found\n", { status: 404 });
    if (method !== "GET" && method !== "HEAD") {
      return new Response("method not allowed\n", { status: 405, headers: { Allow: "GET, HEAD" } });
    }
    if (url.pathname === "/metrics") {
      const text = method === "HEAD"
        ? null
        : [this.metrics.render(), ...this.#extraMetrics.map((m) => m.render())].join("");
      return new Response(text, { headers: { "Content-Type": PROMETHEUS_CONTENT_TYPE } });
    }
    if (url.pathname.startsWith("/healthz")) {
      return healthResponse("healthz", url, method, this.#livenessChecks());
    }
    return healthResponse("readyz", url, method, this.#readinessChecks());
  };

  #livenessChecks(): HealthCheck[] {
    return [
      { name: "ping", check: () => undefined },
      {
        name: "controllers",
        check: () => this.#failure === undefined ? undefined : messageOf(this.#failure.error),
      },
    ];
  }

  #readinessChecks(): HealthCheck[] {
    return [
      {
        name: "started",
        check: () => this.#life.active ? undefined : `the manager is ${this.#life.state}`,
      },
      ...this.#controllers.map((c) => ({
        name: `informers-synced-${c.name}`,
        check: () => c.hasSynced() ? undefined : "caches not synced",
      })),
    ];
  }

  #coordinationFrom(options: ManagerOptions): LeaderElector | ShardCoordinator | undefined {
    const { leaderElection, sharding } = options;
    if (leaderElection !== undefined && sharding !== undefined) {
      throw new TypeError("leaderElection and sharding cannot both be set");
    }
    // Built here: the manager's onError, or (none) the coordination's own default printing.
    const onError = this.#onError;
    if (leaderElection !== undefined) {
      if (typeof leaderElection !== "object" || leaderElection === null) {
        throw new TypeError("leaderElection must be a LeaderElector or LeaderElector options");
      }
      return leaderElection instanceof LeaderElector
        ? leaderElection
        : new LeaderElector({ clock: this.#clock, onError, ...leaderElection });
    }
    if (sharding !== undefined) {
      if (typeof sharding !== "object" || sharding === null) {
        throw new TypeError("sharding must be a ShardCoordinator or ShardCoordinator options");
      }
      return sharding instanceof ShardCoordinator
        ? sharding
        : new ShardCoordinator({ clock: this.#clock, onError, ...sharding });
    }
    return undefined;
  }

  /** Once every controller synced: ready, and the election (or the group) starts. */
  async #whenSynced(): Promise<void> {
    try {
      await this.waitForSync();
    } catch {
      return; // stopped first
    }
    if (this.#life.state !== "starting") return;
    this.#synced = true;
    this.#life.started();
    this.#coordination?.start();
  }

  /** A controller (or an informer) failed: report it and stop everything. */
  #fatal(error: unknown): void {
    if (!this.#life.active) return;
    this.#failure ??= { error };
    this.#reporter.report(error, { phase: "runnable", action: "stopping the manager" });
    void this.stop();
  }

  async #stop(): Promise<void> {
    const wasStarted = this.#life.state !== "idle";
    this.#life.stop();
    this.#unlinkStart?.();
    const deadline = this.#clock.now() + this.#graceMs;
    // Stop taking keys everywhere at once; reconciles get what is left of the grace period.
    await Promise.all(
      this.#controllers.map((c) =>
        c.stop({ gracePeriodMs: Math.max(0, deadline - this.#clock.now()) })
      ),
    );
    // The lease is released only after the last reconcile returned.
    await this.#coordination?.stop();
    if (wasStarted && this.#startInformers) {
      this.#informersStop.abort(new Error("manager stopped"));
      await Promise.all(
        [...this.#informers].map(async (informer) => {
          try {
            await informer.stop?.();
          } catch (error) {
            this.#reporter.report(error, {
              phase: "runnable",
              detail: "informer stop",
              action: "stopping the rest",
            });
          }
        }),
      );
    }
    if (wasStarted) {
      for (const runnable of [...this.#runnables].reverse()) {
        try {
          await runnable.stop();
        } catch (error) {
          this.#reporter.report(error, {
            phase: "runnable",
            detail: "runnable stop",
            action: "stopping the rest",
          });
        }
      }
    }
    this.#life.stopped();
    this.#markStopped();
  }
}

/** `onError` whose throw is rethrown on a microtask (the manager and its controllers go on). */
function guarded(onError: OnError): OnError {
  return (error: unknown, context: ErrorContext): void => {
    try {
      onError(error, context);
    } catch (thrown) {
      reportError(thrown);
    }
  };
}
