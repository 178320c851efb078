/**
 * User impersonation on the simulated cluster, as kube-apiserver's impersonation filter does it
 * (`kubectl --as=alice --as-group=devs --as-uid=... `): the headers `Impersonate-User`,
 * `Impersonate-Group` (repeatable), `Impersonate-Uid` and `Impersonate-Extra-<key>` (the key
 * percent-decoded and lower-cased; repeatable) switch the request's user, once the requester
 * is authorized for the verb `impersonate` on each thing asked for:
 *
 * - `users` (core group) named by the user, or `serviceaccounts` in their namespace for a
 *   `system:serviceaccount:<namespace>:<name>` user;
 * - `groups` (core group) named by each group;
 * - `uids` in `authentication.k8s.io` named by the uid;
 * - `userextras/<key>` in `authentication.k8s.io` named by each value.
 *
 * A denial is the server's 403 (`users "alice" is forbidden: User "bob" cannot impersonate
 * resource "users" in API group "" at the cluster scope`). Groups, a uid or extras without a
 * user are the server's 500. The impersonated user's groups are the ones asked for (a service
 * account's own groups when none are), plus `system:authenticated` unless they include it or
 * `system:unauthenticated` (`system:unauthenticated` for `system:anonymous`). Everything after
 * (authorization, the self reviews) sees the impersonated user.
 *
 * Repeated headers reach a `Request` joined by `", "`, so a group or extra value that itself
 * contains a comma cannot be told apart from two; kubectl never sends one.
 * @module
 */
import { fail, forbidden, internalError } from "../../core/status.ts";
import {
  type AuthorizationAttributes,
  type AuthorizationPolicy,
  forbiddenMessage,
  type UserInfo,
} from "./authorization_policy.ts";

const USER = "impersonate-user";
const GROUP = "impersonate-group";
const UID = "impersonate-uid";
const EXTRA = "impersonate-extra-";
const AUTHENTICATION = "authentication.k8s.io";
const SERVICE_ACCOUNT = /^system:serviceaccount:([^:]+):([^:]+)$/;

/** One thing asked for, checked as the attributes the server authorizes it with. */
interface Wanted {
  readonly apiGroup: string;
  readonly resource: string;
  readonly subresource: string;
  readonly namespace: string;
  readonly name: string;
  /** Go's `%v` of the ObjectReference the server builds (for its 500 message). */
  readonly shown: string;
}

function values(header: string | null): string[] {
  if (header === null) return [];
  return header.split(",").map((v) => v.trim()).filter((v) => v !== "");
}

function extraKey(encoded: string): string {
  try {
    return decodeURIComponent(encoded);
  } catch {
    return encoded; // as the server: a key that does not decode is taken as sent
  }
}

/** Whether `request` asks to impersonate anyone (an empty header asks nothing, as on the server). */
function hasImpersonation(request: Request): boolean {
  for (const [name, value] of request.headers) {
    if (value === "") continue;
    if (name === USER || name === GROUP || name === UID || name.startsWith(EXTRA)) return true;
  }
  return false;
}

/**
 * The user `request` acts as: `requester` when it has no impersonation headers, else the
 * impersonated user once `policy` allowed each part of it.
 *
 * @throws {KubeApiError} 403 when the requester may not impersonate something asked for, 500
 *   for groups, a uid or extras without a user.
 */
export function impersonatedUser(
  request: Request,
  requester: UserInfo,
  policy: AuthorizationPolicy,
): UserInfo {
  if (!hasImpersonation(request)) return requester;
  const headers = request.headers;
  const wanted: Wanted[] = [];
  const ref = (
    kind: string,
    name: string,
    more: { namespace?: string; apiVersion?: string; fieldPath?: string } = {},
  ) =>
    `{${kind} ${more.namespace ?? ""} ${name}  ${more.apiVersion ?? ""}  ${more.fieldPath ?? ""}}`;
  const username = headers.get(USER) ?? "";
  const account = SERVICE_ACCOUNT.exec(username);
  if (account !== null) {
    const [, namespace, name] = account as unknown as [string, string, string];
    wanted.push({
      apiGroup: "",
      resource: "serviceaccounts",
      subresource: "",
      namespace,
      name,
      shown: ref("ServiceAccount", name, { namespace }),
    });
  } else if (username !== "") {
    wanted.push({
      apiGroup: "",
      resource: "users",
      subresource: "",
      namespace: "",
      name: username,
      shown: ref("User", username),
    });
  }
  const groups = values(headers.get(GROUP));
  for (const group of groups) {
    wanted.push({
      apiGroup: "",
      resource: "groups",
      subresource: "",
      namespace: "",
      name: group,
      shown: ref("Group", group),
    });
  }
  const extra: Record<string, string[]> = {};
  const extraHeaders = [...headers].filter(([name]) => name.startsWith(EXTRA)).sort();
  for (const [name, value] of extraHeaders) {
    const key = extraKey(name.slice(EXTRA.length)).toLowerCase();
    for (const v of values(value)) {
      (Object.hasOwn(extra, key) ? extra[key]! : (extra[key] = [])).push(v);
      wanted.push({
        apiGroup: AUTHENTICATION,
        resource: "userextras",
        subresource: key,
        namespace: "",
        name: v,
        shown: ref("UserExtra", v, { apiVersion: `${AUTHENTICATION}/v1`, fieldPath: key }),
      });
    }
  }
  const uid = headers.get(UID) ?? "";
  if (uid !== "") {
    wanted.push({
      apiGroup: AUTHENTICATION,
      resource: "uids",
      subresource: "",
      namespace: "",
      name: uid,
      shown: ref("UID", uid, { apiVersion: `${AUTHENTICATION}/v1` }),
    });
  }
  if (username === "") {
    fail(internalError(
      `requested [${wanted.map((w) => w.shown).join(" ")}] without impersonating a user`,
    ));
  }
  for (const w of wanted) {
    const attributes: AuthorizationAttributes = {
      user: requester,
      verb: "impersonate",
      resourceRequest: true,
      apiGroup: w.apiGroup,
      apiVersion: "",
      resource: w.resource,
      subresource: w.subresource,
      namespace: w.namespace,
      name: w.name,
      path: new URL(request.url).pathname,
    };
    const decision = policy.decide(attributes);
    if (!decision.allowed) {
      fail(
        forbidden(w.resource, w.apiGroup, w.name, forbiddenMessage(attributes, decision.reason)),
      );
    }
  }
  const finalGroups = groups.length === 0 && account !== null
    ? ["system:serviceaccounts", `system:serviceaccounts:${account[1]}`]
    : [...groups];
  if (username === "system:anonymous") {
    if (!finalGroups.includes("system:unauthenticated")) {
      finalGroups.push("system:unauthenticated");
    }
  } else if (
    !finalGroups.includes("system:authenticated") && !finalGroups.includes("system:unauthenticated")
  ) {
    finalGroups.push("system:authenticated");
  }
  const user: { username: string; groups: string[]; uid?: string; extra?: typeof extra } = {
    username,
    groups: finalGroups,
  };
  if (uid !== "") user.uid = uid;
  if (Object.keys(extra).length > 0) user.extra = extra;
  return user;
}
