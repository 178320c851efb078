/**
 * Providers: where a fleet's clusters come from. A provider engages clusters into one or more
 * fleets, each with its own signal, and aborts that signal when the cluster goes away.
 * @module
 */
import type { ClusterTarget } from "./fleet_options.ts";
import { onAbort } from "../util/abort.ts";

/** What a provider engages clusters into: a `Fleet` (any object with its `engage`). */
export interface ClusterSink {
  /** Engages `name`; aborting `options.signal` disengages it. */
  engage(name: string, target: ClusterTarget, options: { signal: AbortSignal }): boolean;
}

/**
 * A source of clusters (multicluster-runtime's provider). `run` engages the clusters it knows
 * into every sink, keeps them current (engaging, replacing, disengaging as its source changes)
 * until `signal` aborts (which disengages them all), and resolves once the first set is engaged.
 *
 * @example
 * ```ts
 * import { type ClusterProvider, Fleet } from "@kinformer/kinformer/fleet";
 * import { KubeClient, pods } from "@kinformer/kinformer/client";
 * import { SimulatedCluster } from "@kinformer/kinformer/testing";
 * import assert from "node:assert/strict";
 * const sim = new SimulatedCluster({ autoCreateNamespaces: true });
 * // A provider of one cluster, engaged for as long as it runs.
 * const one: ClusterProvider = {
 *   run: (sinks, { signal }) => {
 *     for (const sink of [sinks].flat()) {
 *       sink.engage("only", new KubeClient({ server: "http://only", fetch: sim.fetch }), { signal });
 *     }
 *     return Promise.resolve();
 *   },
 * };
 * await using fleet = new Fleet({ resource: pods });
 * const ac = new AbortController();
 * await one.run(fleet, { signal: ac.signal });
 * assert.deepEqual(fleet.clusters(), ["only"]);
 * ac.abort();
 * assert.deepEqual(fleet.clusters(), []);
 * sim.close();
 * ```
 */
export interface ClusterProvider {
  /** Engages this provider's clusters into `sinks` until `options.signal` aborts. */
  run(
    sinks: ClusterSink | readonly ClusterSink[],
    options: { signal: AbortSignal },
  ): Promise<void>;
}

/**
 * The engagements of one provider run: one abort controller per cluster, linked to the run's
 * signal; setting a name again replaces its engagement. Internal.
 */
export class Engagements {
  #sinks: readonly ClusterSink[];
  #signal: AbortSignal;
  #clusters = new Map<string, { controller: AbortController; release: () => void }>();

  constructor(sinks: ClusterSink | readonly ClusterSink[], signal: AbortSignal) {
    this.#sinks = Array.isArray(sinks) ? sinks : [sinks as ClusterSink];
    this.#signal = signal;
    onAbort(signal, () => {
      for (const name of [...this.#clusters.keys()]) this.remove(name);
    });
  }

  /** Engages `name` in every sink, replacing an earlier engagement of it. */
  set(name: string, target: ClusterTarget): void {
    if (this.#signal.aborted) return;
    this.remove(name);
    const controller = new AbortController();
    const release = onAbort(this.#signal, () => controller.abort(this.#signal.reason));
    this.#clusters.set(name, { controller, release });
    for (const sink of this.#sinks) sink.engage(name, target, { signal: controller.signal });
  }

  /** Disengages `name` from every sink. */
  remove(name: string): void {
    const entry = this.#clusters.get(name);
    if (entry === undefined) return;
    this.#clusters.delete(name);
    entry.release();
    entry.controller.abort(new DOMException(`cluster ${name} left its provider`, "AbortError"));
  }

  /** The names engaged. */
  names(): string[] {
    return [...this.#clusters.keys()];
  }
}

/**
 * A provider of a fixed set of clusters, by name.
 *
 * @example
 * ```ts
 * import { Fleet, staticClusters } from "@kinformer/kinformer/fleet";
 * import { KubeClient, pods } from "@kinformer/kinformer/client";
 * import { SimulatedCluster } from "@kinformer/kinformer/testing";
 * import assert from "node:assert/strict";
 * const a = new SimulatedCluster({ autoCreateNamespaces: true });
 * await using fleet = new Fleet({ resource: pods });
 * const ac = new AbortController();
 * await staticClusters({ a: new KubeClient({ server: "http://a", fetch: a.fetch }) })
 *   .run(fleet, { signal: ac.signal });
 * assert.deepEqual(fleet.clusters(), ["a"]);
 * ac.abort();
 * a.close();
 * ```
 */
export function staticClusters(clusters: Readonly<Record<string, ClusterTarget>>): ClusterProvider {
  if (typeof clusters !== "object" || clusters === null) {
    throw new TypeError("staticClusters needs a record of cluster targets");
  }
  const entries = Object.entries(clusters);
  return {
    run: (sinks, { signal }) => {
      const engaged = new Engagements(sinks, signal);
      for (const [name, target] of entries) engaged.set(name, target);
      return Promise.resolve();
    },
  };
}

/**
 * Several providers as one; each cluster's name is prefixed with its provider's key and `/`
 * (`eu/prod-1`), so names from different sources never clash.
 *
 * @example
 * ```ts
 * import { compositeProvider, Fleet, staticClusters } from "@kinformer/kinformer/fleet";
 * import { KubeClient, pods } from "@kinformer/kinformer/client";
 * import { SimulatedCluster } from "@kinformer/kinformer/testing";
 * import assert from "node:assert/strict";
 * const sim = new SimulatedCluster({ autoCreateNamespaces: true });
 * const client = new KubeClient({ server: "http://sim", fetch: sim.fetch });
 * await using fleet = new Fleet({ resource: pods });
 * const ac = new AbortController();
 * await compositeProvider({
 *   eu: staticClusters({ one: client }),
 *   us: staticClusters({ one: client }),
 * }).run(fleet, { signal: ac.signal });
 * assert.deepEqual(fleet.clusters(), ["eu/one", "us/one"]);
 * ac.abort();
 * sim.close();
 * ```
 */
export function compositeProvider(
  providers: Readonly<Record<string, ClusterProvider>>,
): ClusterProvider {
  if (typeof providers !== "object" || providers === null) {
    throw new TypeError("compositeProvider needs a record of providers");
  }
  for (const [key, p] of Object.entries(providers)) {
    if (typeof p?.run !== "function") {
      throw new TypeError(`providers.${key} must be a ClusterProvider (with run())`);
    }
  }
  return {
    run: async (sinks, { signal }) => {
      const list: readonly ClusterSink[] = Array.isArray(sinks) ? sinks : [sinks as ClusterSink];
      await Promise.all(
        Object.entries(providers).map(([prefix, provider]) =>
          provider.run(
            list.map((sink): ClusterSink => ({
              engage: (name, target, options) => sink.engage(`${prefix}/${name}`, target, options),
            })),
            { signal },
          )
        ),
      );
    },
  };
}
