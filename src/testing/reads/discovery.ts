/**
 * Discovery documents (`/version`, `/api`, `/apis`, `/api/v1`, `/apis/{group}/{version}`) in
 * the legacy JSON form: clients asking for aggregated discovery fall back to it, as they do
 * against older servers.
 * @module
 */
import type { ResourceInfo } from "../store/served_resources.ts";
import { COMMON_HEADERS, jsonResponse } from "../serving/status.ts";

const VERBS = ["create", "delete", "get", "list", "patch", "update", "watch"];

function json(body: unknown): Response {
  return jsonResponse(JSON.stringify(body), 200);
}

function resourceList(groupVersion: string, infos: readonly ResourceInfo[]): unknown {
  const resources: unknown[] = [];
  for (const i of infos) {
    resources.push({
      name: i.desc.resource,
      singularName: i.singular,
      namespaced: i.desc.namespaced,
      kind: i.desc.kind,
      verbs: VERBS,
      shortNames: i.shortNames,
      ...(i.desc.group
        ? { categories: ["all"] }
        : i.desc.kind === "Pod"
        ? { categories: ["all"] }
        : {}),
    });
    if (i.statusSubresource) {
      resources.push({
        name: `${i.desc.resource}/status`,
        singularName: "",
        namespaced: i.desc.namespaced,
        kind: i.desc.kind,
        verbs: ["get", "patch", "update"],
      });
    }
    if (i.scaleSubresource) {
      resources.push({
        name: `${i.desc.resource}/scale`,
        singularName: "",
        namespaced: i.desc.namespaced,
        group: "autoscaling",
        version: "v1",
        kind: "Scale",
        verbs: ["get", "patch", "update"],
      });
    }
  }
  return { kind: "APIResourceList", apiVersion: "v1", groupVersion, resources };
}

/** Answers a discovery path, or undefined when `path` is not one. */
export function discovery(
  path: string,
  resources: readonly ResourceInfo[],
  host: string,
): Response | undefined {
  const p = path.length > 1 && path.endsWith("/") ? path.slice(0, -1) : path;
  if (p === "/version") {
    return json({
      major: "1",
      minor: "32",
      gitVersion: "v1.32.0-kinformer.sim",
      gitCommit: "0000000000000000000000000000000000000000",
      gitTreeState: "clean",
      buildDate: "2025-01-01T00:00:00Z",
      goVersion: "go1.23.4",
      compiler: "gc",
      platform: "linux/amd64",
    });
  }
  if (p === "/healthz" || p === "/livez" || p === "/readyz") {
    return new Response("ok", {
      status: 200,
      headers: { ...COMMON_HEADERS, "Content-Type": "text/plain; charset=utf-8" },
    });
  }
  const core = resources.filter((r) => !r.desc.group);
  const groups = new Map<string, Map<string, ResourceInfo[]>>();
  for (const r of resources) {
    if (!r.desc.group) continue;
    let versions = groups.get(r.desc.group);
    if (!versions) groups.set(r.desc.group, versions = new Map());
    const list = versions.get(r.desc.version) ?? [];
    list.push(r);
    versions.set(r.desc.version, list);
  }
  const groupDoc = (name: string, versions: Map<string, ResourceInfo[]>) => {
    const vs = [...versions.keys()].map((v) => ({ groupVersion: `${name}/${v}`, version: v }));
    return { name, versions: vs, preferredVersion: vs[0] };
  };
  if (p === "/api") {
    return json({
      kind: "APIVersions",
      versions: ["v1"],
      serverAddressByClientCIDRs: [{ clientCIDR: "0.0.0.0/0", serverAddress: host }],
    });
  }
  if (p === "/apis") {
    return json({
      kind: "APIGroupList",
      apiVersion: "v1",
      groups: [...groups].map(([name, versions]) => groupDoc(name, versions)),
    });
  }
  if (p === "/api/v1") return json(resourceList("v1", core));
  const m = /^\/apis\/([^/]+)(?:\/([^/]+))?$/.exec(p);
  if (m) {
    const versions = groups.get(m[1]!);
    if (!versions) return undefined;
    if (m[2] === undefined) {
      return json({ kind: "APIGroup", apiVersion: "v1", ...groupDoc(m[1]!, versions) });
    }
    const infos = versions.get(m[2]);
    if (!infos) return undefined;
    return json(resourceList(`${m[1]}/${m[2]}`, infos));
  }
  return undefined;
}
