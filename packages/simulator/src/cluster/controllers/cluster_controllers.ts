/**
 * The controllers a real cluster runs that the simulated one needs to behave like it: the
 * garbage collector and the namespace controller. They hear every change the store commits
 * and work off a queue in the cluster's own turns: a change that leaves work schedules one
 * pass on the cluster's clock {@linkcode CONTROLLER_DELAY_MS} later (on a `ManualClock`, when
 * the test advances it that far), so a DELETE is answered before its cascade runs, watchers see
 * the cascade's events in the order a cluster sends them, and a test decides when it happens.
 * The delay is the controllers' reaction time: without it, a client that re-creates what the
 * collector deletes (a controller with a stale cache) would loop with it at one instant of a
 * `ManualClock` and starve every other timer.
 * @module
 */
import type { Clock, TimerHandle } from "@kinformer/kinformer/cache";
import type { Store } from "../../store/object_store.ts";
import type { ResourceState, StoredEvent } from "../../store/resource_state.ts";
import { ControllerWriter } from "./controller_writes.ts";
import { GarbageCollector } from "./garbage_collector.ts";
import { NamespaceController } from "./namespace_controller.ts";
import { type ObjectRef, refId } from "./owner_references.ts";

/** How long after a change the controllers act on it (their reaction time), in ms. */
export const CONTROLLER_DELAY_MS = 10;

/** Objects looked at in one pass at most; the rest wait for the next pass. */
const PASS_LIMIT = 100_000;

/** Runs the garbage collector and the namespace controller of a simulated cluster. */
export class ClusterControllers {
  readonly #clock: Clock;
  readonly #gc: GarbageCollector;
  readonly #namespaces: NamespaceController;
  readonly #queue = new Map<string, ObjectRef>();
  #timer: TimerHandle | undefined;
  #closed = false;

  /** Starts listening to `store` (no timer until a change leaves work). */
  constructor(store: Store, clock: Clock) {
    this.#clock = clock;
    const writer = new ControllerWriter(store, clock);
    const enqueue = (ref: ObjectRef) => this.#enqueue(ref);
    this.#gc = new GarbageCollector(store, writer, enqueue);
    this.#namespaces = new NamespaceController(store, writer, clock, enqueue);
    for (const state of store.states) this.observeState(state);
  }

  /** Starts hearing the changes of `state` (a resource served from now on: a CRD's). */
  observeState(state: ResourceState): void {
    state.listeners.add({ offer: (event) => this.#observe(state, event) });
  }

  /** Stops: the pending pass is cancelled, later changes are ignored. */
  close(): void {
    this.#closed = true;
    if (this.#timer !== undefined) this.#clock.clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#queue.clear();
  }

  #observe(state: ResourceState, event: StoredEvent): void {
    if (this.#closed) return;
    this.#gc.observe(state, event);
    this.#namespaces.observe(state, event);
  }

  #enqueue(ref: ObjectRef): void {
    if (this.#closed) return;
    const id = refId(ref.state, ref.key);
    this.#queue.delete(id); // to the back: it is looked at after what it is waiting for
    this.#queue.set(id, ref);
    this.#timer ??= this.#clock.setTimeout(() => this.#pass(), CONTROLLER_DELAY_MS);
  }

  /** Works off the queue, the changes each step makes queueing the next steps. */
  #pass(): void {
    this.#timer = undefined;
    for (let done = 0; done < PASS_LIMIT && !this.#closed; done++) {
      const next = this.#queue.entries().next();
      if (next.done) return;
      const [id, ref] = next.value;
      this.#queue.delete(id);
      if (this.#namespaces.handles(ref)) this.#namespaces.process(ref);
      this.#gc.process(ref);
    }
    if (this.#queue.size > 0 && !this.#closed) {
      this.#timer = this.#clock.setTimeout(() => this.#pass(), CONTROLLER_DELAY_MS);
    }
  }
}
