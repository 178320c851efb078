/**
 * The simulated cluster's HTTP front: every request goes through CORS, shutdown, routing, the
 * request log, authentication, authorization and injected faults before it reaches the list,
 * watch, write, discovery, OpenAPI or self-review handler; thrown `KubeApiError`s become Status
 * responses.
 * @module
 */
import { keyOf as objectKey } from "@kinformer/kinformer/internal";
import { isTable, negotiate } from "../handlers/reads/content_negotiation.ts";
import { KubeApiError } from "@kinformer/kinformer/client";
import type { KubeObject } from "@kinformer/kinformer/client";
import { rejectUnauthenticated } from "./authentication.ts";
import { clientCertUser } from "./client_cert_user.ts";
import type { HandlerContext } from "../handlers/reads/handler_context.ts";
import type { CorsPolicy } from "./cors.ts";
import { discovery, type DiscoveryModel } from "../handlers/reads/discovery.ts";
import {
  aggregatedDiscovery,
  aggregatedDiscoveryVersion,
} from "../handlers/reads/aggregated_discovery.ts";
import { handleList } from "../handlers/reads/list.ts";
import type { ServedView } from "../handlers/reads/served_view.ts";
import type { RecordedRequest, RequestLog } from "./request_log.ts";
import type { ResourceInfo } from "../model/registry/served_resources.ts";
import { route } from "../handlers/routing/router.ts";
import {
  forbidden,
  internalError,
  jsonResponse,
  methodNotAllowed,
  pathNotFound,
  serviceUnavailable,
  statusResponse,
  tooManyRequests,
  unauthorized,
} from "../core/status.ts";
import { handleWatch } from "../handlers/reads/watch.ts";
import {
  authenticateProtocol,
  isWebSocketUpgrade,
  withoutBearerProtocol,
} from "../handlers/reads/websocket_handshake.ts";
import {
  findObject,
  handleWrite,
  type ResourceRoute,
  type WriteEnv,
} from "../handlers/writes/single_object.ts";
import type { ClusterFaults, RequestVerb } from "../handlers/faults/cluster_faults.ts";
import { messageOf } from "@kinformer/kinformer/internal";
import { handleReview, reviewKindAt } from "../handlers/authorization/access_reviews.ts";
import { impersonatedUser } from "../handlers/authorization/impersonation.ts";
import {
  type AuthorizationAttributes,
  type AuthorizationPolicy,
  forbiddenMessage,
  nonResourceAttributes,
  type UserInfo,
} from "../handlers/authorization/authorization_policy.ts";
import type { OpenApiDocuments } from "../model/openapi/openapi_documents.ts";
import { columnsJson, rowJson, tableHead, tableRequest } from "../model/tables/table_rendering.ts";
import { prepareWrite } from "../handlers/writes/write_body.ts";

/** What the HTTP front needs from its cluster. */
export interface HttpEnv {
  /** Handler services of list and watch (store, channels, watches). */
  readonly ctx: HandlerContext;
  /** Handler services of the single-object verbs (store, body limits). */
  readonly writes: WriteEnv;
  /** Served resources. */
  readonly resources: readonly ResourceInfo[];
  /** What discovery describes. */
  readonly discovery: DiscoveryModel;
  /** The OpenAPI documents and schemas. */
  readonly openapi: OpenApiDocuments;
  /** Who may do what. */
  readonly authorization: AuthorizationPolicy;
  /** Fault switches. */
  readonly faults: ClusterFaults;
  /** Where requests are recorded. */
  readonly requestLog: RequestLog;
  /** Allowed browser origins. */
  readonly cors: CorsPolicy;
  /** Required bearer token, if any. */
  readonly token: string | undefined;
  /** Whether the cluster was closed. */
  isClosed(): boolean;
}

/** The user a request authenticated as with the cluster's bearer token. */
const TOKEN_USER = "kinformer";

function shuttingDown(): Response {
  return statusResponse(serviceUnavailable("apiserver is shutting down"), { "Retry-After": "1" });
}

function injectedFailure(faults: ClusterFaults, verb: RequestVerb): Response | undefined {
  const failure = faults.takeFailure(verb);
  if (!failure) return undefined;
  if (failure.status === 429) return tooManyRequests(failure.retryAfterHeader);
  if (failure.status === 503) {
    return statusResponse(
      serviceUnavailable("the server is currently unable to handle the request"),
      { "Retry-After": failure.retryAfterHeader },
    );
  }
  return statusResponse(internalError("simulated failure"));
}

/** Answers one HTTP request to the simulated cluster. */
export async function handleRequest(env: HttpEnv, request: Request): Promise<Response> {
  if (request.signal?.aborted) throw request.signal.reason;
  const method = request.method.toUpperCase();
  const early = env.cors.intercept(request, method);
  if (early) return early;
  return env.cors.decorate(request, await answer(env, request, method));
}

/** The authorization attributes of a routed request. */
function attributesOf(
  user: UserInfo,
  method: string,
  path: string,
  r: ReturnType<typeof route>,
  query: URLSearchParams,
): AuthorizationAttributes {
  if (r.kind !== "resource") {
    return nonResourceAttributes(user, method.toLowerCase(), path);
  }
  let name = r.name ?? "";
  if (name === "" && (r.verb === "list" || r.verb === "watch")) {
    // A list or watch of one object by field selector names it, as the API server reads it.
    const m = /^metadata\.name==?([^,]*)$/.exec(query.get("fieldSelector") ?? "");
    if (m) name = m[1]!;
  }
  return {
    user,
    verb: r.verb,
    resourceRequest: true,
    apiGroup: r.info.desc.group ?? "",
    apiVersion: r.info.desc.version,
    resource: r.info.desc.resource,
    subresource: r.subresource ?? "",
    namespace: r.namespace ?? "",
    name,
    path,
  };
}

/** Whether `request` is a server-side apply of a main resource that does not exist yet. */
function createsByApply(env: HttpEnv, request: Request, r: ResourceRoute): boolean {
  if (r.verb !== "patch" || r.subresource !== undefined || r.name === undefined) return false;
  const type = request.headers.get("content-type")?.split(";")[0]?.trim().toLowerCase();
  if (type !== "application/apply-patch+yaml") return false;
  const state = env.ctx.view(r.info).state;
  const ns = state.info.desc.namespaced ? r.namespace || "default" : undefined;
  return !state.objects.has(objectKey(ns, r.name));
}

async function answer(env: HttpEnv, request: Request, method: string): Promise<Response> {
  if (env.isClosed()) return shuttingDown();
  const url = new URL(request.url);
  const review = reviewKindAt(url.pathname);
  const r = route(method, url.pathname, url.searchParams, env.resources);
  const verb: RequestVerb = review !== undefined
    ? "create"
    : r.kind === "discovery"
    ? "discovery"
    : r.verb;
  const record: RecordedRequest = {
    method,
    path: url.pathname,
    query: Object.fromEntries(url.searchParams),
    verb,
  };
  if (review !== undefined) record.resource = review.resource;
  else if (r.kind === "resource") {
    record.resource = r.info.desc.resource;
    if (r.namespace !== undefined) record.namespace = r.namespace;
    if (r.name !== undefined) record.name = r.name;
  }
  const certUser = clientCertUser(request);
  if (certUser !== undefined) record.user = certUser;
  const webSocket = isWebSocketUpgrade(request);
  if (webSocket) record.webSocket = true;
  env.requestLog.record(record);

  let denied = certUser === undefined ? rejectUnauthenticated(request, env.token) : undefined;
  const byHeader = certUser !== undefined || (env.token !== undefined && denied === undefined);
  let tokenUser = env.token !== undefined && denied === undefined && certUser === undefined;
  if (webSocket && !byHeader) {
    // The bearer-protocol authenticator, for a handshake no header or certificate authenticated
    // (without a cluster token every well-formed one is accepted, and removed all the same).
    const auth = authenticateProtocol(request);
    if (auth.kind === "refused") return auth.response;
    if (auth.kind === "token") {
      if (env.token !== undefined && auth.token !== env.token) {
        return statusResponse(unauthorized());
      }
      denied = undefined;
      tokenUser = env.token !== undefined;
      request = withoutBearerProtocol(request, auth.remaining);
    }
  }
  if (denied) return denied;
  const requester: UserInfo = certUser !== undefined
    ? { username: certUser, groups: ["system:authenticated"] }
    : tokenUser
    ? { username: TOKEN_USER, groups: ["system:authenticated"] }
    : { username: "system:anonymous", groups: ["system:unauthenticated"] };
  let user: UserInfo;
  try {
    user = impersonatedUser(request, requester, env.authorization);
  } catch (error) {
    await request.body?.cancel().catch(() => {
      // The request is refused whatever its body does.
    });
    if (error instanceof KubeApiError && error.status) return statusResponse(error.status);
    throw error;
  }

  if (review === undefined && r.kind === "resource") {
    let attributes = attributesOf(user, method, url.pathname, r, url.searchParams);
    let decision = env.authorization.decide(attributes);
    if (decision.allowed && createsByApply(env, request, r)) {
      // As kube-apiserver's patch handler: an apply that creates the object is a create too.
      attributes = { ...attributes, verb: "create" };
      decision = env.authorization.decide(attributes);
    }
    if (!decision.allowed) {
      await request.body?.cancel().catch(() => {
        // The request is refused whatever its body does.
      });
      return statusResponse(forbidden(
        attributes.resource,
        attributes.apiGroup,
        attributes.name,
        forbiddenMessage(attributes, decision.reason),
      ));
    }
  }
  const failure = injectedFailure(env.faults, verb);
  if (failure) return failure;
  if (env.faults.stalled) {
    await env.faults.whenResumed(request.signal);
    if (env.isClosed()) return shuttingDown();
  }
  try {
    if (review !== undefined) {
      if (method !== "POST") return statusResponse(methodNotAllowed());
      return await handleReview(review, request, env.authorization, user, env.writes.limits);
    }
    switch (r.kind) {
      case "discovery":
        return discoveryAnswer(env, request, url) ?? statusResponse(pathNotFound());
      case "notFound":
        return statusResponse(pathNotFound());
      case "methodNotAllowed":
        return statusResponse(methodNotAllowed());
      case "resource":
        return await resource(env, request, url, r);
    }
  } catch (error) {
    if (error instanceof KubeApiError && error.status) return statusResponse(error.status);
    return statusResponse(internalError(messageOf(error)));
  }
}

function discoveryAnswer(env: HttpEnv, request: Request, url: URL): Response | undefined {
  const path = url.pathname.length > 1 && url.pathname.endsWith("/")
    ? url.pathname.slice(0, -1)
    : url.pathname;
  const openapi = env.openapi.answer(path);
  if (openapi !== undefined) return openapi;
  if (path === "/api" || path === "/apis") {
    const version = aggregatedDiscoveryVersion(request.headers.get("accept"));
    if (version !== undefined) return aggregatedDiscovery(env.discovery, path === "/api", version);
  }
  return discovery(path, env.discovery, url.host);
}

/** A response of the storage resource, in the served form of `view` (a view of another's). */
async function servedResponse(response: Response, view: ServedView): Promise<Response> {
  if (view.info.view === undefined) return response;
  const text = await response.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  const headers = new Headers(response.headers);
  headers.delete("content-length");
  const item = body as Record<string, unknown> | undefined;
  if (
    item === undefined || typeof item !== "object" || item === null ||
    item.kind === "Status" || item.kind === "Scale" || item.kind === "PartialObjectMetadata"
  ) {
    return new Response(text, { status: response.status, headers });
  }
  const { kind: _kind, apiVersion: _apiVersion, ...rest } = item;
  const served = JSON.stringify(view.info.view.served(rest as unknown as KubeObject));
  return new Response(view.info.jsonPrefix + served.slice(1), { status: response.status, headers });
}

/** Warnings sent with one response at most (the rest are counted in a last one). */
const MAX_WARNINGS = 50;

/**
 * `response` with `Warning` headers (code 299, the text quoted, as the API server sends them;
 * characters a header cannot carry escaped as `\uXXXX`).
 */
function withWarnings(response: Response, warnings: readonly string[]): Response {
  if (warnings.length === 0) return response;
  const headers = new Headers(response.headers);
  const sent = warnings.length > MAX_WARNINGS
    ? [...warnings.slice(0, MAX_WARNINGS), `${warnings.length - MAX_WARNINGS} more warnings`]
    : warnings;
  for (const w of sent) {
    const quoted = JSON.stringify(w).replace(
      /[^\x20-\x7e]/g,
      (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
    );
    headers.append("Warning", `299 - ${quoted}`);
  }
  return new Response(response.body, { status: response.status, headers });
}

/** GET of one object as a Table (`kubectl get pod x`). */
function tableGet(
  env: HttpEnv,
  view: ServedView,
  r: ResourceRoute,
  apiVersion: string,
  query: URLSearchParams,
): Response {
  const v = findObject(view.state, r.namespace, r.name!);
  const table = tableRequest(apiVersion, query);
  const info = view.info;
  const row = rowJson(
    info.table,
    {
      stored: v.item,
      served: () => view.json(v),
      metadataV1: () => v.metadataJson,
    },
    table,
    env.ctx.env.clock.now(),
  );
  const meta = `{"resourceVersion":${JSON.stringify(v.item.metadata?.resourceVersion ?? "")}}`;
  return jsonResponse(`${tableHead(table, meta, columnsJson(info.table))}${row}]}`, 200);
}

async function resource(
  env: HttpEnv,
  request: Request,
  url: URL,
  r: ResourceRoute,
): Promise<Response> {
  const ctx = env.ctx;
  const view = ctx.view(r.info);
  const query = url.searchParams;
  const accept = request.headers.get("accept");
  const main = r.subresource === undefined;
  switch (r.verb) {
    case "list":
      return handleList(ctx, {
        view,
        namespace: r.namespace,
        query,
        rendering: negotiate(accept, true, { table: true }),
      });
    case "watch": {
      let q = query;
      if (r.name !== undefined) {
        q = new URLSearchParams(query);
        const fs = q.get("fieldSelector");
        q.set("fieldSelector", `${fs ? fs + "," : ""}metadata.name=${r.name}`);
      }
      return handleWatch(ctx, {
        view,
        namespace: r.namespace,
        query: q,
        signal: request.signal ?? undefined,
        rendering: negotiate(accept, false, { table: true }),
        handshake: isWebSocketUpgrade(request) ? request : undefined,
      });
    }
    case "get": {
      const rendering = negotiate(accept, false, { table: main });
      if (isTable(rendering)) return tableGet(env, view, r, rendering.apiVersion, query);
      const stored = { ...r, info: view.state.info, verb: "get" as const };
      return await servedResponse(await handleWrite(env.writes, view.state, request, stored), view);
    }
    default: {
      const prepared = await prepareWrite(
        request,
        {
          info: r.info,
          verb: r.verb,
          name: r.name,
          subresource: r.subresource,
          current: () => view.toObject(findObject(view.state, r.namespace, r.name!)),
        },
        env.writes.limits,
        env.openapi,
      );
      const stored = { ...r, info: view.state.info, verb: r.verb };
      const response = await handleWrite(env.writes, view.state, prepared.request, stored);
      return withWarnings(await servedResponse(response, view), prepared.warnings);
    }
  }
}
