/**
 * A seeded random source for tests and simulations: one small generator (sfc32 seeded with
 * splitmix32), so every run of the simulated cluster with the same seed makes the same uids,
 * names, chunk sizes and churn, and {@linkcode seededRandom} hands the same sequence to user code.
 * @module
 */
import { requireNumber } from "../util/validate.ts";

/**
 * A deterministic random source in [0, 1): the same seed always gives the same sequence, so a
 * failing run can be replayed from its seed. Pass it as `random` to `createInformer` (jitter,
 * watch timeouts); the simulated cluster uses the same generator.
 *
 * @example
 * ```ts
 * import { seededRandom } from "@kinformer/kinformer/testing";
 * import assert from "node:assert/strict";
 * const a = seededRandom(42);
 * const b = seededRandom(42);
 * const first = a();
 * assert.ok(first >= 0 && first < 1);
 * assert.equal(b(), first);
 * ```
 */
export function seededRandom(seed: number): () => number {
  const rng = new Rng(requireNumber(seed, "seed"));
  return () => rng.next();
}

const UUID_HEX: string[] = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, "0"));

/** Deterministic random numbers. Internal to the testing package. */
export class Rng {
  #a: number;
  #b: number;
  #c: number;
  #d: number;

  /** Seeds the generator; equal seeds give equal sequences. */
  constructor(seed: number) {
    let s = seed >>> 0;
    const split = (): number => {
      s = (s + 0x9e3779b9) >>> 0;
      let z = s;
      z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
      z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
      return (z ^ (z >>> 16)) >>> 0;
    };
    this.#a = split();
    this.#b = split();
    this.#c = split();
    this.#d = split();
    for (let i = 0; i < 12; i++) this.uint32();
  }

  /** A uniformly distributed 32-bit unsigned integer. */
  uint32(): number {
    const t = (((this.#a + this.#b) >>> 0) + this.#d) >>> 0;
    this.#d = (this.#d + 1) >>> 0;
    this.#a = this.#b ^ (this.#b >>> 9);
    this.#b = (this.#c + (this.#c << 3)) >>> 0;
    this.#c = ((this.#c << 21) | (this.#c >>> 11)) >>> 0;
    this.#c = (this.#c + t) >>> 0;
    return t;
  }

  /** A float in [0, 1). */
  next(): number {
    return this.uint32() / 4294967296;
  }

  /** An integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  /** An integer in [min, max]. */
  between(min: number, max: number): number {
    return min + this.int(max - min + 1);
  }

  /** One element of a non-empty array. */
  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)]!;
  }

  /** `n` characters drawn from `alphabet`. */
  chars(n: number, alphabet: string): string {
    let out = "";
    for (let i = 0; i < n; i++) out += alphabet[this.int(alphabet.length)];
    return out;
  }

  /** A version-4-shaped UUID string. */
  uuid(): string {
    const b: number[] = [];
    for (let i = 0; i < 4; i++) {
      const v = this.uint32();
      b.push(v & 255, (v >>> 8) & 255, (v >>> 16) & 255, v >>> 24);
    }
    b[6] = (b[6]! & 0x0f) | 0x40;
    b[8] = (b[8]! & 0x3f) | 0x80;
    const h = b.map((x) => UUID_HEX[x]!);
    return `${h[0]}${h[1]}${h[2]}${h[3]}-${h[4]}${h[5]}-${h[6]}${h[7]}-${h[8]}${h[9]}-${
      h.slice(10).join("")
    }`;
  }
}
