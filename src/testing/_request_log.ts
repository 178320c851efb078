/**
 * The simulated cluster's record of the requests it received (`cluster.requests`) and the
 * optional per-request log line (`logRequests`).
 * @module
 */
import type { RequestVerb } from "./faults.ts";

/** One request as the simulated cluster saw it. */
export interface RecordedRequest {
  /** HTTP method. */
  method: string;
  /** URL path. */
  path: string;
  /** Query parameters (last value wins). */
  query: Record<string, string>;
  /** What was asked. */
  verb: RequestVerb;
  /** Plural resource name, for resource requests. */
  resource?: string;
  /** Namespace from the path. */
  namespace?: string;
  /** Object name from the path. */
  name?: string;
}

/** The `logRequests` option: `true` prints a line per request, a function receives each. */
export type RequestLogger = boolean | ((request: RecordedRequest) => void);

function queryText(query: Record<string, string>): string {
  const q = new URLSearchParams(query).toString();
  return q ? `?${q}` : "";
}

/** Recorded requests, oldest first, plus the optional logger. */
export class RequestLog {
  readonly #requests: RecordedRequest[] = [];
  readonly #log: ((request: RecordedRequest) => void) | undefined;

  /** Validates `logRequests` (`options.logRequests` in messages). */
  constructor(logRequests: RequestLogger | undefined) {
    if (
      logRequests !== undefined && typeof logRequests !== "boolean" &&
      typeof logRequests !== "function"
    ) {
      throw new TypeError("options.logRequests must be a boolean or a function");
    }
    this.#log = logRequests === true
      ? (r) => console.log(`[sim] ${r.method} ${r.path}${queryText(r.query)} (${r.verb})`)
      : logRequests === false
      ? undefined
      : logRequests;
  }

  /** Records one request and logs it. */
  record(request: RecordedRequest): void {
    this.#requests.push(request);
    this.#log?.(request);
  }

  /** The recorded requests, oldest first (a copy). */
  entries(): RecordedRequest[] {
    return [...this.#requests];
  }

  /** Forgets every recorded request. */
  clear(): void {
    this.#requests.length = 0;
  }
}
