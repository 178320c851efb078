/**
 * Waiting until an informer registration has received the informer's cache: what the runner
 * does before its workers start, and the ownership gate before a replay ends. Internal.
 * @module
 */
import { abortable } from "../../util/abort.ts";
import { type Clock, sleep } from "../../util/clock.ts";
import type { InformerLike, InformerRegistrationLike } from "./informer_like.ts";

/** How {@linkcode waitUntilSynced} waits. */
export interface SyncWait {
  /** Clock of the polls. */
  readonly clock: Clock;
  /** Interval of the `hasSynced()` polls. */
  readonly pollMs: number;
  /** Gives up (rejecting with its reason) when it aborts. */
  readonly signal: AbortSignal;
}

/**
 * Resolves once `registration.hasSynced()` is true: after the registration's `waitForSync`
 * (or, when it has none, `informer`'s, if given), then polling `hasSynced()` every `pollMs`.
 */
export async function waitUntilSynced(
  registration: InformerRegistrationLike,
  informer: InformerLike<unknown> | undefined,
  { clock, pollMs, signal }: SyncWait,
): Promise<void> {
  if (typeof registration.waitForSync === "function") {
    await abortable(registration.waitForSync({ signal }), signal);
  } else if (typeof informer?.waitForSync === "function") {
    await abortable(informer.waitForSync({ signal }), signal);
  }
  while (!registration.hasSynced()) await sleep(pollMs, { clock, signal });
}
