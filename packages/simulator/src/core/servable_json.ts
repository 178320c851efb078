/**
 * Whether a value can be served as JSON by the simulated cluster, checked before an object is
 * stored: once stored, every LIST and watch of its resource serializes it, so one object that
 * `JSON.stringify` cannot handle (nested too deep for the call stack, cyclic, holding a
 * BigInt) would make them all fail.
 *
 * Measured stack limits for nested objects (fresh stack): `JSON.stringify` on Node 24 about
 * 4,400 levels, a recursive merge about 3,600; Bun about 23,000; Deno's `JSON.stringify` has
 * no limit. `JSON.parse` handled 2,000,000 levels on all three. Hence the default depth
 * limit of 1,000 (the real API server's JSON decoder allows 10,000).
 * @module
 */

/** The default `maxJsonDepth`. */
export const DEFAULT_MAX_JSON_DEPTH = 1000;

const OK = 0;
const TOO_DEEP = 1;
const BIGINT = 2;
const NOT_FINITE = 3;

/**
 * Walks `node` and what it holds, `left` levels at most. Recursive with `for...in`: about
 * 4x faster than an explicit stack over `Object.values` on 100,000 pod fixtures (the check
 * runs on every write, `seed` included), and bounded by `left`, so the recursion is as deep
 * as `maxJsonDepth` at most.
 */
function walk(node: object, left: number): number {
  if (left === 0) return TOO_DEEP;
  if (Array.isArray(node)) {
    for (let i = 0; i < node.length; i++) {
      const child: unknown = node[i];
      if (typeof child === "object" && child !== null) {
        const r = walk(child, left - 1);
        if (r !== OK) return r;
      } else if (typeof child === "bigint") {
        return BIGINT;
      } else if (typeof child === "number" && !Number.isFinite(child)) {
        return NOT_FINITE;
      }
    }
    return OK;
  }
  for (const key in node) {
    const child: unknown = (node as Record<string, unknown>)[key];
    if (typeof child === "object" && child !== null) {
      const r = walk(child, left - 1);
      if (r !== OK) return r;
    } else if (typeof child === "bigint") {
      return BIGINT;
    } else if (typeof child === "number" && !Number.isFinite(child)) {
      return NOT_FINITE;
    }
  }
  return OK;
}

/**
 * Why `value` cannot be served as JSON (nested objects and arrays deeper than `maxDepth`,
 * counting the outermost as 1; a cycle counts as too deep; a BigInt), or undefined when it
 * can; a number JSON cannot carry (Infinity, NaN: `1e999` parses as Infinity). A cycle is
 * found after `maxDepth` levels.
 */
export function unservable(value: unknown, maxDepth: number): string | undefined {
  let result: number;
  if (typeof value === "bigint") result = BIGINT;
  else if (typeof value === "number" && !Number.isFinite(value)) result = NOT_FINITE;
  else if (typeof value !== "object" || value === null) result = OK;
  else {
    try {
      result = walk(value, maxDepth);
    } catch (error) {
      // A maxJsonDepth set beyond what this runtime's stack holds.
      if (error instanceof RangeError) return "is nested too deep for the call stack";
      throw error;
    }
  }
  switch (result) {
    case OK:
      return undefined;
    case TOO_DEEP:
      return `is nested deeper than ${maxDepth} levels (maxJsonDepth)`;
    case NOT_FINITE:
      return "holds a number out of range (1e999 reads as Infinity, which JSON cannot carry)";
    default:
      return "holds a BigInt, which JSON cannot carry";
  }
}
