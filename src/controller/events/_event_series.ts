/**
 * The bookkeeping of an event recorder, as client-go's events library keeps it: which recorded
 * events are the same event (isomorphic: same type, action, reason, reporting controller and
 * instance, regarding and related object), which become a series, when a series is finished,
 * and the per-object token buckets that bound how many distinct writes an object gets.
 * Internal.
 * @module
 */

/** A reference to an object, as Events carry it (`regarding`, `related`). */
export interface ObjectReference {
  /** API version of the object (`v1`, `apps/v1`). */
  apiVersion: string;
  /** Kind of the object. */
  kind: string;
  /** Namespace; absent for cluster-scoped objects. */
  namespace?: string | undefined;
  /** Name of the object. */
  name: string;
  /** UID of the object. */
  uid?: string | undefined;
  /** resourceVersion of the object the event is about. */
  resourceVersion?: string | undefined;
  /** A part of the object (`spec.containers{web}`). */
  fieldPath?: string | undefined;
}

/** One event as the recorder keeps it (times in ms on the recorder's clock). */
export interface EventEntry {
  /** The series key ({@linkcode seriesKey}). */
  readonly key: string;
  /** `metadata.name` of the Event object. */
  readonly name: string;
  /** `metadata.namespace` of the Event object. */
  readonly namespace: string;
  /** When it was first observed. */
  readonly eventTime: number;
  /** `Normal` or `Warning`. */
  readonly type: "Normal" | "Warning";
  /** Why (CamelCase). */
  readonly reason: string;
  /** What was done or failed (CamelCase). */
  readonly action: string;
  /**
   * Human-readable note of the first occurrence: the API server refuses to change an
   * `events.k8s.io/v1` Event's note, so a series keeps it (as client-go's does).
   */
  readonly note: string;
  /** The object the event is about. */
  readonly regarding: ObjectReference;
  /** A second object involved. */
  readonly related: ObjectReference | undefined;
  /** The controller that emitted it. */
  readonly reportingController: string;
  /** The instance of the controller that emitted it. */
  readonly reportingInstance: string;
  /** Occurrences so far and the last one's time; undefined while it happened once. */
  series: { count: number; lastObservedTime: number } | undefined;
  /** The series count last sent to the server (0: nothing sent yet). */
  writtenCount: number;
}

/** What makes two events the same event. */
export type EventIdentity = Pick<
  EventEntry,
  | "type"
  | "action"
  | "reason"
  | "reportingController"
  | "reportingInstance"
  | "regarding"
  | "related"
>;

/** Client-go's series timings. */
export const FINISH_TIME_MS = 6 * 60_000;
/** Client-go re-writes open series this often, so their Events do not expire. */
export const REFRESH_TIME_MS = 30 * 60_000;

function refKey(ref: ObjectReference | undefined): string {
  if (ref === undefined) return "";
  return [
    ref.apiVersion,
    ref.kind,
    ref.namespace ?? "",
    ref.name,
    ref.uid ?? "",
    ref.resourceVersion ?? "",
    ref.fieldPath ?? "",
  ].join("\u0000");
}

/**
 * client-go's `getKey`: type, action, reason, reporting controller and instance, regarding
 * and related (whole references). The note is not part of it: an event repeated with another
 * note is the same event, and the series keeps the first note.
 */
export function seriesKey(e: EventIdentity): string {
  return [
    e.type,
    e.action,
    e.reason,
    e.reportingController,
    e.reportingInstance,
    refKey(e.regarding),
    refKey(e.related),
  ].join("\u0001");
}

/** client-go's (tools/record) spam key: the source, the regarding object and the type. */
export function spamKey(e: EventIdentity): string {
  const r = e.regarding;
  return [
    e.reportingController,
    e.reportingInstance,
    r.kind,
    r.namespace ?? "",
    r.name,
    r.uid ?? "",
    r.apiVersion,
    e.type,
  ].join("\u0000");
}

/** What one observation leads to. */
export type Observation =
  | { readonly write: "create"; readonly entry: EventEntry }
  | { readonly write: "series"; readonly entry: EventEntry }
  | { readonly write: "none"; readonly entry: EventEntry };

/**
 * The isomorphic-event cache. The first occurrence of a key is created; the second turns it into
 * a series (`count: 2`) and is written as a patch; later ones only count, and are written when
 * the series finishes (no occurrence for {@linkcode FINISH_TIME_MS}) or is refreshed. At most
 * `max` keys are kept: the oldest is dropped first (its unwritten count is returned to write).
 */
export class EventCache {
  readonly #entries = new Map<string, EventEntry>();
  readonly #max: number;

  constructor(max: number) {
    this.#max = max;
  }

  /** Keys kept. */
  get size(): number {
    return this.#entries.size;
  }

  /** The entry of `key`, if kept. */
  get(key: string): EventEntry | undefined {
    return this.#entries.get(key);
  }

  /**
   * Records one occurrence at `now`. `fresh` builds the entry of a first occurrence; `evicted`
   * receives an entry dropped to make room.
   */
  observe(
    key: string,
    now: number,
    fresh: () => EventEntry,
    evicted: (entry: EventEntry) => void,
  ): Observation {
    const entry = this.#entries.get(key);
    if (entry === undefined) {
      const created = fresh();
      this.#entries.set(key, created);
      while (this.#entries.size > this.#max) {
        const [oldestKey, oldest] = this.#entries.entries().next().value as [string, EventEntry];
        this.#entries.delete(oldestKey);
        evicted(oldest);
      }
      return { write: "create", entry: created };
    }
    // Most recently observed last, so eviction drops the stalest.
    this.#entries.delete(key);
    this.#entries.set(key, entry);
    if (entry.series === undefined) {
      entry.series = { count: 2, lastObservedTime: now };
      return { write: "series", entry };
    }
    entry.series.count++;
    entry.series.lastObservedTime = now;
    return { write: "none", entry };
  }

  /**
   * Ends what is over at `now`: a series not observed for {@linkcode FINISH_TIME_MS} is removed
   * and returned (its final count is due), a single event older than that is removed.
   */
  finish(now: number): EventEntry[] {
    const due: EventEntry[] = [];
    for (const [key, entry] of this.#entries) {
      const last = entry.series?.lastObservedTime ?? entry.eventTime;
      if (now - last < FINISH_TIME_MS) continue;
      this.#entries.delete(key);
      if (entry.series !== undefined) due.push(entry);
    }
    return due;
  }

  /** Every open series (to write again, as client-go's refresh does). */
  series(): EventEntry[] {
    return [...this.#entries.values()].filter((e) => e.series !== undefined);
  }

  /** Removes everything; returns the series whose latest count was not written. */
  clear(): EventEntry[] {
    const unwritten = [...this.#entries.values()].filter((e) =>
      e.series !== undefined && e.series.count !== e.writtenCount
    );
    this.#entries.clear();
    return unwritten;
  }
}

/**
 * Token buckets per key (client-go's `EventSourceObjectSpamFilter`): `burst` tokens, one more
 * every `refillMs`; at most `maxKeys` buckets (the least recently used is dropped).
 */
export class SpamFilter {
  readonly #buckets = new Map<string, { tokens: number; at: number }>();
  readonly #burst: number;
  readonly #refillMs: number;
  readonly #maxKeys: number;

  constructor(burst: number, refillMs: number, maxKeys: number) {
    this.#burst = burst;
    this.#refillMs = refillMs;
    this.#maxKeys = maxKeys;
  }

  /** Takes a token for `key` at `now`; false when none is left. */
  tryAccept(key: string, now: number): boolean {
    let bucket = this.#buckets.get(key);
    if (bucket === undefined) {
      bucket = { tokens: this.#burst, at: now };
    } else {
      this.#buckets.delete(key);
      const refill = this.#refillMs > 0 ? Math.max(0, now - bucket.at) / this.#refillMs : Infinity;
      bucket.tokens = Math.min(this.#burst, bucket.tokens + refill);
      bucket.at = now;
    }
    this.#buckets.set(key, bucket);
    if (this.#buckets.size > this.#maxKeys) {
      this.#buckets.delete(this.#buckets.keys().next().value as string);
    }
    if (bucket.tokens < 1) return false;
    bucket.tokens--;
    return true;
  }
}
