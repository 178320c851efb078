/**
 * The field names of a kubeconfig, the only keys its parse errors show (internal).
 * @module
 */

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

/** Whether `key` is a kubeconfig field name (compared without case), so safe to show. */
export function isKubeconfigField(key: string): boolean {
  return FIELD_NAMES.has(key.toLowerCase());
}
