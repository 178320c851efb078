/**
 * Choosing a context of a parsed kubeconfig: {@linkcode resolveKubeconfig} returns the one
 * cluster, user and namespace to connect with, the PEM data decoded, errors naming fields and
 * entries, never a value.
 * @module
 */
import { ClusterConfigError, invalidKubeconfig as invalid } from "./errors.ts";
import type {
  Kubeconfig,
  KubeconfigAuthProvider,
  KubeconfigExec,
  KubeconfigUser,
} from "./kubeconfig.ts";
import type { YamlValue } from "./yaml/yaml_value.ts";
import { describeValue } from "../util/values.ts";

/** Name of the cluster extension client-go hands to exec plugins. */
const EXEC_EXTENSION = "client.authentication.k8s.io/exec";

/** Options of {@linkcode resolveKubeconfig}. */
export interface ResolveKubeconfigOptions {
  /**
   * Context to use.
   * @default the kubeconfig's `current-context`
   */
  context?: string | undefined;
}

/**
 * Where to connect and how to authenticate, after picking a context. Data fields are decoded
 * PEM text; `*File` fields are paths as written in the kubeconfig (relative to its folder),
 * left for a loader to read, and only present when the matching data field is not.
 */
export interface ResolvedClusterConfig {
  /** The context used. */
  contextName: string;
  /** The cluster the context names. */
  clusterName: string;
  /** The user the context names; absent for anonymous access. */
  userName?: string;
  /** API server URL. */
  server: string;
  /** Default namespace of the context. */
  namespace?: string;
  /** Bearer token. */
  token?: string;
  /** File holding the bearer token (when `token` is absent). */
  tokenFile?: string;
  /** Basic authentication user. */
  username?: string;
  /** Basic authentication password. */
  password?: string;
  /** PEM CA bundle. */
  caData?: string;
  /** Path of the PEM CA bundle (when `caData` is absent). */
  caFile?: string;
  /** PEM client certificate. */
  clientCertData?: string;
  /** Path of the PEM client certificate (when `clientCertData` is absent). */
  clientCertFile?: string;
  /** PEM client key. */
  clientKeyData?: string;
  /** Path of the PEM client key (when `clientKeyData` is absent). */
  clientKeyFile?: string;
  /** Skip verifying the server certificate. */
  insecureSkipTlsVerify?: boolean;
  /** Name to verify the server certificate against. */
  tlsServerName?: string;
  /** Proxy URL. */
  proxyUrl?: string;
  /** Do not ask for compressed responses (`disable-compression`). */
  disableCompression?: boolean;
  /**
   * The cluster's `client.authentication.k8s.io/exec` extension, handed to the user's exec
   * plugin (`spec.cluster.config`) when it has `provideClusterInfo`.
   */
  execClusterConfig?: YamlValue;
  /** Impersonation (`as`, `as-uid`, `as-groups`, `as-user-extra`), sent as headers. */
  impersonate?: Impersonation;
  /** Exec credential plugin of the user (the loaders run it). */
  exec?: KubeconfigExec;
  /** Auth-provider of the user (not run by kinformer). */
  authProvider?: KubeconfigAuthProvider;
}

/** Who to act as (the `Impersonate-*` headers). */
export interface Impersonation {
  /** `Impersonate-User`. */
  user: string;
  /** `Impersonate-Uid`. */
  uid?: string;
  /** One `Impersonate-Group` per group. */
  groups: string[];
  /** `Impersonate-Extra-<key>` per key. */
  extra: Record<string, string[]>;
}

/**
 * Picks a context (the given one, else `current-context`) and returns its cluster, user and
 * namespace as a {@linkcode ResolvedClusterConfig}. Throws a {@linkcode ClusterConfigError}
 * (`NoCurrentContext`, `ContextNotFound`, `ClusterNotFound`, `UserNotFound`,
 * `InvalidKubeconfig`) naming what is missing. Exec plugins and auth-providers are returned,
 * not rejected: the loaders run exec plugins and reject auth-providers.
 *
 * @example
 * ```ts
 * import { parseKubeconfig, resolveKubeconfig } from "@kinformer/kinformer/config";
 * import assert from "node:assert/strict";
 * const config = parseKubeconfig(JSON.stringify({
 *   clusters: [{ name: "dev", cluster: { server: "https://127.0.0.1:6443" } }],
 *   users: [{ name: "alice", user: { token: "abc" } }],
 *   contexts: [{ name: "dev", context: { cluster: "dev", user: "alice", namespace: "team-a" } }],
 *   "current-context": "dev",
 * }));
 * const resolved = resolveKubeconfig(config);
 * assert.equal(resolved.server, "https://127.0.0.1:6443");
 * assert.equal(resolved.token, "abc");
 * assert.equal(resolved.namespace, "team-a");
 * ```
 */
export function resolveKubeconfig(
  config: Kubeconfig,
  options: ResolveKubeconfigOptions = {},
): ResolvedClusterConfig {
  const contextName = options.context ?? config.currentContext;
  if (contextName === undefined || contextName === "") {
    throw new ClusterConfigError(
      "the kubeconfig has no current-context; pass a context name " +
        `(${listNames(config.contexts, "contexts")})`,
      { code: "NoCurrentContext" },
    );
  }
  const context = config.contexts.find((c) => c.name === contextName);
  if (context === undefined) {
    throw new ClusterConfigError(
      `context ${describeValue(contextName)} is not in the kubeconfig ` +
        `(${listNames(config.contexts, "contexts")})`,
      { code: "ContextNotFound", subject: contextName },
    );
  }
  if (context.cluster === "") {
    throw invalid(
      `context ${describeValue(contextName)} names no cluster`,
      `contexts[${contextName}].context.cluster`,
    );
  }
  const cluster = config.clusters.find((c) => c.name === context.cluster);
  if (cluster === undefined) {
    throw new ClusterConfigError(
      `cluster ${describeValue(context.cluster)} of context ${describeValue(contextName)} ` +
        `is not in the kubeconfig (${listNames(config.clusters, "clusters")})`,
      { code: "ClusterNotFound", subject: context.cluster },
    );
  }
  let user: KubeconfigUser | undefined;
  if (context.user !== undefined && context.user !== "") {
    user = config.users.find((u) => u.name === context.user);
    if (user === undefined) {
      throw new ClusterConfigError(
        `user ${describeValue(context.user)} of context ${describeValue(contextName)} ` +
          `is not in the kubeconfig (${listNames(config.users, "users")})`,
        { code: "UserNotFound", subject: context.user },
      );
    }
  }

  const server = cluster.server ?? "";
  const where = `cluster ${describeValue(cluster.name)}`;
  if (server === "") {
    throw invalid(`${where} has no server`, `clusters[${cluster.name}].cluster.server`);
  }
  let url: URL | undefined;
  try {
    url = new URL(server);
  } catch {
    url = undefined;
  }
  if (url === undefined || (url.protocol !== "https:" && url.protocol !== "http:")) {
    throw invalid( // not shown: a URL can hold credentials (https://user:password@host)
      `${where} has a server that is not an http(s) URL`,
      `clusters[${cluster.name}].cluster.server`,
    );
  }

  const resolved: ResolvedClusterConfig = { contextName, clusterName: cluster.name, server };
  if (context.namespace !== undefined && context.namespace !== "") {
    resolved.namespace = context.namespace;
  }
  const field = (name: string): string => `clusters[${cluster.name}].cluster.${name}`;
  if (cluster.certificateAuthorityData) {
    resolved.caData = decodePem(
      cluster.certificateAuthorityData,
      field("certificate-authority-data"),
    );
  } else if (cluster.certificateAuthority) {
    resolved.caFile = cluster.certificateAuthority;
  }
  if (cluster.insecureSkipTlsVerify === true) {
    if (resolved.caData !== undefined || resolved.caFile !== undefined) {
      throw invalid(
        `${where} sets both a certificate authority and insecure-skip-tls-verify; keep one`,
        field("insecure-skip-tls-verify"),
      );
    }
    resolved.insecureSkipTlsVerify = true;
  }
  if (cluster.tlsServerName) resolved.tlsServerName = cluster.tlsServerName;
  if (cluster.proxyUrl) resolved.proxyUrl = cluster.proxyUrl;
  if (cluster.disableCompression === true) resolved.disableCompression = true;
  const execExtension = cluster.extensions?.find((e) => e.name === EXEC_EXTENSION);
  if (execExtension !== undefined) resolved.execClusterConfig = execExtension.extension;

  if (user !== undefined) resolveUser(user, resolved);
  return resolved;
}

/** Copies the credentials of `user` into `resolved`. */
function resolveUser(user: KubeconfigUser, resolved: ResolvedClusterConfig): void {
  const field = (name: string): string => `users[${user.name}].user.${name}`;
  const who = `user ${describeValue(user.name)}`;
  resolved.userName = user.name;
  if (user.token) resolved.token = user.token;
  else if (user.tokenFile) resolved.tokenFile = user.tokenFile;
  if (user.username || user.password) {
    if (resolved.token !== undefined || resolved.tokenFile !== undefined) {
      throw invalid(`${who} sets both a token and username/password; keep one`, field("username"));
    }
    if (!user.username) throw invalid(`${who} sets a password but no username`, field("username"));
    resolved.username = user.username;
    resolved.password = user.password ?? "";
  }
  if (user.clientCertificateData) {
    resolved.clientCertData = decodePem(
      user.clientCertificateData,
      field("client-certificate-data"),
    );
  } else if (user.clientCertificate) resolved.clientCertFile = user.clientCertificate;
  if (user.clientKeyData) {
    resolved.clientKeyData = decodePem(user.clientKeyData, field("client-key-data"));
  } else if (user.clientKey) resolved.clientKeyFile = user.clientKey;
  const hasCert = resolved.clientCertData !== undefined || resolved.clientCertFile !== undefined;
  const hasKey = resolved.clientKeyData !== undefined || resolved.clientKeyFile !== undefined;
  if (hasCert !== hasKey) {
    throw invalid(
      `${who} has a client ${hasCert ? "certificate but no key" : "key but no certificate"}`,
      field(hasCert ? "client-key" : "client-certificate"),
    );
  }
  const groups = user.impersonateGroups ?? [];
  const extra = user.impersonateUserExtra ?? {};
  if (user.impersonate) {
    const impersonate: Impersonation = { user: user.impersonate, groups, extra };
    if (user.impersonateUid) impersonate.uid = user.impersonateUid;
    resolved.impersonate = impersonate;
  } else if (user.impersonateUid || groups.length > 0 || Object.keys(extra).length > 0) {
    throw invalid(`${who} sets as-groups, as-uid or as-user-extra without as`, field("as"));
  }
  if (user.exec !== undefined) resolved.exec = user.exec;
  if (user.authProvider !== undefined) resolved.authProvider = user.authProvider;
}

/** Decodes a base64 `*-data` field into PEM text (no cause kept: it may be a private key). */
function decodePem(base64: string, field: string): string {
  let text: string;
  try {
    const binary = atob(base64.replace(/\s+/g, ""));
    const bytes = Uint8Array.from(binary, (c) => c.charCodeAt(0));
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw invalid(`${field} is not valid base64 of PEM text`, field);
  }
  if (!text.includes("-----BEGIN ")) {
    throw invalid(`${field} does not decode to PEM (no "-----BEGIN" line)`, field);
  }
  return text;
}

function listNames(items: { name: string }[], what: string): string {
  if (items.length === 0) return `it has no ${what}`;
  return `${what}: ${items.map((i) => describeValue(i.name)).join(", ")}`;
}
