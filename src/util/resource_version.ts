/**
 * Comparing resource versions without arithmetic.
 * @module
 */

/**
 * Compares two resource versions. RVs are opaque strings; since Kubernetes 1.35 they are
 * orderable as decimal integers within one resource type: compare by length, then
 * lexically. Returns a negative number, zero or a positive number, or `undefined` when either
 * is not well formed the way Kubernetes' own comparison requires: a positive decimal integer
 * with no leading zero. `"0"` (the "any version" request value) and `""` are not comparable;
 * then only a bookmark or a fresh list can tell where you are.
 */
export function compareResourceVersions(a: string, b: string): number | undefined {
  if (!WELL_FORMED.test(a) || !WELL_FORMED.test(b)) return undefined;
  if (a.length !== b.length) return a.length - b.length;
  return a < b ? -1 : a > b ? 1 : 0;
}

const WELL_FORMED = /^[1-9][0-9]*$/;
