/**
 * kinformer in a browser Web Worker: runs an informer on ConfigMaps and posts every change to
 * the page (`index.html`). The informer works on the main thread too; a worker keeps the page
 * responsive while large lists are parsed.
 *
 * Bundle it next to the page (one ES module, no dependencies):
 *
 * ```sh
 * npx esbuild examples/browser/worker.ts --bundle --format=esm --outfile=examples/browser/worker.js
 * ```
 *
 * The API server is another origin, so it must answer CORS: kube-apiserver does with
 * `--cors-allowed-origins`, the simulated cluster does for pages on loopback (its
 * `corsAllowedOrigins` option); `kubectl proxy` adds no CORS headers of its own.
 * @module
 */
import { configmaps, createInformer, type InformerEvent, KubeClient } from "@kinformer/kinformer";

/** What the page sends. */
export type ToWorker =
  | { type: "start"; server: string; namespace?: string; token?: string }
  | { type: "stop" };

/** What the worker sends back. */
export type FromWorker =
  | { type: "change"; change: "add" | "update" | "delete"; key: string; initial: boolean }
  | { type: "synced"; objects: number }
  | { type: "error"; message: string }
  | { type: "stopped" };

/** The parts of a dedicated worker's global scope used here. */
interface WorkerScope {
  postMessage(message: FromWorker): void;
  addEventListener(type: "message", listener: (event: MessageEvent<ToWorker>) => void): void;
}
const scope = globalThis as unknown as WorkerScope;

function keyOf(ev: Exclude<InformerEvent, { type: "synced" }>): string {
  const m = ev.object.metadata;
  return m.namespace ? `${m.namespace}/${m.name}` : String(m.name);
}

let running: AbortController | undefined;

async function run(start: Extract<ToWorker, { type: "start" }>, stop: AbortSignal): Promise<void> {
  // "auto": watches over WebSockets in a browser, which do not hold one of the six HTTP/1.1
  // connections the page may have to the API server's origin (see the README, "Browsers").
  const client = new KubeClient({
    server: start.server,
    token: start.token,
    watchTransport: "auto",
  });
  const informer = createInformer(client, {
    resource: configmaps,
    namespace: start.namespace,
    onError: (error) => scope.postMessage({ type: "error", message: String(error) }),
  });
  informer.start({ signal: stop });
  try {
    for await (const ev of informer.events({ signal: stop })) {
      if (ev.type === "synced") {
        scope.postMessage({ type: "synced", objects: informer.store.list().length });
      } else {
        const initial = ev.type === "add" && ev.isInInitialList;
        scope.postMessage({ type: "change", change: ev.type, key: keyOf(ev), initial });
      }
    }
  } finally {
    await informer.stop();
    scope.postMessage({ type: "stopped" });
  }
}

scope.addEventListener("message", (event) => {
  const message = event.data;
  switch (message.type) {
    case "start": {
      running?.abort();
      const controller = new AbortController();
      running = controller;
      run(message, controller.signal).catch((error) => {
        scope.postMessage({ type: "error", message: String(error) });
      });
      break;
    }
    case "stop":
      running?.abort();
      running = undefined;
      break;
  }
});
