/**
 * Fault injection for {@linkcode SimulatedCluster}: dropped and stalled connections, chunked
 * and delayed bodies, failing requests, compaction, streaming-list misbehaviour, and watch events
 * that are lost or carry the wrong object (faults that really make a cache drift).
 * @module
 */
import type { AnyResourceDescriptor } from "@kinformer/kinformer/client";
import { resourceId } from "../../model/registry/served_resources.ts";
import { checkNumber } from "@kinformer/kinformer/internal";
import { Waiters } from "@kinformer/kinformer/internal";
import { describeValue } from "@kinformer/kinformer/internal";

/** The verb of a request, as recorded in {@linkcode RecordedRequest}. */
export type RequestVerb =
  | "list"
  | "watch"
  | "get"
  | "create"
  | "update"
  | "patch"
  | "delete"
  | "discovery";

/** Options of {@linkcode ClusterFaults.failNext}. */
export interface FailNextOptions {
  /**
   * Answer given: `500` (Status `InternalError`), `503` (Status `ServiceUnavailable` with
   * `Retry-After`) or `429` (plain text with `Retry-After`, like the API server's rate limiter).
   * @default 500
   */
  status?: 500 | 503 | 429;
  /**
   * Only requests with this verb fail (and count); others pass untouched.
   * @default undefined (every request, discovery included)
   */
  verb?: RequestVerb;
  /**
   * `Retry-After` seconds of 429 and 503 answers (a non-negative integer).
   * @default 1
   */
  retryAfterSeconds?: number;
  /**
   * The raw `Retry-After` header value to send instead, for hostile-server tests
   * (`"abc"`, `"-5"`, `"99999999999"`, an HTTP date).
   * @default undefined (`retryAfterSeconds` as a string)
   */
  retryAfter?: string;
}

/** Options of {@linkcode ClusterFaults.corruptWatches}. */
export interface CorruptWatchesOptions {
  /**
   * How many of the next watches opened get the bad line.
   * @default 1
   */
  times?: number;
  /**
   * Length in bytes of the `"long-line"` garbage (no newline until its end).
   * @default 1048576 (1 MiB)
   */
  longLineBytes?: number;
}

/**
 * A line a watch should never carry: `"malformed"` (not JSON), `"unknown-type"` (an event type
 * that does not exist), `"numeric-rv"` (an object whose `metadata.resourceVersion` is a number),
 * `"long-line"` (a huge line, for a client's line limit).
 */
export type WatchCorruption = "malformed" | "unknown-type" | "numeric-rv" | "long-line";

/** What a new watch is armed with (used by the cluster). */
export interface WatchFaults {
  /** End the watch after this many events (synthetic ADDEDs and bookmarks count). */
  endAfter?: { events: number; clean: boolean };
  /** Send this line first. */
  corruptLine?: string;
}

/** Random chunking of bodies, as armed (internal: what a response body reads). */
export interface Chunking {
  /** Largest chunk in bytes (chunks are 1..max bytes, seeded). */
  readonly maxChunkBytes: number;
  /** Delay before each chunk, on the cluster clock. */
  readonly delayMs: number;
}

/** Options of {@linkcode ClusterFaults.chunkBodies}. */
export interface ChunkBodiesOptions {
  /**
   * Largest chunk in bytes; each chunk is 1..maxChunkBytes bytes (seeded), so chunks split
   * JSON documents and multi-byte UTF-8 characters anywhere.
   * @default 7
   */
  maxChunkBytes?: number;
  /**
   * Delay before each chunk, on the cluster's clock (`0` = none).
   * @default 0
   */
  delayMs?: number;
}

/** Options of {@linkcode ClusterFaults.dropWatchAfter}. */
export interface DropWatchAfterOptions {
  /**
   * How many of the next watches opened get the fault.
   * @default 1
   */
  times?: number;
  /**
   * Only watches of this resource get it.
   * @default undefined (any resource)
   */
  resource?: AnyResourceDescriptor;
}

/** Options of {@linkcode ClusterFaults.loseNextWatchEvent}. */
export interface WatchEventFaultOptions {
  /**
   * Only events of this resource.
   * @default undefined (any resource)
   */
  resource?: AnyResourceDescriptor;
  /**
   * How many events get the fault (each on whichever open watch sends a matching event first).
   * @default 1
   */
  times?: number;
}

/**
 * How {@linkcode ClusterFaults.corruptNextWatchEvent} spoils an event: `"wrong-uid"` delivers the
 * object with a `metadata.uid` no object has; `"old-version"` delivers a MODIFIED event whose
 * object is the version before that change (its older `resourceVersion` too), as a watch cache
 * serving a stale copy would.
 */
export type WatchEventCorruption = "wrong-uid" | "old-version";

/** Options of {@linkcode ClusterFaults.corruptNextWatchEvent}. */
export interface CorruptWatchEventOptions extends WatchEventFaultOptions {
  /**
   * What is wrong with the object delivered.
   * @default "wrong-uid"
   */
  corruption?: WatchEventCorruption;
}

/** What happens to one watch event about to be sent (used by the cluster). */
export type WatchEventFault = "lose" | WatchEventCorruption;

/** A pending "fail the next requests" fault. */
export interface PendingFailure {
  /** Status to answer. */
  readonly status: 500 | 503 | 429;
  /** Retry-After seconds. */
  readonly retryAfterSeconds: number;
  /** The `Retry-After` header value sent. */
  readonly retryAfterHeader: string;
}

/** What faults act on: the cluster passes itself (internal; not for user code). */
export interface FaultTarget {
  /** Drops every open watch; returns how many. */
  dropOpenWatches(): number;
  /** Wakes every open body after a stall ends. */
  resumeBodies(): void;
  /** Compacts history at the current resourceVersion. */
  compactHistory(): void;
}

function checkCount(option: string, value: unknown): number {
  checkNumber(value, option, { min: 0, integer: true });
  return value as number;
}

function chunkingOf(
  options: ChunkBodiesOptions | undefined,
  defaultBytes: number,
  defaultDelayMs: number,
): Chunking {
  const maxChunkBytes = options?.maxChunkBytes ?? defaultBytes;
  const delayMs = options?.delayMs ?? defaultDelayMs;
  checkNumber(maxChunkBytes, "options.maxChunkBytes", { min: 1, integer: true });
  checkNumber(delayMs, "options.delayMs", { min: 0 });
  return { maxChunkBytes, delayMs };
}

/**
 * The fault switches of one {@linkcode SimulatedCluster} (`cluster.faults`). Every fault is
 * deterministic: random chunk sizes come from the cluster's seed, delays run on its clock.
 *
 * @example
 * ```ts
 * import { SimulatedCluster } from "@kinformer/simulator";
 * import assert from "node:assert/strict";
 * const cluster = new SimulatedCluster();
 * cluster.faults.failNext(2, { status: 429, verb: "list", retryAfterSeconds: 3 });
 * const res = await cluster.fetch(new Request("http://sim/api/v1/pods"));
 * assert.equal(res.status, 429);
 * assert.equal(res.headers.get("retry-after"), "3");
 * assert.match(await res.text(), /Too many requests/);
 * cluster.faults.chunkBodies({ maxChunkBytes: 3 }); // lists and watches now arrive 1-3 bytes at a time
 * cluster.faults.reset(); // drops the second queued failure and the chunking
 * const ok = await cluster.fetch(new Request("http://sim/api/v1/pods"));
 * assert.equal(ok.status, 200);
 * assert.deepEqual((await ok.json()).items, []);
 * cluster.close();
 * ```
 */
export class ClusterFaults {
  readonly #target: FaultTarget;
  #stalled = false;
  #stallWaiters = new Waiters();
  #chunking: Chunking | undefined;
  #failures: Array<{ verb: RequestVerb | undefined; failure: PendingFailure }> = [];
  #drops: Array<{ events: number; resource: string | undefined }> = [];
  #omitInitialEventsEnd = false;
  #closeAfterEnd: Array<string | undefined> = [];
  #watchListDisabled = false;
  #closeAfter: number | undefined;
  #listChunking: Chunking | undefined;
  #corruptions: string[] = [];
  #eventFaults: Array<{ fault: WatchEventFault; resource: string | undefined }> = [];

  /** Made by the cluster; use `cluster.faults`. */
  constructor(target: FaultTarget) {
    this.#target = target;
  }

  /** Whether delivery is stalled. */
  get stalled(): boolean {
    return this.#stalled;
  }

  /** Current chunking of bodies (`maxChunkBytes`, `delayMs`), if any. */
  get chunking(): Readonly<Required<ChunkBodiesOptions>> | undefined {
    return this.#chunking;
  }

  /** Current drip-feeding of LIST bodies, if any. */
  get listChunking(): Readonly<Required<ChunkBodiesOptions>> | undefined {
    return this.#listChunking;
  }

  /** Whether the initial-events-end bookmark is suppressed. */
  get omittingInitialEventsEnd(): boolean {
    return this.#omitInitialEventsEnd;
  }

  /** Whether streaming lists are refused by this fault. */
  get watchListDisabled(): boolean {
    return this.#watchListDisabled;
  }

  /**
   * Stalls the connection: open lists and watches keep their connection but send nothing, and
   * new requests get no answer, until {@linkcode ClusterFaults.resume} (or `close()`, or the
   * request's signal aborting).
   */
  stall(): void {
    this.#stalled = true;
  }

  /** Ends a stall: queued bytes flow again and waiting requests are answered. */
  resume(): void {
    if (!this.#stalled) return;
    this.#stalled = false;
    this.#stallWaiters.wake();
    this.#target.resumeBodies();
  }

  /** Resolves when not stalled (at once if not stalled now); rejects when `signal` aborts. */
  whenResumed(signal?: AbortSignal): Promise<void> {
    return this.#stallWaiters.wait(() => this.#stalled ? "pending" : "done", {
      failure: () => undefined,
      signal,
    });
  }

  /**
   * Drops every open watch abruptly: each body errors (a network error on the client) after
   * the bytes already queued. Returns the number dropped.
   */
  dropWatches(): number {
    return this.#target.dropOpenWatches();
  }

  /**
   * Arms the next watch requests opened (not those already open) to be dropped abruptly once
   * they have sent `events` events (synthetic ADDEDs and bookmarks count).
   */
  dropWatchAfter(events: number, options?: DropWatchAfterOptions): void {
    checkCount("events", events);
    const times = checkCount("options.times", options?.times ?? 1);
    const resource = options?.resource ? resourceId(options.resource) : undefined;
    for (let i = 0; i < times; i++) this.#drops.push({ events, resource });
  }

  /**
   * Makes every watch opened from now on end cleanly after `events` events (synthetic ADDEDs
   * and bookmarks count), as a misbehaving proxy would; `undefined` stops it.
   */
  closeWatchesAfter(events: number | undefined): void {
    this.#closeAfter = events === undefined ? undefined : checkCount("events", events);
  }

  /**
   * Arms the next watches opened to start with a line that cannot be decoded (see
   * {@linkcode WatchCorruption}), before any event.
   */
  corruptWatches(kind: WatchCorruption, options?: CorruptWatchesOptions): void {
    const times = checkCount("options.times", options?.times ?? 1);
    const longLineBytes = checkCount("options.longLineBytes", options?.longLineBytes ?? 1 << 20);
    let line: string;
    switch (kind) {
      case "malformed":
        line = '{"type":"MODIFIED","object":{"metadata":{"name":\n';
        break;
      case "unknown-type":
        line = '{"type":"RESIZED","object":{"metadata":{"name":"x","resourceVersion":"1"}}}\n';
        break;
      case "numeric-rv":
        line = '{"type":"ADDED","object":{"metadata":{"name":"x","resourceVersion":7}}}\n';
        break;
      case "long-line":
        line = `{"type":"ADDED","object":{"metadata":{"name":"${"x".repeat(longLineBytes)}"}}}\n`;
        break;
      default:
        throw new TypeError(`unknown watch corruption ${describeValue(kind)}`);
    }
    for (let i = 0; i < times; i++) this.#corruptions.push(line);
  }

  /** Consumes what a new watch of resource `id` is armed with (used by the cluster). */
  takeWatchFaults(id: string): WatchFaults {
    const faults: WatchFaults = {};
    const i = this.#drops.findIndex((d) => d.resource === undefined || d.resource === id);
    if (i >= 0) faults.endAfter = { events: this.#drops.splice(i, 1)[0]!.events, clean: false };
    else if (this.#closeAfter !== undefined) {
      faults.endAfter = { events: this.#closeAfter, clean: true };
    }
    const corrupt = this.#corruptions.shift();
    if (corrupt !== undefined) faults.corruptLine = corrupt;
    return faults;
  }

  /**
   * Loses the next watch event (ADDED, MODIFIED or DELETED; not a bookmark) that an open watch
   * would send: that one watch skips it and goes on, so later events and bookmarks move the
   * client's resource version past it and resuming never brings it back. Other watches still
   * get it. The client's cache is then wrong until it relists: an object missing (a lost
   * ADDED), one that should be gone (a lost DELETED), or an old version (a lost MODIFIED).
   */
  loseNextWatchEvent(options?: WatchEventFaultOptions): void {
    this.#armEventFault("lose", options);
  }

  /**
   * Makes the next watch event that an open watch would send carry the wrong object (see
   * {@linkcode WatchEventCorruption}; `"old-version"` waits for a MODIFIED event). The event is
   * well formed: nothing but a comparison with the server can tell.
   */
  corruptNextWatchEvent(options?: CorruptWatchEventOptions): void {
    const corruption = options?.corruption ?? "wrong-uid";
    if (corruption !== "wrong-uid" && corruption !== "old-version") {
      throw new TypeError(
        `options.corruption must be "wrong-uid" or "old-version", got ${describeValue(corruption)}`,
      );
    }
    this.#armEventFault(corruption, options);
  }

  #armEventFault(fault: WatchEventFault, options: WatchEventFaultOptions | undefined): void {
    const times = checkCount("options.times", options?.times ?? 1);
    const resource = options?.resource ? resourceId(options.resource) : undefined;
    for (let i = 0; i < times; i++) this.#eventFaults.push({ fault, resource });
  }

  /**
   * Consumes the fault armed for an event of type `type` about to be sent on a watch of
   * resource `id`, if any (used by the cluster).
   */
  takeEventFault(id: string, type: "ADDED" | "MODIFIED" | "DELETED"): WatchEventFault | undefined {
    if (this.#eventFaults.length === 0) return undefined; // every event of every watch asks
    const i = this.#eventFaults.findIndex((f) =>
      (f.resource === undefined || f.resource === id) &&
      (f.fault !== "old-version" || type === "MODIFIED")
    );
    return i < 0 ? undefined : this.#eventFaults.splice(i, 1)[0]!.fault;
  }

  /** Delivers list and watch bodies in random-sized chunks, optionally delayed. */
  chunkBodies(options?: ChunkBodiesOptions): void {
    this.#chunking = chunkingOf(options, 7, 0);
  }

  /**
   * Drip-feeds LIST bodies only: `maxChunkBytes` bytes (default 64) every `delayMs` (default
   * 1000) on the cluster clock, so a list takes a long time while it keeps delivering (a large
   * list over a slow link). Watches are not affected. {@linkcode ClusterFaults.wholeBodies}
   * or `reset()` ends it.
   */
  dripListBodies(options?: ChunkBodiesOptions): void {
    this.#listChunking = chunkingOf(options, 64, 1000);
  }

  /** Stops chunking and drip-feeding: bodies go out in large batches again. */
  wholeBodies(): void {
    this.#chunking = undefined;
    this.#listChunking = undefined;
  }

  /** Fails the next `count` requests (of `options.verb`, if set). */
  failNext(count: number, options?: FailNextOptions): void {
    checkCount("count", count);
    const statusCode = options?.status ?? 500;
    if (statusCode !== 500 && statusCode !== 503 && statusCode !== 429) {
      throw new RangeError(`options.status must be 500, 503 or 429, got ${String(statusCode)}`);
    }
    const retryAfterSeconds = checkCount(
      "options.retryAfterSeconds",
      options?.retryAfterSeconds ?? 1,
    );
    const raw = options?.retryAfter;
    if (raw !== undefined && (typeof raw !== "string" || /[\r\n\0]/.test(raw))) {
      throw new TypeError("options.retryAfter must be a header value (a string without CR/LF)");
    }
    const retryAfterHeader = raw ?? String(retryAfterSeconds);
    for (let i = 0; i < count; i++) {
      this.#failures.push({
        verb: options?.verb,
        failure: { status: statusCode, retryAfterSeconds, retryAfterHeader },
      });
    }
  }

  /** Consumes a pending failure for a request with `verb` (used by the cluster). */
  takeFailure(verb: RequestVerb): PendingFailure | undefined {
    const i = this.#failures.findIndex((f) => f.verb === undefined || f.verb === verb);
    if (i < 0) return undefined;
    return this.#failures.splice(i, 1)[0]!.failure;
  }

  /**
   * Compacts history now: watching from an older resourceVersion gets a 410 ERROR event,
   * continue tokens and exact lists at older resourceVersions get 410 Expired.
   */
  compact(): void {
    this.#target.compactHistory();
  }

  /** Never sends the initial-events-end bookmark of streaming lists (`false` restores it). */
  omitInitialEventsEnd(omit = true): void {
    this.#omitInitialEventsEnd = omit;
  }

  /**
   * Arms the next `times` streaming lists (of `resource`, if set) to end cleanly right after
   * their initial-events-end bookmark, as kube-apiserver does on large clusters (60-100k
   * objects) when a watcher falls behind: a client must re-watch from the bookmark's resource
   * version, not relist.
   */
  closeAfterInitialEventsEnd(options?: DropWatchAfterOptions): void {
    const times = checkCount("options.times", options?.times ?? 1);
    const resource = options?.resource ? resourceId(options.resource) : undefined;
    for (let i = 0; i < times; i++) this.#closeAfterEnd.push(resource);
  }

  /**
   * Consumes an armed {@linkcode ClusterFaults.closeAfterInitialEventsEnd} for a streaming list
   * of resource `id` (used by the cluster).
   */
  takeCloseAfterInitialEventsEnd(id: string): boolean {
    const i = this.#closeAfterEnd.findIndex((r) => r === undefined || r === id);
    if (i < 0) return false;
    this.#closeAfterEnd.splice(i, 1);
    return true;
  }

  /** Refuses streaming lists with 422, as a server with WatchList off (`false` restores). */
  disableWatchList(disabled = true): void {
    this.#watchListDisabled = disabled;
  }

  /** Clears every fault (and resumes a stall). */
  reset(): void {
    this.resume();
    this.#chunking = undefined;
    this.#listChunking = undefined;
    this.#closeAfter = undefined;
    this.#corruptions = [];
    this.#failures = [];
    this.#drops = [];
    this.#eventFaults = [];
    this.#omitInitialEventsEnd = false;
    this.#closeAfterEnd = [];
    this.#watchListDisabled = false;
  }
}
