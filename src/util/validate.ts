/**
 * Up-front checks for options: each error names the option and describes the bad value
 * (`TypeError` for the wrong kind of value, `RangeError` for a value out of range). The one
 * validation dialect of the project. Internal.
 * @module
 */
import type { Clock } from "./clock.ts";
import { describeValue } from "./values.ts";

/** Throws unless `value` is a plain object or `undefined`. */
export function checkOptionsObject(value: unknown, where: string): void {
  if (value !== undefined && (typeof value !== "object" || value === null)) {
    throw new TypeError(`${where}: options must be an object, got ${describeValue(value)}`);
  }
}

/** Throws unless `value` is `undefined` or a {@linkcode Clock}. */
export function checkClock(value: unknown, option: string): void {
  if (value === undefined) return;
  const c = value as Partial<Clock> | null;
  if (
    typeof c !== "object" || c === null || typeof c.now !== "function" ||
    typeof c.setTimeout !== "function" || typeof c.clearTimeout !== "function"
  ) {
    throw new TypeError(
      `${option} must be a Clock with now(), setTimeout() and clearTimeout(), got ${
        describeValue(value)
      }`,
    );
  }
}

/** Throws unless `value` is `undefined` or a function. */
export function checkFunction(value: unknown, option: string): void {
  if (value !== undefined && typeof value !== "function") {
    throw new TypeError(`${option} must be a function, got ${describeValue(value)}`);
  }
}

/** Throws unless `value` is `undefined` or a string. */
export function checkString(value: unknown, option: string): void {
  if (value !== undefined && typeof value !== "string") {
    throw new TypeError(`${option} must be a string, got ${describeValue(value)}`);
  }
}

/** Throws unless `value` is `undefined` or a non-empty string. */
export function checkNonEmptyString(value: unknown, option: string): void {
  if (value !== undefined) requireNonEmptyString(value, option);
}

/** Throws unless `value` is a non-empty string. */
export function requireNonEmptyString(value: unknown, option: string): asserts value is string {
  if (typeof value !== "string" || value === "") {
    throw new TypeError(`${option} must be a non-empty string, got ${describeValue(value)}`);
  }
}

/** Throws unless `value` is `undefined` or an `AbortSignal` ({@linkcode requireSignal}). */
export function checkSignal(value: unknown, option: string): void {
  if (value !== undefined) requireSignal(value, option);
}

/**
 * Throws unless `value` is an `AbortSignal`: an object with a boolean `aborted` and the methods
 * the project calls (`addEventListener`, `removeEventListener`, `throwIfAborted`), so a signal
 * from another realm passes too.
 */
export function requireSignal(value: unknown, option: string): asserts value is AbortSignal {
  const s = value as Partial<AbortSignal> | null | undefined;
  if (
    typeof s !== "object" || s === null || typeof s.aborted !== "boolean" ||
    typeof s.addEventListener !== "function" || typeof s.removeEventListener !== "function" ||
    typeof s.throwIfAborted !== "function"
  ) {
    throw new TypeError(`${option} must be an AbortSignal, got ${describeValue(value)}`);
  }
}

/** The range {@linkcode checkNumber} and {@linkcode requireNumber} accept. */
export interface NumberRange {
  /** Smallest value allowed. @default -Infinity */
  min?: number;
  /** Largest value allowed (inclusive). @default Infinity */
  max?: number;
  /** `min` itself is refused (`> min`, not `>= min`). @default false */
  minExclusive?: boolean;
  /** Only integers. @default false */
  integer?: boolean;
  /** `Infinity` (and `-Infinity`) count as in range when within the bounds. @default false */
  allowInfinity?: boolean;
}

/**
 * Throws unless `value` is `undefined` or a number in `range`: `TypeError` for a non-number,
 * `RangeError` for NaN, out of range, infinite (unless allowed) or fractional (when an integer
 * is required).
 */
export function checkNumber(value: unknown, option: string, range: NumberRange = {}): void {
  if (value !== undefined) requireNumber(value, option, range);
}

/** `value` when it is a number in `range`; otherwise throws like {@linkcode checkNumber}. */
export function requireNumber(value: unknown, option: string, range: NumberRange = {}): number {
  if (typeof value !== "number") {
    throw new TypeError(`${option} must be a number, got ${describeValue(value)}`);
  }
  const { min = -Infinity, max = Infinity, minExclusive = false } = range;
  const tooSmall = minExclusive ? !(value > min) : !(value >= min);
  if (
    Number.isNaN(value) || tooSmall || value > max ||
    (!range.allowInfinity && !Number.isFinite(value)) ||
    (range.integer && Number.isFinite(value) && !Number.isInteger(value))
  ) {
    throw new RangeError(`${option} must be ${describeRange(range)}, got ${describeValue(value)}`);
  }
  return value;
}

/** "an integer from 1 to 4096", "a finite number >= 0", "a number > 0". */
function describeRange(range: NumberRange): string {
  const { min = -Infinity, max = Infinity, minExclusive = false } = range;
  const kind = range.integer ? "an integer" : range.allowInfinity ? "a number" : "a finite number";
  const low = min === -Infinity ? undefined : `${minExclusive ? ">" : ">="} ${min}`;
  if (max === Infinity) return low === undefined ? kind : `${kind} ${low}`;
  if (low === undefined) return `${kind} <= ${max}`;
  return minExclusive ? `${kind} ${low} and <= ${max}` : `${kind} from ${min} to ${max}`;
}

/** Throws unless `value` is `undefined` or a boolean. */
export function checkBoolean(value: unknown, option: string): void {
  if (value !== undefined && typeof value !== "boolean") {
    throw new TypeError(`${option} must be a boolean, got ${describeValue(value)}`);
  }
}

/** Throws unless `value` is `undefined` or one of `allowed`. */
export function checkOneOf(value: unknown, option: string, allowed: readonly unknown[]): void {
  if (value !== undefined && !allowed.includes(value)) {
    throw new TypeError(
      `${option} must be one of ${allowed.map((a) => JSON.stringify(a)).join(", ")}, got ${
        describeValue(value)
      }`,
    );
  }
}
