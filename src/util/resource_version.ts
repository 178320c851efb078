/**
 * Comparing resource versions without arithmetic.
 * @module
 */

/**
 * Compares two resource versions. RVs are opaque strings; since Kubernetes 1.35 they are
 * orderable as decimal integers within one resource type: compare by length, then
 * lexically. Returns a negative number, zero or a positive number, or `undefined` when either
 * is not a decimal integer (then only a bookmark or a fresh list can tell where you are).
 *
 * @example
 * ```ts
 * import { compareResourceVersions } from "@kinformer/kinformer/cache";
 * console.log(compareResourceVersions("999", "1000") < 0); // true
 * ```
 */
export function compareResourceVersions(a: string, b: string): number | undefined {
  if (!DECIMAL.test(a) || !DECIMAL.test(b)) return undefined;
  if (a.length !== b.length) return a.length - b.length;
  return a < b ? -1 : a > b ? 1 : 0;
}

const DECIMAL = /^(0|[1-9][0-9]*)$/;
