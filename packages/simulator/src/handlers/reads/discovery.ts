/**
 * Discovery: what the simulated cluster serves, by group and version, and the legacy JSON
 * documents (`/version`, `/api`, `/apis`, `/api/v1`, `/apis/{group}/{version}`). Aggregated
 * discovery (`aggregated_discovery.ts`) answers `/api` and `/apis` from the same model, so both
 * forms always agree.
 * @module
 */
import type { ResourceInfo } from "../../model/registry/served_resources.ts";
import { COMMON_HEADERS, jsonResponse } from "../../core/status.ts";

/** The verbs of a stored resource. */
const VERBS: readonly string[] = Object.freeze([
  "create",
  "delete",
  "get",
  "list",
  "patch",
  "update",
  "watch",
]);

/** A subresource in discovery. */
export interface DiscoveredSubresource {
  /** `status` or `scale`. */
  readonly name: string;
  /** Group of what it answers (`autoscaling` for scale). */
  readonly group: string;
  /** Version of what it answers. */
  readonly version: string;
  /** Kind it answers (`Scale`, or the resource's own kind). */
  readonly kind: string;
  /** Verbs. */
  readonly verbs: readonly string[];
}

/** A resource in discovery. */
export interface DiscoveredResource {
  /** Group (`""` for core). */
  readonly group: string;
  /** Version. */
  readonly version: string;
  /** Plural name. */
  readonly resource: string;
  /** Kind. */
  readonly kind: string;
  /** Namespaced or cluster-scoped. */
  readonly namespaced: boolean;
  /** Singular name. */
  readonly singular: string;
  /** Short names. */
  readonly shortNames: readonly string[];
  /** Categories. */
  readonly categories: readonly string[];
  /** Verbs. */
  readonly verbs: readonly string[];
  /** Subresources. */
  readonly subresources: readonly DiscoveredSubresource[];
}

/** One version of a group. */
export interface DiscoveredVersion {
  /** Version. */
  readonly version: string;
  /** Its resources. */
  readonly resources: readonly DiscoveredResource[];
}

/** One group, its versions preferred first. */
export interface DiscoveredGroup {
  /** Group name (`""` for core). */
  readonly name: string;
  /** Versions, the preferred one first. */
  readonly versions: readonly DiscoveredVersion[];
}

/** Everything discovery describes: the core group and the named groups, in priority order. */
export interface DiscoveryModel {
  /** The core (legacy) group, `v1`. */
  readonly core: DiscoveredGroup;
  /** The named groups: kube-apiserver's groups in its order, then custom resource groups. */
  readonly groups: readonly DiscoveredGroup[];
}

/** A create-only resource (the self reviews). */
export interface CreateOnlyResource {
  readonly group: string;
  readonly version: string;
  readonly resource: string;
  readonly kind: string;
}

/** kube-apiserver's group order in discovery (highest priority first). */
const GROUP_ORDER = [
  "apiregistration.k8s.io",
  "apps",
  "events.k8s.io",
  "authentication.k8s.io",
  "authorization.k8s.io",
  "autoscaling",
  "batch",
  "certificates.k8s.io",
  "networking.k8s.io",
  "policy",
  "rbac.authorization.k8s.io",
  "storage.k8s.io",
  "admissionregistration.k8s.io",
  "apiextensions.k8s.io",
  "scheduling.k8s.io",
  "coordination.k8s.io",
  "node.k8s.io",
  "discovery.k8s.io",
  "flowcontrol.apiserver.k8s.io",
  "resource.k8s.io",
];

/** Kubernetes version priority: GA before beta before alpha, higher numbers first. */
function versionRank(v: string): [number, number, number, string] {
  const m = /^v(\d+)(?:(alpha|beta)(\d+))?$/.exec(v);
  if (m === null) return [3, 0, 0, v];
  const stage = m[2] === undefined ? 0 : m[2] === "beta" ? 1 : 2;
  return [stage, -Number(m[1]), -Number(m[3] ?? 0), v];
}

function compareVersions(a: string, b: string): number {
  const ra = versionRank(a);
  const rb = versionRank(b);
  for (let i = 0; i < 4; i++) {
    if (ra[i]! < rb[i]!) return -1;
    if (ra[i]! > rb[i]!) return 1;
  }
  return 0;
}

function discovered(i: ResourceInfo): DiscoveredResource {
  const group = i.desc.group ?? "";
  const subresources: DiscoveredSubresource[] = [];
  if (i.statusSubresource) {
    subresources.push({
      name: "status",
      group,
      version: i.desc.version,
      kind: i.desc.kind,
      verbs: ["get", "patch", "update"],
    });
  }
  if (i.scaleSubresource) {
    subresources.push({
      name: "scale",
      group: "autoscaling",
      version: "v1",
      kind: "Scale",
      verbs: ["get", "patch", "update"],
    });
  }
  return {
    group,
    version: i.desc.version,
    resource: i.desc.resource,
    kind: i.desc.kind,
    namespaced: i.desc.namespaced,
    singular: i.singular,
    shortNames: i.shortNames,
    categories: i.categories,
    verbs: VERBS,
    subresources,
  };
}

/** The discovery model of `resources` plus the create-only `extra` ones. */
export function discoveryModel(
  resources: readonly ResourceInfo[],
  extra: readonly CreateOnlyResource[],
): DiscoveryModel {
  const all: DiscoveredResource[] = [
    ...resources.map(discovered),
    ...extra.map((e) => ({
      ...e,
      namespaced: false,
      singular: "",
      shortNames: [],
      categories: [],
      verbs: ["create"],
      subresources: [],
    })),
  ];
  const byGroup = new Map<string, Map<string, DiscoveredResource[]>>();
  for (const r of all) {
    let versions = byGroup.get(r.group);
    if (!versions) byGroup.set(r.group, versions = new Map());
    const list = versions.get(r.version) ?? [];
    list.push(r);
    versions.set(r.version, list);
  }
  const group = (name: string): DiscoveredGroup => ({
    name,
    versions: [...byGroup.get(name)!]
      .sort((a, b) => compareVersions(a[0], b[0]))
      .map(([version, list]) => ({ version, resources: list })),
  });
  const named = [...byGroup.keys()].filter((g) => g !== "");
  const rank = (g: string) => {
    const at = GROUP_ORDER.indexOf(g);
    return at < 0 ? GROUP_ORDER.length : at;
  };
  const order = named.map((g, i) => [g, rank(g), i] as const).sort((a, b) =>
    a[1] - b[1] || a[2] - b[2]
  );
  return {
    core: byGroup.has("") ? group("") : { name: "", versions: [] },
    groups: order.map(([g]) => group(g)),
  };
}

function json(body: unknown): Response {
  return jsonResponse(JSON.stringify(body), 200);
}

function resourceList(groupVersion: string, resources: readonly DiscoveredResource[]): unknown {
  const out: unknown[] = [];
  for (const r of resources) {
    out.push({
      name: r.resource,
      singularName: r.singular,
      namespaced: r.namespaced,
      kind: r.kind,
      verbs: r.verbs,
      ...(r.shortNames.length > 0 ? { shortNames: r.shortNames } : {}),
      ...(r.categories.length > 0 ? { categories: r.categories } : {}),
    });
    for (const s of r.subresources) {
      out.push({
        name: `${r.resource}/${s.name}`,
        singularName: "",
        namespaced: r.namespaced,
        ...(s.group !== r.group || s.version !== r.version
          ? { group: s.group, version: s.version }
          : {}),
        kind: s.kind,
        verbs: s.verbs,
      });
    }
  }
  return { kind: "APIResourceList", apiVersion: "v1", groupVersion, resources: out };
}

function groupDocument(g: DiscoveredGroup): unknown {
  const versions = g.versions.map((v) => ({
    groupVersion: `${g.name}/${v.version}`,
    version: v.version,
  }));
  return { name: g.name, versions, preferredVersion: versions[0] };
}

/** Answers a legacy discovery path, or undefined when `path` is not one. */
export function discovery(path: string, model: DiscoveryModel, host: string): Response | undefined {
  const p = path.length > 1 && path.endsWith("/") ? path.slice(0, -1) : path;
  if (p === "/version") {
    return json({
      major: "1",
      minor: "33",
      emulationMajor: "1",
      emulationMinor: "33",
      minCompatibilityMajor: "1",
      minCompatibilityMinor: "32",
      gitVersion: "v1.33.0-kinformer.sim",
      gitCommit: "0000000000000000000000000000000000000000",
      gitTreeState: "clean",
      buildDate: "2025-04-23T00:00:00Z",
      goVersion: "go1.24.2",
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
  if (p === "/api") {
    return json({
      kind: "APIVersions",
      versions: model.core.versions.map((v) => v.version),
      serverAddressByClientCIDRs: [{ clientCIDR: "0.0.0.0/0", serverAddress: host }],
    });
  }
  if (p === "/apis") {
    return json({
      kind: "APIGroupList",
      apiVersion: "v1",
      groups: model.groups.map(groupDocument),
    });
  }
  const core = /^\/api\/([^/]+)$/.exec(p);
  if (core) {
    const v = model.core.versions.find((v) => v.version === core[1]);
    return v === undefined ? undefined : json(resourceList(v.version, v.resources));
  }
  const m = /^\/apis\/([^/]+)(?:\/([^/]+))?$/.exec(p);
  if (m) {
    const g = model.groups.find((g) => g.name === m[1]);
    if (!g) return undefined;
    if (m[2] === undefined) {
      return json({ kind: "APIGroup", apiVersion: "v1", ...groupDocument(g) as object });
    }
    const v = g.versions.find((v) => v.version === m[2]);
    return v === undefined ? undefined : json(resourceList(`${g.name}/${v.version}`, v.resources));
  }
  return undefined;
}
