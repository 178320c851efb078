/**
 * Event lag: from the server's write of an object to a consumer taking the event.
 * @module
 */
import type { KubeObjectLike } from "../client/types.ts";
import type { InformerEvent } from "./informer_event.ts";

/** The lag figures in `health().eventLag`, in ms. */
export interface EventLagHealth {
  /** Events measured (those whose object carries a `managedFields` time). */
  events: number;
  /** Lag of the last one measured. */
  lastMs: number;
  /** Largest lag measured. */
  maxMs: number;
  /** Sum of the lags measured (with `events`, the mean; a Prometheus summary). */
  sumMs: number;
}

/**
 * The server's time of the last write to `object`: the newest `metadata.managedFields[].time`
 * (the API server stamps the entry of the manager that wrote, to the second), in ms since the
 * epoch; undefined without managedFields (a transform stripped them) or times.
 *
 * @example
 * ```ts
 * import { serverWriteTime } from "@kinformer/kinformer/cache";
 * import assert from "node:assert/strict";
 * const pod = { metadata: { name: "a", managedFields: [
 *   { manager: "kubectl", time: "2026-01-01T00:00:00Z" },
 *   { manager: "kubelet", time: "2026-01-01T00:00:05Z" },
 * ] } };
 * assert.equal(serverWriteTime(pod), Date.UTC(2026, 0, 1, 0, 0, 5));
 * ```
 */
export function serverWriteTime(object: KubeObjectLike): number | undefined {
  const fields = (object?.metadata as { managedFields?: unknown } | undefined)?.managedFields;
  if (!Array.isArray(fields)) return undefined;
  let newest: number | undefined;
  for (const entry of fields) {
    const time = (entry as { time?: unknown } | null)?.time;
    if (typeof time !== "string") continue;
    const ms = Date.parse(time);
    if (!Number.isNaN(ms) && (newest === undefined || ms > newest)) newest = ms;
  }
  return newest;
}

/**
 * Measures each live event as a consumer takes it (a handler is called, `events()` yields):
 * the clock's time then, minus {@linkcode serverWriteTime} of its object. So it counts the
 * API server's and the network's delay, the informer's and the listener's queueing: the age of
 * what a controller acts on. To the second (managedFields times have no fraction), and client
 * and server clocks must agree (a negative lag counts as 0). Measured: live adds and updates
 * (not the initial list's adds, resyncs, deletes, whose object shows its last write rather
 * than the deletion, nor objects without managedFields). Internal.
 */
export class EventLag {
  readonly #now: () => number;
  #events = 0;
  #last = 0;
  #max = 0;
  #sum = 0;

  /** Lags measured against `now` (the informer's clock, ms since the epoch). */
  constructor(now: () => number) {
    this.#now = now;
  }

  /** A consumer took `event`. */
  taken<T extends KubeObjectLike>(event: InformerEvent<T>): void {
    switch (event.type) {
      case "synced":
      case "delete": // a deletion does not stamp managedFields: its object's time is older
        return;
      case "add":
        if (event.isInInitialList) return;
        break;
      case "update":
        if (event.object === event.oldObject) return; // a resync
        break;
    }
    const written = serverWriteTime(event.object);
    if (written === undefined) return;
    const lag = Math.max(0, this.#now() - written);
    this.#events++;
    this.#last = lag;
    this.#sum += lag;
    if (lag > this.#max) this.#max = lag;
  }

  /** The figures so far, or undefined before the first measured event. */
  health(): EventLagHealth | undefined {
    if (this.#events === 0) return undefined;
    return { events: this.#events, lastMs: this.#last, maxMs: this.#max, sumMs: this.#sum };
  }
}
