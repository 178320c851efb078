/**
 * What an informer does with its reflector's signals: the metric hooks it calls, when it
 * tells the error reporter the server answers again, and when it wakes the waiters on the
 * resource version. The reflector's own counters (`health()`) are kept by the reflector.
 * @module
 */
import type { ErrorReporter } from "../util/error_reporter.ts";
import type { Waiters } from "../util/wait_for.ts";
import type { InformerMetrics } from "./informer_metrics.ts";
import type { ReflectorSignal } from "./reflector_signal.ts";

/** Where {@linkcode observeReflector} sends a signal. Internal to the informer. */
export interface ReflectorObservers {
  /** The (guarded) metric hooks, if any. */
  metrics: InformerMetrics | undefined;
  /** Told when the server answers again (a move or an opened watch). */
  reporter: Pick<ErrorReporter, "healthy">;
  /** Woken at every move of the resource version. */
  resourceVersionWaiters: Waiters;
}

/** Maps one reflector signal onto the metric hooks, liveness and resource-version waiters. */
export function observeReflector(signal: ReflectorSignal, to: ReflectorObservers): void {
  const metrics = to.metrics;
  switch (signal.type) {
    case "line":
      metrics?.onWatchEvent?.(signal.event);
      return;
    case "moved":
      to.reporter.healthy();
      // Each waiter removes itself once settled: a check still pending waits for the next move.
      to.resourceVersionWaiters.wake();
      return;
    case "watch-opened":
      // The server answers again: a recovering cluster is live before its next line.
      to.reporter.healthy();
      metrics?.onWatchOpened?.();
      return;
    case "replacing":
      if (signal.relist !== undefined) metrics?.onRelist?.(signal.relist);
      return;
    case "listed":
      metrics?.onList?.(signal.durationMs, signal.items, signal.pages);
      return;
    case "reconnect":
      metrics?.onReconnect?.(signal.endedBy);
      return;
  }
}
