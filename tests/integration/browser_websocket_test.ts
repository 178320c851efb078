// Why watches go over WebSockets in browsers, shown in headless Chromium (Debian's
// /usr/bin/chromium, driven by playwright-core): a page on one origin starts ten informers on an
// API server on another origin served over HTTP/1.1 (by the Node adapter, testing/node). Over
// chunked HTTP watches, the page's six connections to that origin are all held by watches after
// the sixth informer, and the other four cannot even send their LIST until a connection is given
// back. Over WebSockets (not drawn from that pool) all ten sync and receive live events, with the
// token sent as a subprotocol and the Origin the browser sets.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { configmaps } from "../../src/client/resource.ts";
import { SimulatedCluster } from "@kinformer/simulator";
import { serve } from "../../src/adapters/node/serve.ts";
import type { ServedHandle } from "@kinformer/simulator/node";
import { runtime } from "../_serve.ts";
import { bundle, eventually, withTempDir } from "../_runtime_process.ts";
import type { PageState } from "./_browser_informers_page.ts";
import {
  type BrowserContextLike,
  browserSkipReason,
  launchChromium,
  type PageLike,
  staticFiles,
} from "./_browser.ts";

const TOKEN = "browser-t0ken";
const INFORMERS = 10;
/** Chromium's connections per host for HTTP/1.1 (the per-origin limit every browser has). */
const POOL = 6;

const skip = browserSkipReason();
if (skip !== undefined) console.log(`browser_websocket_test: skipped: ${skip}`);

/** One API server (a simulated cluster on its own origin) and what the page did with it. */
interface Api {
  cluster: SimulatedCluster;
  server: ServedHandle;
}

async function startApi(): Promise<Api> {
  const cluster = new SimulatedCluster({ token: TOKEN });
  cluster.create(configmaps, { metadata: { namespace: "default", name: "seed" } });
  return { cluster, server: await serve(cluster.fetch) };
}

const state = (page: PageLike): Promise<PageState> =>
  page.evaluate<PageState>("JSON.parse(JSON.stringify(informers.state))");

const openWatches = (api: Api, webSocket: boolean): number =>
  api.cluster.openWatches === 0
    ? 0
    : api.cluster.requests.filter((r) => r.verb === "watch" && (r.webSocket === true) === webSocket)
      .length;

describe(`browsers: ten informers on one origin in headless Chromium (test process: ${runtime})`, () => {
  test(
    "over HTTP/1.1 chunked watches the informers after the sixth stall; over WebSockets all ten sync and get live events",
    { skip, timeout: 30_000 },
    async () => {
      await withTempDir("browser-ws", async (dir) => {
        const site = join(dir, "site");
        await mkdir(site);
        await bundle(
          "tests/integration/_browser_informers_page.ts",
          join(site, "page.js"),
          "browser",
        );
        await writeFile(
          join(site, "index.html"),
          '<!doctype html><html><head><link rel="icon" href="data:,"></head>' +
            '<body><script type="module" src="page.js"></script></body></html>',
        );
        const http = await startApi();
        const ws = await startApi();
        const pages = await serve(staticFiles(site));
        let context: BrowserContextLike | undefined;
        const problems: string[] = [];
        try {
          const browser = context = await launchChromium(join(dir, "profile"));
          /** A new page that starts the informers on `api` with this watch transport. */
          const startInformers = async (
            api: Api,
            transport: "http" | "auto",
          ): Promise<PageLike> => {
            const page = await browser.newPage();
            page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
            await page.goto(`${pages.url}/index.html`);
            await page.waitForFunction(`document.body.dataset.ready === "true"`, undefined, {
              timeout: 10_000,
            });
            await page.evaluate(
              `informers.start(${JSON.stringify(api.server.url)}, ${
                JSON.stringify(TOKEN)
              }, ${INFORMERS}, ${JSON.stringify(transport)})`,
            );
            return page;
          };

          // --- HTTP/1.1 chunked watches ---
          const page1 = await startInformers(http, "http");
          // Six watches take the six connections; a live change reaches those six informers.
          await eventually(
            () => http.cluster.openWatches === POOL,
            "six HTTP watches open",
            10_000,
          );
          http.cluster.create(configmaps, { metadata: { namespace: "default", name: "live-1" } });
          await page1.waitForFunction(
            `informers.state.liveAdds.filter((n) => n > 0).length === ${POOL}`,
            undefined,
            { timeout: 10_000 },
          );
          const stalled = await state(page1);
          // The other four are stuck in the browser: listing or watching (their request queued
          // behind the watches), never backing off, and their requests never reached the server.
          assert.equal(stalled.liveAdds.filter((n) => n === 0).length, INFORMERS - POOL);
          assert.ok(
            stalled.states.every((s) => s === "listing" || s === "watching"),
            JSON.stringify(stalled.states),
          );
          const sent = (verb: string) =>
            http.cluster.requests.filter((r) => r.verb === verb).length;
          assert.equal(sent("watch"), POOL, "only six watch requests were sent");
          assert.equal(openWatches(http, false), POOL);
          // Giving one connection back (an informer that watches stops) lets the queue move:
          // one more watch opens in its place, and still no more than six.
          const watching = stalled.liveAdds.findIndex((n) => n > 0);
          await page1.evaluate(`informers.stop(${watching})`);
          await eventually(() => sent("watch") === POOL + 1, "a seventh watch request", 10_000);
          await eventually(() => http.cluster.openWatches === POOL, "six watches again", 10_000);
          console.log(
            `HTTP/1.1: ${POOL}/${INFORMERS} informers watching and getting live events, ` +
              `${INFORMERS - POOL} stalled (${stalled.synced.length} had completed their LIST); ` +
              `one informer stopped: one more watch`,
          );

          // --- WebSocket watches (transport "auto", as the README advises for browsers),
          // against another API server origin ---
          const page2 = await startInformers(ws, "auto"); // "auto" picks WebSockets in a browser
          await page2.waitForFunction(`informers.state.synced.length === ${INFORMERS}`, undefined, {
            timeout: 10_000,
          });
          await eventually(
            () => ws.cluster.openWatches === INFORMERS,
            "ten WebSocket watches open",
            10_000,
          );
          ws.cluster.create(configmaps, { metadata: { namespace: "default", name: "live-1" } });
          await page2.waitForFunction(
            `informers.state.liveAdds.every((n) => n === 1)`,
            undefined,
            { timeout: 10_000 },
          );
          const all = await state(page2);
          assert.equal(all.synced.length, INFORMERS);
          assert.deepEqual(all.liveAdds, Array(INFORMERS).fill(1));
          const watches = ws.cluster.requests.filter((r) => r.verb === "watch");
          assert.equal(watches.length, INFORMERS);
          assert.ok(watches.every((r) => r.webSocket === true), "every watch was a WebSocket");
          console.log(
            `WebSocket: ${all.synced.length}/${INFORMERS} informers synced, ` +
              `${all.liveAdds.filter((n) => n === 1).length} got the live event`,
          );
          assert.deepEqual([...stalled.errors, ...all.errors], []);
          assert.deepEqual(problems, []);
        } finally {
          await context?.close();
          for (const api of [http, ws]) {
            api.cluster.close();
            await api.server.close();
          }
          await pages.close();
        }
      });
    },
  );
});
