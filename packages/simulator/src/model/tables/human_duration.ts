/**
 * Durations and ages as kube-apiserver prints them in Table cells (apimachinery's
 * `duration.HumanDuration`): about two significant figures, `45s`, `5m3s`, `3h`, `2d4h`, `3y45d`.
 * @module
 */

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/**
 * `ms` as a short human duration. Up to two seconds in the future counts as now (`0s`); further
 * in the future is `<invalid>`, as on the API server.
 */
export function humanDuration(ms: number): string {
  const seconds = Math.trunc(ms / SECOND);
  if (seconds < -1) return "<invalid>";
  if (seconds < 0) return "0s";
  if (seconds < 120) return `${seconds}s`;
  const minutes = Math.trunc(ms / MINUTE);
  if (minutes < 10) {
    const s = seconds % 60;
    return s === 0 ? `${minutes}m` : `${minutes}m${s}s`;
  }
  if (minutes < 180) return `${minutes}m`;
  const hours = Math.trunc(ms / HOUR);
  if (hours < 8) {
    const m = minutes % 60;
    return m === 0 ? `${hours}h` : `${hours}h${m}m`;
  }
  if (hours < 48) return `${hours}h`;
  if (hours < 24 * 8) {
    const h = hours % 24;
    return h === 0 ? `${Math.trunc(hours / 24)}d` : `${Math.trunc(hours / 24)}d${h}h`;
  }
  if (hours < 24 * 365 * 2) return `${Math.trunc(hours / 24)}d`;
  const years = Math.trunc(hours / 24 / 365);
  if (hours < 24 * 365 * 8) {
    const days = Math.trunc(hours / 24) % 365;
    return days === 0 ? `${years}y` : `${years}y${days}d`;
  }
  return `${years}y`;
}

/** Milliseconds of an RFC 3339 time (seconds, or fractions of them), or undefined. */
export function parseTime(value: unknown): number | undefined {
  if (typeof value !== "string" || value === "") return undefined;
  const m = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d+))?(Z|[+-]\d{2}:\d{2})$/.exec(value);
  if (m === null) return undefined;
  // Three fractional digits at most: not every engine parses six (MicroTime).
  const ms = Date.parse(`${m[1]}.${(m[2] ?? "").padEnd(3, "0").slice(0, 3)}${m[3]}`);
  return Number.isNaN(ms) ? undefined : ms;
}

/**
 * The age of a timestamp field at `now`: `<unknown>` when it is absent (a zero time on the
 * server), else {@linkcode humanDuration} of the time since.
 */
export function since(value: unknown, now: number): string {
  const at = parseTime(value);
  return at === undefined ? "<unknown>" : humanDuration(now - at);
}
