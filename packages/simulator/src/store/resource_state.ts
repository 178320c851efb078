/**
 * What the store keeps per resource: the current objects, a bounded history of changes (for
 * watch resumption and for rebuilding the state at an older resourceVersion), the open watches
 * that hear each change, and key-sorted snapshots (with the lookups LIST and WATCH make in them).
 * @module
 */
import type { ResourceInfo } from "../model/registry/served_resources.ts";
import type { ChangeType, Version } from "./object_version.ts";

/** One change in the history. */
export interface StoredEvent {
  /** What happened. */
  readonly type: ChangeType;
  /** resourceVersion of the change. */
  readonly rv: number;
  /** The new state (for DELETED: the last state, at the deletion's resourceVersion). */
  readonly version: Version;
  /** The state before, or undefined for ADDED. */
  readonly prev: Version | undefined;
}

/** Something that wants every change of a resource (an open watch). */
export interface ChangeListener {
  /** Called synchronously for each committed change. */
  offer(event: StoredEvent): void;
  /** Ends it when its resource stops being served (a watch ends cleanly). */
  close?(): void;
}

const SNAPSHOT_CACHE = 8;

function compareKeys(a: Version, b: Version): number {
  return a.key < b.key ? -1 : a.key > b.key ? 1 : 0;
}

/** Objects, history and watchers of one resource. */
export class ResourceState {
  /** Resource facts. */
  readonly info: ResourceInfo;
  /** Current objects by key. */
  readonly objects: Map<string, Version> = new Map();
  /** Open watches. */
  readonly listeners: Set<ChangeListener> = new Set();
  /** History is complete for changes with rv > floor. */
  floor: number;
  /** rv of the latest change of this resource. */
  lastChange = 0;
  #history: StoredEvent[] = [];
  #head = 0;
  #sorted: Version[] | undefined;
  #snapshots = new Map<number, Version[]>();
  #limit: number;

  constructor(info: ResourceInfo, floor: number, historyLimit: number) {
    this.info = info;
    this.floor = floor;
    this.#limit = historyLimit;
  }

  /** Records a change: updates the current state, the history, and tells every listener. */
  commit(event: StoredEvent): void {
    if (event.type === "DELETED") this.objects.delete(event.version.key);
    else this.objects.set(event.version.key, event.version);
    this.lastChange = event.rv;
    this.#sorted = undefined;
    this.#history.push(event);
    if (this.#history.length - this.#head > this.#limit) {
      this.floor = this.#history[this.#head]!.rv;
      this.#history[this.#head++] = undefined as unknown as StoredEvent;
      if (this.#head > 1024 && this.#head * 2 > this.#history.length) {
        this.#history = this.#history.slice(this.#head);
        this.#head = 0;
      }
    }
    for (const listener of this.listeners) listener.offer(event);
  }

  /** Number of events kept. */
  get historySize(): number {
    return this.#history.length - this.#head;
  }

  /** Forgets the whole history: resumption and snapshots older than `rv` become impossible. */
  compact(rv: number): void {
    this.#history = [];
    this.#head = 0;
    this.floor = Math.max(this.floor, rv);
    this.#snapshots.clear();
  }

  /** Events with rv > `after`, oldest first, or undefined when history no longer has them. */
  eventsAfter(after: number): StoredEvent[] | undefined {
    if (after < this.floor) return undefined;
    const h = this.#history;
    let lo = this.#head;
    let hi = h.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (h[mid]!.rv <= after) lo = mid + 1;
      else hi = mid;
    }
    return h.slice(lo);
  }

  /** The objects sorted by key as they were at `rv`, or undefined when compacted. */
  snapshotAt(rv: number): readonly Version[] | undefined {
    if (rv >= this.lastChange) {
      return (this.#sorted ??= [...this.objects.values()].sort(compareKeys));
    }
    if (rv < this.floor) return undefined;
    const cached = this.#snapshots.get(rv);
    if (cached) return cached;
    const state = new Map(this.objects);
    const h = this.#history;
    for (let i = h.length - 1; i >= this.#head; i--) {
      const e = h[i]!;
      if (e.rv <= rv) break;
      if (e.prev) state.set(e.version.key, e.prev);
      else state.delete(e.version.key);
    }
    const sorted = [...state.values()].sort(compareKeys);
    if (this.#snapshots.size >= SNAPSHOT_CACHE) {
      this.#snapshots.delete(this.#snapshots.keys().next().value!);
    }
    this.#snapshots.set(rv, sorted);
    return sorted;
  }
}

/** First index in `sorted` whose key is >= `key`. */
export function lowerBound(sorted: readonly Version[], key: string): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid]!.key < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The index range of `namespace` (all when undefined) in a key-sorted snapshot. */
export function namespaceRange(
  sorted: readonly Version[],
  namespace: string | undefined,
): [number, number] {
  if (!namespace) return [0, sorted.length];
  // Keys are "namespace/name"; "0" is the character after "/".
  return [lowerBound(sorted, `${namespace}/`), lowerBound(sorted, `${namespace}0`)];
}
