/**
 * Just enough DER (ITU-T X.690) to write an X.509 certificate: tag-length-value encoding of
 * the few ASN.1 types a certificate uses. No runtime APIs.
 * @module
 */

/** One encoded value: tag, definite length, contents. */
export function tlv(tag: number, ...contents: readonly Uint8Array[]): Uint8Array {
  const length = contents.reduce((n, c) => n + c.byteLength, 0);
  const lengthBytes: number[] = [];
  if (length < 0x80) {
    lengthBytes.push(length);
  } else {
    for (let rest = length; rest > 0; rest = Math.floor(rest / 256)) {
      lengthBytes.unshift(rest % 256);
    }
    lengthBytes.unshift(0x80 | lengthBytes.length);
  }
  const out = new Uint8Array(1 + lengthBytes.length + length);
  out[0] = tag;
  out.set(lengthBytes, 1);
  let at = 1 + lengthBytes.length;
  for (const c of contents) {
    out.set(c, at);
    at += c.byteLength;
  }
  return out;
}

/** SEQUENCE of `items`. */
export const sequence = (...items: readonly Uint8Array[]): Uint8Array => tlv(0x30, ...items);

/** SET of `items`. */
export const set = (...items: readonly Uint8Array[]): Uint8Array => tlv(0x31, ...items);

/** A context-specific constructed tag `[n]` around `items` (EXPLICIT tagging). */
export const explicit = (n: number, ...items: readonly Uint8Array[]): Uint8Array =>
  tlv(0xa0 + n, ...items);

/** BOOLEAN. */
export const boolean = (value: boolean): Uint8Array => tlv(0x01, Uint8Array.of(value ? 0xff : 0));

/** OCTET STRING. */
export const octetString = (bytes: Uint8Array): Uint8Array => tlv(0x04, bytes);

/** BIT STRING of whole bytes (no unused bits). */
export const bitString = (bytes: Uint8Array): Uint8Array => tlv(0x03, Uint8Array.of(0), bytes);

/** UTF8String. */
export const utf8String = (text: string): Uint8Array => tlv(0x0c, new TextEncoder().encode(text));

/** A non-negative INTEGER from its big-endian magnitude (leading zeros dropped, sign byte added). */
export function unsignedInteger(magnitude: Uint8Array): Uint8Array {
  let start = 0;
  while (start < magnitude.length - 1 && magnitude[start] === 0) start++;
  const trimmed = magnitude.subarray(start);
  const sign = (trimmed[0] ?? 0) & 0x80 ? Uint8Array.of(0) : new Uint8Array(0);
  return tlv(0x02, sign, trimmed.length === 0 ? Uint8Array.of(0) : trimmed);
}

/** OBJECT IDENTIFIER from its dotted form, e.g. `"2.5.4.3"`. */
export function oid(dotted: string): Uint8Array {
  const [first = 0, second = 0, ...rest] = dotted.split(".").map(Number);
  const bytes: number[] = [40 * first + second];
  for (const arc of rest) {
    const base128: number[] = [];
    for (let v = arc;; v = Math.floor(v / 128)) {
      base128.unshift((v % 128) | (base128.length === 0 ? 0 : 0x80));
      if (v < 128) break;
    }
    bytes.push(...base128);
  }
  return tlv(0x06, Uint8Array.from(bytes));
}

/** UTCTime (years 1950-2049) or GeneralizedTime (later), to the second. */
export function time(date: Date): Uint8Array {
  const iso = date.toISOString(); // 2026-12-07T20:24:03.123Z
  const digits = iso.slice(0, 19).replace(/[-T:]/g, "") + "Z"; // 20261207202403Z
  const year = date.getUTCFullYear();
  return year < 2050
    ? tlv(0x17, new TextEncoder().encode(digits.slice(2)))
    : tlv(0x18, new TextEncoder().encode(digits));
}

/** PEM text of DER `bytes` under `label` (e.g. `CERTIFICATE`), 64 characters a line. */
export function pem(label: string, bytes: Uint8Array): string {
  let binary = "";
  for (const b of bytes) binary += String.fromCharCode(b);
  const lines = btoa(binary).match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${label}-----\n${lines.join("\n")}\n-----END ${label}-----\n`;
}
