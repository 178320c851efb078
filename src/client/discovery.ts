/**
 * What resources the server serves: aggregated discovery (`apidiscovery.k8s.io/v2`, GA in
 * Kubernetes 1.30: two requests, `/api` and `/apis`) with a fallback to legacy discovery (one
 * request per group version).
 * @module
 */
import type { KubeClient } from "./kube_client.ts";
import { KubeApiError } from "./errors.ts";
import { isRecord } from "../util/values.ts";

/** One resource the server serves, as discovery describes it. */
export interface DiscoveredResource {
  /** API group (`""` for the core group). */
  readonly group: string;
  /** Version within the group. */
  readonly version: string;
  /** Plural resource name (`pods`). */
  readonly resource: string;
  /** Kind of its objects (`Pod`). */
  readonly kind: string;
  /** Whether its objects live in namespaces. */
  readonly namespaced: boolean;
  /** Verbs it supports (`list`, `watch`, ...). */
  readonly verbs: readonly string[];
  /** Whether `version` is the group's preferred version. */
  readonly preferred: boolean;
}

/** Options of {@linkcode discoverResources}. */
export interface DiscoverOptions {
  /** Aborts discovery. @default undefined */
  signal?: AbortSignal | undefined;
}

/** The `Accept` header of aggregated discovery, with legacy JSON as the fallback. Internal. */
export const AGGREGATED_DISCOVERY_ACCEPT =
  "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json";

/**
 * Every resource the server serves (subresources left out), in discovery's order. Asks for
 * aggregated discovery first (`/api` and `/apis`, two requests, as client-go does since 1.30);
 * a server that answers with the legacy documents instead (before 1.26, or with the feature
 * off) is read the legacy way: `/api`, `/apis`, then each group version. In legacy discovery,
 * a group version that fails (an aggregated API server that is down answers 503) is left out,
 * as aggregated discovery leaves out what it cannot reach; other failures reject (a
 * `KubeApiError` or `KubeNetworkError`).
 *
 * @example
 * ```ts
 * import { discoverResources, KubeClient } from "@kinformer/kinformer/client";
 * import { SimulatedCluster } from "@kinformer/kinformer/testing";
 * import assert from "node:assert/strict";
 * const cluster = new SimulatedCluster();
 * const client = new KubeClient({ server: "http://sim", fetch: cluster.fetch });
 * const resources = await discoverResources(client);
 * const pods = resources.find((r) => r.group === "" && r.resource === "pods");
 * assert.deepEqual(pods?.kind, "Pod");
 * cluster.close();
 * ```
 */
export async function discoverResources(
  client: KubeClient,
  options: DiscoverOptions = {},
): Promise<DiscoveredResource[]> {
  const { signal } = options;
  const out: DiscoveredResource[] = [];
  const legacyGroups: unknown[] = [];
  for (const path of ["/api", "/apis"]) {
    const response = await client.request(path, {
      headers: { accept: AGGREGATED_DISCOVERY_ACCEPT },
      signal,
    });
    const body: unknown = await response.json();
    if (isRecord(body) && body.kind === "APIGroupDiscoveryList" && Array.isArray(body.items)) {
      for (const group of body.items) out.push(...aggregatedGroup(group));
    } else legacyGroups.push(...legacyGroupVersions(path, body));
  }
  for (const gv of legacyGroups as LegacyGroupVersion[]) {
    let body: unknown;
    try {
      const response = await client.request(gv.path, { signal });
      body = await response.json();
    } catch (error) {
      if (error instanceof KubeApiError && error.code === 503) continue;
      throw error;
    }
    out.push(...legacyResources(gv, body));
  }
  return out;
}

/** The resources of one `APIGroupDiscovery`. */
function aggregatedGroup(group: unknown): DiscoveredResource[] {
  if (!isRecord(group) || !Array.isArray(group.versions)) return [];
  const name = isRecord(group.metadata) && typeof group.metadata.name === "string"
    ? group.metadata.name
    : "";
  const out: DiscoveredResource[] = [];
  // Versions come in preference order: the first is the preferred one.
  group.versions.forEach((v: unknown, i: number) => {
    if (!isRecord(v) || typeof v.version !== "string" || !Array.isArray(v.resources)) return;
    for (const r of v.resources) {
      if (!isRecord(r) || typeof r.resource !== "string") continue;
      const kind = isRecord(r.responseKind) && typeof r.responseKind.kind === "string"
        ? r.responseKind.kind
        : "";
      out.push({
        group: name,
        version: v.version,
        resource: r.resource,
        kind,
        namespaced: r.scope === "Namespaced",
        verbs: strings(r.verbs),
        preferred: i === 0,
      });
    }
  });
  return out;
}

/** A group version to read in legacy discovery. */
interface LegacyGroupVersion {
  group: string;
  version: string;
  preferred: boolean;
  path: string;
}

/** The group versions a legacy `/api` (`APIVersions`) or `/apis` (`APIGroupList`) names. */
function legacyGroupVersions(path: string, body: unknown): LegacyGroupVersion[] {
  if (!isRecord(body)) return [];
  if (path === "/api") {
    return strings(body.versions).map((version, i) => ({
      group: "",
      version,
      preferred: i === 0,
      path: `/api/${version}`,
    }));
  }
  const out: LegacyGroupVersion[] = [];
  for (const g of Array.isArray(body.groups) ? body.groups : []) {
    if (!isRecord(g) || typeof g.name !== "string" || !Array.isArray(g.versions)) continue;
    const preferred = isRecord(g.preferredVersion) ? g.preferredVersion.version : undefined;
    for (const v of g.versions) {
      if (!isRecord(v) || typeof v.version !== "string") continue;
      out.push({
        group: g.name,
        version: v.version,
        preferred: v.version === preferred,
        path: `/apis/${g.name}/${v.version}`,
      });
    }
  }
  return out;
}

/** The resources of a legacy `APIResourceList` (subresources, `pods/log`, left out). */
function legacyResources(gv: LegacyGroupVersion, body: unknown): DiscoveredResource[] {
  if (!isRecord(body) || !Array.isArray(body.resources)) return [];
  const out: DiscoveredResource[] = [];
  for (const r of body.resources) {
    if (!isRecord(r) || typeof r.name !== "string" || r.name.includes("/")) continue;
    out.push({
      group: gv.group,
      version: gv.version,
      resource: r.name,
      kind: typeof r.kind === "string" ? r.kind : "",
      namespaced: r.namespaced === true,
      verbs: strings(r.verbs),
      preferred: gv.preferred,
    });
  }
  return out;
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
}
