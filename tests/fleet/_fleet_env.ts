// Shared setup for fleet tests: simulated clusters on one manual clock, and the ways a member
// of a fleet misbehaves (a blackhole, a 404 for everything, a link that goes down).
import { KubeClient } from "../../src/client/kube_client.ts";
import { pods } from "../../src/client/resource.ts";
import type { KubeObject } from "../../src/client/types.ts";
import type { FleetEvent } from "../../src/fleet/fleet_event.ts";
import { fleetKey } from "../../src/fleet/cluster_key.ts";
import { ManualClock } from "../../src/testing/manual_clock.ts";
import { SimulatedCluster, type SimulatedClusterOptions } from "@kinformer/simulator";

export type FetchFn = (request: Request) => Promise<Response>;

/** A server whose connections hang: no answer ever, until the request is aborted. */
export function blackhole(opened: { count: number; aborted: number }): FetchFn {
  return (request) => {
    opened.count++;
    return new Promise((_, reject) => {
      const abort = (): void => {
        opened.aborted++;
        reject(request.signal.reason);
      };
      if (request.signal.aborted) abort();
      else request.signal.addEventListener("abort", abort, { once: true });
    });
  };
}

/** A server that serves no such resource (a CRD not installed): 404 Status for every request. */
export const notFound: FetchFn = () =>
  Promise.resolve(
    new Response(
      JSON.stringify({
        kind: "Status",
        apiVersion: "v1",
        status: "Failure",
        reason: "NotFound",
        code: 404,
        message: "the server could not find the requested resource",
      }),
      { status: 404, headers: { "content-type": "application/json" } },
    ),
  );

/** A link that can go down (requests fail as `fetch` does with no route) and come back. */
export function link(cluster: SimulatedCluster): { fetch: FetchFn; down(): void; up(): void } {
  let down = false;
  return {
    fetch: (request) =>
      down
        ? Promise.reject(new TypeError("fetch failed: connection refused"))
        : cluster.fetch(request),
    down: () => {
      down = true;
      cluster.faults.dropWatches();
    },
    up: () => void (down = false),
  };
}

/** A simulated cluster on `clock` with `count` pods. */
export function server(
  clock: ManualClock,
  count: number,
  options: Omit<SimulatedClusterOptions, "clock"> = {},
): SimulatedCluster {
  const cluster = new SimulatedCluster({ autoCreateNamespaces: true, ...options, clock });
  if (count > 0) cluster.seed(pods, count);
  return cluster;
}

/** A client of `fetch` (a simulated cluster's or a faulty one). */
export function clientOf(name: string, fetch: FetchFn): KubeClient {
  return new KubeClient({ server: `http://${name}.sim`, fetch });
}

/** The fleet keys a server holds, for comparing with the merged view. */
export function serverKeys(name: string, cluster: SimulatedCluster): string[] {
  return cluster.list(pods).map((p) => fleetKey(name, p));
}

/** Replays fleet events onto a map of fleet keys, as a consumer of `events()` would. */
export function replay(events: readonly FleetEvent<KubeObject>[]): string[] {
  const view = new Set<string>();
  for (const ev of events) {
    if (ev.type === "add" || ev.type === "update") view.add(fleetKey(ev.cluster, ev.object));
    if (ev.type === "delete") view.delete(fleetKey(ev.cluster, ev.object));
  }
  return [...view].sort();
}

/** Collects every event of `iterator` in the background until it ends. */
export function collect<T>(iterator: AsyncIterable<T>): { events: T[]; done: Promise<void> } {
  const events: T[] = [];
  const done = (async () => {
    for await (const ev of iterator) events.push(ev);
  })();
  return { events, done };
}

export { ManualClock };
