// The page script of browser_watch_list_test.ts (bundled for Chromium): reads a streaming list
// with the page's own fetch, and syncs informers with `initialList: "stream"` over HTTP and over
// a WebSocket, keeping what happened on `globalThis.watchList` for the test to read.
import { createInformer, KubeClient, pods } from "../../mod.ts";

/** What a raw read of a streaming list saw. */
export interface RawRead {
  /** Event lines read. */
  lines: number;
  /** Whether the body ended (cleanly) before the initial-events-end bookmark. */
  endedEarly: boolean;
}

/** What an informer's sync gave. */
export interface SyncResult {
  size: number;
  errors: string[];
}

interface PageApi {
  raw(url: string): Promise<RawRead>;
  sync(server: string, transport: "http" | "websocket"): Promise<SyncResult>;
}

const api: PageApi = {
  async raw(url) {
    // The page asks for identity; a browser drops the header (Accept-Encoding is forbidden).
    const response = await fetch(url, {
      headers: { "accept-encoding": "identity" },
      signal: AbortSignal.timeout(20_000), // a bound for the test, never reached when it passes
    });
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let text = "";
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return { lines: count(text), endedEarly: !text.includes("initial-events-end") };
      text += decoder.decode(value, { stream: true });
      if (text.includes("initial-events-end")) {
        await reader.cancel();
        return { lines: count(text), endedEarly: false };
      }
    }
  },
  async sync(server, transport) {
    const client = new KubeClient({ server, watchTransport: transport });
    const errors: string[] = [];
    const informer = createInformer(client, {
      resource: pods,
      initialList: "stream",
      onError: (error, context) => errors.push(`${context.kind}: ${String(error)}`),
    });
    informer.start();
    try {
      await informer.waitForSync({ signal: AbortSignal.timeout(10_000) });
      return { size: informer.store.size, errors };
    } finally {
      await informer.stop();
    }
  },
};

function count(text: string): number {
  return text.split("\n").filter((line) => line !== "").length;
}

(globalThis as unknown as { watchList: PageApi }).watchList = api;
/** The part of the page's `document` used (these files are type-checked without DOM globals). */
const page = globalThis as unknown as { document: { body: { dataset: Record<string, string> } } };
page.document.body.dataset.ready = "true";
