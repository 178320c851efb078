/**
 * An informer rebuilt by hand from kinformer's public parts, the way the informer itself is
 * built: `watcher` (list + watch with all the recovery) → `DeltaFIFO` (a relist becomes
 * `Replaced` deltas plus tombstones) → `processDeltas` (deltas → cache changes + events) →
 * `Indexer` (the cache) → a callback. Swap the Indexer for a database, a CRDT or a Durable
 * Object's storage and this is the place to do it.
 *
 *   deno run -A examples/minimal_informer.ts     (watches a simulated cluster with churn)
 * @module
 */
import {
  DeltaFIFO,
  Indexer,
  type InformerEvent,
  type KubeClient,
  type KubeObjectLike,
  processDeltas,
  type ResourceDescriptor,
  watcher,
  type WatcherOptions,
} from "../mod.ts";

/** A hand-made informer: its cache, and a promise that settles when it stops. */
export interface MinimalInformer<T extends KubeObjectLike> {
  /** The cache. */
  readonly store: Indexer<T>;
  /** Resolves once the first complete list is in the cache. */
  readonly synced: Promise<void>;
  /** Resolves when the watcher has stopped (the signal aborted). */
  readonly done: Promise<void>;
}

/** Runs list+watch into a DeltaFIFO and an Indexer until `signal` aborts. */
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
  const fifo = new DeltaFIFO<T>({ knownObjects: store });
  let markSynced!: () => void;
  const synced = new Promise<void>((resolve) => (markSynced = resolve));
  let isSynced = false;
  /** Pops every queued key: what client-go's processLoop does, here right after each push. */
  const drain = (): void => {
    for (let popped = fifo.pop(); popped !== undefined; popped = fifo.pop()) {
      const [key, deltas] = popped;
      const old = store.get(key);
      const { cached, events } = processDeltas(old, deltas, !isSynced);
      if (cached === undefined) store.delete(key);
      else if (cached !== old) store.set(cached, key);
      for (const event of events) options.onEvent?.(event);
    }
    if (!isSynced && fifo.hasSynced()) {
      isSynced = true;
      markSynced();
    }
  };
  const done = (async () => {
    let listing: T[] = [];
    const events = watcher(client, { ...options.watcher, resource, signal: options.signal });
    for await (const ev of events) {
      switch (ev.type) {
        case "init":
          listing = [];
          break;
        case "init-apply":
          listing.push(ev.object);
          break;
        case "init-done":
          fifo.replace(listing);
          listing = [];
          drain();
          break;
        case "apply":
          fifo.update(ev.object);
          drain();
          break;
        case "delete":
          fifo.delete(ev.object);
          drain();
          break;
        case "bookmark":
          break; // a place to save a checkpoint: ev.resourceVersion
      }
    }
  })();
  return { store, synced, done };
}

if (import.meta.main) {
  const { configmaps, KubeClient } = await import("../mod.ts");
  const { SimulatedCluster } = await import("../src/testing/mod.ts");
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
