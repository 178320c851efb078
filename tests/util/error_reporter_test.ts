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

/** What happens at a time (ms) of a table row: an error of a cluster, a recovery, a stop. */
type Step =
  | { at: number; error: "404" | "403" | "network" | "429" | "410"; cluster?: string }
  | { at: number; healthy: string | "object" }
  | { at: number; close: true };

const errorOf = (kind: "404" | "403" | "network" | "429" | "410"): unknown =>
  kind === "network"
    ? new TypeError("fetch failed")
    : KubeApiError.fromStatus({ kind: "Status", code: Number(kind), message: `answered ${kind}` });

/** Plays `steps` on a fleet's reporter (`groupBy: "cluster"`) on a manual clock; its lines. */
async function play(
  steps: readonly Step[],
  options: { maxLinesPerMinute?: number; until?: number } = {},
): Promise<{ lines: string[]; clock: ManualClock }> {
  const out = lines();
  const clock = new ManualClock(0);
  const reporter = new ErrorReporter({
    source: "fleet pods",
    groupBy: "cluster",
    clock,
    console: out,
    ...options.maxLinesPerMinute === undefined
      ? {}
      : { maxLinesPerMinute: options.maxLinesPerMinute },
  });
  for (const step of steps) {
    if (step.at > clock.now()) await clock.advance(step.at - clock.now());
    if ("error" in step) {
      reporter.report(errorOf(step.error), {
        phase: "list",
        action: "retrying with backoff",
        cluster: step.cluster,
      });
    } else if ("healthy" in step) {
      reporter.healthy(step.healthy === "object" ? undefined : step.healthy);
    } else reporter.close();
  }
  if (options.until !== undefined) await clock.advance(options.until - clock.now());
  return { lines: out.all, clock };
}

/** `count` clusters `c1`...: one error each, a second apart from `from`. */
const many = (count: number, error: "404" | "network" = "404", from = 0): Step[] =>
  Array.from({ length: count }, (_, i) => ({ at: from + i * 1_000, error, cluster: `c${i + 1}` }));

describe("ErrorReporter with groupBy cluster: a fleet's rule", () => {
  const table: {
    name: string;
    steps: Step[];
    until?: number;
    maxLinesPerMinute?: number;
    expect: (string | RegExp)[];
  }[] = [
    {
      name: "two clusters failing the same way within a minute: a first line each",
      steps: [{ at: 0, error: "404", cluster: "b" }, { at: 5_000, error: "404", cluster: "c" }],
      expect: [
        "error fleet pods (cluster b): list not found (404): answered 404; retrying with backoff",
        "error fleet pods (cluster c): list not found (404): answered 404; retrying with backoff",
      ],
    },
    {
      name: "three clusters failing different ways: a first line each",
      steps: [
        { at: 0, error: "404", cluster: "a" },
        { at: 1_000, error: "403", cluster: "b" },
        { at: 2_000, error: "network", cluster: "c" },
      ],
      expect: [
        /^error fleet pods \(cluster a\): list not found \(404\)/,
        /^error fleet pods \(cluster b\): list forbidden \(403\)/,
        /^error fleet pods \(cluster c\): list network error: fetch failed/,
      ],
    },
    {
      name: "one cluster and kind: at most one line a minute, then a count of what was not printed",
      steps: [
        { at: 0, error: "404", cluster: "b" },
        { at: 20_000, error: "404", cluster: "b" },
        { at: 40_000, error: "404", cluster: "b" },
        { at: 60_000, error: "404", cluster: "b" },
      ],
      expect: [
        /^error fleet pods \(cluster b\): list not found \(404\): answered 404; retrying with backoff$/,
        /^error fleet pods \(cluster b\): list not found \(404\): .*\[2 more since 1 min ago\]$/,
      ],
    },
    {
      name: "more than 5 lines in a minute: 5, then one line at the minute's end naming the rest",
      steps: many(8),
      until: 120_000,
      expect: [
        /\(cluster c1\)/,
        /\(cluster c2\)/,
        /\(cluster c3\)/,
        /\(cluster c4\)/,
        /\(cluster c5\)/,
        "error fleet pods: 3 errors not printed in the last 55 s (at most 5 lines a minute): not found (404) in 3 clusters (c6, c7, c8)",
      ],
    },
    {
      name: "the cap is an option",
      steps: many(3),
      maxLinesPerMinute: 2,
      until: 60_000,
      expect: [
        /\(cluster c1\)/,
        /\(cluster c2\)/,
        "error fleet pods: 1 error not printed in the last 58 s (at most 2 lines a minute): not found (404) in 1 cluster (c3)",
      ],
    },
    {
      name: "a thousand clusters: 5 lines and a summary a minute, naming 5 per kind",
      steps: [...many(995, "404"), ...many(5, "network", 995_000)].map((s, i) => ({
        ...s,
        at: Math.floor(i / 100) * 1_000,
      })),
      until: 60_000,
      expect: [
        /\(cluster c1\)/,
        /\(cluster c2\)/,
        /\(cluster c3\)/,
        /\(cluster c4\)/,
        /\(cluster c5\)/,
        /^error fleet pods: 995 errors not printed in the last 1 min \(at most 5 lines a minute\): not found \(404\) in 990 clusters \(c6, c7, c8, c9, c10 and 985 more\), network error in 5 clusters \(c1, c2, c3, c4, c5\)$/,
      ],
    },
    {
      name: "the next minute prints clusters not printed yet, then again a summary",
      steps: [...many(8), ...many(8, "404", 60_000)],
      until: 180_000,
      expect: [
        /\(cluster c1\)/,
        /\(cluster c2\)/,
        /\(cluster c3\)/,
        /\(cluster c4\)/,
        /\(cluster c5\)/,
        /^error fleet pods: 3 errors not printed .*\(c6, c7, c8\)$/,
        /^error fleet pods \(cluster c1\): list not found \(404\): answered 404; retrying with backoff$/,
        /\(cluster c2\)/,
        /\(cluster c3\)/,
        /\(cluster c4\)/,
        /\(cluster c5\)/,
        /^error fleet pods: 3 errors not printed in the last 55 s .*\(c6, c7, c8\)$/,
      ],
    },
    {
      name: "a cluster healthy again: one line for it, and its next error prints at once",
      steps: [
        { at: 0, error: "404", cluster: "b" },
        { at: 1_000, error: "404", cluster: "b" },
        { at: 2_000, error: "404", cluster: "c" },
        { at: 3_000, healthy: "b" },
        { at: 4_000, healthy: "b" },
        { at: 5_000, error: "404", cluster: "b" },
      ],
      expect: [
        /\(cluster b\)/,
        /\(cluster c\)/,
        "warn fleet pods (cluster b): healthy again after 2 errors",
        /^error fleet pods \(cluster b\): list not found \(404\): answered 404; retrying with backoff$/,
      ],
    },
    {
      name: "a cluster without errors is not announced healthy; a routine 410 is not printed",
      steps: [{ at: 0, error: "410", cluster: "b" }, { at: 1_000, healthy: "b" }],
      expect: [],
    },
    {
      name: "many clusters healthy again: within the cap, the rest in the summary",
      steps: [
        ...many(7),
        ...Array.from({ length: 7 }, (_, i) => ({ at: 10_000 + i, healthy: `c${i + 1}` })),
      ],
      maxLinesPerMinute: 7,
      until: 60_000,
      expect: [
        ...Array.from({ length: 7 }, (_, i) => new RegExp(`\\(cluster c${i + 1}\\)`)),
        "warn fleet pods: not printed in the last 50 s (at most 7 lines a minute): healthy again in 7 clusters (c1, c2, c3, c4, c5 and 2 more)",
      ],
    },
    {
      name: "the whole object healthy again: the pending summary first, then its line",
      steps: [...many(6), { at: 10_000, healthy: "object" }, {
        at: 11_000,
        error: "404",
        cluster: "c1",
      }],
      until: 120_000,
      expect: [
        /\(cluster c1\)/,
        /\(cluster c2\)/,
        /\(cluster c3\)/,
        /\(cluster c4\)/,
        /\(cluster c5\)/,
        "error fleet pods: 1 error not printed in the last 5 s (at most 5 lines a minute): not found (404) in 1 cluster (c6)",
        "warn fleet pods: healthy again after 6 errors",
        /^error fleet pods: 1 error not printed .*\(c1\)$/, // still within the minute's 5 lines
      ],
    },
    {
      name:
        "a summary of kinds the object recovers from is a warning; close() prints what is pending",
      steps: [
        ...Array.from({ length: 6 }, (_, i): Step => ({ at: i, error: "429", cluster: `c${i}` })),
        { at: 1_000, close: true },
      ],
      expect: [
        /^warn fleet pods \(cluster c0\): list rate-limited \(429\)/,
        /\(cluster c1\)/,
        /\(cluster c2\)/,
        /\(cluster c3\)/,
        /\(cluster c4\)/,
        "warn fleet pods: 1 error not printed in the last 995 ms (at most 5 lines a minute): rate-limited (429) in 1 cluster (c5)",
      ],
    },
  ];
  for (const row of table) {
    test(row.name, async () => {
      const { lines: printed, clock } = await play(row.steps, row);
      assert.equal(printed.length, row.expect.length, printed.join("\n"));
      row.expect.forEach((expected, i) => {
        if (typeof expected === "string") assert.equal(printed[i], expected);
        else assert.match(printed[i]!, expected);
      });
      assert.equal(clock.pendingTimers, 0, "no timer left once the summary printed");
    });
  }

  test("close() leaves no timer; with onError nothing prints and no timer is set", () => {
    const clock = new ManualClock(0);
    const out = lines();
    const seen: string[] = [];
    const reporter = new ErrorReporter({
      source: "fleet pods",
      groupBy: "cluster",
      clock,
      console: out,
      onError: (_error, context) => void seen.push(`${context.cluster} ${context.kind}`),
    });
    for (let i = 0; i < 20; i++) {
      reporter.report(errorOf("404"), { phase: "list", action: "retrying", cluster: `c${i}` });
    }
    reporter.healthy("c1");
    assert.equal(seen.length, 20);
    assert.equal(clock.pendingTimers, 0);
    reporter.close();
    assert.deepEqual(out.all, []);
  });

  test("a cluster forgotten (it left the fleet) starts afresh; a bad cap is refused", async () => {
    const { lines: printed } = await play([
      { at: 0, error: "404", cluster: "b" },
      { at: 1_000, error: "404", cluster: "b" },
    ]);
    assert.equal(printed.length, 1);
    const clock = new ManualClock(0);
    const out = lines();
    const reporter = new ErrorReporter({ source: "f", groupBy: "cluster", clock, console: out });
    reporter.report(errorOf("404"), { phase: "list", action: "retrying", cluster: "b" });
    reporter.forget("b");
    reporter.report(errorOf("404"), { phase: "list", action: "retrying", cluster: "b" });
    assert.equal(out.all.length, 2, "b came back as a new cluster");
    assert.throws(
      () => new ErrorReporter({ source: "f", groupBy: "cluster", maxLinesPerMinute: 0 }),
      RangeError,
    );
  });
});
