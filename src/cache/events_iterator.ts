/**
 * The async iterator behind `informer.events()`: a listener's buffer read one event at a time,
 * optionally ending once the cache has caught up with the server (`until: "current"`).
 * @module
 */
import type { KubeObjectLike } from "../client/types.ts";
import type { KubeClient } from "../client/kube_client.ts";
import { compareResourceVersions } from "../util/resource_version.ts";
import type { InformerSelection } from "./checkpoint.ts";
import type { InformerEvent } from "./informer_event.ts";
import type { Listener } from "./listener.ts";

/** What a catch-up iteration needs to know about its informer. Internal. */
export interface CatchUpSource {
  /** The server's current resource version (a consistent `limit=1` list). */
  currentResourceVersion(signal: AbortSignal | undefined): Promise<string>;
  /** The resource version the cache is at. */
  resourceVersion(): string | undefined;
  /** Whether the cache holds a complete list. */
  synced(): boolean;
  /** Resolves when the resource version next moves (or the informer stops). */
  resourceVersionMoved(): Promise<void>;
}

/**
 * An iterator over `listener`'s events. `finish` removes the listener (on `return()`, the end
 * of a catch-up run, or an abort of `signal`); `catchUp` makes it a catch-up run. Internal.
 */
export function eventsIterator<T extends KubeObjectLike>(
  listener: Listener<T>,
  finish: () => void,
  signal: AbortSignal | undefined,
  catchUp: CatchUpSource | undefined,
): AsyncIterableIterator<InformerEvent<T>> & AsyncDisposable {
  // Catch-up run: the resource version to reach, learned once at the start.
  let goal: string | undefined;
  let goalError: { error: unknown } | undefined;
  let goalSettled: Promise<void> | undefined;
  if (catchUp !== undefined && !listener.closed) {
    goalSettled = catchUp.currentResourceVersion(signal).then(
      (rv) => void (goal = rv),
      (error) => void (goalError = { error }),
    );
  }
  const startRV = catchUp?.resourceVersion();
  let eventWait: Promise<void> | undefined;
  let rvWait: Promise<void> | undefined;
  const reached = (): boolean => {
    if (catchUp === undefined || goal === undefined) return false;
    const rv = catchUp.resourceVersion();
    if (!catchUp.synced() || rv === undefined) return false;
    const cmp = compareResourceVersions(rv, goal);
    return cmp === undefined ? rv !== startRV : cmp >= 0;
  };
  const done: IteratorReturnResult<undefined> = { done: true, value: undefined };
  return {
    next: async (): Promise<IteratorResult<InformerEvent<T>>> => {
      for (;;) {
        const value = listener.shift();
        if (value !== undefined) return { done: false, value };
        if (listener.closed || reached()) {
          finish();
          return done;
        }
        if (goalError !== undefined) {
          finish();
          throw goalError.error;
        }
        if (catchUp === undefined) await listener.wait();
        else {
          // Reuse pending waits across turns, so nothing piles up between events.
          eventWait ??= listener.wait().then(() => void (eventWait = undefined));
          rvWait ??= catchUp.resourceVersionMoved().then(() => void (rvWait = undefined));
          const waits = [eventWait, rvWait];
          if (goal === undefined && goalSettled !== undefined) waits.push(goalSettled);
          await Promise.race(waits);
        }
      }
    },
    return: (): Promise<IteratorResult<InformerEvent<T>>> => {
      finish();
      return Promise.resolve(done);
    },
    // `await using`: the same as `return()`.
    [Symbol.asyncDispose]: (): Promise<void> => {
      finish();
      return Promise.resolve();
    },
    // No closure here captures the iterator itself: the abort listener and the listener's
    // wake-ups would then keep a dropped iterator alive, and it could never be collected.
    [Symbol.asyncIterator](): AsyncIterableIterator<InformerEvent<T>> {
      return this;
    },
  };
}

/** The server's current resource version for `selection`, from a consistent `limit=1` list. */
export async function currentResourceVersion(
  client: KubeClient,
  selection: InformerSelection,
  signal: AbortSignal | undefined,
): Promise<string> {
  const page = await client.list(selection.resource, {
    namespace: selection.namespace,
    labelSelector: selection.labelSelector,
    fieldSelector: selection.fieldSelector,
    limit: 1,
    signal,
  });
  const rv = page.metadata.resourceVersion;
  if (rv === undefined) throw new Error("list response had no metadata.resourceVersion");
  return rv;
}
