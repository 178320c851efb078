/**
 * The one reporting path of kinformer: how every long-running object hands an error to its
 * `onError`, or prints it when none was given. Internal.
 * @module
 */
import { type Clock, systemClock, type TimerHandle } from "./clock.ts";
import type { ErrorContext, ErrorPhase, OnError } from "./error_context.ts";
import { type ErrorKind, errorKindOf } from "./error_kind.ts";
import { reportError } from "./report_error.ts";
import { checkNumber } from "./validate.ts";
import { formatDuration, messageOf, truncate } from "./values.ts";

/** Where the default reporting prints: `console` unless a test gives another. */
export interface ReportConsole {
  /** Prints an error line. */
  error(line: string): void;
  /** Prints a warning line (a routine recovery, or healthy again). */
  warn(line: string): void;
}

/** Options of an {@linkcode ErrorReporter}. */
export interface ErrorReporterOptions {
  /** Names the object in every context and line: `"pods informer"`, `"controller web"`. */
  source: string;
  /** The user's `onError`: replaces the default printing entirely. @default undefined */
  onError?: OnError | undefined;
  /** Times the one-line-per-minute limit. @default the system clock */
  clock?: Clock | undefined;
  /** Where the default prints. @default `globalThis.console` */
  console?: ReportConsole | undefined;
  /**
   * Where a throw of `onError` goes.
   * @default rethrown on a microtask (reported as uncaught, never lost)
   */
  onCallbackError?: ((thrown: unknown) => void) | undefined;
  /**
   * Limits the default printing per kind and per cluster (the context's `cluster`) instead of
   * per kind, for an object that reports the errors of many clusters (a fleet): each cluster's
   * first error prints at once, with at most {@linkcode ErrorReporterOptions.maxLinesPerMinute}
   * lines a minute in all, and {@linkcode ErrorReporter.healthy} takes a cluster. The object
   * must then be {@linkcode ErrorReporter.close}d when it stops.
   * @default undefined (one limit per kind for the whole object)
   */
  groupBy?: "cluster" | undefined;
  /**
   * With `groupBy`: lines the default prints a minute in all, beyond which one summary line a
   * minute counts and names what was not printed.
   * @default 5
   */
  maxLinesPerMinute?: number | undefined;
}

/** What the owner says about one error (the reporter adds `kind` and `source`). */
export interface ReportDetails extends Omit<ErrorContext, "kind" | "source"> {
  /**
   * The kind of an error that carries none of its own (see {@linkcode errorKindOf}).
   * @default by phase: `handler` for `handler` and `callback`, else `network`/`other`
   */
  foreignKind?: ErrorKind | undefined;
}

/** At most one printed line per kind per this many ms. */
export const REPORT_INTERVAL_MS = 60_000;

/** With `groupBy`: the default of `maxLinesPerMinute`. */
const MAX_LINES_PER_MINUTE = 5;

/** Clusters a summary line names per kind, at most. */
const NAMED_CLUSTERS = 5;

/** Kinds that are part of normal operation: not printed by default (an informer relists). */
const ROUTINE: ReadonlySet<ErrorKind> = new Set<ErrorKind>(["expired"]);

/**
 * Where an error means the object cannot do its work (a request failing): the errors
 * {@linkcode ErrorReporter.healthy} counts. A throw of user code is not an outage.
 */
const OUTAGE: ReadonlySet<ErrorPhase> = new Set<ErrorPhase>([
  "list",
  "stream",
  "watch",
  "request",
  "lease",
  "event",
  "credentials",
]);

/** Kinds printed as warnings: the object recovers from them by itself. */
const WARNINGS: ReadonlySet<ErrorKind> = new Set<ErrorKind>([
  "too-large-rv",
  "inactivity",
  "initial-events-timeout",
  "rate-limited",
  "checkpoint",
]);

/** How each kind reads in a line. */
const LABELS: Record<ErrorKind, string> = {
  "expired": "expired (410)",
  "too-large-rv": "resource version too large (504)",
  "unauthorized": "unauthorized (401)",
  "forbidden": "forbidden (403)",
  "not-found": "not found (404)",
  "unsupported": "not acceptable (406)",
  "invalid": "invalid",
  "rate-limited": "rate-limited (429)",
  "server": "server error",
  "network": "network error",
  "decode": "decode error",
  "inactivity": "inactive",
  "initial-events-timeout": "initial events timeout",
  "checkpoint": "checkpoint refused",
  "transform": "transform threw",
  "handler": "threw",
  "mutation": "cached object mutated",
  "drift": "drift",
  "config": "configuration error",
  "credentials": "credentials error",
  "other": "error",
};

/** Longest error message a printed line shows. */
const MESSAGE_CHARS = 400;

/**
 * The one reporting path of a long-running object. {@linkcode ErrorReporter.report} builds the
 * {@linkcode ErrorContext} (`kind` from the error itself) and hands it to `onError`.
 *
 * Without `onError`, the default prints, never silent and never a flood:
 * - the first error of each kind at once, with what the object does about it:
 *   `pods informer: list forbidden (403): pods is forbidden: ...; retrying with backoff (next in
 *   1.6 s)` (`console.error`; `console.warn` for kinds the object recovers from by itself:
 *   too-large-rv, inactivity, initial-events-timeout, rate-limited, checkpoint);
 * - then at most one line per kind per minute, with how many were not printed since the last;
 * - one line when the object works again after failed requests: `pods informer: healthy
 *   again after 12 errors` (throws of your handlers or callbacks are not an outage).
 *
 * A watch that expired (410, kind `expired`) is routine (the informer relists) and is not
 * printed. A line holds the error's message, cut to 400 characters: kinformer's errors never
 * carry credentials.
 *
 * An object of many clusters (a fleet, `groupBy: "cluster"`) limits per kind and per cluster,
 * so two clusters failing the same way within a minute both get their first line
 * (`fleet pods (cluster b): list not found (404): ...`), and {@linkcode ErrorReporter.healthy}
 * with a cluster prints `fleet pods (cluster b): healthy again after 3 errors`. All clusters
 * together print at most `maxLinesPerMinute` lines (5) a minute; beyond that, one line at the end
 * of the minute says what was not printed, naming a few clusters per kind: `fleet pods: 195
 * errors not printed in 1 min (at most 5 lines a minute): not found (404) in 195 clusters
 * (c-006, c-007, c-008, c-009, c-010 and 190 more)`. So a thousand clusters going down print
 * six lines a minute, not a thousand.
 *
 * @example
 * ```ts
 * import { ErrorReporter } from "./error_reporter.ts";
 * import { ManualClock } from "../testing/manual_clock.ts";
 * import assert from "node:assert/strict";
 * const lines: string[] = [];
 * const out = { error: (l: string) => void lines.push(l), warn: (l: string) => void lines.push(l) };
 * const fleet = new ErrorReporter({
 *   source: "fleet pods",
 *   groupBy: "cluster",
 *   clock: new ManualClock(),
 *   console: out,
 * });
 * for (const cluster of ["b", "c"]) {
 *   fleet.report(new TypeError("fetch failed"), { phase: "list", action: "retrying", cluster });
 * }
 * assert.deepEqual(lines, [
 *   "fleet pods (cluster b): list network error: fetch failed; retrying",
 *   "fleet pods (cluster c): list network error: fetch failed; retrying",
 * ]);
 * fleet.healthy("b");
 * assert.equal(lines.at(-1), "fleet pods (cluster b): healthy again after 1 error");
 * fleet.close();
 * ```
 */
export class ErrorReporter {
  readonly #source: string;
  readonly #onError: OnError | undefined;
  readonly #clock: Clock;
  readonly #console: ReportConsole;
  readonly #onCallbackError: (thrown: unknown) => void;
  /** With `groupBy`: the lines a minute in all; `undefined`: no cap (one object). */
  readonly #maxLines: number | undefined;
  /**
   * Per group (a cluster; `""` for an object of one): errors since it was last healthy and,
   * per kind, when its last line was printed and how many were not printed since.
   */
  readonly #groups = new Map<string, Group>();
  /** Errors (not routine) since the object was last healthy. */
  #errors = 0;
  /** With `groupBy`: the minute under way and its lines, then what did not fit. */
  #window: { start: number; lines: number } | undefined;
  #overflow: Overflow | undefined;

  /** A reporter for one object (see {@linkcode ErrorReporterOptions}). */
  constructor(options: ErrorReporterOptions) {
    this.#source = options.source;
    this.#onError = options.onError;
    this.#clock = options.clock ?? systemClock;
    this.#console = options.console ?? globalThis.console;
    this.#onCallbackError = options.onCallbackError ?? reportError;
    checkNumber(options.maxLinesPerMinute, "maxLinesPerMinute", { min: 1, integer: true });
    this.#maxLines = options.groupBy === undefined
      ? undefined
      : options.maxLinesPerMinute ?? MAX_LINES_PER_MINUTE;
  }

  /** The object's name in contexts and lines. */
  get source(): string {
    return this.#source;
  }

  /**
   * Failed requests (list, stream, watch, request, lease, event, credentials) reported since
   * the object was last healthy; routine kinds and throws of user code are not counted.
   */
  get errorsSinceHealthy(): number {
    return this.#errors;
  }

  /** The context of `error` as `onError` gets it. */
  context(error: unknown, details: ReportDetails): ErrorContext {
    const { foreignKind, ...rest } = details;
    const fallback = foreignKind ?? FOREIGN[details.phase];
    const context = { ...rest, kind: errorKindOf(error, fallback), source: this.#source };
    // Only the fields that have a value: contexts compare and print cleanly.
    for (const [name, value] of Object.entries(context)) {
      if (value === undefined) delete (context as Record<string, unknown>)[name];
    }
    return context;
  }

  /** Reports `error`: to `onError`, or the default printing. Returns the context. */
  report(error: unknown, details: ReportDetails): ErrorContext {
    const context = this.context(error, details);
    const name = this.#maxLines === undefined ? "" : context.cluster ?? "";
    let group = this.#groups.get(name);
    if (group === undefined) this.#groups.set(name, group = { errors: 0, kinds: new Map() });
    if (!ROUTINE.has(context.kind) && OUTAGE.has(context.phase)) {
      this.#errors++;
      group.errors++;
    }
    if (this.#onError !== undefined) {
      try {
        this.#onError(error, context);
      } catch (thrown) {
        this.#onCallbackError(thrown);
      }
      return context;
    }
    if (ROUTINE.has(context.kind)) return context;
    const now = this.#clock.now();
    const last = group.kinds.get(context.kind);
    if (last !== undefined && now - last.at < REPORT_INTERVAL_MS) {
      last.suppressed++;
      return context;
    }
    if (!this.#admit(now)) {
      this.#overflowed(context.kind, name, last === undefined, now);
      return context;
    }
    const more = last === undefined || last.suppressed === 0
      ? ""
      : ` [${last.suppressed} more since ${formatDuration(now - last.at)} ago]`;
    group.kinds.set(context.kind, { at: now, suppressed: 0 });
    const line = `${describeError(error, context)}${more}`;
    if (WARNINGS.has(context.kind)) this.#console.warn(line);
    else this.#console.error(line);
    return context;
  }

  /**
   * The object works again (an informer synced or watches again, a request succeeded): with
   * the default printing, one line if errors were reported since it was last healthy. The next
   * error of any kind prints at once again.
   *
   * With `groupBy`, `cluster` says that only this cluster works again: one line for it (within
   * the lines a minute), and its next error prints at once again.
   */
  healthy(cluster?: string): void {
    if (cluster !== undefined && this.#maxLines !== undefined) {
      const group = this.#groups.get(cluster);
      if (group === undefined || group.errors === 0) return;
      this.#groups.delete(cluster);
      if (this.#onError !== undefined) return;
      const now = this.#clock.now();
      if (this.#admit(now)) {
        this.#console.warn(
          `${this.#source} (cluster ${cluster}): healthy again after ${
            count(group.errors, "error")
          }`,
        );
      } else this.#overflowed("healthy", cluster, false, now);
      return;
    }
    const errors = this.#errors;
    if (errors === 0) return;
    this.#errors = 0;
    this.#groups.clear();
    if (this.#onError !== undefined) return;
    this.#summarize();
    this.#console.warn(`${this.#source}: healthy again after ${count(errors, "error")}`);
  }

  /**
   * With `groupBy`: forgets `cluster` (it left the object) and its limits; what it reported
   * stays counted in {@linkcode ErrorReporter.errorsSinceHealthy}.
   */
  forget(cluster: string): void {
    this.#groups.delete(cluster);
  }

  /**
   * The object stopped: prints the summary of what was not printed yet, if any, and releases
   * its timer. Reporting goes on working (a summary then waits for the next close).
   */
  close(): void {
    this.#summarize();
  }

  /** With `groupBy`: whether one more line fits in the minute under way (counting it). */
  #admit(now: number): boolean {
    if (this.#maxLines === undefined) return true;
    if (this.#window === undefined || now - this.#window.start >= REPORT_INTERVAL_MS) {
      this.#summarize();
      this.#window = { start: now, lines: 0 };
    }
    if (this.#window.lines >= this.#maxLines) return false;
    this.#window.lines++;
    return true;
  }

  /** A line that did not fit: counted for the summary at the end of the minute. */
  #overflowed(kind: ErrorKind | "healthy", cluster: string, fresh: boolean, now: number): void {
    let overflow = this.#overflow;
    if (overflow === undefined) {
      const open: Overflow = { since: now, errors: 0, kinds: new Map(), timer: undefined };
      const end = (this.#window?.start ?? now) + REPORT_INTERVAL_MS;
      open.timer = this.#clock.setTimeout(() => {
        open.timer = undefined;
        if (this.#overflow === open) this.#summarize();
      }, Math.max(0, end - now));
      this.#overflow = overflow = open;
    }
    if (kind !== "healthy") overflow.errors++;
    let clusters = overflow.kinds.get(kind);
    if (clusters === undefined) overflow.kinds.set(kind, clusters = new Map());
    // A cluster not printed yet is named before one printed before.
    clusters.set(cluster, (clusters.get(cluster) ?? false) || fresh);
  }

  /** Prints the summary of the lines that did not fit, if any, and releases its timer. */
  #summarize(): void {
    const overflow = this.#overflow;
    if (overflow === undefined) return;
    this.#overflow = undefined;
    if (overflow.timer !== undefined) this.#clock.clearTimeout(overflow.timer);
    const parts: string[] = [];
    let warning = true;
    for (const [kind, clusters] of overflow.kinds) {
      if (kind !== "healthy") warning &&= WARNINGS.has(kind);
      const names = [...clusters].sort(([, a], [, b]) => Number(b) - Number(a))
        .map(([name]) => name === "" ? "none" : name);
      const shown = names.slice(0, NAMED_CLUSTERS).join(", ");
      const rest = names.length > NAMED_CLUSTERS
        ? ` and ${names.length - NAMED_CLUSTERS} more`
        : "";
      const what = kind === "healthy" ? "healthy again" : LABELS[kind];
      parts.push(`${what} in ${count(names.length, "cluster")} (${shown}${rest})`);
    }
    const elapsed = formatDuration(this.#clock.now() - overflow.since);
    const errors = overflow.errors === 0 ? "" : ` ${count(overflow.errors, "error")}`;
    const line = `${this.#source}:${errors} not printed in the last ${elapsed} ` +
      `(at most ${this.#maxLines} lines a minute): ${parts.join(", ")}`;
    if (warning) this.#console.warn(line);
    else this.#console.error(line);
  }
}

/** Per kind: when its last line was printed, and how many errors were not printed since. */
interface Group {
  errors: number;
  kinds: Map<ErrorKind, { at: number; suppressed: number }>;
}

/** What did not fit in a minute's lines: per kind, the clusters (true: never printed). */
interface Overflow {
  since: number;
  errors: number;
  kinds: Map<ErrorKind | "healthy", Map<string, boolean>>;
  timer: TimerHandle | undefined;
}

/** `1 error`, `3 errors`. */
function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? "" : "s"}`;
}

/** The kind of an error of no kind of its own, by where it was caught. */
const FOREIGN: Partial<Record<ErrorPhase, ErrorKind>> = {
  handler: "handler",
  callback: "handler",
  reconcile: "other",
};

/**
 * One line for `error` in `context`: `pods informer: list forbidden (403): <message>; retrying
 * with backoff (next in 1.6 s)`. The message of an API error is the server's own (its Status
 * message) when it has one.
 */
export function describeError(error: unknown, context: ErrorContext): string {
  const what = context.kind === "handler"
    ? `${context.phase} threw`
    : `${context.phase} ${LABELS[context.kind]}`;
  const code = (error as { code?: unknown } | undefined)?.code;
  const withCode = typeof code === "number" && !what.includes(`(${code})`)
    ? `${what} (${code})`
    : what;
  const where = [
    context.controller === undefined ? undefined : `controller ${context.controller}`,
    context.key,
    context.detail,
    context.cluster === undefined ? undefined : `cluster ${context.cluster}`,
  ].filter((part) => part !== undefined && !context.source.endsWith(part));
  const serverMessage = (error as { status?: { message?: unknown } } | undefined)?.status?.message;
  const message = typeof serverMessage === "string" && serverMessage !== ""
    ? serverMessage
    : messageOf(error);
  const cut = message.length > MESSAGE_CHARS
    ? `${truncate(message, MESSAGE_CHARS)}... (${message.length} characters)`
    : message;
  const retry = context.retryInMs === undefined || context.retryInMs <= 0
    ? ""
    : ` (next in ${formatDuration(context.retryInMs)})`;
  return `${context.source}${
    where.length > 0 ? ` (${where.join(", ")})` : ""
  }: ${withCode}: ${cut}; ${context.action}${retry}`;
}
