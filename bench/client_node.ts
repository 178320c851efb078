// The baseline informer: @kubernetes/client-node's makeInformer against the bench server
// (imported lazily by bench/client.ts, run on Node). Lists like its users do: one unpaged
// listPodForAllNamespaces into typed objects, then a watch from the list's resourceVersion.
//
// client-node 2.x depends on undici 8, which wants Node >= 22.19 and fails to load on Node 20
// over three newer APIs: zlib.createZstdDecompress (zstd responses; the bench server never
// sends them) and worker_threads.markAsUncloneable (a structuredClone marker), both touched at
// load time only and stubbed, and Promise.withResolvers (Node 22), polyfilled to the spec.
// On Deno and Bun it runs as is.
import type { Informer, ObjectCache, V1Pod } from "@kubernetes/client-node";

interface NodeRequire {
  (id: string): Record<string, unknown>;
}

/** The @kubernetes/client-node module. */
export type ClientNode = typeof import("@kubernetes/client-node");

/** Loads @kubernetes/client-node (on Node, with the stubs above). */
export async function loadClientNode(): Promise<ClientNode> {
  if (!("Deno" in globalThis) && !("Bun" in globalThis)) {
    const { createRequire } = await import("node:module");
    const require = createRequire(import.meta.url) as unknown as NodeRequire;
    const zlib = require("node:zlib");
    zlib.createZstdDecompress ??= () => {
      throw new Error("zstd is not supported on this Node version");
    };
    const workers = require("node:worker_threads");
    workers.markAsUncloneable ??= () => {};
    const P = Promise as unknown as { withResolvers?: () => unknown };
    P.withResolvers ??= () => {
      let resolve!: (value: unknown) => void;
      let reject!: (reason: unknown) => void;
      const promise = new Promise((res, rej) => {
        resolve = res;
        reject = rej;
      });
      return { promise, resolve, reject };
    };
  }
  return await import("@kubernetes/client-node");
}

/**
 * client-node's informer of every pod on `server` (`makeInformer` over one unpaged
 * listPodForAllNamespaces), not started yet; its errors go to stderr.
 */
export function clientNodeInformer(
  k8s: ClientNode,
  server: string,
): Informer<V1Pod> & ObjectCache<V1Pod> {
  const kc = new k8s.KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: "bench", server, skipTLSVerify: true }],
    users: [{ name: "bench" }],
    contexts: [{ name: "bench", cluster: "bench", user: "bench" }],
    currentContext: "bench",
  });
  const api = kc.makeApiClient(k8s.CoreV1Api);
  const informer = k8s.makeInformer(kc, "/api/v1/pods", () => api.listPodForAllNamespaces());
  informer.on("error", (error: unknown) => console.error("client-node informer error", error));
  return informer;
}

/**
 * Loads client-node (outside the measured time and heap) and returns a function that starts
 * one of its informers and resolves once synced (its `start()` resolves once the list is cached).
 */
export async function loadClientNodeInformer(): Promise<
  (server: string) => Promise<{ list(): readonly V1Pod[]; stop(): Promise<void> }>
> {
  const k8s = await loadClientNode();
  return async (server) => {
    const informer = clientNodeInformer(k8s, server);
    await informer.start();
    return informer;
  };
}
