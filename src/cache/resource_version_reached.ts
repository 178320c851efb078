/**
 * Whether a cache has seen a write: the decision behind `SharedInformer.waitForResourceVersion`.
 * Internal.
 * @module
 */
import {
  checkComparable,
  ResourceVersionNotComparableError,
} from "../client/compare_resource_version.ts";
import { compareResourceVersions } from "../util/resource_version.ts";
import type { WaitState } from "../util/wait_for.ts";

/** What the decision reads of the informer. */
export interface CacheProgress {
  /** Whether the cache holds a complete list. */
  synced: boolean;
  /** The resource version the cache is at, if any. */
  resourceVersion: string | undefined;
  /** Whether the informer stopped. */
  stopped: boolean;
}

/**
 * A check for `waitFor`: `"done"` once a synced cache is at `goal` or later, `"failed"` once
 * the informer stopped or its resource versions turn out not to be comparable (`failure()`
 * then tells which). `goal` is checked at once: a version that cannot be ordered throws a
 * {@linkcode ResourceVersionNotComparableError}.
 */
export function resourceVersionReached(
  goal: unknown,
  progress: () => CacheProgress,
): { check: () => WaitState; failure: () => Error } {
  checkComparable(goal, "resourceVersion");
  let failure: Error = new Error(`informer stopped before it saw resource version ${goal}`);
  const check = (): WaitState => {
    const p = progress();
    if (p.stopped) return "failed";
    if (!p.synced || p.resourceVersion === undefined) return "pending";
    const cmp = compareResourceVersions(p.resourceVersion, goal);
    if (cmp === undefined) {
      failure = new ResourceVersionNotComparableError(
        p.resourceVersion,
        "the server's resource version",
      );
      return "failed";
    }
    return cmp >= 0 ? "done" : "pending";
  };
  return { check, failure: () => failure };
}
