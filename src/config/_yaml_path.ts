/**
 * Where the kubeconfig YAML parser is, for its error messages: the chain of keys and sequence
 * indexes from the root. Only keys that are kubeconfig field names are ever printed; any other
 * key shows as `<key>`, because in broken input a secret can end up where a key is expected.
 * @module
 */

/** One step of a path: a mapping key or a sequence index, and the path of its parent. */
export interface YamlPath {
  /** Path of the collection this key or index is in; `undefined` at the root. */
  readonly parent: YamlPath | undefined;
  /** Mapping key or sequence index. */
  readonly part: string | number;
}

/** The path of `part` inside `parent`. */
export function childPath(parent: YamlPath | undefined, part: string | number): YamlPath {
  return { parent, part };
}

/**
 * Field names a kubeconfig uses (kubectl's `Config` and `clientcmd` types, exec plugins and the
 * common auth-provider settings), lower-cased. A key is printed in an error only when it is one
 * of these, compared without case (so `Token` is shown as written: it is a key, not a value).
 */
const FIELD_NAMES: ReadonlySet<string> = new Set([
  "apiversion",
  "kind",
  "preferences",
  "colors",
  "extensions",
  "extension",
  "clusters",
  "cluster",
  "users",
  "user",
  "contexts",
  "context",
  "current-context",
  "name",
  "namespace",
  "server",
  "tls-server-name",
  "insecure-skip-tls-verify",
  "certificate-authority",
  "certificate-authority-data",
  "proxy-url",
  "disable-compression",
  "client-certificate",
  "client-certificate-data",
  "client-key",
  "client-key-data",
  "token",
  "tokenfile",
  "username",
  "password",
  "as",
  "as-uid",
  "as-groups",
  "as-user-extra",
  "auth-provider",
  "config",
  "exec",
  "command",
  "args",
  "env",
  "value",
  "installhint",
  "provideclusterinfo",
  "interactivemode",
  "client-id",
  "client-secret",
  "id-token",
  "refresh-token",
  "access-token",
  "idp-issuer-url",
  "idp-certificate-authority",
  "idp-certificate-authority-data",
  "expiry",
  "expires-in",
  "expires-on",
  "cmd-path",
  "cmd-args",
  "token-key",
  "expiry-key",
  "scopes",
  "apiserver-id",
  "tenant-id",
  "environment",
  "config-mode",
]);

/**
 * The path as text, e.g. `users[0].user.token`, with keys that are not kubeconfig field names
 * shown as `<key>`; `undefined` at the root.
 */
export function describePath(path: YamlPath | undefined): string | undefined {
  if (path === undefined) return undefined;
  const parts: (string | number)[] = [];
  for (let p: YamlPath | undefined = path; p !== undefined; p = p.parent) parts.push(p.part);
  let text = "";
  for (let i = parts.length - 1; i >= 0; i--) {
    const part = parts[i] ?? "";
    if (typeof part === "number") text += `[${part}]`;
    else text += (text === "" ? "" : ".") + (FIELD_NAMES.has(part.toLowerCase()) ? part : "<key>");
  }
  return text;
}
