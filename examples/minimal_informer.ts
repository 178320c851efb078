/**
 * An informer rebuilt by hand from kinformer's public parts, composed exactly as the informer
 * itself is: `watcher` (list + watch with all the recovery) → `StoreWriter` (the `DeltaFIFO`,
 * where a relist becomes `Replaced` deltas plus tombstones, then `processDeltas`, deltas →
 * cache changes + events) → the `Indexer` (the cache) → a callback. The informer runs the same
 * reflector `watcher()` runs and writes its events into the same `StoreWriter`; it adds the
 * listeners' buffers, resyncs, checkpoints and health. Swap the Indexer for a database, a CRDT
 * or a Durable Object's storage (any `WritableStore`) and this is the place to do it.
 *
 *   deno run -A examples/minimal_informer.ts     (watches a simulated cluster with churn)
 * @module
 */
import type { KubeClient, KubeObjectLike, ResourceDescriptor } from "@kinformer/kinformer/client";
import {
  Indexer,
  type InformerEvent,
  StoreWriter,
  watcher,
  type WatcherOptions,
} from "@kinformer/kinformer/cache";

/** A hand-made informer: its cache, and a promise that settles when it stops. */
export interface MinimalInformer<T extends KubeObjectLike> {
  /** The cache. */
  readonly store: Indexer<T>;
  /** Resolves once the first complete list is in the cache. */
  readonly synced: Promise<void>;
  /** Resolves when the watcher has stopped (the signal aborted). */
  readonly done: Promise<void>;
}

/** Runs list+watch into a StoreWriter and an Indexer until `signal` aborts. */
export function minimalInformer<T extends KubeObjectLike>(
  client: KubeClient,
  resource: ResourceDescriptor<T>,
  options: {
    signal: AbortSignal;
    onEvent?: (event: InformerEvent<T>) => void;
    watcher?: Partial<WatcherOptions<T>>;
  },
): MinimalInformer<T> {
  const store = new Indexer<T>();
  let markSynced!: () => void;
  const synced = new Promise<void>((resolve) => (markSynced = resolve));
  const writer = new StoreWriter<T>({
    store,
    onEvent: (event) => {
      if (event.type === "synced") markSynced();
      else options.onEvent?.(event);
    },
  });
  const done = (async () => {
    for await (
      const event of watcher(client, { ...options.watcher, resource, signal: options.signal })
    ) {
      writer.write(event); // a bookmark is a place to save a checkpoint: event.resourceVersion
    }
  })();
  return { store, synced, done };
}

if (import.meta.main) {
  const { configmaps, KubeClient } = await import("@kinformer/kinformer/client");
  const { SimulatedCluster } = await import("@kinformer/kinformer/testing");
  const cluster = new SimulatedCluster();
  cluster.seed(configmaps, 20);
  const client = new KubeClient({ server: "http://sim", fetch: cluster.fetch });
  const ac = new AbortController();
  const informer = minimalInformer(client, configmaps, {
    signal: ac.signal,
    onEvent: (ev) => {
      if (ev.type !== "synced") console.log(ev.type, ev.object.metadata?.name);
    },
  });
  await informer.synced;
  const churn = cluster.startChurn({ resource: configmaps, ratePerSecond: 20 });
  await new Promise((resolve) => setTimeout(resolve, 2_000));
  churn.stop();
  await new Promise((resolve) => setTimeout(resolve, 200));
  const same = informer.store.size === cluster.list(configmaps).length;
  console.log(`cache ${informer.store.size} objects, server ${cluster.list(configmaps).length}`);
  ac.abort();
  await informer.done;
  cluster.close();
  if (!same) Deno.exit(1);
}
