/**
 * The simulated cluster's record of the requests it received (`cluster.requests`): a ring of
 * the last `requestLogLimit` requests, so a long-running test server does not grow without
 * bound; and the optional per-request log line (`logRequests`).
 * @module
 */
import { RingBuffer } from "@kinformer/kinformer/internal";
import type { RequestVerb } from "../handlers/faults/cluster_faults.ts";

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
  /** User a verified client certificate authenticated the request as (its CN), over HTTPS. */
  user?: string;
  /** `true` for a WebSocket handshake (`Upgrade: websocket`). */
  webSocket?: true;
}

/** The `logRequests` option: `true` prints a line per request, a function receives each. */
export type RequestLogger = boolean | ((request: RecordedRequest) => void);

function queryText(query: Record<string, string>): string {
  const q = new URLSearchParams(query).toString();
  return q ? `?${q}` : "";
}

/** The last recorded requests, oldest first, plus the optional logger. */
export class RequestLog {
  readonly #requests = new RingBuffer<RecordedRequest>();
  readonly #limit: number;
  readonly #log: ((request: RecordedRequest) => void) | undefined;

  /** Keeps the last `limit` requests (validated already); validates `logRequests`. */
  constructor(limit: number, logRequests: RequestLogger | undefined) {
    this.#limit = limit;
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
    if (this.#limit > 0) {
      if (this.#requests.length === this.#limit) this.#requests.shift();
      this.#requests.push(request);
    }
    this.#log?.(request);
  }

  /** The recorded requests, oldest first (a copy). */
  entries(): RecordedRequest[] {
    return [...this.#requests];
  }

  /** Forgets every recorded request. */
  clear(): void {
    this.#requests.clear();
  }
}
