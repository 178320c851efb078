// The Worker of workerd_watch_list_test.ts (bundled, run in workerd): reads a streaming list with
// the Worker's own fetch, asking for the encoding the test names, and syncs an informer with
// `initialList: "stream"` through KubeClient, answering with what it read.
import { createInformer, KubeClient, pods } from "../../mod.ts";

/** The Worker's bindings. */
interface Env {
  KUBE_SERVER: string;
}

/** What `/raw` answers. */
export interface RawRead {
  /** The response's Content-Encoding as the Worker sees it. */
  contentEncoding: string | null;
  /** Event lines read. */
  lines: number;
  /** Whether the initial-events-end bookmark was read. */
  complete: boolean;
}

/** What `/sync` answers. */
export interface SyncReport {
  size: number;
  errors: string[];
}

const WATCH_LIST = "/api/v1/pods?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan" +
  "&allowWatchBookmarks=true&timeoutSeconds=60";

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const url = new URL(request.url);
    if (url.pathname === "/raw") {
      const response = await fetch(`${env.KUBE_SERVER}${WATCH_LIST}`, {
        headers: { "accept-encoding": url.searchParams.get("encoding") ?? "gzip" },
      });
      const reader = response.body!.getReader();
      const decoder = new TextDecoder();
      let text = "";
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        text += decoder.decode(value, { stream: true });
        if (text.includes("initial-events-end")) {
          await reader.cancel();
          break;
        }
      }
      const report: RawRead = {
        contentEncoding: response.headers.get("content-encoding"),
        lines: text.split("\n").filter((line) => line !== "").length,
        complete: text.includes("initial-events-end"),
      };
      return Response.json(report);
    }
    const client = new KubeClient({ server: env.KUBE_SERVER });
    const errors: string[] = [];
    const informer = createInformer(client, {
      resource: pods,
      initialList: "stream",
      onError: (error, context) => errors.push(`${context.kind}: ${String(error)}`),
    });
    informer.start();
    try {
      await informer.waitForSync({ signal: AbortSignal.timeout(10_000) });
      const report: SyncReport = { size: informer.store.size, errors };
      return Response.json(report);
    } finally {
      await informer.stop();
    }
  },
};
