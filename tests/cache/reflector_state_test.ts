import { describe, test } from "node:test";
import assert from "node:assert/strict";
import {
  backingOff,
  initialState,
  listed,
  type ListWatchState,
  moved,
  type PlanAfterFailure,
  planAfterFailure,
  type PlannedRequest,
  planNextRequest,
  received,
  type ReflectorFailure,
  relistAsked,
  requestStarted,
  stopped,
} from "../../src/cache/reflector_state.ts";

function state(overrides: Partial<ListWatchState> = {}): ListWatchState {
  return {
    phase: "idle",
    lastSyncResourceVersion: undefined,
    mustRelist: true,
    needsConsistentList: false,
    initialList: "list",
    streamUnavailable: false,
    ...overrides,
  };
}

describe("planNextRequest", () => {
  test("the first list asks for resourceVersion 0 (any state, served from the watch cache)", () => {
    assert.deepEqual(planNextRequest(state()), { kind: "list", resourceVersion: "0", paged: true });
  });

  test("a relist asks for the last synced resource version", () => {
    assert.deepEqual(
      planNextRequest(state({ lastSyncResourceVersion: "10245", mustRelist: true })),
      { kind: "list", resourceVersion: "10245", paged: false },
    );
  });

  test('after an Expired or too-large-RV list failure the relist is consistent (resourceVersion "")', () => {
    assert.deepEqual(
      planNextRequest(state({ lastSyncResourceVersion: "10245", needsConsistentList: true })),
      { kind: "list", resourceVersion: "", paged: true },
    );
    assert.deepEqual(planNextRequest(state({ needsConsistentList: true })), {
      kind: "list",
      resourceVersion: "",
      paged: true,
    });
  });

  test("once synced, the next request watches from the last resource version", () => {
    assert.deepEqual(
      planNextRequest(state({ lastSyncResourceVersion: "10300", mustRelist: false })),
      { kind: "watch", resourceVersion: "10300" },
    );
  });

  test("a synced reflector watches whatever the initial-list mode", () => {
    for (const initialList of ["list", "stream", "auto"] as const) {
      assert.deepEqual(
        planNextRequest(state({ lastSyncResourceVersion: "7", mustRelist: false, initialList })),
        { kind: "watch", resourceVersion: "7" },
      );
    }
  });

  test("without a resource version there is nothing to watch from: list", () => {
    assert.deepEqual(planNextRequest(state({ mustRelist: false })), {
      kind: "list",
      resourceVersion: "0",
      paged: true,
    });
  });

  test('stream mode starts with a streaming list at "" (a consistent snapshot)', () => {
    for (const initialList of ["stream", "auto"] as const) {
      assert.deepEqual(planNextRequest(state({ initialList })), {
        kind: "stream",
        resourceVersion: "",
      });
    }
  });

  test("stream mode relists with a streaming list from the last resource version", () => {
    assert.deepEqual(
      planNextRequest(state({ initialList: "stream", lastSyncResourceVersion: "42" })),
      { kind: "stream", resourceVersion: "42" },
    );
    assert.deepEqual(
      planNextRequest(
        state({ initialList: "auto", lastSyncResourceVersion: "42", needsConsistentList: true }),
      ),
      { kind: "stream", resourceVersion: "" },
    );
  });

  test("when the server cannot stream, stream and auto modes fall back to a paged LIST", () => {
    for (const initialList of ["stream", "auto"] as const) {
      assert.deepEqual(planNextRequest(state({ initialList, streamUnavailable: true })), {
        kind: "list",
        resourceVersion: "0",
        paged: true,
      });
      assert.deepEqual(
        planNextRequest(
          state({ initialList, streamUnavailable: true, lastSyncResourceVersion: "42" }),
        ),
        { kind: "list", resourceVersion: "42", paged: false },
      );
      assert.deepEqual(
        planNextRequest(state({ initialList, streamUnavailable: true, needsConsistentList: true })),
        { kind: "list", resourceVersion: "", paged: true },
      );
    }
  });

  test("planning is pure: it does not change the state it reads", () => {
    const s = state({ lastSyncResourceVersion: "5", needsConsistentList: true });
    const copy = { ...s };
    planNextRequest(s);
    planNextRequest(s);
    assert.deepEqual(s, copy);
  });
});

describe("planNextRequest: paging (client-go's rule)", () => {
  test("lists at an exact resource version are not paged, so the watch cache serves them", () => {
    assert.deepEqual(
      planNextRequest(state({ lastSyncResourceVersion: "500" })),
      { kind: "list", resourceVersion: "500", paged: false },
    );
  });

  test('lists at "" and "0" are paged', () => {
    assert.equal((planNextRequest(state()) as { paged: boolean }).paged, true);
    const consistent = planNextRequest(state({ needsConsistentList: true }));
    assert.equal((consistent as { paged: boolean }).paged, true);
  });

  test("a server whose first list came back paginated keeps paging exact relists", () => {
    assert.deepEqual(
      planNextRequest(state({ lastSyncResourceVersion: "500", paginatedResult: true })),
      { kind: "list", resourceVersion: "500", paged: true },
    );
  });
});

describe("planAfterFailure", () => {
  const fresh = (): ListWatchState => ({
    phase: "watching",
    lastSyncResourceVersion: "42",
    mustRelist: false,
    needsConsistentList: false,
    initialList: "list",
    streamUnavailable: false,
  });
  const watch42 = { kind: "watch", resourceVersion: "42" } as const;
  /** Applies a failure and returns the new state and the retry decision. */
  /** Applies a failure (of a watch that started fresh from a list when `freshFromList`). */
  const after = (
    s: ListWatchState,
    f: Partial<ReflectorFailure> & { freshFromList?: boolean },
  ): PlanAfterFailure & { retryNow: boolean } => {
    const { freshFromList = false, ...failure } = f;
    const r = planAfterFailure({ ...s, fromList: freshFromList }, {
      kind: "other",
      request: watch42,
      ...failure,
    });
    return { ...r, retryNow: r.wait === "none" };
  };

  test("an expired watch that had made progress relists at once, at the last synced RV", () => {
    const r = after(fresh(), { kind: "expired" });
    assert.equal(r.retryNow, true);
    assert.deepEqual(planNextRequest(r.state), {
      kind: "list",
      resourceVersion: "42",
      paged: false,
    });
  });

  test("an expired watch that started at a list's RV backs off and lists consistently", () => {
    const r = after(fresh(), { kind: "expired", freshFromList: true });
    assert.equal(r.retryNow, false);
    assert.deepEqual(planNextRequest(r.state), { kind: "list", resourceVersion: "", paged: true });
  });

  test("an expired watch from a list's RV after an outage lists consistently at once", () => {
    const down = after(fresh(), { kind: "network", freshFromList: true });
    assert.equal(down.retryNow, false);
    assert.equal(down.state.interrupted, true);
    const r = after(down.state, { kind: "expired", freshFromList: true });
    assert.equal(r.retryNow, true);
    assert.deepEqual(planNextRequest(r.state), { kind: "list", resourceVersion: "", paged: true });
    const relisted = listed(r.state, {
      request: { kind: "list", resourceVersion: "", paged: true },
      resourceVersion: "50",
      pages: 1,
    });
    assert.equal(relisted.interrupted, false, "a completed list starts afresh");
  });

  test("an expired list at an old RV retries at once with a consistent list, then backs off", () => {
    const list42 = { kind: "list", resourceVersion: "42", paged: false } as const;
    const r = after({ ...fresh(), mustRelist: true }, { kind: "expired", request: list42 });
    assert.equal(r.retryNow, true);
    assert.deepEqual(planNextRequest(r.state), { kind: "list", resourceVersion: "", paged: true });
    const again = after(r.state, {
      kind: "expired",
      request: { kind: "list", resourceVersion: "", paged: true },
    });
    assert.equal(again.retryNow, false);
  });

  test("a too-large RV on a watch relists consistently after a backoff", () => {
    const r = after(fresh(), { kind: "too-large-rv" });
    assert.equal(r.retryNow, false);
    assert.deepEqual(planNextRequest(r.state), { kind: "list", resourceVersion: "", paged: true });
  });

  test("a refused or unfinished streaming list falls back to LIST (for this relist)", () => {
    for (const kind of ["invalid", "initial-events-timeout", "decode"] as const) {
      const s: ListWatchState = {
        ...fresh(),
        lastSyncResourceVersion: undefined,
        mustRelist: true,
        initialList: "stream",
      };
      const r = after(s, { kind, request: { kind: "stream", resourceVersion: "" } });
      // As client-go's reflector: a stream the server refuses or never finishes is followed by
      // the LIST at once (the next request is a LIST, and the request pacer bounds the starts);
      // a stream that cannot be decoded backs off first.
      assert.equal(r.retryNow, kind !== "decode", kind);
      assert.deepEqual(planNextRequest(r.state), {
        kind: "list",
        resourceVersion: "0",
        paged: true,
      });
    }
  });

  test("a watch that cannot be decoded is re-watched once, then relisted", () => {
    const first = after(fresh(), { kind: "decode" });
    assert.equal(first.retryNow, false);
    assert.deepEqual(planNextRequest(first.state), watch42, "first failure: watch again");
    const second = after(first.state, { kind: "decode" });
    assert.equal(second.retryNow, false);
    assert.deepEqual(
      planNextRequest(second.state),
      { kind: "list", resourceVersion: "42", paged: false },
      "second failure at the same resource version: relist",
    );
  });

  test("decode failures at different resource versions each get a re-watch", () => {
    const first = after(fresh(), { kind: "decode" });
    const moved = { ...first.state, lastSyncResourceVersion: "50" };
    const second = after(moved, {
      kind: "decode",
      request: { kind: "watch", resourceVersion: "50" },
    });
    assert.deepEqual(planNextRequest(second.state), { kind: "watch", resourceVersion: "50" });
  });

  test("network, throttling and server errors change nothing but back off", () => {
    for (
      const kind of ["network", "rate-limited", "server", "unauthorized", "inactivity"] as const
    ) {
      const r = after(fresh(), { kind });
      assert.equal(r.retryNow, false);
      assert.deepEqual(planNextRequest(r.state), watch42);
    }
  });

  test("planning after a failure is pure: the input state is not changed", () => {
    for (const kind of ["expired", "too-large-rv", "decode", "invalid"] as const) {
      const s = fresh();
      const copy = structuredClone(s);
      after(s, { kind });
      after(s, { kind, request: { kind: "stream", resourceVersion: "" } });
      assert.deepEqual(s, copy);
    }
  });
});

describe("planAfterFailure: requests that cannot succeed as made", () => {
  const at = (rv: string): ListWatchState => ({
    ...initialState("list", undefined),
    phase: "watching",
    lastSyncResourceVersion: rv,
    mustRelist: false,
  });
  const watch = (rv: string): PlannedRequest => ({ kind: "watch", resourceVersion: rv });

  test('a watch refused as invalid (400/422, e.g. a checkpoint\'s RV "abc") relists consistently after a backoff', () => {
    const r = planAfterFailure(at("abc"), { kind: "invalid", request: watch("abc") });
    assert.equal(r.wait, "backoff");
    assert.deepEqual(planNextRequest(r.state), { kind: "list", resourceVersion: "", paged: true });
  });

  test('a list refused as invalid is asked for again at "", never at the refused RV', () => {
    const s = { ...at("abc"), mustRelist: true };
    const r = planAfterFailure(s, {
      kind: "invalid",
      request: { kind: "list", resourceVersion: "abc", paged: false },
    });
    assert.equal(r.wait, "backoff");
    assert.deepEqual(planNextRequest(r.state), { kind: "list", resourceVersion: "", paged: true });
  });

  test("a 406 (unsupported) waits the longest delay and changes nothing else", () => {
    for (
      const request of [watch("7"), { kind: "list", resourceVersion: "0", paged: true } as const]
    ) {
      const s = at("7");
      const r = planAfterFailure(s, { kind: "unsupported", request });
      assert.equal(r.wait, "longest");
      assert.deepEqual(r.state, s);
    }
  });
});

describe("state transitions", () => {
  const list0: PlannedRequest = { kind: "list", resourceVersion: "0", paged: true };
  const stream: PlannedRequest = { kind: "stream", resourceVersion: "" };
  const watch = (rv: string): PlannedRequest => ({ kind: "watch", resourceVersion: rv });

  test("initialState: a fresh reflector lists first; a resumed one watches from the checkpoint", () => {
    const fresh = initialState("list", undefined);
    assert.equal(fresh.phase, "idle");
    assert.deepEqual(planNextRequest(fresh), list0);
    assert.deepEqual(planNextRequest(initialState("list", "42")), watch("42"));
    assert.deepEqual(planNextRequest(initialState("stream", undefined)), stream);
  });

  test("requestStarted: the phase follows the request; a list answers any relist asked for", () => {
    const rows: [PlannedRequest, ListWatchState["phase"], boolean | undefined][] = [
      [list0, "listing", false],
      [stream, "listing", false],
      [watch("9"), "watching", true],
    ];
    for (const [request, phase, relistRequested] of rows) {
      const s = requestStarted({ ...relistAsked(initialState("list", "9")) }, request);
      assert.equal(s.phase, phase, request.kind);
      assert.equal(s.relistRequested, relistRequested, request.kind);
    }
  });

  test("requestStarted: a watch from the last list's RV starts fresh from it, any other does not", () => {
    const afterList = listed(initialState("list", undefined), {
      request: list0,
      resourceVersion: "10",
      pages: 1,
    });
    assert.equal(requestStarted(afterList, watch("10")).fromList, true);
    assert.equal(requestStarted(moved(afterList, "11"), watch("11")).fromList, false);
    assert.equal(received(requestStarted(afterList, watch("10"))).fromList, false);
  });

  test("listed: at the list's RV, no relist owed, streaming tried again, a stream goes on as the watch", () => {
    const s: ListWatchState = {
      ...initialState("stream", undefined),
      phase: "listing",
      streamUnavailable: true,
      needsConsistentList: true,
    };
    const rows: [PlannedRequest, ListWatchState["phase"]][] = [
      [list0, "listing"],
      [stream, "watching"],
    ];
    for (const [request, phase] of rows) {
      const after = listed(s, { request, resourceVersion: "20", pages: 1 });
      assert.equal(after.phase, phase);
      assert.equal(after.lastSyncResourceVersion, "20");
      assert.equal(after.listedAt, "20");
      assert.equal(after.mustRelist, false);
      assert.equal(after.needsConsistentList, false);
      assert.equal(after.streamUnavailable, false);
      assert.deepEqual(planNextRequest(after), watch("20"));
    }
  });

  test('listed: "auto" remembers a server that cannot stream for the informer\'s life; "stream" tries again', () => {
    for (const initialList of ["auto", "stream"] as const) {
      const s: ListWatchState = {
        ...initialState(initialList, undefined),
        phase: "listing",
        streamUnavailable: true,
      };
      const after = listed(s, { request: list0, resourceVersion: "20", pages: 1 });
      assert.equal(after.streamUnavailable, initialList === "auto", initialList);
      assert.deepEqual(
        planNextRequest({ ...after, mustRelist: true }).kind,
        initialList === "auto" ? "list" : "stream",
      );
      // A stream that did finish shows a server that can: "auto" streams at the next relist.
      const streamed = listed({ ...s, streamUnavailable: false }, {
        request: stream,
        resourceVersion: "20",
        pages: 1,
      });
      assert.equal(streamed.streamUnavailable, false);
    }
  });

  test("listed: a relist asked for while the list ran is owed after it, consistently", () => {
    const asked = relistAsked(requestStarted(initialState("list", undefined), list0));
    const after = listed(asked, { request: list0, resourceVersion: "5", pages: 1 });
    assert.deepEqual(planNextRequest(after), { kind: "list", resourceVersion: "", paged: true });
  });

  test('listed: only a first list at "0" that came in pages marks the server as paging', () => {
    const rows: [PlannedRequest, number, boolean, boolean][] = [
      [list0, 2, true, true],
      [list0, 1, true, false],
      [{ kind: "list", resourceVersion: "", paged: true }, 3, true, false],
      [list0, 3, false, false], // not the first list
    ];
    for (const [request, pages, first, paging] of rows) {
      const base = first
        ? initialState("list", undefined)
        : { ...initialState("list", undefined), listedAt: "1" };
      const after = listed(base, { request, resourceVersion: "5", pages });
      assert.equal(after.paginatedResult, paging, `${request.resourceVersion} ${pages} ${first}`);
    }
  });

  test("moved, backingOff and stopped change their one field", () => {
    const s = initialState("list", "1");
    assert.deepEqual(moved(s, "2"), { ...s, lastSyncResourceVersion: "2" });
    assert.deepEqual(backingOff(s), { ...s, phase: "backing-off" });
    assert.deepEqual(stopped(s), { ...s, phase: "stopped" });
  });

  test("relistAsked: a consistent relist next, even while watching", () => {
    const watching = requestStarted(initialState("list", "8"), watch("8"));
    assert.deepEqual(planNextRequest(relistAsked(watching)), {
      kind: "list",
      resourceVersion: "",
      paged: true,
    });
  });

  test("every transition is pure: its input is not changed", () => {
    const s = initialState("auto", "3");
    const copy = structuredClone(s);
    requestStarted(s, watch("3"));
    backingOff(s);
    listed(s, { request: stream, resourceVersion: "4", pages: 1 });
    received(s);
    moved(s, "5");
    relistAsked(s);
    stopped(s);
    assert.deepEqual(s, copy);
  });
});
