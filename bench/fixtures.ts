/**
 * Fixture generators shared by the benchmarks and their tests
 * (`tests/bench/bench_fixtures_test.ts`).
 *
 * Pods come from the project's own {@linkcode podFixture} (2-4 KB of JSON with labels,
 * annotations, managedFields, status and some non-ASCII text); the simulated cluster seeds
 * them by default. This file adds what only the benchmarks need: a pre-built watch body of many
 * `MODIFIED` events over a set of pods (so the server is never the bottleneck of a decode
 * benchmark), the managedFields-stripping transform, and the bare baseline loops that the
 * informer is measured against.
 * @module
 */
import type { KubeObject } from "../src/client/types.ts";

export { podFixture } from "../src/testing/fixtures.ts";

/** Size of the body chunks the bench server writes (a typical socket read). */
export const BENCH_CHUNK_BYTES = 64 * 1024;

/** Options of {@linkcode buildWatchBurst}. */
export interface WatchBurstOptions {
  /** Number of `MODIFIED` events. */
  events: number;
  /** Resource version of the first event; each later event adds one. */
  firstResourceVersion: number;
  /** Size of the chunks the bytes are cut into (anywhere, mid-line and mid-UTF-8). @default 65536 */
  chunkBytes?: number;
}

/** A pre-built watch body. */
export interface WatchBurst {
  /** The body, cut into chunks of `chunkBytes` (the last one shorter). */
  chunks: Uint8Array[];
  /** Total bytes. */
  bytes: number;
  /** Number of events (lines). */
  events: number;
  /** Resource version of the last event. */
  lastResourceVersion: string;
}

/**
 * Builds the bytes of a watch body of `events` `MODIFIED` events cycling over `objects` (as
 * served: with uid, resourceVersion, kind...). Event `i` carries object `i % objects.length`
 * with resourceVersion `firstResourceVersion + i` and a new `kubernetes.io/config.seen`
 * annotation, so every event differs from the cached object. The objects are changed while
 * serializing and restored afterwards.
 *
 * @example
 * ```ts ignore
 * const burst = buildWatchBurst([podFixture(0)], { events: 3, firstResourceVersion: 10 });
 * console.log(burst.events, burst.lastResourceVersion); // 3 "12"
 * ```
 */
export function buildWatchBurst(
  objects: readonly KubeObject[],
  options: WatchBurstOptions,
): WatchBurst {
  const { events, firstResourceVersion } = options;
  const chunkBytes = options.chunkBytes ?? BENCH_CHUNK_BYTES;
  if (objects.length === 0) throw new RangeError("objects must not be empty");
  if (!Number.isInteger(events) || events < 1) {
    throw new RangeError(`events must be a positive integer, got ${events}`);
  }
  if (!Number.isInteger(chunkBytes) || chunkBytes < 1) {
    throw new RangeError(`chunkBytes must be a positive integer, got ${chunkBytes}`);
  }
  // Each object is serialized once, with markers where the resource version and the timestamp
  // go; events are then assembled from its encoded pieces (JSON.stringify per event would make
  // building 100k events take longer than decoding them).
  const utf8 = new TextEncoder();
  const used = Math.min(objects.length, events);
  const templates: Template[] = [];
  for (let k = 0; k < used; k++) templates.push(template(objects[k]!));
  const seenBase = Date.UTC(2025, 5, 1);
  // Sized from the UTF-16 length (plus slack for non-ASCII text), grown when a line overflows.
  let estimate = 0;
  for (let i = 0; i < events; i++) estimate += templates[i % used]!.chars + 40;
  let all = new Uint8Array(Math.ceil(estimate * 1.02) + 4096);
  let at = 0;
  for (let i = 0; i < events; i++) {
    const t = templates[i % used]!;
    const rv = String(firstResourceVersion + i);
    const seen = new Date(seenBase + i * 1000).toISOString();
    const line = t.rvFirst
      ? t.head + rv + t.mid + seen + t.tail
      : t.head + seen + t.mid + rv + t.tail;
    for (;;) {
      const r = utf8.encodeInto(line, all.subarray(at));
      if (r.read === line.length) {
        at += r.written;
        break;
      }
      const bigger = new Uint8Array(Math.ceil(all.length * 1.25) + line.length * 3);
      bigger.set(all.subarray(0, at));
      all = bigger;
    }
  }
  const bytes = at;
  const chunks: Uint8Array[] = [];
  for (let i = 0; i < bytes; i += chunkBytes) {
    chunks.push(all.subarray(i, Math.min(bytes, i + chunkBytes)));
  }
  return { chunks, bytes, events, lastResourceVersion: String(firstResourceVersion + events - 1) };
}

const RV_MARK = "\u0000rv\u0000";
const SEEN_MARK = "\u0000seen\u0000";
/** An event line cut where the resource version and the timestamp go. */
interface Template {
  head: string;
  mid: string;
  tail: string;
  /** Whether the resource version comes before the timestamp. */
  rvFirst: boolean;
  /** UTF-16 length of the three pieces. */
  chars: number;
}

/** The event line of `object`, cut where the resource version and timestamp go. */
function template(object: KubeObject): Template {
  const metadata = object.metadata;
  const rv = metadata.resourceVersion;
  const annotations = metadata.annotations ?? {};
  const seen = annotations["kubernetes.io/config.seen"];
  metadata.resourceVersion = RV_MARK;
  annotations["kubernetes.io/config.seen"] = SEEN_MARK;
  metadata.annotations = annotations;
  let line: string;
  try {
    line = `{"type":"MODIFIED","object":${JSON.stringify(object)}}\n`;
  } finally {
    if (rv === undefined) delete metadata.resourceVersion;
    else metadata.resourceVersion = rv;
    if (seen === undefined) delete annotations["kubernetes.io/config.seen"];
    else annotations["kubernetes.io/config.seen"] = seen;
  }
  const rvMark = JSON.stringify(RV_MARK).slice(1, -1);
  const seenMark = JSON.stringify(SEEN_MARK).slice(1, -1);
  const r = line.indexOf(rvMark);
  const s = line.indexOf(seenMark);
  const rvFirst = r < s;
  const [a, aLength, b, bLength] = rvFirst
    ? [r, rvMark.length, s, seenMark.length]
    : [s, seenMark.length, r, rvMark.length];
  const head = line.slice(0, a);
  const mid = line.slice(a + aLength, b);
  const tail = line.slice(b + bLength);
  return { head, mid, tail, rvFirst, chars: head.length + mid.length + tail.length };
}

/**
 * The transform the benchmarks (and the README) use to save memory: drops
 * `metadata.managedFields`, which is about a third of a pod's JSON and never read by
 * controllers.
 */
export function stripManagedFields<T extends { metadata?: { managedFields?: unknown } }>(
  object: T,
): T {
  if (object.metadata !== undefined) delete object.metadata.managedFields;
  return object;
}

/**
 * Baseline: the bare work of decoding a watch body already in memory: one `TextDecoder` call,
 * split on `\n`, `JSON.parse` each line. Returns the number of lines parsed.
 */
export function bareParseLines(bytes: Uint8Array): number {
  const text = new TextDecoder().decode(bytes);
  let count = 0;
  let start = 0;
  for (;;) {
    const nl = text.indexOf("\n", start);
    const end = nl === -1 ? text.length : nl;
    if (end > start) {
      const event = JSON.parse(text.slice(start, end)) as { type: string };
      if (event.type !== "BOOKMARK") count++;
    }
    if (nl === -1) return count;
    start = nl + 1;
  }
}

/**
 * The minimal watch loop's line cutter, on bytes: feed it each chunk as it arrives, and it
 * calls `onLine` with every complete line (a view, without its `\n`), joining only the pieces of
 * a line that spans chunks. What one writes by hand: `indexOf(10)` on the chunk, nothing
 * decoded that is not a whole line. Used by the fair baselines (`ByteLines` + `TextDecoder` on
 * `fetch`, + `Buffer#toString` on `node:http`), each decoding a line and `JSON.parse`-ing it.
 */
export class ByteLines {
  #rest: Uint8Array[] = [];
  #restLength = 0;

  /** Cuts `chunk` into lines; `onLine` gets each complete one (empty lines skipped). */
  push(chunk: Uint8Array, onLine: (line: Uint8Array) => void): void {
    let start = 0;
    let nl = chunk.indexOf(10);
    if (nl !== -1 && this.#restLength > 0) {
      const line = new Uint8Array(this.#restLength + nl);
      let at = 0;
      for (const part of this.#rest) {
        line.set(part, at);
        at += part.length;
      }
      line.set(chunk.subarray(0, nl), at);
      this.#rest = [];
      this.#restLength = 0;
      onLine(line);
      start = nl + 1;
      nl = chunk.indexOf(10, start);
    }
    while (nl !== -1) {
      if (nl > start) onLine(chunk.subarray(start, nl));
      start = nl + 1;
      nl = chunk.indexOf(10, start);
    }
    if (start < chunk.length) {
      this.#rest.push(chunk.subarray(start));
      this.#restLength += chunk.length - start;
    }
  }
}

/**
 * Baseline: the fair minimal watch loop over a `fetch` body, what a cache written by hand does
 * (and what the informer is measured against on Deno and Bun): cut lines on `\n` bytes
 * ({@linkcode ByteLines}), `TextDecoder` each line, `JSON.parse` it and keep the object in a
 * `Map` by namespace/name (`cache`: a fresh one, or one already holding a list, as a cache
 * holds when it watches). Resolves with the number of events once `events` were seen (the
 * body is then cancelled) or the body ends.
 */
export async function byteLineCache(
  body: ReadableStream<Uint8Array>,
  events: number,
  cache: Map<string, KubeObject> = new Map(),
): Promise<number> {
  const reader = body.getReader();
  const text = new TextDecoder();
  const lines = new ByteLines();
  let seen = 0;
  const onLine = (line: Uint8Array): void => {
    const event = JSON.parse(text.decode(line)) as { object: KubeObject };
    const meta = event.object.metadata;
    cache.set(`${meta.namespace}/${meta.name}`, event.object);
    seen++;
  };
  try {
    while (seen < events) {
      const { done, value } = await reader.read();
      if (done) break;
      lines.push(value, onLine);
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
  if (cache.size === 0) throw new Error("nothing cached");
  return seen;
}
