/**
 * What a kubeconfig user's credentials other than tokens, certificates and exec plugins become
 * (internal): impersonation header lines, the basic-auth header, and the refusal of
 * auth-providers.
 * @module
 */
import { checkHeaderValue } from "../client/http.ts";
import { base64Utf8, describeValue } from "../util/values.ts";
import type { HeaderLine } from "./_header_lines.ts";
import { ClusterConfigError } from "./errors.ts";
import type { ResolvedClusterConfig } from "./resolve_kubeconfig.ts";

/** Throws a `ClusterConfigError` (`UnsupportedAuth`) when the user names an auth-provider. */
export function rejectAuthProvider(resolved: ResolvedClusterConfig, path: string): void {
  if (resolved.authProvider === undefined) return;
  throw new ClusterConfigError(
    `${path}: user ${describeValue(resolved.userName ?? "")} uses the ` +
      `${describeValue(resolved.authProvider.name)} auth-provider, which kinformer does not ` +
      "run (kubectl dropped auth-providers too). Use the provider's exec plugin instead " +
      "(e.g. gke-gcloud-auth-plugin, kubelogin), a token (`token` or `tokenFile` in the " +
      "kubeconfig user, e.g. from `kubectl create token <serviceaccount>`), or run " +
      "`kubectl proxy` and connect with kubectlProxy().",
    { code: "UnsupportedAuth", path, subject: resolved.userName },
  );
}

/**
 * The `Impersonate-*` header lines of the user, as client-go sends them: `Impersonate-User`,
 * `Impersonate-Uid`, one `Impersonate-Group` per group, and one `Impersonate-Extra-<key>` per
 * value of each `as-user-extra` key, the key percent-encoded where a header name cannot hold
 * it (and `%` itself), as client-go does. None without `as`. A value a header cannot carry
 * (CR, LF, NUL, beyond Latin-1) is refused with a `ClusterConfigError` naming the field.
 */
export function impersonationLines(
  resolved: ResolvedClusterConfig,
  path: string,
): HeaderLine[] {
  const lines: HeaderLine[] = [];
  const imp = resolved.impersonate;
  if (imp === undefined) return lines;
  const field = (name: string): string => `users[${resolved.userName ?? ""}].user.${name}`;
  const add = (name: string, value: string, at: string): void => {
    try {
      checkHeaderValue(at, value);
    } catch {
      throw new ClusterConfigError(
        `${path}: ${at} cannot be sent in a header (CR, LF, NUL or a character beyond Latin-1)`,
        { code: "InvalidKubeconfig", path, subject: at },
      );
    }
    lines.push([name, value]);
  };
  add("Impersonate-User", imp.user, field("as"));
  if (imp.uid !== undefined) add("Impersonate-Uid", imp.uid, field("as-uid"));
  imp.groups.forEach((group, i) => add("Impersonate-Group", group, `${field("as-groups")}[${i}]`));
  for (const [key, values] of Object.entries(imp.extra)) {
    const name = `Impersonate-Extra-${headerKeyEscape(key)}`;
    values.forEach((value, i) => add(name, value, `${field("as-user-extra")}[${i}]`));
  }
  return lines;
}

/**
 * `key` with every byte that is not a header name character, and `%`, percent-encoded (its
 * UTF-8 bytes), as client-go encodes `Impersonate-Extra-` keys.
 */
export function headerKeyEscape(key: string): string {
  let out = "";
  for (const byte of new TextEncoder().encode(key)) {
    const c = String.fromCharCode(byte);
    out += byte < 0x80 && c !== "%" && /[!#$&'*+\-.^_`|~0-9A-Za-z]/.test(c)
      ? c
      : `%${byte.toString(16).toUpperCase().padStart(2, "0")}`;
  }
  return out;
}

/** Header lines as the `headers` option of `KubeClient`: repeated names joined by `, `. */
export function joinedHeaders(lines: readonly HeaderLine[]): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of lines) {
    headers[name] = Object.hasOwn(headers, name) ? `${headers[name]}, ${value}` : value;
  }
  return headers;
}

/** The `Authorization` value of basic auth: `Basic` and the base64 of `username:password`. */
export function basicAuthorization(username: string, password: string): string {
  return `Basic ${base64Utf8(`${username}:${password}`)}`;
}
