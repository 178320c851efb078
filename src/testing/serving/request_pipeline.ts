/**
 * The simulated cluster's HTTP front: every request goes through CORS, shutdown, routing, the
 * request log, authentication and injected faults before it reaches the list, watch, write
 * or discovery handler; thrown `KubeApiError`s become Status responses.
 * @module
 */
import { negotiate } from "../reads/content_negotiation.ts";
import { KubeApiError } from "../../client/errors.ts";
import { rejectUnauthenticated } from "./authentication.ts";
import { clientCertUser } from "../_serve_tls.ts";
import type { HandlerContext } from "../reads/handler_context.ts";
import type { CorsPolicy } from "./cors.ts";
import { discovery } from "../reads/discovery.ts";
import { handleList } from "../reads/list.ts";
import type { RecordedRequest, RequestLog } from "./request_log.ts";
import type { ResourceInfo } from "../store/served_resources.ts";
import { route } from "./router.ts";
import {
  internalError,
  methodNotAllowed,
  pathNotFound,
  serviceUnavailable,
  statusResponse,
  tooManyRequests,
  unauthorized,
} from "./status.ts";
import { handleWatch } from "../reads/watch.ts";
import {
  authenticateProtocol,
  isWebSocketUpgrade,
  withoutBearerProtocol,
} from "./websocket_handshake.ts";
import { handleWrite, type ResourceRoute, type WriteEnv } from "../writes/single_object.ts";
import type { ClusterFaults, RequestVerb } from "../faults/cluster_faults.ts";
import { messageOf } from "../../util/values.ts";

/** What the HTTP front needs from its cluster. */
export interface HttpEnv {
  /** Handler services of list and watch (store, channels, watches). */
  readonly ctx: HandlerContext;
  /** Handler services of the single-object verbs (store, body limits). */
  readonly writes: WriteEnv;
  /** Served resources. */
  readonly resources: readonly ResourceInfo[];
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

async function answer(env: HttpEnv, request: Request, method: string): Promise<Response> {
  if (env.isClosed()) return shuttingDown();
  const url = new URL(request.url);
  const r = route(method, url.pathname, url.searchParams, env.resources);
  const verb: RequestVerb = r.kind === "discovery" ? "discovery" : r.verb;
  const record: RecordedRequest = {
    method,
    path: url.pathname,
    query: Object.fromEntries(url.searchParams),
    verb,
  };
  if (r.kind === "resource") {
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
      request = withoutBearerProtocol(request, auth.remaining);
    }
  }
  if (denied) return denied;
  const failure = injectedFailure(env.faults, verb);
  if (failure) return failure;
  if (env.faults.stalled) {
    await env.faults.whenResumed(request.signal);
    if (env.isClosed()) return shuttingDown();
  }
  try {
    switch (r.kind) {
      case "discovery":
        return discovery(url.pathname, env.resources, url.host) ?? statusResponse(pathNotFound());
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

async function resource(
  env: HttpEnv,
  request: Request,
  url: URL,
  r: ResourceRoute,
): Promise<Response> {
  const ctx = env.ctx;
  const state = ctx.store.state(r.info.id)!;
  const query = url.searchParams;
  switch (r.verb) {
    case "list":
      return handleList(ctx, {
        state,
        namespace: r.namespace,
        query,
        rendering: negotiate(request.headers.get("accept"), true),
      });
    case "watch": {
      let q = query;
      if (r.name !== undefined) {
        q = new URLSearchParams(query);
        const fs = q.get("fieldSelector");
        q.set("fieldSelector", `${fs ? fs + "," : ""}metadata.name=${r.name}`);
      }
      return handleWatch(ctx, {
        state,
        namespace: r.namespace,
        query: q,
        signal: request.signal ?? undefined,
        rendering: negotiate(request.headers.get("accept"), false),
        handshake: isWebSocketUpgrade(request) ? request : undefined,
      });
    }
    default:
      return await handleWrite(env.writes, state, request, { ...r, verb: r.verb });
  }
}
