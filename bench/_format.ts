/**
 * Statistics and formatting of bench figures, shared by the scenarios and the runner's table.
 * @module
 */

/** The smallest value (best of repetitions). */
export const best = (xs: number[]): number => Math.min(...xs);

/** The median value. */
export const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

/** Milliseconds, as seconds from 10 s on. */
export const fmtMs = (ms: number): string =>
  ms >= 10_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms)} ms`;

/** Bytes as MB (MiB). */
export const fmtMB = (bytes: number): string => `${(bytes / 1048576).toFixed(1)} MB`;

/** Bytes as KB (KiB). */
export const fmtKB = (bytes: number): string => `${(bytes / 1024).toFixed(1)} KB`;

/** A count: `10k`, `500`. */
export const fmtN = (n: number): string => (n >= 1000 ? `${n / 1000}k` : String(n));

/** A ratio: `0.893x`, `2.06x`, or `n/a`. */
export const fmtX = (x: number): string =>
  Number.isFinite(x) ? `${x.toFixed(Math.abs(x) < 1 ? 3 : 2)}x` : "n/a";
