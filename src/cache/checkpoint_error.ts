/**
 * The error of a checkpoint an informer refuses to resume from.
 * @module
 */
import type { ErrorKind } from "../util/error_kind.ts";

/**
 * What was wrong with a refused checkpoint:
 * - `malformed`: not a kinformer checkpoint (not an object, another format version, a field of
 *   the wrong type), or not the shape one has (`objects` not an array, an empty resource
 *   version, an object that is not a JSON object, a value JSON cannot hold: a function, a
 *   cycle, nesting deeper than 1,000 levels);
 * - `metadata`: an object without a string `metadata.name`, `uid` and `resourceVersion`, with a
 *   name or namespace the API server would refuse (`.`, `..`, a `/` or `%`, too long), or with a
 *   namespace, labels, annotations, finalizers, owner references or managed fields of the wrong
 *   type;
 * - `resource`: a checkpoint taken for another resource, or an object of another `apiVersion`
 *   or `kind` than the informer's resource, or without them, or with a top-level field its
 *   built-in kind does not have (a Secret's `data` on a Pod);
 * - `namespace`: a checkpoint taken for another namespace, or an object outside the informer's
 *   namespace (or namespaced for a cluster-scoped resource, or the reverse);
 * - `selector`: a checkpoint taken with other selectors, or an object the informer's label or
 *   field selector does not select;
 * - `forbidden-key`: a `__proto__`, `constructor` or `prototype` key anywhere in an object;
 * - `duplicate`: two objects under one cache key;
 * - `too-large`: more objects, or more bytes, than `checkpointLimits` allows.
 */
export type CheckpointProblem =
  | "malformed"
  | "metadata"
  | "resource"
  | "namespace"
  | "selector"
  | "forbidden-key"
  | "duplicate"
  | "too-large";

/** Options of {@linkcode CheckpointError}. */
export interface CheckpointErrorOptions {
  /** What was wrong. */
  problem: CheckpointProblem;
  /** What the message says about it (never the offending value itself). */
  detail: string;
  /** The index of the offending object in `objects`, if one. */
  index?: number | undefined;
  /** Where in that object, e.g. `metadata.labels`. */
  path?: string | undefined;
}

/**
 * An informer refused the checkpoint it was given as `resumeFrom`: its contents do not belong
 * to this informer (an object of another resource, namespace or selection), are malformed,
 * or are too large. The informer reports it to `onError` (kind `checkpoint`) when it starts,
 * counts it in `health().errors`, and lists as if it had been given no checkpoint. Checkpoint
 * storage must be trusted as much as the credentials: this check bounds what a tampered
 * checkpoint can do, it does not make one safe to use.
 *
 * @example
 * ```ts
 * import { CheckpointError } from "@kinformer/kinformer/cache";
 * import assert from "node:assert/strict";
 * const error = new CheckpointError({
 *   problem: "namespace",
 *   detail: "is in another namespace than the informer's",
 *   index: 3,
 *   path: "metadata.namespace",
 * });
 * assert.equal(error.kind, "checkpoint");
 * assert.equal(error.problem, "namespace");
 * assert.match(error.message, /object 3 \(metadata\.namespace\) is in another namespace/);
 * ```
 */
export class CheckpointError extends Error {
  /** Always `"CheckpointError"`. */
  override name = "CheckpointError";
  /** Always `"checkpoint"`. */
  readonly kind: ErrorKind = "checkpoint";
  /** What was wrong. */
  readonly problem: CheckpointProblem;
  /** The index of the offending object in the checkpoint's `objects`, if one. */
  readonly index: number | undefined;
  /** Where in that object, if known. */
  readonly path: string | undefined;

  /** Builds the error; the message says what and where, never the value. */
  constructor(options: CheckpointErrorOptions) {
    const { problem, detail, index, path } = options;
    const where = index === undefined
      ? "the checkpoint"
      : `object ${index}${path === undefined || path === "" ? "" : ` (${path})`}`;
    super(`resumeFrom refused (${problem}): ${where} ${detail}; listing instead`);
    this.problem = problem;
    this.index = index;
    this.path = path;
  }
}
