/**
 * Who may do what on the simulated cluster (option `authorization`): every resource request is
 * checked against a policy before it is served, and a denied one gets the 403 `Forbidden` the
 * API server answers (`pods is forbidden: User "system:anonymous" cannot list resource "pods" in
 * API group "" in the namespace "default"`). The same policy answers `SelfSubjectAccessReview`
 * and `SelfSubjectRulesReview`, so `kubectl auth can-i` works. Allow-all by default.
 *
 * The policy is either a list of rules in the shape of RBAC `PolicyRule`s (what a Role grants;
 * anything no rule allows is denied, and rules reviews list them exactly), or a function of the
 * request's attributes (for anything rules cannot say; rules reviews then report
 * `incomplete: true`, as for a webhook authorizer). A rule with `users` or `groups` is granted to
 * those subjects only, as a RoleBinding grants a Role; `kubectl --as` (impersonation, see
 * `impersonation.ts`) is checked with the verb `impersonate` and then makes every decision about
 * the impersonated user.
 *
 * Discovery, OpenAPI, `/version` and the health paths are always allowed, as kube-apiserver's
 * default roles allow them to everyone, and so are the self reviews themselves.
 * @module
 */
import { describeValue, isRecord } from "@kinformer/kinformer/internal";

/** Who a request comes from. */
export interface UserInfo {
  /** User name: the client certificate's CN, `system:anonymous` without credentials. */
  readonly username: string;
  /** Groups (`system:authenticated` or `system:unauthenticated`). */
  readonly groups: readonly string[];
  /** The user's uid, when it has one (an impersonated user's `Impersonate-Uid`). */
  readonly uid?: string;
  /** Extra attributes (an impersonated user's `Impersonate-Extra-<key>` headers), by key. */
  readonly extra?: Readonly<Record<string, readonly string[]>>;
}

/** What a request asks to do, as the API server's authorizers see it. */
export interface AuthorizationAttributes {
  /** The requester. */
  readonly user: UserInfo;
  /** `get`, `list`, `watch`, `create`, `update`, `patch`, `delete` (for non-resource paths, the HTTP method in lower case). */
  readonly verb: string;
  /** Whether it is about a resource (else a non-resource path such as `/healthz`). */
  readonly resourceRequest: boolean;
  /** API group (`""` for core). */
  readonly apiGroup: string;
  /** API version. */
  readonly apiVersion: string;
  /** Plural resource name (`pods`). */
  readonly resource: string;
  /** Subresource (`status`, `scale`), or `""`. */
  readonly subresource: string;
  /** Namespace, or `""` (cluster-scoped, or all namespaces). */
  readonly namespace: string;
  /** Object name, or `""`. */
  readonly name: string;
  /** The URL path, for non-resource requests. */
  readonly path: string;
}

/** The attributes of a request for a non-resource path (`/healthz`): no resource fields. */
export function nonResourceAttributes(
  user: UserInfo,
  verb: string,
  path: string,
): AuthorizationAttributes {
  return {
    user,
    verb,
    resourceRequest: false,
    apiGroup: "",
    apiVersion: "",
    resource: "",
    subresource: "",
    namespace: "",
    name: "",
    path,
  };
}

/** A decision with a reason (shown by `kubectl auth can-i` and in 403 messages). */
export interface AuthorizationDecision {
  /** Whether the request may proceed. */
  readonly allowed: boolean;
  /** Why, if there is something to say. */
  readonly reason?: string;
}

/** A policy as a function: return `true`/`false` or a decision with a reason. */
export type AuthorizationFunction = (
  attributes: AuthorizationAttributes,
) => boolean | AuthorizationDecision;

/**
 * One rule, in the shape of an RBAC `PolicyRule`, plus an optional namespace restriction. `"*"`
 * matches anything in a list.
 */
export interface AuthorizationRule {
  /** Verbs allowed (`get`, `list`, `watch`, `create`, `update`, `patch`, `delete`, `impersonate`, `*`). */
  readonly verbs: readonly string[];
  /** API groups (`""` for core). Required unless `nonResourceURLs` is given. */
  readonly apiGroups?: readonly string[];
  /** Resources, `pods/status` for a subresource, `*` + `/scale` for every scale one. */
  readonly resources?: readonly string[];
  /** Only these object names. @default any */
  readonly resourceNames?: readonly string[];
  /** Only in these namespaces (a Role's namespace, as a RoleBinding would grant it). @default any, cluster-scoped too */
  readonly namespaces?: readonly string[];
  /** Non-resource paths (`/healthz`, `/logs/*`). */
  readonly nonResourceURLs?: readonly string[];
  /**
   * Only for these users (a binding's `User` subjects; with `groups`, for either).
   * @default everyone
   */
  readonly users?: readonly string[];
  /** Only for members of these groups (a binding's `Group` subjects). @default everyone */
  readonly groups?: readonly string[];
}

/**
 * The `authorization` option of `SimulatedCluster`: a rule list or a function.
 *
 * @example
 * ```ts
 * import { KubeClient, pods } from "@kinformer/kinformer/client";
 * import { SimulatedCluster } from "@kinformer/simulator";
 * import assert from "node:assert/strict";
 *
 * const cluster = new SimulatedCluster({
 *   authorization: [{ verbs: ["get", "list", "watch"], apiGroups: [""], resources: ["pods"] }],
 * });
 * const client = new KubeClient({ server: "http://sim.test", fetch: cluster.fetch });
 * assert.deepEqual((await client.list(pods, { namespace: "default" })).items, []);
 * await assert.rejects(
 *   client.create(pods, { metadata: { namespace: "default", name: "web" } }),
 *   { code: 403, reason: "Forbidden", message: /User "system:anonymous" cannot create resource "pods"/ },
 * );
 * cluster.close();
 *
 * // Or a function, for anything rules cannot say.
 * const readOnly = new SimulatedCluster({
 *   authorization: (a) => ["get", "list", "watch"].includes(a.verb) || { allowed: false, reason: "read-only" },
 * });
 * readOnly.close();
 * ```
 */
export type ClusterAuthorization = readonly AuthorizationRule[] | AuthorizationFunction;

/** Non-resource paths everyone may read (kube-apiserver's `system:discovery` and friends). */
const PUBLIC_PATH = /^\/(api|apis|openapi|version|healthz|livez|readyz)(\/|$)/;

/** A checked policy. */
export class AuthorizationPolicy {
  readonly #rules: readonly AuthorizationRule[] | undefined;
  readonly #fn: AuthorizationFunction | undefined;

  /** Checks `option` (the `authorization` option); `undefined` allows everything. */
  constructor(option: unknown) {
    if (option === undefined) {
      this.#rules = undefined;
      this.#fn = undefined;
    } else if (typeof option === "function") {
      this.#rules = undefined;
      this.#fn = option as AuthorizationFunction;
    } else if (Array.isArray(option)) {
      this.#rules = Object.freeze(
        option.map((r, i) => checkRule(r, `options.authorization[${i}]`)),
      );
      this.#fn = undefined;
    } else {
      throw new TypeError(
        `options.authorization must be an array of rules or a function, got ${
          describeValue(option)
        }`,
      );
    }
  }

  /** Whether the policy allows everything (the default). */
  get allowsAll(): boolean {
    return this.#rules === undefined && this.#fn === undefined;
  }

  /** The policy's rules, or undefined when it is a function (or allows everything). */
  get rules(): readonly AuthorizationRule[] | undefined {
    return this.#rules;
  }

  /**
   * The decision on `attributes`. A throwing or malformed function answer denies, with the
   * error as the reason (the API server treats a failing authorizer as a denial).
   */
  decide(attributes: AuthorizationAttributes): AuthorizationDecision {
    if (!attributes.resourceRequest && PUBLIC_PATH.test(attributes.path)) return { allowed: true };
    if (this.#fn !== undefined) {
      let answer: unknown;
      try {
        answer = this.#fn(attributes);
      } catch (error) {
        return {
          allowed: false,
          reason: `the authorization function failed: ${
            error instanceof Error ? error.message : String(error)
          }`,
        };
      }
      if (typeof answer === "boolean") return { allowed: answer };
      if (isRecord(answer) && typeof answer.allowed === "boolean") {
        return typeof answer.reason === "string" && answer.reason !== ""
          ? { allowed: answer.allowed, reason: answer.reason }
          : { allowed: answer.allowed };
      }
      return {
        allowed: false,
        reason: `the authorization function returned ${describeValue(answer)}`,
      };
    }
    if (this.#rules === undefined) return { allowed: true };
    return { allowed: this.#rules.some((r) => ruleAllows(r, attributes)) };
  }
}

function checkStrings(value: unknown, at: string, required: boolean): void {
  if (value === undefined && !required) return;
  if (!Array.isArray(value) || value.some((v) => typeof v !== "string")) {
    throw new TypeError(`${at} must be an array of strings`);
  }
}

function checkRule(rule: unknown, at: string): AuthorizationRule {
  if (!isRecord(rule)) throw new TypeError(`${at} must be an object, got ${describeValue(rule)}`);
  checkStrings(rule.verbs, `${at}.verbs`, true);
  for (
    const key of [
      "apiGroups",
      "resources",
      "resourceNames",
      "namespaces",
      "nonResourceURLs",
      "users",
      "groups",
    ]
  ) {
    checkStrings(rule[key], `${at}.${key}`, false);
  }
  const resourceRule = rule.apiGroups !== undefined || rule.resources !== undefined;
  if (resourceRule && (rule.apiGroups === undefined || rule.resources === undefined)) {
    throw new TypeError(`${at} needs both apiGroups and resources`);
  }
  if (!resourceRule && rule.nonResourceURLs === undefined) {
    throw new TypeError(`${at} needs apiGroups and resources, or nonResourceURLs`);
  }
  if (resourceRule && rule.nonResourceURLs !== undefined) {
    throw new TypeError(`${at} cannot have both resources and nonResourceURLs`);
  }
  return Object.freeze({ ...rule }) as unknown as AuthorizationRule;
}

const has = (list: readonly string[] | undefined, value: string): boolean =>
  list !== undefined && (list.includes("*") || list.includes(value));

function resourceMatches(resources: readonly string[], resource: string, sub: string): boolean {
  const full = sub === "" ? resource : `${resource}/${sub}`;
  for (const r of resources) {
    if (r === "*" || r === full) return true;
    if (sub !== "" && r === `*/${sub}`) return true;
  }
  return false;
}

/** Whether `rule` is granted to `user` (its `users` and `groups`, if any, name them). */
export function ruleAppliesTo(rule: AuthorizationRule, user: UserInfo): boolean {
  if (rule.users === undefined && rule.groups === undefined) return true;
  return (rule.users?.includes(user.username) ?? false) ||
    user.groups.some((g) => rule.groups?.includes(g) ?? false);
}

/** Whether `rule` allows `a` (RBAC's rule matching). */
export function ruleAllows(rule: AuthorizationRule, a: AuthorizationAttributes): boolean {
  if (!ruleAppliesTo(rule, a.user)) return false;
  if (!has(rule.verbs, a.verb)) return false;
  if (!a.resourceRequest) {
    return (rule.nonResourceURLs ?? []).some((u) =>
      u === "*" || u === a.path || (u.endsWith("*") && a.path.startsWith(u.slice(0, -1)))
    );
  }
  if (rule.resources === undefined) return false;
  if (!has(rule.apiGroups, a.apiGroup)) return false;
  if (!resourceMatches(rule.resources, a.resource, a.subresource)) return false;
  if (rule.resourceNames !== undefined && rule.resourceNames.length > 0) {
    if (!rule.resourceNames.includes(a.name)) return false;
  }
  if (rule.namespaces !== undefined && !rule.namespaces.includes(a.namespace)) return false;
  return true;
}

/** The message of a 403, worded as kube-apiserver's. */
export function forbiddenMessage(a: AuthorizationAttributes, reason: string | undefined): string {
  const user = describeValue(a.user.username);
  let message: string;
  if (!a.resourceRequest) {
    message = `User ${user} cannot ${a.verb} path ${describeValue(a.path)}`;
  } else {
    const resource = a.subresource === "" ? a.resource : `${a.resource}/${a.subresource}`;
    const where = a.namespace === ""
      ? "at the cluster scope"
      : `in the namespace ${describeValue(a.namespace)}`;
    message = `User ${user} cannot ${a.verb} resource ${describeValue(resource)} in API group ${
      describeValue(a.apiGroup)
    } ${where}`;
  }
  return reason === undefined || reason === "" ? message : `${message}: ${reason}`;
}
