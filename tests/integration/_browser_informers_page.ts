// The page script of browser_websocket_test.ts (bundled for Chromium): starts `count` informers
// on one API server origin, over HTTP or WebSocket watches, and keeps what each one saw on
// `globalThis.informers` for the test to read. Not an example: it exists to count connections.
import { configmaps, createInformer, KubeClient, type SharedInformer } from "../../mod.ts";

/** What the test reads back. */
export interface PageState {
  /** Index of each informer that has synced, in the order they did. */
  synced: number[];
  /** Live (non-initial) adds seen, per informer. */
  liveAdds: number[];
  /** Errors reported, as `index kind: message`. */
  errors: string[];
  /** Each informer's reflector state (`listing`, `watching`, ...), when read. */
  states: string[];
}

interface PageApi {
  start(
    server: string,
    token: string,
    count: number,
    transport: "http" | "websocket" | "auto",
  ): void;
  stop(index: number): Promise<void>;
  state: PageState;
}

const running: SharedInformer[] = [];
const state: PageState = { synced: [], liveAdds: [], errors: [], states: [] };

const api: PageApi = {
  get state(): PageState {
    state.states = running.map((informer) => informer.health().activity);
    return state;
  },
  start(server, token, count, transport) {
    const client = new KubeClient({ server, token, watchTransport: transport });
    for (let i = 0; i < count; i++) {
      state.liveAdds.push(0);
      const informer = createInformer(client, {
        resource: configmaps,
        namespace: "default",
        onError: (error, context) => state.errors.push(`${i} ${context.kind}: ${String(error)}`),
      });
      running.push(informer);
      informer.addEventHandler({
        onAdd: (_object, isInInitialList) => {
          if (!isInInitialList) state.liveAdds[i]!++;
        },
      });
      informer.start();
      informer.waitForSync().then(() => state.synced.push(i), () => {});
    }
  },
  async stop(index) {
    await running[index]!.stop();
  },
};

(globalThis as unknown as { informers: PageApi }).informers = api;
/** The part of the page's `document` used (these files are type-checked without DOM globals). */
const page = globalThis as unknown as { document: { body: { dataset: Record<string, string> } } };
page.document.body.dataset.ready = "true";
