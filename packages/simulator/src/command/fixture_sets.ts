/**
 * The named sets of objects the command can start with (`--fixtures NAME`). No runtime APIs.
 * @module
 */
import { configmaps, pods } from "@kinformer/kinformer/client";
import type { SimulatedCluster } from "../cluster/simulated_cluster.ts";

/**
 * The sets: `demo` is what the guides' examples assume (namespaces `default` and `kube-system`,
 * pods `default/web-1` and `default/web-2` with label `app=web`, `default/api-1` with
 * `app=api`, configmap `default/settings` with `mode: demo`); `none` adds nothing. The docs
 * check runs the guides' `ts run` blocks against `demo` (docs/CONTRIBUTING-docs.md says what it
 * holds): change them together.
 *
 * @example
 * ```ts
 * import { pods } from "@kinformer/kinformer/client";
 * import { SimulatedCluster } from "@kinformer/simulator";
 * import { FIXTURE_SETS } from "@kinformer/simulator/command";
 * import assert from "node:assert/strict";
 * const cluster = new SimulatedCluster();
 * FIXTURE_SETS["demo"]!(cluster);
 * assert.deepEqual(cluster.list(pods, { labelSelector: "app=web" }).map((p) => p.metadata.name), ["web-1", "web-2"]);
 * cluster.close();
 * ```
 */
export const FIXTURE_SETS: Readonly<Record<string, (cluster: SimulatedCluster) => void>> = {
  demo(cluster) {
    const containers = [{ name: "app", image: "registry.example/app:1.0" }];
    for (const [name, app] of [["web-1", "web"], ["web-2", "web"], ["api-1", "api"]] as const) {
      cluster.create(pods, {
        metadata: { namespace: "default", name, labels: { app } },
        spec: { containers },
      });
    }
    cluster.create(configmaps, {
      metadata: { namespace: "default", name: "settings" },
      data: { mode: "demo" },
    });
  },
  none() {},
};
