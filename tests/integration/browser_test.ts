// The browser example in headless Chromium (Debian's /usr/bin/chromium, driven by
// playwright-core): a page served from one origin starts a Web Worker whose informer watches a
// simulated cluster on another origin (CORS), and posts the changes back to the page.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { copyFile, mkdir } from "node:fs/promises";
import { join } from "node:path";
import { configmaps } from "../../src/client/resource.ts";
import { SimulatedCluster } from "@kinformer/simulator";
import type { ServedHandle } from "@kinformer/simulator/node";
import { runtime, serveHandler } from "../_serve.ts";
import { bundle, ROOT, withTempDir } from "../_runtime_process.ts";
import {
  type BrowserContextLike,
  browserSkipReason,
  launchChromium,
  staticFiles,
} from "./_browser.ts";

const skip = browserSkipReason();
if (skip !== undefined) console.log(`browser_test: skipped: ${skip}`);

describe(`browsers: headless Chromium (test process: ${runtime})`, () => {
  test(
    "a Web Worker's informer syncs from a cross-origin API server and posts live changes to the page",
    {
      skip,
      timeout: 20_000,
    },
    async () => {
      await withTempDir("browser", async (dir) => {
        const site = join(dir, "site");
        await mkdir(site);
        await bundle("examples/browser/worker.ts", join(site, "worker.js"), "browser");
        await copyFile(join(ROOT, "examples", "browser", "index.html"), join(site, "index.html"));

        const cluster = new SimulatedCluster({ autoCreateNamespaces: true });
        let api: ServedHandle | undefined;
        let pages: ServedHandle | undefined;
        let context: BrowserContextLike | undefined;
        const problems: string[] = [];
        try {
          cluster.create(configmaps, { metadata: { namespace: "default", name: "a" } });
          cluster.create(configmaps, { metadata: { namespace: "default", name: "b" } });
          cluster.create(configmaps, { metadata: { namespace: "other", name: "elsewhere" } });
          api = await serveHandler(cluster.fetch);
          pages = await serveHandler(staticFiles(site));
          assert.notEqual(new URL(api.url).origin, new URL(pages.url).origin, "two origins");

          context = await launchChromium(join(dir, "profile"));
          const page = await context.newPage();
          page.on("console", (m) => {
            if (m.type() === "error") problems.push(`console: ${m.text()}`);
          });
          page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));

          const query = new URLSearchParams({ server: api.url, namespace: "default" });
          await page.goto(`${pages.url}/index.html?${query}`);
          await page.waitForFunction(`document.body.dataset.synced === "true"`, undefined, {
            timeout: 10_000,
          });

          cluster.create(configmaps, { metadata: { namespace: "default", name: "c" } });
          cluster.patch(configmaps, { namespace: "default", name: "a" }, { data: { v: "2" } });
          cluster.delete(configmaps, { namespace: "default", name: "b" });
          cluster.create(configmaps, { metadata: { namespace: "other", name: "not-followed" } });
          await page.waitForFunction(`Number(document.body.dataset.changes) >= 3`, undefined, {
            timeout: 10_000,
          });

          const log = (await page.textContent("#log") ?? "").trim().split("\n");
          assert.deepEqual(log, [
            "ADD default/a (initial)",
            "ADD default/b (initial)",
            "SYNCED 2 objects",
            "ADD default/c",
            "UPDATE default/a",
            "DELETE default/b",
          ], problems.join("\n"));
          assert.deepEqual(problems, []);
          const verbs = cluster.requests.map((r) => r.verb);
          assert.deepEqual(verbs.slice(0, 2), ["list", "watch"]);
          // The worker's client says watchTransport "auto": in a browser, that is a WebSocket.
          assert.equal(cluster.requests[1]!.webSocket, true, "the watch went over a WebSocket");
          assert.ok(cluster.requests.every((r) => r.namespace === "default"));
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
