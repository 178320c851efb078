// The reflector's stats are counted from the signals it sends, in one place.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import {
  countSignal,
  DELIVERED,
  emptyStats,
  LINE_SIGNALS,
  type ReflectorSignal,
  type ReflectorStats,
} from "../../src/cache/reflector_signal.ts";

describe("countSignal", () => {
  test("each signal's effect on the stats, as a table", () => {
    const base: ReflectorStats = { ...emptyStats(), lastActivityAt: 5 };
    // [signal, watches started before it, the stats afterwards (at clock time 10)]
    const rows: [ReflectorSignal, number, Partial<ReflectorStats>][] = [
      [{ type: "started", request: "list" }, 0, {}],
      [{ type: "started", request: "watch" }, 0, {}],
      [{ type: "started", request: "watch" }, 1, { watchRestarts: 1 }],
      [{ type: "started", request: "stream" }, 2, { watchRestarts: 1 }],
      [{ type: "progress" }, 0, { lastActivityAt: 10 }],
      [{ type: "replacing", relist: undefined }, 0, { lists: 1, lastActivityAt: 10 }],
      [{ type: "replacing", relist: "expired" }, 0, { lists: 1, relists: 1, lastActivityAt: 10 }],
      [{ type: "listed", durationMs: 3, items: 2, pages: 1 }, 0, {}],
      [LINE_SIGNALS.ADDED, 0, { lastActivityAt: 10 }],
      [LINE_SIGNALS.BOOKMARK, 0, { lastActivityAt: 10, lastBookmarkAt: 10 }],
      [DELIVERED, 0, { events: 1, lastEventAt: 10 }],
      [{ type: "watch-opened" }, 0, {}],
      [{ type: "reconnect", endedBy: "closed" }, 0, {}],
      [{ type: "moved", resourceVersion: "7" }, 0, {}],
    ];
    for (const [signal, watches, changes] of rows) {
      const stats = { ...base };
      countSignal(stats, signal, 10, watches);
      assert.deepEqual(stats, { ...base, ...changes }, JSON.stringify(signal));
    }
  });

  test("a first request marks the start of activity once (a hang from the start shows as stalled)", () => {
    const stats = emptyStats();
    countSignal(stats, { type: "started", request: "list" }, 3, 0);
    countSignal(stats, { type: "started", request: "watch" }, 9, 0);
    assert.equal(stats.lastActivityAt, 3);
  });
});
