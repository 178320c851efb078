/**
 * Kubernetes `MicroTime`: RFC 3339 with exactly six fractional digits, the format of a Lease's
 * `acquireTime` and `renewTime`. The API server parses these fields with a fixed layout, so the
 * three digits of `Date.prototype.toISOString()` are refused with a 400.
 * @module
 */

const MICRO_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})\.(\d{6})(Z|[+-]\d{2}:\d{2})$/;

/**
 * Writes `ms` (milliseconds since the epoch) as a Kubernetes MicroTime in UTC, with exactly
 * six fractional digits (the last three are zero: JavaScript time has millisecond precision).
 *
 * @throws {RangeError} when `ms` is not a finite time a `Date` can hold.
 */
export function formatMicroTime(ms: number): string {
  const date = new Date(ms);
  if (typeof ms !== "number" || Number.isNaN(date.getTime())) {
    throw new RangeError(`formatMicroTime: not a valid time: ${String(ms)}`);
  }
  const year = date.getUTCFullYear();
  if (year < 0 || year > 9999) {
    throw new RangeError(`formatMicroTime: year ${year} cannot be written in RFC 3339`);
  }
  // toISOString gives YYYY-MM-DDTHH:MM:SS.mmmZ for years 0..9999.
  return `${date.toISOString().slice(0, 23)}000Z`;
}

/**
 * Reads a Kubernetes MicroTime (RFC 3339 with exactly six fractional digits, `Z` or an offset)
 * and returns milliseconds since the epoch (microseconds are truncated), or `undefined` when
 * `text` is not in that exact format or names an impossible date.
 */
export function parseMicroTime(text: string): number | undefined {
  if (typeof text !== "string") return undefined;
  const m = MICRO_TIME.exec(text);
  if (m === null) return undefined;
  const [, y, mo, d, h, mi, s, frac, zone] = m as unknown as string[];
  const month = Number(mo);
  const day = Number(d);
  if (month < 1 || month > 12 || day < 1 || day > daysIn(Number(y), month)) return undefined;
  if (Number(h) > 23 || Number(mi) > 59 || Number(s) > 59) return undefined;
  let offsetMinutes = 0;
  if (zone !== "Z") {
    const oh = Number(zone!.slice(1, 3));
    const om = Number(zone!.slice(4, 6));
    if (oh > 23 || om > 59) return undefined;
    offsetMinutes = (zone!.startsWith("-") ? -1 : 1) * (oh * 60 + om);
  }
  const utc = Date.UTC(Number(y), month - 1, day, Number(h), Number(mi), Number(s)) +
    Math.floor(Number(frac) / 1000);
  return utc - offsetMinutes * 60_000;
}

function daysIn(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}
