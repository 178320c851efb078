/**
 * Serves `/metrics` (Prometheus text format) and `/healthz` for a pods informer, with
 * `prometheusMetrics` from `@kinformer/kinformer/metrics` (port 9464 by default):
 *
 * ```sh
 * deno run --allow-net examples/prometheus_metrics.ts                  # in-process simulated cluster with churn
 * deno run --allow-net examples/prometheus_metrics.ts --server http://127.0.0.1:8001   # kubectl proxy
 * bun --conditions=kinformer-source examples/prometheus_metrics.ts --server https://my-cluster --token "$TOKEN" --port 9000
 * ```
 *
 * `/healthz` answers 503 until the informer has synced, and while it is stalled.
 * @module
 */
import { createInformer, KubeClient, pods } from "@kinformer/kinformer";
import { SimulatedCluster } from "@kinformer/kinformer/testing";
import { prometheusMetrics } from "@kinformer/kinformer/metrics";

interface Runtimes {
  Deno?: {
    args: string[];
    serve(
      options: {
        port: number;
        hostname: string;
        onListen(addr: { hostname: string; port: number }): void;
      },
      handler: (request: Request) => Response | Promise<Response>,
    ): unknown;
  };
  Bun?: {
    argv: string[];
    serve(
      options: {
        port: number;
        hostname: string;
        fetch(request: Request): Response | Promise<Response>;
      },
    ): {
      port: number;
    };
  };
}

function flag(args: string[], name: string): string | undefined {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
}

async function main(): Promise<void> {
  const rt = globalThis as unknown as Runtimes;
  const args = rt.Deno?.args ?? rt.Bun?.argv.slice(2) ?? [];
  const port = Number(flag(args, "port") ?? 9464);
  const server = flag(args, "server");
  let client: KubeClient;
  if (server !== undefined) {
    client = new KubeClient({ server, token: flag(args, "token") });
  } else {
    // No cluster given: a simulated one with some pods and steady churn, to have numbers move.
    const cluster = new SimulatedCluster({ seed: 9464 });
    cluster.seed(pods, 50);
    cluster.startChurn({ resource: pods, ratePerSecond: 5, namespaces: ["ns-0", "ns-1", "ns-2"] });
    client = new KubeClient({ server: "http://simulated.cluster", fetch: cluster.fetch });
  }
  const prom = prometheusMetrics({ labels: { resource: "pods" }, health: () => informer.health() });
  const informer = createInformer(client, {
    resource: pods,
    namespace: flag(args, "namespace"),
    metrics: prom.metrics,
    onError: (error, ctx) => console.error(`[${ctx.phase}/${ctx.kind}] ${String(error)}`),
  });
  informer.start();
  const route = (request: Request): Response => {
    const path = new URL(request.url).pathname;
    if (path === "/metrics") return prom.handler(request);
    if (path === "/healthz") {
      const h = informer.health();
      const ok = h.synced && !h.stalled;
      return new Response(ok ? "ok\n" : `not ready: ${h.state}${h.stalled ? ", stalled" : ""}\n`, {
        status: ok ? 200 : 503,
      });
    }
    return new Response("see /metrics and /healthz\n", { status: 404 });
  };
  const hostname = "127.0.0.1";
  if (rt.Deno !== undefined) {
    rt.Deno.serve({
      port,
      hostname,
      onListen: (a) => console.log(`metrics on http://${a.hostname}:${a.port}/metrics`),
    }, route);
  } else if (rt.Bun !== undefined) {
    const s = rt.Bun.serve({ port, hostname, fetch: route });
    console.log(`metrics on http://${hostname}:${s.port}/metrics`);
  } else {
    throw new Error(
      "run this with Deno or Bun (or import prometheusMetrics from @kinformer/kinformer/metrics and serve it yourself)",
    );
  }
  await informer.waitForSync();
  console.log(`synced: ${informer.store.size} pods`);
}

if ((import.meta as ImportMeta & { main?: boolean }).main) await main();
