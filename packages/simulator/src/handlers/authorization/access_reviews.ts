/**
 * The self reviews of the simulated cluster, answered from its authorization policy:
 * `SelfSubjectAccessReview` (`kubectl auth can-i verb resource`) and `SelfSubjectRulesReview`
 * (`kubectl auth can-i --list`) of `authorization.k8s.io/v1`, and `SelfSubjectReview`
 * (`kubectl auth whoami`) of `authentication.k8s.io/v1`. They are create-only (POST, answered
 * 201), in JSON or in protobuf (what kubectl sends).
 * @module
 */
import { describeValue, isRecord } from "@kinformer/kinformer/internal";
import { parseJsonBody, readBodyBytes } from "../../core/request_body.ts";
import type { BodyLimits } from "../../core/request_body.ts";
import { badRequest, fail, type FieldProblem, invalid, jsonResponse } from "../../core/status.ts";
import {
  type AuthorizationAttributes,
  type AuthorizationPolicy,
  type AuthorizationRule,
  nonResourceAttributes,
  ruleAppliesTo,
  type UserInfo,
} from "./authorization_policy.ts";
import { decodeReview, isKubernetesProtobuf, ProtobufError } from "./review_protobuf.ts";

/** A self review resource: where it is served and what it is. */
export interface ReviewKind {
  /** `authorization.k8s.io` or `authentication.k8s.io`. */
  readonly group: string;
  /** `v1`. */
  readonly version: string;
  /** Plural resource name. */
  readonly resource: string;
  /** Kind. */
  readonly kind: string;
}

/** The self reviews the simulated cluster serves (discovery lists them, create only). */
export const REVIEW_KINDS: readonly ReviewKind[] = Object.freeze([
  {
    group: "authorization.k8s.io",
    version: "v1",
    resource: "selfsubjectaccessreviews",
    kind: "SelfSubjectAccessReview",
  },
  {
    group: "authorization.k8s.io",
    version: "v1",
    resource: "selfsubjectrulesreviews",
    kind: "SelfSubjectRulesReview",
  },
  {
    group: "authentication.k8s.io",
    version: "v1",
    resource: "selfsubjectreviews",
    kind: "SelfSubjectReview",
  },
]);

/** The review kind `path` names, if any. */
export function reviewKindAt(path: string): ReviewKind | undefined {
  const p = path.endsWith("/") ? path.slice(0, -1) : path;
  return REVIEW_KINDS.find((k) => p === `/apis/${k.group}/${k.version}/${k.resource}`);
}

/** Rules everyone has (kube-apiserver's default `system:basic-user` and `system:discovery`). */
const BASIC_RESOURCE_RULES = [
  {
    verbs: ["create"],
    apiGroups: ["authorization.k8s.io"],
    resources: ["selfsubjectaccessreviews", "selfsubjectrulesreviews"],
  },
  { verbs: ["create"], apiGroups: ["authentication.k8s.io"], resources: ["selfsubjectreviews"] },
];
const BASIC_NON_RESOURCE_RULES = [{
  verbs: ["get"],
  nonResourceURLs: [
    "/api",
    "/api/*",
    "/apis",
    "/apis/*",
    "/healthz",
    "/livez",
    "/openapi",
    "/openapi/*",
    "/readyz",
    "/version",
    "/version/",
  ],
}];

async function readReview(
  request: Request,
  kind: ReviewKind,
  limits: BodyLimits,
): Promise<Record<string, unknown>> {
  const bytes = await readBodyBytes(request, limits.maxRequestBodyBytes);
  const type = (request.headers.get("content-type") ?? "").split(";")[0]!.trim();
  let body: unknown;
  if (type === "application/vnd.kubernetes.protobuf" || isKubernetesProtobuf(bytes)) {
    try {
      body = decodeReview(bytes);
    } catch (error) {
      if (error instanceof ProtobufError) fail(badRequest(error.message));
      throw error;
    }
  } else {
    body = parseJsonBody(new TextDecoder().decode(bytes), limits.maxJsonDepth);
  }
  if (!isRecord(body)) fail(badRequest(`the body must be a ${kind.kind}`));
  if (
    (body.kind !== undefined && body.kind !== kind.kind) ||
    (body.apiVersion !== undefined && body.apiVersion !== `${kind.group}/${kind.version}`)
  ) {
    fail(badRequest(
      `the body must be a ${kind.group}/${kind.version} ${kind.kind}, got ${
        describeValue(body.apiVersion)
      } ${describeValue(body.kind)}`,
    ));
  }
  return body;
}

function text(obj: Record<string, unknown>, key: string): string {
  return typeof obj[key] === "string" ? obj[key] as string : "";
}

function accessReview(
  spec: Record<string, unknown>,
  policy: AuthorizationPolicy,
  user: UserInfo,
): Record<string, unknown> {
  const resource = isRecord(spec.resourceAttributes) ? spec.resourceAttributes : undefined;
  const nonResource = isRecord(spec.nonResourceAttributes) ? spec.nonResourceAttributes : undefined;
  if ((resource === undefined) === (nonResource === undefined)) {
    const problem: FieldProblem = {
      reason: "FieldValueInvalid",
      field: "spec.resourceAttributes",
      message:
        'Invalid value: "null": exactly one of nonResourceAttributes or resourceAttributes must be specified',
    };
    fail(invalid("SelfSubjectAccessReview", "authorization.k8s.io", "", [problem]));
  }
  const attributes: AuthorizationAttributes = resource !== undefined
    ? {
      user,
      verb: text(resource, "verb"),
      resourceRequest: true,
      apiGroup: text(resource, "group"),
      apiVersion: text(resource, "version"),
      resource: text(resource, "resource"),
      subresource: text(resource, "subresource"),
      namespace: text(resource, "namespace"),
      name: text(resource, "name"),
      path: "",
    }
    : nonResourceAttributes(user, text(nonResource!, "verb"), text(nonResource!, "path"));
  const decision = policy.decide(attributes);
  return decision.reason === undefined
    ? { allowed: decision.allowed }
    : { allowed: decision.allowed, reason: decision.reason };
}

function rulesReview(
  spec: Record<string, unknown>,
  policy: AuthorizationPolicy,
  user: UserInfo,
): Record<string, unknown> {
  const namespace = text(spec, "namespace");
  if (namespace === "") {
    fail(invalid("SelfSubjectRulesReview", "authorization.k8s.io", "", [{
      reason: "FieldValueRequired",
      field: "spec.namespace",
      message: "Required value",
    }]));
  }
  const resourceRules: unknown[] = [...BASIC_RESOURCE_RULES];
  const nonResourceRules: unknown[] = [...BASIC_NON_RESOURCE_RULES];
  if (policy.allowsAll) {
    resourceRules.unshift({ verbs: ["*"], apiGroups: ["*"], resources: ["*"] });
    nonResourceRules.unshift({ verbs: ["*"], nonResourceURLs: ["*"] });
    return { resourceRules, nonResourceRules, incomplete: false };
  }
  const rules = policy.rules;
  if (rules === undefined) {
    return {
      resourceRules,
      nonResourceRules,
      incomplete: true,
      evaluationError:
        "the simulated cluster's authorization is a function: its rules cannot be listed",
    };
  }
  const applies = (r: AuthorizationRule) =>
    ruleAppliesTo(r, user) && (r.namespaces === undefined || r.namespaces.includes(namespace));
  for (const r of rules) {
    if (!applies(r)) continue;
    if (r.nonResourceURLs !== undefined) {
      nonResourceRules.push({ verbs: r.verbs, nonResourceURLs: r.nonResourceURLs });
    } else {
      resourceRules.push({
        verbs: r.verbs,
        apiGroups: r.apiGroups,
        resources: r.resources,
        ...(r.resourceNames === undefined ? {} : { resourceNames: r.resourceNames }),
      });
    }
  }
  return { resourceRules, nonResourceRules, incomplete: false };
}

/** Answers a POST of a self review (201 with its status). */
export async function handleReview(
  kind: ReviewKind,
  request: Request,
  policy: AuthorizationPolicy,
  user: UserInfo,
  limits: BodyLimits,
): Promise<Response> {
  const body = await readReview(request, kind, limits);
  const spec = isRecord(body.spec) ? body.spec : {};
  const head = {
    kind: kind.kind,
    apiVersion: `${kind.group}/${kind.version}`,
    metadata: { creationTimestamp: null },
  };
  let answer: Record<string, unknown>;
  switch (kind.kind) {
    case "SelfSubjectAccessReview":
      answer = { ...head, spec, status: accessReview(spec, policy, user) };
      break;
    case "SelfSubjectRulesReview":
      answer = { ...head, spec, status: rulesReview(spec, policy, user) };
      break;
    default:
      answer = {
        ...head,
        status: {
          userInfo: {
            username: user.username,
            ...(user.uid === undefined ? {} : { uid: user.uid }),
            groups: [...user.groups],
            ...(user.extra === undefined ? {} : { extra: user.extra }),
          },
        },
      };
  }
  return jsonResponse(JSON.stringify(answer), 201);
}
