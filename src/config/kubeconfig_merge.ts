/**
 * Merging the kubeconfig files of a `KUBECONFIG` list by client-go's rules
 * ({@linkcode mergeKubeconfigs}), with relative paths resolved against the file naming them.
 * @module
 */
import { dirnameOf, isAbsolutePath, resolveFrom } from "./_path.ts";
import type {
  Kubeconfig,
  KubeconfigCluster,
  KubeconfigContext,
  KubeconfigExtension,
  KubeconfigUser,
} from "./kubeconfig.ts";

/** One parsed kubeconfig file, for {@linkcode mergeKubeconfigs}. */
export interface KubeconfigFile {
  /** The file, parsed (`parseKubeconfig`). */
  config: Kubeconfig;
  /**
   * Where it was read from: relative paths in it (`certificate-authority`,
   * `client-certificate`, `client-key`, `tokenFile`, an exec `command` with a slash) are
   * resolved against its folder.
   * @default undefined (paths kept as written)
   */
  path?: string | undefined;
}

/** Which file each entry of a merged kubeconfig came from. Internal. */
export interface KubeconfigOrigins {
  /** File of each cluster, by name. */
  clusters: Map<string, string | undefined>;
  /** File of each user, by name. */
  users: Map<string, string | undefined>;
  /** File of each context, by name. */
  contexts: Map<string, string | undefined>;
  /** File that set `current-context`. */
  currentContext: string | undefined;
}

/**
 * Merges kubeconfig files as kubectl merges the files of a `KUBECONFIG` list: for clusters,
 * users, contexts and extensions the first file that has a name wins, whole (a later file's
 * entry of that name is ignored, even the fields the first one lacks); `current-context` comes
 * from the first file that sets it. Relative paths are resolved against the folder of the
 * file they are in, so each file's paths keep pointing where they did. The inputs are not
 * changed.
 *
 * @example
 * ```ts
 * import { mergeKubeconfigs, parseKubeconfig, resolveKubeconfig } from "@kinformer/kinformer/config";
 * import assert from "node:assert/strict";
 * const main = parseKubeconfig(JSON.stringify({
 *   contexts: [{ name: "eks", context: { cluster: "eks", user: "eks" } }],
 *   "current-context": "eks",
 * }));
 * const eks = parseKubeconfig(JSON.stringify({
 *   clusters: [{ name: "eks", cluster: { server: "https://eks.example", "certificate-authority": "ca.crt" } }],
 *   users: [{ name: "eks", user: { token: "abc" } }],
 *   "current-context": "ignored",
 * }));
 * const merged = mergeKubeconfigs([
 *   { config: main, path: "/home/me/.kube/config" },
 *   { config: eks, path: "/home/me/.kube/eks.yaml" },
 * ]);
 * assert.equal(merged.currentContext, "eks");
 * const resolved = resolveKubeconfig(merged);
 * assert.equal(resolved.server, "https://eks.example");
 * assert.equal(resolved.caFile, "/home/me/.kube/ca.crt");
 * ```
 */
export function mergeKubeconfigs(files: readonly KubeconfigFile[]): Kubeconfig {
  return mergeWithOrigins(files).config;
}

/** {@linkcode mergeKubeconfigs}, also telling which file each entry came from. Internal. */
export function mergeWithOrigins(
  files: readonly KubeconfigFile[],
): { config: Kubeconfig; origins: KubeconfigOrigins } {
  const config: Kubeconfig = { clusters: [], users: [], contexts: [] };
  const origins: KubeconfigOrigins = {
    clusters: new Map(),
    users: new Map(),
    contexts: new Map(),
    currentContext: undefined,
  };
  const extensions: KubeconfigExtension[] = [];
  const extensionNames = new Set<string>();
  for (const { config: file, path } of files) {
    const dir = path === undefined ? undefined : dirnameOf(path);
    const local = (p: string | undefined): string | undefined =>
      p === undefined || p === "" || dir === undefined ? p : resolveFrom(dir, p);
    for (const cluster of file.clusters) {
      if (origins.clusters.has(cluster.name)) continue;
      origins.clusters.set(cluster.name, path);
      config.clusters.push(withCluster(cluster, local));
    }
    for (const user of file.users) {
      if (origins.users.has(user.name)) continue;
      origins.users.set(user.name, path);
      config.users.push(withUser(user, local));
    }
    for (const context of file.contexts) {
      if (origins.contexts.has(context.name)) continue;
      origins.contexts.set(context.name, path);
      config.contexts.push({ ...context } satisfies KubeconfigContext);
    }
    for (const extension of file.extensions ?? []) {
      if (extensionNames.has(extension.name)) continue;
      extensionNames.add(extension.name);
      extensions.push(extension);
    }
    if (config.currentContext === undefined && file.currentContext) {
      config.currentContext = file.currentContext;
      origins.currentContext = path;
    }
  }
  if (extensions.length > 0) config.extensions = extensions;
  return { config, origins };
}

type Local = (path: string | undefined) => string | undefined;

function withCluster(cluster: KubeconfigCluster, local: Local): KubeconfigCluster {
  const out: KubeconfigCluster = { ...cluster };
  if (cluster.certificateAuthority !== undefined) {
    out.certificateAuthority = local(cluster.certificateAuthority)!;
  }
  return out;
}

function withUser(user: KubeconfigUser, local: Local): KubeconfigUser {
  const out: KubeconfigUser = { ...user };
  if (user.clientCertificate !== undefined) {
    out.clientCertificate = local(user.clientCertificate)!;
  }
  if (user.clientKey !== undefined) out.clientKey = local(user.clientKey)!;
  if (user.tokenFile !== undefined) out.tokenFile = local(user.tokenFile)!;
  // Like kubectl: a command with a slash is a path (relative to the file); a bare name is
  // looked up in PATH.
  const command = user.exec?.command;
  if (command !== undefined && /[\\/]/.test(command) && !isAbsolutePath(command)) {
    out.exec = { ...user.exec!, command: local(command)! };
  }
  return out;
}
