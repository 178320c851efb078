/**
 * Ordering resource versions the way KEP-5504 (comparable resource versions, Kubernetes 1.35)
 * allows: within one resource, as decimal integers of any size.
 * @module
 */
import { compareResourceVersions } from "../util/resource_version.ts";
import { describeValue } from "../util/values.ts";

/**
 * A resource version that cannot be ordered: KEP-5504 makes resource versions comparable only
 * when both are decimal integers without a leading zero (`"0"`, `""`, `"007"`, `"1e3"` and the
 * opaque versions some aggregated API servers send are not). Its `kind` is `invalid`.
 *
 * @example
 * ```ts
 * import { compareResourceVersion, ResourceVersionNotComparableError } from "@kinformer/kinformer/client";
 * import assert from "node:assert/strict";
 * assert.throws(() => compareResourceVersion("12", "abc"), ResourceVersionNotComparableError);
 * ```
 */
export class ResourceVersionNotComparableError extends Error {
  /** Always `"ResourceVersionNotComparableError"`. */
  override name = "ResourceVersionNotComparableError";
  /** Always `invalid`: the value cannot be used as asked. */
  readonly kind = "invalid" as const;
  /** The resource version that cannot be compared. */
  readonly resourceVersion: string;

  /** `resourceVersion` could not be compared; `role` says where it came from. */
  constructor(resourceVersion: string, role: string) {
    super(
      `${role} ${
        describeValue(resourceVersion)
      } cannot be ordered: resource versions compare only as decimal integers without a ` +
        `leading zero (KEP-5504, Kubernetes 1.35)`,
    );
    this.resourceVersion = resourceVersion;
  }
}

/**
 * Compares two resource versions of one resource as KEP-5504's `CompareResourceVersion` does:
 * `-1` when `a` is older, `0` when they are equal, `1` when `a` is newer. Both must be decimal
 * integers without a leading zero (compared by length, then digit by digit: no size limit);
 * otherwise it throws a {@linkcode ResourceVersionNotComparableError}. Versions of different
 * resources are not comparable, whatever their form.
 *
 * @example
 * ```ts
 * import { compareResourceVersion } from "@kinformer/kinformer/client";
 * import assert from "node:assert/strict";
 * assert.equal(compareResourceVersion("99", "100"), -1);
 * assert.equal(compareResourceVersion("18446744073709551616", "18446744073709551615"), 1);
 * ```
 */
export function compareResourceVersion(a: string, b: string): -1 | 0 | 1 {
  checkComparable(a, "resource version");
  checkComparable(b, "resource version");
  return Math.sign(compareResourceVersions(a, b)!) as -1 | 0 | 1;
}

/** Throws a {@linkcode ResourceVersionNotComparableError} unless `rv` can be ordered. Internal. */
export function checkComparable(rv: unknown, role: string): asserts rv is string {
  if (typeof rv !== "string") {
    throw new TypeError(`${role} must be a string, got ${describeValue(rv)}`);
  }
  if (compareResourceVersions(rv, rv) === undefined) {
    throw new ResourceVersionNotComparableError(rv, role);
  }
}
