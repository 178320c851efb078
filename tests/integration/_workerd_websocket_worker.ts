// The Worker of workerd_websocket_test.ts (bundled, run in workerd): each request runs an
// informer whose watch goes over a WebSocket opened with fetchWebSocket (Workers' WebSocket
// cannot send the Origin the API server requires), creates ConfigMaps, waits for their live
// events, and answers with what happened. It also tries one watch with a wrong token, to show
// that the handshake's status reaches the caller.
import { configmaps, createInformer, KubeApiError, KubeClient } from "../../mod.ts";
import { fetchWebSocket } from "../../src/client/mod.ts";

/** The Worker's bindings. */
interface Env {
  KUBE_SERVER: string;
  KUBE_TOKEN: string;
}

/** What the Worker answers. */
export interface WebSocketReport {
  synced: boolean;
  live: string[];
  errors: string[];
  /** The status of a watch with a wrong token (a KubeApiError), or what else it threw. */
  refused: number | string;
}

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const url = new URL(request.url);
    const create = Number(url.searchParams.get("create") ?? "2");
    const options = {
      server: env.KUBE_SERVER,
      watchTransport: "websocket" as const,
      webSocket: fetchWebSocket(),
    };
    const client = new KubeClient({ ...options, token: env.KUBE_TOKEN });
    const errors: string[] = [];
    const informer = createInformer(client, {
      resource: configmaps,
      namespace: "default",
      onError: (error, context) => errors.push(`${context.kind}: ${String(error)}`),
    });
    const live: string[] = [];
    const done = new AbortController();
    informer.addEventHandler({
      onAdd: (object, initial) => {
        if (initial) return;
        live.push(`add ${object.metadata.name}`);
        if (live.length === create) done.abort();
      },
    });
    const deadline = setTimeout(() => done.abort(), 10_000);
    let synced = false;
    try {
      informer.start();
      await informer.waitForSync();
      synced = true;
      for (let i = 0; i < create; i++) {
        await client.create(configmaps, { metadata: { namespace: "default", name: `w-${i}` } });
      }
      if (!done.signal.aborted) {
        await new Promise((resolve) => done.signal.addEventListener("abort", resolve));
      }
    } finally {
      clearTimeout(deadline);
      await informer.stop();
    }
    let refused: number | string;
    const wrong = new KubeClient({ ...options, token: "wrong" });
    try {
      const response = await wrong.watch(configmaps, { namespace: "default" });
      await response.body?.cancel();
      refused = "accepted";
    } catch (error) {
      refused = error instanceof KubeApiError ? error.code : String(error);
    }
    const report: WebSocketReport = { synced, live, errors, refused };
    return Response.json(report);
  },
};
