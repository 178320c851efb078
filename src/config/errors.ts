/**
 * Typed errors of cluster configuration loading: a kubeconfig that does not parse, and a
 * configuration that parses but cannot be used.
 * @module
 */

/** Constructor options of {@linkcode KubeconfigParseError}. */
export interface KubeconfigParseErrorOptions {
  /** What is wrong, without the location (e.g. `anchors and aliases are not supported`). */
  reason: string;
  /** 1-based line number of the offending line. */
  line: number;
  /**
   * The offending line as written (without its line break); the value of a credential key
   * (`token`, `password`, `client-key-data`, ...) is replaced by `<redacted>`.
   */
  lineText: string;
  /**
   * File the text came from, for the message.
   * @default undefined
   */
  path?: string | undefined;
  /**
   * Underlying cause (e.g. the `SyntaxError` of a JSON kubeconfig).
   * @default undefined
   */
  cause?: unknown;
}

/**
 * A kubeconfig that is not valid YAML, or uses YAML beyond the subset kubectl writes (anchors,
 * aliases, tags, several documents, block scalars, flow collections with content, tabs).
 *
 * @example
 * ```ts
 * import { KubeconfigParseError, parseKubeconfig } from "@kinformer/kinformer/config";
 * try {
 *   parseKubeconfig("users:\n- name: &me alice\n");
 * } catch (error) {
 *   if (!(error instanceof KubeconfigParseError)) throw error;
 *   console.log(error.line, error.lineText); // 2 "- name: &me alice"
 * }
 * ```
 */
export class KubeconfigParseError extends Error {
  /** Always `"KubeconfigParseError"`. */
  override name = "KubeconfigParseError";
  /** What is wrong, without the location. */
  readonly reason: string;
  /** 1-based line number of the offending line. */
  readonly line: number;
  /** The offending line as written, credential values redacted. */
  readonly lineText: string;
  /** File the text came from, when known. */
  readonly path: string | undefined;

  /** Builds the error; the message names the file (if known), the line and shows it. */
  constructor(options: KubeconfigParseErrorOptions) {
    const where = `${options.path ?? "kubeconfig"}:${options.line}`;
    super(
      `${where}: ${options.reason}\n  ${JSON.stringify(options.lineText)}`,
      options.cause === undefined ? undefined : { cause: options.cause },
    );
    this.reason = options.reason;
    this.line = options.line;
    this.lineText = options.lineText;
    this.path = options.path;
  }

  /** The same error, naming the file `path` (used by the loaders, which know the file). */
  withPath(path: string): KubeconfigParseError {
    return new KubeconfigParseError({
      reason: this.reason,
      line: this.line,
      lineText: this.lineText,
      path,
      cause: this.cause,
    });
  }
}

/**
 * What went wrong in a {@linkcode ClusterConfigError}:
 * - `InvalidKubeconfig`: the kubeconfig parses but a field has the wrong shape or value.
 * - `NoCurrentContext`: no context was asked for and `current-context` is not set.
 * - `ContextNotFound` / `ClusterNotFound` / `UserNotFound`: a name that is not in the file.
 * - `UnsupportedAuth`: the user authenticates with an auth-provider, or with an exec plugin on
 *   a host that cannot run programs.
 * - `UnsupportedTls`: TLS settings this runtime's `fetch` cannot apply (pass a `fetch`).
 * - `FileNotFound`: a kubeconfig or a file it names does not exist.
 * - `InvalidFile`: a file it names is empty or not what it should be (token, PEM).
 * - `NotInCluster`: in-cluster loading outside a pod (no `KUBERNETES_SERVICE_HOST`).
 * - `NoConfig`: neither `KUBECONFIG`, `~/.kube/config` nor an in-cluster environment.
 */
export type ClusterConfigErrorCode =
  | "InvalidKubeconfig"
  | "NoCurrentContext"
  | "ContextNotFound"
  | "ClusterNotFound"
  | "UserNotFound"
  | "UnsupportedAuth"
  | "UnsupportedTls"
  | "FileNotFound"
  | "InvalidFile"
  | "NotInCluster"
  | "NoConfig";

/** Constructor options of {@linkcode ClusterConfigError}. */
export interface ClusterConfigErrorOptions {
  /** What went wrong. */
  code: ClusterConfigErrorCode;
  /**
   * The file involved (kubeconfig, certificate, token file), when there is one.
   * @default undefined
   */
  path?: string | undefined;
  /**
   * The name involved: a context, cluster or user name, or a kubeconfig field path.
   * @default undefined
   */
  subject?: string | undefined;
  /**
   * Underlying cause.
   * @default undefined
   */
  cause?: unknown;
}

/**
 * A cluster configuration that cannot be used: a missing context, cluster or user, an
 * unsupported authentication method, TLS settings the runtime cannot apply, no configuration
 * at all. `code` tells which; `path` and `subject` say where.
 *
 * @example
 * ```ts
 * import { ClusterConfigError, parseKubeconfig, resolveKubeconfig } from "@kinformer/kinformer/config";
 * const config = parseKubeconfig("apiVersion: v1\nkind: Config\nclusters: []\n");
 * try {
 *   resolveKubeconfig(config, { context: "prod" });
 * } catch (error) {
 *   if (!(error instanceof ClusterConfigError)) throw error;
 *   console.log(error.code, error.subject); // "ContextNotFound" "prod"
 * }
 * ```
 */
export class ClusterConfigError extends Error {
  /** Always `"ClusterConfigError"`. */
  override name = "ClusterConfigError";
  /** What went wrong. */
  readonly code: ClusterConfigErrorCode;
  /** The file involved, when there is one. */
  readonly path: string | undefined;
  /** The context, cluster or user name (or field path) involved, when there is one. */
  readonly subject: string | undefined;

  /** Builds the error with a complete, human-readable `message`. */
  constructor(message: string, options: ClusterConfigErrorOptions) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = options.code;
    this.path = options.path;
    this.subject = options.subject;
  }
}
