/**
 * The state of one cluster in a fleet, and the pure rule that files an error into it.
 * @module
 */
import type { ErrorKind } from "../util/error_kind.ts";
import type { LifecycleState } from "../util/lifecycle.ts";

/**
 * Where one cluster of a fleet stands:
 *
 * - `connecting`: engaged, its connection still being built (an async connector: reading a
 *   kubeconfig, running an exec plugin);
 * - `syncing`: listing, the initial list not complete yet, no failure since the last progress;
 * - `synced`: its whole initial list is in the merged view and the last request succeeded;
 * - `unreachable`: the last request failed on the way (no answer, a connection that went
 *   silent, a 5xx, a 429, a body that would not decode);
 * - `forbidden`: the server refused the credentials (401) or the access (403);
 * - `missing`: the server does not serve the resource (404: a CRD not installed there; its
 *   informer's `health().resource` is `not-found`);
 * - `removed`: disengaged (by the provider, `disengage()` or its signal).
 *
 * The failure states hold until the cluster makes progress again (a list completes, a watch
 * event arrives): then it is `synced` (or `syncing`) again, without being engaged anew.
 *
 * @example
 * ```ts
 * import type { ClusterState } from "@kinformer/kinformer/fleet";
 * import assert from "node:assert/strict";
 * const healthy = (state: ClusterState): boolean => state === "synced";
 * assert.equal(healthy("unreachable"), false);
 * ```
 */
export type ClusterState =
  | "connecting"
  | "syncing"
  | "synced"
  | "unreachable"
  | "forbidden"
  | "missing"
  | "removed";

/** The failure states: a cluster in one of them holds stale objects. */
export type ClusterFailure = "unreachable" | "forbidden" | "missing";

/**
 * The failure state an error of kind `kind` puts a cluster in, or `undefined` for an error that
 * says nothing about the cluster's reachability (a 410 relist, a handler or transform that
 * threw, drift). Internal; pure.
 */
export function failureOf(kind: ErrorKind): ClusterFailure | undefined {
  switch (kind) {
    case "unauthorized":
    case "forbidden":
    case "credentials":
      return "forbidden";
    case "not-found":
      return "missing";
    case "network":
    case "inactivity":
    case "server":
    case "rate-limited":
    case "initial-events-timeout":
    case "decode":
    case "unsupported":
    case "invalid":
    case "config":
    case "other":
      return "unreachable";
    case "expired":
    case "too-large-rv":
    case "checkpoint":
    case "transform":
    case "handler":
    case "mutation":
    case "drift":
      return undefined;
  }
}

/** The last error of a cluster, as `health()` shows it (the message, never a credential). */
export interface ClusterError {
  /** How the error is filed. */
  kind: ErrorKind;
  /** The error's message. */
  message: string;
  /** Clock time it happened. */
  at: number;
}

/** One cluster in {@linkcode FleetHealth}. */
export interface ClusterHealth {
  /** The cluster's name. */
  name: string;
  /** Where it stands. */
  state: ClusterState;
  /** Why, in a few words (`"synced"`, `"403 Forbidden: ..."`, `"disengaged"`). */
  reason: string;
  /** Its objects in the merged view (0 while they are hidden by the unreachable policy). */
  objects: number;
  /** Whether its objects may be out of date (it is in a failure state). */
  stale: boolean;
  /** Whether its objects are hidden from the merged view (the `delete` policy's grace ran out). */
  hidden: boolean;
  /** Clock time the state last changed. */
  since: number;
  /** The last error, if any. */
  lastError: ClusterError | undefined;
}

/** Snapshot returned by `Fleet.health()`. */
export interface FleetHealth {
  /**
   * Where the fleet is in its life, as every long-running object of kinformer says it: `idle`
   * (no cluster engaged yet), `starting` (until every engaged cluster has synced or failed),
   * `running`, `stopping`, `stopped`. Each cluster's own state is in `clusters`.
   */
  state: LifecycleState;
  /** Every engaged cluster, then the clusters removed most recently (at most 100), by name. */
  clusters: ClusterHealth[];
  /** Engaged clusters per state. */
  states: Partial<Record<ClusterState, number>>;
  /** Objects in the merged view. */
  objects: number;
}
