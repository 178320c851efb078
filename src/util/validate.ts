/**
 * Up-front checks for options: each error names the option and describes the bad value
 * (`TypeError` for the wrong kind of value, `RangeError` for a value out of range). The one
 * validation dialect of the project. Internal.
 * @module
 */
import type { Clock } from "../util/clock.ts";
import { describeValue } from "../util/values.ts";

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

/**
 * Throws unless `value` is `undefined` or a number in range: `TypeError` for a non-number,
 * `RangeError` for NaN, out of range, infinite (unless allowed) or fractional (when an
 * integer is required).
 */
export function checkNumber(
  value: unknown,
  option: string,
  range: { min: number; minExclusive?: boolean; integer?: boolean; allowInfinity?: boolean },
): void {
  if (value === undefined) return;
  if (typeof value !== "number") {
    throw new TypeError(`${option} must be a number, got ${describeValue(value)}`);
  }
  const tooSmall = range.minExclusive ? !(value > range.min) : !(value >= range.min);
  if (
    Number.isNaN(value) || tooSmall || (!range.allowInfinity && !Number.isFinite(value)) ||
    (range.integer && Number.isFinite(value) && !Number.isInteger(value))
  ) {
    const what = `${range.integer ? "an integer" : "a number"} ${
      range.minExclusive ? ">" : ">="
    } ${range.min}`;
    throw new RangeError(
      `${option} must be ${what}${range.allowInfinity ? "" : " and finite"}, got ${
        describeValue(value)
      }`,
    );
  }
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
