/**
 * Fixture generators shared by the benchmarks and their tests (`tests/bench_fixtures_test.ts`).
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
export function buildWatchBurst(objects: readonly KubeObject[], options: WatchBurstOptions): WatchBurst {
  const { events, firstResourceVersion } = options;
  const chunkBytes = options.chunkBytes ?? BENCH_CHUNK_BYTES;
  if (objects.length === 0) throw new RangeError("objects must not be empty");
  if (!Number.isInteger(events) || events < 1) throw new RangeError(`events must be a positive integer, got ${events}`);
  if (!Number.isInteger(chunkBytes) || chunkBytes < 1) {
    throw new RangeError(`chunkBytes must be a positive integer, got ${chunkBytes}`);
  }
  const utf8 = new TextEncoder();
  const parts: Uint8Array[] = [];
  let bytes = 0;
  let text = "";
  const flush = (): void => {
    const encoded = utf8.encode(text);
    parts.push(encoded);
    bytes += encoded.length;
    text = "";
  };
  const seenBase = Date.UTC(2025, 5, 1);
  for (let i = 0; i < events; i++) {
    const object = objects[i % objects.length]!;
    const metadata = object.metadata;
    const rv = metadata.resourceVersion;
    const annotations = metadata.annotations ?? {};
    const seen = annotations["kubernetes.io/config.seen"];
    metadata.resourceVersion = String(firstResourceVersion + i);
    annotations["kubernetes.io/config.seen"] = new Date(seenBase + i * 1000).toISOString();
    metadata.annotations = annotations;
    text += `{"type":"MODIFIED","object":${JSON.stringify(object)}}\n`;
    metadata.resourceVersion = rv;
    if (seen === undefined) delete annotations["kubernetes.io/config.seen"];
    else annotations["kubernetes.io/config.seen"] = seen;
    if (text.length >= 1 << 20) flush();
  }
  if (text.length > 0) flush();
  return {
    chunks: rechunk(parts, bytes, chunkBytes),
    bytes,
    events,
    lastResourceVersion: String(firstResourceVersion + events - 1),
  };
}

/** Cuts `parts` (of `total` bytes) into chunks of exactly `size` bytes (the last one shorter). */
function rechunk(parts: readonly Uint8Array[], total: number, size: number): Uint8Array[] {
  const all = new Uint8Array(total);
  let at = 0;
  for (const p of parts) {
    all.set(p, at);
    at += p.length;
  }
  const out: Uint8Array[] = [];
  for (let i = 0; i < total; i += size) out.push(all.subarray(i, Math.min(total, i + size)));
  return out;
}

/**
 * The transform the benchmarks (and the README) use to save memory: drops
 * `metadata.managedFields`, which is about a third of a pod's JSON and never read by
 * controllers.
 */
export function stripManagedFields<T extends KubeObject>(object: T): T {
  delete object.metadata.managedFields;
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
 * Baseline: the minimal streaming loop over a body (what one would write by hand with
 * `fetch`): decode chunks with a streaming `TextDecoder`, cut complete lines, `JSON.parse`
 * each. Calls `onEvent` for every parsed line and resolves when the body ends or `onEvent`
 * returns false (the body is then cancelled).
 */
export async function bareStreamLines(
  body: ReadableStream<Uint8Array>,
  onEvent: (event: { type: string; object: KubeObject }) => boolean | void,
): Promise<void> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let rest = "";
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      const text = rest + decoder.decode(value, { stream: true });
      let start = 0;
      for (;;) {
        const nl = text.indexOf("\n", start);
        if (nl === -1) break;
        if (nl > start && onEvent(JSON.parse(text.slice(start, nl))) === false) return;
        start = nl + 1;
      }
      rest = start === 0 ? text : text.slice(start);
    }
    rest += decoder.decode();
    if (rest.trim() !== "") onEvent(JSON.parse(rest));
  } finally {
    await reader.cancel().catch(() => {});
  }
}
