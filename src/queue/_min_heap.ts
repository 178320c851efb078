/**
 * A binary min-heap of items keyed by a ready time, with an index per item so that a
 * duplicate can move its entry earlier in O(log n). Ties are broken by insertion order, so
 * items due at the same time come out first-in first-out. Internal to `src/queue/`.
 * @module
 */

interface Entry<T> {
  item: T;
  readyAt: number;
  seq: number;
  index: number;
}

/** Min-heap by `readyAt`, one entry per item (compared by identity). */
export class _ReadyHeap<T> {
  #heap: Entry<T>[] = [];
  #byItem = new Map<T, Entry<T>>();
  #seq = 0;

  /** Number of items waiting. */
  get size(): number {
    return this.#heap.length;
  }

  /** Ready time of the earliest item, or `undefined` when empty. */
  peekReadyAt(): number | undefined {
    return this.#heap[0]?.readyAt;
  }

  /**
   * Inserts `item` at `readyAt`; when the item is already waiting it keeps the earlier of the
   * two times. Returns `true` when the heap changed.
   */
  upsert(item: T, readyAt: number): boolean {
    const existing = this.#byItem.get(item);
    if (existing !== undefined) {
      if (readyAt >= existing.readyAt) return false;
      existing.readyAt = readyAt;
      this.#siftUp(existing.index);
      return true;
    }
    const entry: Entry<T> = { item, readyAt, seq: this.#seq++, index: this.#heap.length };
    this.#heap.push(entry);
    this.#byItem.set(item, entry);
    this.#siftUp(entry.index);
    return true;
  }

  /** Removes and returns the earliest item if its ready time is at or before `now`. */
  popDue(now: number): { item: T } | undefined {
    const top = this.#heap[0];
    if (top === undefined || top.readyAt > now) return undefined;
    const last = this.#heap.pop() as Entry<T>;
    if (last !== top) {
      last.index = 0;
      this.#heap[0] = last;
      this.#siftDown(0);
    }
    this.#byItem.delete(top.item);
    return { item: top.item };
  }

  /** Drops every entry. */
  clear(): void {
    this.#heap = [];
    this.#byItem.clear();
  }

  #less(a: Entry<T>, b: Entry<T>): boolean {
    return a.readyAt < b.readyAt || (a.readyAt === b.readyAt && a.seq < b.seq);
  }

  #swap(i: number, j: number): void {
    const a = this.#heap[i] as Entry<T>;
    const b = this.#heap[j] as Entry<T>;
    this.#heap[i] = b;
    this.#heap[j] = a;
    a.index = j;
    b.index = i;
  }

  #siftUp(i: number): void {
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.#less(this.#heap[i] as Entry<T>, this.#heap[parent] as Entry<T>)) return;
      this.#swap(i, parent);
      i = parent;
    }
  }

  #siftDown(i: number): void {
    const n = this.#heap.length;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let least = i;
      if (l < n && this.#less(this.#heap[l] as Entry<T>, this.#heap[least] as Entry<T>)) least = l;
      if (r < n && this.#less(this.#heap[r] as Entry<T>, this.#heap[least] as Entry<T>)) least = r;
      if (least === i) return;
      this.#swap(i, least);
      i = least;
    }
  }
}
