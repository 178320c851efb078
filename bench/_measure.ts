/**
 * Helpers for the measuring side of scenarios (inside client processes).
 * @module
 */
import type { InformerEvent } from "../src/cache/mod.ts";
import type { KubeObject } from "../src/client/types.ts";

/** A monotonic time in ms. */
export const now = (): number => performance.now();

/** Reads events from `events` until `stop` says so; resolves with the time `stop` said so. */
export async function consume(
  events: AsyncIterableIterator<InformerEvent<KubeObject>>,
  stop: (ev: InformerEvent<KubeObject>) => boolean,
): Promise<number> {
  for await (const ev of events) if (stop(ev)) break;
  return now();
}
