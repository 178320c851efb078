/**
 * Whether a cache has seen a write: the decision behind `SharedInformer.waitForResourceVersion`,
 * and the informer's waits on its resource version. Internal.
 * @module
 */
import {
  checkComparable,
  ResourceVersionNotComparableError,
} from "../client/compare_resource_version.ts";
import { compareResourceVersions } from "../util/resource_version.ts";
import { Waiters, type WaitState } from "../util/wait_for.ts";

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

/**
 * The waits of an informer on its resource version (`waitForResourceVersion`, a catch-up
 * `events()` run, the consistency check): the reflector wakes them at every move, the informer
 * at its stop.
 */
export class ResourceVersionWaiters extends Waiters {
  readonly #progress: () => CacheProgress;

  /** `progress` reads the informer's cache at each check. */
  constructor(progress: () => CacheProgress) {
    super();
    this.#progress = progress;
  }

  /**
   * Resolves once the cache has seen `goal` (see {@linkcode resourceVersionReached}); a `goal`
   * that cannot be ordered rejects at once.
   */
  reached(goal: unknown, signal: AbortSignal | undefined): Promise<void> {
    try {
      const { check, failure } = resourceVersionReached(goal, this.#progress);
      return this.wait(check, { failure, signal });
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /** Resolves when the resource version next moves (or the informer stops). */
  moved(): Promise<void> {
    const ending = (): boolean => this.#progress().stopped;
    if (ending()) return Promise.resolve();
    // Pending at the first check (made at once), done at the next wake: the next move.
    let checked = false;
    return this.wait(() => {
      if (ending() || checked) return "done";
      checked = true;
      return "pending";
    }, { failure: () => undefined });
  }
}
