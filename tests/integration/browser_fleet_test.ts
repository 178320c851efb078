// The fleet dashboard example in headless Chromium (Debian's /usr/bin/chromium, driven by
// playwright-core): one page watches four API servers on four origins over WebSockets. Three
// sync, one answers 403; the page lists the union of the three servers' pods and follows their
// changes live; a server that goes away turns its row unreachable while the others stay live.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { copyFile, mkdir } from "node:fs/promises";
import { join } from "node:path";
import { pods } from "../../src/client/resource.ts";
import { fleetKey } from "../../src/fleet/cluster_key.ts";
import { SimulatedCluster } from "@kinformer/simulator";
import type { ServedHandle } from "@kinformer/simulator/node";
import { runtime, serveHandler } from "../_serve.ts";
import { bundle, eventually, ROOT, withTempDir } from "../_runtime_process.ts";
import {
  type BrowserContextLike,
  browserSkipReason,
  launchChromium,
  type PageLike,
  staticFiles,
} from "./_browser.ts";
import type { DashboardSnapshot } from "../../examples/browser/fleet.ts";

const skip = browserSkipReason();
if (skip !== undefined) console.log(`browser_fleet_test: skipped: ${skip}`);

const snapshot = (page: PageLike): Promise<DashboardSnapshot> =>
  page.evaluate<DashboardSnapshot>("fleetDashboard.snapshot()");

describe(`browsers: a fleet dashboard in headless Chromium (test process: ${runtime})`, () => {
  test(
    "four clusters on one page over WebSockets: the union of the servers, live; a 403 and a lost server shown per cluster",
    { skip, timeout: 30_000 },
    async () => {
      await withTempDir("browser-fleet", async (dir) => {
        const site = join(dir, "site");
        await mkdir(site);
        await bundle("examples/browser/fleet.ts", join(site, "fleet.js"), "browser");
        await copyFile(join(ROOT, "examples", "browser", "fleet.html"), join(site, "fleet.html"));
        const names = ["eu", "us", "ap", "locked"];
        const clusters = names.map((name, i) =>
          new SimulatedCluster({
            autoCreateNamespaces: true,
            seed: i + 1,
            ...(name === "locked" ? { authorization: [] } : {}),
          })
        );
        clusters.forEach((c, i) => c.seed(pods, 3 + i));
        const apis: ServedHandle[] = [];
        let pages: ServedHandle | undefined;
        let context: BrowserContextLike | undefined;
        const problems: string[] = [];
        const union = (live: string[]): string[] =>
          names.flatMap((name, i) =>
            live.includes(name) ? clusters[i]!.list(pods).map((p) => fleetKey(name, p)) : []
          ).sort();
        try {
          for (const c of clusters) apis.push(await serveHandler(c.fetch));
          pages = await serveHandler(staticFiles(site));
          const query = new URLSearchParams();
          names.forEach((name, i) => query.append("cluster", `${name}=${apis[i]!.url}`));
          context = await launchChromium(join(dir, "profile"));
          const page = await context.newPage();
          page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
          await page.goto(`${pages.url}/fleet.html?${query}`);
          const synced =
            `["eu", "us", "ap"].every((c) => fleetDashboard.snapshot().clusters[c]?.state === "synced")`;
          await page.waitForFunction(
            `${synced} && fleetDashboard.snapshot().clusters.locked?.state === "forbidden"`,
            undefined,
            { timeout: 15_000 },
          );
          let shown = await snapshot(page);
          assert.deepEqual(shown.keys, union(["eu", "us", "ap"]));
          assert.match(shown.clusters["locked"]!.reason, /^forbidden: /);
          // Each cluster's watch opens right after its list: wait for eu's, then check them.
          const watches = () => clusters[0]!.requests.filter((r) => r.verb === "watch");
          await eventually(() => watches().length > 0, "eu's watch opened", 10_000);
          assert.ok(watches().every((r) => r.webSocket === true), "every watch is a WebSocket");

          // Live: a pod added in one cluster and deleted in another.
          clusters[0]!.create(pods, { metadata: { namespace: "live", name: "new" } });
          const gone = clusters[1]!.list(pods)[0]!;
          clusters[1]!.delete(pods, {
            namespace: gone.metadata.namespace!,
            name: gone.metadata.name!,
          });
          await page.waitForFunction(
            `fleetDashboard.snapshot().keys.includes("eu|live/new") && !fleetDashboard.snapshot().keys.includes(${
              JSON.stringify(fleetKey("us", gone))
            })`,
            undefined,
            { timeout: 10_000 },
          );
          shown = await snapshot(page);
          assert.deepEqual(shown.keys, union(["eu", "us", "ap"]));

          // A server goes away: its row turns unreachable, its pods stay listed (stale), and
          // the other clusters stay live.
          await apis[2]!.close();
          clusters[2]!.close();
          await page.waitForFunction(
            `fleetDashboard.snapshot().clusters.ap?.state === "unreachable"`,
            undefined,
            { timeout: 10_000 },
          );
          clusters[0]!.create(pods, { metadata: { namespace: "live", name: "after" } });
          await page.waitForFunction(
            `fleetDashboard.snapshot().keys.includes("eu|live/after")`,
            undefined,
            { timeout: 10_000 },
          );
          shown = await snapshot(page);
          assert.equal(shown.clusters["eu"]!.state, "synced");
          assert.equal(shown.clusters["ap"]!.objects, 5, "kept, marked stale");
          console.log(
            `fleet dashboard: ${shown.keys.length} pods of ${names.length} clusters on one page; ` +
              Object.entries(shown.clusters).map(([n, c]) => `${n} ${c.state}`).join(", "),
          );
          assert.deepEqual(problems, []);
        } finally {
          await context?.close();
          for (const c of clusters) if (!c.closed) c.close();
          for (const api of apis) await api.close().catch(() => {});
          await pages?.close();
        }
      });
    },
  );
});
