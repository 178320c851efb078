/**
 * Own-property access for user JSON in the simulated cluster. `JSON.parse` makes `__proto__`
 * an ordinary own key, but assigning `obj["__proto__"] = value` calls the `Object.prototype`
 * setter (on Node and Bun; Deno has no such accessor) and replaces `obj`'s prototype, and
 * reading a missing key walks the prototype chain. Code that copies or walks user JSON reads
 * with {@linkcode getOwn} and writes with {@linkcode setOwn}.
 * @module
 */

/** `obj[key]` if it is an own property, else undefined (never an inherited value). */
export function getOwn(obj: Record<string, unknown>, key: string): unknown {
  return Object.hasOwn(obj, key) ? obj[key] : undefined;
}

/**
 * Sets `obj[key] = value` as an own, enumerable data property. `__proto__` is the only key an
 * assignment could turn into a prototype change (the one accessor on `Object.prototype`), so
 * only it pays for `Object.defineProperty`.
 */
export function setOwn(obj: Record<string, unknown>, key: string, value: unknown): void {
  if (key === "__proto__") {
    Object.defineProperty(obj, key, {
      value,
      writable: true,
      enumerable: true,
      configurable: true,
    });
  } else {
    obj[key] = value;
  }
}
