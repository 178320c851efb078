/**
 * A growable ring buffer with O(1) `push` and `shift`, used by the work queue so that taking
 * from the front of a long queue never copies the rest (as `Array.prototype.shift` can).
 * Internal to `src/queue/`.
 * @module
 */

const INITIAL_CAPACITY = 16;

/** First-in first-out ring buffer that doubles its capacity when full. */
export class _Deque<T> {
  #buf: (T | undefined)[] = new Array<T | undefined>(INITIAL_CAPACITY);
  #head = 0;
  #length = 0;

  /** Number of items held. */
  get length(): number {
    return this.#length;
  }

  /** Appends `item` at the back. */
  push(item: T): void {
    if (this.#length === this.#buf.length) this.#grow();
    this.#buf[(this.#head + this.#length) % this.#buf.length] = item;
    this.#length++;
  }

  /** Removes and returns the front item, or `undefined` when empty. */
  shift(): T | undefined {
    if (this.#length === 0) return undefined;
    const item = this.#buf[this.#head];
    this.#buf[this.#head] = undefined; // let the item be collected
    this.#head = (this.#head + 1) % this.#buf.length;
    this.#length--;
    return item;
  }

  #grow(): void {
    const old = this.#buf;
    const next = new Array<T | undefined>(old.length * 2);
    for (let i = 0; i < this.#length; i++) next[i] = old[(this.#head + i) % old.length];
    this.#buf = next;
    this.#head = 0;
  }
}
