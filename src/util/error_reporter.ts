/**
 * The one reporting path of kinformer: how every long-running object hands an error to its
 * `onError`, or prints it when none was given. Internal.
 * @module
 */
import { type Clock, systemClock } from "./clock.ts";
import type { ErrorContext, ErrorPhase, OnError } from "./error_context.ts";
import { type ErrorKind, errorKindOf } from "./error_kind.ts";
import { reportError } from "./report_error.ts";
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
 */
export class ErrorReporter {
  readonly #source: string;
  readonly #onError: OnError | undefined;
  readonly #clock: Clock;
  readonly #console: ReportConsole;
  readonly #onCallbackError: (thrown: unknown) => void;
  /** Per kind: when its last line was printed, and how many errors were not printed since. */
  readonly #printed = new Map<ErrorKind, { at: number; suppressed: number }>();
  /** Errors (not routine) since the object was last healthy. */
  #errors = 0;

  /** A reporter for one object (see {@linkcode ErrorReporterOptions}). */
  constructor(options: ErrorReporterOptions) {
    this.#source = options.source;
    this.#onError = options.onError;
    this.#clock = options.clock ?? systemClock;
    this.#console = options.console ?? globalThis.console;
    this.#onCallbackError = options.onCallbackError ?? reportError;
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
    if (!ROUTINE.has(context.kind) && OUTAGE.has(context.phase)) this.#errors++;
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
    const last = this.#printed.get(context.kind);
    if (last !== undefined && now - last.at < REPORT_INTERVAL_MS) {
      last.suppressed++;
      return context;
    }
    const more = last === undefined || last.suppressed === 0
      ? ""
      : ` [${last.suppressed} more since ${formatDuration(now - last.at)} ago]`;
    this.#printed.set(context.kind, { at: now, suppressed: 0 });
    const line = `${describeError(error, context)}${more}`;
    if (WARNINGS.has(context.kind)) this.#console.warn(line);
    else this.#console.error(line);
    return context;
  }

  /**
   * The object works again (an informer synced or watches again, a request succeeded): with
   * the default printing, one line if errors were reported since it was last healthy. The next
   * error of any kind prints at once again.
   */
  healthy(): void {
    const errors = this.#errors;
    if (errors === 0) return;
    this.#errors = 0;
    this.#printed.clear();
    if (this.#onError !== undefined) return;
    this.#console.warn(
      `${this.#source}: healthy again after ${errors} ${errors === 1 ? "error" : "errors"}`,
    );
  }
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
