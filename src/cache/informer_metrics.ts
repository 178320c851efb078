/**
 * The informer's metric hooks, and the guard that keeps a throwing hook from breaking it.
 * @module
 */
import type { ConsistencyCheckResult } from "./consistency_check_options.ts";
import type { ErrorKind } from "../util/error_kind.ts";
import type { RelistReason } from "./reflector_state.ts";

/**
 * Metric callbacks; every field is optional. Wire them to any metrics library, or use
 * `prometheusMetrics` from `@kinformer/kinformer/metrics` for the Prometheus text format with
 * no dependency.
 */
export interface InformerMetrics {
  /** A LIST round (all pages) or streaming list finished. */
  onList?(durationMs: number, items: number, pages: number): void;
  /** A watch event arrived (`ADDED`, `MODIFIED`, `DELETED`, `BOOKMARK`). */
  onWatchEvent?(type: "ADDED" | "MODIFIED" | "DELETED" | "BOOKMARK"): void;
  /**
   * A list replaced an earlier state (a relist after 410, or the first list of a resumed
   * informer), and why (see `RelistReason`).
   */
  onRelist?(reason: RelistReason): void;
  /**
   * The server accepted a watch (status 200): the cluster answers again, before the watch's
   * first event or bookmark (a multi-cluster view marks a recovering cluster live with it).
   */
  onWatchOpened?(): void;
  /** The watch is reconnecting after `kind` of failure (or `"closed"` for a clean end). */
  onReconnect?(kind: ErrorKind | "closed"): void;
  /** A watch line could not be decoded. */
  onDecodeError?(error: unknown): void;
  /** Called after each batch of events with the largest listener backlog. */
  onListenerBacklog?(maxBacklog: number): void;
  /** A consistency check ended (any outcome: consistent, drift, skipped, inconclusive). */
  onConsistencyCheck?(result: ConsistencyCheckResult): void;
}

const HOOKS: readonly (keyof InformerMetrics)[] = [
  "onList",
  "onWatchEvent",
  "onRelist",
  "onReconnect",
  "onWatchOpened",
  "onDecodeError",
  "onListenerBacklog",
  "onConsistencyCheck",
];

/** Wraps every hook so a throwing one is reported instead of breaking the informer. Internal. */
export function guardMetrics(
  metrics: InformerMetrics | undefined,
  report: (error: unknown) => void,
): InformerMetrics | undefined {
  if (metrics === undefined) return undefined;
  const guarded: InformerMetrics = {};
  for (const name of HOOKS) {
    const hook = metrics[name] as ((...args: unknown[]) => void) | undefined;
    if (typeof hook !== "function") continue;
    (guarded as Record<string, (...args: unknown[]) => void>)[name] = (...args) => {
      try {
        hook.apply(metrics, args);
      } catch (error) {
        report(error);
      }
    };
  }
  return guarded;
}
