import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { KubeApiError, KubeNetworkError } from "../../src/client/errors.ts";
import { ManualClock } from "../../src/testing/manual_clock.ts";
import type { ErrorContext } from "../../src/util/error_context.ts";
import { errorKindOf } from "../../src/util/error_kind.ts";
import { ErrorReporter, REPORT_INTERVAL_MS } from "../../src/util/error_reporter.ts";
import { catchUncaught } from "../cache/_uncaught.ts";

/** A console that keeps its lines. */
function lines(): { error: (l: string) => void; warn: (l: string) => void; all: string[] } {
  const all: string[] = [];
  return {
    all,
    error: (l) => void all.push(`error ${l}`),
    warn: (l) => void all.push(`warn ${l}`),
  };
}

const forbidden = (): KubeApiError =>
  KubeApiError.fromStatus(
    {
      kind: "Status",
      code: 403,
      reason: "Forbidden",
      message: 'pods is forbidden: User "dev" cannot list',
    },
    "GET http://127.0.0.1:1/api/v1/pods",
  );

describe("ErrorReporter: the one reporting path", () => {
  test("the context's kind is what the error is (its own kind), the phase where it happened", () => {
    const reporter = new ErrorReporter({ source: "pods informer", onError: () => {} });
    const table: [unknown, ErrorContext["phase"], string][] = [
      [forbidden(), "list", "forbidden"],
      [new KubeApiError({ code: 410 }), "watch", "expired"],
      [new KubeNetworkError("GET x", new TypeError("fetch failed")), "watch", "network"],
      [new TypeError("fetch failed"), "list", "network"],
      [new Error("boom"), "handler", "handler"],
      [new TypeError("undefined is not a function"), "handler", "handler"],
      [new TypeError("x"), "callback", "handler"],
      [new Error("boom"), "reconcile", "other"],
      [forbidden(), "reconcile", "forbidden"],
    ];
    for (const [error, phase, kind] of table) {
      const context = reporter.context(error, { phase, action: "going on" });
      assert.equal(context.kind, kind, `${String(error)} during ${phase}`);
      assert.equal(context.phase, phase);
      assert.equal(context.source, "pods informer");
      if (typeof (error as { kind?: unknown }).kind === "string") {
        assert.equal(context.kind, errorKindOf(error), "agrees with the error's own kind");
      }
    }
  });

  test("onError replaces the default: it gets the error and the whole context, nothing prints", () => {
    const out = lines();
    const seen: [unknown, ErrorContext][] = [];
    const reporter = new ErrorReporter({
      source: "controller web",
      onError: (error, context) => void seen.push([error, context]),
      console: out,
    });
    const error = forbidden();
    reporter.report(error, {
      phase: "reconcile",
      action: "requeued with backoff",
      controller: "web",
      key: "default/w1",
      retryInMs: 5,
    });
    assert.deepEqual(seen, [[error, {
      kind: "forbidden",
      source: "controller web",
      phase: "reconcile",
      action: "requeued with backoff",
      controller: "web",
      key: "default/w1",
      retryInMs: 5,
    }]]);
    reporter.healthy();
    assert.deepEqual(out.all, []);
  });

  test("the default prints the first error of a kind at once, with the server's message and what the object does", () => {
    const out = lines();
    const reporter = new ErrorReporter({
      source: "pods informer",
      clock: new ManualClock(0),
      console: out,
    });
    reporter.report(forbidden(), {
      phase: "list",
      action: "retrying with backoff",
      retryInMs: 1_600,
    });
    assert.deepEqual(out.all, [
      'error pods informer: list forbidden (403): pods is forbidden: User "dev" cannot list; retrying with backoff (next in 1.6 s)',
    ]);
  });

  test("then at most one line per kind per minute, with a count of what was not printed; one line when healthy again", () => {
    const out = lines();
    let now = 0; // the reporter only reads the time
    const clock = { now: () => now, setTimeout: () => 0, clearTimeout: () => {} };
    const reporter = new ErrorReporter({ source: "pods informer", clock, console: out });
    // An outage: a 403 every second and a refused connection every 2 s, for 3 minutes.
    for (let s = 0; s < 180; s++) {
      reporter.report(forbidden(), {
        phase: "list",
        action: "retrying with backoff",
        retryInMs: 1_000,
      });
      if (s % 2 === 0) {
        reporter.report(
          new KubeNetworkError(
            "GET http://127.0.0.1:1/api/v1/pods",
            new TypeError("connection refused"),
          ),
          {
            phase: "list",
            action: "retrying with backoff",
          },
        );
      }
      now += 1_000;
    }
    assert.equal(out.all.length, 6, out.all.join("\n"));
    assert.match(out.all[0]!, /^error pods informer: list forbidden \(403\)/);
    assert.match(
      out.all[1]!,
      /^error pods informer: list network error: GET .*connection refused; retrying with backoff$/,
    );
    assert.match(out.all[2]!, /forbidden.*\[59 more since 1 min ago\]$/);
    assert.match(out.all[3]!, /network error.*\[29 more since 1 min ago\]$/);
    assert.equal(reporter.errorsSinceHealthy, 270);
    reporter.healthy();
    reporter.healthy();
    assert.equal(out.all.at(-1), "warn pods informer: healthy again after 270 errors");
    assert.equal(out.all.length, 7, "healthy once");
    reporter.report(forbidden(), { phase: "watch", action: "retrying with backoff" });
    assert.equal(out.all.length, 8, "after healthy, the next error prints at once");
    assert.equal(REPORT_INTERVAL_MS, 60_000);
  });

  test("a routine 410 is not printed; kinds the object recovers from by itself are warnings", () => {
    const out = lines();
    const reporter = new ErrorReporter({
      source: "pods informer",
      clock: new ManualClock(0),
      console: out,
    });
    reporter.report(new KubeApiError({ code: 410 }), { phase: "watch", action: "relisting" });
    reporter.healthy();
    assert.deepEqual(out.all, []);
    reporter.report(new KubeApiError({ code: 429 }), {
      phase: "list",
      action: "retrying after the server's delay",
      retryInMs: 30_000,
    });
    assert.deepEqual(out.all, [
      "warn pods informer: list rate-limited (429): Kubernetes API error 429; retrying after the server's delay (next in 30 s)",
    ]);
  });

  test("a line names the controller, key and cluster when the source does not; a long message is cut", () => {
    const out = lines();
    const reporter = new ErrorReporter({
      source: "manager",
      clock: new ManualClock(0),
      console: out,
    });
    reporter.report(new Error("x".repeat(1_000)), {
      phase: "reconcile",
      action: "requeued with backoff",
      controller: "web",
      key: "default/w1",
      cluster: "east",
    });
    assert.equal(out.all.length, 1);
    assert.match(
      out.all[0]!,
      /^error manager \(controller web, default\/w1, cluster east\): reconcile error: x{400}\.\.\. \(1000 characters\); requeued with backoff$/,
    );
  });

  test("an onError that throws breaks nothing: its throw goes to onCallbackError, or is reported as uncaught", async () => {
    const thrown: unknown[] = [];
    const boom = new Error("boom");
    new ErrorReporter({
      source: "work queue",
      onError: () => {
        throw boom;
      },
      onCallbackError: (error) => void thrown.push(error),
    }).report(new Error("hook"), { phase: "callback", action: "going on", detail: "onAdd" });
    assert.deepEqual(thrown, [boom]);
    const uncaught: unknown[] = [];
    const restore = catchUncaught((error) => uncaught.push(error));
    try {
      new ErrorReporter({
        source: "work queue",
        onError: () => {
          throw boom;
        },
      }).report(new Error("hook"), { phase: "callback", action: "going on" });
      await Promise.resolve();
      await Promise.resolve();
      assert.deepEqual(uncaught, [boom]);
    } finally {
      restore();
    }
  });
});
