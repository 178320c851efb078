/**
 * The store writer: the list/watch protocol's steps in, a cache and what changed in it out.
 * The informer is `watcher -> store writer -> listeners`; this is the middle.
 * @module
 */
import type { KubeObject, KubeObjectLike } from "../client/types.ts";
import type { OnError } from "../util/error_context.ts";
import { ErrorReporter } from "../util/error_reporter.ts";
import { DeltaFIFO, type KnownObjects } from "./delta_fifo.ts";
import { Indexer } from "./indexer.ts";
import type { InformerEvent } from "./informer_event.ts";
import { objectKey } from "./object_key.ts";
import { processDeltas } from "./process_deltas.ts";
import type { WatcherEvent } from "./watcher_event.ts";

/**
 * What a {@linkcode StoreWriter} writes into: an `Indexer`, or anything that keeps objects by
 * key (a database, a Durable Object's storage).
 */
export interface WritableStore<T> extends KnownObjects<T> {
  /** Holds `object` under `key` from now on. */
  set(object: T, key: string): unknown;
  /** Drops what is held under `key`. */
  delete(key: string): unknown;
}

/** Options of {@linkcode StoreWriter}. */
export interface StoreWriterOptions<T extends KubeObjectLike = KubeObject> {
  /** The cache to keep in step (an `Indexer`, or any {@linkcode WritableStore}). */
  store: WritableStore<T>;
  /**
   * Told every change the cache goes through, in order (`add`, `update`, `delete`, the
   * `update` of a resync), then `{ type: "synced" }` once, when the first complete list is in
   * the cache. @default undefined
   */
  onEvent?: ((event: InformerEvent<T>) => void) | undefined;
  /**
   * The store (an index function) or `onEvent` threw while a key was written: that key keeps
   * what it held and its changes are not told; the other keys go on. The context's `phase` is
   * `handler` and its `key` the key.
   * @default prints the first error at once, then at most one line a minute (as an informer)
   */
  onError?: OnError | undefined;
  /** Names the writer in error contexts and lines. @default "store writer" */
  source?: string | undefined;
}

/** The one `synced` event: it carries nothing. */
const SYNCED: InformerEvent<never> = Object.freeze({ type: "synced" });

/**
 * Keeps a store in step with the {@linkcode WatcherEvent}s of `watcher()` (the informer feeds
 * it from its reflector the same way), as kube-rs's store writer does: `init` starts a fresh
 * buffer, `init-apply` adds to it, `init-done` replaces the store with it, and `apply` and
 * `delete` go straight to the store.
 *
 * Guarantees: the store is current whenever control returns to the event loop; `onEvent` hears
 * every change in the order the store went through them, per key in the server's order; a
 * `delete` carries the object's last state; a relist tells only what differs.
 *
 * A list's replace does what a DeltaFIFO `replace` and a drain do in client-go (`Replaced` per
 * listed object, applied by `processDeltas`; tombstones, `finalStateUnknown: true` with the last
 * cached state, for keys the list no longer has), straight to the store; a resync, and a list
 * that holds a key twice, go through a DeltaFIFO. A single `apply` or `delete` needs no queue
 * either: it is applied to the store directly by the same rules (`add` for a key the store
 * lacks, `update` otherwise, a `delete` and an `add` for a new uid under a known key). It does
 * no I/O.
 *
 * @example
 * ```ts
 * import { Indexer, StoreWriter, type InformerEvent } from "@kinformer/kinformer/cache";
 * import assert from "node:assert/strict";
 * const store = new Indexer();
 * const told: string[] = [];
 * const writer = new StoreWriter({ store, onEvent: (ev: InformerEvent) => void told.push(ev.type) });
 * const pod = (name: string, rv: string) => ({ metadata: { namespace: "ns", name, uid: name, resourceVersion: rv } });
 * writer.write({ type: "init" });
 * writer.write({ type: "init-apply", object: pod("a", "1") });
 * writer.write({ type: "init-done", resourceVersion: "1" });
 * writer.write({ type: "apply", object: pod("a", "2"), resourceVersion: "2" });
 * writer.write({ type: "init" }); // a relist that no longer has "a"
 * writer.write({ type: "init-done", resourceVersion: "3" });
 * assert.deepEqual(told, ["add", "synced", "update", "delete"]);
 * assert.equal(store.size, 0);
 * ```
 */
export class StoreWriter<T extends KubeObjectLike = KubeObject> {
  readonly #store: WritableStore<T>;
  /** The store when it is an `Indexer`, whose `set` returns what it replaced. */
  readonly #indexer: Indexer<T> | undefined;
  readonly #fifo: DeltaFIFO<T>;
  readonly #onEvent: (event: InformerEvent<T>) => void;
  readonly #reporter: ErrorReporter;
  /** The objects of the list under way (between `init` and `init-done`). */
  #listing: T[] | undefined;
  #synced = false;

  /** A writer into `options.store`. */
  constructor(options: StoreWriterOptions<T>) {
    this.#store = options.store;
    this.#indexer = options.store instanceof Indexer ? options.store : undefined;
    this.#fifo = new DeltaFIFO<T>({ knownObjects: options.store });
    this.#onEvent = options.onEvent ?? ignore;
    this.#reporter = new ErrorReporter({
      source: options.source ?? "store writer",
      onError: options.onError,
    });
  }

  /** True once the first complete list (or a {@linkcode StoreWriter.seed}) is in the store. */
  get synced(): boolean {
    return this.#synced;
  }

  /** Applies one step of the protocol. */
  write(event: WatcherEvent<T>): void {
    switch (event.type) {
      case "init":
        this.#listing = [];
        return;
      case "init-apply":
        (this.#listing ??= []).push(event.object);
        return;
      case "init-done": {
        const listed = this.#listing ?? [];
        this.#listing = undefined;
        this.#replace(listed);
        return;
      }
      case "apply":
        this.#apply(event.object);
        return;
      case "delete":
        this.#delete(event.object);
        return;
      case "bookmark":
        return;
    }
  }

  /** Re-delivers every stored object as an `update` with `object === oldObject` (a resync). */
  resync(): void {
    this.#fifo.resync();
    this.#drain();
  }

  /**
   * Fills the store with objects known from elsewhere (a checkpoint) and counts it as synced:
   * nobody is told of them, and a later list tells only what differs from them.
   */
  seed(objects: Iterable<T>): void {
    for (const object of objects) this.#store.set(object, objectKey(object));
    this.#synced = true;
  }

  /**
   * One object added or modified, straight into the store (no queue: nothing else is pending
   * for its key, since every write drains the FIFO before it returns).
   */
  #apply(object: T): void {
    const key = objectKey(object);
    try {
      // An Indexer's write returns the object it replaced: one lookup (and in compact mode
      // one decode) per event instead of two.
      let old: T | undefined;
      if (this.#indexer !== undefined) old = this.#indexer.set(object, key);
      else {
        old = this.#store.get(key);
        this.#store.set(object, key);
      }
      if (old === undefined) {
        this.#onEvent({ type: "add", object, isInInitialList: !this.#synced });
      } else if (
        old.metadata?.uid !== object.metadata?.uid && old.metadata?.uid && object.metadata?.uid
      ) {
        // Deleted and re-created under the same name while we were not looking.
        this.#onEvent({ type: "delete", object: old, finalStateUnknown: true });
        this.#onEvent({ type: "add", object, isInInitialList: !this.#synced });
      } else {
        this.#onEvent({ type: "update", object, oldObject: old });
      }
    } catch (error) {
      this.#failed(error, key);
    }
    this.#live();
  }

  /**
   * One object deleted, straight out of the store. It is told even for a key the store never
   * held (a consumer resumed from a checkpoint may know it).
   */
  #delete(object: T): void {
    const key = objectKey(object);
    try {
      if (this.#store.get(key) !== undefined) this.#store.delete(key);
      this.#onEvent({ type: "delete", object, finalStateUnknown: false });
    } catch (error) {
      this.#failed(error, key);
    }
    this.#live();
  }

  /**
   * A watch event before any list counts the store as synced (as client-go's DeltaFIFO does):
   * a resumed consumer watches without listing first.
   */
  #live(): void {
    if (this.#synced) return;
    this.#synced = true;
    this.#onEvent(SYNCED);
  }

  #failed(error: unknown, key: string): void {
    this.#reporter.report(error, {
      phase: "handler",
      key,
      action: "keeping the key's cached object",
    });
  }

  /**
   * A complete list replaces the store: what a DeltaFIFO `replace` and a drain do (`Replaced`
   * per listed object, in list order, then a tombstone per stored key the list lacks, in
   * `listKeys` order), applied straight to the store. Through the FIFO, 50k pods allocated
   * about 36 MB of deltas, arrays and outcomes at the end of the sync, exactly when the heap
   * peaks (the whole cache is in): straight, a new object costs its event, an unchanged one
   * (a relist keeps the cached object) nothing. A list that holds a key twice (no server sends
   * one) goes through the FIFO, which groups a key's deltas.
   */
  #replace(listed: readonly T[]): void {
    const keys: string[] = new Array(listed.length);
    const seen = new Set<string>();
    for (let i = 0; i < listed.length; i++) seen.add(keys[i] = objectKey(listed[i]!));
    if (seen.size < listed.length) {
      this.#fifo.replace(listed);
      this.#drain();
      return;
    }
    const initial = !this.#synced;
    const wasEmpty = this.#indexer !== undefined && this.#indexer.size === 0;
    for (let i = 0; i < listed.length; i++) {
      const object = listed[i]!;
      const key = keys[i]!;
      try {
        const old = this.#store.get(key);
        if (old === object) continue; // the cached object, kept by the list: unchanged
        if (old === undefined) {
          this.#store.set(object, key);
          this.#onEvent({ type: "add", object, isInInitialList: initial });
          continue;
        }
        const { cached, events } = processDeltas(old, [{ type: "Replaced", object }], initial);
        if (cached !== old) this.#store.set(cached!, key);
        for (const event of events) this.#onEvent(event);
      } catch (error) {
        this.#failed(error, key);
      }
    }
    // Every key an empty store holds now came with this list: none to drop.
    if (!wasEmpty) this.#dropUnlisted(seen);
    if (!this.#synced) {
      this.#synced = true;
      this.#onEvent(SYNCED);
    }
  }

  /** Deletes every stored key the list lacks, telling each with its last known state. */
  #dropUnlisted(listed: Set<string>): void {
    for (const key of this.#store.listKeys()) {
      if (listed.has(key)) continue;
      try {
        const old = this.#store.get(key);
        if (old === undefined) continue;
        this.#store.delete(key);
        this.#onEvent({ type: "delete", object: old, finalStateUnknown: true });
      } catch (error) {
        this.#failed(error, key);
      }
    }
  }

  /** Pops every queued key and applies it to the store, telling `onEvent`. */
  #drain(): void {
    for (;;) {
      const popped = this.#fifo.pop();
      if (popped === undefined) break;
      const key = popped[0];
      try {
        const old = this.#store.get(key);
        const { cached, events } = processDeltas(old, popped[1], !this.#synced);
        if (cached !== old) {
          // A store (an index function) that throws leaves the key as it was: nobody is told.
          if (cached === undefined) this.#store.delete(key);
          else this.#store.set(cached, key);
        }
        for (const event of events) this.#onEvent(event);
      } catch (error) {
        this.#failed(error, key);
      }
    }
    if (!this.#synced && this.#fifo.hasSynced()) {
      this.#synced = true;
      this.#onEvent(SYNCED);
    }
  }
}

function ignore(): void {}
