/**
 * The error of an exec credential plugin that could not give a credential.
 * @module
 */
import type { ErrorKind } from "../util/error_kind.ts";

/**
 * What went wrong in an {@linkcode ExecCredentialError}:
 * - `InvalidConfig`: the kubeconfig's `exec` block cannot be used (no command, an unknown
 *   `apiVersion`, a missing or unknown `interactiveMode`, a NUL character in the command, an
 *   argument or the environment, an env entry with no name or with `=` in it).
 * - `Interactive`: the plugin needs a terminal (`interactiveMode: Always`) and standard input
 *   is not one.
 * - `NotFound`: the command does not exist (the message carries the `installHint`).
 * - `Failed`: the command could not be started, or exited with a non-zero code.
 * - `Timeout`: the command ran past its time limit and was stopped.
 * - `InvalidOutput`: the command succeeded but did not print a usable `ExecCredential` (or
 *   printed more than 1 MiB).
 */
export type ExecCredentialErrorCode =
  | "InvalidConfig"
  | "Interactive"
  | "NotFound"
  | "Failed"
  | "Timeout"
  | "InvalidOutput";

/** Constructor options of {@linkcode ExecCredentialError}. */
export interface ExecCredentialErrorOptions {
  /** What went wrong. */
  code: ExecCredentialErrorCode;
  /** The plugin's command as written in the kubeconfig. */
  command: string;
  /**
   * The kubeconfig user the plugin authenticates.
   * @default undefined
   */
  user?: string | undefined;
  /**
   * The plugin's exit code, for `Failed`.
   * @default undefined
   */
  exitCode?: number | undefined;
  /**
   * The plugin's stderr, already redacted and shortened.
   * @default undefined
   */
  stderr?: string | undefined;
  /**
   * The kubeconfig's `installHint`, for `NotFound`.
   * @default undefined
   */
  installHint?: string | undefined;
  /**
   * Underlying cause (e.g. the spawn error).
   * @default undefined
   */
  cause?: unknown;
}

/**
 * An exec credential plugin (`users[].user.exec` in a kubeconfig: `aws eks get-token`,
 * `gke-gcloud-auth-plugin`, `kubelogin`, ...) gave no usable credential. The message names
 * the command and the user and says why; `exitCode`, the redacted `stderr` and the
 * `installHint` are fields too. Neither the plugin's output nor its environment values ever
 * appear in it.
 *
 * @example
 * ```ts
 * import { ExecCredentialError } from "@kinformer/kinformer/config";
 * import assert from "node:assert/strict";
 * const error = new ExecCredentialError("exec plugin \"aws\" exited with code 255", {
 *   code: "Failed",
 *   command: "aws",
 *   exitCode: 255,
 *   stderr: "Unable to locate credentials",
 * });
 * assert.equal(error.code, "Failed");
 * assert.equal(error.kind, "credentials");
 * assert.equal(error.exitCode, 255);
 * assert.equal(error.stderr, "Unable to locate credentials");
 * ```
 */
export class ExecCredentialError extends Error {
  /** Always `"ExecCredentialError"`. */
  override name = "ExecCredentialError";
  /** Always `"credentials"`. */
  readonly kind: ErrorKind = "credentials";
  /** What went wrong. */
  readonly code: ExecCredentialErrorCode;
  /** The plugin's command as written in the kubeconfig. */
  readonly command: string;
  /** The kubeconfig user, when known. */
  readonly user: string | undefined;
  /** The plugin's exit code, for `Failed` after it ran. */
  readonly exitCode: number | undefined;
  /** The plugin's stderr, redacted (tokens, keys, env values and arguments removed) and shortened. */
  readonly stderr: string | undefined;
  /** The kubeconfig's `installHint`, for `NotFound`. */
  readonly installHint: string | undefined;

  /** Builds the error with a complete, human-readable `message`. */
  constructor(message: string, options: ExecCredentialErrorOptions) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = options.code;
    this.command = options.command;
    this.user = options.user;
    this.exitCode = options.exitCode;
    this.stderr = options.stderr;
    this.installHint = options.installHint;
  }
}
