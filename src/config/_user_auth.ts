/**
 * What a kubeconfig user's credentials other than tokens, certificates and exec plugins become
 * (internal): impersonation and basic-auth headers, and the refusal of auth-providers.
 * @module
 */
import { ClusterConfigError } from "./errors.ts";
import type { ResolvedClusterConfig } from "./resolve_kubeconfig.ts";
import { base64Utf8 } from "../util/values.ts";

/** Throws a `ClusterConfigError` (`UnsupportedAuth`) when the user names an auth-provider. */
export function rejectAuthProvider(resolved: ResolvedClusterConfig, path: string): void {
  if (resolved.authProvider === undefined) return;
  throw new ClusterConfigError(
    `${path}: user ${JSON.stringify(resolved.userName ?? "")} uses the ` +
      `${JSON.stringify(resolved.authProvider.name)} auth-provider, which kinformer does not ` +
      "run (kubectl dropped auth-providers too). Use the provider's exec plugin instead " +
      "(e.g. gke-gcloud-auth-plugin, kubelogin), a token (`token` or `tokenFile` in the " +
      "kubeconfig user, e.g. from `kubectl create token <serviceaccount>`), or run " +
      "`kubectl proxy` and connect with kubectlProxy().",
    { code: "UnsupportedAuth", path, subject: resolved.userName },
  );
}

/**
 * The `Impersonate-*` headers of the user (none without `as`). Several groups or several values
 * of one extra key need repeated headers, which `fetch` cannot send: a `ClusterConfigError`.
 */
export function impersonationHeaders(
  resolved: ResolvedClusterConfig,
  path: string,
): Record<string, string> {
  const headers: Record<string, string> = {};
  const imp = resolved.impersonate;
  if (imp === undefined) return headers;
  const repeated = imp.groups.length > 1 ||
    Object.values(imp.extra).some((values) => values.length > 1);
  if (repeated) {
    throw new ClusterConfigError(
      `${path}: user ${JSON.stringify(resolved.userName ?? "")} impersonates several groups ` +
        "or extra values, which needs repeated headers that fetch cannot send; keep one",
      { code: "UnsupportedAuth", path, subject: resolved.userName },
    );
  }
  headers["Impersonate-User"] = imp.user;
  if (imp.uid !== undefined) headers["Impersonate-Uid"] = imp.uid;
  const group = imp.groups[0];
  if (group !== undefined) headers["Impersonate-Group"] = group;
  for (const [key, values] of Object.entries(imp.extra)) {
    const value = values[0];
    if (value !== undefined) headers[`Impersonate-Extra-${encodeURIComponent(key)}`] = value;
  }
  return headers;
}

/** The `Authorization` value of basic auth: `Basic` and the base64 of `username:password`. */
export function basicAuthorization(username: string, password: string): string {
  return `Basic ${base64Utf8(`${username}:${password}`)}`;
}
