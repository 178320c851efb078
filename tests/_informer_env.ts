// Shared setup for informer tests: a simulated cluster on a manual clock, a client on it.
import assert from "node:assert/strict";
import { KubeClient, type KubeClientOptions } from "../src/client/kube_client.ts";
import type { KubeObject, KubeObjectLike } from "../src/client/types.ts";
import {
  createInformer,
  type InformerOptions,
  type SharedInformer,
} from "../src/cache/informer.ts";
import type { InformerEvent } from "../src/cache/informer_event.ts";
import { ManualClock } from "../src/testing/manual_clock.ts";
import { SimulatedCluster, type SimulatedClusterOptions } from "@kinformer/simulator";
import { seededRandom as seeded } from "../src/testing/seeded_random.ts";

export { seeded };

export interface Env {
  clock: ManualClock;
  cluster: SimulatedCluster;
  client: KubeClient;
  errors: { kind: string; error: unknown }[];
  informer<T extends KubeObjectLike = KubeObject>(options: InformerOptions<T>): SharedInformer<T>;
  /** Stops every informer made here, closes the cluster, and checks nothing leaked. */
  close(): Promise<void>;
}

export function env(
  options: {
    seed?: number;
    fetch?: (c: SimulatedCluster) => (r: Request) => Promise<Response>;
    /** More cluster options (e.g. `watchCache: false` for a server that pages lists at "0"). */
    cluster?: Omit<SimulatedClusterOptions, "clock" | "seed">;
    /** More client options (e.g. `watchTransport: "websocket"`, `token`). */
    client?: Omit<KubeClientOptions, "server" | "fetch">;
  } = {},
): Env {
  const clock = new ManualClock();
  // Informer tests put objects in whatever namespace suits them: the cluster creates missing
  // namespaces as one with the NamespaceAutoProvision admission plugin does.
  const cluster = new SimulatedCluster({
    autoCreateNamespaces: true,
    ...options.cluster,
    clock,
    seed: options.seed ?? 1,
  });
  const fetch = options.fetch?.(cluster) ?? cluster.fetch;
  const client = new KubeClient({
    server: "http://sim.test",
    fetch,
    webSocket: cluster.webSocket,
    ...options.client,
  });
  const errors: { kind: string; error: unknown }[] = [];
  const informers: SharedInformer<KubeObject>[] = [];
  return {
    clock,
    cluster,
    client,
    errors,
    informer<T extends KubeObjectLike>(o: InformerOptions<T>): SharedInformer<T> {
      const i = createInformer<T>(client, {
        clock,
        random: seeded(options.seed ?? 1),
        onError: (error, ctx) => errors.push({ kind: ctx.kind, error }),
        ...o,
      });
      informers.push(i as unknown as SharedInformer<KubeObject>);
      return i;
    },
    async close(): Promise<void> {
      for (const i of informers) await i.stop();
      await clock.flush();
      cluster.close();
      await clock.flush();
    },
  };
}

/** Stops every informer and the cluster, then checks no timer or watch was left behind. */
export async function closed(e: Env): Promise<void> {
  await e.close();
  assert.equal(e.clock.pendingTimers, 0, "timers left behind");
  assert.equal(e.cluster.openWatches, 0, "watches left open");
}

/** A pod with one nginx container; `metadata.labels` only when `labels` is given. */
export function pod(namespace: string, name: string, labels?: Record<string, string>): KubeObject {
  return {
    metadata: labels === undefined ? { namespace, name } : { namespace, name, labels },
    spec: { containers: [{ name: "c", image: "nginx" }] },
  };
}

/** Takes events from an iterator until `stop` says so (or `max` events). */
export async function take<T extends KubeObject>(
  it: AsyncIterator<InformerEvent<T>>,
  stop: (ev: InformerEvent<T>, all: InformerEvent<T>[]) => boolean,
  max = 100_000,
): Promise<InformerEvent<T>[]> {
  const out: InformerEvent<T>[] = [];
  while (out.length < max) {
    const r = await it.next();
    if (r.done) break;
    out.push(r.value);
    if (stop(r.value, out)) break;
  }
  return out;
}

/** A compact text form of an event for assertions. */
export function show(ev: InformerEvent): string {
  switch (ev.type) {
    case "add":
      return `add ${ev.object.metadata.name}${ev.isInInitialList ? " (initial)" : ""}`;
    case "update":
      return `update ${ev.object.metadata.name}`;
    case "delete":
      return `delete ${ev.object.metadata.name}${ev.finalStateUnknown ? " (unknown)" : ""}`;
    case "synced":
      return "synced";
  }
}

/** Requests the cluster saw, as "verb resource?query-ish" strings. */
export function verbs(cluster: SimulatedCluster): string[] {
  return cluster.requests.map((r) => r.verb);
}
