/**
 * The requests of the client's single-object verbs (get, create, replace, patch, apply,
 * delete): validated options turned into a method, path, query, body and headers, apart from
 * the client so the rules can be read and tested on their own. Internal.
 * @module
 */
import { isMetadataOnly, METADATA_ACCEPT } from "./metadata_only.ts";
import { describeValue, isRecord } from "../util/values.ts";
import { checkNumber, requireNonEmptyString } from "../util/validate.ts";
import {
  APPLY_CONTENT_TYPE,
  type ApplyOptions,
  checkSubresource,
  type DeleteOptions,
  deletePreconditions,
  type GetOptions,
  objectNamespace,
  PATCH_CONTENT_TYPES,
  type PatchOptions,
  type QueryValue,
  type WriteOptions,
  writeQuery,
} from "./request_options.ts";
import { type AnyResourceDescriptor, resourcePath } from "./resource.ts";
import type { KubeObjectLike } from "./types.ts";

/** One request of a single-object verb. Internal. */
export interface ObjectRequest {
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  path: string;
  query?: Record<string, QueryValue>;
  body?: unknown;
  headers?: Record<string, string>;
}

/** The `apiVersion` of a resource's objects: `v1` or `group/version`. */
function apiVersionOf(resource: AnyResourceDescriptor): string {
  return resource.group ? `${resource.group}/${resource.version}` : resource.version;
}

/** `object.metadata.name`, or a TypeError naming the verb that needs it. */
function objectName(object: KubeObjectLike, verb: string): string {
  const name: unknown = object.metadata?.name;
  if (typeof name !== "string" || name === "") {
    throw new TypeError(`object.metadata.name is required to ${verb}, got ${describeValue(name)}`);
  }
  return name;
}

/** GET of one object or of its subresource. */
export function getRequest(
  resource: AnyResourceDescriptor,
  name: string,
  options: GetOptions | undefined,
): ObjectRequest {
  checkSubresource(options?.subresource);
  requireNonEmptyString(name, "name");
  const request: ObjectRequest = {
    method: "GET",
    path: resourcePath(resource, {
      namespace: options?.namespace,
      name,
      subresource: options?.subresource,
    }),
  };
  if (isMetadataOnly(resource) && options?.subresource === undefined) {
    request.headers = { accept: METADATA_ACCEPT };
  }
  return request;
}

/** POST of a new object to its collection. */
export function createRequest(
  resource: AnyResourceDescriptor,
  object: KubeObjectLike,
  options: WriteOptions | undefined,
): ObjectRequest {
  const namespace = objectNamespace(resource, object, options?.namespace);
  if (resource.namespaced && namespace === undefined) {
    throw new TypeError(
      "options.namespace or object.metadata.namespace is required to create a namespaced object",
    );
  }
  if (options?.subresource !== undefined) {
    throw new TypeError(
      `options.subresource cannot be set on a create, got ${describeValue(options.subresource)}`,
    );
  }
  return {
    method: "POST",
    path: resourcePath(resource, { namespace }),
    query: writeQuery(options),
    body: object,
  };
}

/** PUT of a whole object, or of its `status` or `scale` subresource. */
export function replaceRequest(
  resource: AnyResourceDescriptor,
  object: KubeObjectLike,
  options: WriteOptions | undefined,
): ObjectRequest {
  checkSubresource(options?.subresource);
  const namespace = objectNamespace(resource, object, options?.namespace);
  const name = objectName(object, "replace");
  return {
    method: "PUT",
    path: resourcePath(resource, { namespace, name, subresource: options?.subresource }),
    query: writeQuery(options),
    body: object,
  };
}

/** PATCH (merge, strategic merge or JSON patch) of an object or of a subresource. */
export function patchRequest(
  resource: AnyResourceDescriptor,
  name: string,
  patch: unknown,
  options: PatchOptions | undefined,
): ObjectRequest {
  const type = options?.type ?? "merge";
  if (!Object.hasOwn(PATCH_CONTENT_TYPES, type)) {
    throw new TypeError(
      `options.type must be "merge", "strategic" or "json", got ${describeValue(type)}`,
    );
  }
  if (type === "json" ? !Array.isArray(patch) : !isRecord(patch)) {
    throw new TypeError(
      `patch must be ${
        type === "json" ? "an array of operations" : "an object"
      } for a ${type} patch, got ${describeValue(patch)}`,
    );
  }
  checkSubresource(options?.subresource);
  requireNonEmptyString(name, "name");
  return {
    method: "PATCH",
    path: resourcePath(resource, {
      namespace: options?.namespace,
      name,
      subresource: options?.subresource,
    }),
    query: writeQuery(options),
    body: patch,
    headers: { "content-type": PATCH_CONTENT_TYPES[type] },
  };
}

/**
 * Server-side apply: PATCH with `application/apply-patch+yaml` (the body is JSON, which is
 * YAML), `fieldManager` required, `force` on request. `apiVersion` and `kind`, which the server
 * requires, are filled in from the descriptor when the object leaves them out (`autoscaling/v1`
 * `Scale` for the scale subresource).
 */
export function applyRequest(
  resource: AnyResourceDescriptor,
  object: unknown,
  options: ApplyOptions,
): ObjectRequest {
  if (!isRecord(options)) {
    throw new TypeError(
      `options must be an object with a fieldManager, got ${describeValue(options)}`,
    );
  }
  if (!isRecord(object) || !isRecord(object.metadata)) {
    throw new TypeError(
      `object must be a Kubernetes object with metadata, got ${describeValue(object)}`,
    );
  }
  const config = object as KubeObjectLike & Record<string, unknown>;
  checkSubresource(options.subresource);
  if (options.force !== undefined && typeof options.force !== "boolean") {
    throw new TypeError(`options.force must be a boolean, got ${describeValue(options.force)}`);
  }
  const query = writeQuery(options, true);
  if (options.force) query.force = true;
  const namespace = objectNamespace(resource, config, options.namespace);
  const name = objectName(config, "apply");
  const scale = options.subresource === "scale";
  const body: Record<string, unknown> = {
    apiVersion: scale ? "autoscaling/v1" : apiVersionOf(resource),
    kind: scale ? "Scale" : resource.kind,
  };
  for (const [key, value] of Object.entries(config)) {
    if (value !== undefined) Object.defineProperty(body, key, { value, enumerable: true });
  }
  return {
    method: "PATCH",
    path: resourcePath(resource, { namespace, name, subresource: options.subresource }),
    query,
    body,
    headers: { "content-type": APPLY_CONTENT_TYPE },
  };
}

/**
 * DELETE, its options as query parameters; with preconditions, which only a body can carry,
 * every option goes in a `DeleteOptions` body too: kube-apiserver reads the body when there is
 * one and then ignores the query.
 */
export function deleteRequest(
  resource: AnyResourceDescriptor,
  name: string,
  options: DeleteOptions | undefined,
): ObjectRequest {
  const grace = options?.gracePeriodSeconds;
  checkNumber(grace, "options.gracePeriodSeconds", { min: 0, integer: true });
  const policy = options?.propagationPolicy;
  if (policy !== undefined && !["Foreground", "Background", "Orphan"].includes(policy)) {
    throw new TypeError(
      `options.propagationPolicy must be "Foreground", "Background" or "Orphan", got ${
        describeValue(policy)
      }`,
    );
  }
  const preconditions = deletePreconditions(options?.preconditions);
  const { dryRun } = writeQuery({ dryRun: options?.dryRun });
  requireNonEmptyString(name, "name");
  const request: ObjectRequest = {
    method: "DELETE",
    path: resourcePath(resource, { namespace: options?.namespace, name }),
    query: { propagationPolicy: policy, gracePeriodSeconds: grace, dryRun },
  };
  if (preconditions !== undefined) {
    const body: Record<string, unknown> = {
      kind: "DeleteOptions",
      apiVersion: "v1",
      preconditions,
    };
    if (policy !== undefined) body.propagationPolicy = policy;
    if (grace !== undefined) body.gracePeriodSeconds = grace;
    if (dryRun !== undefined) body.dryRun = [dryRun];
    request.body = body;
  }
  return request;
}
