import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { KubeApiError, KubeNetworkError } from "../../src/client/errors.ts";
import type { Status } from "../../src/client/types.ts";
import { WatchDecodeError } from "../../src/watch/decode_error.ts";
import { LineTooLongError } from "../../src/watch/line_splitter.ts";
import {
  planAfterFailure,
  planNextRequest,
  type ReflectorFailure,
  type ReflectorPlanState,
} from "../../src/cache/reflector_plan.ts";
import { InitialEventsTimeoutError, WatchInactivityError } from "../../src/cache/reflector_errors.ts";
import { errorKindOf } from "../../src/util/error_kind.ts";

function state(overrides: Partial<ReflectorPlanState> = {}): ReflectorPlanState {
  return {
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

function apiError(code: number, status?: Omit<Status, "kind" | "code">): KubeApiError {
  return status === undefined
    ? new KubeApiError({ code, bodySnippet: "plain text" })
    : KubeApiError.fromStatus({ kind: "Status", status: "Failure", code, ...status });
}

describe("errorKindOf", () => {
  test("401 is unauthorized, 403 forbidden, 404 not-found", () => {
    assert.equal(errorKindOf(apiError(401, { reason: "Unauthorized" })), "unauthorized");
    assert.equal(errorKindOf(apiError(403, { reason: "Forbidden" })), "forbidden");
    assert.equal(errorKindOf(apiError(404, { reason: "NotFound" })), "not-found");
  });

  test("400 and 422 are invalid (e.g. a server refusing a streaming list)", () => {
    assert.equal(errorKindOf(apiError(400, { reason: "BadRequest" })), "invalid");
    assert.equal(errorKindOf(apiError(422, { reason: "Invalid" })), "invalid");
  });

  test("410 Expired is expired", () => {
    const err = apiError(410, { reason: "Expired", message: "too old resource version: 1 (2)" });
    assert.equal(errorKindOf(err), "expired");
  });

  test("410 with the old reason Gone (servers up to 1.17) is expired", () => {
    assert.equal(errorKindOf(apiError(410, { reason: "Gone" })), "expired");
  });

  test("a bare HTTP 410 without a Status is expired", () => {
    assert.equal(errorKindOf(apiError(410)), "expired");
  });

  test("429 is rate-limited, also with a plain-text body", () => {
    assert.equal(errorKindOf(apiError(429)), "rate-limited");
    assert.equal(errorKindOf(apiError(429, { reason: "TooManyRequests" })), "rate-limited");
  });

  test("5xx is server", () => {
    assert.equal(errorKindOf(apiError(500, { reason: "InternalError" })), "server");
    assert.equal(errorKindOf(apiError(503)), "server");
    assert.equal(errorKindOf(apiError(504, { reason: "Timeout" })), "server");
  });

  test("504 with a ResourceVersionTooLarge cause is too-large-rv", () => {
    const err = apiError(504, {
      reason: "Timeout",
      message: "Too large resource version",
      details: {
        causes: [{ type: "ResourceVersionTooLarge", message: "Too large resource version" }],
        retryAfterSeconds: 1,
      },
    });
    assert.equal(errorKindOf(err), "too-large-rv");
  });

  test("other client errors are other", () => {
    assert.equal(errorKindOf(apiError(409, { reason: "Conflict" })), "other");
  });

  test("a KubeNetworkError is network", () => {
    const err = new KubeNetworkError(
      "GET http://127.0.0.1:1/api/v1/pods",
      new TypeError("fetch failed"),
    );
    assert.equal(errorKindOf(err), "network");
  });

  test("a bare TypeError (how fetch and streams fail) is network", () => {
    assert.equal(errorKindOf(new TypeError("network error")), "network");
  });

  test("a WatchDecodeError or an oversized line is decode", () => {
    const decode = new WatchDecodeError({
      reason: "html",
      lineNumber: 1,
      byteOffset: 0,
      line: "<html>",
    });
    assert.equal(errorKindOf(decode), "decode");
    const long = new LineTooLongError({ limit: 10, lineNumber: 3, byteOffset: 100 });
    assert.equal(errorKindOf(long), "decode");
  });

  test("the reflector's own timeouts are inactivity and initial-events-timeout", () => {
    assert.equal(errorKindOf(new WatchInactivityError(150_000)), "inactivity");
    assert.equal(errorKindOf(new InitialEventsTimeoutError(60_000)), "initial-events-timeout");
  });

  test("anything else is other", () => {
    assert.equal(errorKindOf(new Error("boom")), "other");
    assert.equal(errorKindOf("a string"), "other");
    assert.equal(errorKindOf(undefined), "other");
  });
});

describe("reflector errors", () => {
  test("WatchInactivityError and InitialEventsTimeoutError carry their limits and names", () => {
    const inactivity = new WatchInactivityError(120_000);
    assert.equal(inactivity.name, "WatchInactivityError");
    assert.equal(inactivity.inactivityMs, 120_000);
    assert.match(inactivity.message, /120000 ms/);
    const initial = new InitialEventsTimeoutError(60_000);
    assert.equal(initial.name, "InitialEventsTimeoutError");
    assert.equal(initial.timeoutMs, 60_000);
    assert.match(initial.message, /initial-events-end/);
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
  const fresh = (): ReflectorPlanState => ({
    lastSyncResourceVersion: "42",
    mustRelist: false,
    needsConsistentList: false,
    initialList: "list",
    streamUnavailable: false,
  });
  const watch42 = { kind: "watch", resourceVersion: "42" } as const;
  /** Applies a failure and returns the new state and the retry decision. */
  const after = (s: ReflectorPlanState, f: Partial<ReflectorFailure>) =>
    planAfterFailure(s, { kind: "other", request: watch42, freshFromList: false, ...f });

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
      const s: ReflectorPlanState = {
        ...fresh(),
        lastSyncResourceVersion: undefined,
        mustRelist: true,
        initialList: "stream",
      };
      const r = after(s, { kind, request: { kind: "stream", resourceVersion: "" } });
      assert.equal(r.retryNow, false);
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
