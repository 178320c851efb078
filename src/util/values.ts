/**
 * Small value checks shared by the client, the decoder, the queues and the simulator (internal).
 * @module
 */

/** A JSON object: not an array, not null. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A short description of a bad option value for a TypeError/RangeError message. */
export function describeValue(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(value);
  if (typeof value === "function") return "a function";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "object" && value !== null) return "an object";
  return String(value);
}

/** The first `max` UTF-16 units of `text`, never ending on the first half of a surrogate pair. */
export function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  const last = text.charCodeAt(max - 1);
  return text.slice(0, last >= 0xd800 && last <= 0xdbff ? max - 1 : max);
}

/**
 * `text` without the trailing characters in `chars` (a loop, not a regex: `/\/+$/` backtracks
 * quadratically over a long run of slashes followed by anything else).
 */
export function trimEnd(text: string, chars: string): string {
  let end = text.length;
  while (end > 0 && chars.includes(text[end - 1]!)) end--;
  return text.slice(0, end);
}
