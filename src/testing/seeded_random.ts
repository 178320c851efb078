/**
 * A seeded random source for tests and simulations.
 * @module
 */
import { requireNumber } from "../util/validate.ts";
import { Rng } from "./_rng.ts";

/**
 * A deterministic random source in [0, 1): the same seed always gives the same sequence, so a
 * failing run can be replayed from its seed. Pass it as `random` to `createInformer` (jitter,
 * watch timeouts) or to `exponentialBackoff`; the simulated cluster uses the same generator.
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
