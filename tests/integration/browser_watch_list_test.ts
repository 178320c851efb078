// Compressed streaming lists in headless Chromium (Debian's /usr/bin/chromium, driven by
// playwright-core). kube-apiserver 1.37 gzips a streaming list (`sendInitialEvents=true`) when
// asked for gzip, one gzip member per flush, and the simulated cluster does the same. A page
// cannot ask for identity (Accept-Encoding is a forbidden header) and Chromium's fetch reads only
// the first member and nothing after it (the body ends, cleanly, when the server ends the watch). So an informer in a browser does not stream its
// initial list over HTTP: it LISTs (no cut stream plus LIST at every relist); over a WebSocket
// (never compressed) it streams.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { pods } from "../../src/client/resource.ts";
import { SimulatedCluster } from "@kinformer/simulator";
import type { ServedHandle } from "@kinformer/simulator/node";
import { runtime, serveHandler } from "../_serve.ts";
import { bundle, eventually, withTempDir } from "../_runtime_process.ts";
import { ManualClock } from "../../src/testing/manual_clock.ts";
import type { RawRead, SyncResult } from "./_browser_watch_list_page.ts";
import {
  type BrowserContextLike,
  browserSkipReason,
  launchChromium,
  staticFiles,
} from "./_browser.ts";

const skip = browserSkipReason();
if (skip !== undefined) console.log(`browser_watch_list_test: skipped: ${skip}`);

const PODS = 30;
const WATCH_LIST = "/api/v1/pods?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan" +
  "&allowWatchBookmarks=true";

describe(`browsers: compressed streaming lists in headless Chromium (test process: ${runtime})`, () => {
  test(
    "Chromium's fetch reads one gzip member of a 1.37 streaming list; informers LIST over HTTP and stream over a WebSocket",
    { skip, timeout: 40_000 },
    async () => {
      await withTempDir("browser-watch-list", async (dir) => {
        const site = join(dir, "site");
        await mkdir(site);
        await bundle(
          "tests/integration/_browser_watch_list_page.ts",
          join(site, "page.js"),
          "browser",
        );
        await writeFile(
          join(site, "index.html"),
          '<!doctype html><html><head><link rel="icon" href="data:,"></head>' +
            '<body><script type="module" src="page.js"></script></body></html>',
        );
        // The cluster's clock ends the raw watch (timeoutSeconds) when the test says.
        const clock = new ManualClock();
        const cluster = new SimulatedCluster({ clock });
        cluster.seed(pods, PODS);
        /** The Accept-Encoding and Content-Encoding of each streaming list over HTTP. */
        const encodings: Array<{ asked: string | null; answered: string | null }> = [];
        let api: ServedHandle | undefined;
        let pages: ServedHandle | undefined;
        let context: BrowserContextLike | undefined;
        const problems: string[] = [];
        try {
          api = await serveHandler(async (request) => {
            const response = await cluster.fetch(request);
            const url = new URL(request.url);
            if (
              url.searchParams.get("sendInitialEvents") === "true" &&
              !request.headers.has("upgrade")
            ) {
              encodings.push({
                asked: request.headers.get("accept-encoding"),
                answered: response.headers.get("content-encoding"),
              });
            }
            return response;
          });
          pages = await serveHandler(staticFiles(site));
          context = await launchChromium(join(dir, "profile"));
          const page = await context.newPage();
          page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
          await page.goto(`${pages.url}/index.html`);
          await page.waitForFunction(`document.body.dataset.ready === "true"`, undefined, {
            timeout: 10_000,
          });

          // The browser's own fetch: the page's identity is dropped, the list comes gzipped,
          // and Chromium delivers the first member (one event) and nothing more; when the
          // server ends the watch (its timeoutSeconds, after every event and the end
          // bookmark were sent), the body ends cleanly.
          const reading = page.evaluate<RawRead>(
            `watchList.raw(${JSON.stringify(`${api.url}${WATCH_LIST}&timeoutSeconds=60`)})`,
          );
          await eventually(() => encodings.length === 1, "the streaming list was asked", 10_000);
          await clock.advance(60_000);
          const raw = await reading;
          assert.equal(encodings.length, 1);
          assert.match(encodings[0]!.asked ?? "", /gzip/);
          assert.equal(encodings[0]!.answered, "gzip");
          assert.deepEqual(raw, { lines: 1, endedEarly: true });
          console.log(
            `Chromium fetch: asked ${encodings[0]!.asked}; read ${raw.lines} of ${PODS + 1} ` +
              "events, then a clean end",
          );

          // An informer with initialList "stream" over HTTP: a LIST (then a plain watch).
          const before = cluster.requests.length;
          const overHttp = await page.evaluate<SyncResult>(
            `watchList.sync(${JSON.stringify(api.url)}, "http")`,
          );
          assert.deepEqual(overHttp, { size: PODS, errors: [] });
          const httpRequests = cluster.requests.slice(before);
          assert.equal(httpRequests[0]!.verb, "list", "synced from a LIST");
          assert.ok(
            httpRequests.every((r) => r.query.sendInitialEvents === undefined),
            "no streaming list over HTTP",
          );
          assert.equal(encodings.length, 1, "no streaming list reached the server");

          // Over a WebSocket the streaming list is never compressed and streams whole.
          const mark = cluster.requests.length;
          const overWebSocket = await page.evaluate<SyncResult>(
            `watchList.sync(${JSON.stringify(api.url)}, "websocket")`,
          );
          assert.deepEqual(overWebSocket, { size: PODS, errors: [] });
          const wsRequests = cluster.requests.slice(mark);
          assert.equal(wsRequests[0]!.verb, "watch");
          assert.equal(wsRequests[0]!.webSocket, true);
          assert.equal(wsRequests[0]!.query.sendInitialEvents, "true");
          assert.ok(wsRequests.every((r) => r.verb !== "list"), "no LIST");
          assert.deepEqual(problems, []);
        } finally {
          await context?.close();
          cluster.close();
          await pages?.close();
          await api?.close();
        }
      });
    },
  );
});
