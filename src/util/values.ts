/**
 * Small value helpers shared by the client, the decoder, the queues, the config loaders and the
 * simulator: checks, descriptions for error messages, string trimming and encoding (internal).
 * @module
 */

/** A JSON object: not an array, not null. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Longest string {@linkcode describeValue} shows whole. */
const SHOWN_STRING = 100;

/**
 * A short description of a bad value for a TypeError/RangeError message: a string quoted (a
 * long one cut, with its length), a number or other primitive as it prints, an object by its
 * kind ({@linkcode describeKind}). Never the content of an object, never more than about 120
 * characters.
 */
export function describeValue(value: unknown): string {
  if (typeof value === "string") {
    if (value.length <= SHOWN_STRING) return JSON.stringify(value);
    return `${JSON.stringify(truncate(value, SHOWN_STRING - 20))}... (${value.length} characters)`;
  }
  if (typeof value === "object" || typeof value === "function") return describeKind(value);
  return String(value);
}

/**
 * The kind of a value, never its content, for values that may be large or secret (a token, a
 * chunk of a watch body): `"null"`, `"an array"`, `"a function"`, the class of an object
 * (`"ArrayBuffer"`, `"Response"`), `"an object"` for a plain one, else `typeof` (`"string"`).
 */
export function describeKind(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "function") return "a function";
  if (typeof value !== "object") return typeof value;
  const name = (value.constructor as { name?: unknown } | undefined)?.name;
  return typeof name === "string" && name !== "" && name !== "Object" ? name : "an object";
}

/** The message of an error, or the text of anything else thrown. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The first `max` UTF-16 units of `text`, never ending on the first half of a surrogate pair. */
export function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  const last = text.charCodeAt(max - 1);
  return text.slice(0, last >= 0xd800 && last <= 0xdbff ? max - 1 : max);
}

/** Base64 of the UTF-8 bytes of `text` (`btoa` alone takes Latin-1 only). */
export function base64Utf8(text: string): string {
  let binary = "";
  for (const byte of new TextEncoder().encode(text)) binary += String.fromCharCode(byte);
  return btoa(binary);
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

/**
 * A duration for a message: `"800 ms"`, `"1.6 s"`, `"30 s"`, `"2.5 min"`, `"3 h"` (one
 * decimal at most, none when it is zero).
 */
export function formatDuration(ms: number): string {
  if (!(ms >= 0) || !Number.isFinite(ms)) return `${ms} ms`;
  if (ms < 1_000) return `${Math.round(ms)} ms`;
  const one = (n: number): string => String(Math.round(n * 10) / 10);
  if (ms < 60_000) return `${one(ms / 1_000)} s`;
  if (ms < 3_600_000) return `${one(ms / 60_000)} min`;
  return `${one(ms / 3_600_000)} h`;
}
