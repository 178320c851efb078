/**
 * One whole LIST: every page of it, pipelined one page ahead, each page request cut only when
 * it goes idle.
 * @module
 */
import type { KubeClient } from "../client/kube_client.ts";
import type { KubeObjectLike } from "../client/types.ts";
import type { DecodedList, ListItemReader } from "../client/list_body.ts";
import { decodeListPage, fetchListPage, type ListPageBody } from "../client/list_page.ts";
import { KubeApiError } from "../client/errors.ts";
import type { Clock } from "../util/clock.ts";
import { linkedController } from "../util/abort.ts";
import { IdleTimer } from "../util/idle_timer.ts";
import type { InformerSelection } from "./checkpoint.ts";
import { ListInactivityError } from "./reflector_errors.ts";

/** What {@linkcode listPages} lists, and how. Internal. */
export interface ListPagerOptions extends InformerSelection {
  client: KubeClient;
  /** The resource version to list at (`""`, `"0"` or an exact one); undefined sends none. */
  resourceVersion: string | undefined;
  /** Page size; undefined sends no `limit` (one response). */
  pageSize: number | undefined;
  clock: Clock;
  /** A page request that receives no byte for this long is abandoned. */
  idleTimeoutMs: number;
  signal: AbortSignal;
  /**
   * Request the next page as soon as this one's continue token shows, while the rest of it
   * arrives. @default true
   */
  prefetch?: boolean | undefined;
  /** Waits before each page request (a request budget). @default none */
  beforeRequest?: ((signal: AbortSignal) => Promise<void>) | undefined;
  /** A chunk of some page arrived (a sign of life). */
  onProgress?: ((now: number) => void) | undefined;
  /**
   * The continue token expired mid-list. Given, the pager lists once more, unpaged, at the same
   * resource version (the pages before are dropped: `onPage` hears `restarted`); not given,
   * the 410 is thrown.
   */
  onExpiredContinue?: ((error: KubeApiError) => void) | undefined;
}

/** A complete list (its items as `each` made them). */
export interface ListedPages<T = KubeObjectLike> {
  items: T[];
  resourceVersion: string;
  pages: number;
}

/** One page request in flight. */
interface Pending {
  /** The page's body, decoded when its turn comes (so items are handled in order). */
  page: Promise<ListPageBody>;
  cancel(): void;
  /** Continue token seen at the head of this page's body. */
  peeked?: string;
  /** The next page, requested early with `peeked`. */
  next?: Pending;
}

/**
 * Lists every page, in order, handing each to `onPage` with its items through `reader` (each
 * page's items are decoded one by one when its turn comes: see `list_body.ts`); resolves with
 * the number of pages.
 * Pages are pipelined (with `prefetch`): the next page is requested as soon as this one's
 * continue token shows at the head of its body, while the rest of it is still arriving (at
 * most one page ahead; a prefetch that turns out wrong is cancelled). Each request is
 * abandoned with a {@linkcode ListInactivityError} only when no byte has arrived for
 * `idleTimeoutMs`: a large list over a slow link that keeps delivering is never cut. The one
 * pager of the library: the reflector's lists and the consistency check's go through it.
 */
export async function listPages<T = KubeObjectLike>(
  o: ListPagerOptions,
  onPage: (page: DecodedList<T>, restarted: boolean) => void,
  reader?: ListItemReader<T>,
): Promise<number> {
  const base = {
    namespace: o.namespace,
    labelSelector: o.labelSelector,
    fieldSelector: o.fieldSelector,
  };
  const prefetch = o.prefetch ?? true;
  // Every page request of this list, so leaving early cancels the ones still in flight.
  const { controller: listing, release } = linkedController(o.signal);
  let current: Pending | undefined;
  const request = (cont: string | undefined): Pending => {
    const { controller, release: unlink } = linkedController(listing.signal);
    const pending: Pending = {
      page: whileActive(
        o,
        controller.signal,
        (signal, onProgress) =>
          fetchListPage(o.client, o.resource, {
            ...base,
            limit: o.pageSize,
            continue: cont,
            resourceVersion: cont === undefined ? o.resourceVersion : undefined,
            signal,
            onProgress,
            onContinue: prefetch
              ? (token) => {
                if (token === "") return;
                pending.peeked = token;
                if (pending === current && !controller.signal.aborted) {
                  pending.next = request(token);
                }
              }
              : undefined,
          }),
      ),
      cancel: () => controller.abort(),
    };
    pending.page.catch(() => {}).finally(unlink); // awaited below, or cancelled
    return pending;
  };
  let pages = 0;
  let cont: string | undefined;
  try {
    await o.beforeRequest?.(listing.signal);
    current = request(undefined);
    for (;;) {
      let body: ListPageBody;
      let next: Pending | undefined;
      let restarted = false;
      try {
        body = await current.page;
        next = current.next;
      } catch (error) {
        const expired = error instanceof KubeApiError && error.isExpired;
        if (cont === undefined || !expired || o.onExpiredContinue === undefined) throw error;
        // The snapshot behind the continue token was compacted: one full list instead.
        o.onExpiredContinue(error);
        restarted = true;
        body = await whileActive(
          o,
          listing.signal,
          (signal, onProgress) =>
            fetchListPage(o.client, o.resource, {
              ...base,
              resourceVersion: o.resourceVersion,
              signal,
              onProgress,
            }),
        );
      }
      pages++;
      const page = decodeListPage(body, reader);
      onPage(page, restarted);
      cont = page.metadata.continue || undefined;
      if (next !== undefined && current.peeked !== cont) {
        next.cancel(); // the head said otherwise than the page: never use it
        next = undefined;
      }
      if (cont === undefined) break;
      if (next === undefined) await o.beforeRequest?.(listing.signal);
      current = next ?? request(cont);
      // This page's token may have shown while it was not yet current: go one ahead now.
      if (prefetch && current.peeked !== undefined && current.next === undefined) {
        current.next = request(current.peeked);
      }
    }
  } finally {
    listing.abort();
    release();
  }
  return pages;
}

/**
 * One whole list, every page's items together (see {@linkcode listPages}), each item passed
 * through `reader` as its page is decoded (undefined drops it; an item `reader.known` holds
 * already is not decoded). So a transform that makes objects smaller runs item by item: the
 * raw list is never held whole, and a raw item dies young (a cheap collection) instead of
 * being promoted with the whole list. On an expired continue token, one unpaged list at the
 * same resource version replaces what was read.
 */
export async function listAllPages<T = KubeObjectLike>(
  o: ListPagerOptions,
  reader: ListItemReader<T> = { item: (item) => item as T },
): Promise<ListedPages<T>> {
  const items: T[] = [];
  let rv: unknown;
  const pages = await listPages<T>(o, (page, restarted) => {
    if (restarted) items.length = 0;
    for (const item of page.items) items.push(item);
    rv = page.metadata.resourceVersion;
  }, reader);
  return { items, resourceVersion: listResourceVersion(rv), pages };
}

/**
 * A list response's resource version; a missing, empty or non-string one is a server error
 * (a 500 `KubeApiError`: nothing could be watched from it). Internal.
 */
export function listResourceVersion(rv: unknown): string {
  if (typeof rv !== "string" || rv === "") {
    throw new KubeApiError({
      code: 500,
      bodySnippet: `list response had no string metadata.resourceVersion (got ${typeof rv})`,
    });
  }
  return rv;
}

/**
 * Runs one request, abandoning it with a {@linkcode ListInactivityError} once it has received no
 * byte for `o.idleTimeoutMs`. Internal (the consistency check pages with it too).
 */
export async function whileActive<R>(
  o: Pick<ListPagerOptions, "clock" | "idleTimeoutMs" | "onProgress">,
  signal: AbortSignal,
  request: (signal: AbortSignal, onProgress: () => void) => Promise<R>,
): Promise<R> {
  const { controller, release } = linkedController(signal);
  const idle = new IdleTimer(
    o.clock,
    o.idleTimeoutMs,
    () => controller.abort(new ListInactivityError(o.idleTimeoutMs)),
  );
  const onProgress = (): void => {
    const now = o.clock.now();
    idle.touch(now);
    o.onProgress?.(now);
  };
  try {
    return await request(controller.signal, onProgress);
  } catch (error) {
    if (!signal.aborted && controller.signal.aborted) throw controller.signal.reason;
    throw error;
  } finally {
    idle.stop();
    release();
  }
}
