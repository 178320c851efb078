/**
 * Typed errors of cluster configuration loading: a kubeconfig that does not parse, and a
 * configuration that parses but cannot be used.
 * @module
 */
import type { ErrorKind } from "../util/error_kind.ts";
import { YamlSyntaxError } from "./yaml/yaml_syntax_error.ts";

/** Constructor options of {@linkcode KubeconfigParseError}. */
export interface KubeconfigParseErrorOptions {
  /** What is wrong, without the location (e.g. `anchors (&name) are not supported`). */
  reason: string;
  /** 1-based line number of the offending line. */
  line: number;
  /**
   * 1-based column (in UTF-16 code units) where the problem is.
   * @default undefined
   */
  column?: number | undefined;
  /**
   * Where in the document, as a key path (`users[0].user.token`). Keys that are not kubeconfig
   * field names are shown as `<key>`.
   * @default undefined
   */
  key?: string | undefined;
  /**
   * File the text came from, for the message.
   * @default undefined
   */
  path?: string | undefined;
  /**
   * Underlying cause.
   * @default undefined
   */
  cause?: unknown;
}

/**
 * A kubeconfig that is not valid YAML, or uses YAML beyond the subset kinformer reads (anchors,
 * aliases, tags, several documents, complex keys, tabs in indentation): the
 * {@linkcode YamlSyntaxError} of a kubeconfig, naming the file when known. It names the line,
 * column and key path (kubeconfig field names only), and never shows the text of the line: a
 * broken line may hold a token, a password or a key.
 *
 * @example
 * ```ts
 * import { KubeconfigParseError, parseKubeconfig, YamlSyntaxError } from "@kinformer/kinformer/config";
 * import assert from "node:assert/strict";
 * const yaml = "users:\n- name: alice\n  user:\n    token: &t abc\n";
 * assert.throws(() => parseKubeconfig(yaml), (error) => {
 *   assert.ok(error instanceof KubeconfigParseError);
 *   assert.ok(error instanceof YamlSyntaxError);
 *   assert.equal(error.line, 4);
 *   assert.equal(error.key, "users[0].user.token");
 *   assert.equal(
 *     error.message,
 *     "kubeconfig:4:12: anchors (`&name`) are not supported (at users[0].user.token)",
 *   );
 *   return true;
 * });
 * ```
 */
export class KubeconfigParseError extends YamlSyntaxError {
  /** Always `"KubeconfigParseError"`. */
  override name = "KubeconfigParseError";
  /** File the text came from, when known. */
  readonly path: string | undefined;

  /** Builds the error; the message names the file (if known), line, column and key path. */
  constructor(options: KubeconfigParseErrorOptions) {
    super({ ...options, source: options.path ?? "kubeconfig" });
    this.path = options.path;
  }

  /** The same error, naming the file `path` (used by the loaders, which know the file). */
  withPath(path: string): KubeconfigParseError {
    return new KubeconfigParseError({
      reason: this.reason,
      line: this.line,
      column: this.column,
      key: this.key,
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
 * - `UnsupportedTls`: TLS or proxy settings this runtime's `fetch` cannot apply (pass a
 *   `fetch`), or a proxy from `HTTPS_PROXY`/`HTTP_PROXY` that no transport can use (`subject`
 *   names the variable).
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
 * import assert from "node:assert/strict";
 * const config = parseKubeconfig("apiVersion: v1\nkind: Config\nclusters: []\n");
 * assert.throws(() => resolveKubeconfig(config, { context: "prod" }), (error) => {
 *   assert.ok(error instanceof ClusterConfigError);
 *   assert.equal(error.code, "ContextNotFound");
 *   assert.equal(error.subject, "prod");
 *   assert.equal(error.kind, "config");
 *   return true;
 * });
 * ```
 */
export class ClusterConfigError extends Error {
  /** Always `"ClusterConfigError"`. */
  override name = "ClusterConfigError";
  /** Always `"config"`. */
  readonly kind: ErrorKind = "config";
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

/** An `InvalidKubeconfig` error (internal): names fields, entries and types, never a value but `kind`. */
export function invalidKubeconfig(message: string, subject: string): ClusterConfigError {
  return new ClusterConfigError(`invalid kubeconfig: ${message}`, {
    code: "InvalidKubeconfig",
    subject,
  });
}
