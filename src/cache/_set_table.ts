/**
 * The bounded, set-associative table behind `ValueInterner`: values by hash in sets of four
 * slots, each set ranking its slots by how recently their values were seen. Internal.
 * @module
 */

/** The bits of a hash (every hash a table takes fits in them). */
export const HASH_BITS = 0x3fffffff;

/** A bit above {@linkcode HASH_BITS} a table's user may set on a slot's tag (kept as it is). */
export const TAG_FLAG = 0x40000000;

/** The bit set on every tabled hash (an empty slot's tag is 0). */
export const OCCUPIED = 0x80000000 | 0;

/**
 * A table of values by hash, in sets of {@linkcode WAYS} slots (a value's hash picks its set;
 * each set ranks its slots from the most to the least recently seen value, the slots never
 * filled last). It starts at {@linkcode INITIAL} slots (or its capacity, if smaller) and
 * doubles each time values new to it reach a quarter of its slots, up to its capacity.
 */
export class SetTable<V> {
  values: V[];
  /** Each slot's value's hash with {@linkcode OCCUPIED} set (0 in an empty slot), and flags. */
  hashes: Int32Array;
  /**
   * Per set, its slots from the most to the least recently seen (two bits a slot, the most
   * recent lowest): a value seen again or added moves up by a change of this byte, not of
   * the slots (which are far apart in memory: each move was a cache miss).
   */
  order: Uint8Array;
  /** Slots filled. */
  count = 0;
  /** Values inserted since the table last grew. */
  #misses = 0;
  readonly #capacity: number;
  readonly #empty: V;

  constructor(capacity: number, empty: V) {
    this.#capacity = capacity;
    this.#empty = empty;
    const size = Math.min(capacity, INITIAL);
    this.values = emptyTable(size, empty);
    this.hashes = new Int32Array(size);
    this.order = new Uint8Array(size / WAYS).fill(IN_ORDER);
  }

  /** The first slot of the set of a value of hash `hash`. */
  setOf(hash: number): number {
    return slotSet(hash, this.values.length);
  }

  /** Ranks first the slot of rank `rank` in the set starting at `set` (seen again). */
  promote(set: number, rank: number): void {
    const order = this.order;
    const ranks = order[set >> 2]!;
    const shift = rank << 1;
    const slot = (ranks >> shift) & 3;
    const above = ranks & ((1 << shift) - 1);
    const below = (ranks >> (shift + 2)) << (shift + 2);
    order[set >> 2] = below | (above << 2) | slot;
  }

  /**
   * Puts `value` first in the set starting at `set` (the set's least recently seen value is
   * forgotten), then grows the table if that is due.
   */
  insert(set: number, value: V, hash: number): void {
    this.#place(set, value, hash | OCCUPIED);
    if (++this.#misses * 4 >= this.values.length && this.values.length < this.#capacity) {
      this.#grow();
    }
  }

  /**
   * Puts `value` first in the set starting at `set`, forgetting the set's last value; `tag`
   * is its hash with {@linkcode OCCUPIED} set (and its flags).
   */
  #place(set: number, value: V, tag: number): void {
    const last = set + (this.order[set >> 2]! >> 6);
    if (this.hashes[last] === 0) this.count++;
    this.values[last] = value;
    this.hashes[last] = tag;
    this.promote(set, WAYS - 1);
  }

  /** The table at twice its size, its values placed again (the most recently seen first). */
  #grow(): void {
    const old = this.values;
    const oldHashes = this.hashes;
    const oldOrder = this.order;
    this.values = emptyTable(old.length * 2, this.#empty);
    this.hashes = new Int32Array(old.length * 2);
    this.order = new Uint8Array(old.length * 2 / WAYS).fill(IN_ORDER);
    this.count = 0;
    // Each set's least recently seen values first, so that the more recent ones end up first.
    for (let rank = WAYS - 1; rank >= 0; rank--) {
      for (let set = 0; set < old.length; set += WAYS) {
        const j = set + ((oldOrder[set >> 2]! >> (rank << 1)) & 3);
        const tag = oldHashes[j]!;
        if (tag !== 0) this.#place(this.setOf(tag & HASH_BITS), old[j]!, tag);
      }
    }
    this.#misses = 0;
  }
}

/** A set's ranks when its slots rank in their order (slot 0 first): 3, 2, 1, 0 in two bits each. */
const IN_ORDER = 0b11_10_01_00;

/**
 * Slots per set: a value's hash picks a set, where it may sit in any slot; the set keeps its
 * values most recently seen first and forgets the last one for a new value. A value seen
 * again before four new values land in its set stays (with two, hot values were lost in a
 * small table).
 */
export const WAYS = 4;

/**
 * The first slot of the set of a value of hash `hash` in a table of `size` slots (a power of
 * two, at least 8): the hash's bits mixed (Fibonacci hashing), the set from the top ones.
 */
function slotSet(hash: number, size: number): number {
  return (Math.imul(hash, 0x9e3779b1) >>> (3 + Math.clz32(size))) << 2;
}

/** Slots a table starts with (it grows to its capacity as new values arrive). */
const INITIAL = 512;

/** A table of `size` slots, each `empty` (packed: every slot written). */
function emptyTable<V>(size: number, empty: V): V[] {
  const table: V[] = [];
  for (let i = 0; i < size; i++) table.push(empty);
  return table;
}
