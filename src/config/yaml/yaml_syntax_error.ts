/**
 * The error of the YAML subset parser: where the text is wrong, never what it says.
 * @module
 */

/** Constructor options of {@linkcode YamlSyntaxError}. */
export interface YamlSyntaxErrorOptions {
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
   * Where in the document, as a key path (`users[0].user.token`); keys the parser was not told
   * are safe to show appear as `<key>`.
   * @default undefined
   */
  key?: string | undefined;
  /**
   * Name of the text for the message (a file path, `kubeconfig`).
   * @default "yaml"
   */
  source?: string | undefined;
  /**
   * Underlying cause.
   * @default undefined
   */
  cause?: unknown;
}

/**
 * Text that is not valid YAML, or uses YAML beyond the subset kinformer reads (anchors,
 * aliases, tags, several documents, complex keys, tabs in indentation). It names the line,
 * column and key path, and never shows the text of the line: a broken line may hold a token,
 * a password or a key. `KubeconfigParseError` is the kubeconfig flavour of it.
 *
 * @example
 * ```ts
 * import { parseKubeconfig, YamlSyntaxError } from "@kinformer/kinformer/config";
 * import assert from "node:assert/strict";
 * assert.throws(() => parseKubeconfig("users:\n- name: alice\n  user: !secret abc\n"), (error) => {
 *   assert.ok(error instanceof YamlSyntaxError);
 *   assert.equal(error.line, 3);
 *   assert.equal(error.key, "users[0].user");
 *   assert.ok(!error.message.includes("abc"));
 *   return true;
 * });
 * ```
 */
export class YamlSyntaxError extends Error {
  /** The error class name. */
  override name = "YamlSyntaxError";
  /**
   * Always `"config"` (for `KubeconfigParseError` too): its `ErrorKind`, spelled as a literal so
   * the parser's folder imports nothing from outside it.
   */
  readonly kind: "config" = "config";
  /** What is wrong, without the location. */
  readonly reason: string;
  /** 1-based line number of the offending line. */
  readonly line: number;
  /** 1-based column of the problem, when known. */
  readonly column: number | undefined;
  /** Key path of the problem (`users[0].user.token`), when known; never a value. */
  readonly key: string | undefined;

  /** Builds the error; the message names the source, line, column and key path. */
  constructor(options: YamlSyntaxErrorOptions) {
    const column = options.column === undefined ? "" : `:${options.column}`;
    const where = `${options.source ?? "yaml"}:${options.line}${column}`;
    const key = options.key === undefined ? "" : ` (at ${options.key})`;
    super(
      `${where}: ${options.reason}${key}`,
      options.cause === undefined ? undefined : { cause: options.cause },
    );
    this.reason = options.reason;
    this.line = options.line;
    this.column = options.column;
    this.key = options.key;
  }
}
