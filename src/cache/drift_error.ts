/**
 * The error a consistency check reports when the cache differs from the server.
 * @module
 */
import type { ErrorKind } from "../util/error_kind.ts";

/** What {@linkcode DriftError} is built from. */
export interface DriftErrorInit {
  /** The resource version of the consistent list the cache was compared with. */
  resourceVersion: string;
  /** Keys the server has and the cache lacks. */
  missing: number;
  /** Keys the cache has and the server does not. */
  extra: number;
  /** Keys held by both, with another uid or resourceVersion in the cache. */
  stale: number;
  /** A few of the keys concerned, for the message and for logs. */
  sampleKeys: readonly string[];
  /** Whether a relist was asked for to repair the cache. */
  repairing: boolean;
}

/**
 * A consistency check (`informer.verify()`, or the periodic check of the `consistencyCheck`
 * option) found the cache differing from a consistent list of the server, at the list's
 * resource version: objects missing, extra, or stale (another uid or resourceVersion). Reported
 * to `onError` with kind `drift`; the full per-key report is the check's result.
 *
 * @example
 * ```ts
 * import { DriftError } from "@kinformer/kinformer/cache";
 * import assert from "node:assert/strict";
 * const error = new DriftError({
 *   resourceVersion: "1234", missing: 1, extra: 0, stale: 2,
 *   sampleKeys: ["default/web-1", "default/web-2", "default/web-3"], repairing: true,
 * });
 * assert.equal(error.kind, "drift");
 * assert.equal(error.message, "cache differs from the server at resourceVersion 1234: 1 missing, 0 extra, 2 stale (default/web-1, default/web-2, default/web-3); relisting");
 * ```
 */
export class DriftError extends Error {
  /** The error class name. */
  override name = "DriftError";
  /** Always `"drift"`. */
  readonly kind: ErrorKind = "drift";
  /** The resource version of the list the cache was compared with. */
  readonly resourceVersion: string;
  /** Keys the server has and the cache lacks. */
  readonly missing: number;
  /** Keys the cache has and the server does not. */
  readonly extra: number;
  /** Keys held by both, with another uid or resourceVersion in the cache. */
  readonly stale: number;
  /** A few of the keys concerned. */
  readonly sampleKeys: readonly string[];
  /** Whether a relist was asked for to repair the cache. */
  readonly repairing: boolean;

  /** Builds the error from the counts of one check. */
  constructor(init: DriftErrorInit) {
    const total = init.missing + init.extra + init.stale;
    const more = total > init.sampleKeys.length ? ", ..." : "";
    super(
      `cache differs from the server at resourceVersion ${init.resourceVersion}: ` +
        `${init.missing} missing, ${init.extra} extra, ${init.stale} stale ` +
        `(${init.sampleKeys.join(", ")}${more})${init.repairing ? "; relisting" : ""}`,
    );
    this.resourceVersion = init.resourceVersion;
    this.missing = init.missing;
    this.extra = init.extra;
    this.stale = init.stale;
    this.sampleKeys = [...init.sampleKeys];
    this.repairing = init.repairing;
  }
}
