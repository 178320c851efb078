/**
 * Selector-aware reads over a fleet's merged view.
 * @module
 */
import type { KubeObject, KubeObjectLike } from "../client/types.ts";
import { Indexer, NAMESPACE_INDEX } from "../cache/indexer.ts";
import { filter, Lister, type ListerListOptions } from "../cache/lister.ts";
import type { FleetStore } from "./fleet_store.ts";

/**
 * Reads over every cluster of a fleet (`list`, `namespace`), by fleet key (`get`), or over one
 * cluster with a plain {@linkcode Lister} (`cluster`).
 *
 * @example
 * ```ts
 * import { Fleet } from "@kinformer/kinformer/fleet";
 * import { KubeClient, pods } from "@kinformer/kinformer/client";
 * import { SimulatedCluster } from "@kinformer/kinformer/testing";
 * import assert from "node:assert/strict";
 * const a = new SimulatedCluster({ autoCreateNamespaces: true });
 * a.create(pods, { metadata: { namespace: "web", name: "api", labels: { tier: "front" } } });
 * a.create(pods, { metadata: { namespace: "web", name: "db" } });
 * await using fleet = new Fleet({ resource: pods });
 * fleet.engage("a", new KubeClient({ server: "http://a", fetch: a.fetch }));
 * await fleet.waitForSync();
 * assert.equal(fleet.lister.list({ labelSelector: "tier=front" }).length, 1);
 * assert.equal(fleet.lister.get("a|web/db")?.metadata.name, "db");
 * assert.equal(fleet.lister.namespace("web").length, 2);
 * assert.equal(fleet.lister.cluster("a").namespace("web").get("api")?.metadata.name, "api");
 * a.close();
 * ```
 */
export class FleetLister<T extends KubeObjectLike = KubeObject> {
  #store: FleetStore<T>;

  /** Use `Fleet.lister`. */
  constructor(store: FleetStore<T>) {
    this.#store = store;
  }

  /** The object under a fleet key (`cluster|namespace/name`). */
  get(fleetKey: string): T | undefined {
    return this.#store.get(fleetKey);
  }

  /** Every object in view matching the selector. */
  list(options: ListerListOptions = {}): T[] {
    return filter(this.#store.list(), options);
  }

  /** The objects of one namespace (`""`: cluster-scoped) in every cluster, matching the selector. */
  namespace(namespace: string, options: ListerListOptions = {}): T[] {
    return filter(this.#store.byIndex(NAMESPACE_INDEX, namespace), options);
  }

  /**
   * Reads of one cluster, with plain keys (`namespace/name`); empty for a cluster not engaged
   * or hidden.
   */
  cluster(name: string): Lister<T> {
    return new Lister(this.#store.visiblePart(name) ?? new Indexer<T>());
  }
}
