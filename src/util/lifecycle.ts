/**
 * The one lifecycle of kinformer's long-running objects (informer, factory, work queue,
 * controller, manager, event recorder, leader elector, shard coordinator): the states their
 * `health().state` shows, the transitions between them, the restart rule, and waiting for a
 * state. What an object does within `running` (listing, watching, backing off; a candidate or
 * the leader) is its own `health()` field, not a state. Internal.
 * @module
 */
import { Waiters, type WaitState } from "./wait_for.ts";

/**
 * Where a long-running object is in its life, as every `health().state` says it:
 *
 * - `idle`: created, not started;
 * - `starting`: started, not yet doing its work (an informer before its first sync);
 * - `running`: doing its work (an informer with a synced cache);
 * - `stopping`: `stop()` was called and is releasing timers and connections;
 * - `stopped`: everything released.
 */
export type LifecycleState = "idle" | "starting" | "running" | "stopping" | "stopped";

/** What moves a lifecycle: a `start()` call, the work under way, a `stop()` call, all released. */
export type LifecycleEvent = "start" | "started" | "stop" | "stopped";

/**
 * The state after `event`, or an error message when the event is not allowed (a start while
 * stopping; a start after a stop of an object that runs once). The message says what to do: a
 * restartable object can start once its stop is done; one that runs once must be created anew. Pure; the table in
 * `tests/util/lifecycle_test.ts` is the rule:
 *
 * - `start`: idle to starting; stopped to starting when `restartable`; starting and running
 *   stay (a second start does nothing);
 * - `started`: starting to running (nothing else: a stop during the start wins);
 * - `stop`: idle, starting and running to stopping; stopping and stopped stay;
 * - `stopped`: stopping to stopped.
 */
export function nextLifecycleState(
  state: LifecycleState,
  event: LifecycleEvent,
  restartable: boolean,
): LifecycleState | { refused: string } {
  switch (event) {
    case "start":
      if (state === "idle") return "starting";
      if (state === "stopped" && restartable) return "starting";
      if (state === "stopped" || state === "stopping") {
        // An object that runs once cannot start after its stop either: waiting would not help.
        const when = state === "stopped" ? "was stopped" : "is stopping";
        return restartable
          ? { refused: "is stopping: await stop() before starting it again" }
          : { refused: `${when} and runs once: create a new one to start again` };
      }
      return state;
    case "started":
      return state === "starting" ? "running" : state;
    case "stop":
      return state === "stopping" || state === "stopped" ? state : "stopping";
    case "stopped":
      return state === "stopping" ? "stopped" : state;
  }
}

/**
 * The error of a lifecycle call that is not allowed: `start()` after `stop()` of an object that
 * runs once (an informer, a factory, a work queue), or `start()` while stopping. Thrown at once
 * by the call, never left as an unhandled rejection.
 *
 * @example
 * ```ts
 * import { LifecycleError } from "@kinformer/kinformer";
 * import assert from "node:assert/strict";
 * const error = new LifecycleError("pods informer", "stopped", "was stopped and runs once");
 * assert.equal(String(error), "LifecycleError: pods informer was stopped and runs once");
 * assert.equal(error.state, "stopped");
 * ```
 */
export class LifecycleError extends Error {
  /** The object's state when the call came. */
  readonly state: LifecycleState;

  /** `source` names the object (`"pods informer"`), `message` what is wrong. */
  constructor(source: string, state: LifecycleState, message: string) {
    super(`${source} ${message}`);
    this.name = "LifecycleError";
    this.state = state;
  }
}

/**
 * One object's lifecycle: its {@linkcode LifecycleState}, moved only through
 * {@linkcode nextLifecycleState}, and waiters woken at every move.
 */
export class Lifecycle {
  readonly #source: string;
  readonly #restartable: boolean;
  #state: LifecycleState = "idle";
  /** Woken at every transition (and by the owner when another awaited condition moves). */
  readonly waiters: Waiters = new Waiters();

  /** `source` names the object in errors; `restartable` lets it start again after a stop. */
  constructor(source: string, options: { restartable: boolean }) {
    this.#source = source;
    this.#restartable = options.restartable;
  }

  /** The current state. */
  get state(): LifecycleState {
    return this.#state;
  }

  /** Whether the object is starting or running. */
  get active(): boolean {
    return this.#state === "starting" || this.#state === "running";
  }

  /**
   * A `start()` call: true when it starts the object (the caller then starts its work), false
   * when it is already starting or running. Throws a {@linkcode LifecycleError} when a start is
   * not allowed now.
   */
  start(): boolean {
    const before = this.#state;
    const after = this.#move("start");
    return after === "starting" && before !== "starting";
  }

  /** The work is under way (an informer synced): starting becomes running. */
  started(): void {
    this.#move("started");
  }

  /** A `stop()` call: true when it begins the stop (the caller then releases everything). */
  stop(): boolean {
    const before = this.#state;
    return this.#move("stop") === "stopping" && before !== "stopping";
  }

  /** Everything is released: stopping becomes stopped. */
  stopped(): void {
    this.#move("stopped");
  }

  /** Waits for `check` (see {@linkcode Waiters.wait}), re-checked at every transition. */
  wait(
    check: () => WaitState,
    options: Parameters<Waiters["wait"]>[1],
  ): Promise<void> {
    return this.waiters.wait(check, options);
  }

  #move(event: LifecycleEvent): LifecycleState {
    const next = nextLifecycleState(this.#state, event, this.#restartable);
    if (typeof next === "object") throw new LifecycleError(this.#source, this.#state, next.refused);
    if (next !== this.#state) {
      this.#state = next;
      this.waiters.wake();
    }
    return next;
  }
}
