/**
 * The list/watch protocol as a stream of typed events, with the reflector's recovery: the
 * building block under the informer, for users who keep their own store.
 * @module
 */
import type { KubeClient } from "../client/kube_client.ts";
import type { ResourceDescriptor } from "../client/resource.ts";
import type { WatchTransport } from "../client/watch_transport.ts";
import type { KubeObject, KubeObjectLike } from "../client/types.ts";
import { linkedController, onAbort } from "../util/abort.ts";
import type { Backoff, BackoffOptions } from "../util/backoff.ts";
import type { Clock } from "../util/clock.ts";
import { ErrorReporter } from "../util/error_reporter.ts";
import { RingBuffer } from "../util/ring_buffer.ts";
import { checkFunction, checkNumber } from "../util/validate.ts";
import type { OnError } from "../util/error_context.ts";
import { informerSource, listWatchSettings, validateListWatchOptions } from "./informer_options.ts";
import { Reflector } from "./reflector.ts";
import type { InitialListMode } from "./reflector_state.ts";
import type { WatcherEvent } from "./watcher_event.ts";

export type { WatcherEvent } from "./watcher_event.ts";

/** Options of {@linkcode watcher}. */
export interface WatcherOptions<T extends KubeObjectLike = KubeObject> {
  /** The resource to list and watch. */
  resource: ResourceDescriptor<T>;
  /** Only this namespace. @default undefined (all namespaces) */
  namespace?: string | undefined;
  /** Label selector for LIST and WATCH. @default undefined */
  labelSelector?: string | undefined;
  /** Field selector for LIST and WATCH. @default undefined */
  fieldSelector?: string | undefined;
  /** LIST page size. @default 500 */
  pageSize?: number | undefined;
  /** `"list"`, `"stream"` or `"auto"`, as for informers. @default "list" */
  initialList?: InitialListMode | undefined;
  /** Runs on each object before it is yielded. @default identity */
  transform?: ((object: T) => T) | undefined;
  /** Start by watching from this resource version (no LIST). @default undefined */
  resumeFrom?: string | undefined;
  /** Idle limit of a watch or LIST response, in ms. @default 150000 */
  inactivityTimeoutMs?: number | undefined;
  /**
   * Progress deadline of a streaming list (no initial object for this long), in ms, as for
   * informers. @default 10000
   */
  initialEventsTimeoutMs?: number | undefined;
  /** Longest watch line, in bytes. @default 16 MiB */
  maxLineLength?: number | undefined;
  /**
   * `"http"`, `"websocket"` or `"auto"`, as for informers. A WebSocket cannot be paused: while
   * the consumer is behind, its messages queue (up to 64 MiB, then the
   * watch is reopened from the last event delivered).
   * @default the client's `watchTransport` ("http" unless set)
   */
  transport?: WatchTransport | undefined;
  /** Time source. @default systemClock */
  clock?: Clock | undefined;
  /** Backoff, or options for the default one. @default 800 ms x2 to 30 s, jittered */
  backoff?: Backoff | BackoffOptions | undefined;
  /** Random source in [0, 1). @default Math.random */
  random?: (() => number) | undefined;
  /**
   * Every error, with its context (what, where, what the watcher does about it); the watcher
   * keeps recovering. It replaces the default printing. An `onError` that throws is reported
   * as an uncaught error (on a fresh microtask) and the watcher goes on.
   * @default prints as an informer does (`InformerOptions.onError`): the first error of each
   * kind at once, then at most one line per kind per minute, and one line when healthy again
   */
  onError?: OnError | undefined;
  /**
   * Events buffered for a slow consumer before the watch stops reading (back-pressure to the
   * connection). A relist's events always fit, whatever their number. @default 1024
   */
  highWaterMark?: number | undefined;
  /** Stops the watcher; the iteration ends. @default undefined */
  signal?: AbortSignal | undefined;
}

/**
 * Lists and watches one resource and yields the protocol's steps as {@linkcode WatcherEvent}s,
 * with exactly the informer's guarantees: paged and pipelined lists, idle (never total)
 * timeouts, resuming watches from the last resource version, relisting on 410 and on repeated
 * decode failures, jittered backoff, validated server delays, the request pacer. It never ends
 * on an error (each goes to `onError`); it ends when `signal` aborts or the loop breaks. Feed it
 * into a `DeltaFIFO` and an `Indexer`, a database, a CRDT, a Durable Object.
 *
 * The watch reads no faster than the consumer: once `highWaterMark` events wait, no more bytes
 * are read until the consumer catches up (the idle timer does not count that wait). Nothing
 * happens until the first `next()`; `break` (`return()`), aborting `signal` or disposing it
 * (`await using`) stops the watcher and releases its connection and timers.
 *
 * @example
 * ```ts
 * import { watcher } from "@kinformer/kinformer/cache";
 * import { KubeClient, configmaps } from "@kinformer/kinformer/client";
 * import { SimulatedCluster } from "@kinformer/kinformer/testing";
 * import assert from "node:assert/strict";
 * const cluster = new SimulatedCluster();
 * cluster.create(configmaps, { metadata: { namespace: "default", name: "a" } });
 * const client = new KubeClient({ server: "http://sim", fetch: cluster.fetch });
 * const ac = new AbortController();
 * const mine = new Map<string, unknown>(); // any store
 * for await (const ev of watcher(client, { resource: configmaps, signal: ac.signal })) {
 *   if (ev.type === "init") mine.clear();
 *   if (ev.type === "init-apply") mine.set(ev.object.metadata.name!, ev.object);
 *   if (ev.type === "init-done") ac.abort();
 * }
 * assert.deepEqual([...mine.keys()], ["a"]);
 * cluster.close();
 * ```
 */
export function watcher<T extends KubeObjectLike = KubeObject>(
  client: KubeClient,
  options: WatcherOptions<T>,
): AsyncIterableIterator<WatcherEvent<T>> & AsyncDisposable {
  checkNumber(options.highWaterMark, "highWaterMark", { min: 1, integer: true });
  validateListWatchOptions(options);
  checkFunction(options.onError, "onError");
  const highWaterMark = options.highWaterMark ?? 1024;
  const queue = new RingBuffer<WatcherEvent<T>>(64);
  let wakeConsumer: (() => void) | undefined;
  let wakeProducer: (() => void) | undefined;
  const { controller, release } = linkedController(options.signal);
  const unlisten = onAbort(controller.signal, () => {
    wakeConsumer?.();
    wakeProducer?.();
  });
  /** The reflector's run, from the first `next()` on. */
  let running: Promise<void> | undefined;
  /** Where the reflector's steps go: the queue, holding the watch once it is full. */
  const emit = (event: WatcherEvent<T>): void | Promise<void> => {
    queue.push(event);
    const wake = wakeConsumer;
    wakeConsumer = undefined;
    wake?.();
    if (event.type !== "apply" && event.type !== "delete") return;
    if (queue.length < highWaterMark || controller.signal.aborted) return;
    return new Promise<void>((resolve) => (wakeProducer = resolve));
  };
  const start = (): void => {
    const settings = listWatchSettings(options, client);
    const reporter = new ErrorReporter({
      source: informerSource(options, "watcher"),
      onError: options.onError,
      clock: settings.clock,
    });
    const reflector = new Reflector<T>({
      ...settings,
      client,
      resumeFrom: options.resumeFrom,
      onError: (error, details) => void reporter.report(error, details),
      // The server answers (a watch accepted) or the resource version moved: healthy again.
      observe: (signal) => {
        if (signal.type === "moved" || signal.type === "watch-opened") reporter.healthy();
      },
      emit,
    });
    running = reflector.run(controller.signal);
  };
  const finish = async (): Promise<IteratorReturnResult<undefined>> => {
    // Aborting wakes a consumer still waiting and a watch held by a full queue.
    controller.abort(new DOMException("watcher stopped", "AbortError"));
    release();
    unlisten();
    await running;
    queue.clear();
    return { done: true, value: undefined };
  };
  return {
    async next(): Promise<IteratorResult<WatcherEvent<T>>> {
      for (;;) {
        if (controller.signal.aborted) return await finish();
        if (running === undefined) start();
        const value = queue.shift();
        if (value !== undefined) {
          if (queue.length < highWaterMark / 2 && wakeProducer !== undefined) {
            const wake = wakeProducer;
            wakeProducer = undefined;
            wake();
          }
          return { done: false, value };
        }
        await new Promise<void>((resolve) => (wakeConsumer = resolve));
      }
    },
    return(): Promise<IteratorResult<WatcherEvent<T>>> {
      return finish();
    },
    [Symbol.asyncIterator](): AsyncIterableIterator<WatcherEvent<T>> {
      return this;
    },
    /** Same as `return()`, for `await using`. */
    async [Symbol.asyncDispose](): Promise<void> {
      await finish();
    },
  };
}
