/**
 * Aggregated discovery (`apidiscovery.k8s.io/v2`, and `v2beta1` for older clients): one
 * `APIGroupDiscoveryList` for `/api` and one for `/apis`, with every version's resources,
 * verbs, short names, categories and subresources, when the `Accept` header asks for it
 * (`application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList`, what client-go
 * sends first). Without it, `/api` and `/apis` answer the legacy documents and clients make one
 * request per group version. Built from the same model as the legacy documents.
 * @module
 */
import type { DiscoveredGroup, DiscoveredResource, DiscoveryModel } from "./discovery.ts";
import { COMMON_HEADERS } from "../../core/status.ts";

/** The aggregated discovery version `accept` asks for (`v2` or `v2beta1`), if any. */
export function aggregatedDiscoveryVersion(accept: string | null): string | undefined {
  if (accept === null) return undefined;
  for (const range of accept.split(",")) {
    const [type = "", ...params] = range.split(";").map((p) => p.trim());
    const media = type.toLowerCase();
    if (media !== "application/json" && media !== "*/*" && media !== "application/*") continue;
    const p = new Map<string, string>();
    for (const param of params) {
      const eq = param.indexOf("=");
      if (eq > 0) p.set(param.slice(0, eq).trim().toLowerCase(), param.slice(eq + 1).trim());
    }
    if (!p.has("as") && !p.has("g")) return undefined; // plain JSON comes first: legacy
    if (p.get("g") !== "apidiscovery.k8s.io" || p.get("as") !== "APIGroupDiscoveryList") continue;
    const v = p.get("v");
    if (v === "v2" || v === "v2beta1") return v;
  }
  return undefined;
}

function resource(r: DiscoveredResource): unknown {
  return {
    resource: r.resource,
    responseKind: { group: r.group, version: r.version, kind: r.kind },
    scope: r.namespaced ? "Namespaced" : "Cluster",
    singularResource: r.singular,
    verbs: r.verbs,
    ...(r.shortNames.length > 0 ? { shortNames: r.shortNames } : {}),
    ...(r.categories.length > 0 ? { categories: r.categories } : {}),
    ...(r.subresources.length > 0
      ? {
        subresources: r.subresources.map((s) => ({
          subresource: s.name,
          responseKind: { group: s.group, version: s.version, kind: s.kind },
          verbs: s.verbs,
        })),
      }
      : {}),
  };
}

function group(g: DiscoveredGroup): unknown {
  return {
    metadata: g.name === ""
      ? { creationTimestamp: null }
      : { name: g.name, creationTimestamp: null },
    versions: g.versions.map((v) => ({
      version: v.version,
      resources: v.resources.map(resource),
      freshness: "Current",
    })),
  };
}

/** The aggregated discovery answer of `/api` (`core`) or `/apis`, in `version`. */
export function aggregatedDiscovery(
  model: DiscoveryModel,
  core: boolean,
  version: string,
): Response {
  const items = core
    ? (model.core.versions.length > 0 ? [group(model.core)] : [])
    : model.groups.map(group);
  const body = {
    kind: "APIGroupDiscoveryList",
    apiVersion: `apidiscovery.k8s.io/${version}`,
    metadata: {},
    items,
  };
  return new Response(JSON.stringify(body), {
    status: 200,
    headers: {
      ...COMMON_HEADERS,
      "Content-Type":
        `application/json;g=apidiscovery.k8s.io;v=${version};as=APIGroupDiscoveryList`,
      Vary: "Accept",
    },
  });
}
