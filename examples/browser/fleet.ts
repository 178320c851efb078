/// <reference lib="dom" />
// A fleet dashboard in the browser: N clusters on one page, each watched over a WebSocket
// (transport "auto": in a browser, WebSockets are not drawn from the six connections HTTP/1.1
// allows per origin), with each cluster's state and the pods of the whole fleet, live.
//
//   npx esbuild examples/browser/fleet.ts --bundle --format=esm --outfile=examples/browser/fleet.js
//   npx http-server examples/browser   # or any static server, then open
//   http://127.0.0.1:8080/fleet.html?cluster=eu=https://eu.example&cluster=us=https://us.example
//
// Query: `cluster=<name>=<API server URL>`, once per cluster (each server must allow this page's
// origin with CORS); `token` (one bearer token for every cluster; for experiments only, it ends
// up in the history); `resource` (pods, the default, or configmaps). For automation,
// `globalThis.fleetDashboard.snapshot()` returns what the page shows.
import { configmaps, KubeClient, pods } from "../../mod.ts";
import { type ClusterState, Fleet, fleetKey } from "../../src/fleet/mod.ts";

/** What the page shows, for a test or a curious console. */
export interface DashboardSnapshot {
  /** Each cluster's state and objects shown, by name. */
  clusters: Record<string, { state: ClusterState; reason: string; objects: number }>;
  /** Every fleet key listed, sorted. */
  keys: string[];
}

const params = new URLSearchParams(location.search);
const token = params.get("token") ?? undefined;
const resource = params.get("resource") === "configmaps" ? configmaps : pods;
const clusters = params.getAll("cluster").map((entry) => {
  const eq = entry.indexOf("=");
  return { name: entry.slice(0, eq), server: entry.slice(eq + 1) };
});

// Errors go to the console by the default of every kinformer object: the first of each kind at
// once, naming its cluster, then at most one line per kind per minute (never a flood, even with
// every cluster down); each cluster's state and last error are in the table.
const fleet = new Fleet({
  resource,
  informerOptions: () => ({ transport: "auto" }),
});

const table = document.getElementById("clusters")!;
const list = document.getElementById("objects")!;
const summary = document.getElementById("summary")!;
/** One row per cluster, one list item per object (by fleet key). */
const rows = new Map<string, HTMLTableRowElement>();
const items = new Map<string, HTMLLIElement>();

function row(cluster: string): HTMLTableRowElement {
  let tr = rows.get(cluster);
  if (tr === undefined) {
    tr = document.createElement("tr");
    tr.dataset.cluster = cluster;
    for (let i = 0; i < 4; i++) tr.append(document.createElement("td"));
    tr.cells[0]!.textContent = cluster;
    table.append(tr);
    rows.set(cluster, tr);
  }
  return tr;
}

/** Redraws the cluster table from `fleet.health()` (cheap: one row per cluster). */
function drawClusters(): void {
  const h = fleet.health();
  for (const c of h.clusters) {
    const tr = row(c.name);
    tr.dataset.state = c.state;
    tr.className = c.stale ? "stale" : c.state;
    tr.cells[1]!.textContent = c.state;
    tr.cells[2]!.textContent = String(c.objects);
    tr.cells[3]!.textContent = c.reason;
  }
  summary.textContent =
    `${fleet.store.size} ${resource.resource} in ${fleet.clusters().length} clusters (${h.state})`;
}

function show(cluster: string, object: { metadata: { namespace?: string; name?: string } }): void {
  const key = fleetKey(cluster, object);
  let li = items.get(key);
  if (li === undefined) {
    li = document.createElement("li");
    li.dataset.key = key;
    li.textContent = key;
    items.set(key, li);
    list.append(li);
  }
}

function hide(cluster: string, object: { metadata: { namespace?: string; name?: string } }): void {
  const key = fleetKey(cluster, object);
  items.get(key)?.remove();
  items.delete(key);
}

for (const { name, server } of clusters) {
  fleet.engage(name, new KubeClient({ server, token }));
}
drawClusters();

(async () => {
  for await (const ev of fleet.events()) {
    switch (ev.type) {
      case "add":
      case "update":
        show(ev.cluster, ev.object);
        break;
      case "delete":
        hide(ev.cluster, ev.object);
        break;
      case "synced":
      case "state":
        break;
    }
    drawClusters();
  }
})();

const dashboard = {
  fleet,
  snapshot(): DashboardSnapshot {
    const out: DashboardSnapshot = { clusters: {}, keys: [...items.keys()].sort() };
    for (const tr of rows.values()) {
      out.clusters[tr.dataset.cluster!] = {
        state: tr.dataset.state as ClusterState,
        reason: tr.cells[3]!.textContent ?? "",
        objects: Number(tr.cells[2]!.textContent),
      };
    }
    return out;
  },
};
(globalThis as { fleetDashboard?: typeof dashboard }).fleetDashboard = dashboard;
document.body.dataset.ready = "true";
