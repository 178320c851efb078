/**
 * The errors of leader election and sharding.
 * @module
 */
import type { ErrorKind } from "../../util/error_kind.ts";

/**
 * The abort reason of a leadership (or shard) signal: this replica stopped holding the lease,
 * because it was not renewed before the renew deadline, another replica holds it, it was given
 * to another replica, or the elector stopped.
 *
 * @example
 * ```ts
 * import { LeaseLostError } from "@kinformer/kinformer/controller";
 * import assert from "node:assert/strict";
 * const error = new LeaseLostError("leadership of default/ctl: not renewed within the renew deadline");
 * assert.equal(error.name, "LeaseLostError");
 * assert.equal(error.kind, "other");
 * assert.ok(error instanceof Error);
 * ```
 */
export class LeaseLostError extends Error {
  /** Always `"LeaseLostError"`. */
  override name = "LeaseLostError";
  /** How it is filed: `other` (no request failed; this replica stopped owning the work). */
  readonly kind: ErrorKind = "other";
}

/**
 * A Lease request given up at its deadline (a renewal still unanswered when the holder had to
 * stop, or an attempt that took longer than the renew deadline). Reported to `onError`.
 *
 * @example
 * ```ts
 * import { DeadlineError } from "@kinformer/kinformer/controller";
 * import assert from "node:assert/strict";
 * const error = new DeadlineError("lease default/ctl: no answer before the deadline");
 * assert.equal(error.name, "DeadlineError");
 * assert.equal(error.kind, "network");
 * ```
 */
export class DeadlineError extends Error {
  /** Always `"DeadlineError"`. */
  override name = "DeadlineError";
  /** How it is filed: `network` (no HTTP answer in time). */
  readonly kind: ErrorKind = "network";
}
