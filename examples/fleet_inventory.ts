/**
 * A fleet inventory: the pods of every cluster a provider gives (the contexts of your
 * kubeconfig, or simulated clusters), each cluster's state, and a fleet controller that keeps
 * the list of failed pods across the fleet, by fleet key (`cluster|namespace/name`).
 *
 * ```sh
 * deno run -A examples/fleet_inventory.ts                       # 5 simulated clusters, one 403
 * deno run -A examples/fleet_inventory.ts --kubeconfig          # every context of ~/.kube/config
 * deno run -A examples/fleet_inventory.ts --kubeconfig prod-    # the contexts starting with prod-
 * ```
 *
 * In a test, start it with {@linkcode startInventory} on simulated clusters and a `ManualClock`
 * (`tests/fleet/example_fleet_inventory_test.ts`).
 * @module
 */
import { type KubeObject, pods } from "../mod.ts";
import type { Clock } from "../src/cache/mod.ts";
import {
  CLUSTER_INDEX,
  type ClusterProvider,
  type ClusterState,
  Fleet,
  runFleetController,
} from "../src/fleet/mod.ts";

/** One line of the inventory. */
export interface InventoryLine {
  cluster: string;
  state: ClusterState;
  pods: number;
  stale: boolean;
}

/** A running inventory. */
export interface Inventory {
  /** The fleet of pods. */
  readonly fleet: Fleet<KubeObject>;
  /** Failed pods of the whole fleet, by fleet key, as the controller keeps them. */
  readonly failed: ReadonlySet<string>;
  /** One line per cluster. */
  lines(): InventoryLine[];
  /** Resolves once the provider's clusters are engaged and the controller has stopped. */
  readonly done: Promise<void>;
}

/** Starts the inventory over `provider`'s clusters until `signal` aborts. */
export function startInventory(
  options: { provider: ClusterProvider; signal: AbortSignal; clock?: Clock | undefined },
): Inventory {
  const { provider, signal, clock } = options;
  const fleet = new Fleet<KubeObject>({
    resource: pods,
    clock,
    // The inventory needs names and phases only: the specs are dropped before caching.
    informerOptions: () => ({
      transform: (pod) => {
        delete (pod as { spec?: unknown }).spec;
        return pod;
      },
    }),
  });
  const failed = new Set<string>();
  const controller = runFleetController({
    fleet,
    signal,
    clock,
    reconcile: ({ fleetKey }) => {
      const pod = fleet.store.get(fleetKey) as { status?: { phase?: string } } | undefined;
      if (pod?.status?.phase === "Failed") failed.add(fleetKey);
      else failed.delete(fleetKey); // gone or recovered
    },
    // A cluster that left: its requests are dropped, so its entries go here.
    onClusterRemoved: (cluster) => {
      for (const key of failed) if (key.startsWith(`${cluster}|`)) failed.delete(key);
    },
  });
  const done = (async () => {
    await provider.run(fleet, { signal });
    await controller;
    await fleet.stop();
  })();
  return {
    fleet,
    failed,
    lines: () =>
      fleet.health().clusters.filter((c) => c.state !== "removed").map((c) => ({
        cluster: c.name,
        state: c.state,
        pods: fleet.store.byIndex(CLUSTER_INDEX, c.name).length,
        stale: c.stale,
      })),
    done,
  };
}

/** The inventory as text. */
export function render(inventory: Inventory): string {
  const lines = inventory.lines().map((l) =>
    `${l.cluster.padEnd(16)} ${l.state.padEnd(12)} ${String(l.pods).padStart(6)} pods${
      l.stale ? " (stale)" : ""
    }`
  );
  return [...lines, `${inventory.failed.size} failed pods in the fleet`].join("\n");
}

if (import.meta.main) {
  const stop = new AbortController();
  Deno.addSignalListener("SIGINT", () => stop.abort());
  const at = Deno.args.indexOf("--kubeconfig");
  let provider: ClusterProvider;
  const servers: { close(): void }[] = [];
  if (at >= 0) {
    const { parseKubeconfig } = await import("../src/config/mod.ts");
    const { loadKubeconfig } = await import("../src/adapters/deno/config.ts");
    const { kubeconfigContexts } = await import("../src/fleet/mod.ts");
    const path = Deno.env.get("KUBECONFIG")?.split(":")[0] ??
      `${Deno.env.get("HOME")}/.kube/config`;
    const prefix = Deno.args[at + 1] ?? "";
    provider = kubeconfigContexts({
      kubeconfig: parseKubeconfig(await Deno.readTextFile(path)),
      contexts: (c) => c.name.startsWith(prefix),
      connect: (context) => loadKubeconfig({ path, context }),
    });
  } else {
    const { KubeClient } = await import("../mod.ts");
    const { SimulatedCluster } = await import("../src/testing/mod.ts");
    const { staticClusters } = await import("../src/fleet/mod.ts");
    const clients: Record<string, InstanceType<typeof KubeClient>> = {};
    for (const [i, name] of ["eu-1", "eu-2", "us-1", "ap-1", "locked"].entries()) {
      const sim = new SimulatedCluster(name === "locked" ? { authorization: [] } : { seed: i + 1 });
      sim.seed(pods, 20 * (i + 1));
      servers.push(sim);
      clients[name] = new KubeClient({ server: `http://${name}.sim`, fetch: sim.fetch });
    }
    provider = staticClusters(clients);
    setTimeout(() => stop.abort(), 3_000);
  }
  const inventory = startInventory({ provider, signal: stop.signal });
  await inventory.fleet.waitForSync({ settle: true, signal: stop.signal }).catch(() => {});
  console.log(render(inventory));
  await inventory.done;
  for (const s of servers) s.close();
}
