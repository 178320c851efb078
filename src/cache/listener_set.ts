/**
 * The listeners of one informer (client-go's sharedProcessor): how one joins and leaves, who
 * gets which event, each listener's resync schedule, and what `health()` reports about them.
 * @module
 */
import type { KubeObjectLike } from "../client/types.ts";
import { onAbort } from "../util/abort.ts";
import type { Clock, TimerHandle } from "../util/clock.ts";
import type { ListenerHealth } from "./informer_health.ts";
import type { InformerEvent, OverflowPolicy } from "./informer_event.ts";
import { Listener } from "./listener.ts";

/** What a {@linkcode ListenerSet} needs of its informer. */
export interface ListenerSetOptions<T extends KubeObjectLike> {
  clock: Clock;
  /**
   * Re-delivers the cache as resync events (the informer queues `Sync` deltas and drains
   * them); called when a listener's resync period comes due.
   */
  requeue: () => void;
  /** Told of each event as a consumer takes it (event lag). */
  taken: (event: InformerEvent<T>) => void;
}

/** A new listener: its buffer and resync period, what it gets first, and when it leaves. */
export interface JoinOptions<T extends KubeObjectLike> {
  overflow: OverflowPolicy;
  /** Resync period in ms (0 = never). */
  resyncPeriodMs: number;
  /** Its initial population, delivered first as adds (`isInInitialList: true`). */
  initial: Iterable<T>;
  /** Whether the cache holds a complete list: the listener then gets `synced` at once. */
  synced: boolean;
  /** Removes the listener when it aborts. */
  signal: AbortSignal | undefined;
}

/** A listener that joined, and what removes it (and stops listening to its signal). */
export interface Joined<T extends KubeObjectLike> {
  listener: Listener<T>;
  leave: () => void;
}

/**
 * Every listener of an informer. An event goes to all of them, except a resync (an `update`
 * whose `object === oldObject`), which goes only to the listeners whose resync period is due.
 * Internal.
 */
export class ListenerSet<T extends KubeObjectLike> {
  readonly #clock: Clock;
  readonly #requeue: () => void;
  readonly #taken: (event: InformerEvent<T>) => void;
  readonly #listeners = new Set<Listener<T>>();
  /** The listeners due for a resync, while one is delivered. */
  #due: Set<Listener<T>> | undefined;
  #timer: TimerHandle | undefined;
  #timerAt = Infinity;
  #stopped = false;
  /**
   * Removes the listener of an `events()` iterator dropped without `return()` or an abort.
   * Cloudflare Workers have no `FinalizationRegistry` unless the `enable_weak_ref` flag is on:
   * there, iterators must be ended explicitly (a Worker's life is short anyway).
   */
  readonly #abandoned = typeof FinalizationRegistry === "function"
    ? new FinalizationRegistry<Listener<T>>((listener) => this.#remove(listener))
    : undefined;

  constructor(options: ListenerSetOptions<T>) {
    this.#clock = options.clock;
    this.#requeue = options.requeue;
    this.#taken = options.taken;
  }

  /**
   * Adds a listener holding its initial population (and `synced` when the cache is), and
   * schedules its resync; it leaves when `leave()` is called or its signal aborts.
   */
  join(options: JoinOptions<T>): Joined<T> {
    const listener = new Listener<T>(options.overflow, options.resyncPeriodMs, this.#taken);
    for (const object of options.initial) {
      listener.push({ type: "add", object, isInInitialList: true });
    }
    if (options.synced) listener.push({ type: "synced" });
    this.#listeners.add(listener);
    if (listener.resyncPeriodMs > 0) {
      listener.nextResyncAt = this.#clock.now() + listener.resyncPeriodMs;
      this.#schedule();
    }
    let unlisten = (): void => {};
    const leave = (): void => {
      unlisten();
      this.#remove(listener);
    };
    unlisten = onAbort(options.signal, leave);
    return { listener, leave };
  }

  /**
   * Removes `listener` (which has not left) once `owner`, its `events()` iterator, is garbage
   * collected. Returns `owner`.
   */
  leaveWhenCollected<O extends object>(owner: O, listener: Listener<T>): O {
    if (!listener.closed) this.#abandoned?.register(owner, listener, listener);
    return owner;
  }

  /** Delivers one event: a resync only to the listeners due for one, anything else to all. */
  deliver(event: InformerEvent<T>): void {
    if (event.type === "update" && event.object === event.oldObject) {
      const due = this.#due;
      if (due !== undefined) { for (const l of due) l.push(event); }
      return;
    }
    for (const l of this.#listeners) l.push(event);
  }

  /** The cache holds a complete list: every listener that has not had its marker gets it. */
  synced(): void {
    const event: InformerEvent<T> = { type: "synced" };
    for (const l of this.#listeners) if (!l.syncQueued) l.push(event);
  }

  /** The largest backlog. */
  maxBacklog(): number {
    let max = 0;
    for (const l of this.#listeners) if (l.backlog > max) max = l.backlog;
    return max;
  }

  /** Each listener, for `health()`. */
  health(): ListenerHealth[] {
    return [...this.#listeners].map((l) => ({
      backlog: l.backlog,
      highWater: l.highWater,
      synced: l.synced,
      overflow: l.policy,
    }));
  }

  /** Closes every listener and cancels the resync timer. */
  close(): void {
    this.#stopped = true;
    if (this.#timer !== undefined) this.#clock.clearTimeout(this.#timer);
    this.#timer = undefined;
    for (const l of this.#listeners) l.close();
    this.#listeners.clear();
  }

  /** Closes `listener` and forgets it. */
  #remove(listener: Listener<T>): void {
    this.#abandoned?.unregister(listener);
    listener.close();
    this.#listeners.delete(listener);
  }

  /** Sets the one timer for the earliest resync due. */
  #schedule(): void {
    let next = Infinity;
    for (const l of this.#listeners) if (l.nextResyncAt < next) next = l.nextResyncAt;
    if (next === Infinity || next >= this.#timerAt || this.#stopped) return;
    if (this.#timer !== undefined) this.#clock.clearTimeout(this.#timer);
    this.#timerAt = next;
    this.#timer = this.#clock.setTimeout(() => this.#tick(), Math.max(0, next - this.#clock.now()));
  }

  #tick(): void {
    this.#timer = undefined;
    this.#timerAt = Infinity;
    if (this.#stopped) return;
    const now = this.#clock.now();
    const due = new Set<Listener<T>>();
    for (const l of this.#listeners) {
      if (l.nextResyncAt <= now) {
        due.add(l);
        l.nextResyncAt = now + l.resyncPeriodMs;
      }
    }
    if (due.size > 0) {
      this.#due = due;
      try {
        this.#requeue();
      } finally {
        this.#due = undefined;
      }
    }
    this.#schedule();
  }
}
