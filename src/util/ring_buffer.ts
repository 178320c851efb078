/**
 * A growable ring buffer (double-ended queue) with absolute positions.
 * @module
 */

/** Largest slot count: index arithmetic uses 32-bit bitwise operators. */
const MAX_CAPACITY = 2 ** 30;

/**
 * FIFO queue backed by a power-of-two circular array that doubles when full, so `push` and
 * `shift` are amortized O(1) with no per-item allocation. Every item keeps an absolute position
 * (`start` grows as items leave), so a caller can address a pending item later with `at`/`set`.
 * Internal: exported for the informer's listeners and the work queue.
 */
export class RingBuffer<T> {
  #items: (T | undefined)[];
  #mask: number;
  #head = 0;
  #length = 0;
  #start = 0;

  /**
   * Creates an empty buffer with room for `capacity` items (rounded up to a power of two, at
   * least 4). Throws a `RangeError` unless `capacity` is a number in [0, 2^30].
   */
  constructor(capacity = 16) {
    if (!(capacity >= 0 && capacity <= MAX_CAPACITY)) {
      throw new RangeError(`capacity must be a number in [0, ${MAX_CAPACITY}], got ${capacity}`);
    }
    let size = 4;
    while (size < capacity) size *= 2;
    this.#items = new Array<T | undefined>(size);
    this.#mask = size - 1;
  }

  /** Number of items held. */
  get length(): number {
    return this.#length;
  }

  /** Current slot count (grows, never shrinks except through {@linkcode RingBuffer.clear}). */
  get capacity(): number {
    return this.#items.length;
  }

  /** Absolute position of the first item. */
  get start(): number {
    return this.#start;
  }

  /** Absolute position the next pushed item will get. */
  get end(): number {
    return this.#start + this.#length;
  }

  /** Appends an item and returns its absolute position. */
  push(item: T): number {
    if (this.#length === this.#items.length) this.#grow();
    this.#items[(this.#head + this.#length) & this.#mask] = item;
    this.#length++;
    return this.#start + this.#length - 1;
  }

  /** Removes and returns the first item, or `undefined` when empty. */
  shift(): T | undefined {
    if (this.#length === 0) return undefined;
    const item = this.#items[this.#head];
    this.#items[this.#head] = undefined;
    this.#head = (this.#head + 1) & this.#mask;
    this.#length--;
    this.#start++;
    return item;
  }

  /** The first item without removing it. */
  peek(): T | undefined {
    return this.#length === 0 ? undefined : this.#items[this.#head];
  }

  /**
   * The item at absolute position `pos`, or `undefined` if it already left, never came, or
   * `pos` is not an integer.
   */
  at(pos: number): T | undefined {
    const i = pos - this.#start;
    if (!(i >= 0 && i < this.#length) || !Number.isInteger(i)) return undefined;
    return this.#items[(this.#head + i) & this.#mask];
  }

  /** Replaces the item at absolute position `pos`; returns false if it is not held. */
  set(pos: number, item: T): boolean {
    const i = pos - this.#start;
    if (!(i >= 0 && i < this.#length) || !Number.isInteger(i)) return false;
    this.#items[(this.#head + i) & this.#mask] = item;
    return true;
  }

  /** Removes every item and shrinks back to a small capacity. */
  clear(): void {
    this.#start += this.#length;
    this.#items = new Array<T | undefined>(16);
    this.#mask = 15;
    this.#head = 0;
    this.#length = 0;
  }

  /** Iterates the items in order without removing them. */
  *[Symbol.iterator](): IterableIterator<T> {
    for (let i = 0; i < this.#length; i++) yield this.#items[(this.#head + i) & this.#mask] as T;
  }

  #grow(): void {
    const old = this.#items;
    if (old.length >= MAX_CAPACITY) {
      throw new RangeError(`ring buffer is full (${old.length} items)`);
    }
    const next = new Array<T | undefined>(old.length * 2);
    for (let i = 0; i < this.#length; i++) next[i] = old[(this.#head + i) & this.#mask];
    this.#items = next;
    this.#mask = next.length - 1;
    this.#head = 0;
  }
}
