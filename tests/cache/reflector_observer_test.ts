// What the informer does with each reflector signal: metric hooks, liveness, waiters.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { InformerMetrics } from "../../src/cache/informer_metrics.ts";
import { observeReflector } from "../../src/cache/reflector_observer.ts";
import { DELIVERED, LINE_SIGNALS } from "../../src/cache/reflector_signal.ts";
import { Waiters } from "../../src/util/wait_for.ts";

function observers(): {
  calls: string[];
  to: Parameters<typeof observeReflector>[1];
} {
  const calls: string[] = [];
  const metrics: InformerMetrics = {
    onWatchEvent: (type) => void calls.push(`watchEvent ${type}`),
    onWatchOpened: () => void calls.push("watchOpened"),
    onRelist: (reason) => void calls.push(`relist ${reason}`),
    onList: (ms, items, pages) => void calls.push(`list ${ms} ${items} ${pages}`),
    onReconnect: (kind) => void calls.push(`reconnect ${kind}`),
  };
  const waiters = new Waiters();
  const wake = waiters.wake.bind(waiters);
  waiters.wake = () => {
    calls.push("wake");
    wake();
  };
  return {
    calls,
    to: {
      metrics,
      reporter: { healthy: () => void calls.push("healthy") },
      resourceVersionWaiters: waiters,
    },
  };
}

describe("observeReflector", () => {
  test("maps protocol signals onto the metric hooks", () => {
    const { calls, to } = observers();
    observeReflector(LINE_SIGNALS.MODIFIED, to);
    observeReflector({ type: "listed", durationMs: 12, items: 3, pages: 2 }, to);
    observeReflector({ type: "replacing", relist: "expired" }, to);
    observeReflector({ type: "reconnect", endedBy: "network" }, to);
    assert.deepEqual(calls, [
      "watchEvent MODIFIED",
      "list 12 3 2",
      "relist expired",
      "reconnect network",
    ]);
  });

  test("a move wakes the resource-version waiters and marks the server healthy", () => {
    const { calls, to } = observers();
    observeReflector({ type: "moved", resourceVersion: "7" }, to);
    assert.deepEqual(calls, ["healthy", "wake"]);
  });

  test("an opened watch marks the server healthy before its first line", () => {
    const { calls, to } = observers();
    observeReflector({ type: "watch-opened" }, to);
    assert.deepEqual(calls, ["healthy", "watchOpened"]);
  });

  test("signals without an observer, and no metrics at all, do nothing", () => {
    const { calls, to } = observers();
    observeReflector(DELIVERED, to);
    observeReflector({ type: "progress" }, to);
    observeReflector({ type: "replacing", relist: undefined }, to);
    observeReflector(LINE_SIGNALS.ADDED, { ...to, metrics: undefined });
    assert.deepEqual(calls, []);
  });
});
