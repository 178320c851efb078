/**
 * Maps a request (method, path, query) to what it asks of the API server.
 * @module
 */
import type { RequestVerb } from "../faults/cluster_faults.ts";
import type { ResourceInfo } from "../../model/registry/served_resources.ts";

/** A routed request. */
export type Route =
  | { kind: "discovery" }
  | { kind: "notFound"; verb: RequestVerb }
  | { kind: "methodNotAllowed"; verb: RequestVerb; info: ResourceInfo }
  | {
    kind: "resource";
    verb: Exclude<RequestVerb, "discovery">;
    info: ResourceInfo;
    namespace: string | undefined;
    name: string | undefined;
    subresource: string | undefined;
    /** The legacy `/watch/` path prefix was used. */
    watchPath: boolean;
  };

function isWatchQuery(query: URLSearchParams): boolean {
  const w = query.get("watch");
  return w === "1" || w === "true";
}

/** Routes a request against the served resources. */
export function route(
  method: string,
  path: string,
  query: URLSearchParams,
  resources: readonly ResourceInfo[],
): Route {
  let segments: string[];
  try {
    segments = path.split("/").filter((s) => s !== "").map((s) => decodeURIComponent(s));
  } catch {
    return { kind: "notFound", verb: "get" };
  }
  const readVerb: RequestVerb = method === "GET" ? "get" : "discovery";
  let group = "";
  let version: string;
  let rest: string[];
  if (segments[0] === "api") {
    if (segments.length === 1) return { kind: "discovery" };
    version = segments[1]!;
    rest = segments.slice(2);
  } else if (segments[0] === "apis") {
    if (segments.length <= 2) return { kind: "discovery" };
    group = segments[1]!;
    version = segments[2]!;
    rest = segments.slice(3);
  } else {
    return { kind: "discovery" };
  }
  if (rest.length === 0) return { kind: "discovery" };
  const lookup = (name: string | undefined): ResourceInfo | undefined =>
    resources.find((r) =>
      (r.desc.group ?? "") === group && r.desc.version === version && r.desc.resource === name
    );
  let watchPath = false;
  if (rest[0] === "watch") {
    watchPath = true;
    rest = rest.slice(1);
  }
  let namespace: string | undefined;
  if (rest[0] === "namespaces" && rest.length >= 3 && lookup(rest[2])?.desc.namespaced) {
    namespace = rest[1];
    rest = rest.slice(2);
  }
  const info = lookup(rest[0]);
  if (!info || rest.length > 3) return { kind: "notFound", verb: readVerb };
  const name = rest[1];
  const subresource = rest[2];
  if (
    subresource !== undefined &&
    !(subresource === "status" && info.statusSubresource) &&
    !(subresource === "scale" && info.scaleSubresource)
  ) {
    return { kind: "notFound", verb: readVerb };
  }
  if (name !== undefined && info.desc.namespaced && namespace === undefined) {
    return { kind: "notFound", verb: readVerb };
  }
  let verb: Exclude<RequestVerb, "discovery"> | undefined;
  switch (method) {
    case "GET":
      verb = name === undefined
        ? (watchPath || isWatchQuery(query) ? "watch" : "list")
        : (watchPath || isWatchQuery(query) ? "watch" : "get");
      break;
    case "POST":
      if (name === undefined && !watchPath) verb = "create";
      break;
    case "PUT":
      if (name !== undefined && !watchPath) verb = "update";
      break;
    case "PATCH":
      if (name !== undefined && !watchPath) verb = "patch";
      break;
    case "DELETE":
      if (name !== undefined && !watchPath && subresource === undefined) verb = "delete";
      break;
  }
  if (verb === undefined) {
    const v: RequestVerb = method === "POST"
      ? "create"
      : method === "PUT"
      ? "update"
      : method === "PATCH"
      ? "patch"
      : method === "DELETE"
      ? "delete"
      : "get";
    return { kind: "methodNotAllowed", verb: v, info };
  }
  return { kind: "resource", verb, info, namespace, name, subresource, watchPath };
}
