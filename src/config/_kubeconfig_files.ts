/**
 * Finding and reading the kubeconfig files of a load (internal): the `KUBECONFIG` list or
 * `~/.kube/config`, missing files skipped as client-go skips them (an explicitly given path
 * that is missing is an error), each parsed and then merged.
 * @module
 */
import { resolveFrom } from "./_path.ts";
import type { ConfigHost } from "./config_loader_options.ts";
import { ClusterConfigError, KubeconfigParseError } from "./errors.ts";
import { parseKubeconfig } from "./kubeconfig.ts";
import {
  type KubeconfigFile,
  type KubeconfigOrigins,
  mergeWithOrigins,
} from "./kubeconfig_merge.ts";
import type { Kubeconfig } from "./kubeconfig.ts";

/** The files of a load, merged. */
export interface KubeconfigFiles {
  /** The merged kubeconfig. */
  config: Kubeconfig;
  /** Which file each entry came from. */
  origins: KubeconfigOrigins;
  /** The files read, in order. */
  paths: string[];
  /** Files of the list that do not exist (skipped). */
  missing: string[];
}

/** The home folder: `HOME`, else `USERPROFILE`, else `HOMEDRIVE` + `HOMEPATH`. */
export function homeDir(host: ConfigHost): string | undefined {
  const home = host.env("HOME") || host.env("USERPROFILE");
  if (home) return home;
  const drive = host.env("HOMEDRIVE");
  const path = host.env("HOMEPATH");
  return drive && path ? drive + path : undefined;
}

/**
 * The paths in `KUBECONFIG`, split on the host's list separator (`:`, or `;` on Windows),
 * empty entries and repeats dropped; `undefined` when it names none.
 */
export function kubeconfigEnvPaths(host: ConfigHost): string[] | undefined {
  const list = host.env("KUBECONFIG") ?? "";
  const paths = [
    ...new Set(list.split(host.pathListSeparator).map((p) => p.trim()).filter((p) => p !== "")),
  ];
  return paths.length > 0 ? paths : undefined;
}

/** The files a load reads by default: `KUBECONFIG`'s, else `~/.kube/config` (if a home). */
export function defaultKubeconfigPaths(host: ConfigHost): string[] {
  const fromEnv = kubeconfigEnvPaths(host);
  if (fromEnv !== undefined) return fromEnv;
  const home = homeDir(host);
  return home === undefined ? [] : [resolveFrom(home, ".kube/config")];
}

/** Adds the file to a config error raised while reading it. */
export function withPath(error: unknown, path: string): unknown {
  if (error instanceof KubeconfigParseError && error.path === undefined) {
    return error.withPath(path);
  }
  if (error instanceof ClusterConfigError && error.path === undefined) {
    return new ClusterConfigError(`${path}: ${error.message}`, {
      code: error.code,
      path,
      subject: error.subject,
      cause: error.cause,
    });
  }
  return error;
}

/**
 * Reads and merges `paths`. A missing file is skipped, unless `explicit` (one path the caller
 * named), where it is a `FileNotFound` error; a file that does not parse fails the load,
 * naming it.
 */
export async function readKubeconfigFiles(
  host: ConfigHost,
  paths: readonly string[],
  explicit: boolean,
  signal: AbortSignal | undefined,
): Promise<KubeconfigFiles> {
  const files: KubeconfigFile[] = [];
  const missing: string[] = [];
  for (const path of paths) {
    let text: string;
    try {
      text = await host.readFile(path);
    } catch (cause) {
      if (!host.isNotFound(cause)) throw cause;
      if (explicit) {
        throw new ClusterConfigError(`kubeconfig ${path} does not exist`, {
          code: "FileNotFound",
          path,
          cause,
        });
      }
      missing.push(path);
      continue;
    }
    signal?.throwIfAborted();
    try {
      files.push({ config: parseKubeconfig(text), path });
    } catch (error) {
      throw withPath(error, path);
    }
  }
  const { config, origins } = mergeWithOrigins(files);
  return { config, origins, paths: files.map((f) => f.path!), missing };
}

/** Whether a merged kubeconfig holds nothing (client-go then tries in-cluster). */
export function isEmptyKubeconfig(config: Kubeconfig): boolean {
  return config.clusters.length === 0 && config.users.length === 0 &&
    config.contexts.length === 0 && config.currentContext === undefined;
}
