/**
 * The simulated cluster's single-object HTTP verbs: GET of one object, POST (create), PUT
 * (update, also of `/status`), PATCH (merge, strategic merge as merge, JSON patch) and DELETE
 * (with preconditions), each answering like the real API server.
 * @module
 */
import type { Status } from "../client/types.ts";
import { isRecord } from "../util/values.ts";
import { jsonPatch, mergePatch } from "./_patch.ts";
import { type BodyLimits, parseJsonBody, readBodyText, readJsonBody } from "./_request_body.ts";
import type { Route } from "./_router.ts";
import { badRequest, fail, jsonResponse, objectNotFound, unsupportedMediaType } from "./_status.ts";
import { objectKey, type ResourceState, type Store, type Version } from "./_store.ts";

/** A routed request for a served resource. */
export type ResourceRoute = Extract<Route, { kind: "resource" }>;

/** The verbs handled here. */
export type WriteVerb = "get" | "create" | "update" | "patch" | "delete";

/**
 * The current version of one object; `namespace` is ignored for cluster-scoped resources and
 * defaults to `default` for namespaced ones.
 *
 * @throws {KubeApiError} 404 NotFound.
 */
export function findObject(
  state: ResourceState,
  namespace: string | undefined,
  name: string,
): Version {
  const ns = state.info.desc.namespaced ? namespace || "default" : undefined;
  const v = state.objects.get(objectKey(ns, name));
  if (!v) {
    fail(objectNotFound(state.info.desc.resource, state.info.desc.group, name));
  }
  return v;
}

/** What the write handlers need. */
export interface WriteEnv {
  /** Object store. */
  readonly store: Store;
  /** Request body limits. */
  readonly limits: BodyLimits;
}

/** Answers a get, create, update, patch or delete request (errors are thrown `KubeApiError`s). */
export async function handleWrite(
  env: WriteEnv,
  state: ResourceState,
  request: Request,
  r: ResourceRoute & { verb: WriteVerb },
): Promise<Response> {
  const store = env.store;
  switch (r.verb) {
    case "get":
      return jsonResponse(findObject(state, r.namespace, r.name!).json, 200);
    case "create": {
      const body = await readJsonBody(request, env.limits);
      const v = store.create(state, body, { namespace: r.namespace, writer: "http", adopt: true });
      return jsonResponse(v.json, 201);
    }
    case "update": {
      const body = await readJsonBody(request, env.limits);
      const v = store.update(state, body, {
        namespace: r.namespace,
        name: r.name,
        writer: "http",
        subresource: r.subresource,
      });
      return jsonResponse(v.json, 200);
    }
    case "patch":
      return await patch(env, state, request, r);
    case "delete":
      return await remove(env, state, request, r);
  }
}

async function patch(
  env: WriteEnv,
  state: ResourceState,
  request: Request,
  r: ResourceRoute,
): Promise<Response> {
  const contentType = (request.headers.get("content-type") ?? "").split(";")[0]!.trim();
  const body = await readJsonBody(request, env.limits);
  const current = findObject(state, r.namespace, r.name!);
  let next: unknown;
  if (
    contentType === "application/merge-patch+json" ||
    contentType === "application/strategic-merge-patch+json"
  ) {
    if (!isRecord(body)) {
      fail(badRequest("a merge patch must be a JSON object"));
    }
    next = mergePatch(current.toObject(), body);
  } else if (contentType === "application/json-patch+json") {
    next = jsonPatch(current.toObject(), body);
  } else {
    fail(unsupportedMediaType(contentType));
  }
  const v = env.store.update(state, next, {
    namespace: r.namespace,
    name: r.name,
    writer: "http",
    subresource: r.subresource,
  });
  return jsonResponse(v.json, 200);
}

async function remove(
  env: WriteEnv,
  state: ResourceState,
  request: Request,
  r: ResourceRoute,
): Promise<Response> {
  const info = state.info;
  const text = await readBodyText(request, env.limits.maxRequestBodyBytes);
  let preconditions: { uid?: string; resourceVersion?: string } | undefined;
  if (text.trim() !== "") {
    const parsed = parseJsonBody(text, env.limits.maxJsonDepth);
    if (isRecord(parsed) && isRecord(parsed.preconditions)) {
      preconditions = parsed.preconditions as typeof preconditions;
    }
  }
  const { version, removed } = env.store.delete(state, r.namespace, r.name!, preconditions);
  if (removed && !info.deleteReturnsObject) {
    const details: Record<string, unknown> = { name: r.name };
    if (info.desc.group) details.group = info.desc.group;
    details.kind = info.desc.resource;
    details.uid = version.item.metadata.uid;
    const s: Status = {
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Success",
      details: details as Status["details"] & object,
    };
    return jsonResponse(JSON.stringify(s), 200);
  }
  return jsonResponse(version.json, 200);
}
