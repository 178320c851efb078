import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { ErrorKind } from "../../src/util/error_kind.ts";
import {
  type Activity,
  backingOff,
  type InitialLine,
  initialLine,
  type InitialPhase,
  initialState,
  listed,
  type ListWatchState,
  moved,
  phaseOf,
  type PlanAfterFailure,
  planAfterFailure,
  type PlannedRequest,
  planNextRequest,
  received,
  type ReflectorFailure,
  type ReflectorState,
  type Relist,
  relistAsked,
  relistOf,
  type RelistReason,
  requestStarted,
  stopped,
  watchWasHealthy,
} from "../../src/cache/reflector_state.ts";

/** A state that must list (a first list), with `overrides`. */
function state(overrides: Partial<ListWatchState> = {}): ListWatchState {
  return { ...initialState("list", undefined), ...overrides };
}

/** The cache must be listed, consistently (at ""). */
const CONSISTENT: Relist = { consistent: true, reason: undefined };
/** The cache must be listed (at the last resource version). */
const RELIST: Relist = { consistent: false, reason: undefined };

/** Watching from `from` (`fromList`: it started at the last list's resource version). */
const watchingFrom = (from: string, fromList = false): Activity => ({
  phase: "watching",
  from,
  fromList,
});

describe("planNextRequest", () => {
  test("the first list asks for resourceVersion 0 (any state, served from the watch cache)", () => {
    assert.deepEqual(planNextRequest(state()), { kind: "list", resourceVersion: "0", paged: true });
  });

  test("a relist asks for the last synced resource version", () => {
    assert.deepEqual(
      planNextRequest(state({ lastSyncResourceVersion: "10245" })),
      { kind: "list", resourceVersion: "10245", paged: false },
    );
  });

  test('after an Expired or too-large-RV list failure the relist is consistent (resourceVersion "")', () => {
    assert.deepEqual(
      planNextRequest(state({ lastSyncResourceVersion: "10245", relist: CONSISTENT })),
      { kind: "list", resourceVersion: "", paged: true },
    );
    assert.deepEqual(planNextRequest(state({ relist: CONSISTENT })), {
      kind: "list",
      resourceVersion: "",
      paged: true,
    });
  });

  test("once synced, the next request watches from the last resource version", () => {
    assert.deepEqual(
      planNextRequest(state({ lastSyncResourceVersion: "10300", relist: undefined })),
      { kind: "watch", resourceVersion: "10300" },
    );
  });

  test("a synced reflector watches whatever the initial-list mode", () => {
    for (const initialList of ["list", "stream", "auto"] as const) {
      assert.deepEqual(
        planNextRequest(state({ lastSyncResourceVersion: "7", relist: undefined, initialList })),
        { kind: "watch", resourceVersion: "7" },
      );
    }
  });

  test("without a resource version there is nothing to watch from: list", () => {
    assert.deepEqual(planNextRequest(state({ relist: undefined })), {
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
        state({ initialList: "auto", lastSyncResourceVersion: "42", relist: CONSISTENT }),
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
        planNextRequest(state({ initialList, streamUnavailable: true, relist: CONSISTENT })),
        { kind: "list", resourceVersion: "", paged: true },
      );
    }
  });

  test("planning is pure: it does not change the state it reads", () => {
    const s = state({ lastSyncResourceVersion: "5", relist: CONSISTENT });
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
    const consistent = planNextRequest(state({ relist: CONSISTENT }));
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
  const fresh = (): ListWatchState =>
    state({ activity: watchingFrom("42"), lastSyncResourceVersion: "42", relist: undefined });
  const watch42 = { kind: "watch", resourceVersion: "42" } as const;
  /** Applies a failure and returns the new state and the retry decision. */
  /** Applies a failure (of a watch that started fresh from a list when `freshFromList`). */
  const after = (
    s: ListWatchState,
    f: Partial<ReflectorFailure> & { freshFromList?: boolean },
  ): PlanAfterFailure & { retryNow: boolean } => {
    const { freshFromList = false, ...failure } = f;
    const activity = s.activity.phase === "watching"
      ? watchingFrom(s.activity.from, freshFromList)
      : s.activity;
    const r = planAfterFailure({ ...s, activity }, {
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
    const r = after({ ...fresh(), relist: RELIST }, { kind: "expired", request: list42 });
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
        relist: RELIST,
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
    activity: watchingFrom(rv),
    lastSyncResourceVersion: rv,
    relist: undefined,
  });
  const watch = (rv: string): PlannedRequest => ({ kind: "watch", resourceVersion: rv });

  test('a watch refused as invalid (400/422, e.g. a checkpoint\'s RV "abc") relists consistently after a backoff', () => {
    const r = planAfterFailure(at("abc"), { kind: "invalid", request: watch("abc") });
    assert.equal(r.wait, "backoff");
    assert.deepEqual(planNextRequest(r.state), { kind: "list", resourceVersion: "", paged: true });
  });

  test('a list refused as invalid is asked for again at "", never at the refused RV', () => {
    const s = { ...at("abc"), relist: RELIST };
    const r = planAfterFailure(s, {
      kind: "invalid",
      request: { kind: "list", resourceVersion: "abc", paged: false },
    });
    assert.equal(r.wait, "backoff");
    assert.deepEqual(planNextRequest(r.state), { kind: "list", resourceVersion: "", paged: true });
  });

  test("a 406 (unsupported) waits the longest delay and changes nothing but the last failure", () => {
    for (
      const request of [watch("7"), { kind: "list", resourceVersion: "0", paged: true } as const]
    ) {
      const s = at("7");
      const r = planAfterFailure(s, { kind: "unsupported", request });
      assert.equal(r.wait, "longest");
      assert.deepEqual(r.state, { ...s, lastFailure: "unsupported" });
    }
  });
});

describe("state transitions", () => {
  const list0: PlannedRequest = { kind: "list", resourceVersion: "0", paged: true };
  const stream: PlannedRequest = { kind: "stream", resourceVersion: "" };
  const watch = (rv: string): PlannedRequest => ({ kind: "watch", resourceVersion: rv });

  test("initialState: a fresh reflector lists first; a resumed one watches from the checkpoint", () => {
    const fresh = initialState("list", undefined);
    assert.equal(fresh.activity.phase, "idle");
    assert.deepEqual(planNextRequest(fresh), list0);
    assert.deepEqual(planNextRequest(initialState("list", "42")), watch("42"));
    assert.deepEqual(planNextRequest(initialState("stream", undefined)), stream);
  });

  test("requestStarted: the phase follows the request; a list answers any relist asked for", () => {
    const rows: [PlannedRequest, ReflectorState, boolean | undefined][] = [
      [list0, "listing", false],
      [stream, "listing", false],
      [watch("9"), "watching", undefined],
    ];
    for (const [request, phase, pending] of rows) {
      const s = requestStarted(relistAsked(initialState("list", "9")), request, 0);
      assert.equal(phaseOf(s.activity), phase, request.kind);
      const a = s.activity;
      const asked = a.phase === "listing" || a.phase === "streaming" ? a.relistAsked : undefined;
      assert.equal(asked, pending, request.kind);
    }
  });

  test("requestStarted: a watch from the last list's RV starts fresh from it, any other does not", () => {
    const afterList = listed(initialState("list", undefined), {
      request: list0,
      resourceVersion: "10",
      pages: 1,
    });
    assert.deepEqual(requestStarted(afterList, watch("10"), 0).activity, watchingFrom("10", true));
    assert.deepEqual(
      requestStarted(moved(afterList, "11"), watch("11"), 0).activity,
      watchingFrom("11"),
    );
    assert.deepEqual(
      received(requestStarted(afterList, watch("10"), 0)).activity,
      watchingFrom("10"),
    );
  });

  test("listed: at the list's RV, no relist owed, streaming tried again, a stream goes on as the watch", () => {
    const rows: [PlannedRequest, ReflectorState][] = [
      [list0, "listing"],
      [stream, "watching"],
    ];
    for (const [request, phase] of rows) {
      const s: ListWatchState = {
        ...requestStarted(initialState("stream", undefined), request, 0),
        streamUnavailable: true,
        relist: CONSISTENT,
      };
      const after = listed(s, { request, resourceVersion: "20", pages: 1 });
      assert.equal(phaseOf(after.activity), phase);
      assert.equal(after.lastSyncResourceVersion, "20");
      assert.equal(after.listedAt, "20");
      assert.equal(after.relist, undefined);
      assert.equal(after.streamUnavailable, false);
      assert.deepEqual(planNextRequest(after), watch("20"));
    }
  });

  test('listed: "auto" remembers a server that cannot stream for the informer\'s life; "stream" tries again', () => {
    for (const initialList of ["auto", "stream"] as const) {
      const s: ListWatchState = {
        ...requestStarted(initialState(initialList, undefined), list0, 0),
        streamUnavailable: true,
      };
      const after = listed(s, { request: list0, resourceVersion: "20", pages: 1 });
      assert.equal(after.streamUnavailable, initialList === "auto", initialList);
      assert.deepEqual(
        planNextRequest({ ...after, relist: RELIST }).kind,
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
    const asked = relistAsked(requestStarted(initialState("list", undefined), list0, 0));
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
    assert.deepEqual(backingOff(s, 250), { ...s, activity: { phase: "backing-off", ms: 250 } });
    assert.deepEqual(stopped(s), { ...s, activity: { phase: "stopped" } });
  });

  test("relistAsked: a consistent relist next, even while watching", () => {
    const watching = requestStarted(initialState("list", "8"), watch("8"), 0);
    assert.deepEqual(planNextRequest(relistAsked(watching)), {
      kind: "list",
      resourceVersion: "",
      paged: true,
    });
  });

  test("every transition is pure: its input is not changed", () => {
    const s = initialState("auto", "3");
    const copy = structuredClone(s);
    requestStarted(s, watch("3"), 0);
    backingOff(s, 1);
    listed(s, { request: stream, resourceVersion: "4", pages: 1 });
    received(s);
    moved(s, "5");
    relistAsked(s);
    stopped(s);
    assert.deepEqual(s, copy);
  });
});

describe("initialLine: a streaming list's progress toward its initial list", () => {
  const start: InitialPhase = { added: false, unexpected: undefined, progressAt: 100 };
  const suspect = (what: "bookmark" | "MODIFIED" | "DELETED"): InitialPhase => ({
    added: true,
    unexpected: what,
    progressAt: 200,
  });
  const going: InitialPhase = { added: true, unexpected: undefined, progressAt: 200 };
  // [phase, line, at, phase after, deadline counts from, bytes count]
  const rows: [InitialPhase, InitialLine, number, InitialPhase, number | undefined, boolean][] = [
    // An initial object is progress: the deadline counts from it, and so do the bytes.
    [start, "ADDED", 150, { added: true, unexpected: undefined, progressAt: 150 }, 150, true],
    [going, "ADDED", 300, { ...going, progressAt: 300 }, 300, true],
    // What a streaming list never shows before its end ends the extensions, for good.
    [going, "bookmark", 300, suspect("bookmark"), 200, false],
    [going, "MODIFIED", 300, suspect("MODIFIED"), 200, false],
    [going, "DELETED", 300, suspect("DELETED"), 200, false],
    [start, "bookmark", 300, { ...start, unexpected: "bookmark" }, 100, false],
    // After that, even an initial object is no progress; the first oddity is the one told.
    [suspect("MODIFIED"), "ADDED", 400, suspect("MODIFIED"), 200, false],
    [suspect("MODIFIED"), "DELETED", 400, suspect("MODIFIED"), 200, false],
    // The end bookmark: bytes count again (the watch's inactivity limit takes over).
    [going, "end", 500, going, undefined, true],
    [suspect("bookmark"), "end", 500, suspect("bookmark"), undefined, true],
  ];
  test("each line, as a table", () => {
    for (const [phase, line, at, after, deadlineFrom, bytesCount] of rows) {
      const copy = structuredClone(phase);
      const step = initialLine(phase, line, at);
      const label = `${line} after ${JSON.stringify(phase)}`;
      assert.deepEqual(step, { phase: after, deadlineFrom, bytesCount }, label);
      assert.deepEqual(phase, copy, "pure");
    }
  });

  test("a stream starts with no progress, from the request's start", () => {
    const s = requestStarted(
      initialState("stream", undefined),
      { kind: "stream", resourceVersion: "" },
      100,
    );
    assert.deepEqual(s.activity, {
      phase: "streaming",
      request: { kind: "stream", resourceVersion: "" },
      relistAsked: false,
      initial: start,
    });
  });
});

describe("watchWasHealthy: a watch the server closed cleanly", () => {
  test("healthy when it delivered a line or stayed open a second; else the reflector backs off", () => {
    const rows: [number, number, boolean][] = [
      [0, 0, false],
      [0, 999, false],
      [0, 1_000, true],
      [1, 0, true],
      [500, 10, true],
    ];
    for (const [lines, openMs, healthy] of rows) {
      assert.equal(watchWasHealthy(lines, openMs), healthy, `${lines} lines, ${openMs} ms`);
    }
  });
});

describe("relistOf: which completed lists count as relists, and why", () => {
  test("every list but a fresh reflector's first; a resumed reflector's first is an expiry", () => {
    const why = (reason: RelistReason | undefined): ListWatchState =>
      state({ relist: { consistent: false, reason } });
    const rows: [ListWatchState, number, boolean, RelistReason | undefined][] = [
      [why(undefined), 0, false, undefined],
      [why(undefined), 0, true, "expired"],
      [why("not-found"), 0, true, "not-found"],
      [why("expired"), 1, false, "expired"],
      [why("requested"), 3, false, "requested"],
      [why("decode"), 2, true, "decode"],
      [why(undefined), 2, false, "expired"],
    ];
    for (const [s, lists, resumed, reason] of rows) {
      assert.equal(relistOf(s, lists, resumed), reason, `${lists} ${resumed} ${s.relist?.reason}`);
    }
  });
});

describe("planAfterFailure: which failures are reported", () => {
  const watch5: PlannedRequest = { kind: "watch", resourceVersion: "5" };
  const list: PlannedRequest = { kind: "list", resourceVersion: "", paged: true };
  test("every failure, but a 404 right after a 404; a list that completes starts afresh", () => {
    const rows: [ErrorKind[], boolean[]][] = [
      [["not-found", "not-found", "not-found"], [true, false, false]],
      // Another error in between: the 404 is told again (the fleet sees the resource is gone).
      [["not-found", "server", "not-found"], [true, true, true]],
      [["not-found", "network", "not-found", "not-found"], [true, true, true, false]],
      [["server", "server", "expired"], [true, true, true]],
      [["unsupported", "not-found", "unsupported", "not-found"], [true, true, true, true]],
    ];
    for (const [kinds, reported] of rows) {
      let s = state({ lastSyncResourceVersion: "5", relist: undefined });
      const told: boolean[] = [];
      for (const kind of kinds) {
        const r = planAfterFailure(s, { kind, request: s.relist === undefined ? watch5 : list });
        told.push(r.report);
        s = r.state;
      }
      assert.deepEqual(told, reported, kinds.join(" "));
    }
    const gone = planAfterFailure(state(), { kind: "not-found", request: list }).state;
    assert.equal(gone.notFound, true);
    const back = listed(gone, { request: list, resourceVersion: "9", pages: 1 });
    assert.equal(back.notFound, false);
    assert.equal(
      planAfterFailure(back, { kind: "not-found", request: list }).report,
      true,
      "gone again after it was back",
    );
  });
});
