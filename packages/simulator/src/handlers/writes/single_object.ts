/**
 * The simulated cluster's single-object HTTP verbs: GET of one object (or its status or scale),
 * POST (create), PUT (update, also of `/status` and `/scale`), PATCH (merge, strategic merge for
 * built-in kinds, JSON patch, server-side apply; the patched object held to the limits of a
 * request body) and DELETE (preconditions, propagation policy), each answering like the real
 * API server, with `fieldManager`, `dryRun` and `metadata.managedFields`.
 * @module
 */
import { negotiate } from "../reads/content_negotiation.ts";
import type { KubeObject, Status } from "@kinformer/kinformer/client";
import { describeValue, isRecord } from "@kinformer/kinformer/internal";
import { applyConfiguration } from "./server_side_apply.ts";
import { formatManagedFields, leafPaths, parseManagedFields } from "./managed_fields.ts";
import { jsonPatch } from "./json_patch.ts";
import { mergePatch } from "./merge_patch.ts";
import {
  type BodyLimits,
  parseJsonBody,
  parseYamlBody,
  readBodyText,
  readJsonBody,
} from "../../core/request_body.ts";
import type { Route } from "../routing/router.ts";
import { requestedReplicas, scaleOf } from "./scale_subresource.ts";
import {
  badRequest,
  fail,
  jsonResponse,
  objectDetails,
  objectNotFound,
  requestEntityTooLarge,
  unsupportedMediaType,
} from "../../core/status.ts";
import { notNewerThan } from "../reads/list_options.ts";
import { isBuiltIn, SCALE_SCHEMA, schemaOf } from "../../model/defaults/patch_strategies.ts";
import { strategicMergePatch } from "./strategic_merge_patch.ts";
import { utf8Length } from "./_utf8_length.ts";
import { rfc3339, type Store } from "../../store/object_store.ts";
import { keyOf } from "@kinformer/kinformer/internal";
import type { Version } from "../../store/object_version.ts";
import type { ResourceState } from "../../store/resource_state.ts";
import { scopeOf, updateTracker, type WriteParams, writeParams, writerOf } from "./write_params.ts";
import { deletionRequest } from "./delete_options.ts";

/** A routed request for a served resource. */
export type ResourceRoute = Extract<Route, { kind: "resource" }>;

/** The verbs handled here. */
export type WriteVerb = "get" | "create" | "update" | "patch" | "delete";

/** The Content-Type of a server-side apply. */
const APPLY_PATCH = "application/apply-patch+yaml";
/** The Content-Type of a strategic merge patch. */
const STRATEGIC_MERGE_PATCH = "application/strategic-merge-patch+json";

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
  const v = state.objects.get(keyOf(ns, name));
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
  /** Current time in ms (for `managedFields` times). */
  now(): number;
}

/** The answer to a write: the object, or its Scale for the scale subresource. */
function answer(v: Version, r: ResourceRoute, code: number): Response {
  return jsonResponse(
    r.subresource === "scale" ? JSON.stringify(scaleOf(v.toObject())) : v.json,
    code,
  );
}

/** Answers a get, create, update, patch or delete request (errors are thrown `KubeApiError`s). */
export async function handleWrite(
  env: WriteEnv,
  state: ResourceState,
  request: Request,
  r: ResourceRoute & { verb: WriteVerb },
): Promise<Response> {
  switch (r.verb) {
    case "get": {
      // resourceVersion on a GET means "not older than": malformed is 400, one the server has
      // not reached yet is its 504 "Too large resource version" (as for a LIST).
      notNewerThan(new URL(request.url).searchParams.get("resourceVersion") ?? "", env.store.rv);
      const v = findObject(state, r.namespace, r.name!);
      if (
        r.subresource === undefined &&
        negotiate(request.headers.get("accept"), false) === "metadata"
      ) {
        return jsonResponse(v.metadataJson, 200);
      }
      return answer(v, r, 200);
    }
    case "create": {
      const params = writeParams(request, "create", false);
      const body = await readJsonBody(request, env.limits);
      const v = env.store.create(state, body, {
        namespace: r.namespace,
        writer: "http",
        adopt: true,
        dryRun: params.dryRun,
        fields: tracker(env, state, params, undefined),
      });
      return jsonResponse(v.json, 201);
    }
    case "update": {
      const params = writeParams(request, "update", false);
      const body = await readJsonBody(request, env.limits);
      if (r.subresource === "scale") return scale(env, state, r, params, body);
      return replace(env, state, r, params, body);
    }
    case "patch":
      return await patch(env, state, request, r);
    case "delete":
      return await remove(env, state, request, r);
  }
}

/** Ownership tracking of a non-apply write. */
function tracker(
  env: WriteEnv,
  state: ResourceState,
  params: WriteParams,
  subresource: string | undefined,
) {
  const info = state.info;
  const writer = writerOf(info, params, "Update", subresource, rfc3339(env.now()));
  return updateTracker(writer, scopeOf(info, subresource));
}

/** A PUT (or the result of a PATCH) of the object or its status: `body` replaces it. */
function replace(
  env: WriteEnv,
  state: ResourceState,
  r: ResourceRoute,
  params: WriteParams,
  body: unknown,
): Response {
  const v = env.store.update(state, body, {
    namespace: r.namespace,
    name: r.name,
    writer: "http",
    subresource: r.subresource,
    dryRun: params.dryRun,
    fields: tracker(env, state, params, r.subresource),
  });
  return jsonResponse(v.json, 200);
}

/** A write to the scale subresource: only `spec.replicas` changes (owned as `scale`). */
function scale(
  env: WriteEnv,
  state: ResourceState,
  r: ResourceRoute,
  params: WriteParams,
  body: unknown,
): Response {
  const current = findObject(state, r.namespace, r.name!);
  const replicas = requestedReplicas(body, r.name!);
  const next = current.toObject();
  const meta = isRecord(body) && isRecord(body.metadata) ? body.metadata : {};
  // The Scale's resourceVersion and uid are preconditions on the object.
  for (const field of ["resourceVersion", "uid"] as const) {
    const given = meta[field];
    if (typeof given === "string" && given !== "") {
      (next.metadata as Record<string, unknown>)[field] = given;
    }
  }
  next.spec = { ...(isRecord(next.spec) ? next.spec : {}), replicas };
  const v = env.store.update(state, next, {
    namespace: r.namespace,
    name: r.name,
    writer: "http",
    subresource: "scale",
    dryRun: params.dryRun,
    fields: tracker(env, state, params, "scale"),
  });
  return answer(v, r, 200);
}

/** The patch types kube-apiserver accepts for a custom resource (no strategic merge). */
/** The patch media types of a built-in kind, as the 415 for any other lists them. */
const PATCH_MEDIA_TYPES = [
  "application/json",
  "application/merge-patch+json",
  STRATEGIC_MERGE_PATCH,
  "application/json-patch+json",
];

const CUSTOM_RESOURCE_PATCHES = [
  "application/json-patch+json",
  "application/merge-patch+json",
  APPLY_PATCH,
];

async function patch(
  env: WriteEnv,
  state: ResourceState,
  request: Request,
  r: ResourceRoute,
): Promise<Response> {
  const contentType = (request.headers.get("content-type") ?? "").split(";")[0]!.trim();
  if (contentType === STRATEGIC_MERGE_PATCH && !isBuiltIn(state.info)) {
    // As kube-apiserver: custom resources have no strategic merge patch.
    fail(unsupportedMediaType(CUSTOM_RESOURCE_PATCHES));
  }
  if (contentType === APPLY_PATCH) return await apply(env, state, request, r);
  const params = writeParams(request, "patch", false);
  const body = await readJsonBody(request, env.limits);
  const current = findObject(state, r.namespace, r.name!);
  const target = r.subresource === "scale" ? scaleOf(current.toObject()) : current.toObject();
  let next: unknown;
  if (contentType === "application/merge-patch+json") {
    if (!isRecord(body)) {
      fail(badRequest("a merge patch must be a JSON object"));
    }
    next = mergePatch(target, body);
  } else if (contentType === STRATEGIC_MERGE_PATCH) {
    const schema = r.subresource === "scale" ? SCALE_SCHEMA : schemaOf(state.info);
    next = strategicMergePatch(target, body, schema);
  } else if (contentType === "application/json-patch+json") {
    next = jsonPatch(target, body, { maxCopyBytes: env.limits.maxRequestBodyBytes });
  } else {
    fail(unsupportedMediaType(PATCH_MEDIA_TYPES, contentType));
  }
  checkPatched(env, next);
  if (r.subresource === "scale") return scale(env, state, r, params, next);
  return replace(env, state, r, params, next);
}

/**
 * A patched object must fit the limits of a request body: no deeper than `maxJsonDepth` (400)
 * and no larger than `maxRequestBodyBytes` (413).
 */
function checkPatched(env: WriteEnv, next: unknown): void {
  env.store.assertServable(next, "the patched object");
  if (utf8Length(JSON.stringify(next)) > env.limits.maxRequestBodyBytes) {
    fail(requestEntityTooLarge(env.limits.maxRequestBodyBytes));
  }
}

/** The body of an apply: JSON (which is YAML), or YAML. */
function parseApplyBody(text: string, limits: BodyLimits): unknown {
  if (/^\s*[{[]/.test(text)) return parseJsonBody(text, limits.maxJsonDepth);
  return parseYamlBody(text, limits.maxJsonDepth, {
    source: "apply configuration",
    syntax: "error decoding YAML",
    subject: "the apply configuration",
  });
}

/**
 * Server-side apply (`application/apply-patch+yaml`): creates the object or merges the applied
 * configuration into it, records the applier's fields, and answers 409 Conflict for fields
 * other managers own with another value, unless `force=true`.
 */
async function apply(
  env: WriteEnv,
  state: ResourceState,
  request: Request,
  r: ResourceRoute,
): Promise<Response> {
  const info = state.info;
  const params = writeParams(request, "patch", true);
  const config = parseApplyBody(
    await readBodyText(request, env.limits.maxRequestBodyBytes),
    env.limits,
  );
  if (!isRecord(config) || !isRecord(config.metadata)) {
    fail(badRequest("the apply configuration must be an object with metadata"));
  }
  const scaling = r.subresource === "scale";
  const [apiVersion, kind] = scaling
    ? ["autoscaling/v1", "Scale"]
    : [info.apiVersion, info.desc.kind];
  if (config.apiVersion !== apiVersion || config.kind !== kind) {
    fail(badRequest(
      `the apply configuration must have apiVersion ${describeValue(apiVersion)} and kind ${
        describeValue(kind)
      }, got ${describeValue(config.apiVersion)} and ${describeValue(config.kind)}`,
    ));
  }
  const name = config.metadata.name;
  if (name !== r.name) {
    fail(badRequest(
      `the name of the object (${String(name)}) does not match the name on the URL (${r.name})`,
    ));
  }
  const ns = config.metadata.namespace;
  if (info.desc.namespaced && ns !== undefined && ns !== (r.namespace ?? "default")) {
    fail(badRequest(
      "the namespace of the provided object does not match the namespace sent on the request",
    ));
  }
  const key = keyOf(info.desc.namespaced ? r.namespace || "default" : undefined, r.name!);
  const current = state.objects.get(key);
  if (current === undefined && r.subresource !== undefined) {
    fail(objectNotFound(info.desc.resource, info.desc.group, r.name!));
  }
  const live = current === undefined ? undefined : JSON.parse(current.itemJson) as KubeObject;
  const time = rfc3339(env.now());
  const scope = scaling ? "main" : scopeOf(info, r.subresource);
  let entries = parseManagedFields(live?.metadata.managedFields);
  if (live !== undefined && entries.length === 0) {
    // Fields set before the first apply belong to "before-first-apply", as on the API server.
    const fields = leafPaths(live, "all");
    if (fields.size > 0) {
      entries = [{
        manager: "before-first-apply",
        operation: "Update",
        apiVersion: info.apiVersion,
        time,
        subresource: undefined,
        fields,
      }];
    }
  }
  const applied = scaling
    ? { spec: isRecord(config.spec) ? { replicas: config.spec.replicas } : {} }
    : config;
  if (scaling) requestedReplicas({ kind: "Scale", spec: applied.spec }, r.name!);
  const result = applyConfiguration({
    live,
    config: applied,
    entries,
    writer: writerOf(info, params, "Apply", r.subresource, time),
    force: params.force,
    scope,
  });
  const object = result.object;
  checkPatched(env, object);
  const managed = formatManagedFields(result.entries);
  const fields = (): unknown[] => managed;
  if (current === undefined) {
    const metadata: Record<string, unknown> = { name: r.name };
    if (info.desc.namespaced) metadata.namespace = r.namespace || "default";
    object.metadata = { ...metadata, ...(isRecord(object.metadata) ? object.metadata : {}) };
    const v = env.store.create(state, object, {
      namespace: r.namespace,
      writer: "http",
      adopt: true,
      dryRun: params.dryRun,
      fields,
    });
    return answer(v, r, 201);
  }
  // Not adopted: the store copies it, and a no-op apply stays a no-op (no new version).
  const v = env.store.update(state, object, {
    namespace: r.namespace,
    name: r.name,
    writer: "http",
    subresource: r.subresource,
    dryRun: params.dryRun,
    fields,
  });
  return answer(v, r, 200);
}

async function remove(
  env: WriteEnv,
  state: ResourceState,
  request: Request,
  r: ResourceRoute,
): Promise<Response> {
  const info = state.info;
  const params = writeParams(request, "delete", false);
  const text = await readBodyText(request, env.limits.maxRequestBodyBytes);
  const deletion = deletionRequest(
    new URL(request.url),
    text,
    env.limits.maxJsonDepth,
    params.dryRun,
  );
  const { version, removed } = env.store.delete(state, r.namespace, r.name!, deletion);
  if (removed && !info.deleteReturnsObject) {
    const details = objectDetails(r.name!, info.desc.resource, info.desc.group);
    details.uid = version.item.metadata.uid!;
    const s: Status = {
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Success",
      details,
    };
    return jsonResponse(JSON.stringify(s), 200);
  }
  // As kube-apiserver: 202 when a cascading delete (`orphanDependents: false`) has to wait.
  return jsonResponse(version.json, !removed && deletion.orphanDependents === false ? 202 : 200);
}
