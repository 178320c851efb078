/**
 * The options, callbacks, permits and health of a {@linkcode ShardCoordinator}, and the labels
 * on its Leases.
 * @module
 */
import type { KubeClient } from "../../client/kube_client.ts";
import type { Clock } from "../../util/clock.ts";
import type { LeaseTimingOptions } from "./lease_timing.ts";
import type { OnError } from "../../util/error_context.ts";
import type { LifecycleState } from "../../util/lifecycle.ts";
import { hash32 } from "./_hash.ts";
import { isDnsSubdomain } from "../../util/dns_names.ts";

/**
 * The label that names the group on every Lease of a {@linkcode ShardCoordinator}.
 */
export const SHARD_GROUP_LABEL = "kinformer.io/shard-group";

/**
 * The label that says what a Lease of a group is: `member` or `shard`.
 */
export const SHARD_ROLE_LABEL = "kinformer.io/shard-role";

/**
 * Callbacks of a {@linkcode ShardCoordinator}, in its options or added with
 * {@linkcode ShardCoordinator.observe}. Errors they throw go to `onError`.
 *
 * @example
 * ```ts
 * import type { ShardCallbacks } from "@kinformer/kinformer/controller";
 * import assert from "node:assert/strict";
 * const owned = new Set<number>();
 * const callbacks: ShardCallbacks = {
 *   onShardStarted: (shard) => void owned.add(shard),
 *   onShardStopped: (shard) => void owned.delete(shard),
 *   onMembersChanged: () => {},
 * };
 * callbacks.onShardStarted?.(3, new AbortController().signal);
 * assert.deepEqual([...owned], [3]);
 * ```
 */
export interface ShardCallbacks {
  /** This replica now owns `shard`; `signal` aborts when it stops owning it. */
  onShardStarted?: ((shard: number, signal: AbortSignal) => void) | undefined;
  /** This replica stopped owning `shard` (after its signal aborted). */
  onShardStopped?: ((shard: number) => void) | undefined;
  /** The live members (sorted identities) changed, as this replica sees them. */
  onMembersChanged?: ((members: readonly string[]) => void) | undefined;
}

/** Constructor options of {@linkcode ShardCoordinator}. */
export interface ShardCoordinatorOptions extends LeaseTimingOptions, ShardCallbacks {
  /** The client the Leases are listed, read and written with. */
  client: KubeClient;
  /** Namespace of the Leases. */
  namespace: string;
  /**
   * Name of the group (a DNS label of at most 50 characters). The Leases are `<name>-shard-<i>`
   * and `<name>-member-<identity>`, all labelled `kinformer.io/shard-group=<name>` and `kinformer.io/shard-role` (`member` or
   * `shard`).
   */
  name: string;
  /** This replica's identity, unique among the replicas (e.g. the pod name). */
  identity: string;
  /**
   * Number of shards the key space is cut into; fixed for the life of the group (every replica
   * must use the same number). More shards split the work more evenly, at the cost of one
   * Lease renewal per owned shard every `retryPeriodMs`.
   * @default 16
   */
  shards?: number | undefined;
  /** Time source. @default systemClock */
  clock?: Clock | undefined;
  /** Random source in [0, 1) for jitter. @default Math.random */
  random?: (() => number) | undefined;
  /**
   * Told about failed requests (phase `lease`, `detail` the request) and throwing callbacks
   * (phase `callback`), with the one `ErrorContext` of kinformer (`kind` what the error is);
   * conflicts are normal and not reported. It replaces the default printing. If it throws,
   * that error is rethrown on a microtask.
   * @default prints as every long-running object of kinformer does: the first error of each
   * kind at once (`shard coordinator default/ctl (a) (listing leases (a)): lease forbidden
   * (403): ...; retrying every retry period`), then at most one line per kind per minute with
   * a count, and one line when its requests succeed again
   */
  onError?: OnError | undefined;
}

/**
 * Permission to work on one key, from {@linkcode ShardCoordinator.enter}. Call `exit()` when the
 * work is done: a shard is released to another replica only after every permit has exited.
 *
 * @example
 * ```ts
 * import type { ShardPermit } from "@kinformer/kinformer/controller";
 * const permit: ShardPermit = { shard: 3, signal: new AbortController().signal, exit: () => {} };
 * permit.exit();
 * ```
 */
export interface ShardPermit {
  /** The key's shard. */
  readonly shard: number;
  /** Aborts when this replica stops owning the shard: stop the work then. */
  readonly signal: AbortSignal;
  /** Marks the work done (idempotent). */
  exit(): void;
}

/**
 * A snapshot of a {@linkcode ShardCoordinator}.
 *
 * @example
 * ```ts
 * import type { ShardCoordinatorHealth } from "@kinformer/kinformer/controller";
 * import assert from "node:assert/strict";
 * const h: ShardCoordinatorHealth = {
 *   state: "running", activity: "leading", identity: "a", shards: 16, owned: [0, 5], members: ["a", "b"],
 * };
 * assert.ok(h.owned.every((shard) => shard < h.shards));
 * ```
 */
export interface ShardCoordinatorHealth {
  /**
   * Where the coordinator is in its life, as every long-running object of kinformer says it:
   * `idle` before `start`, `running` from `start`, `stopping` while it stops its shards and
   * releases their Leases, `stopped` (it can be started again).
   */
  state: LifecycleState;
  /**
   * Its role: `idle` before `start`, `candidate` while it owns no shard, `leading` while it
   * owns at least one, `stopped` once stopped.
   */
  activity: "idle" | "candidate" | "leading" | "stopped";
  /** This replica's identity. */
  identity: string;
  /** Number of shards. */
  shards: number;
  /** Shards this replica owns now. */
  owned: number[];
  /** Live members as this replica last saw them. */
  members: string[];
  /** The newest error, with its time. */
  lastError?: { message: string; at: number };
}

/**
 * The member Lease of `identity` in `group`: `<group>-member-<identity>` when that is a valid
 * name, else with a hash of the identity. Internal (not exported from the module).
 */
export function memberLeaseName(group: string, identity: string): string {
  const readable = `${group}-member-${identity}`;
  if (isDnsSubdomain(readable)) return readable;
  return `${group}-member-${hash32(identity).toString(16).padStart(8, "0")}`;
}
