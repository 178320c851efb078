/**
 * What the LIST body scanners share: the bytes they look for, the nesting they follow, and how
 * they leave for the plain path. Internal.
 * @module
 */
import type { KubeObjectLike } from "./types.ts";
import type { JsonTextDecoder } from "../util/json_text_decoder.ts";

/** What identifies a listed item: read from its `metadata` without decoding the item. */
export interface ListItemIdentity {
  namespace: string | undefined;
  name: string | undefined;
  uid: string | undefined;
  resourceVersion: string | undefined;
}

export const QUOTE = 0x22;
export const BACKSLASH = 0x5c;
export const OPEN_BRACE = 0x7b;
export const CLOSE_BRACE = 0x7d;
export const OPEN_BRACKET = 0x5b;
export const CLOSE_BRACKET = 0x5d;
export const COMMA = 0x2c;
export const COLON = 0x3a;

/** Nesting the scanner follows (Kubernetes objects nest about 20 deep); deeper: plain path. */
export const MAX_DEPTH = 512;

/** The scanner's reader, with `item` already wrapped. */
export interface Scan<T> {
  item(object: KubeObjectLike): T | undefined;
  known?: ((identity: ListItemIdentity) => T | undefined) | undefined;
}

/** Thrown inside the scanner to leave for the plain path. */
export const BAILED = new Error("not a plain list body");

/** The JSON value in `span`, parsed; a syntax error leaves for the plain path. */
export function parseSpan(decoder: JsonTextDecoder, span: Uint8Array): unknown {
  try {
    return JSON.parse(decoder.decode(span));
  } catch {
    throw BAILED;
  }
}

/** Whether `c` ends a scalar: a comma, a closer or white space. */
export function isDelimiter(c: number): boolean {
  return c === COMMA || c === CLOSE_BRACE || c === CLOSE_BRACKET || isSpace(c);
}

/** Whether `c` is JSON white space. */
export function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

export const EMPTY = new Uint8Array(0);
